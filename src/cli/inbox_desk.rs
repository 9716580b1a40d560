//! `pbem inbox`: incoming mail by game, sender and fate (duplicates listed as such), and `pbem inbox show ID`: one mail decoded, with each line's fate and the replies it got.

use std::path::Path;

use chrono::{DateTime, Utc};
use clap::{Args, Subcommand};

use super::{say, Exit};
use crate::mail::inbound::{self, Inbound};
use crate::mailroom::{MailFate, MailNote};
use crate::store::{MessageFilter, MessageRow, Store};

#[derive(Debug, Subcommand)]
pub enum InboxCmd {
    /// One stored mail: its headers and text as decoded, what became of each of its lines
    /// (as the reply said it), the plies it played and the replies it got.
    Show { id: i64 },
}

/// `pbem inbox`'s filters.
#[derive(Debug, Args)]
pub struct InboxList {
    /// Only mail about this game.
    #[arg(long)]
    pub game: Option<i64>,
    /// Only mail that ended so: new, done, refused, failed, ignored (bounces, auto-replies,
    /// bulk mail, loops: never answered) or duplicate (delivered again, not processed again).
    #[arg(long, value_parser = listed)]
    pub status: Option<Listed>,
    /// Only mail from this address.
    #[arg(long, value_name = "ADDRESS")]
    pub from: Option<String>,
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(i64).range(1..))]
    pub limit: i64,
}

/// What `--status` picks: a mail's fate, or the second deliveries of stored mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Listed {
    Fate(MailFate),
    Duplicate,
}

fn listed(text: &str) -> Result<Listed, String> {
    match (text, MailFate::parse(text)) {
        ("duplicate", _) => Ok(Listed::Duplicate),
        (_, Some(f)) => Ok(Listed::Fate(f)),
        _ => Err("one of: new, done, refused, failed, ignored, duplicate".into()),
    }
}

pub(super) fn run(db: &Path, cmd: Option<InboxCmd>, list: InboxList) -> anyhow::Result<Exit> {
    let mut store = Store::open(db, false)?;
    match cmd {
        Some(InboxCmd::Show { id }) => show(&mut store, id),
        None => {
            print_spooled(db);
            print_list(&mut store, &list)
        }
    }
}

/// Mail `pbem ingest` left in the spool and no worker has read into the store yet: safe, but
/// not in the listing below until it is (a worker that cannot open the database leaves it);
/// and what was set aside from it.
fn print_spooled(db: &Path) {
    let spool = crate::mail::spool::dir(db);
    match crate::mail::spool::waiting(&spool) {
        0 => {}
        n => println!(
            "{n} mail{} waiting in {} to be read in (by the next `pbem ingest` worker or \
             `pbem serve` pass; `pbem serve --once` does it now)",
            if n == 1 { "" } else { "s" },
            spool.display()
        ),
    }
    match crate::mail::spool::aside::count(&spool) {
        0 => {}
        n => println!(
            "{n} spool entr{} set aside in {}, never read in (unreadable, or it killed its \
             readers twice): see the GM notices",
            if n == 1 { "y" } else { "ies" },
            crate::mail::spool::aside::folder(&spool).display()
        ),
    }
}

/// One line of the listing: when, the mail, and what became of it.
struct Row {
    at: DateTime<Utc>,
    mail: MessageRow,
    duplicate: bool,
}

/// The listing, newest first: stored mail and second deliveries of it, merged by time.
fn print_list(store: &mut Store, list: &InboxList) -> anyhow::Result<Exit> {
    let filter = MessageFilter {
        game: list.game,
        from: list.from.clone(),
        fate: match list.status {
            Some(Listed::Fate(f)) => Some(f.as_str().to_string()),
            _ => None,
        },
        limit: list.limit,
    };
    let (stored, again) = store.read(|tx| {
        let stored = match list.status {
            Some(Listed::Duplicate) => Vec::new(),
            _ => tx.messages_where(&filter)?,
        };
        let again = match list.status {
            None | Some(Listed::Duplicate) => tx.duplicates(&filter)?,
            Some(Listed::Fate(_)) => Vec::new(),
        };
        Ok((stored, again))
    })?;
    let mut rows: Vec<Row> = stored
        .into_iter()
        .map(|m| Row {
            at: m.received_at,
            mail: m,
            duplicate: false,
        })
        .chain(again.into_iter().map(|(at, m)| Row {
            at,
            mail: m,
            duplicate: true,
        }))
        .collect();
    rows.sort_by_key(|r| std::cmp::Reverse((r.at, r.mail.id)));
    rows.truncate(list.limit as usize);
    if rows.is_empty() {
        println!("no mail");
    }
    for r in rows {
        let m = &r.mail;
        let what = match r.duplicate {
            true => format!("duplicate of mail {}: not processed again", m.id),
            false => MailNote::read(m.status, m.note.as_deref()).summary,
        };
        println!(
            "{:>5} {} {:<30} {:<6} {what}",
            m.id,
            r.at.format("%Y-%m-%d %H:%M:%S"),
            m.from_addr.as_deref().unwrap_or("-"),
            m.game_id.map_or("-".to_string(), |g| format!("#{g}")),
        );
    }
    Ok(0)
}

/// `inbox show ID`: the mail as stored, decoded, then its fate line by line.
fn show(store: &mut Store, id: i64) -> anyhow::Result<Exit> {
    let found = store.read(|tx| {
        let Some(m) = tx.message(id)? else {
            return Ok(None);
        };
        let inb = inbound::parse(&m.raw);
        let replies = match &inb.message_id {
            Some(mid) => tx.replies_to(&format!("<{mid}>"))?,
            None => Vec::new(),
        };
        let again = tx.deliveries_again(id)?;
        Ok(Some((m, inb, replies, again)))
    })?;
    let Some((m, inb, replies, again)) = found else {
        say(&format!("no mail {id} in the inbox"));
        return Ok(1);
    };
    let about = m
        .game_id
        .map_or(String::new(), |g| format!(", about game {g}"));
    println!(
        "Mail {id}, received {}{about}",
        m.received_at.format("%Y-%m-%d %H:%M:%S UTC")
    );
    print_headers(&inb);
    println!();
    for line in inb.body.lines() {
        println!("{line}");
    }
    println!();
    print_fate(&MailNote::read(m.status, m.note.as_deref()));
    for r in &replies {
        println!(
            "Reply: outbox {} to {} ({}, {}): {}",
            r.id, r.to_addr, r.kind, r.status, r.subject
        );
    }
    for at in again {
        println!(
            "Delivered again {} (a duplicate): not processed again",
            at.format("%Y-%m-%d %H:%M:%S UTC")
        );
    }
    Ok(0)
}

/// The headers a GM reads a mail by, decoded.
fn print_headers(inb: &Inbound) {
    let from = match (&inb.from_name, &inb.from) {
        (Some(name), Some(addr)) => format!("{name} <{addr}>"),
        (None, Some(addr)) => addr.clone(),
        _ => "(none)".into(),
    };
    println!("From: {from}");
    println!("To: {}", inb.to.join(", "));
    if !inb.cc.is_empty() {
        println!("Cc: {}", inb.cc.join(", "));
    }
    println!("Subject: {}", inb.subject);
    if let Some(d) = inb.date {
        println!("Date: {}", d.to_rfc2822());
    }
    if let Some(mid) = &inb.message_id {
        println!("Message-ID: <{mid}>");
    }
}

/// The mail's fate, then each line's and the plies it played.
fn print_fate(note: &MailNote) {
    println!("What became of it: {}", note.summary);
    if note.legacy && note.fate != MailFate::New {
        println!(
            "  (processed by an older pbem, which kept no line's fate: its reply, below, \
             says them: pbem outbox show ID)"
        );
    }
    for line in &note.lines {
        println!("  {line}");
    }
    for ply in &note.plies {
        println!("Played: {ply}");
    }
}
