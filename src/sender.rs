//! Drains the outbox through a transport: committed mail only, retries with backoff, permanent failures marked.

use chrono::{DateTime, Duration, Utc};

use crate::config::Config;
use crate::fault;
use crate::mail::outbound::{OutMail, Transport};
use crate::store::{OutboxRow, Store};

/// What one drain did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Drained {
    pub sent: usize,
    pub retrying: usize,
    pub failed: usize,
}

/// The mail as the transport takes it.
pub fn out_mail(row: &OutboxRow) -> OutMail {
    OutMail {
        from: row.from_addr.clone(),
        to: vec![row.to_addr.clone()],
        reply_to: row.reply_to.clone(),
        subject: row.subject.clone(),
        body: row.body.clone(),
        message_id: row.message_id.clone(),
        in_reply_to: row.in_reply_to.clone(),
        references: row
            .refs
            .as_deref()
            .map(|r| r.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default(),
        auto_submitted: Some("auto-replied".into()),
        extra_headers: row
            .game_id
            .map(|g| vec![("X-Pbem-Game".to_string(), g.to_string())])
            .unwrap_or_default(),
    }
}

/// When to try again after `attempts` failed tries: base, 2x base, 4x base ... capped at a day.
pub fn backoff(cfg: &Config, attempts: i64, now: DateTime<Utc>) -> DateTime<Utc> {
    let secs = cfg
        .retry_base_secs
        .saturating_mul(1i64 << attempts.clamp(0, 20))
        .min(86_400);
    now + Duration::seconds(secs)
}

/// Sends every due mail once. A mail is marked sent only after the transport took it, so a
/// crash in between sends it again (at least once, never lost); one sender at a time, so
/// two never send the same mail.
pub fn drain(
    store: &mut Store,
    cfg: &Config,
    transport: &Transport,
    now: &dyn Fn() -> DateTime<Utc>,
) -> anyhow::Result<Drained> {
    let _turn = store.send_turn()?;
    let mut out = Drained::default();
    loop {
        let due = store.read(|tx| tx.outbox_due(now(), 500))?;
        if due.is_empty() {
            return Ok(out);
        }
        // Send the batch, then mark it in one transaction: a crash in between sends again
        // (at least once), never loses a mail.
        let mails: Vec<_> = due.iter().map(out_mail).collect();
        let results = transport.send_batch(&mails);
        fault::point("send:after-send");
        let t = now();
        // The mark needs no fsync of its own: if a crash loses it, the mail goes out again.
        store.tx_lazy(|tx| {
            for (row, result) in due.iter().zip(&results) {
                match result {
                    Ok(()) => tx.mark_sent(row.id, t)?,
                    Err(e) if e.transient && row.attempts + 1 < cfg.max_attempts => tx
                        .mark_attempt_failed(
                            row.id,
                            &e.message,
                            Some(backoff(cfg, row.attempts, t)),
                        )?,
                    Err(e) => tx.mark_attempt_failed(row.id, &e.message, None)?,
                }
            }
            Ok(())
        })?;
        fault::point("send:after-mark");
        for (row, result) in due.iter().zip(results) {
            match result {
                Ok(()) => out.sent += 1,
                Err(e) if e.transient && row.attempts + 1 < cfg.max_attempts => {
                    tracing::warn!(id = row.id, error = %e.message, "send failed; will retry");
                    out.retrying += 1
                }
                Err(e) => {
                    tracing::error!(id = row.id, error = %e.message, "send failed for good");
                    out.failed += 1
                }
            }
        }
    }
}
