//! A seat's turn as GM operations: orders for a simultaneous turn, a declaration with outcomes planned per roll, and START (done with salts); the mail path and the command line both call them.

use chrono::{DateTime, Duration, Utc};

use super::ops::Refusal;
use super::salts::ready;
use super::{play, store_plan, Gm, News, Played};
use crate::gamelog::Loaded;
use crate::games::{Actor, Conditional, ToAct};
use crate::store::{GameStatus, PendingKind, Tx};

/// How one line of a seat's orders reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum LineCheck {
    /// An order, in its canonical form.
    Order(String),
    /// Written as an order, but void (the unit holds): why.
    Void(String),
    /// Not written in the game's notation at all (a greeting, a sign-off): not an order, not
    /// recorded, not shown to anyone but its sender.
    Prose,
}

/// Each order line's reading, in the order of the lines.
pub(super) type Checked = Vec<LineCheck>;

/// The seat's orders for the current simultaneous turn (`submit` checked that it owes
/// some), replacing any it sent before. Once every seat owing orders has sent some, the turn
/// is adjudicated soon (the game's `early_resolve`, else the server's `early`), unless its
/// deadline comes sooner. Void lines are kept too: the adjudication reports them.
pub(super) fn record_orders(
    tx: &Tx,
    g: &mut Loaded,
    seat: usize,
    lines: &[String],
    now: DateTime<Utc>,
    early: Duration,
) -> anyhow::Result<Checked> {
    // Prose is kept out of the orders: it would be adjudicated as void orders, reported to
    // every player and kept in the record.
    let orders: Vec<String> = lines
        .iter()
        .filter(|l| g.game.is_notation(l))
        .cloned()
        .collect();
    let mut readings = g.game.check_orders(seat, &orders).into_iter();
    let checked = lines
        .iter()
        .map(|l| match g.game.is_notation(l) {
            false => LineCheck::Prose,
            true => match readings.next() {
                Some(Ok(c)) => LineCheck::Order(c),
                Some(Err(why)) => LineCheck::Void(why),
                None => LineCheck::Prose,
            },
        })
        .collect();
    if orders.is_empty() {
        // Nothing but prose: no orders given (any sent before stand).
        return Ok(checked);
    }
    tx.set_pending(g.row.id, seat, PendingKind::Orders, &orders, now)?;
    if !g.ordered.contains(&seat) {
        g.ordered.push(seat);
    }
    if super::all_ordered(g) {
        let early = super::options::of(g)
            .early_resolve_secs
            .map_or(early, Duration::seconds);
        let soon = now + early;
        if g.row.deadline.is_none_or(|d| d > soon) {
            tx.set_deadline(g.row.id, Some(soon))?;
            g.row.deadline = Some(soon);
            tx.set_reminded(g.row.id)?;
        }
    }
    Ok(checked)
}

/// A declaration with its outcomes planned per roll: the plan is kept and the declaration
/// played (the roll that follows reads the plan, `gm::advance`). Outcomes planned for no roll
/// (Siberian Dice where nothing is rolled: the value is known when the plan is read) are tried
/// in order right after the declaration, the first legal one played. A refused declaration
/// keeps no plan.
pub(super) fn play_planned(
    gm: &mut Gm,
    g: &mut Loaded,
    seat: usize,
    plan: &Conditional,
    message: Option<i64>,
) -> anyhow::Result<Result<Played, Refusal>> {
    let (tx, now) = (gm.tx, gm.now);
    let (known, per_roll): (Vec<_>, Vec<_>) = plan
        .outcomes
        .iter()
        .cloned()
        .partition(|(rolls, _)| rolls.is_empty());
    store_plan(tx, g.row.id, seat, &per_roll, now)?;
    let res = play(gm, g, Actor::Seat(seat), &plan.declaration, message)?;
    let mut played = match res {
        Ok(played) => played,
        Err(e) => {
            tx.clear_pending(g.row.id, PendingKind::Plan)?;
            return Ok(Err(e));
        }
    };
    if g.game.to_act() != ToAct::Seat(seat) {
        return Ok(Ok(played));
    }
    for (_, ply) in &known {
        let tried = play(gm, g, Actor::Seat(seat), ply, message)?;
        if let Ok(more) = tried {
            played.plies.extend(more.plies);
            played.reports.extend(more.reports);
            played.private.extend(more.private);
            played.finished |= more.finished;
            break;
        }
    }
    Ok(Ok(played))
}

/// What a seat's START did.
#[derive(Debug)]
pub struct Started {
    /// Whether every seat is now ready (the salts are fixed).
    pub all_ready: bool,
    /// The rolls and plies made once the salts were fixed.
    pub played: Played,
}

/// START: the seat has no more salts to add; once every seat has said so the salts are fixed
/// and the roll that waited for them is made, and the players hear of it (a seat's own mail
/// is answered by its reply).
pub fn start(
    gm: &mut Gm,
    g: &mut Loaded,
    seat: usize,
    by_mail: bool,
) -> anyhow::Result<Result<Started, Refusal>> {
    match g.row.status {
        GameStatus::Active => {}
        GameStatus::Open => return Ok(Err(Refusal::NotStarted)),
        other => return Ok(Err(Refusal::NotActive(other))),
    }
    if !g.kind().rolls_dice() {
        return Ok(Err(Refusal::NoSaltsToWaitFor(g.kind().title())));
    }
    if g.row.salts_fixed {
        return Ok(Err(Refusal::SaltsFixed));
    }
    let played = ready(gm, g, seat)?;
    if !played.plies.is_empty() || !played.reports.is_empty() {
        let except = by_mail.then_some(seat);
        gm.tell(News::Played {
            g,
            played: &played,
            except,
        })?;
    }
    Ok(Ok(Started {
        all_ready: g.row.salts_fixed,
        played,
    }))
}
