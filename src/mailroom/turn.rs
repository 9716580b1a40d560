//! A seat's game lines for its game: orders, a planned declaration or one move, as its turn allows.

use super::note::Fate;
use super::{session::Session, Line};
use crate::compose::Ctx;
use crate::dice::DiceSource;
use crate::gamelog::Loaded;
use crate::games::{Actor, PlyError, ToAct};
use crate::gm::reborrow;
use crate::store::{GameStatus, Tx};
use crate::{compose, gamelog, gm};
use chrono::Duration;

/// Plays the game lines gathered so far: one move (or a conditional plan) in a sequential
/// game; the turn's orders in a simultaneous one.
pub(super) fn flush(
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
pub(super) fn refuse_all(s: &mut Session, lines: &[String], why: &str) {
    for l in lines {
        s.lines.push(Line::no(l, why));
    }
}

/// The seat a mail's move is played for, and the mail it came in.
#[derive(Clone, Copy)]
pub(super) struct Mover {
    pub(super) seat: usize,
    pub(super) msg_id: i64,
}

/// A simultaneous turn: the seat's orders (each understood or void) replace any it sent
/// before (`gm::submit_orders`); the reply says so.
pub(super) fn record_orders(
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
pub(super) fn play_plan(
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
pub(super) fn play_first_move(
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
pub(super) fn not_a_move(line: &str, why: Option<&PlyError>) -> String {
    match why {
        Some(e) if line.chars().any(|c| c.is_ascii_digit()) => {
            format!("not a move or command ({e})")
        }
        _ => "not a move or command".into(),
    }
}

/// After a seat's move: what followed it (rolls, forced plies) and its reports go into the
/// mover's reply, and the other seats get their turn reports.
pub(super) fn after_move(
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
pub(super) fn tell_played(
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
