//! What a game's deadline does, as the GM decides it: remind before it, grant the grace, then adjudicate the turn, forfeit the late player or tell the GM; vacation moves the clock.

use std::collections::BTreeMap;

use anyhow::anyhow;
use chrono::{DateTime, Duration, Utc};

use super::options::{self, TimeoutAction};
use super::salts::roll_if_due;
use super::{play, play_with, robots, turn_orders, waiting_for_salts, Gm, News};
use crate::gamelog::{self, Loaded};
use crate::games::{Actor, ToAct};
use crate::store::{GameStatus, PendingKind};

/// Does what game `id`'s clock asks now (the caller found it due, or its reminder near,
/// `lead_secs` being the configured time of a reminder before the deadline): what was done,
/// in words, or `None` when nothing was.
pub fn on_time(gm: &mut Gm, id: i64, lead_secs: i64) -> anyhow::Result<Option<String>> {
    let mut g = gamelog::load(gm.tx, id)?;
    let Some(stored) = g.row.deadline else {
        return Ok(None);
    };
    if g.row.status != GameStatus::Active {
        return Ok(None);
    }
    let deadline = deadline(&g).unwrap_or(stored);
    if deadline != stored {
        // The mails and `game show` already give the later deadline: the clock keeps it too.
        gm.tx.set_deadline(id, Some(deadline))?;
        return Ok(Some("deadline moved past the player's vacation".into()));
    }
    if deadline > gm.now {
        if g.row.reminded || remind_at(deadline, g.row.move_secs, lead_secs) > gm.now {
            return Ok(None);
        }
        let reminded = remind(gm, &g)?;
        gm.tx.set_reminded(id)?;
        return Ok((reminded > 0).then(|| "reminders sent before the deadline".into()));
    }
    let grace = options::of(&g).grace_secs;
    if !g.row.graced && grace > 0 && !owing(&g).0.is_empty() {
        gm.tx.grant_grace(id, deadline + Duration::seconds(grace))?;
        super::reliability::overdue(gm.tx, &g, &owing(&g).0)?;
        // The grace's reminder is this deadline's one: no second comes before it.
        gm.tx.set_reminded(id)?;
        let g = gamelog::load(gm.tx, id)?;
        remind(gm, &g)?;
        return Ok(Some(format!(
            "deadline passed: a grace of {} granted, the late players reminded",
            crate::duration::format_secs(grace)
        )));
    }
    match g.game.to_act() {
        ToAct::Orders(seats) => {
            // Under `timeout=robot` the robot orders for each seat that sent none.
            let stood_in = match options::of(&g).timeout {
                TimeoutAction::Robot => robots::stand_in_orders(gm, &mut g, &seats)?,
                _ => Vec::new(),
            };
            adjudicate_with(gm, &mut g, &seats, &stood_in)?;
            Ok(Some("deadline: the turn was adjudicated".into()))
        }
        ToAct::Seat(seat) => late_move(gm, &mut g, seat),
        // The salt window closed: the roll that waited for it is made now.
        ToAct::Chance(_) if waiting_for_salts(&g) => {
            let played = roll_if_due(gm, &mut g)?;
            if played.plies.is_empty() {
                anyhow::bail!("game {id}: the salt window closed but the dice did not roll");
            }
            gm.tell(News::Played {
                g: &g,
                played: &played,
                except: None,
            })?;
            let plies: Vec<&str> = played.plies.iter().map(|(_, t)| t.as_str()).collect();
            Ok(Some(format!(
                "the salt window closed; played {}",
                plies.join(", ")
            )))
        }
        ToAct::Chance(_) | ToAct::Nobody => {
            gm.tx.set_deadline(id, None)?;
            Ok(None)
        }
    }
}

/// A seat's move is late (a seat on vacation past its deadline had it moved, `deadline`):
/// the game's `timeout` says: forfeit, or stop the clock and tell the GM and the players.
fn late_move(gm: &mut Gm, g: &mut Loaded, seat: usize) -> anyhow::Result<Option<String>> {
    let id = g.row.id;
    let name = g.game.seat_name(seat).to_string();
    if options::of(g).timeout == TimeoutAction::Robot {
        return robots::stand_in_move(gm, g, seat).map(Some);
    }
    if options::of(g).timeout == TimeoutAction::Forfeit {
        // The GM's clock plays `SEAT:timeout`: the seat leaves as by resigning, and the
        // report, the outcome and the record say it ran out of time.
        let played = play_with(gm, g, Actor::Gm, |game| game.time_out(seat))?
            .map_err(|e| anyhow!("{name} cannot forfeit: {e}"))?;
        super::reliability::missed(gm.tx, g, seat, gm.now)?;
        super::reliability::left(gm.tx, g, seat, gm.now)?;
        gm.tell(News::Played {
            g,
            played: &played,
            except: None,
        })?;
        let email = g
            .seat(seat)
            .and_then(|s| s.email.clone())
            .unwrap_or_default();
        let what = g.game.last_report().unwrap_or_default();
        let text = format!(
            "{name} ({email}) did not move by the deadline (timeout=forfeit): {}.",
            what.trim_end().trim_end_matches('.')
        );
        gm.tell(News::ToGm {
            g: Some(g),
            text: &text,
        })?;
        return Ok(Some(format!(
            "deadline: {name} ran out of time and forfeited"
        )));
    }
    gm.tx.set_deadline(id, None)?;
    g.row.deadline = None;
    // What the player sends from now on is late; what the GM plays for them, missed.
    super::reliability::overdue(gm.tx, g, &[seat])?;
    let email = g
        .seat(seat)
        .and_then(|s| s.email.clone())
        .unwrap_or_default();
    let text = format!(
        "{name} ({email}) did not move by the deadline. The clock is stopped; play a move for \
         them with `pbem game play {id} --seat {name} ...`, or end the game."
    );
    gm.tell(News::ToGm {
        g: Some(g),
        text: &text,
    })?;
    // The players learn why the game stands still, the late one too.
    let seats: Vec<usize> = g.seats.iter().map(|s| s.seat).collect();
    let news = format!(
        "{name} did not move by the deadline. The clock is stopped and the GM has been told: \
         the GM decides how the game goes on. Until then {name} may still move."
    );
    gm.tell(News::Said {
        g,
        seats: &seats,
        text: &news,
    })?;
    Ok(Some(format!(
        "deadline: {name} did not move; the GM and the players are told"
    )))
}

/// A reminder to every seat that still owes a move or orders, but a player on vacation:
/// how many were reminded.
fn remind(gm: &Gm, g: &Loaded) -> anyhow::Result<usize> {
    let (mut seats, orders) = owing(g);
    seats.retain(|&s| {
        g.seat(s)
            .and_then(|r| r.vacation_until)
            .is_none_or(|until| until <= gm.now)
    });
    if !seats.is_empty() {
        gm.tell(News::Remind {
            g,
            seats: &seats,
            orders,
        })?;
    }
    Ok(seats.len())
}

/// The deadline the clock keeps: the stored one, unless the seat to move is on vacation at
/// that moment; then its full move time runs again from the vacation's end (a vacation
/// pauses the clock). What the mails, `STATUS` and `game show` give.
pub fn deadline(g: &Loaded) -> Option<DateTime<Utc>> {
    let stored = g.row.deadline?;
    let ToAct::Seat(seat) = g.game.to_act() else {
        return Some(stored);
    };
    match g.seat(seat).and_then(|s| s.vacation_until) {
        Some(until) if until >= stored => {
            Some(until + Duration::seconds(g.row.move_secs.unwrap_or(0)))
        }
        _ => Some(stored),
    }
}

/// When the reminder before `deadline` is due: `remind_lead` before it.
pub fn remind_at(deadline: DateTime<Utc>, move_secs: Option<i64>, lead_secs: i64) -> DateTime<Utc> {
    deadline - Duration::seconds(remind_lead(move_secs, lead_secs))
}

/// How long before the deadline the reminder comes: the configured `lead_secs`, but never
/// before half the move time has passed (a daily game with a day's lead would remind right
/// after every turn).
pub fn remind_lead(move_secs: Option<i64>, lead_secs: i64) -> i64 {
    let lead = match move_secs {
        Some(m) if m > 0 => lead_secs.min(m / 2),
        _ => lead_secs,
    };
    lead.max(0)
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
/// hold, and a seat at the game's limit of missed turns in a row is reported to the GM.
pub fn adjudicate(gm: &mut Gm, g: &mut Loaded, seats: &[usize]) -> anyhow::Result<()> {
    adjudicate_with(gm, g, seats, &[])
}

/// `adjudicate`, the robot having ordered for the late seats `stood_in` (`timeout=robot`):
/// the turn's ply is marked in the record with the robot's part in it, and every report
/// says whom the robot played for.
fn adjudicate_with(
    gm: &mut Gm,
    g: &mut Loaded,
    seats: &[usize],
    stood_in: &[usize],
) -> anyhow::Result<()> {
    let tx = gm.tx;
    let orders = turn_orders(tx, g.row.id)?;
    let ply = g
        .game
        .turn_ply(&orders)
        .map_err(|e| anyhow!("game {}: cannot build the turn: {e}", g.row.id))?;
    tx.clear_pending(g.row.id, PendingKind::Orders)?;
    super::reliability::orders_settled(tx, g, seats, &orders, stood_in, gm.now)?;
    let at = g.moves.len() as i64 + 1;
    let mark = robots::orders_mark(g, seats, stood_in);
    let mut played = play(gm, g, Actor::Gm, &ply, None)?
        .map_err(|e| anyhow!("game {}: the turn does not adjudicate: {e}", g.row.id))?;
    if let Some(mark) = mark {
        tx.mark_robot_ply(g.row.id, at, &mark)?;
    }
    if !stood_in.is_empty() {
        let names: Vec<&str> = stood_in.iter().map(|s| g.game.seat_name(*s)).collect();
        let said = format!("The robot played for {} (out of time).", names.join(", "));
        played.reports.insert(0, said);
    }
    // The GM hears of missing players first, as before the turn's reports.
    tell_missed(gm, g, seats, &orders)?;
    gm.tell(News::Played {
        g,
        played: &played,
        except: None,
    })
}

/// The GM hears of each seat whose player has now missed as many turns in a row as the game
/// allows: the game's own count (the one its report and position show), less the turns the
/// seat missed before its player took it. A seat that ordered starts its player's count anew.
fn tell_missed(
    gm: &Gm,
    g: &Loaded,
    seats: &[usize],
    orders: &BTreeMap<usize, Vec<String>>,
) -> anyhow::Result<()> {
    for &s in seats {
        let before = g.seat(s).map_or(0, |r| r.missed_before);
        if orders.contains_key(&s) {
            if before > 0 {
                gm.tx.set_missed_before(g.row.id, s, 0)?;
            }
            continue;
        }
        let Some(missed) = g.game.missed(s) else {
            continue;
        };
        let own = missed.turns.saturating_sub(before);
        if own < missed.limit {
            continue;
        }
        let name = g.game.seat_name(s);
        let text = format!(
            "{name} ({}) has sent no orders for {} turns in a row. You may replace the player: \
             `pbem game replace {} --seat {name} NEW-ADDRESS`.",
            g.seat(s).and_then(|r| r.email.clone()).unwrap_or_default(),
            own,
            g.row.id
        );
        gm.tell(News::ToGm {
            g: Some(g),
            text: &text,
        })?;
    }
    Ok(())
}
