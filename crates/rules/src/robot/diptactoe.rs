//! Dip-Tac-Toe: the robot's order for its seat, chosen against sampled orders of the other seats.
//!
//! Every seat gives at most one order a turn. The robot keeps a short list of its own orders
//! (those that most help its lines or break another's line, supports for others' moves
//! included), then plays each against the same sampled orders of the other seats (each a
//! random legal order, or none), adjudicated by the game itself, and keeps the order whose
//! outcomes are best on average. A claim of victory goes with every order: the game judges it
//! after the adjudication, and a claim without a line costs nothing.

use std::collections::BTreeMap;

use super::rng::Rng;
use super::search::terminal;
use super::Level;
use crate::games::diptactoe::lines::all_lines;
use crate::games::diptactoe::position::Position;
use crate::games::{Actor, AnyGame, GameRef, Seat};

/// (orders kept for sampling, samples of the others' orders) per level.
fn limits(level: Level) -> (usize, usize) {
    match level {
        Level::Easy => (4, 3),
        Level::Normal => (12, 12),
        Level::Strong => (24, 30),
    }
}

/// The seat's order lines for this turn.
pub(super) fn orders(game: &AnyGame, seat: Seat, level: Level, rng: &mut Rng) -> Vec<String> {
    let GameRef::DipTacToe(dtt) = game.game() else {
        return Vec::new();
    };
    let mut mine = dtt.legal_orders(seat);
    if mine.is_empty() {
        return vec!["VICTORY".into()];
    }
    let (keep, samples) = limits(level);
    // The short list: by what the order's success would leave, judged on the lines.
    let mut scored: Vec<(f64, String)> = mine
        .drain(..)
        .map(|o| (shallow(game, seat, &o), o))
        .collect();
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    scored.truncate(keep);
    let others: Vec<Seat> = game.playing().into_iter().filter(|s| *s != seat).collect();
    let mut totals = vec![0.0; scored.len()];
    for _ in 0..samples {
        let mut orders: BTreeMap<Seat, Vec<String>> = BTreeMap::new();
        for &other in &others {
            let legal = dtt.legal_orders(other);
            // A seat may also send nothing (its units hold): one time in ten.
            if !legal.is_empty() && rng.below(10) > 0 {
                orders.insert(other, vec![legal[rng.below(legal.len())].clone()]);
            }
        }
        for (i, (_, order)) in scored.iter().enumerate() {
            orders.insert(seat, vec![order.clone(), "VICTORY".into()]);
            totals[i] += after_turn(game, seat, &orders);
        }
    }
    let best = totals.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let ties: Vec<usize> = (0..totals.len())
        .filter(|&i| totals[i] >= best - 1e-9)
        .collect();
    let order = scored[ties[rng.below(ties.len())]].1.clone();
    vec![order, "VICTORY".into()]
}

/// The value for `seat` of the turn adjudicated with these orders.
fn after_turn(game: &AnyGame, seat: Seat, orders: &BTreeMap<Seat, Vec<String>>) -> f64 {
    let Ok(ply) = game.turn_ply(orders) else {
        return -2.0;
    };
    let mut next = game.clone();
    if next.play(Actor::Gm, &ply).is_err() {
        return -2.0;
    }
    if let Some(outcome) = next.outcome() {
        return terminal(&outcome, seat) * 2.0;
    }
    match next.game() {
        GameRef::DipTacToe(d) => lines_value(d.position(), seat),
        _ => 0.0,
    }
}

/// The order's worth were it to succeed alone (nobody else moving): its lines after.
fn shallow(game: &AnyGame, seat: Seat, order: &str) -> f64 {
    let mut orders = BTreeMap::new();
    orders.insert(seat, vec![order.to_string(), "VICTORY".into()]);
    after_turn(game, seat, &orders)
}

/// The lines: for the seat, each line it alone holds counts by the units it has there (three
/// of four much more than two); another seat's such lines count against it, a little more
/// (a line of three for another is a threat to break).
fn lines_value(pos: &Position, seat: Seat) -> f64 {
    let mut value: f64 = 0.0;
    for line in all_lines() {
        let owners: Vec<Option<Seat>> = line.iter().map(|s| pos.units.get(s).copied()).collect();
        let mut holder: Option<Seat> = None;
        let mut count = 0;
        let mut mixed = false;
        for o in owners.into_iter().flatten() {
            match holder {
                None => holder = Some(o),
                Some(h) if h != o => mixed = true,
                _ => {}
            }
            count += 1;
        }
        let (Some(h), false) = (holder, mixed) else {
            continue;
        };
        let w = match count {
            1 => 0.01,
            2 => 0.05,
            3 => 0.3,
            _ => 1.0,
        };
        value += if h == seat { w } else { -1.2 * w };
    }
    (value / 2.0).tanh()
}
