//! Deadlines: reminders before them, and what happens at them (adjudicate a simultaneous turn, tell the GM, or forfeit); then the daily digests.

use chrono::Duration;

use crate::compose::{self, Ctx};
use crate::dice::DiceSource;
use crate::gamelog::{self, Loaded};
use crate::games::{Actor, TimeoutAction, ToAct};
use crate::gm;
use crate::store::{GameStatus, PendingKind, Store, Tx};

mod digest;

/// Runs every due reminder and deadline, each game in its own transaction. A game whose
/// timer fails (an error or a panic: a bug in its rules, a corrupt log) is quarantined and
/// every other game goes on; only the store's own trouble (`store::is_transient`, e.g. a
/// database locked past the busy timeout) stops the run, to be tried again as a whole.
pub fn run(
    store: &mut Store,
    ctx: &Ctx,
    mut dice: Option<&mut dyn DiceSource>,
) -> anyhow::Result<usize> {
    let horizon = ctx.now + Duration::seconds(ctx.cfg.remind_before_secs);
    let due = store.read(|tx| tx.games_with_deadline_before(horizon))?;
    let mut acted = 0;
    for row in due {
        // A panic unwinds out of `store.tx`, whose transaction then rolls back.
        let outcome = crate::unwind::catch(|| {
            store.tx(|tx| {
                injected_fault(row.id)?;
                one(tx, ctx, row.id, gm::reborrow(&mut dice))
            })
        });
        match outcome {
            Ok(did) => {
                // Told once committed.
                if let Some(what) = did {
                    tracing::info!(game = row.id, "timer of game {}: {what}", row.id);
                    acted += 1;
                }
            }
            Err(e) if crate::store::is_transient(&e) => return Err(e),
            Err(e) => quarantine(store, ctx, row.id, &format!("{e:#}"))?,
        }
    }
    // The daily digests go after the deadlines: they show the games as the timers left them.
    Ok(acted + digest::run(store, ctx)?)
}

/// Sets a game aside: its timers stop until the GM clears it (`pbem game unquarantine`),
/// the reason is in the GM's log and in `pbem game show`, and the GM is mailed a notice.
fn quarantine(store: &mut Store, ctx: &Ctx, id: i64, reason: &str) -> anyhow::Result<()> {
    tracing::error!(game = id, error = %reason, "game quarantined: its timers are stopped");
    store.tx(|tx| {
        tx.set_quarantined(id, Some(reason))?;
        tx.log_event(Some(id), ctx.now, &format!("quarantined: {reason}"))
    })?;
    // The notice is a courtesy: the quarantine above stands even if it cannot be written.
    let text = format!(
        "Game #{id} is quarantined: its timer or adjudication failed ({reason}). Its clock is \
         stopped; every other game goes on. Once the cause is fixed, clear it with \
         `pbem game unquarantine {id}`."
    );
    if let Err(e) = store.tx(|tx| compose::to_gm(tx, ctx, None, &text)) {
        tracing::error!(game = id, error = %format!("{e:#}"), "cannot queue the GM's notice");
    }
    Ok(())
}

/// Test faults (`PBEM_FAULT=timer:panic:<game>` or `timer:error:<game>`), for the tests of
/// quarantine; nothing outside tests.
fn injected_fault(id: i64) -> anyhow::Result<()> {
    let this = |fault| crate::fault::keyed(fault) == Some(id.to_string().as_str());
    if this("timer:panic") {
        panic!("fault injected: timer:panic in game {id}");
    }
    if this("timer:error") {
        anyhow::bail!("fault injected: timer:error in game {id}");
    }
    Ok(())
}

fn one(
    tx: &Tx,
    ctx: &Ctx,
    id: i64,
    dice: Option<&mut dyn DiceSource>,
) -> anyhow::Result<Option<String>> {
    let mut g = gamelog::load(tx, id)?;
    let Some(deadline) = g.row.deadline else {
        return Ok(None);
    };
    if g.row.status != GameStatus::Active {
        return Ok(None);
    }
    if deadline > ctx.now {
        if !g.row.reminded {
            remind(tx, ctx, &g)?;
            tx.set_reminded(id)?;
            return Ok(Some("reminders sent before the deadline".into()));
        }
        return Ok(None);
    }
    if !g.row.graced {
        let grace = g.common.grace_secs;
        if grace > 0 && !owing(&g).0.is_empty() {
            tx.grant_grace(id, deadline + Duration::seconds(grace))?;
            let g = gamelog::load(tx, id)?;
            remind(tx, ctx, &g)?;
            return Ok(Some(format!(
                "deadline passed: a grace of {} granted, the late players reminded",
                crate::duration::format_secs(grace)
            )));
        }
    }
    match g.game.to_act() {
        ToAct::Orders(seats) => {
            adjudicate(tx, ctx, &mut g, &seats, dice)?;
            Ok(Some("deadline: the turn was adjudicated".into()))
        }
        ToAct::Seat(seat) => {
            let on_vacation = g
                .seat(seat)
                .and_then(|s| s.vacation_until)
                .is_some_and(|v| v > ctx.now);
            if on_vacation {
                // Vacation pauses the clock: the full time limit runs again from its end.
                let until = g
                    .seat(seat)
                    .and_then(|s| s.vacation_until)
                    .unwrap_or(ctx.now);
                let limit = Duration::seconds(g.row.move_secs.unwrap_or(0));
                tx.set_deadline(id, Some(until + limit))?;
                return Ok(Some("deadline moved past the player's vacation".into()));
            }
            let name = g.game.seat_name(seat).to_string();
            if g.common.timeout == TimeoutAction::Forfeit {
                let mut played = gm::play_with(tx, &mut g, Actor::Seat(seat), ctx.now, |game| {
                    game.resign(seat)
                })?
                .map_err(|e| anyhow::anyhow!("{name} cannot forfeit: {e}"))?;
                played
                    .reports
                    .push(format!("{name} ran out of time and forfeits the game."));
                compose::announce(tx, ctx, &g, &played, None)?;
                compose::to_gm(
                    tx,
                    ctx,
                    Some(&g),
                    &format!("{name} ran out of time and forfeited."),
                )?;
                return Ok(Some(format!("deadline: {name} forfeited")));
            } else {
                tx.set_deadline(id, None)?;
                compose::to_gm(
                    tx,
                    ctx,
                    Some(&g),
                    &format!(
                        "{name} ({}) did not move by the deadline. The clock is stopped; \
                         play a move for them with `pbem game play {id} --seat {name} ...`, \
                         or end the game.",
                        g.seat(seat)
                            .and_then(|s| s.email.clone())
                            .unwrap_or_default()
                    ),
                )?;
            }
            Ok(Some(format!(
                "deadline: {name} did not move; the GM is told"
            )))
        }
        // The salt window closed: the roll that waited for it is made now.
        ToAct::Chance(_) if gm::waiting_for_salts(&g) => {
            let played = gm::resume(tx, &mut g, ctx.now, dice)?;
            if played.plies.is_empty() {
                anyhow::bail!("game {id}: the salt window closed but the dice did not roll");
            }
            compose::announce(tx, ctx, &g, &played, None)?;
            let plies: Vec<&str> = played.plies.iter().map(|(_, t)| t.as_str()).collect();
            Ok(Some(format!(
                "the salt window closed; played {}",
                plies.join(", ")
            )))
        }
        ToAct::Chance(_) | ToAct::Nobody => {
            tx.set_deadline(id, None)?;
            Ok(None)
        }
    }
}

/// A reminder to every seat that still owes a move or orders.
fn remind(tx: &Tx, ctx: &Ctx, g: &Loaded) -> anyhow::Result<()> {
    let (seats, orders) = owing(g);
    for s in seats {
        compose::to_seat(tx, ctx, g, s, &compose::Reminder { orders }, None)?;
    }
    Ok(())
}

/// The seats that still owe a move or orders, and whether it is orders.
fn owing(g: &Loaded) -> (Vec<usize>, bool) {
    match g.game.to_act() {
        ToAct::Seat(s) => (vec![s], false),
        ToAct::Orders(seats) => (
            seats
                .into_iter()
                .filter(|s| !g.ordered.contains(s))
                .collect(),
            true,
        ),
        _ => (vec![], false),
    }
}

/// The deadline of a simultaneous turn: adjudicate what was ordered; seats that sent nothing
/// hold, and after `nmr_limit` missed turns in a row the GM is told.
pub fn adjudicate(
    tx: &Tx,
    ctx: &Ctx,
    g: &mut Loaded,
    seats: &[usize],
    dice: Option<&mut dyn DiceSource>,
) -> anyhow::Result<usize> {
    let orders = gm::turn_orders(tx, g.row.id)?;
    let limit: i64 = gamelog::options_of(&g.row)?
        .get("nmr_limit")
        .and_then(|v| v.parse().ok())
        .unwrap_or(3);
    for &s in seats {
        let missed = g.seat(s).map_or(0, |r| r.missed);
        if orders.contains_key(&s) {
            tx.set_missed(g.row.id, s, 0)?;
        } else {
            tx.set_missed(g.row.id, s, missed + 1)?;
            if missed + 1 >= limit {
                let name = g.game.seat_name(s);
                compose::to_gm(
                    tx,
                    ctx,
                    Some(g),
                    &format!(
                        "{name} ({}) has sent no orders for {} turns in a row. You may \
                         replace the player: `pbem game replace {} --seat {name} NEW-ADDRESS`.",
                        g.seat(s).and_then(|r| r.email.clone()).unwrap_or_default(),
                        missed + 1,
                        g.row.id
                    ),
                )?;
            }
        }
    }
    let ply = g
        .game
        .turn_ply(&orders)
        .map_err(|e| anyhow::anyhow!("game {}: cannot build the turn: {e}", g.row.id))?;
    tx.clear_pending(g.row.id, PendingKind::Orders)?;
    let played = gm::play(tx, g, Actor::Gm, &ply, ctx.now, None, dice)?
        .map_err(|e| anyhow::anyhow!("game {}: the turn does not adjudicate: {e}", g.row.id))?;
    compose::announce(tx, ctx, g, &played, None)?;
    Ok(1)
}
