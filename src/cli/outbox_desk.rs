//! `pbem outbox list | retry | show | send`: the outgoing queue with each mail's next attempt, retries refused with the reason, one queued mail decoded from its stored bytes, and sending what is due now.

use std::path::Path;

use chrono::{DateTime, Utc};
use clap::Subcommand;

use super::{say, Exit};
use crate::config::Config;
use crate::mail::inbound;
use crate::store::{OutboxRow, OutboxStatus, Store};

#[derive(Debug, Subcommand)]
pub enum OutboxCmd {
    /// List outgoing mail, newest first, with when each is tried next.
    List {
        /// pending, sent, failed, or bounced (sent, and a delivery report came back).
        #[arg(long, value_parser = outbox_status)]
        status: Option<Listed>,
        #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(i64).range(1..))]
        limit: i64,
    },
    /// Try a failed or delayed mail again now (all failed ones with --failed).
    Retry {
        id: Option<i64>,
        #[arg(long)]
        failed: bool,
    },
    /// One queued mail as it is sent: its headers and text decoded from the stored bytes.
    Show { id: i64 },
    /// Send every mail due now (board pictures drawn first), after any sender at work.
    Send {
        /// As `pbem ingest` starts it after spooling a mail: reads the spool in and answers
        /// it, then sends; nothing to do when another such worker already waits for the send
        /// turn; nothing printed.
        #[arg(long, hide = true)]
        background: bool,
    },
}

/// `outbox send`: what is due goes out now.
fn send(store: &mut Store, cfg: &Config) -> anyhow::Result<Exit> {
    let transport = cfg.transport()?;
    let d = crate::sender::drain(store, cfg, &transport, &crate::edge::now)?;
    println!(
        "sent {}, retrying {}, failed {}",
        d.sent, d.retrying, d.failed
    );
    Ok(if d.failed > 0 { 1 } else { 0 })
}

/// What `outbox list --status` lists.
#[derive(Debug, Clone, Copy)]
pub enum Listed {
    /// The mails in one status.
    Status(OutboxStatus),
    /// The mails a delivery report came back for.
    Bounced,
}

/// `--status` of `outbox list`: an outbox status by its name, or `bounced`.
fn outbox_status(text: &str) -> Result<Listed, String> {
    if text == "bounced" {
        return Ok(Listed::Bounced);
    }
    OutboxStatus::parse(text)
        .map(Listed::Status)
        .ok_or_else(|| "one of: pending, sent, failed, bounced".to_string())
}

pub(super) fn run(
    db: &Path,
    cfg: &Config,
    cmd: OutboxCmd,
    now: DateTime<Utc>,
) -> anyhow::Result<Exit> {
    let mut store = Store::open(db, false)?;
    match cmd {
        OutboxCmd::Send { background: true } => {
            let mut daemon = crate::daemon::Daemon::new(db, store, cfg.clone())?;
            crate::daemon::worker::run_background(&mut daemon)?;
            Ok(0)
        }
        OutboxCmd::Send { background: false } => send(&mut store, cfg),
        OutboxCmd::List { status, limit } => list(&mut store, status, limit, now),
        // A retry is the GM's "try now": the mail is due again, and what is due goes.
        OutboxCmd::Retry { id: Some(id), .. } => match retry_one(&mut store, id, now)? {
            0 => send(&mut store, cfg),
            refused => Ok(refused),
        },
        OutboxCmd::Retry {
            id: None,
            failed: true,
        } => {
            retry_failed(&mut store, now)?;
            send(&mut store, cfg)
        }
        OutboxCmd::Retry {
            id: None,
            failed: false,
        } => anyhow::bail!("give a mail id, or --failed for all failed mail"),
        OutboxCmd::Show { id } => show(&mut store, id),
    }
}

/// When a mail goes (or went), in a word: `next 2026-03-01 12:01`, `due now`, `sent ...`,
/// `gave up`.
fn when(r: &OutboxRow, now: DateTime<Utc>) -> String {
    let at = |t: DateTime<Utc>| t.format("%Y-%m-%d %H:%M").to_string();
    match (r.status, r.next_try_at, r.sent_at) {
        // Never tried and not due yet: held by the hourly limit per recipient.
        (OutboxStatus::Pending, Some(t), _) if t > now && r.attempts == 0 => {
            format!("held until {} (limit)", t.format("%H:%M"))
        }
        (OutboxStatus::Pending, Some(t), _) if t > now => format!("next {}", at(t)),
        (OutboxStatus::Pending, _, _) => "due now".into(),
        (OutboxStatus::Sent, _, Some(t)) => format!("sent {}", at(t)),
        (OutboxStatus::Sent, _, None) => "sent".into(),
        (OutboxStatus::Failed, _, _) => "gave up (retry ID)".into(),
    }
}

fn list(
    store: &mut Store,
    status: Option<Listed>,
    limit: i64,
    now: DateTime<Utc>,
) -> anyhow::Result<Exit> {
    let rows = store.read(|tx| match status {
        None => tx.outbox(None, limit),
        Some(Listed::Status(s)) => tx.outbox(Some(s), limit),
        Some(Listed::Bounced) => tx.outbox_bounced(limit),
    })?;
    // Mail to an address that bounces waits for its probe, not for the hourly limit.
    let held = store.read(|tx| tx.held_addresses())?;
    if rows.is_empty() {
        println!("the outbox is empty");
    }
    for r in rows {
        println!(
            "{:>5} {:<7} {:<22} {:<13} {:<28} tries {} {}",
            r.id,
            r.status.as_str(),
            match held
                .iter()
                .find(|u| u.addr.eq_ignore_ascii_case(&r.to_addr))
            {
                Some(u) if r.status == OutboxStatus::Pending => format!(
                    "bounces: {}",
                    u.probe_at
                        .map_or("-".into(), |t| t.format("%m-%d %H:%M").to_string())
                ),
                _ => when(&r, now),
            },
            r.kind,
            r.to_addr,
            r.attempts,
            r.subject
        );
        if let Some(c) = &r.cause {
            println!("      cause: {c}");
        }
        if let Some(e) = &r.last_error {
            println!("      last error: {e}");
        }
        if let (Some(at), Some(why)) = (r.bounced_at, &r.bounce) {
            println!("      bounced {}: {why}", at.format("%Y-%m-%d %H:%M"));
        }
    }
    Ok(0)
}

/// `outbox retry ID`: a mail that is not there or went already is refused (exit 1), with
/// the reason; a pending or failed one is due again now.
fn retry_one(store: &mut Store, id: i64, now: DateTime<Utc>) -> anyhow::Result<Exit> {
    let row = store.tx(|tx| {
        let row = tx.outbox_mail(id)?;
        if row.as_ref().is_some_and(|r| r.status != OutboxStatus::Sent) {
            tx.retry_outbox(id, now)?;
        }
        Ok(row)
    })?;
    match row {
        None => {
            say(&format!("no mail {id} in the outbox"));
            Ok(1)
        }
        Some(r) if r.status == OutboxStatus::Sent => {
            let at = r.sent_at.map_or(String::new(), |t| {
                format!(" at {}", t.format("%Y-%m-%d %H:%M:%S UTC"))
            });
            say(&format!(
                "mail {id} was sent already{at}: there is nothing to retry"
            ));
            Ok(1)
        }
        Some(_) => {
            println!("mail {id} queued again");
            Ok(0)
        }
    }
}

/// `outbox retry --failed`: every failed mail is due again now.
fn retry_failed(store: &mut Store, now: DateTime<Utc>) -> anyhow::Result<Exit> {
    let n = store.tx(|tx| {
        let mut n = 0;
        for r in tx.outbox(Some(OutboxStatus::Failed), i64::MAX)? {
            n += usize::from(tx.retry_outbox(r.id, now)?);
        }
        Ok(n)
    })?;
    println!("{n} mail(s) queued again");
    Ok(0)
}

/// `outbox show ID`: where the mail is, then the mail as it goes out: the headers and text
/// decoded from its stored bytes, or its columns for a mail that has none yet.
fn show(store: &mut Store, id: i64) -> anyhow::Result<Exit> {
    let Some(r) = store.read(|tx| tx.outbox_mail(id))? else {
        say(&format!("no mail {id} in the outbox"));
        return Ok(1);
    };
    println!(
        "Outbox mail {id}: {} ({}), {} tries, queued {}",
        r.status,
        r.kind,
        r.attempts,
        r.created_at.map_or("-".into(), |t| t
            .format("%Y-%m-%d %H:%M:%S UTC")
            .to_string()),
    );
    match (r.status, r.next_try_at, r.sent_at) {
        (OutboxStatus::Sent, _, Some(t)) => {
            println!("Sent {}", t.format("%Y-%m-%d %H:%M:%S UTC"))
        }
        (OutboxStatus::Pending, Some(t), _) => {
            println!("Next try {}", t.format("%Y-%m-%d %H:%M:%S UTC"))
        }
        _ => {}
    }
    if let Some(e) = &r.last_error {
        println!("Last error: {e}");
    }
    println!();
    match &r.raw {
        Some(raw) => print_decoded(raw),
        None => print_columns(&r),
    }
    Ok(0)
}

/// The stored bytes, decoded as a mail client shows them (the text part).
fn print_decoded(raw: &[u8]) {
    let m = inbound::parse(raw);
    let from = match (&m.from_name, &m.from) {
        (Some(name), Some(addr)) => format!("{name} <{addr}>"),
        (_, addr) => addr.clone().unwrap_or_default(),
    };
    println!("From: {from}");
    println!("To: {}", m.to.join(", "));
    if let Some(r) = &m.reply_to {
        println!("Reply-To: {r}");
    }
    println!("Subject: {}", m.subject);
    if let Some(d) = m.date {
        println!("Date: {}", d.to_rfc2822());
    }
    if let Some(mid) = &m.message_id {
        println!("Message-ID: <{mid}>");
    }
    if let Some(parent) = m.in_reply_to.first() {
        println!("In-Reply-To: <{parent}>");
    }
    println!();
    for line in m.body.lines() {
        println!("{line}");
    }
}

/// A mail with no bytes (queued by an older pbem and not sent yet, or one that could not be
/// built): what its columns say.
fn print_columns(r: &OutboxRow) {
    println!("(no stored bytes: queued by an older pbem, or not buildable; from its columns)");
    println!("From: {}", r.from_addr);
    println!("To: {}", r.to_addr);
    if let Some(rt) = &r.reply_to {
        println!("Reply-To: {rt}");
    }
    println!("Subject: {}", r.subject);
    println!("Message-ID: {}", r.message_id);
    if let Some(parent) = &r.in_reply_to {
        println!("In-Reply-To: {parent}");
    }
    println!();
    for line in r.body.lines() {
        println!("{line}");
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::{Duration, TimeZone};

    /// A mail held by the hourly limit (never tried, due later) says so; a retry says when.
    #[test]
    fn a_held_mail_says_until_when_and_why() {
        let now = Utc.with_ymd_and_hms(2026, 11, 27, 12, 0, 0).unwrap();
        let mut row = OutboxRow {
            status: OutboxStatus::Pending,
            next_try_at: Some(now + Duration::minutes(40)),
            ..Default::default()
        };
        assert_eq!(when(&row, now), "held until 12:40 (limit)");
        row.attempts = 1;
        assert_eq!(when(&row, now), "next 2026-11-27 12:40");
        row.next_try_at = None;
        assert_eq!(when(&row, now), "due now");
    }
}
