//! The mailroom: the one entry that processes a batch of mail (`process`), each mail in its own savepoint with panics caught, walked through the rooms (`walk`) in the batch's one transaction.

use chrono::{DateTime, Utc};

use crate::compose::{Ctx, LineVars};
use crate::dice::DiceSource;
use crate::fault;
use crate::gm::Gm;

use crate::mail::inbound::{self, Inbound};
use crate::quote::shorten;
use crate::store::{MessageStatus, Store, Tx};

mod auth;
mod bounced;
mod dispatch;
mod guard;
mod note;
mod player_settings;
mod redact;
mod repeats;
mod reply;
mod requests;
mod screen;
mod sender_check;
mod session;
mod stranger;
mod turn;
mod walk;

use walk::handle;

pub use note::{Fate, LineFate, MailFate, MailNote};

/// The key a raw message is deduplicated by: its Message-ID, else a hash of its bytes.
pub fn dedupe_key(inb: &Inbound) -> String {
    match &inb.message_id {
        Some(id) if !id.trim().is_empty() => format!("mid:{}", id.trim()),
        _ => format!("sha256:{}", inb.content_hash),
    }
}

/// Stores a raw message in the caller's transaction; a second delivery of a stored one
/// is not stored again, only noted in the event log for the GM's listing (`None`).
fn insert(
    tx: &Tx,
    inb: &Inbound,
    raw: &[u8],
    now: DateTime<Utc>,
    told: &mut Vec<LogLine>,
) -> anyhow::Result<Option<i64>> {
    let key = dedupe_key(inb);
    let id = tx.insert_message(&key, raw, now)?;
    if id.is_none() {
        if let Some(original) = tx.note_duplicate(&key, now)? {
            let from = inb.from.as_deref().unwrap_or("-");
            told.push(LogLine(
                original,
                format!("mail in again from {from} (a duplicate): not processed again"),
            ));
        }
    }
    Ok(id)
}

/// A line for the log about a mail, written once its transaction committed, so the log
/// never tells of a mail or a ply that a rollback undid.
struct LogLine(i64, String);

/// Logs what a committed transaction did to its mails (info: `pbem serve`'s default).
fn tell(told: Vec<LogLine>) {
    for LogLine(mail, text) in told {
        tracing::info!(mail, "{text}");
    }
}

/// How a message ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handled {
    pub status: MessageStatus,
    /// The line for the GM's listing (`MailNote::summary`).
    pub note: String,
    /// What is stored as the message's note: the fate of the mail and of each line.
    pub detail: MailNote,
}

/// The mails a batch processes.
pub enum Batch<'r> {
    /// Every stored mail not yet processed, at most this many (what a crash left behind).
    Waiting(usize),
    /// Raw mails from a source, stored and processed in the same commit. `step` hears of each
    /// mail before it is parsed (`Some(index)`) and of the commit before it is made (`None`),
    /// so a source can tell which mail a reader that died had in hand.
    Raw {
        raws: &'r [&'r [u8]],
        step: &'r mut dyn FnMut(Option<usize>) -> anyhow::Result<()>,
    },
}

/// What became of one mail of a batch.
#[derive(Debug)]
pub struct Processed {
    /// Its stored id; `None` for a raw mail stored before (a duplicate) or an id not found.
    pub id: Option<i64>,
    /// How it ended; `None` when it was not processed (a duplicate, or no longer `new`).
    pub handled: Option<Handled>,
}

/// THE way mail is processed, whoever asks (`serve`, the ingest worker, `pbem ingest`, the
/// demo, the tests): one transaction for the batch (one fsync), each mail in it isolated
/// (`process_one`: a savepoint and a caught panic, so a mail that trips a bug is marked
/// `failed` and the others still commit). Scripted `dice` are for tests; without them each
/// game rolls its own seeded dice.
pub fn process(
    store: &mut Store,
    ctx: &Ctx,
    batch: Batch,
    mut dice: Option<&mut dyn DiceSource>,
) -> anyhow::Result<Vec<Processed>> {
    let (out, told) = store.tx(|tx| {
        let mut told = Vec::new();
        let scripted = dice.as_mut().map(|d| &mut **d as &mut dyn DiceSource);
        let mut gm = ctx.gm(tx).with_dice(scripted);
        let out = match batch {
            Batch::Waiting(limit) => {
                let ids: Vec<i64> = tx.new_messages()?.into_iter().take(limit).collect();
                process_ids(tx, ctx, &ids, &mut gm, &mut told)?
            }
            Batch::Raw { raws, step } => process_raws(tx, ctx, raws, step, &mut gm, &mut told)?,
        };
        fault::point("process:before-commit");
        Ok((out, told))
    })?;
    tell(told);
    Ok(out)
}

/// Stored messages by id, each still `new` processed by `process_one`, in the caller's
/// transaction.
fn process_ids(
    tx: &Tx,
    ctx: &Ctx,
    ids: &[i64],
    gm: &mut Gm,
    told: &mut Vec<LogLine>,
) -> anyhow::Result<Vec<Processed>> {
    let mut out = Vec::with_capacity(ids.len());
    for &id in ids {
        let msg = tx.message(id)?.filter(|m| m.status == MessageStatus::New);
        let handled = match msg {
            Some(msg) => Some(process_one(
                tx,
                ctx,
                id,
                &inbound::parse(&msg.raw),
                gm,
                told,
            )?),
            None => None,
        };
        out.push(Processed {
            id: handled.as_ref().map(|_| id),
            handled,
        });
    }
    Ok(out)
}

/// The one way a stored mail is processed, whoever asks (`serve`, the ingest worker, a
/// running daemon called by `pbem ingest`, the tests): in the caller's transaction, isolated
/// (`isolated`), its fate recorded. A mail that fails or panics is marked `failed`, and its
/// `Handled` says why.
fn process_one(
    tx: &Tx,
    ctx: &Ctx,
    id: i64,
    inb: &Inbound,
    gm: &mut Gm,
    told: &mut Vec<LogLine>,
) -> anyhow::Result<Handled> {
    let from = inb.from.as_deref();
    Ok(
        match isolated(tx, id, from, || process_parsed(tx, ctx, id, inb, gm, told))? {
            Ok(h) => h,
            Err(reason) => whole(MessageStatus::Failed, MailFate::Failed, &reason),
        },
    )
}

/// Runs one message's processing inside a savepoint, a panic caught like an error. A
/// failure rolls back only this message's work and marks it `failed` with the reason (the
/// `Err`): that status is final, so a mail that trips a bug (a panic deep in a game, an
/// overflow) is never tried again in a loop, and the other mails of its batch still commit.
/// Errors of the store itself (busy, disk full, I/O) are not the mail's fault: they abort
/// the whole transaction, which is tried again later.
fn isolated<T>(
    tx: &Tx,
    id: i64,
    from: Option<&str>,
    f: impl FnOnce() -> anyhow::Result<T>,
) -> anyhow::Result<Result<T, String>> {
    tx.savepoint()?;
    // The closure only touches the transaction (rolled back below) and thread-local memos
    // that stay valid when a replay is cut short, so nothing broken is seen after a panic.
    match crate::unwind::catch(f) {
        Ok(v) => {
            tx.release()?;
            Ok(Ok(v))
        }
        Err(e) => {
            tx.rollback_to()?;
            if crate::store::is_transient(&e) {
                return Err(e);
            }
            let reason = format!("{e:#}");
            tracing::error!(id, error = %reason, "message failed; marked failed for the GM");
            let note = MailNote::whole(MailFate::Failed, &reason).to_json();
            tx.finish_message(id, MessageStatus::Failed, &note, from, None)?;
            Ok(Err(reason))
        }
    }
}

/// Processes a stored message already parsed, and records how it ended.
fn process_parsed(
    tx: &Tx,
    ctx: &Ctx,
    id: i64,
    inb: &Inbound,
    gm: &mut Gm,
    told: &mut Vec<LogLine>,
) -> anyhow::Result<Handled> {
    if fault::keyed("process:panic").is_some_and(|marker| inb.subject.contains(marker)) {
        panic!("fault injected: process:panic in message {id}");
    }
    let (h, game) = handle(tx, ctx, id, inb, gm)?;
    let note = h.detail.to_json();
    tx.finish_message(id, h.status, &note, inb.from.as_deref(), game)?;
    let from = inb.from.as_deref().unwrap_or("-");
    let about = game.map(|g| format!(" about game {g}")).unwrap_or_default();
    told.push(LogLine(
        id,
        format!("mail in from {from}{about}: {}", h.note),
    ));
    for ply in &h.detail.plies {
        let game = game.map(|g| format!(" in game {g}")).unwrap_or_default();
        told.push(LogLine(id, format!("played{game}: {ply}")));
    }
    Ok(h)
}

/// Stores raw mails and processes the new ones, in the caller's transaction. Each mail is
/// parsed only when its turn comes, and its parse dropped before the next: a batch holds its
/// raw bytes and one mail's parse, never all of theirs. If a mail's processing fails or
/// panics, the raw mail still commits, marked `failed`.
fn process_raws(
    tx: &Tx,
    ctx: &Ctx,
    raws: &[&[u8]],
    step: &mut dyn FnMut(Option<usize>) -> anyhow::Result<()>,
    gm: &mut Gm,
    told: &mut Vec<LogLine>,
) -> anyhow::Result<Vec<Processed>> {
    let mut out = Vec::with_capacity(raws.len());
    for (i, raw) in raws.iter().enumerate() {
        step(Some(i))?;
        let inb = inbound::parse(raw);
        if fault::keyed("ingest:kill").is_some_and(|k| inb.subject.contains(k)) {
            fault::kill();
        }
        if fault::keyed("ingest:panic").is_some_and(|k| inb.subject.contains(k)) {
            panic!("fault injected: ingest:panic while reading mail {i} of a batch");
        }
        let id = insert(tx, &inb, raw, ctx.now, told)?;
        let handled = match id {
            Some(id) => {
                fault::point("ingest:after-store");
                Some(process_one(tx, ctx, id, &inb, gm, told)?)
            }
            None => None,
        };
        out.push(Processed { id, handled });
    }
    step(None)?;
    Ok(out)
}

/// A mail answered with nothing to say line by line (a confirmed request).
fn done(note: impl Into<String>) -> Handled {
    let note = note.into();
    Handled {
        status: MessageStatus::Done,
        detail: MailNote::answered(note.clone(), Vec::new(), Vec::new()),
        note,
    }
}

/// A mail refused as a whole; `why` is the reason, the note says `refused: why`.
fn refused(why: impl Into<String>) -> Handled {
    whole(MessageStatus::Refused, MailFate::Refused, &why.into())
}

/// Mail that is no person's (a bounce, an auto-reply, bulk mail) or our own come back:
/// stored as refused, listed as ignored.
fn ignored(why: impl Into<String>) -> Handled {
    whole(MessageStatus::Refused, MailFate::Ignored, &why.into())
}

fn whole(status: MessageStatus, fate: MailFate, why: &str) -> Handled {
    let detail = MailNote::whole(fate, why);
    Handled {
        status,
        note: detail.summary.clone(),
        detail,
    }
}

/// One line of a reply: what the player wrote and what became of it.
#[derive(Debug, Clone)]
struct Line {
    fate: Fate,
    text: String,
    canonical: Option<String>,
    reason: Option<String>,
}

impl Line {
    /// A command run or answered.
    fn ok(text: &str, canonical: Option<String>) -> Line {
        Line::with(Fate::Done, text, canonical, None)
    }
    /// The mail's move (or declaration), as played.
    fn played(text: &str, canonical: Option<String>) -> Line {
        Line::with(Fate::Played, text, canonical, None)
    }
    fn no(text: &str, reason: impl Into<String>) -> Line {
        Line::with(Fate::Refused, text, None, Some(reason.into()))
    }
    fn with(fate: Fate, text: &str, canonical: Option<String>, reason: Option<String>) -> Line {
        // A reason may quote the line (the rules' refusals do): never more than a screenful of
        // it goes into the reply, the stored note or the log.
        Line {
            fate,
            text: text.to_string(),
            canonical: canonical.map(|c| shorten(&c, 200)),
            reason: reason.map(|r| shorten(&r, 300)),
        }
    }
    fn vars(&self) -> LineVars {
        // A reply quotes at most the start of a long line.
        LineVars {
            status: self.fate.reply_status(),
            text: shorten(&self.text, 120),
            canonical: self.canonical.clone(),
            reason: self.reason.clone(),
        }
    }
    /// The line as the mail's note keeps it (quoted as the reply quotes it).
    fn fate(&self) -> LineFate {
        LineFate {
            text: shorten(&self.text, 120),
            fate: self.fate,
            canonical: self.canonical.clone(),
            reason: self.reason.clone(),
        }
    }
}
