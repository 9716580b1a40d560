//! The path of one inbound mail: store raw, guard, authenticate, run commands and orders, queue replies — in one transaction.

use std::collections::BTreeMap;

use anyhow::anyhow;
use chrono::Duration;
use serde_json::{json, Value};

use crate::commands::{self, Command};
use crate::compose::{self, Ctx, Draft};
use crate::dice::DiceSource;
use crate::gamelog::{self, Loaded};
use crate::games::{Actor, AnyGame, GameKind, PlyError, ToAct};
use crate::gm::{self, GameSpec, Secrets};
use crate::mail::inbound::{self, Inbound};
use crate::store::{Store, Tx};
use crate::{fault, help, orders, password};

/// The key a raw message is deduplicated by: its Message-ID, else a hash of its bytes.
pub fn dedupe_key(inb: &Inbound) -> String {
    match &inb.message_id {
        Some(id) if !id.trim().is_empty() => format!("mid:{}", id.trim()),
        _ => format!("sha256:{}", inb.content_hash),
    }
}

/// Stores a raw message durably; `None` when the same message was stored before.
pub fn store_raw(store: &mut Store, raw: &[u8], ctx: &Ctx) -> anyhow::Result<Option<i64>> {
    let inb = inbound::parse(raw);
    let key = dedupe_key(&inb);
    store.tx(|tx| tx.insert_message(&key, raw, ctx.now))
}

/// How a message ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Handled {
    pub status: &'static str,
    pub note: String,
}

/// Processes one stored message, all of its effects in one transaction with its status.
/// Processing a message that is no longer `new` does nothing (so a retry is harmless).
pub fn process(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    dice: Option<&mut dyn DiceSource>,
) -> anyhow::Result<Option<Handled>> {
    store.tx(|tx| {
        let h = process_in(tx, ctx, id, dice)?;
        fault::point("process:before-commit");
        Ok(h)
    })
}

/// Processes every stored message not yet processed, many in one transaction so their
/// commits share one fsync. Each message runs in isolation (`isolated`): one that fails is
/// rolled back alone and marked `failed` for the GM (`pbem inbox`), and the rest still commit.
pub fn process_batch(store: &mut Store, ctx: &Ctx, limit: usize) -> anyhow::Result<usize> {
    store.tx(|tx| {
        let ids = tx.new_messages()?;
        let mut n = 0;
        for id in ids.into_iter().take(limit) {
            let Some(msg) = tx.message(id)? else {
                continue;
            };
            let inb = inbound::parse(&msg.raw);
            isolated(tx, id, inb.from.as_deref(), || {
                process_parsed(tx, ctx, id, &inb, None)
            })?;
            n += 1;
        }
        fault::point("process:before-commit");
        Ok(n)
    })
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
            tx.finish_message(id, "failed", &reason, from, None)?;
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
) -> anyhow::Result<Option<Handled>> {
    let Some(msg) = tx.message(id)? else {
        return Ok(None);
    };
    if msg.status != "new" {
        return Ok(None);
    }
    process_parsed(tx, ctx, id, &inbound::parse(&msg.raw), dice).map(Some)
}

/// Processes a stored message already parsed, and records how it ended.
fn process_parsed(
    tx: &Tx,
    ctx: &Ctx,
    id: i64,
    inb: &Inbound,
    dice: Option<&mut dyn DiceSource>,
) -> anyhow::Result<Handled> {
    if fault::keyed("process:panic").is_some_and(|marker| inb.subject.contains(marker)) {
        panic!("fault injected: process:panic in message {id}");
    }
    let (h, game) = handle(tx, ctx, id, inb, dice)?;
    tx.finish_message(id, h.status, &h.note, inb.from.as_deref(), game)?;
    Ok(h)
}

/// Stores a raw message and processes it in the same transaction (one fsync). Processing
/// runs isolated (`isolated`): if it fails or panics, the raw message still commits, marked
/// `failed`. `None` when the message was stored before.
pub fn store_and_process(store: &mut Store, raw: &[u8], ctx: &Ctx) -> anyhow::Result<Option<i64>> {
    let inb = inbound::parse(raw);
    store.tx(|tx| {
        let id = store_then_process(tx, ctx, raw, &inb)?;
        fault::point("process:before-commit");
        Ok(id)
    })
}

/// Stores many raw messages and processes the new ones, all in one commit (one fsync for
/// the lot), each isolated. `true` for each message that was new.
pub fn store_and_process_batch(
    store: &mut Store,
    raws: &[Vec<u8>],
    ctx: &Ctx,
) -> anyhow::Result<Vec<bool>> {
    let parsed: Vec<Inbound> = raws.iter().map(|r| inbound::parse(r)).collect();
    store.tx(|tx| {
        let mut fresh = Vec::with_capacity(raws.len());
        for (raw, inb) in raws.iter().zip(&parsed) {
            fresh.push(store_then_process(tx, ctx, raw, inb)?.is_some());
        }
        fault::point("process:before-commit");
        Ok(fresh)
    })
}

/// Inside the caller's transaction: stores one raw message (unless it is a duplicate) and
/// processes it isolated; a failure leaves it stored, marked `failed`.
fn store_then_process(
    tx: &Tx,
    ctx: &Ctx,
    raw: &[u8],
    inb: &Inbound,
) -> anyhow::Result<Option<i64>> {
    let Some(id) = tx.insert_message(&dedupe_key(inb), raw, ctx.now)? else {
        return Ok(None);
    };
    fault::point("ingest:after-store");
    isolated(tx, id, inb.from.as_deref(), || {
        process_parsed(tx, ctx, id, inb, None)
    })?;
    Ok(Some(id))
}

fn done(note: impl Into<String>) -> Handled {
    Handled {
        status: "done",
        note: note.into(),
    }
}

fn refused(note: impl Into<String>) -> Handled {
    Handled {
        status: "refused",
        note: note.into(),
    }
}

/// One line of a reply: what the player wrote and what became of it.
#[derive(Debug, Clone, Default)]
struct Line {
    status: &'static str,
    text: String,
    canonical: Option<String>,
    reason: Option<String>,
}

impl Line {
    fn ok(text: &str, canonical: Option<String>) -> Line {
        Line {
            status: "ok",
            text: text.to_string(),
            canonical,
            reason: None,
        }
    }
    fn no(text: &str, reason: impl Into<String>) -> Line {
        Line {
            status: "refused",
            text: text.to_string(),
            canonical: None,
            reason: Some(reason.into()),
        }
    }
    fn json(&self) -> Value {
        json!({"status": self.status, "text": self.text, "canonical": self.canonical, "reason": self.reason})
    }
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

fn handle(
    tx: &Tx,
    ctx: &Ctx,
    msg_id: i64,
    inb: &Inbound,
    dice: Option<&mut dyn DiceSource>,
) -> anyhow::Result<(Handled, Option<i64>)> {
    // The loop and junk guard: recorded, never answered.
    let ours = vec![ctx.cfg.address.clone()];
    if let Some(r) = inbound::refusal(inb, &ours, ctx.cfg.max_message_bytes) {
        return Ok((refused(format!("{}: {}", r.code, r.reason)), None));
    }
    let Some(from) = inb.from.clone() else {
        return Ok((refused("no usable From address"), None));
    };
    if ctx.cfg.is_ours(&from) {
        return Ok((refused("loop: mail from our own address"), None));
    }
    let since = ctx.now - Duration::hours(1);
    if tx.replies_since(&from, since)? >= ctx.cfg.replies_per_hour {
        tx.log_event(None, ctx.now, &format!("rate limit: {from} not answered"))?;
        return Ok((
            refused("rate limit: too many replies to this address in the last hour"),
            None,
        ));
    }
    let cmds = commands::parse(&orders::player_lines(&inb.body));
    let in_reply_to = inb.message_id.as_ref().map(|m| format!("<{m}>"));

    // Authentication: the secret reply address with the registered sender, or a password.
    let token = inb.recipients().iter().find_map(|a| ctx.cfg.token_in(a));
    let mut auth = Auth::None;
    if let Some(token) = &token {
        match tx.seat_by_token(token)? {
            Some((game, seat)) => {
                let on_record = tx.seat_email(game, seat)?;
                if on_record.as_deref() == Some(from.as_str()) {
                    auth = Auth::Seat(game, seat);
                } else {
                    let g = gamelog::load(tx, game)?;
                    refuse_auth(tx, ctx, &g, on_record.as_deref(), &from, &inb.subject)?;
                    return Ok((
                        refused(format!(
                            "spoofed: {from} wrote to the reply address of seat {} of game {game}",
                            g.game.seat_name(seat)
                        )),
                        Some(game),
                    ));
                }
            }
            None => {
                tx.log_event(
                    None,
                    ctx.now,
                    &format!("mail from {from} to an unknown reply address"),
                )?;
            }
        }
    }
    if let Some(pw) = cmds.iter().find_map(|c| match c {
        Command::Password(p) => Some(p.clone()),
        _ => None,
    }) {
        match tx.password_hash(&from)? {
            Some(h) if password::verify(&pw, &h) => {
                if matches!(auth, Auth::None) {
                    auth = Auth::Password;
                }
            }
            _ => {
                let seats = tx.seats_of(&from)?;
                if let Some((game, _)) = seats.first() {
                    let g = gamelog::load(tx, *game)?;
                    refuse_auth(tx, ctx, &g, Some(&from), &from, &inb.subject)?;
                }
                return Ok((refused(format!("wrong password from {from}")), None));
            }
        }
    }

    // Which game the game lines are for.
    let subject_game = orders::subject_game_id(&inb.subject);
    let mut current: Option<(i64, usize)> = match auth {
        Auth::Seat(g, s) => Some((g, s)),
        _ => None,
    };
    let pick = |tx: &Tx, wanted: Option<i64>| -> anyhow::Result<Option<(i64, usize)>> {
        let seats = tx.seats_of(&from)?;
        Ok(match wanted {
            Some(w) => seats.into_iter().find(|(g, _)| *g == w),
            None => {
                let active: Vec<(i64, usize)> = seats
                    .into_iter()
                    .filter(|(g, _)| {
                        tx.game(*g)
                            .ok()
                            .flatten()
                            .is_some_and(|r| r.status == "active")
                    })
                    .collect();
                (active.len() == 1).then(|| active[0])
            }
        })
    };
    if matches!(auth, Auth::Password) {
        current = pick(tx, subject_game)?;
    }

    let mut session = Session {
        lines: Vec::new(),
        extra: Vec::new(),
        game: None,
        // A `#12` guard anywhere in the mail applies to all of its moves.
        guard: cmds.iter().find_map(|c| match c {
            Command::Guard(n) => Some(*n),
            _ => None,
        }),
        moved: false,
        help: None,
        fresh: None,
    };
    let mut touched: Option<i64> = current.map(|c| c.0);
    let mut dice = dice;
    let mut unauth_game_lines = 0;
    let mut game_lines: Vec<String> = Vec::new();
    for cmd in &cmds {
        if let Command::UseGame(id) = cmd {
            flush(
                tx,
                ctx,
                &mut session,
                &mut game_lines,
                current,
                msg_id,
                &mut dice,
            )?;
            if matches!(auth, Auth::None) {
                session.lines.push(Line::no(
                    &format!("GAME {id}"),
                    "send it from your secret reply address or with your PASSWORD",
                ));
                continue;
            }
            match pick(tx, Some(*id))? {
                Some(c) if matches!(auth, Auth::Password) || Some(c) == current => {
                    current = Some(c);
                    touched = Some(c.0);
                    session.lines.push(Line::ok(&format!("GAME {id}"), None));
                }
                _ => session.lines.push(Line::no(
                    &format!("GAME {id}"),
                    format!("you have no seat in game {id}"),
                )),
            }
            continue;
        }
        if let Command::Game(text) = cmd {
            if current.is_none() {
                unauth_game_lines += 1;
                session.lines.push(Line::no(
                    text,
                    format!("not played: {}", no_game_reason(&auth)),
                ));
            } else {
                game_lines.push(text.clone());
            }
            continue;
        }
        flush(
            tx,
            ctx,
            &mut session,
            &mut game_lines,
            current,
            msg_id,
            &mut dice,
        )?;
        if cmd.needs_game() && current.is_none() {
            let text = command_text(cmd);
            session.lines.push(Line::no(&text, no_game_reason(&auth)));
            unauth_game_lines += 1;
            continue;
        }
        run_command(tx, ctx, &mut session, cmd, current, &from, &auth, &mut dice)?;
    }
    flush(
        tx,
        ctx,
        &mut session,
        &mut game_lines,
        current,
        msg_id,
        &mut dice,
    )?;

    // Strangers get no answer to game lines: only registered addresses are ever told.
    let registered = !tx.seats_of(&from)?.is_empty();
    if matches!(auth, Auth::None)
        && unauth_game_lines > 0
        && !registered
        && session.extra.is_empty()
        && session.help.is_none()
    {
        return Ok((
            refused(format!(
                "unauthenticated game lines from unknown address {from}"
            )),
            None,
        ));
    }
    // An empty mail (or all quoted text): say how to play rather than stay silent.
    if cmds.is_empty() && session.extra.is_empty() && session.help.is_none() {
        session.help = Some(help_text(ctx, None)?);
    }
    let fresh = session.fresh.take();
    reply(tx, ctx, &session, fresh, current, &from, in_reply_to)?;
    let note = format!("{} line(s) answered", session.lines.len());
    Ok((done(note), touched.or(session.game)))
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
    guard: Option<u32>,
    moved: bool,
    help: Option<String>,
    /// The game as the last move left it, reused for the reply (so it is not rebuilt from
    /// its log again); dropped by anything that changes a game outside it.
    fresh: Option<Loaded>,
}

fn command_text(cmd: &Command) -> String {
    match cmd {
        Command::Game(t) => t.clone(),
        Command::Guard(n) => format!("#{n}"),
        Command::Password(_) => "PASSWORD (hidden)".into(),
        Command::Salt(s) => format!("SALT {s}"),
        Command::Press { to, .. } => format!("PRESS TO {}", to.join(", ")),
        Command::Bad { line, .. } => line.clone(),
        other => format!("{other:?}").to_ascii_uppercase(),
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
            for l in &lines {
                s.lines.push(Line::no(l, format!("not played: you wrote #{n}, but the game is at #{at} (the position changed since; see the board below)")));
            }
            return Ok(());
        }
    }
    if g.row.status != "active" {
        for l in &lines {
            s.lines.push(Line::no(
                l,
                format!("not played: the game is {}", g.row.status),
            ));
        }
        return Ok(());
    }
    match g.game.to_act() {
        ToAct::Orders(seats) if seats.contains(&seat) => {
            let checked = g.game.check_orders(seat, &lines);
            for (l, r) in lines.iter().zip(&checked) {
                s.lines.push(match r {
                    Ok(c) => Line::ok(l, Some(c.clone())),
                    Err(e) => Line {
                        status: "void",
                        text: l.clone(),
                        canonical: None,
                        reason: Some(e.clone()),
                    },
                });
            }
            tx.set_pending(game_id, seat, "orders", &lines, ctx.now)?;
            s.extra.push(
                "Your orders for this turn are recorded (they replace any you sent before). \
                 Nobody sees them before the turn is adjudicated; you may change them until then."
                    .into(),
            );
            let pending = tx.pending(game_id, "orders")?;
            if seats.iter().all(|x| pending.iter().any(|(p, _)| p == x)) {
                let soon = ctx.now + Duration::seconds(ctx.cfg.early_resolve_secs);
                if g.row.deadline.is_none_or(|d| d > soon) {
                    tx.set_deadline(game_id, Some(soon))?;
                    tx.set_reminded(game_id)?;
                }
            }
            s.moved = true;
        }
        ToAct::Orders(_) => {
            for l in &lines {
                s.lines.push(Line::no(
                    l,
                    "not played: you have no orders to give this turn",
                ));
            }
        }
        ToAct::Seat(to_move) if to_move == seat => {
            if s.moved {
                for l in &lines {
                    s.lines.push(Line::no(l, "not played: one move per mail"));
                }
                return Ok(());
            }
            // A declaration with outcomes planned per roll (d4 d6 chess, Siberian Dice).
            if lines.len() > 1 {
                if let Some(plan) = g.game.conditional(&lines) {
                    // The plan is stored first: the roll that follows the declaration reads it.
                    gm::store_plan(tx, game_id, seat, &plan.outcomes, ctx.now)?;
                    let res = gm::play(
                        tx,
                        &mut g,
                        Actor::Seat(seat),
                        &plan.declaration,
                        ctx.now,
                        Some(msg_id),
                        reborrow(dice),
                    )?;
                    match res {
                        Err(e) => {
                            tx.clear_pending(game_id, "plan")?;
                            s.lines.push(Line::no(&lines[0], e.to_string()));
                            for l in &lines[1..] {
                                s.lines
                                    .push(Line::no(l, "not played: the declaration was refused"));
                            }
                        }
                        Ok(played) => {
                            let first = played.plies.first().map(|p| p.1.clone());
                            s.lines.push(Line::ok(&lines[0], first));
                            for l in &lines[1..] {
                                s.lines.push(Line::ok(l, None));
                            }
                            after_move(tx, ctx, s, &g, &played, seat)?;
                        }
                    }
                    return Ok(());
                }
            }
            // The first line that reads as a move is the move; prose that is not notation
            // is ignored (and said so); once a move was tried, later move lines are not.
            let mut tried = false;
            for line in &lines {
                if tried || s.moved {
                    s.lines.push(Line::no(
                        line,
                        "not played: one move per mail (only the first move counts)",
                    ));
                    continue;
                }
                let res = gm::play(
                    tx,
                    &mut g,
                    Actor::Seat(seat),
                    line,
                    ctx.now,
                    Some(msg_id),
                    reborrow(dice),
                )?;
                match res {
                    Ok(played) => {
                        let first = played.plies.first().map(|p| p.1.clone());
                        s.lines.push(Line::ok(line, first));
                        after_move(tx, ctx, s, &g, &played, seat)?;
                    }
                    Err(e @ PlyError::Syntax(_)) => s.lines.push(Line {
                        status: "ignored",
                        text: line.clone(),
                        canonical: None,
                        reason: Some(format!("not a move or command ({e})")),
                    }),
                    Err(e) => {
                        s.lines.push(Line::no(line, e.to_string()));
                        tried = true;
                    }
                }
            }
        }
        _ => {
            let who = gm::to_act_text(&g);
            for l in &lines {
                s.lines.push(Line::no(
                    l,
                    format!("not played: it is not your turn ({who})"),
                ));
            }
        }
    }
    if reusable {
        s.fresh = Some(g);
    }
    Ok(())
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
    for (actor, ply) in played.plies.iter().skip(skip) {
        let who = crate::records::actor_name(&g.game, *actor);
        s.extra.push(format!("then {who}: {ply}"));
    }
    s.extra.extend(played.reports.iter().cloned());
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
    }
    let load = |tx: &Tx| -> anyhow::Result<Option<(Loaded, usize)>> {
        Ok(match current {
            Some((g, seat)) => Some((gamelog::load(tx, g)?, seat)),
            None => None,
        })
    };
    match cmd {
        Command::Guard(_) => {}
        Command::Password(_) => {}
        Command::Bad { line, reason } => s.lines.push(Line::no(line, reason.clone())),
        Command::Help(game) => {
            let kind = game.as_deref().and_then(GameKind::parse);
            if let (Some(g), None) = (game, kind) {
                s.lines.push(Line::no(
                    &format!("HELP {g}"),
                    "no such game; the list is below",
                ));
            }
            s.help = Some(help_text(ctx, kind)?);
        }
        Command::List => {
            let mut out = String::from("Your games:\n");
            let seats = tx.seats_of(from)?;
            if seats.is_empty() {
                out.push_str("  none\n");
            }
            for (gid, seat) in seats {
                let g = gamelog::load(tx, gid)?;
                out.push_str(&format!(
                    "  #{gid} {} ({}), you play {}: {}\n",
                    g.kind().title(),
                    g.row.status,
                    g.game.seat_name(seat),
                    g.game.to_act_text()
                ));
            }
            let open: Vec<String> = tx
                .games(Some("open"))?
                .iter()
                .map(|r| format!("  #{} {}", r.id, r.kind))
                .collect();
            if !open.is_empty() {
                out.push_str("Games with open seats (JOIN <number>):\n");
                out.push_str(&open.join("\n"));
                out.push('\n');
            }
            s.extra.push(out);
        }
        Command::New { game, options } => {
            let Some(kind) = GameKind::parse(game) else {
                let names: Vec<&str> = GameKind::ALL.iter().map(|k| k.name()).collect();
                s.lines.push(Line::no(
                    &text,
                    format!("no game '{game}' (games: {})", names.join(", ")),
                ));
                return Ok(());
            };
            let mut opts = crate::games::Options::new();
            for o in options {
                match o.split_once('=') {
                    Some((k, v)) => {
                        opts.insert(k.to_ascii_lowercase(), v.to_string());
                    }
                    None => {
                        s.lines.push(Line::no(
                            &text,
                            format!("option '{o}' must be written name=value"),
                        ));
                        return Ok(());
                    }
                }
            }
            let probe = match AnyGame::new(kind, &opts) {
                Ok(g) => g,
                Err(e) => {
                    s.lines.push(Line::no(&text, e));
                    return Ok(());
                }
            };
            let first_seat = probe.seat_name(0).to_string();
            let spec = GameSpec {
                kind: Some(kind),
                options: opts,
                players: vec![(first_seat.clone(), from.to_string())],
                event: None,
                move_secs: ctx.cfg.move_secs,
                position: None,
            };
            let secrets = new_secrets(probe.seat_names().len())?;
            let id = gm::create_game(tx, &spec, &secrets, ctx.now)?;
            s.game = Some(id);
            s.lines.push(Line::ok(
                &text,
                Some(format!("game #{id} created; you play {first_seat}")),
            ));
            s.extra.push(format!(
                "Game #{id} waits for players: they send JOIN {id}. Everybody gets a welcome mail with their secret reply address when the seats are full."
            ));
            after_join(tx, ctx, id, reborrow(dice))?;
        }
        Command::Join { game, seat } => {
            let Some(row) = tx.game(*game)? else {
                s.lines
                    .push(Line::no(&text, format!("there is no game {game}")));
                return Ok(());
            };
            if row.status != "open" {
                s.lines.push(Line::no(
                    &text,
                    format!("game {game} has no open seat (it is {})", row.status),
                ));
                return Ok(());
            }
            let g = gamelog::load(tx, *game)?;
            if g.seats.iter().any(|x| x.email.as_deref() == Some(from)) {
                s.lines
                    .push(Line::no(&text, format!("you already play in game {game}")));
                return Ok(());
            }
            let open: Vec<usize> = g
                .seats
                .iter()
                .filter(|x| x.email.is_none())
                .map(|x| x.seat)
                .collect();
            let target = match seat {
                Some(name) => match g.game.seat_by_name(name) {
                    Some(x) if open.contains(&x) => Some(x),
                    _ => {
                        s.lines.push(Line::no(
                            &text,
                            format!("seat {name} is not open in game {game}"),
                        ));
                        return Ok(());
                    }
                },
                None => open.first().copied(),
            };
            let Some(target) = target else {
                s.lines.push(Line::no(&text, "no open seat"));
                return Ok(());
            };
            let player = tx.player_id(from)?;
            tx.fill_seat(*game, target, player, &gm::new_token()?)?;
            s.game = Some(*game);
            s.lines.push(Line::ok(
                &text,
                Some(format!(
                    "you play {} in game #{game}",
                    g.game.seat_name(target)
                )),
            ));
            after_join(tx, ctx, *game, reborrow(dice))?;
        }
        Command::Vacation(days) => {
            if matches!(auth, Auth::None) {
                s.lines.push(Line::no(
                    &text,
                    "send VACATION from your secret reply address or with your PASSWORD",
                ));
                return Ok(());
            }
            let until = days.map(|d| ctx.now + Duration::days(i64::from(d)));
            tx.set_vacation(from, until)?;
            s.lines.push(Line::ok(
                &text,
                Some(match until {
                    Some(u) => format!(
                        "your clocks are paused until {}",
                        u.format("%Y-%m-%d %H:%M UTC")
                    ),
                    None => "vacation ended: your clocks run again".into(),
                }),
            ));
        }
        Command::Salt(salt) => {
            let Some((g, seat)) = load(tx)? else {
                return Ok(());
            };
            if !g.kind().rolls_dice() {
                s.lines.push(Line::no(
                    &text,
                    no_dice_reason(&g, "there is nothing to salt"),
                ));
                return Ok(());
            }
            if !gm::salts_open(&g.row, ctx.now) {
                s.lines.push(Line::no(&text, salts_closed_reason(&g)));
                return Ok(());
            }
            match crate::dice::normalize_salt(salt) {
                Err(e) => s.lines.push(Line::no(&text, e)),
                Ok(norm) => {
                    let mut pairs = gm::salt_pairs(&g.row)?;
                    pairs.push((seat, norm));
                    tx.set_salts(g.row.id, &serde_json::to_string(&pairs)?)?;
                    let salts = crate::dice::salts_in_order(&pairs);
                    s.lines.push(Line::ok(
                        &text,
                        Some(format!("salt recorded; salts now: {}", salts.join(" | "))),
                    ));
                }
            }
        }
        Command::Start => {
            let Some((mut g, seat)) = load(tx)? else {
                return Ok(());
            };
            if g.row.status != "active" {
                let why = match g.row.status.as_str() {
                    "open" => "the game starts when every seat is taken".to_string(),
                    other => format!("the game is {other}"),
                };
                s.lines.push(Line::no(&text, why));
                return Ok(());
            }
            if !g.kind().rolls_dice() {
                s.lines.push(Line::no(
                    &text,
                    no_dice_reason(&g, "there are no salts to wait for"),
                ));
                return Ok(());
            }
            if g.row.salts_fixed {
                s.lines.push(Line::no(&text, salts_closed_reason(&g)));
                return Ok(());
            }
            let played = gm::ready(tx, &mut g, seat, ctx.now, reborrow(dice))?;
            let note = if g.row.salts_fixed {
                "every player is ready"
            } else {
                "you are ready; the salts are fixed once every player is"
            };
            s.lines.push(Line::ok(&text, Some(note.to_string())));
            if !played.plies.is_empty() || !played.reports.is_empty() {
                tell_played(tx, ctx, s, &g, &played, seat, 0)?;
            }
        }
        Command::Board => {
            if let Some((g, _)) = load(tx)? {
                s.extra.push(g.game.board());
            }
        }
        Command::Status => {
            if let Some((g, seat)) = load(tx)? {
                let mut out = format!(
                    "Game #{} {} ({}), you play {}. {}.\n",
                    g.row.id,
                    g.kind().title(),
                    g.row.status,
                    g.game.seat_name(seat),
                    gm::to_act_text(&g)
                );
                if let Some(d) = g.row.deadline {
                    out.push_str(&format!("Deadline: {}\n", d.format("%Y-%m-%d %H:%M UTC")));
                }
                for x in &g.seats {
                    out.push_str(&format!(
                        "  {}: {}\n",
                        g.game.seat_name(x.seat),
                        x.email.as_deref().unwrap_or("(open)")
                    ));
                }
                s.extra.push(out);
            }
        }
        Command::History => {
            if let Some((g, _)) = load(tx)? {
                s.extra.push(format!(
                    "The game so far:\n{}",
                    crate::records::write(&[], &g.start, &g.plies()?).map_err(|e| anyhow!(e))?
                ));
            }
        }
        Command::Moves => {
            if let Some((g, seat)) = load(tx)? {
                let mine = matches!(g.game.to_act(), ToAct::Seat(x) if x == seat)
                    || matches!(g.game.to_act(), ToAct::Orders(ref xs) if xs.contains(&seat));
                if mine {
                    let legal = g.game.legal_plies();
                    s.extra.push(if legal.is_empty() {
                        "You have no legal move listed.".into()
                    } else {
                        format!(
                            "Your legal moves ({}):\n{}",
                            legal.len(),
                            wrap(&legal.join("  "), 70)
                        )
                    });
                } else {
                    s.extra
                        .push(format!("It is not your turn: {}.", gm::to_act_text(&g)));
                }
            }
        }
        Command::Resign => {
            let Some((mut g, seat)) = load(tx)? else {
                return Ok(());
            };
            if g.row.status != "active" {
                s.lines
                    .push(Line::no(&text, format!("the game is {}", g.row.status)));
                return Ok(());
            }
            match gm::play_with(tx, &mut g, Actor::Seat(seat), ctx.now, |game| {
                game.resign(seat)
            })? {
                Err(e) => s.lines.push(Line::no(&text, e.to_string())),
                Ok(played) => {
                    s.lines
                        .push(Line::ok(&text, played.plies.first().map(|p| p.1.clone())));
                    let except = if played.finished { None } else { Some(seat) };
                    compose::announce(tx, ctx, &g, &played, except)?;
                }
            }
        }
        Command::DrawOffer | Command::DrawAccept => {
            let Some((mut g, seat)) = load(tx)? else {
                return Ok(());
            };
            if g.row.status != "active" {
                s.lines
                    .push(Line::no(&text, format!("the game is {}", g.row.status)));
                return Ok(());
            }
            tx.set_draw_offer(g.row.id, seat, true)?;
            let offers: Vec<usize> = tx
                .seats(g.row.id)?
                .iter()
                .filter(|x| x.draw_offer)
                .map(|x| x.seat)
                .collect();
            if offers.len() == g.seats.len() {
                match gm::play_with(tx, &mut g, Actor::Gm, ctx.now, |game| game.agree_draw())? {
                    Err(e) => s.lines.push(Line::no(&text, e.to_string())),
                    Ok(played) => {
                        s.lines.push(Line::ok(
                            &text,
                            Some("draw agreed by all: the game is over".into()),
                        ));
                        compose::announce(tx, ctx, &g, &played, None)?;
                    }
                }
            } else {
                s.lines.push(Line::ok(
                    &text,
                    Some("draw offered; the game ends drawn when every player accepts".into()),
                ));
                for x in &g.seats {
                    if x.seat != seat && !x.draw_offer {
                        compose::to_seat(
                            tx,
                            ctx,
                            &g,
                            x.seat,
                            "turn_report",
                            json!({
                                "plies": [], "reports": [format!("{} offers a draw: reply DRAW ACCEPT or DRAW DECLINE.", g.game.seat_name(seat))],
                                "your_turn": false,
                            }),
                            None,
                        )?;
                    }
                }
            }
        }
        Command::DrawDecline => {
            let Some((g, seat)) = load(tx)? else {
                return Ok(());
            };
            tx.clear_draw_offers(g.row.id)?;
            s.lines.push(Line::ok(
                &text,
                Some("draw declined; all offers are withdrawn".into()),
            ));
            for x in &g.seats {
                if x.seat != seat {
                    compose::to_seat(
                        tx,
                        ctx,
                        &g,
                        x.seat,
                        "turn_report",
                        json!({
                            "plies": [], "reports": [format!("{} declines the draw.", g.game.seat_name(seat))], "your_turn": false,
                        }),
                        None,
                    )?;
                }
            }
        }
        Command::Press { to, text: body } => {
            let Some((g, seat)) = load(tx)? else {
                return Ok(());
            };
            let names = g.game.seat_names();
            let targets: Vec<usize> = if to.iter().any(|t| t == "ALL") {
                (0..names.len()).filter(|x| *x != seat).collect()
            } else {
                let mut v = Vec::new();
                for t in to {
                    match g.game.seat_by_name(t) {
                        Some(x) if x != seat => v.push(x),
                        Some(_) => {}
                        None => {
                            s.lines.push(Line::no(
                                &text,
                                format!("no player {t} (players: {})", names.join(", ")),
                            ));
                            return Ok(());
                        }
                    }
                }
                v
            };
            let anonymous = gamelog::options_of(&g.row)?
                .get("press")
                .is_some_and(|p| p == "anonymous");
            let to_text: Vec<&str> = targets.iter().map(|x| names[*x]).collect();
            for x in &targets {
                compose::to_seat(
                    tx,
                    ctx,
                    &g,
                    *x,
                    "press",
                    json!({
                        "from": if anonymous { None } else { Some(names[seat]) },
                        "to": if to.iter().any(|t| t == "ALL") { "all".to_string() } else { to_text.join(", ") },
                        "text": body,
                    }),
                    None,
                )?;
            }
            s.lines.push(Line::ok(
                &text,
                Some(format!("press sent to {}", to_text.join(", "))),
            ));
        }
        Command::Game(_) | Command::UseGame(_) => unreachable!("handled by the caller"),
    }
    Ok(())
}

/// When a game's last open seat is filled: it starts, and every seat gets its welcome.
fn after_join(
    tx: &Tx,
    ctx: &Ctx,
    id: i64,
    dice: Option<&mut dyn DiceSource>,
) -> anyhow::Result<()> {
    let g = gamelog::load(tx, id)?;
    if g.row.status != "open" || g.seats.iter().any(|s| s.email.is_none()) {
        return Ok(());
    }
    tx.set_game_status(id, "active", None, ctx.now)?;
    let mut g = gamelog::load(tx, id)?;
    gm::begin(tx, &mut g, ctx.now, dice)?;
    welcome_all(tx, ctx, &g)
}

/// The welcome mail to every seat: rules summary, players, board, the seat's Reply-To.
pub fn welcome_all(tx: &Tx, ctx: &Ctx, g: &Loaded) -> anyhow::Result<()> {
    let players: Vec<Value> = g
        .seats
        .iter()
        .map(|s| json!({"seat": g.game.seat_name(s.seat), "email": s.email}))
        .collect();
    for s in &g.seats {
        compose::to_seat(
            tx,
            ctx,
            g,
            s.seat,
            "welcome",
            json!({"players": players, "rules": help::summary(g.kind())}),
            None,
        )?;
    }
    Ok(())
}

/// Why SALT or START mean nothing in a game without dice.
fn no_dice_reason(g: &Loaded, so: &str) -> String {
    format!("{} rolls no dice: {so}", g.kind().title())
}

/// Why a SALT or START comes too late.
fn salts_closed_reason(g: &Loaded) -> String {
    match (g.row.salts_fixed, g.row.salts_until) {
        (false, Some(until)) => format!(
            "the salt window closed at {}",
            until.format("%Y-%m-%d %H:%M UTC")
        ),
        _ => "the salts are already fixed".to_string(),
    }
}

fn new_secrets(seats: usize) -> anyhow::Result<Secrets> {
    Secrets::generate(seats)
}

fn help_text(ctx: &Ctx, kind: Option<GameKind>) -> anyhow::Result<String> {
    let games: Vec<String> = GameKind::ALL
        .iter()
        .map(|k| format!("{} ({})", k.name(), k.title()))
        .collect();
    ctx.templates.render(
        "help",
        &json!({"games": games.join(", "), "game_help": kind.map(help::notation)}),
    )
}

/// Answers the sender (at the address on record: the From of an accepted mail).
fn reply(
    tx: &Tx,
    ctx: &Ctx,
    s: &Session,
    fresh: Option<Loaded>,
    current: Option<(i64, usize)>,
    from: &str,
    in_reply_to: Option<String>,
) -> anyhow::Result<()> {
    let refused_only = !s.lines.is_empty() && s.lines.iter().all(|l| l.status != "ok");
    let kind = if refused_only {
        "order_refused"
    } else {
        "move_accepted"
    };
    let mut extra = s.extra.clone();
    if let Some(h) = &s.help {
        extra.push(h.clone());
    }
    let vars = json!({
        "lines": s.lines.iter().map(Line::json).collect::<Vec<_>>(),
        "reports": [],
        "extra": extra.join("\n"),
    });
    match current {
        Some((gid, seat)) => {
            let g = match fresh {
                Some(g) if g.row.id == gid => g,
                _ => gamelog::load(tx, gid)?,
            };
            if g.seat(seat).and_then(|x| x.email.as_deref()) == Some(from) {
                return compose::to_seat(tx, ctx, &g, seat, kind, vars, in_reply_to);
            }
            Ok(())
        }
        None => {
            let body = ctx.templates.render(kind, &vars)?;
            compose::enqueue(
                tx,
                ctx,
                Draft {
                    kind,
                    game: s.game,
                    to: from.to_string(),
                    reply_to: None,
                    subject: "Re: [pbem] your mail".into(),
                    body,
                    in_reply_to,
                    refs: vec![],
                },
            )
        }
    }
}

/// A failed authentication: the address on record is told (never the sender), the GM logs it.
fn refuse_auth(
    tx: &Tx,
    ctx: &Ctx,
    g: &Loaded,
    on_record: Option<&str>,
    sender: &str,
    subject: &str,
) -> anyhow::Result<()> {
    tx.log_event(
        Some(g.row.id),
        ctx.now,
        &format!("refused mail from {sender} (failed authentication)"),
    )?;
    let Some(to) = on_record else { return Ok(()) };
    let body = ctx.templates.render(
        "auth_refusal",
        &json!({"game_id": g.row.id, "sender": sender, "subject": subject}),
    )?;
    compose::enqueue(
        tx,
        ctx,
        Draft {
            kind: "auth_refusal",
            game: Some(g.row.id),
            to: to.to_string(),
            reply_to: None,
            subject: format!("{}: a mail was refused", compose::game_subject(g)),
            body,
            in_reply_to: None,
            refs: vec![compose::thread_root(ctx.cfg, g.row.id)],
        },
    )
}

fn wrap(text: &str, width: usize) -> String {
    let mut out = String::new();
    let mut line = String::new();
    for w in text.split("  ") {
        if !line.is_empty() && line.len() + 2 + w.len() > width {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push_str("  ");
        }
        line.push_str(w);
    }
    out.push_str(&line);
    out
}

/// The orders each seat sent this turn, for adjudication.
pub fn turn_orders(tx: &Tx, game: i64) -> anyhow::Result<BTreeMap<usize, Vec<String>>> {
    Ok(tx.pending(game, "orders")?.into_iter().collect())
}

/// Lends the caller's dice (if any) for one call.
pub fn reborrow<'a>(dice: &'a mut Option<&mut dyn DiceSource>) -> Option<&'a mut dyn DiceSource> {
    match dice {
        Some(d) => Some(&mut **d),
        None => None,
    }
}
