//! The resolution of one turn: Kruijswijk's guess-and-check algorithm from the DATC ("The Math
//! of Adjudication"), with placements as moves from the reserve, then the claims.
//!
//! Every order gets a boolean decision: a move (or placement) succeeds or fails, a support is
//! given or cut. `resolve` computes a decision from the strengths defined in the DATC; when the
//! decisions depend on each other in a cycle, it guesses both ways: one consistent answer is
//! taken, two consistent answers are a circular movement (all moves in it succeed), none is a
//! paradox (all moves in it fail; without convoys this does not arise on this board).

use std::collections::BTreeMap;

use super::lines::find_line;
use super::order::{read_player_lines, the_order, LineReading, Order};
use super::position::Position;
use super::space::Space;
use crate::games::Seat;

/// How one valid order ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    Succeeds,
    Fails,
    /// A support that counted (matched an order and was not cut).
    Given,
    Cut,
    /// A support of an order nobody gave: it supports nothing.
    Unmatched,
}

/// The outcome of adjudicating a set of valid orders (at most one per seat).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolution {
    /// One result per order, in the order given.
    pub results: Vec<Verdict>,
    /// Dislodged units (space, owner); they went back to their owner's reserve.
    pub dislodged: Vec<(Space, Seat)>,
    pub after: Position,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    Unresolved,
    Guessing,
    Resolved,
}

struct Adjudicator<'a> {
    position: &'a Position,
    orders: &'a [(Seat, Order)],
    state: Vec<State>,
    decision: Vec<bool>,
    /// Orders whose guessed decision was used, in the order they were first used.
    dependencies: Vec<usize>,
    /// The move order of the unit standing on each space, if it has one.
    move_from: BTreeMap<Space, usize>,
}

impl<'a> Adjudicator<'a> {
    fn new(position: &'a Position, orders: &'a [(Seat, Order)]) -> Self {
        let move_from = orders
            .iter()
            .enumerate()
            .filter_map(|(i, (_, o))| match o {
                Order::Move { from, .. } => Some((*from, i)),
                _ => None,
            })
            .collect();
        Adjudicator {
            position,
            orders,
            state: vec![State::Unresolved; orders.len()],
            decision: vec![false; orders.len()],
            dependencies: Vec::new(),
            move_from,
        }
    }

    fn is_move(&self, i: usize) -> bool {
        matches!(self.orders[i].1, Order::Move { .. } | Order::Place { .. })
    }

    /// The guess-and-check resolver of Kruijswijk's algorithm.
    fn resolve(&mut self, nr: usize) -> bool {
        match self.state[nr] {
            State::Resolved => return self.decision[nr],
            State::Guessing => {
                if !self.dependencies.contains(&nr) {
                    self.dependencies.push(nr);
                }
                return self.decision[nr];
            }
            State::Unresolved => {}
        }
        let old_count = self.dependencies.len();
        self.decision[nr] = false;
        self.state[nr] = State::Guessing;
        let first = self.adjudicate(nr);
        if self.dependencies.len() == old_count {
            // No guess was used: the answer is final (unless a backup rule already set it).
            if self.state[nr] != State::Resolved {
                self.decision[nr] = first;
                self.state[nr] = State::Resolved;
            }
            return self.decision[nr];
        }
        if self.dependencies[old_count] != nr {
            // It rests on somebody else's guess: keep it as a guess too.
            self.dependencies.push(nr);
            self.decision[nr] = first;
            return first;
        }
        // Our own guess is part of a cycle: try the other guess.
        self.forget_guesses(old_count);
        self.decision[nr] = true;
        self.state[nr] = State::Guessing;
        let second = self.adjudicate(nr);
        if first == second {
            self.forget_guesses(old_count);
            self.decision[nr] = first;
            self.state[nr] = State::Resolved;
            return first;
        }
        // Both guesses consistent (circular movement) or neither (paradox): backup rule.
        let circular = !first && second;
        let cycle: Vec<usize> = self.dependencies[old_count..].to_vec();
        self.forget_guesses(old_count);
        for i in cycle {
            if self.is_move(i) {
                self.decision[i] = circular;
                self.state[i] = State::Resolved;
            }
        }
        self.resolve(nr)
    }

    fn forget_guesses(&mut self, from: usize) {
        for i in self.dependencies.drain(from..) {
            self.state[i] = State::Unresolved;
        }
    }

    fn adjudicate(&mut self, i: usize) -> bool {
        if self.is_move(i) {
            self.move_succeeds(i)
        } else {
            self.support_stands(i)
        }
    }

    /// A support is cut by a move or placement into the supporter's space by another player,
    /// unless the move comes from the space the support is directed into; then only if it
    /// dislodges the supporter.
    fn support_stands(&mut self, i: usize) -> bool {
        let (owner, order) = (&self.orders[i].0, &self.orders[i].1);
        let supporter = order.unit_space().expect("a support has a unit");
        let target = order.target();
        let attackers: Vec<usize> = (0..self.orders.len())
            .filter(|j| self.is_move(*j) && self.orders[*j].0 != *owner)
            .filter(|j| self.orders[*j].1.target() == supporter)
            .collect();
        for j in attackers {
            match self.orders[j].1 {
                Order::Move { from, .. } if from == target => {
                    if self.resolve(j) {
                        return false;
                    }
                }
                _ => return false,
            }
        }
        true
    }

    /// The supports (given or guessed given) of move `i`, as the supporters' owners.
    fn support_owners(&mut self, i: usize) -> Vec<Seat> {
        let (mover, order) = (self.orders[i].0, self.orders[i].1.clone());
        let supports: Vec<usize> = (0..self.orders.len())
            .filter(|j| supports_move(&self.orders[*j].1, mover, &order))
            .collect();
        let mut owners = Vec::new();
        for j in supports {
            if self.resolve(j) {
                owners.push(self.orders[j].0);
            }
        }
        owners
    }

    /// The head-to-head opponent of move `i`: the unit on its target moving to its origin.
    fn head_to_head(&self, i: usize) -> Option<usize> {
        let Order::Move { from, to } = self.orders[i].1 else {
            return None;
        };
        let j = *self.move_from.get(&to)?;
        matches!(self.orders[j].1, Order::Move { to: back, .. } if back == from).then_some(j)
    }

    fn hold_strength(&mut self, space: Space) -> usize {
        if !self.position.units.contains_key(&space) {
            return 0;
        }
        if let Some(&j) = self.move_from.get(&space) {
            return if self.resolve(j) { 0 } else { 1 };
        }
        let holders: Vec<usize> = (0..self.orders.len())
            .filter(
                |j| matches!(self.orders[*j].1, Order::SupportHold { held, .. } if held == space),
            )
            .collect();
        let mut strength = 1;
        for j in holders {
            if self.resolve(j) {
                strength += 1;
            }
        }
        strength
    }

    fn attack_strength(&mut self, i: usize) -> usize {
        let mover = self.orders[i].0;
        let to = self.orders[i].1.target();
        let supporters = self.support_owners(i);
        let Some(&occupant) = self.position.units.get(&to) else {
            return 1 + supporters.len();
        };
        if let Some(&j) = self.move_from.get(&to) {
            if self.head_to_head(i).is_none() && self.resolve(j) {
                return 1 + supporters.len();
            }
        }
        if occupant == mover {
            // No self-dislodgement.
            return 0;
        }
        // Support from the occupant's own player does not help to dislodge it.
        1 + supporters.iter().filter(|s| **s != occupant).count()
    }

    fn prevent_strength(&mut self, j: usize) -> usize {
        if let Some(opponent) = self.head_to_head(j) {
            if self.resolve(opponent) {
                return 0;
            }
        }
        1 + self.support_owners(j).len()
    }

    fn move_succeeds(&mut self, i: usize) -> bool {
        let to = self.orders[i].1.target();
        let attack = self.attack_strength(i);
        if let Some(opponent) = self.head_to_head(i) {
            let defend = 1 + self.support_owners(opponent).len();
            if attack <= defend {
                return false;
            }
        } else if attack <= self.hold_strength(to) {
            return false;
        }
        let rivals: Vec<usize> = (0..self.orders.len())
            .filter(|j| *j != i && self.is_move(*j) && self.orders[*j].1.target() == to)
            .collect();
        for j in rivals {
            if attack <= self.prevent_strength(j) {
                return false;
            }
        }
        true
    }
}

/// True when `support` (an order) supports `order`, the move or placement of `mover`.
fn supports_move(support: &Order, mover: Seat, order: &Order) -> bool {
    match (support, order) {
        (
            Order::SupportMove { from, to, .. },
            Order::Move {
                from: moving_from,
                to: moving_to,
            },
        ) => from == moving_from && to == moving_to,
        (Order::SupportPlace { colour, to, .. }, Order::Place { to: placing_to }) => {
            *colour == Some(mover) && to == placing_to
        }
        _ => false,
    }
}

/// Adjudicates valid orders (at most one per seat, already checked by `Order::validate`).
pub fn adjudicate(position: &Position, orders: &[(Seat, Order)]) -> Resolution {
    let mut adjudicator = Adjudicator::new(position, orders);
    for i in 0..orders.len() {
        adjudicator.resolve(i);
    }
    let decision = adjudicator.decision;
    let results: Vec<Verdict> = orders
        .iter()
        .enumerate()
        .map(|(i, (seat, order))| match order {
            Order::Move { .. } | Order::Place { .. } => {
                if decision[i] {
                    Verdict::Succeeds
                } else {
                    Verdict::Fails
                }
            }
            Order::SupportHold { held, .. } => {
                let held_moves = orders
                    .iter()
                    .any(|(_, o)| matches!(o, Order::Move { from, .. } if from == held));
                match (held_moves, decision[i]) {
                    (true, _) => Verdict::Unmatched,
                    (false, true) => Verdict::Given,
                    (false, false) => Verdict::Cut,
                }
            }
            _ => {
                let matched = orders
                    .iter()
                    .any(|(mover, o)| supports_move(order, *mover, o) && mover != seat);
                match (matched, decision[i]) {
                    (false, _) => Verdict::Unmatched,
                    (true, true) => Verdict::Given,
                    (true, false) => Verdict::Cut,
                }
            }
        })
        .collect();

    let mut after = position.clone();
    let mut moved_away = Vec::new();
    let mut arrivals = Vec::new();
    for (i, (seat, order)) in orders.iter().enumerate() {
        if results[i] != Verdict::Succeeds {
            continue;
        }
        match order {
            Order::Move { from, to } => {
                moved_away.push(*from);
                arrivals.push((*to, *seat));
            }
            Order::Place { to } => {
                after.reserves[*seat] -= 1;
                arrivals.push((*to, *seat));
            }
            _ => {}
        }
    }
    let mut dislodged = Vec::new();
    for (space, owner) in &position.units {
        let left = moved_away.contains(space);
        if !left && arrivals.iter().any(|(to, _)| to == space) {
            dislodged.push((*space, *owner));
            after.reserves[*owner] += 1;
        }
    }
    for space in moved_away.iter().chain(dislodged.iter().map(|(s, _)| s)) {
        after.units.remove(space);
    }
    for (to, seat) in arrivals {
        let previous = after.units.insert(to, seat);
        debug_assert!(previous.is_none(), "two units end on {to}");
    }
    Resolution {
        results,
        dislodged,
        after,
    }
}

/// A claim as judged after the adjudication.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClaimResult {
    pub seat: Seat,
    /// The claimant's complete line, if the claim is valid.
    pub line: Option<[Space; 4]>,
}

/// One whole turn: every seat's lines read, the valid orders adjudicated, claims judged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Turn {
    pub before: Position,
    /// Per seat: its lines as given and how each was read.
    pub lines: [Vec<(String, LineReading)>; 4],
    /// The seat, its order and the result, for every valid order.
    pub orders: Vec<(Seat, Order, Verdict)>,
    pub dislodged: Vec<(Space, Seat)>,
    pub after: Position,
    pub claims: Vec<ClaimResult>,
}

impl Turn {
    /// Seats whose claims were valid: one is a win, two or more a draw among them.
    pub fn winners(&self) -> Vec<Seat> {
        self.claims
            .iter()
            .filter(|c| c.line.is_some())
            .map(|c| c.seat)
            .collect()
    }

    /// The result of seat's order, if it had a valid one.
    pub fn result_of(&self, seat: Seat) -> Option<Verdict> {
        self.orders
            .iter()
            .find(|(s, _, _)| *s == seat)
            .map(|(_, _, r)| *r)
    }
}

/// Runs a turn: `lines[seat]` are the lines each seat sent (resigned seats: pass none).
pub fn run_turn(position: &Position, lines: &[Vec<String>; 4], support_hold: bool) -> Turn {
    let mut read: [Vec<(String, LineReading)>; 4] = Default::default();
    let mut orders = Vec::new();
    let mut claimants = Vec::new();
    for seat in 0..4 {
        let readings = read_player_lines(seat, &lines[seat], position, support_hold);
        if let Some(order) = the_order(&readings) {
            orders.push((seat, order.clone()));
        }
        if readings.contains(&LineReading::Claim) {
            claimants.push(seat);
        }
        read[seat] = lines[seat].iter().cloned().zip(readings).collect();
    }
    let resolution = adjudicate(position, &orders);
    let claims = claimants
        .into_iter()
        .map(|seat| ClaimResult {
            seat,
            line: find_line(|s| resolution.after.units.get(&s) == Some(&seat)),
        })
        .collect();
    Turn {
        before: position.clone(),
        lines: read,
        orders: orders
            .into_iter()
            .zip(resolution.results)
            .map(|((s, o), r)| (s, o, r))
            .collect(),
        dislodged: resolution.dislodged,
        after: resolution.after,
        claims,
    }
}
