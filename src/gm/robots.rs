//! Robots at the table: a seat the robot plays (named in words), its turn played through `submit` like any player's, and the robot standing in for a late player at a deadline (`timeout=robot`).

use anyhow::anyhow;
use chrono::Duration;

use super::{submit, By, Gm, Intent, News, Turn};
use crate::gamelog::{self, Loaded};
use crate::games::ToAct;
use crate::robot::{self, Decision, Level, View};
use crate::store::GameStatus;

/// How many decisions (a ply, or a seat's orders) one pass makes in one game at most: a game
/// of robots only goes on at the next pass, so that no game holds up the others.
pub const PLIES_PER_PASS: usize = 200;

/// The robot a player's address stands for, if it names one: `robot` (the strongest),
/// `robot:easy`, `robot:normal`, `robot:strong`; an unknown level is refused in words.
pub fn robot_named(who: &str) -> Option<Result<Level, String>> {
    let who = who.trim();
    let lower = who.to_ascii_lowercase();
    let level = match lower.split_once(':') {
        Some(("robot", level)) => level,
        None if lower == "robot" => "",
        _ => return None,
    };
    Some(Level::parse(level).ok_or_else(|| {
        let who = crate::quote::shorten(who, 24);
        format!("'{who}': a robot is robot, robot:easy, robot:normal or robot:strong")
    }))
}

/// A robot seat in words, as every listing names it: "robot (strong)".
pub fn robot_words(level: &str) -> String {
    format!("robot ({level})")
}

/// Who sits in a seat, in words, for the GM: the player's name and address, the robot, or
/// nobody yet.
pub fn seat_holder(s: &crate::store::SeatRow) -> String {
    super::names::seat_holder(s, super::names::Reveal::Addresses)
        .unwrap_or_else(|| "(open seat)".into())
}

/// The robot seats that owe a ply or orders now, with their levels (none while the game
/// waits, is paused or is over).
fn robots_to_act(g: &Loaded) -> Vec<(usize, Level)> {
    if g.row.status != GameStatus::Active || super::waiting_for_salts(g) {
        return Vec::new();
    }
    let level = |s: usize| {
        g.seat(s)
            .and_then(|r| r.robot.as_deref())
            .and_then(Level::parse)
    };
    match g.game.to_act() {
        ToAct::Seat(s) => level(s).map(|l| vec![(s, l)]).unwrap_or_default(),
        ToAct::Orders(seats) => seats
            .into_iter()
            .filter(|s| !g.ordered.contains(s))
            .filter_map(|s| level(s).map(|l| (s, l)))
            .collect(),
        ToAct::Chance(_) | ToAct::Nobody => Vec::new(),
    }
}

/// What the robots of a game owe now, as read: the position they see, how many plies it had,
/// and the robot seats due with their levels. Decided on outside any write transaction.
pub struct Due {
    id: i64,
    game: crate::games::AnyGame,
    plies: usize,
    seats: Vec<(usize, Level)>,
}

/// The robots of game `id` to act now, at most `room` of them (a turn of orders past the
/// pass's bound: the others order next pass), read from the store (None when none is).
pub fn due(tx: &crate::store::Tx, id: i64, room: usize) -> anyhow::Result<Option<Due>> {
    let g = gamelog::load(tx, id)?;
    let mut seats = robots_to_act(&g);
    seats.truncate(room);
    Ok((!seats.is_empty()).then_some(Due {
        id,
        plies: g.moves.len(),
        game: g.game,
        seats,
    }))
}

/// The robots' decisions for what is due: pure and possibly slow (a search per seat), so
/// made with no lock held.
pub fn decide_due(due: &Due) -> Vec<(usize, Option<Decision>)> {
    let view = View::new(&due.game, due.id);
    due.seats
        .iter()
        .map(|&(seat, level)| (seat, robot::decide(&view, seat, level)))
        .collect()
}

/// Whether the one robot that just played (`due`) is to play again at once, its turn not over
/// (a choice after its declaration's roll): its news then waits for the rest of its turn.
pub fn turn_goes_on(tx: &crate::store::Tx, due: &Due) -> anyhow::Result<bool> {
    let g = gamelog::load(tx, due.id)?;
    Ok(match (g.game.to_act(), due.seats.as_slice()) {
        (ToAct::Seat(s), [(seat, _)]) => s == *seat && g.row.status == GameStatus::Active,
        _ => false,
    })
}

/// Plays `decisions` (made on `due`) in the write transaction, if the game is still where it
/// was when they were made (as many plies, the same position: a ply the GM took back and
/// another played in its place is a move on too; the same robots due); none when it moved on
/// (a player's mail or the GM came between: the next pass decides again). How many were
/// played.
pub fn play_decided(
    gm: &mut Gm,
    due: &Due,
    decisions: Vec<(usize, Option<Decision>)>,
    early: Duration,
) -> anyhow::Result<usize> {
    let id = due.id;
    let g = gamelog::load(gm.tx, id)?;
    let now_due = robots_to_act(&g);
    let moved_on = g.moves.len() != due.plies || g.game.position_tag() != due.game.position_tag();
    if moved_on || !due.seats.iter().all(|s| now_due.contains(s)) {
        return Ok(0);
    }
    let mut made = 0;
    for (seat, decision) in decisions {
        let mut g = gamelog::load(gm.tx, id)?;
        let decision = match decision {
            None => anyhow::bail!(
                "game {id}: the robot has no move for {}",
                g.game.seat_name(seat)
            ),
            // No orders to give: the seat's units hold at the deadline, as a player's who
            // sent none; the robots of this game wait for the next turn.
            Some(Decision::Orders(o)) if o.is_empty() => return Ok(made),
            Some(d) => d,
        };
        robot_turn(gm, &mut g, seat, decision, By::Robot, early)?;
        made += 1;
    }
    Ok(made)
}

/// The robot seats of game `id` that a draw offer waits on (a seat of a player offered, the
/// robot has not answered), while the game is active.
pub fn draw_offered_to_robots(tx: &crate::store::Tx, id: i64) -> anyhow::Result<Vec<usize>> {
    let g = gamelog::load(tx, id)?;
    if g.row.status != GameStatus::Active || !g.seats.iter().any(|s| s.draw_offer) {
        return Ok(Vec::new());
    }
    let playing = g.game.playing();
    Ok(g.seats
        .iter()
        .filter(|s| s.robot.is_some() && !s.draw_offer && playing.contains(&s.seat))
        .map(|s| s.seat)
        .collect())
}

/// Each robot seat a draw offer waits on answers it: agrees unless it judges itself ahead
/// (`robot::accepts_draw`), else declines (which withdraws every offer, as a player's DRAW
/// DECLINE does); the players hear of it as of a player's answer. How many answered.
pub fn answer_draw_offers(gm: &Gm, id: i64) -> anyhow::Result<usize> {
    let mut answered = 0;
    for seat in draw_offered_to_robots(gm.tx, id)? {
        let mut g = gamelog::load(gm.tx, id)?;
        answered += 1;
        if robot::accepts_draw(&View::new(&g.game, id), seat) {
            if let Err(refusal) = super::offer_draw(gm, &mut g, seat)? {
                anyhow::bail!("game {id}: the robot's draw was refused: {refusal}");
            }
        } else {
            super::decline_draw(gm, &g, seat)?;
            break;
        }
    }
    Ok(answered)
}

/// The robot's decision handed to `submit` as the seat's lines; its plies are marked in the
/// log as the robot's (`By::Robot`: "robot"; `By::StandIn`: "robot for B, out of time").
fn robot_turn(
    gm: &mut Gm,
    g: &mut Loaded,
    seat: usize,
    decision: Decision,
    by: By,
    early: Duration,
) -> anyhow::Result<Vec<String>> {
    let (lines, intent) = match decision {
        Decision::Ply(p) => (vec![p], Intent::Move),
        Decision::Orders(o) => (o, Intent::Orders),
    };
    let before = g.moves.len();
    let turn = Turn {
        seat,
        lines: &lines,
        guard: None,
        moved: false,
        by,
        intent,
        early,
    };
    let sub = submit(gm, g, &turn)?;
    if !sub.moved() {
        anyhow::bail!(
            "game {}: the rules refused the robot's {} for {}: {:?}",
            g.row.id,
            lines.join(", "),
            g.game.seat_name(seat),
            sub.lines
        );
    }
    let name = g.game.seat_name(seat);
    let mark = match by {
        By::StandIn => format!("robot for {name}, out of time"),
        _ => "robot".to_string(),
    };
    for m in g.moves.iter().skip(before).filter(|m| m.actor == name) {
        gm.tx.mark_robot_ply(g.row.id, m.ply, &mark)?;
    }
    Ok(lines)
}

/// The deadline passed under `timeout=robot` with `seat` to move: the robot plays this one
/// move for it (the seat stays its player's), everyone's report says so, and the late player
/// is told in words what was played for them. What was done, in words.
pub(super) fn stand_in_move(gm: &mut Gm, g: &mut Loaded, seat: usize) -> anyhow::Result<String> {
    let name = g.game.seat_name(seat);
    let decision = robot::decide(&View::new(&g.game, g.row.id), seat, Level::Strong)
        .ok_or_else(|| anyhow!("game {}: the robot has no move for {name}", g.row.id))?;
    let lines = robot_turn(gm, g, seat, decision, By::StandIn, Duration::zero())?;
    let text = format!(
        "You did not move by the deadline: the robot played {} for you (timeout=robot). The \
         seat is still yours: play on as usual when it is your turn again.",
        lines.join(", ")
    );
    gm.tell(News::Said {
        g,
        seats: &[seat],
        text: &text,
    })?;
    Ok(format!(
        "deadline: the robot played {} for {name} (out of time)",
        lines.join(", ")
    ))
}

/// The deadline of a turn of orders passed under `timeout=robot`: the robot gives the orders
/// of each seat that sent none (each player is told what was ordered for them); the turn is
/// then adjudicated as usual. The seats it ordered for.
pub(super) fn stand_in_orders(
    gm: &mut Gm,
    g: &mut Loaded,
    seats: &[usize],
) -> anyhow::Result<Vec<usize>> {
    let id = g.row.id;
    let late: Vec<usize> = seats
        .iter()
        .copied()
        .filter(|s| !g.ordered.contains(s) && g.game.playing().contains(s))
        .collect();
    let mut done = Vec::new();
    for seat in late {
        let mut fresh = gamelog::load(gm.tx, id)?;
        let decision = robot::decide(&View::new(&fresh.game, id), seat, Level::Strong);
        let Some(decision) = decision.filter(|d| *d != Decision::Orders(Vec::new())) else {
            continue;
        };
        let by = match g.seat(seat).is_some_and(|r| r.robot.is_some()) {
            true => By::Robot,
            false => By::StandIn,
        };
        let lines = robot_turn(gm, &mut fresh, seat, decision, by, Duration::zero())?;
        if by == By::StandIn {
            let text = format!(
                "You sent no orders by the deadline: the robot ordered for you (timeout=robot): \
                 {}. The seat is still yours: send your orders as usual next turn.",
                lines.join("; ")
            );
            gm.tell(News::Said {
                g: &fresh,
                seats: &[seat],
                text: &text,
            })?;
            done.push(seat);
        }
    }
    *g = gamelog::load(gm.tx, id)?;
    Ok(done)
}

/// The record's mark for a turn of orders adjudicated with the robot's orders in it: the
/// robot seats, and the late seats it ordered for (`robot: BLUE; robot for RED, out of time`).
pub(super) fn orders_mark(g: &Loaded, seats: &[usize], stood_in: &[usize]) -> Option<String> {
    let own: Vec<&str> = seats
        .iter()
        .filter(|s| g.seat(**s).is_some_and(|r| r.robot.is_some()))
        .map(|s| g.game.seat_name(*s))
        .collect();
    let mut parts = Vec::new();
    if !own.is_empty() {
        parts.push(format!("robot: {}", own.join(", ")));
    }
    if !stood_in.is_empty() {
        let names: Vec<&str> = stood_in.iter().map(|s| g.game.seat_name(*s)).collect();
        parts.push(format!("robot for {}, out of time", names.join(", ")));
    }
    (!parts.is_empty()).then(|| parts.join("; "))
}

/// The GM hands `seat` to the robot for the rest of the game (`pbem game eject ID --seat S
/// --robot`, `pbem game replace ID --seat S robot`): its player, if any, is taken out and
/// told; what the seat ordered or planned this turn goes; the others hear who plays it now.
/// Given back to a player the same way (`pbem game replace ID --seat S ADDRESS`). What was
/// done, in words.
pub fn hand_to_robot(
    gm: &Gm,
    g: &mut Loaded,
    seat: usize,
    level: Level,
) -> anyhow::Result<Result<String, super::Refusal>> {
    let (tx, id) = (gm.tx, g.row.id);
    if g.row.status == GameStatus::Finished {
        return Ok(Err(super::Refusal::NotActive(g.row.status)));
    }
    let name = g.game.seat_name(seat).to_string();
    let robot = robot_words(level.name());
    let before = g.clone();
    let left = g.seat(seat).and_then(|s| s.email.clone());
    tx.clear_pending_of(id, seat)?;
    tx.seat_robot(id, seat, level.name())?;
    tx.log_event(
        Some(id),
        gm.now,
        &format!("seat {name} given to the {robot}"),
    )?;
    *g = gamelog::load(tx, id)?;
    if left.is_some() {
        let text = format!(
            "The GM has handed {name} to the robot: it plays the seat from now on, and you no \
             longer play in this game."
        );
        gm.tell(News::TakenOut {
            g: &before,
            seat,
            text: &text,
        })?;
    }
    let others: Vec<usize> = g
        .seats
        .iter()
        .map(|x| x.seat)
        .filter(|x| *x != seat)
        .collect();
    let news = format!("{name} is now played by the {robot}.");
    gm.tell(News::Said {
        g,
        seats: &others,
        text: &news,
    })?;
    Ok(Ok(match left {
        Some(email) => format!("{email} is out of {name}, now played by the {robot}"),
        None => format!("{name} is now played by the {robot}"),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_robot_is_named_with_its_level_and_an_address_is_no_robot() {
        assert_eq!(robot_named("robot"), Some(Ok(Level::Strong)));
        assert_eq!(robot_named("Robot:Easy"), Some(Ok(Level::Easy)));
        assert_eq!(robot_named(" robot:normal "), Some(Ok(Level::Normal)));
        assert!(robot_named("robot:best")
            .unwrap()
            .unwrap_err()
            .contains("robot:easy"));
        assert_eq!(robot_named("robot@example.org"), None);
        assert_eq!(robot_named("robots"), None);
        assert_eq!(robot_words("strong"), "robot (strong)");
    }
}
