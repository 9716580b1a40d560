//! A seat's game lines, handed to the GM (`gm::submit`, which decides the turn), and its answer put in the seat's reply.

use super::note::Fate;
use super::{session::Session, Line};
use crate::compose::Ctx;
use crate::gamelog::{self, Loaded};
use crate::games::{PlyError, ToAct};
use crate::gm::{self, By, Gm, Intent, LineOutcome, Turn};
use chrono::Duration;

/// Plays the game lines gathered so far for the mail's current game and seat: the GM
/// decides (`gm::submit`); the reply says what became of each line and what followed.
pub(super) fn flush(
    ctx: &Ctx,
    s: &mut Session,
    lines: &mut Vec<String>,
    current: Option<(i64, usize)>,
    msg_id: i64,
    gm: &mut Gm,
) -> anyhow::Result<()> {
    if lines.is_empty() {
        return Ok(());
    }
    let lines = std::mem::take(lines);
    s.fresh = None;
    let Some((game_id, seat)) = current else {
        return Ok(());
    };
    let mut g = gamelog::load(gm.tx, game_id)?;
    // Orders change the game outside `g` (pending orders, an early deadline): not reusable.
    let reusable = !matches!(g.game.to_act(), ToAct::Orders(_));
    let turn = Turn {
        seat,
        lines: &lines,
        guard: s.guard,
        moved: s.moved,
        by: By::Mail(msg_id),
        intent: Intent::AsTheTurnAllows,
        early: Duration::seconds(ctx.cfg.early_resolve_secs),
    };
    let sub = gm::submit(gm, &mut g, &turn)?;
    let all_void = sub
        .lines
        .iter()
        .all(|l| !matches!(l, LineOutcome::Ordered(_)));
    s.moved |= sub.moved();
    if let Some(ply) = sub.ply {
        s.my_ply = Some((game_id, ply));
    }
    for (line, outcome) in lines.iter().zip(sub.lines) {
        s.lines.push(line_of(line, outcome));
    }
    if let Some(played) = &sub.played {
        // The reply already echoes the seat's own ply: only what followed it is listed.
        reply_played(s, &g, played, seat, 1);
    }
    if sub.unplanned {
        s.extra
            .push("None of the outcomes you planned can be played: reply with your choice.".into());
    }
    if sub.ordered && all_void {
        s.headline = Some(
            "Your orders are all void: your units hold unless you send valid orders before \
             the turn is adjudicated."
                .into(),
        );
    }
    if sub.ordered {
        s.extra.push(
            "Your orders for this turn are recorded (they replace any you sent before). \
             Nobody sees them before the turn is adjudicated; you may change them until then."
                .into(),
        );
    }
    if reusable {
        s.fresh = Some(g);
    }
    Ok(())
}

/// One line of the reply from what the GM made of it.
fn line_of(line: &str, outcome: LineOutcome) -> Line {
    match outcome {
        LineOutcome::Played(first) => Line::played(line, first),
        LineOutcome::Planned => Line::with(Fate::Planned, line, None, None),
        LineOutcome::Ordered(c) => Line::with(Fate::Ordered, line, Some(c), None),
        LineOutcome::Void(why) => Line::with(Fate::Void, line, None, Some(why)),
        LineOutcome::NotAnOrder => Line::with(
            Fate::Ignored,
            line,
            None,
            Some("not an order: only you see this line".into()),
        ),
        LineOutcome::NotAMove(why) => {
            Line::with(Fate::Ignored, line, None, Some(not_a_move(why.as_ref())))
        }
        LineOutcome::Refused(why) => Line::no(line, why.to_string()),
    }
}

/// Why a line was ignored, in the reply's words: the reader's reason only where the GM judged
/// the line a possible mistyped move (`gm::submit`).
fn not_a_move(why: Option<&PlyError>) -> String {
    match why {
        Some(e) => format!("not a move or command ({e})"),
        None => "not a move or command".into(),
    }
}

/// What the GM played on a seat's mail (its plies after the first `skip`, and the reports)
/// goes into that seat's reply (the other seats were told by the GM).
pub(super) fn reply_played(
    s: &mut Session,
    g: &Loaded,
    played: &gm::Played,
    seat: usize,
    skip: usize,
) {
    s.note_plies(g, played);
    for (actor, ply) in played.plies.iter().skip(skip) {
        let said = crate::compose::letters::said(g, *actor, ply);
        if !said.is_empty() {
            s.extra.push(said);
        }
    }
    s.extra.extend(played.reports.iter().cloned());
    // What only this seat may read (its own plan's moves that could not be played).
    let private = played.private.iter().filter(|(x, _)| *x == seat);
    s.extra.extend(private.map(|(_, t)| t.clone()));
    s.ended |= played.finished;
}
