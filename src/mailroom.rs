//! The path of one inbound mail: store raw, guard, authenticate, run commands and orders, queue replies — in one transaction.

use chrono::{DateTime, Duration, Utc};

use crate::commands::{self, Command, HelpTopic};
use crate::compose::{self, Ctx, Draft, Help, Letter, LineStatus, LineVars, Reply};
use crate::dice::DiceSource;
use crate::gamelog::{self, Loaded};
use crate::games::{Actor, GameKind, PlyError, ToAct};
use crate::gm::{self, reborrow};
use crate::mail::inbound::{self, Inbound};
use crate::quote::shorten;
use crate::store::{GameStatus, MessageStatus, Store, Tx};
use crate::{edge, fault, help, orders, password};

mod guard;
mod note;
mod repeats;
mod requests;
mod stranger;

pub use note::{Fate, LineFate, MailFate, MailNote};

/// The key a raw message is deduplicated by: its Message-ID, else a hash of its bytes.
pub fn dedupe_key(inb: &Inbound) -> String {
    match &inb.message_id {
        Some(id) if !id.trim().is_empty() => format!("mid:{}", id.trim()),
        _ => format!("sha256:{}", inb.content_hash),
    }
}

/// Stores a raw message durably and nothing more (a caller that processes it apart, as the
/// tests' harness does with scripted dice); `None` when the same message was stored before.
pub fn store_raw(store: &mut Store, raw: &[u8], now: DateTime<Utc>) -> anyhow::Result<Option<i64>> {
    let inb = inbound::parse(raw);
    let (id, told) = store.tx(|tx| {
        let mut told = Vec::new();
        let id = insert(tx, &inb, raw, now, &mut told)?;
        Ok((id, told))
    })?;
    tell(told);
    Ok(id)
}

/// Stores a raw message in the caller's transaction; a second delivery of a stored one
/// is not stored again, only noted in the event log for the GM's listing (`None`).
fn insert(
    tx: &Tx,
    inb: &Inbound,
    raw: &[u8],
    now: DateTime<Utc>,
    told: &mut Vec<Told>,
) -> anyhow::Result<Option<i64>> {
    let key = dedupe_key(inb);
    let id = tx.insert_message(&key, raw, now)?;
    if id.is_none() {
        if let Some(original) = tx.note_duplicate(&key, now)? {
            let from = inb.from.as_deref().unwrap_or("-");
            told.push(Told(
                original,
                format!("mail in again from {from} (a duplicate): not processed again"),
            ));
        }
    }
    Ok(id)
}

/// A line for the log about a mail, written once its transaction committed, so the log
/// never tells of a mail or a ply that a rollback undid.
struct Told(i64, String);

/// Logs what a committed transaction did to its mails (info: `pbem serve`'s default).
fn tell(told: Vec<Told>) {
    for Told(mail, text) in told {
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

/// Processes one stored message, all of its effects in one transaction with its status.
/// Processing a message that is no longer `new` does nothing (so a retry is harmless).
pub fn process(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    dice: Option<&mut dyn DiceSource>,
) -> anyhow::Result<Option<Handled>> {
    let (h, told) = store.tx(|tx| {
        let mut told = Vec::new();
        let h = process_in(tx, ctx, id, dice, &mut told)?;
        fault::point("process:before-commit");
        Ok((h, told))
    })?;
    tell(told);
    Ok(h)
}

/// Processes every stored message not yet processed, many in one transaction so their
/// commits share one fsync. Each message runs in isolation (`isolated`): one that fails is
/// rolled back alone and marked `failed` for the GM (`pbem inbox`), and the rest still commit.
pub fn process_batch(store: &mut Store, ctx: &Ctx, limit: usize) -> anyhow::Result<usize> {
    let (n, told) = store.tx(|tx| {
        let ids = tx.new_messages()?;
        let mut n = 0;
        let mut told = Vec::new();
        for id in ids.into_iter().take(limit) {
            let Some(msg) = tx.message(id)? else {
                continue;
            };
            let inb = inbound::parse(&msg.raw);
            isolated(tx, id, inb.from.as_deref(), || {
                process_parsed(tx, ctx, id, &inb, None, &mut told)
            })?;
            n += 1;
        }
        fault::point("process:before-commit");
        Ok((n, told))
    })?;
    tell(told);
    Ok(n)
}

/// Runs one message's processing inside a savepoint, a panic caught like an error. A
/// failure rolls back only this message's work and marks it `failed` with the reason: that
/// status is final, so a mail that trips a bug (a panic deep in a game, an overflow) is never
/// tried again in a loop, and the other mails of its batch still commit. Errors of the store
/// itself (busy, disk full, I/O) are not the mail's fault: they abort the whole
/// transaction, which is tried again later. `None` when the message failed.
fn isolated<T>(
    tx: &Tx,
    id: i64,
    from: Option<&str>,
    f: impl FnOnce() -> anyhow::Result<T>,
) -> anyhow::Result<Option<T>> {
    tx.savepoint()?;
    // The closure only touches the transaction (rolled back below) and thread-local memos
    // that stay valid when a replay is cut short, so nothing broken is seen after a panic.
    match crate::unwind::catch(f) {
        Ok(v) => {
            tx.release()?;
            Ok(Some(v))
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
            Ok(None)
        }
    }
}

/// One message's whole effect, inside the caller's transaction.
fn process_in(
    tx: &Tx,
    ctx: &Ctx,
    id: i64,
    dice: Option<&mut dyn DiceSource>,
    told: &mut Vec<Told>,
) -> anyhow::Result<Option<Handled>> {
    let Some(msg) = tx.message(id)? else {
        return Ok(None);
    };
    if msg.status != MessageStatus::New {
        return Ok(None);
    }
    process_parsed(tx, ctx, id, &inbound::parse(&msg.raw), dice, told).map(Some)
}

/// Processes a stored message already parsed, and records how it ended.
fn process_parsed(
    tx: &Tx,
    ctx: &Ctx,
    id: i64,
    inb: &Inbound,
    dice: Option<&mut dyn DiceSource>,
    told: &mut Vec<Told>,
) -> anyhow::Result<Handled> {
    if fault::keyed("process:panic").is_some_and(|marker| inb.subject.contains(marker)) {
        panic!("fault injected: process:panic in message {id}");
    }
    let (h, game) = handle(tx, ctx, id, inb, dice)?;
    let note = h.detail.to_json();
    tx.finish_message(id, h.status, &note, inb.from.as_deref(), game)?;
    let from = inb.from.as_deref().unwrap_or("-");
    let about = game.map(|g| format!(" about game {g}")).unwrap_or_default();
    told.push(Told(id, format!("mail in from {from}{about}: {}", h.note)));
    for ply in &h.detail.plies {
        let game = game.map(|g| format!(" in game {g}")).unwrap_or_default();
        told.push(Told(id, format!("played{game}: {ply}")));
    }
    Ok(h)
}

/// Stores a raw message and processes it in the same transaction (one fsync). Processing
/// runs isolated (`isolated`): if it fails or panics, the raw message still commits, marked
/// `failed`. `None` when the message was stored before.
pub fn store_and_process(store: &mut Store, raw: &[u8], ctx: &Ctx) -> anyhow::Result<Option<i64>> {
    let inb = inbound::parse(raw);
    let (id, told) = store.tx(|tx| {
        let mut told = Vec::new();
        let id = store_then_process(tx, ctx, raw, &inb, &mut told)?;
        fault::point("process:before-commit");
        Ok((id, told))
    })?;
    tell(told);
    Ok(id)
}

/// Stores many raw messages and processes the new ones, all in one commit (one fsync for
/// the lot), each isolated. `true` for each message that was new. Each mail is parsed only
/// when its turn comes, and its parse dropped before the next: a batch holds its raw bytes
/// and one mail's parse, never all of theirs. `step` hears of each mail before it is parsed
/// (`Some(index)`) and of the commit before it is made (`None`), so a source can tell which
/// mail a reader that died had in hand.
pub fn store_and_process_batch(
    store: &mut Store,
    raws: &[&[u8]],
    ctx: &Ctx,
    step: &mut dyn FnMut(Option<usize>) -> anyhow::Result<()>,
) -> anyhow::Result<Vec<bool>> {
    let (fresh, told) = store.tx(|tx| {
        let mut fresh = Vec::with_capacity(raws.len());
        let mut told = Vec::new();
        for (i, raw) in raws.iter().enumerate() {
            step(Some(i))?;
            let inb = inbound::parse(raw);
            if fault::keyed("ingest:kill").is_some_and(|k| inb.subject.contains(k)) {
                fault::kill();
            }
            if fault::keyed("ingest:panic").is_some_and(|k| inb.subject.contains(k)) {
                panic!("fault injected: ingest:panic while reading mail {i} of a batch");
            }
            fresh.push(store_then_process(tx, ctx, raw, &inb, &mut told)?.is_some());
        }
        step(None)?;
        fault::point("process:before-commit");
        Ok((fresh, told))
    })?;
    tell(told);
    Ok(fresh)
}

/// Inside the caller's transaction: stores one raw message (unless it is a duplicate) and
/// processes it isolated; a failure leaves it stored, marked `failed`.
fn store_then_process(
    tx: &Tx,
    ctx: &Ctx,
    raw: &[u8],
    inb: &Inbound,
    told: &mut Vec<Told>,
) -> anyhow::Result<Option<i64>> {
    let Some(id) = insert(tx, inb, raw, ctx.now, told)? else {
        return Ok(None);
    };
    fault::point("ingest:after-store");
    isolated(tx, id, inb.from.as_deref(), || {
        process_parsed(tx, ctx, id, inb, None, told)
    })?;
    Ok(Some(id))
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

/// One mail's handling, its budget of mails started and stopped around it.
fn handle(
    tx: &Tx,
    ctx: &Ctx,
    msg_id: i64,
    inb: &Inbound,
    dice: Option<&mut dyn DiceSource>,
) -> anyhow::Result<(Handled, Option<i64>)> {
    ctx.budget.start(ctx.cfg.max_mails_per_message);
    let result = handle_mail(tx, ctx, msg_id, inb, dice);
    ctx.budget.stop();
    let (mut h, game) = result?;
    if ctx.budget.refused() > 0 {
        // Said in the stored note too: the GM's listing shows the summary.
        let more = format!(
            "; {} mails not queued (at most {} per mail)",
            ctx.budget.refused(),
            ctx.cfg.max_mails_per_message
        );
        h.detail.summary.push_str(&more);
        h.note.push_str(&more);
    }
    Ok((h, game))
}

/// The guards, then authentication, then the mail's commands and the reply.
fn handle_mail(
    tx: &Tx,
    ctx: &Ctx,
    msg_id: i64,
    inb: &Inbound,
    dice: Option<&mut dyn DiceSource>,
) -> anyhow::Result<(Handled, Option<i64>)> {
    let from = match screen(tx, ctx, inb)? {
        Ok(from) => from,
        Err(h) => return Ok((h, None)),
    };
    let mut dice = dice;
    let mut session = Session::new(inb);
    if let Some(code) = inb
        .recipients()
        .iter()
        .find_map(|a| requests::code_in(ctx, a))
    {
        if let Err(h) = requests::confirm(tx, ctx, &mut session, &from, &code, &mut dice)? {
            return Ok((h, None));
        }
        reply(tx, ctx, &mut session, None, &from)?;
        return Ok((done("request confirmed"), session.game));
    }
    let (lines, unread_lines, text) = read_lines(inb, ctx.cfg.max_lines);
    let mut cmds = commands::parse(&lines);
    let unread_cmds = cmds.len().saturating_sub(ctx.cfg.max_commands);
    cmds.truncate(ctx.cfg.max_commands);
    let redact = lines
        .iter()
        .any(|l| commands::password_attempt(l).is_some());
    let auth = match authenticate(tx, ctx, inb, &from, &cmds)? {
        Ok(a) => a,
        Err(h) => return finish(tx, msg_id, inb, redact, (h, None)),
    };
    let stranger = matches!(auth, Auth::None) && tx.seats_of(&from)?.is_empty();
    if matches!(auth, Auth::None) {
        if let Some(h) = unproven_limits(tx, ctx, &from, stranger)? {
            return finish(tx, msg_id, inb, redact, (h, None));
        }
        // Its answer repeats nothing of its lines or subject (`stranger`). Its Message-ID,
        // which its client made and no reader sees, is still answered to, for threading.
        session.unproven = Some(stranger::Words::of(&lines, &inb.subject));
    }
    let outcome = run_lines(
        tx,
        ctx,
        &mut session,
        msg_id,
        &cmds,
        &from,
        &auth,
        &mut dice,
    )?;
    if let Some(h) = outcome {
        return finish(tx, msg_id, inb, redact, (h, None));
    }
    session.note_unread(
        unread_lines,
        unread_cmds,
        ctx.cfg.max_lines,
        ctx.cfg.max_commands,
    );
    // An empty mail (or all quoted text): say how to play rather than stay silent.
    if cmds.is_empty() && session.extra.is_empty() && session.help.is_none() {
        session.help = Some(help_text(ctx, None)?);
    }
    let game = session.touched.or(session.game);
    let mark = match session.acted() {
        true => None,
        false => match repeats::check(tx, ctx, &from, &text, &session)? {
            Ok(mark) => Some(mark),
            Err(why) => return finish(tx, msg_id, inb, redact, (ignored(why), game)),
        },
    };
    let current = session.current;
    reply(tx, ctx, &mut session, current, &from)?;
    if let Some(mark) = mark {
        mark.note(tx, ctx, &from)?;
    }
    if matches!(auth, Auth::None) {
        guard::answered_unproven(tx, ctx, &from, stranger)?;
    }
    finish(tx, msg_id, inb, redact, (session.handled(), game))
}

/// Unproven mail past its address's hourly answers, or from an address with no seat past
/// all strangers' hourly answers: stored, not run, not answered (`None`: go on).
fn unproven_limits(
    tx: &Tx,
    ctx: &Ctx,
    from: &str,
    stranger: bool,
) -> anyhow::Result<Option<Handled>> {
    if guard::unauth_budget_spent(tx, ctx, from)? {
        tx.log_event(
            None,
            ctx.now,
            &format!("rate limit: unproven mail from {from} not answered"),
        )?;
        return Ok(Some(refused(
            "rate limit: too many answers to mail from this address that proves no seat",
        )));
    }
    // Checked before the mail runs: a NEW past the cap would wait for a confirmation that
    // is never sent.
    if stranger && guard::strangers_capped(tx, ctx)? {
        return Ok(Some(refused(
            "rate limit: the hour's answers to addresses with no seat are spent \
             (stranger_replies_per_hour)",
        )));
    }
    Ok(None)
}

/// The mail as handled; a mail that held a password attempt is stored from now on without it.
fn finish(
    tx: &Tx,
    msg_id: i64,
    inb: &Inbound,
    redact: bool,
    result: (Handled, Option<i64>),
) -> anyhow::Result<(Handled, Option<i64>)> {
    if redact {
        tx.replace_raw(msg_id, &redacted(inb))?;
    }
    Ok(result)
}

/// What is kept of a mail that held a password: its addresses, subject and ids, and its text
/// with every password line blanked (transfer encodings, HTML and attachments dropped).
fn redacted(inb: &Inbound) -> Vec<u8> {
    let mut out = String::new();
    let mut header = |name: &str, value: Option<&str>| {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            let v: String = v.chars().filter(|c| !c.is_control()).collect();
            out.push_str(&format!("{name}: {v}\r\n"));
        }
    };
    header("From", inb.from.as_deref());
    header("To", Some(&inb.to.join(", ")));
    header("Cc", Some(&inb.cc.join(", ")));
    header("Subject", Some(&inb.subject));
    header(
        "Message-ID",
        inb.message_id.as_ref().map(|m| format!("<{m}>")).as_deref(),
    );
    let date = inb.date.map(|d| d.to_rfc2822());
    header("Date", date.as_deref());
    out.push_str("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n");
    out.push_str("X-Pbem-Redacted: password lines removed\r\n\r\n");
    for line in inb.body.lines() {
        if commands::password_attempt(line).is_some() {
            out.push_str("PASSWORD (removed)\r\n");
        } else {
            out.push_str(line);
            out.push_str("\r\n");
        }
    }
    out.into_bytes()
}

/// The lines the player wrote, at most `max` of them, how many more there were, and the
/// fingerprint of all of them.
fn read_lines(inb: &Inbound, max: usize) -> (Vec<String>, usize, repeats::Fingerprint) {
    let mut lines = orders::player_lines(&inb.body);
    let text = repeats::Fingerprint::of(&lines);
    let unread = lines.len().saturating_sub(max);
    lines.truncate(max);
    (lines, unread, text)
}

/// The loop, junk and throttle guards: the sender's address, or how the mail ends unanswered.
fn screen(tx: &Tx, ctx: &Ctx, inb: &Inbound) -> anyhow::Result<Result<String, Handled>> {
    let ours = vec![ctx.cfg.address.clone()];
    if let Some(r) = inbound::refusal(inb, &ours, ctx.cfg.max_message_bytes) {
        if r.code == "too-large" {
            if let Some(from) = &inb.from {
                guard::answer_too_large(tx, ctx, inb, from)?;
            }
        }
        let why = format!("{}: {}", r.code, r.reason);
        // An oversized mail may be a player's (and is answered to a seat); the rest is no
        // person's mail, or our own come back.
        return Ok(Err(match r.code {
            "too-large" => refused(why),
            _ => ignored(why),
        }));
    }
    let Some(from) = inb.from.clone() else {
        return Ok(Err(ignored("no usable From address")));
    };
    if ctx.cfg.is_ours(&from) {
        return Ok(Err(ignored("loop: mail from our own address")));
    }
    Ok(Ok(from))
}

/// Who the mail is from, as far as authentication goes.
enum Auth {
    /// The seat's secret address and its registered sender: (game, seat).
    Seat(i64, usize),
    /// A correct `PASSWORD` line from a registered address: any of its games.
    Password,
    /// No proof; only public commands (HELP, LIST, NEW, JOIN) run.
    None,
}

/// The secret reply address with the registered sender, or a password; a failed attempt is
/// counted against the sender and told to the seat's owner.
fn authenticate(
    tx: &Tx,
    ctx: &Ctx,
    inb: &Inbound,
    from: &str,
    cmds: &[Command],
) -> anyhow::Result<Result<Auth, Handled>> {
    let mut auth = Auth::None;
    let token = inb.recipients().iter().find_map(|a| ctx.cfg.token_in(a));
    if let Some(token) = &token {
        match tx.seat_by_token(token)? {
            Some((game, seat)) => {
                let on_record = tx.seat_email(game, seat)?;
                if on_record.as_deref() == Some(from) {
                    auth = Auth::Seat(game, seat);
                } else if guard::auth_throttled(tx, ctx, from)? {
                    return Ok(Err(throttled_refusal()));
                } else {
                    let g = gamelog::load(tx, game)?;
                    let what = format!(
                        "wrote to the reply address of seat {} of game {game}",
                        g.game.seat_name(seat)
                    );
                    guard::auth_failed(tx, ctx, from, &what)?;
                    guard::tell_owner(tx, ctx, &g, on_record.as_deref(), from)?;
                    return Ok(Err(refused(format!("spoofed: {from} {what}"))));
                }
            }
            None => tx.log_event(
                None,
                ctx.now,
                &format!("mail from {from} to an unknown reply address"),
            )?,
        }
    }
    let password = cmds.iter().find_map(|c| match c {
        Command::Password(p) => Some(p.as_str()),
        _ => None,
    });
    // A mail from a seat's secret address is proven already: a password in it is not needed,
    // and a wrong one must not cost the player the moves in that mail. Nor does a throttle:
    // failures forged in a player's name must not lock the player out.
    if matches!(auth, Auth::Seat(..)) {
        return Ok(Ok(auth));
    }
    // The throttle is for failures, never for the owner: a right password is checked first
    // and always works, however many wrong ones were forged "from" its address (they were
    // counted against the address, and the owner cannot tell them from hers). It still
    // bounds guessing where it can: past it a wrong password is neither answered nor
    // counted, and a guesser who forges the owner's From never sees the answer, which goes
    // to the owner. Each guess costs an argon2id hash, as the first five did.
    let throttled = guard::auth_throttled(tx, ctx, from)?;
    let Some(pw) = password else {
        if throttled {
            return Ok(Err(throttled_refusal()));
        }
        return Ok(Ok(auth));
    };
    match tx.password_hash(from)? {
        Some(h) if password::verify(pw, &h) => {
            if password::needs_rehash(&h) {
                let fresh = password::hash(pw, &edge::new_salt()?)?;
                tx.set_password_hash(from, Some(&fresh))?;
            }
            Ok(Ok(Auth::Password))
        }
        _ if throttled => Ok(Err(throttled_refusal())),
        _ => {
            guard::auth_failed(tx, ctx, from, "a wrong password")?;
            if let Some((game, _)) = tx.seats_of(from)?.first() {
                let g = gamelog::load(tx, *game)?;
                guard::tell_owner(tx, ctx, &g, Some(from), from)?;
            }
            Ok(Err(refused(format!("wrong password from {from}"))))
        }
    }
}

/// A mail from an address past its failed authentications: stored, not answered.
fn throttled_refusal() -> Handled {
    refused("throttled: too many failed authentications from this address in the last hour")
}

/// The game a password-authenticated mail is about: the one named, else the only active one.
fn pick_seat(tx: &Tx, from: &str, wanted: Option<i64>) -> anyhow::Result<Option<(i64, usize)>> {
    let seats = tx.seats_of(from)?;
    Ok(match wanted {
        Some(w) => seats.into_iter().find(|(g, _)| *g == w),
        None => {
            let mut active = Vec::new();
            for (g, seat) in seats {
                if tx.game(g)?.is_some_and(|r| r.status == GameStatus::Active) {
                    active.push((g, seat));
                }
            }
            (active.len() == 1).then(|| active[0])
        }
    })
}

/// Runs the mail's commands and game lines in order. `Some` when the mail ends unanswered
/// (a stranger's game lines).
#[allow(clippy::too_many_arguments)]
fn run_lines(
    tx: &Tx,
    ctx: &Ctx,
    session: &mut Session,
    msg_id: i64,
    cmds: &[Command],
    from: &str,
    auth: &Auth,
    dice: &mut Option<&mut dyn DiceSource>,
) -> anyhow::Result<Option<Handled>> {
    session.current = match auth {
        Auth::Seat(g, s) => Some((*g, *s)),
        Auth::Password => pick_seat(tx, from, session.subject_game)?,
        Auth::None => None,
    };
    session.touched = session.current.map(|c| c.0);
    // A `#12` guard anywhere in the mail applies to all of its moves.
    session.guard = cmds.iter().find_map(|c| match c {
        Command::Guard(n) => Some(*n),
        _ => None,
    });
    let mut unauth_game_lines = 0;
    let mut game_lines: Vec<String> = Vec::new();
    for cmd in cmds {
        if let Command::Game(text) = cmd {
            if session.current.is_none() {
                unauth_game_lines += 1;
                let why = format!("not played: {}", no_game_reason(auth));
                session.lines.push(Line::no(text, why));
            } else {
                game_lines.push(text.clone());
            }
            continue;
        }
        let current = session.current;
        flush(tx, ctx, session, &mut game_lines, current, msg_id, dice)?;
        if let Command::UseGame(id) = cmd {
            use_game(tx, session, *id, from, auth)?;
            continue;
        }
        if cmd.needs_game() && session.current.is_none() {
            let text = command_text(cmd);
            session.lines.push(Line::no(&text, no_game_reason(auth)));
            unauth_game_lines += 1;
            continue;
        }
        if let Some(why) = session.repeated(cmd) {
            session.lines.push(Line::no(&command_text(cmd), why));
            continue;
        }
        let current = session.current;
        run_command(tx, ctx, session, cmd, current, from, auth, dice)?;
    }
    let current = session.current;
    flush(tx, ctx, session, &mut game_lines, current, msg_id, dice)?;
    // Strangers get no answer to game lines: only registered addresses are ever told.
    let registered = !tx.seats_of(from)?.is_empty();
    if matches!(auth, Auth::None)
        && unauth_game_lines > 0
        && !registered
        && session.extra.is_empty()
        && session.help.is_none()
        && session.confirm.is_none()
    {
        return Ok(Some(refused(format!(
            "unauthenticated game lines from unknown address {from}"
        ))));
    }
    Ok(None)
}

/// `GAME 12`: the lines below are for game 12, if the mail's proof covers it.
fn use_game(
    tx: &Tx,
    session: &mut Session,
    id: i64,
    from: &str,
    auth: &Auth,
) -> anyhow::Result<()> {
    let text = format!("GAME {id}");
    if matches!(auth, Auth::None) {
        session.lines.push(Line::no(
            &text,
            "send it from your secret reply address or with your PASSWORD",
        ));
        return Ok(());
    }
    match pick_seat(tx, from, Some(id))? {
        Some(c) if matches!(auth, Auth::Password) || Some(c) == session.current => {
            session.current = Some(c);
            session.touched = Some(c.0);
            session.lines.push(Line::ok(&text, None));
        }
        _ => session
            .lines
            .push(Line::no(&text, format!("you have no seat in game {id}"))),
    }
    Ok(())
}

/// Why a line that needs a game was not run: no proof of identity, or no game named.
fn no_game_reason(auth: &Auth) -> &'static str {
    match auth {
        Auth::None => {
            "send it from your secret reply address (reply to a mail from the game master) \
             or with your PASSWORD"
        }
        _ => "which game? write GAME <number> first, or reply to that game's mail",
    }
}

/// What a mail's commands produced so far.
struct Session {
    lines: Vec<Line>,
    /// Sections appended to the reply (BOARD, HISTORY, ...).
    extra: Vec<String>,
    /// A game the mail created or joined.
    game: Option<i64>,
    /// The (game, seat) the mail's game lines are for.
    current: Option<(i64, usize)>,
    /// The game the mail touched, for the GM's listing.
    touched: Option<i64>,
    /// The game named in the subject (`[pbem #12]`).
    subject_game: Option<i64>,
    guard: Option<u32>,
    moved: bool,
    help: Option<String>,
    /// The game as the last move left it, reused for the reply (so it is not rebuilt from
    /// its log again); dropped by anything that changes a game outside it.
    fresh: Option<Loaded>,
    /// A NEW or JOIN waiting for confirmation: its code and the text that explains it.
    confirm: Option<(String, String)>,
    /// The sender's Message-ID, when it is one a reply may quote.
    in_reply_to: Option<String>,
    /// Commands answered once per mail, already run (a second BOARD adds nothing).
    once: Vec<&'static str>,
    /// Seats this mail already sent press to (each gets at most one press mail per mail).
    pressed: Vec<usize>,
    /// The plies the mail caused (`A: b1 5/4`, `chance: roll 3`), for its note and the log.
    plies: Vec<String>,
    /// The mail's move ended the game: its sender gets the game-over mail, which says it all.
    ended: bool,
    /// A command that changes something was run (or tried).
    acted: bool,
    /// The mail proves no seat: its answer names its lines in pbem's words only, never
    /// repeating these words of the mail.
    unproven: Option<stranger::Words>,
}

impl Session {
    fn new(inb: &Inbound) -> Session {
        Session {
            lines: Vec::new(),
            extra: Vec::new(),
            game: None,
            current: None,
            touched: None,
            subject_game: orders::subject_game_id(&inb.subject),
            guard: None,
            moved: false,
            help: None,
            fresh: None,
            confirm: None,
            in_reply_to: inb
                .message_id
                .as_ref()
                .map(|m| format!("<{m}>"))
                .filter(|m| compose::is_msg_id(m)),
            once: Vec::new(),
            pressed: Vec::new(),
            plies: Vec::new(),
            ended: false,
            acted: false,
            unproven: None,
        }
    }

    /// Whether the mail changed anything: a move, orders, a plan, a request, a command that
    /// changes state. Such a mail is answered however often its text came before.
    fn acted(&self) -> bool {
        self.acted
            || self.moved
            || !self.plies.is_empty()
            || self.confirm.is_some()
            || self.game.is_some()
    }

    /// Why this command is not run again in the same mail (None: run it). Each of these
    /// answers or mails the same thing however often it is written, so once is enough;
    /// a mail of a thousand BOARD or DRAW lines costs what one costs.
    fn repeated(&mut self, cmd: &Command) -> Option<&'static str> {
        let key = match cmd {
            Command::Board => "board",
            Command::Status => "status",
            Command::History => "history",
            Command::Moves => "moves",
            Command::List => "list",
            Command::Help(_) => "help",
            Command::Resign => "resign",
            Command::DrawOffer | Command::DrawAccept | Command::DrawDecline => "draw",
            Command::New { .. } | Command::Join { .. } => "request",
            Command::Start => "start",
            Command::Vacation(_) => "vacation",
            _ => return None,
        };
        if self.once.contains(&key) {
            return Some(match key {
                "request" => "one NEW or JOIN per mail: send the next one in a mail of its own",
                "draw" => "one DRAW line per mail",
                _ => "already answered above (once per mail)",
            });
        }
        self.once.push(key);
        None
    }

    /// Says in the reply what was not read of a long mail.
    fn note_unread(&mut self, lines: usize, cmds: usize, max_lines: usize, max_cmds: usize) {
        for (n, what, verb, max) in [
            (lines, "lines", "read", max_lines),
            (cmds, "commands", "run", max_cmds),
        ] {
            if n > 0 {
                self.lines.push(Line::with(
                    Fate::Unread,
                    &format!("... and {n} more {what}"),
                    None,
                    Some(format!(
                        "not {verb}: the game master {verb}s at most {max} {what} of a mail"
                    )),
                ));
            }
        }
    }

    /// How the mail ended: answered, each line's fate and the plies kept in its note.
    fn handled(&self) -> Handled {
        let lines: Vec<LineFate> = self.lines.iter().map(Line::fate).collect();
        let summary = note::summary(&lines);
        Handled {
            status: MessageStatus::Done,
            detail: MailNote::answered(summary.clone(), lines, self.plies.clone()),
            note: summary,
        }
    }

    /// Keeps the plies a move or command caused, by actor, for the mail's note.
    fn note_plies(&mut self, g: &Loaded, played: &gm::Played) {
        for (actor, ply) in &played.plies {
            let who = crate::records::actor_name(&g.game, *actor);
            self.plies.push(format!("{who}: {ply}"));
        }
    }
}

fn command_text(cmd: &Command) -> String {
    match cmd {
        Command::Game(t) => t.clone(),
        Command::Guard(n) => format!("#{n}"),
        Command::Password(_) => "PASSWORD (hidden)".into(),
        Command::Salt(s) => format!("SALT {s}"),
        Command::Press { to, .. } => format!("PRESS TO {}", to.join(", ")),
        Command::Bad { line, .. } => line.clone(),
        Command::Board => "BOARD".into(),
        Command::Status => "STATUS".into(),
        Command::History => "HISTORY".into(),
        Command::Moves => "MOVES".into(),
        Command::Resign => "RESIGN".into(),
        Command::DrawOffer => "DRAW OFFER".into(),
        Command::DrawAccept => "DRAW ACCEPT".into(),
        Command::DrawDecline => "DRAW DECLINE".into(),
        Command::Help(HelpTopic::Commands) => "HELP".into(),
        Command::Help(HelpTopic::Rules) => "HELP RULES".into(),
        Command::Help(HelpTopic::Game(g)) => format!("HELP {g}"),
        Command::List => "LIST".into(),
        Command::Start => "START".into(),
        Command::UseGame(id) => format!("GAME {id}"),
        Command::New { game, options } => std::iter::once(format!("NEW {game}"))
            .chain(options.iter().cloned())
            .collect::<Vec<_>>()
            .join(" "),
        Command::Join { game, seat: None } => format!("JOIN {game}"),
        Command::Join {
            game,
            seat: Some(seat),
        } => format!("JOIN {game} {seat}"),
        Command::Vacation(None) => "VACATION OFF".into(),
        Command::Digest(true) => "DIGEST ON".into(),
        Command::Digest(false) => "DIGEST OFF".into(),
        Command::Vacation(Some(days)) => format!("VACATION {days}"),
    }
}

/// Plays the game lines gathered so far: one move (or a conditional plan) in a sequential
/// game; the turn's orders in a simultaneous one.
fn flush(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    lines: &mut Vec<String>,
    current: Option<(i64, usize)>,
    msg_id: i64,
    dice: &mut Option<&mut dyn DiceSource>,
) -> anyhow::Result<()> {
    if lines.is_empty() {
        return Ok(());
    }
    let lines = std::mem::take(lines);
    s.fresh = None;
    let Some((game_id, seat)) = current else {
        return Ok(());
    };
    let mut g = gamelog::load(tx, game_id)?;
    // Orders change the game outside `g` (pending orders, an early deadline): not reusable.
    let reusable = !matches!(g.game.to_act(), ToAct::Orders(_));
    if let Some(n) = s.guard {
        let at = g.moves.len() as u32 + 1;
        if n != at {
            let why = format!("not played: you wrote #{n}, but the game is at #{at} (the position changed since; see the board below)");
            refuse_all(s, &lines, &why);
            return Ok(());
        }
    }
    if g.row.status == GameStatus::Paused {
        let why = format!(
            "not played: the GM has paused the game ({}); you will be told when it resumes, \
             then send your move again",
            g.row.pause_reason.as_deref().unwrap_or("no reason given")
        );
        refuse_all(s, &lines, &why);
        return Ok(());
    }
    if g.row.status != GameStatus::Active {
        refuse_all(
            s,
            &lines,
            &format!("not played: the game is {}", g.row.status),
        );
        return Ok(());
    }
    match g.game.to_act() {
        ToAct::Orders(seats) if seats.contains(&seat) => {
            record_orders(tx, ctx, s, &mut g, seat, &lines)?
        }
        ToAct::Orders(_) => refuse_all(
            s,
            &lines,
            "not played: you have no orders to give this turn",
        ),
        ToAct::Seat(to_move) if to_move == seat => {
            if s.moved {
                refuse_all(s, &lines, "not played: one move per mail");
                return Ok(());
            }
            // A declaration with outcomes planned per roll over several lines (d4 d6 chess).
            if lines.len() > 1 {
                if let Some(plan) = g.game.conditional(&lines) {
                    let mover = Mover { seat, msg_id };
                    return play_plan(tx, ctx, s, &mut g, mover, &plan, &lines, dice);
                }
            }
            play_first_move(tx, ctx, s, &mut g, Mover { seat, msg_id }, &lines, dice)?;
        }
        _ => {
            let who = gm::to_act_text(&g);
            refuse_all(
                s,
                &lines,
                &format!("not played: it is not your turn ({who})"),
            );
        }
    }
    if reusable {
        s.fresh = Some(g);
    }
    Ok(())
}

/// Every line refused for the same reason.
fn refuse_all(s: &mut Session, lines: &[String], why: &str) {
    for l in lines {
        s.lines.push(Line::no(l, why));
    }
}

/// The seat a mail's move is played for, and the mail it came in.
#[derive(Clone, Copy)]
struct Mover {
    seat: usize,
    msg_id: i64,
}

/// A simultaneous turn: the seat's orders (each understood or void) replace any it sent
/// before (`gm::submit_orders`); the reply says so.
fn record_orders(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    g: &mut Loaded,
    seat: usize,
    lines: &[String],
) -> anyhow::Result<()> {
    let early = Duration::seconds(ctx.cfg.early_resolve_secs);
    let checked = match gm::submit_orders(tx, g, seat, lines, ctx.now, early)? {
        Ok(c) => c,
        Err(why) => {
            refuse_all(s, lines, &format!("not played: {why}"));
            return Ok(());
        }
    };
    for (l, r) in lines.iter().zip(&checked) {
        s.lines.push(match r {
            gm::LineCheck::Order(c) => Line::with(Fate::Ordered, l, Some(c.clone()), None),
            gm::LineCheck::Void(e) => Line::with(Fate::Void, l, None, Some(e.clone())),
            gm::LineCheck::Prose => Line::with(
                Fate::Ignored,
                l,
                None,
                Some("not an order: only you see this line".into()),
            ),
        });
    }
    if checked.iter().all(|c| *c == gm::LineCheck::Prose) {
        return Ok(());
    }
    s.extra.push(
        "Your orders for this turn are recorded (they replace any you sent before). \
         Nobody sees them before the turn is adjudicated; you may change them until then."
            .into(),
    );
    s.moved = true;
    Ok(())
}

/// A declaration with its outcomes planned per roll: the plan is kept, the declaration played
/// (the roll that follows reads the plan).
#[allow(clippy::too_many_arguments)]
fn play_plan(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    g: &mut Loaded,
    mover: Mover,
    plan: &crate::games::Conditional,
    lines: &[String],
    dice: &mut Option<&mut dyn DiceSource>,
) -> anyhow::Result<()> {
    let seat = mover.seat;
    let res = gm::play_planned(
        tx,
        g,
        seat,
        plan,
        ctx.now,
        Some(mover.msg_id),
        reborrow(dice),
    )?;
    match res {
        Err(e) => {
            s.lines.push(Line::no(&lines[0], e.to_string()));
            refuse_all(s, &lines[1..], "not played: the declaration was refused");
        }
        Ok(played) => {
            // A one-line plan (`H d4`, `c3: 1>a1 *>e5`) is not echoed as its declaration
            // alone: what it played follows in the reply.
            let first = played
                .plies
                .first()
                .map(|p| p.1.clone())
                .filter(|_| lines.len() > 1);
            s.lines.push(Line::played(&lines[0], first));
            for l in &lines[1..] {
                s.lines.push(Line::with(Fate::Planned, l, None, None));
            }
            after_move(tx, ctx, s, g, &played, seat)?;
            // The seat is still to act and none of its planned outcomes was played (no entry
            // for the roll, or none legal): the GM asks for its choice.
            let unplanned = played
                .plies
                .iter()
                .skip(1)
                .all(|p| p.0 != Actor::Seat(seat));
            if unplanned && g.game.to_act() == ToAct::Seat(seat) {
                s.extra.push(
                    "None of the outcomes you planned can be played: reply with your choice."
                        .into(),
                );
            }
        }
    }
    Ok(())
}

/// The first line that reads as a move is the move; prose that is not notation is ignored
/// (and said so); once a move was tried, later move lines are not.
fn play_first_move(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    g: &mut Loaded,
    mover: Mover,
    lines: &[String],
    dice: &mut Option<&mut dyn DiceSource>,
) -> anyhow::Result<()> {
    let mut tried = false;
    // The position the mail's lines were written against (a later line is read on it).
    let before = (lines.len() > 1).then(|| g.game.clone());
    for line in lines {
        if tried || s.moved {
            let reads_as_move = before.as_ref().is_none_or(|b| {
                !matches!(
                    b.clone().play(Actor::Seat(mover.seat), line),
                    Err(PlyError::Syntax(_))
                )
            });
            s.lines.push(if reads_as_move {
                Line::no(
                    line,
                    "not played: one move per mail (only the first move counts)",
                )
            } else {
                Line::with(Fate::Ignored, line, None, Some(not_a_move(line, None)))
            });
            continue;
        }
        // A whole move or a conditional on one line (Siberian Dice: `H d4`, `c3: 1>a1 *>e5`);
        // a lone declaration with nothing planned is a plain move.
        let one = std::slice::from_ref(line);
        if let Some(plan) = g.game.conditional(one).filter(|p| !p.outcomes.is_empty()) {
            play_plan(tx, ctx, s, g, mover, &plan, one, dice)?;
            tried = true;
            continue;
        }
        let res = gm::play(
            tx,
            g,
            Actor::Seat(mover.seat),
            line,
            ctx.now,
            Some(mover.msg_id),
            reborrow(dice),
        )?;
        match res {
            Ok(played) => {
                let first = played.plies.first().map(|p| p.1.clone());
                s.lines.push(Line::played(line, first));
                after_move(tx, ctx, s, g, &played, mover.seat)?;
            }
            Err(e @ PlyError::Syntax(_)) => s.lines.push(Line::with(
                Fate::Ignored,
                line,
                None,
                Some(not_a_move(line, Some(&e))),
            )),
            Err(e) => {
                s.lines.push(Line::no(line, e.to_string()));
                tried = true;
            }
        }
    }
    Ok(())
}

/// Why a line was ignored: prose (a greeting, a sign-off: no digit, as every move of every
/// game has one) is simply not a move; a line that may be a mistyped move gets the reader's
/// reason.
fn not_a_move(line: &str, why: Option<&PlyError>) -> String {
    match why {
        Some(e) if line.chars().any(|c| c.is_ascii_digit()) => {
            format!("not a move or command ({e})")
        }
        _ => "not a move or command".into(),
    }
}

/// After a seat's move: what followed it (rolls, forced plies) and its reports go into the
/// mover's reply, and the other seats get their turn reports.
fn after_move(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    g: &Loaded,
    played: &gm::Played,
    seat: usize,
) -> anyhow::Result<()> {
    // The reply already echoes the seat's own ply: only what followed it is listed.
    tell_played(tx, ctx, s, g, played, seat, 1)?;
    s.moved = true;
    Ok(())
}

/// What the GM played on a seat's mail (its plies after the first `skip`, and the reports) goes
/// into that seat's reply; the other seats get their turn reports.
fn tell_played(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    g: &Loaded,
    played: &gm::Played,
    seat: usize,
    skip: usize,
) -> anyhow::Result<()> {
    s.note_plies(g, played);
    for (actor, ply) in played.plies.iter().skip(skip) {
        let said = compose::letters::said(g, *actor, ply);
        if !said.is_empty() {
            s.extra.push(said);
        }
    }
    s.extra.extend(played.reports.iter().cloned());
    s.ended |= played.finished;
    compose::announce(tx, ctx, g, played, Some(seat))
}

#[allow(clippy::too_many_arguments)]
fn run_command(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    cmd: &Command,
    current: Option<(i64, usize)>,
    from: &str,
    auth: &Auth,
    dice: &mut Option<&mut dyn DiceSource>,
) -> anyhow::Result<()> {
    let text = command_text(cmd);
    let reads_only = matches!(
        cmd,
        Command::Board
            | Command::Status
            | Command::History
            | Command::Moves
            | Command::Help(_)
            | Command::List
            | Command::Guard(_)
            | Command::Password(_)
            | Command::Bad { .. }
    );
    if !reads_only {
        s.fresh = None;
        s.acted = true;
    }
    match cmd {
        Command::Guard(_) => {}
        Command::Password(_) => {}
        Command::Bad { line, reason } => s.lines.push(Line::no(line, reason.clone())),
        Command::Help(topic) => cmd_help(tx, ctx, s, &text, topic, current)?,
        Command::List => cmd_list(tx, s, from)?,
        Command::New { game, options } => {
            requests::ask_new(tx, ctx, s, &text, from, game, options)?;
        }
        Command::Join { game, seat } => {
            requests::ask_join(tx, ctx, s, &text, from, *game, seat.as_deref())?;
        }
        Command::Vacation(days) => cmd_vacation(tx, ctx, s, &text, days, from, auth)?,
        Command::Digest(on) => cmd_digest(tx, ctx, s, &text, *on, from, auth)?,
        Command::Salt(salt) => cmd_salt(tx, ctx, s, &text, salt, current)?,
        Command::Start => cmd_start(tx, ctx, s, &text, current, dice)?,
        Command::Board => {
            if let Some((g, _)) = load_seat(tx, current)? {
                s.extra.push(g.game.board());
            }
        }
        Command::Status => cmd_status(tx, s, current)?,
        Command::History => {
            if let Some((g, _)) = load_seat(tx, current)? {
                s.extra
                    .push(format!("The game so far:\n{}", gm::view::history(&g)?));
            }
        }
        Command::Moves => cmd_moves(tx, s, current)?,
        Command::Resign => cmd_resign(tx, ctx, s, &text, current)?,
        Command::DrawOffer | Command::DrawAccept => cmd_draw_offer(tx, ctx, s, &text, current)?,
        Command::DrawDecline => cmd_draw_decline(tx, ctx, s, &text, current)?,
        Command::Press { to, text: body } => cmd_press(tx, ctx, s, &text, to, body, current)?,
        Command::Game(_) | Command::UseGame(_) => unreachable!("handled by the caller"),
    }
    Ok(())
}

/// The game and seat the mail's commands are for, loaded.
fn load_seat(tx: &Tx, current: Option<(i64, usize)>) -> anyhow::Result<Option<(Loaded, usize)>> {
    Ok(match current {
        Some((g, seat)) => Some((gamelog::load(tx, g)?, seat)),
        None => None,
    })
}

/// `LIST`: the sender's games, and games with open seats.
fn cmd_list(tx: &Tx, s: &mut Session, from: &str) -> anyhow::Result<()> {
    s.extra.push(gm::view::games_of(tx, from)?.to_string());
    Ok(())
}

/// `VACATION n` / `VACATION OFF`: the sender's clocks pause or run again.
fn cmd_vacation(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    text: &str,
    days: &Option<u32>,
    from: &str,
    auth: &Auth,
) -> anyhow::Result<()> {
    if matches!(auth, Auth::None) {
        s.lines.push(Line::no(
            text,
            "send VACATION from your secret reply address or with your PASSWORD",
        ));
        return Ok(());
    }
    let until = gm::set_vacation(tx, from, *days, ctx.now)?;
    s.lines.push(Line::ok(
        text,
        Some(match until {
            Some(u) => format!("your clocks are paused until {}", crate::template::date(u)),
            None => "vacation ended: your clocks run again".into(),
        }),
    ));
    Ok(())
}

/// `DIGEST ON|OFF`: the player's turn reports as one mail a day, or each at once.
fn cmd_digest(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    text: &str,
    on: bool,
    from: &str,
    auth: &Auth,
) -> anyhow::Result<()> {
    if matches!(auth, Auth::None) {
        s.lines.push(Line::no(
            text,
            "send DIGEST from your secret reply address or with your PASSWORD",
        ));
        return Ok(());
    }
    if let Err(why) = gm::set_digest(tx, from, on, ctx.now)? {
        s.lines.push(Line::no(text, why.to_string()));
        return Ok(());
    }
    let said = if on {
        "from now on, news of your games comes as one mail a day, listing every game \
         where it is your turn; a deadline within the day is still mailed at once"
    } else {
        "digest off: you get a mail for each move again"
    };
    s.lines.push(Line::ok(text, Some(said.into())));
    Ok(())
}

/// `SALT text`: a salt for the game's dice, while the salts are open.
fn cmd_salt(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    text: &str,
    salt: &str,
    current: Option<(i64, usize)>,
) -> anyhow::Result<()> {
    let Some((g, seat)) = load_seat(tx, current)? else {
        return Ok(());
    };
    let max = ctx.cfg.max_salts_per_game;
    // The reply lists the salts once, below; each line only counts them, so a mail of many
    // SALT lines does not repeat the list for each.
    s.lines
        .push(match gm::add_salt(tx, &g, seat, salt, max, ctx.now)? {
            Ok(n) => Line::ok(text, Some(format!("salt recorded ({n} of at most {max})"))),
            Err(why) => Line::no(text, why.to_string()),
        });
    Ok(())
}

/// `START`: the seat has no more salts to add.
fn cmd_start(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    text: &str,
    current: Option<(i64, usize)>,
    dice: &mut Option<&mut dyn DiceSource>,
) -> anyhow::Result<()> {
    let Some((mut g, seat)) = load_seat(tx, current)? else {
        return Ok(());
    };
    match gm::start(tx, &mut g, seat, ctx.now, reborrow(dice))? {
        Err(why) => s.lines.push(Line::no(text, why.to_string())),
        Ok(started) => {
            let note = if started.all_ready {
                "every player is ready"
            } else {
                "you are ready; the salts are fixed once every player is"
            };
            s.lines.push(Line::ok(text, Some(note.to_string())));
            let played = &started.played;
            if !played.plies.is_empty() || !played.reports.is_empty() {
                tell_played(tx, ctx, s, &g, played, seat, 0)?;
            }
        }
    }
    Ok(())
}

/// `STATUS`: whose turn, the deadline, the players.
fn cmd_status(tx: &Tx, s: &mut Session, current: Option<(i64, usize)>) -> anyhow::Result<()> {
    if let Some((g, seat)) = load_seat(tx, current)? {
        s.extra.push(gm::view::status(&g, Some(seat)).to_string());
    }
    Ok(())
}

/// `MOVES`: the seat's legal moves now.
fn cmd_moves(tx: &Tx, s: &mut Session, current: Option<(i64, usize)>) -> anyhow::Result<()> {
    if let Some((g, seat)) = load_seat(tx, current)? {
        s.extra.push(gm::view::moves(&g, seat).to_string());
    }
    Ok(())
}

/// `RESIGN`: the seat gives up the game.
fn cmd_resign(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    text: &str,
    current: Option<(i64, usize)>,
) -> anyhow::Result<()> {
    let Some((mut g, seat)) = load_seat(tx, current)? else {
        return Ok(());
    };
    match gm::resign(tx, &mut g, seat, ctx.now)? {
        Err(why) => s.lines.push(Line::no(text, why.to_string())),
        Ok(played) => {
            // RESIGN needs no reading: what it did follows.
            s.lines.push(Line::ok(text, None));
            s.note_plies(&g, &played);
            s.ended |= played.finished;
            let except = if played.finished { None } else { Some(seat) };
            compose::announce(tx, ctx, &g, &played, except)?;
        }
    }
    Ok(())
}

/// `DRAW OFFER` / `DRAW ACCEPT`: the game ends drawn once every seat has offered.
fn cmd_draw_offer(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    text: &str,
    current: Option<(i64, usize)>,
) -> anyhow::Result<()> {
    let Some((mut g, seat)) = load_seat(tx, current)? else {
        return Ok(());
    };
    match gm::offer_draw(tx, &mut g, seat, ctx.now)? {
        Err(why) => s.lines.push(Line::no(text, why.to_string())),
        Ok(gm::DrawOffer::Agreed(played)) => {
            let note = "draw agreed by all: the game is over";
            s.lines.push(Line::ok(text, Some(note.into())));
            s.note_plies(&g, &played);
            s.ended = true;
            compose::announce(tx, ctx, &g, &played, None)?;
        }
        Ok(gm::DrawOffer::Waiting(waiting)) => {
            let note = "draw offered; the game ends drawn when every player accepts";
            s.lines.push(Line::ok(text, Some(note.into())));
            compose::draw_news(tx, ctx, &g, seat, Some(&waiting))?;
        }
    }
    Ok(())
}

/// `DRAW DECLINE`: every offer is withdrawn.
fn cmd_draw_decline(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    text: &str,
    current: Option<(i64, usize)>,
) -> anyhow::Result<()> {
    let Some((g, seat)) = load_seat(tx, current)? else {
        return Ok(());
    };
    gm::decline_draw(tx, &g)?;
    s.lines.push(Line::ok(
        text,
        Some("draw declined; all offers are withdrawn".into()),
    ));
    compose::draw_news(tx, ctx, &g, seat, None)
}

/// `PRESS TO ...: text`: a message through the GM, to each seat at most once per mail.
#[allow(clippy::too_many_arguments)]
fn cmd_press(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    text: &str,
    to: &[String],
    body: &str,
    current: Option<(i64, usize)>,
) -> anyhow::Result<()> {
    let Some((g, seat)) = load_seat(tx, current)? else {
        return Ok(());
    };
    let targets: Vec<usize> = match gm::press_targets(&g, seat, to) {
        Ok(t) => t.into_iter().filter(|x| !s.pressed.contains(x)).collect(),
        Err(why) => {
            s.lines.push(Line::no(text, why.to_string()));
            return Ok(());
        }
    };
    if targets.is_empty() {
        s.lines.push(Line::no(
            text,
            "you already sent press to them in this mail: one PRESS per player per mail",
        ));
        return Ok(());
    }
    s.pressed.extend(&targets);
    let to_all = to.iter().any(|t| t.eq_ignore_ascii_case("ALL"));
    compose::press(tx, ctx, &g, seat, &targets, to_all, body)?;
    let names: Vec<&str> = targets.iter().map(|x| g.game.seat_name(*x)).collect();
    s.lines.push(Line::ok(
        text,
        Some(format!("press sent to {}", names.join(", "))),
    ));
    Ok(())
}

/// `HELP`: the commands; `HELP <game>`: that game's player's guide; `HELP RULES`: the guide
/// to the game this mail is about (the commands, and why, when the mail names no game).
fn cmd_help(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    text: &str,
    topic: &HelpTopic,
    current: Option<(i64, usize)>,
) -> anyhow::Result<()> {
    let kind = match topic {
        HelpTopic::Commands => None,
        HelpTopic::Game(name) => {
            let kind = GameKind::parse(name);
            if kind.is_none() {
                s.lines
                    .push(Line::no(text, "no such game; the list is below"));
            }
            kind
        }
        HelpTopic::Rules => {
            let row = match current {
                Some((id, _)) => tx.game(id)?,
                None => None,
            };
            let kind = row.and_then(|g| GameKind::parse(&g.kind));
            if kind.is_none() {
                s.lines.push(Line::no(
                    text,
                    "which game? reply to a mail of that game, or write HELP and the \
                     game's name (the games are listed below)",
                ));
            }
            kind
        }
    };
    s.help = Some(help_text(ctx, kind)?);
    Ok(())
}

fn help_text(ctx: &Ctx, kind: Option<GameKind>) -> anyhow::Result<String> {
    let games: Vec<String> = GameKind::ALL
        .iter()
        .map(|k| {
            let (fewest, most) = k.facts().players;
            let players = if fewest == most {
                format!("{most} players")
            } else {
                format!("{fewest} to {most} players")
            };
            format!("  {:<10} {}, {players}", k.name(), k.title())
        })
        .collect();
    compose::render(
        ctx,
        &Help {
            games: games.join("\n"),
            game_help: kind.map(help::guide),
        },
    )
}

/// Answers the sender (at the address on record: the From of an accepted mail). A NEW or
/// JOIN waiting for confirmation rides on this reply when it goes outside any game's thread
/// (its Reply-To is then the confirmation address), else it gets a mail of its own.
fn reply(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    current: Option<(i64, usize)>,
    from: &str,
) -> anyhow::Result<()> {
    ctx.budget.release_for_reply();
    // The move that ended the game is answered by the game-over mail alone, unless the
    // mail held something else to answer (a refusal, help, a request).
    let nothing_else = s
        .lines
        .iter()
        .all(|l| matches!(l.fate.reply_status(), LineStatus::Ok | LineStatus::Ignored))
        && s.help.is_none()
        && s.confirm.is_none();
    if s.ended && nothing_else {
        return Ok(());
    }
    let refused_only = Fate::nothing_done(s.lines.iter().map(|l| l.fate));
    let mut extra = s.extra.clone();
    if let Some(h) = &s.help {
        extra.push(h.clone());
    }
    let confirm = s.confirm.take();
    if let (Some((_, text)), None) = (&confirm, current) {
        extra.push(text.clone());
    }
    let mut lines: Vec<LineVars> = s.lines.iter().map(Line::vars).collect();
    if let Some(words) = &s.unproven {
        lines = stranger::scrub(lines, words);
    }
    let letter = Reply {
        refused_only,
        lines,
        reports: vec![],
        extra: extra.join("\n"),
    };
    let in_reply_to = s.in_reply_to.clone();
    match current {
        Some((gid, seat)) => {
            let g = match s.fresh.take() {
                Some(g) if g.row.id == gid => g,
                _ => gamelog::load(tx, gid)?,
            };
            if g.seat(seat).and_then(|x| x.email.as_deref()) == Some(from) {
                compose::to_seat(tx, ctx, &g, seat, &letter, in_reply_to)?;
            }
            if let Some((code, text)) = confirm {
                requests::send_confirmation(tx, ctx, from, &code, text)?;
            }
            Ok(())
        }
        None => {
            // A seated player who wrote to the plain address is answered from their seat's
            // secret address (it goes only to the address on record): replying plays.
            let home = match confirm {
                None => home_seat(tx, from, s.subject_game)?,
                Some(_) => None,
            };
            let mut letter = letter;
            if let Some((g, _)) = &home {
                // Anyone can forge a player's From: this answer, in the game's thread with a
                // Reply-To that plays, quotes no line it did not run.
                let before = letter.lines.len();
                letter.lines.retain(|l| l.status == LineStatus::Ok);
                let n = before - letter.lines.len();
                let said = match n {
                    0 => String::new(),
                    n => format!(
                        "{n} line(s) of your mail were not played: mail about a game must \
                         come from its secret reply address. "
                    ),
                };
                letter.extra.push_str(&format!(
                    "\n\n{said}To play in game #{}, reply to this mail: its reply address is \
                     your secret address for that game.",
                    g.row.id
                ));
            }
            let body = compose::render(ctx, &letter)?;
            let mut draft = Draft {
                kind: letter.kind(),
                game: s.game,
                to: from.to_string(),
                reply_to: None,
                subject: "Re: [pbem] your mail".into(),
                body,
                in_reply_to,
                refs: vec![],
                html: None,
                picture: compose::illustrate::wanted(None),
            };
            if let Some((code, _)) = confirm {
                let c = requests::confirmation_draft(ctx, from, &code, String::new());
                draft.reply_to = c.reply_to;
                draft.subject = c.subject;
            }
            if let Some((g, token)) = home {
                draft.reply_to = Some(ctx.cfg.seat_address(&token));
                draft.subject = format!("Re: {}", compose::game_subject(&g));
                draft.game = Some(g.row.id);
                draft.refs = vec![compose::thread_root(ctx.cfg, g.row.id)];
            }
            compose::enqueue(tx, ctx, draft)
        }
    }
}

/// The game (and the seat's secret token) a seated player's unauthenticated mail is about:
/// the game its subject names, else their only game still on.
fn home_seat(
    tx: &Tx,
    from: &str,
    subject_game: Option<i64>,
) -> anyhow::Result<Option<(Loaded, String)>> {
    let mut live = Vec::new();
    for (game, seat) in tx.seats_of(from)? {
        if tx
            .game(game)?
            .is_some_and(|r| r.status != GameStatus::Finished)
        {
            live.push((game, seat));
        }
    }
    let pick = match subject_game {
        Some(n) => live.iter().find(|(g, _)| *g == n).copied(),
        None if live.len() == 1 => live.first().copied(),
        None => None,
    };
    let Some((game, seat)) = pick else {
        return Ok(None);
    };
    let g = gamelog::load(tx, game)?;
    let token = g.seat(seat).and_then(|s| s.token.clone());
    Ok(token.map(|t| (g, t)))
}
