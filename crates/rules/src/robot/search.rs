//! The robot's search for sequential games: expectimax over the `Rules` of any game, chance as the average over the dice, other seats as opponents, iteratively deepened within a count of positions.
//!
//! Depth counts turns, not plies: a seat that goes on after its own ply (d4 d6 chess's choice
//! after its declaration's roll, Siberian Dice's placement after its roll) is searched to the
//! end of its turn at every depth, so the evaluation always sees a turn completed. Depth 0 is
//! the robot's own turn alone; each further depth adds the next seat's turn. A deeper search
//! that would pass the level's count of positions is abandoned and the last complete one
//! decides, so the answer depends on counts only, never on time.

mod rink;

use super::eval;
use super::rng::Rng;
use super::Level;
use crate::games::{Actor, AnyGame, GameKind, GameRef, Outcome, Seat, ToAct};

/// A roll with more outcomes than this is sampled rather than enumerated.
const ENUMERATE: usize = 36;
/// Rolls sampled when there are too many to enumerate.
const SAMPLES: usize = 6;
/// Root values this close to the best count as equally good.
const NEAR: f64 = 0.02;
/// The easy robot plays without looking one turn in this many: a beginner's oversight.
const OVERSIGHT: usize = 4;

/// How far and how much a level searches: the deepest depth tried, and the positions (plies
/// played) it may spend beyond the robot's own turn.
fn limits(kind: GameKind, level: Level) -> (u32, u64) {
    // Dicess's whole turns are dozens a side: a second turn each (depth 2) would pass any
    // count that keeps a second, and an abandoned depth costs its whole count for nothing. So
    // the strongest robot judges its turn against every reply, the normal its turn alone.
    if kind == GameKind::Dicess {
        return match level {
            Level::Easy | Level::Normal => (0, 0),
            Level::Strong => (1, 12_000),
        };
    }
    // A d4 d6 chess turn is thousands of positions (each declaration, its roll, up to hundreds
    // of choices after it): the next seat's turn under each would be millions, which no count
    // that keeps a second reaches, and an abandoned depth costs its whole count for nothing.
    // So every level judges its own turn to its end, chance included (the tablebase decides
    // the 2-men endings); the easy one now and then without looking.
    if kind == GameKind::D4D6 {
        return (0, 0);
    }
    // Plies cost very different amounts in different games (d4 d6 chess lists up to a thousand
    // plies in a position, Siberian Dice under forty): the counts keep the strongest level
    // well under a second of CPU per decision.
    let scale: u64 = match kind {
        GameKind::D4D6 => 1,
        GameKind::Dicess => 2,
        GameKind::DiceRink => 8,
        GameKind::Siberian => 3,
        GameKind::DipTacToe => 1,
    };
    match level {
        Level::Easy => (0, 0),
        Level::Normal => (1, 3_000 * scale),
        Level::Strong => (4, 12_000 * scale),
    }
}

/// The ply the robot plays for `me`, to move in `game`.
pub(super) fn best_ply(game: &AnyGame, me: Seat, level: Level, rng: &mut Rng) -> Option<String> {
    let plies = plies_of(game);
    match plies.len() {
        0 => return None,
        1 => return plies.into_iter().next(),
        _ => {}
    }
    // The easy robot is a beginner: it judges only the end of its own turn, and now and then
    // plays a move without looking at all (seeded, so still the same answer for the same view).
    if level == Level::Easy && rng.below(OVERSIGHT) == 0 {
        return Some(plies[rng.below(plies.len())].clone());
    }
    // Siberian Dice has its own search (robot/siberian.rs): a turn there is too wide for
    // this one's second turn to fit any count.
    if let (GameRef::Siberian(g), Level::Normal | Level::Strong) = (game.game(), level) {
        return super::siberian::best_ply(g, me, level, &plies, rng);
    }
    // Dice Rink beyond the beginner has its own deeper search (search/rink.rs says why).
    if let (GameRef::DiceRink(g), Level::Normal | Level::Strong) = (game.game(), level) {
        if let Some(ply) = rink::best_ply(g, &plies, me, level, rng) {
            return Some(ply);
        }
    }
    let (max_depth, budget) = limits(game.kind(), level);
    let mut search = Search {
        me,
        nodes: 0,
        budget: u64::MAX,
        rng: Rng::new(rng.next_u64()),
    };
    let mut values = search.root(game, &plies, 0)?;
    search.budget = budget;
    for depth in 1..=max_depth {
        search.nodes = 0;
        match search.root(game, &plies, depth) {
            Some(v) => values = v,
            None => break,
        }
    }
    // Near-equal plies are chosen among at random (seeded): a robot that always took the
    // same of two equal plies could walk the same cycle for ever in a race with no progress
    // within its horizon.
    let best = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let ties: Vec<usize> = (0..plies.len())
        .filter(|&i| values[i] >= best - NEAR)
        .collect();
    Some(plies[ties[rng.below(ties.len())]].clone())
}

/// The plies a seat's search weighs: Dicess's whole turns and placements from the robot's own
/// generator (the game lists one-step turns and one placement), every other game's legal plies.
fn plies_of(game: &AnyGame) -> Vec<String> {
    match game.kind() {
        GameKind::Dicess => super::dicess::candidates(game),
        _ => game.legal_plies(),
    }
}

struct Search {
    me: Seat,
    nodes: u64,
    budget: u64,
    rng: Rng,
}

impl Search {
    /// Each root ply's value at this depth, or None when the count ran out.
    fn root(&mut self, game: &AnyGame, plies: &[String], depth: u32) -> Option<Vec<f64>> {
        let mut values = Vec::with_capacity(plies.len());
        for ply in plies {
            let child = self.child(game, Actor::Seat(self.me), ply)?;
            values.push(self.value(&child, depth, self.me)?);
        }
        Some(values)
    }

    /// The position after a ply (counted); None when the count ran out or the ply failed
    /// (a legal ply never fails; a failure only makes the branch worthless, never a panic).
    fn child(&mut self, game: &AnyGame, actor: Actor, ply: &str) -> Option<AnyGame> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return None;
        }
        let mut child = game.clone();
        child.play(actor, ply).ok()?;
        Some(child)
    }

    /// The value of a position for the robot; `last` is the seat that made the last seat ply.
    fn value(&mut self, game: &AnyGame, depth: u32, last: Seat) -> Option<f64> {
        if let Some(outcome) = game.outcome() {
            // A win found with depth to spare is a sooner win: better.
            return Some(terminal(&outcome, self.me) * (1.0 + 0.01 * f64::from(depth)));
        }
        match game.to_act() {
            ToAct::Chance(sides) => self.chance(game, &sides, depth, last),
            ToAct::Seat(s) => {
                let depth = if s == last {
                    depth
                } else if depth == 0 {
                    return Some(eval::evaluate(game, self.me));
                } else {
                    depth - 1
                };
                let plies = plies_of(game);
                let mut best: Option<f64> = None;
                for ply in &plies {
                    let Some(child) = self.child(game, Actor::Seat(s), ply) else {
                        if self.nodes > self.budget {
                            return None;
                        }
                        continue;
                    };
                    let v = self.value(&child, depth, s)?;
                    best = Some(match best {
                        None => v,
                        Some(b) if s == self.me => b.max(v),
                        Some(b) => b.min(v),
                    });
                }
                Some(best.unwrap_or_else(|| eval::evaluate(game, self.me)))
            }
            ToAct::Orders(_) | ToAct::Nobody => Some(eval::evaluate(game, self.me)),
        }
    }

    /// The average over the roll's outcomes, each equally likely: all of them when few, else
    /// a sample drawn from the robot's seeded generator.
    fn chance(&mut self, game: &AnyGame, sides: &[u32], depth: u32, last: Seat) -> Option<f64> {
        let total: usize = sides
            .iter()
            .try_fold(1usize, |acc, s| acc.checked_mul(*s as usize))
            .unwrap_or(usize::MAX);
        let rolls: Vec<Vec<u32>> = if total <= ENUMERATE {
            (0..total)
                .map(|mut i| {
                    sides
                        .iter()
                        .map(|s| {
                            let v = (i % *s as usize) as u32 + 1;
                            i /= *s as usize;
                            v
                        })
                        .collect()
                })
                .collect()
        } else {
            (0..SAMPLES)
                .map(|_| {
                    sides
                        .iter()
                        .map(|s| self.rng.below(*s as usize) as u32 + 1)
                        .collect()
                })
                .collect()
        };
        let mut sum = 0.0;
        let mut n = 0.0;
        for roll in rolls {
            let ply = game.chance_ply(&roll);
            let Some(child) = self.child(game, Actor::Chance, &ply) else {
                if self.nodes > self.budget {
                    return None;
                }
                continue;
            };
            sum += self.value(&child, depth, last)?;
            n += 1.0;
        }
        Some(if n > 0.0 { sum / n } else { 0.0 })
    }
}

/// An ended game's value for `me`: 1 a win, -1 a loss (another seat's win), a draw 0 when it
/// includes `me` and -1 when it does not (a three-player draw between the others).
pub(super) fn terminal(outcome: &Outcome, me: Seat) -> f64 {
    match outcome {
        Outcome::Win { seat, .. } if *seat == me => 1.0,
        Outcome::Win { .. } => -1.0,
        Outcome::Draw { seats, .. } if seats.contains(&me) => 0.0,
        Outcome::Draw { .. } => -1.0,
    }
}
