//! Drains the outbox through a transport: the committed mails' stored bytes, as they are; retries with backoff, permanent failures marked.

use chrono::{DateTime, Duration, Utc};

use crate::compose;
use crate::config::Config;
use crate::fault;
use crate::mail::outbound::{self, BuildError, RawMail, SendError, Transport};
use crate::store::{OutboxRow, SendTurn, Store, Tx};

mod hold;

/// How long a mail may wait for its HTML part while the store fails to give it one; then it
/// goes as text (the HTML is a courtesy, never a reason to hold a mail).
const PICTURE_PATIENCE: Duration = Duration::minutes(10);

/// What one drain did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Drained {
    pub sent: usize,
    pub retrying: usize,
    pub failed: usize,
}

/// The mail as the transport takes it: its stored bytes, and the envelope from its
/// addresses (a due row always has bytes: `Tx::outbox_due`), its sender the row's own bounce
/// address when there is a `verp` key.
fn raw_mail(row: &mut OutboxRow, cfg: &Config, verp: Option<&[u8]>) -> Result<RawMail, BuildError> {
    let from = match verp {
        Some(key) => {
            let (local, domain) = cfg.address_parts();
            crate::mail::verp::address(local, domain, key, row.id)
        }
        None => row.from_addr.clone(),
    };
    // Every due row has its bytes (the store's `outbox_due` asks for them): one without
    // is a bug to report, never an empty mail to send.
    let bytes = row.raw.take().ok_or(BuildError::NoBytes)?;
    Ok(RawMail {
        envelope: outbound::envelope(&from, std::slice::from_ref(&row.to_addr))?,
        message_id: row.message_id.clone(),
        // Signed as it goes, never when queued: its HTML part is added after it was queued.
        bytes: match &cfg.dkim {
            Some(dkim) => dkim.sign(&bytes).map_err(|reason| BuildError::Header {
                name: "DKIM-Signature".into(),
                reason,
            })?,
            None => bytes,
        },
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

/// Makes the calling thread yield the CPU to others (a nice value of 10): drawing and
/// sending wait without harm (a player does not notice a reply some milliseconds later),
/// while an MTA waits for each `pbem ingest` and a daemon's passes take mail. Linux applies
/// it to this thread alone; a failure leaves the priority as it was.
pub fn lower_priority() {
    let _ = rustix::process::setpriority_process(Some(rustix::thread::gettid()), 10);
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
    let turn = store.send_turn()?;
    drain_in_turn(store, cfg, transport, now, turn)
}

/// `drain` once the send turn is taken.
pub fn drain_in_turn(
    store: &mut Store,
    cfg: &Config,
    transport: &Transport,
    now: &dyn Fn() -> DateTime<Utc>,
    mut turn: SendTurn,
) -> anyhow::Result<Drained> {
    finish_noted(store, &mut turn, now)?;
    // Mails without bytes that wait for no HTML part (queued before schema 7, or their part
    // given up) get their text-only bytes now.
    let mut out = Drained {
        failed: compose::outgoing::build_missing(store, now())?,
        ..Drained::default()
    };
    // Each mail's envelope sender names it, so that its bounce does (`mail::verp`).
    let verp = match cfg.bounces.verp {
        true => Some(store.tx_lazy(|tx| tx.key("verp", crate::edge::new_key))?),
        false => None,
    };
    let mut rounds = Rounds {
        cfg,
        transport,
        now,
        verp: verp.as_deref(),
        turn: &mut turn,
        out: &mut out,
        failed: None,
    };
    // The step after the commit, before anything goes: mails that wait for their HTML part
    // get it (`compose::illustrate`, the only place that adds one), and each batch of them
    // goes as soon as it is stored, while the next batch is drawn. It sends a mail whose
    // drawing fails as text itself; what fails here is the store (a lock held too long, say),
    // which the next drain may find well: only mails that have waited `PICTURE_PATIENCE`
    // go as text now. A failure to send stops the sending, not the HTML parts.
    let illustrated = crate::unwind::catch(|| {
        compose::illustrate::run_each(store, cfg, &mut |store| {
            if rounds.failed.is_none() {
                rounds.failed = rounds.send_due(store).err();
            }
        })
    });
    if let Err(e) = illustrated {
        tracing::error!(error = %format!("{e:#}"), "HTML parts not made now; they are tried again");
        let before = now() - PICTURE_PATIENCE;
        store.tx_lazy(|tx| tx.give_up_html(before))?;
        // Queued without bytes (they waited for their part): their text alone now.
        rounds.out.failed += compose::outgoing::build_missing(store, now())?;
    }
    if let Some(e) = rounds.failed.take() {
        return Err(e);
    }
    rounds.send_due(store)?;
    Ok(out)
}

/// The sending of one drain: what it needs to send a round, and what it did.
struct Rounds<'a> {
    cfg: &'a Config,
    transport: &'a Transport,
    now: &'a dyn Fn() -> DateTime<Utc>,
    verp: Option<&'a [u8]>,
    turn: &'a mut SendTurn,
    out: &'a mut Drained,
    /// The error that stopped the sending while HTML parts were still being made.
    failed: Option<anyhow::Error>,
}

impl Rounds<'_> {
    /// Sends every mail due now, a round of at most 500 at a time.
    fn send_due(&mut self, store: &mut Store) -> anyhow::Result<()> {
        let (cfg, now) = (self.cfg, self.now);
        loop {
            let mut due = store.read(|tx| tx.outbox_due(now(), 500))?;
            if due.is_empty() {
                return Ok(());
            }
            // The mails held now are due no more: the next round reads past them.
            hold::hold(store, &mut due, now())?;
            if due.is_empty() {
                continue;
            }
            let mut results = Vec::with_capacity(due.len());
            let round = Round::of(&mut due, (cfg, self.verp), now(), &mut results);
            let turn = &mut *self.turn;
            let sending = self.transport.send_each(&round.mails, &mut |k, result| {
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
                for (i, result, t) in &results {
                    mark(tx, cfg, &due[*i], result, *t)?;
                }
                Ok(())
            })?;
            self.turn.clear()?;
            for (i, result, _) in results {
                tally(self.out, cfg, &due[i], result);
            }
            sending?;
        }
    }
}

/// One round's mails as the transport takes them.
struct Round {
    mails: Vec<RawMail>,
    /// `mails[k]` is the due row `rows[k]`.
    rows: Vec<usize>,
}

impl Round {
    /// Takes each due row's bytes; a row whose addresses make no envelope goes into
    /// `results` as a permanent failure.
    fn of(
        due: &mut [OutboxRow],
        (cfg, verp): (&Config, Option<&[u8]>),
        now: DateTime<Utc>,
        results: &mut Vec<(usize, Result<(), SendError>, DateTime<Utc>)>,
    ) -> Round {
        let mut round = Round {
            mails: Vec::with_capacity(due.len()),
            rows: Vec::with_capacity(due.len()),
        };
        for (i, row) in due.iter_mut().enumerate() {
            match raw_mail(row, cfg, verp) {
                Ok(mail) => {
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
        Ok(()) => {
            // The GM reads who got what and why (the cause when pbem knows one).
            let cause = row
                .cause
                .as_deref()
                .map_or(String::new(), |c| format!(", {c}"));
            tracing::info!(
                id = row.id,
                "mail sent to {} ({}{cause}): {}",
                row.to_addr,
                row.kind,
                row.subject
            );
            out.sent += 1
        }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compose::Ctx;
    use crate::mail::outbound::Recorder;
    use crate::store::OutboxStatus;
    use crate::template::Templates;
    use chrono::TimeZone;

    struct World {
        store: Store,
        cfg: Config,
        now: DateTime<Utc>,
        recorder: Recorder,
        transport: Transport,
    }

    /// A store with two mails queued, and a relay that records what it takes.
    fn world() -> World {
        let (mut cfg, _) = crate::config::load(None, &|_| None).unwrap();
        cfg.address = "gm@pbem.example".into();
        cfg.retry_base_secs = 60;
        cfg.max_attempts = 3;
        let now = Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap();
        let mut store = Store::memory().unwrap();
        let templates = Templates::load(None).unwrap();
        let ctx = Ctx::new(&cfg, &templates, now);
        store
            .tx(|tx| {
                for to in ["alice@example.org", "bob@example.org"] {
                    compose::enqueue(
                        tx,
                        &ctx,
                        OutboxRow {
                            kind: "turn_report".into(),
                            game_id: Some(3),
                            to_addr: to.into(),
                            subject: "[pbem #3] Dice Rink".into(),
                            body: format!("Hello {to}\n"),
                            ..Default::default()
                        },
                        compose::Limit::Applies,
                    )?;
                }
                Ok(())
            })
            .unwrap();
        let recorder = Recorder::default();
        World {
            store,
            cfg,
            now,
            transport: Transport::Memory(recorder.clone()),
            recorder,
        }
    }

    fn drain_at(w: &mut World, t: DateTime<Utc>) -> Drained {
        drain(&mut w.store, &w.cfg, &w.transport, &|| t).unwrap()
    }

    fn rows(w: &mut World) -> Vec<OutboxRow> {
        let mut rows = w.store.read(|tx| tx.outbox(None, 10)).unwrap();
        rows.reverse();
        rows
    }

    #[test]
    fn without_verp_the_envelope_sender_is_the_gm_address() {
        let mut w = world();
        w.cfg.bounces.verp = false;
        let now = w.now;
        assert_eq!(drain_at(&mut w, now).sent, 2);
        assert!(w
            .recorder
            .taken()
            .iter()
            .all(|m| m.envelope.from().unwrap().to_string() == "gm@pbem.example"));
    }

    #[test]
    fn the_transport_gets_the_stored_bytes_once() {
        let mut w = world();
        let stored: Vec<Vec<u8>> = w
            .store
            .read(|tx| tx.outbox_due(w.now, 10))
            .unwrap()
            .into_iter()
            .map(|r| r.raw.expect("built when queued"))
            .collect();
        let now = w.now;
        assert_eq!(drain_at(&mut w, now).sent, 2);
        let taken = w.recorder.taken();
        let bytes: Vec<Vec<u8>> = taken.iter().map(|m| m.bytes.clone()).collect();
        assert_eq!(bytes, stored, "exactly the stored bytes, in order");
        let to: Vec<String> = taken
            .iter()
            .map(|m| m.envelope.to()[0].to_string())
            .collect();
        assert_eq!(to, ["alice@example.org", "bob@example.org"]);
        // Each mail's envelope sender is its own bounce address (`mail::verp`), naming its row.
        let key = w
            .store
            .read(|tx| tx.key("verp", || unreachable!()))
            .unwrap();
        for (m, row) in taken.iter().zip(rows(&mut w)) {
            let from = m.envelope.from().unwrap().to_string();
            let named = crate::mail::verp::row_of("gm", "pbem.example", &key, &from);
            assert_eq!(named, Some(row.id), "{from}");
        }
        assert!(rows(&mut w).iter().all(|r| r.status == OutboxStatus::Sent));
        // Never sent twice: a second drain, later, finds nothing due.
        assert_eq!(
            drain_at(&mut w, now + Duration::hours(1)),
            Drained::default()
        );
        assert_eq!(w.recorder.tries(), 2);
    }

    #[test]
    fn a_transient_failure_is_retried_after_a_backoff() {
        let mut w = world();
        w.recorder
            .fail_next(1, SendError::transient("451 4.3.0 try again later"));
        let t0 = w.now;
        let d = drain_at(&mut w, t0);
        assert_eq!((d.sent, d.retrying, d.failed), (1, 1, 0));
        let first = rows(&mut w).remove(0);
        assert_eq!(first.status, OutboxStatus::Pending);
        assert_eq!(first.attempts, 1);
        assert_eq!(first.next_try_at, Some(t0 + Duration::seconds(60)));
        assert!(first.last_error.unwrap().contains("451"));
        // Not due yet; then due, and sent.
        assert_eq!(
            drain_at(&mut w, t0 + Duration::seconds(30)),
            Drained::default()
        );
        assert_eq!(drain_at(&mut w, t0 + Duration::seconds(60)).sent, 1);
        let taken = w.recorder.taken();
        assert_eq!(taken.len(), 2);
        assert_eq!(taken[1].message_id, first.message_id);
        assert_eq!(w.recorder.tries(), 3);
    }

    #[test]
    fn a_permanent_failure_is_marked_failed_and_never_tried_again() {
        let mut w = world();
        w.recorder
            .fail_next(1, SendError::permanent("550 5.1.1 no such user"));
        let t0 = w.now;
        let d = drain_at(&mut w, t0);
        assert_eq!((d.sent, d.retrying, d.failed), (1, 0, 1));
        let first = rows(&mut w).remove(0);
        assert_eq!(first.status, OutboxStatus::Failed);
        assert!(first.last_error.unwrap().contains("550"));
        assert_eq!(drain_at(&mut w, t0 + Duration::days(2)), Drained::default());
        assert_eq!(w.recorder.tries(), 2);
    }

    /// A mail queued before the outbox kept finished bytes is built before it is first sent,
    /// dated then, and the bytes are kept for any later try.
    #[test]
    fn a_mail_queued_before_schema_7_is_built_at_send_time_once() {
        let mut w = world();
        let now = w.now;
        let old = OutboxRow {
            message_id: "<pbem.old.1@pbem.example>".into(),
            kind: "turn_report".into(),
            game_id: Some(3),
            from_addr: "pbem <gm@pbem.example>".into(),
            to_addr: "carol@example.org".into(),
            subject: "[pbem #3] Dice Rink".into(),
            body: "queued by an older pbem\n".into(),
            ..Default::default()
        };
        let id = w.store.tx(|tx| tx.enqueue(&old, now)).unwrap();
        w.recorder
            .fail_next(2, SendError::permanent("550 first two"));
        let later = now + Duration::minutes(5);
        // The two new mails fail; the old one is built and sent.
        assert_eq!(drain_at(&mut w, later).sent, 1);
        let taken = w.recorder.taken();
        let stored = w.store.read(|tx| tx.outbox_raw(id)).unwrap();
        assert_eq!(stored.as_ref(), Some(&taken[0].bytes));
        let msg = mail_parser::MessageParser::default()
            .parse(&taken[0].bytes)
            .unwrap();
        assert_eq!(msg.message_id(), Some("pbem.old.1@pbem.example"));
        assert_eq!(msg.date().unwrap().to_timestamp(), later.timestamp());
        assert_eq!(
            msg.body_text(0).unwrap().replace("\r\n", "\n"),
            "queued by an older pbem\n"
        );
        assert_eq!(taken[0].envelope.to()[0].to_string(), "carol@example.org");
    }

    #[test]
    fn an_old_mail_that_cannot_be_built_fails_for_good() {
        let mut w = world();
        let now = w.now;
        let old = OutboxRow {
            message_id: "<pbem.old.2@pbem.example>".into(),
            kind: "turn_report".into(),
            from_addr: "pbem <gm@pbem.example>".into(),
            to_addr: "not an address".into(),
            subject: "s".into(),
            body: "b\n".into(),
            ..Default::default()
        };
        let id = w.store.tx(|tx| tx.enqueue(&old, now)).unwrap();
        let d = drain_at(&mut w, now);
        assert_eq!((d.sent, d.failed), (2, 1));
        let row = rows(&mut w).into_iter().find(|r| r.id == id).unwrap();
        assert_eq!(row.status, OutboxStatus::Failed);
        assert!(row.last_error.unwrap().contains("bad To address"));
    }
}
