//! Drains the outbox through a transport: committed, finished mail only, retries with backoff, permanent failures marked.

use chrono::{DateTime, Duration, Utc};

use crate::compose;
use crate::config::Config;
use crate::fault;
use crate::mail::outbound::{self, BuildError, RawMail, SendError, Transport};
use crate::store::{OutboxRow, SendTurn, Store, Tx};

/// What one drain did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Drained {
    pub sent: usize,
    pub retrying: usize,
    pub failed: usize,
}

/// The mail as the transport takes it: the bytes stored when it was queued, and the envelope
/// from its addresses.
pub fn raw_mail(row: &mut OutboxRow, now: DateTime<Utc>) -> Result<RawMail, BuildError> {
    let bytes = match row.raw.take() {
        Some(bytes) => bytes,
        // A mail queued before schema 7 has no bytes: the sender built each mail then, so it
        // is built here, from its columns, dated when it goes out as it was then (`drain`
        // stores the bytes, so a retry sends the same ones).
        None => compose::finished(row, now, None)?,
    };
    Ok(RawMail {
        envelope: outbound::envelope(&row.from_addr, std::slice::from_ref(&row.to_addr))?,
        message_id: row.message_id.clone(),
        bytes,
    })
}

/// When to try again after `attempts` failed tries: base, 2x base, 4x base ... capped at a day.
pub fn backoff(cfg: &Config, attempts: i64, now: DateTime<Utc>) -> DateTime<Utc> {
    let secs = cfg
        .retry_base_secs
        .saturating_mul(1i64 << attempts.clamp(0, 20))
        .min(86_400);
    now + Duration::seconds(secs)
}

/// Sends every due mail once. Each mail is noted right after the transport took it, before
/// the next goes out (`SendTurn`), so a crash sends again at most the one mail in flight (at
/// least once, never lost); one sender at a time, so two never send the same mail.
pub fn drain(
    store: &mut Store,
    cfg: &Config,
    transport: &Transport,
    now: &dyn Fn() -> DateTime<Utc>,
) -> anyhow::Result<Drained> {
    let mut turn = store.send_turn()?;
    finish_noted(store, &mut turn, now)?;
    let mut out = Drained::default();
    loop {
        let mut due = store.read(|tx| tx.outbox_due(now(), 500))?;
        if due.is_empty() {
            return Ok(out);
        }
        let mut results = Vec::with_capacity(due.len());
        let round = Round::of(&mut due, now(), &mut results);
        let sending = transport.send_each(&round.mails, &mut |k, result| {
            let i = round.rows[k];
            let taken = result.is_ok();
            results.push((i, result, now()));
            if taken {
                fault::point("send:after-send");
                turn.note(due[i].id)?;
                fault::point("send:after-mark");
            }
            Ok(())
        });
        // Whatever was tried is marked, even when the sending stopped early. One commit
        // for the round, without an fsync: the notes cover a crash of the process, and a
        // mark a power cut loses only sends the mail again.
        store.tx_lazy(|tx| {
            for (id, raw) in &round.built {
                tx.set_outbox_raw(*id, raw)?;
            }
            for (i, result, t) in &results {
                mark(tx, cfg, &due[*i], result, *t)?;
            }
            Ok(())
        })?;
        turn.clear()?;
        for (i, result, _) in results {
            tally(&mut out, cfg, &due[i], result);
        }
        sending?;
    }
}

/// One round's mails as the transport takes them.
struct Round {
    mails: Vec<RawMail>,
    /// `mails[k]` is the due row `rows[k]`.
    rows: Vec<usize>,
    /// The bytes built now for mails queued before schema 7, by outbox id.
    built: Vec<(i64, Vec<u8>)>,
}

impl Round {
    /// Takes each due row's bytes; a row that cannot become a mail (queued before schema 7
    /// and unbuildable) goes into `results` as a permanent failure.
    fn of(
        due: &mut [OutboxRow],
        now: DateTime<Utc>,
        results: &mut Vec<(usize, Result<(), SendError>, DateTime<Utc>)>,
    ) -> Round {
        let mut round = Round {
            mails: Vec::with_capacity(due.len()),
            rows: Vec::with_capacity(due.len()),
            built: Vec::new(),
        };
        for (i, row) in due.iter_mut().enumerate() {
            let legacy = row.raw.is_none();
            match raw_mail(row, now) {
                Ok(mail) => {
                    if legacy {
                        round.built.push((row.id, mail.bytes.clone()));
                    }
                    round.mails.push(mail);
                    round.rows.push(i);
                }
                Err(e) => results.push((i, Err(SendError::permanent(e.to_string())), now)),
            }
        }
        round
    }
}

/// Marks sent the mails a sender noted as taken but died before marking.
fn finish_noted(
    store: &mut Store,
    turn: &mut SendTurn,
    now: &dyn Fn() -> DateTime<Utc>,
) -> anyhow::Result<()> {
    let noted = turn.noted()?;
    if noted.is_empty() {
        return Ok(());
    }
    tracing::warn!(
        mails = noted.len(),
        "a sender stopped before marking the mail it sent; marked now, not sent again"
    );
    let t = now();
    store.tx_lazy(|tx| noted.iter().try_for_each(|id| tx.mark_sent(*id, t)))?;
    turn.clear()
}

/// Records one attempt: sent, to be retried after a backoff, or failed for good.
fn mark(
    tx: &Tx,
    cfg: &Config,
    row: &OutboxRow,
    result: &Result<(), SendError>,
    t: DateTime<Utc>,
) -> anyhow::Result<()> {
    match result {
        Ok(()) => tx.mark_sent(row.id, t),
        Err(e) if retries(cfg, row, e) => {
            tx.mark_attempt_failed(row.id, &e.message, Some(backoff(cfg, row.attempts, t)))
        }
        Err(e) => tx.mark_attempt_failed(row.id, &e.message, None),
    }
}

/// Whether a failed mail is tried again: a transient failure, with attempts left.
fn retries(cfg: &Config, row: &OutboxRow, e: &SendError) -> bool {
    e.transient && row.attempts + 1 < cfg.max_attempts
}

/// Counts (and logs) one attempt.
fn tally(out: &mut Drained, cfg: &Config, row: &OutboxRow, result: Result<(), SendError>) {
    match result {
        Ok(()) => out.sent += 1,
        Err(e) if retries(cfg, row, &e) => {
            tracing::warn!(id = row.id, error = %e.message, "send failed; will retry");
            out.retrying += 1
        }
        Err(e) => {
            tracing::error!(id = row.id, error = %e.message, "send failed for good");
            out.failed += 1
        }
    }
}
