//! Dice Rink's own search: alpha-beta over the positions themselves, a table of the positions searched, and a line that comes back to a position already on it counted as a stalled race.
//!
//! Why its own: Dice Rink rolls no dice in play, so the expectimax of `search.rs` is plain
//! minimax there, walking text plies through `AnyGame`: it saw five plies. The races it drew
//! were forcing cycles of eight plies (each robot move matches an opposing die, each answer
//! is forced and matches the robot's die back), invisible at that depth, so the robot walked
//! them until the game was cut. Here a ply is a `Move` on a `Position` (no text, no clone of
//! the game), so the strong robot sees a dozen plies and more, and a line that repeats a
//! position counts as a stall worth less to the robot than a modestly worse position: it
//! leaves a cycle whenever anything sound leaves it. The game's record is not in the robot's
//! `View`, so the repetition it sees is within its own search, from the position it is given.

use super::super::eval;
use super::super::rng::Rng;
use super::super::Level;
use crate::games::dicerink::die::Dir;
use crate::games::dicerink::legal::{self, Move, SetupRule};
use crate::games::dicerink::position::{goal_rank, Position};
use crate::games::dicerink::DiceRink;
use crate::games::{Rules, Seat};

/// A win's value to its winner (less a little per ply, so a sooner win is a better one);
/// any judgement of a position lies in (-1, 1).
const WIN: f64 = 100.0;
/// A line that repeats a position: worth this much less than an even game to the robot (and
/// as much more to its opponent). A cycle never ends, and the robot plays to win: it prefers
/// a position judged a little worse that still goes somewhere.
const STALL: f64 = 0.4;
/// Past this many moves a game is long, and a stall costs the robot a hundredth more each
/// move (up to half as much again): its patience with a race that goes nowhere runs out.
const PATIENCE: u32 = 20;
/// How much the position just after a root move adds to the move's searched value.
const NOW: f64 = 0.1;
/// How often the robot reckons its opponent misses its best reply (near the root).
const SLIP: f64 = 0.25;
/// Entries in the table of positions searched (a power of two): 3 MB.
const TABLE: usize = 1 << 17;

/// How a level searches: the deepest depth tried (in plies), the positions it may search,
/// and how many plies from the root it reckons the opponent fallible.
fn limits(level: Level) -> (u32, u64, u32) {
    match level {
        Level::Easy => (1, 1_000, 0),
        Level::Normal => (4, 20_000, 1),
        Level::Strong => (24, 300_000, 3),
    }
}

/// The robot's ply in a Dice Rink game, `me` to move and `plies` its legal plies (two or
/// more); None if the search found nothing the game lists (it always does).
pub(super) fn best_ply(
    g: &DiceRink,
    plies: &[String],
    me: Seat,
    level: Level,
    rng: &mut Rng,
) -> Option<String> {
    let pos = g.position();
    // The set-up rule is not public, but the placements are: under the fixed set-up nobody
    // may place on files a or d, under the free one some a or d square of the home rank is
    // always still open to the side to place.
    let rule = if plies
        .iter()
        .any(|p| p.starts_with('a') || p.starts_with('d'))
    {
        SetupRule::Free
    } else {
        SetupRule::Fixed
    };
    // The game's move number goes into the seed: a position met again later in a game may be
    // met in a cycle, and the same choice there would keep the cycle going.
    let moves_made = g.move_number().map_or(0, |(n, _)| n);
    let mut rng =
        Rng::new(rng.next_u64() ^ u64::from(moves_made).wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let mut order = legal::legal_moves(pos, rule);
    // Equal moves are chosen among at random: the root's order is shuffled and the first of
    // the best is kept.
    for i in (1..order.len()).rev() {
        order.swap(i, rng.below(i + 1));
    }
    let (max_depth, budget, fallible) = limits(level);
    let late = f64::from(moves_made.saturating_sub(PATIENCE)) * 0.01;
    let mut search = Search {
        me,
        rule,
        nodes: 0,
        budget,
        fallible,
        path: Vec::new(),
        table: vec![None; TABLE],
        stall: STALL + late.min(0.5),
    };
    let mut values = vec![0.0; order.len()];
    for depth in 1..=max_depth {
        let Some(found) = search.root(pos, &order, depth) else {
            break;
        };
        values = found;
        // The best goes first for the next depth: it is searched first, and kept on a tie.
        let i = (0..values.len()).fold(0, |b, i| if values[i] > values[b] { i } else { b });
        order[..=i].rotate_right(1);
        values[..=i].rotate_right(1);
        if values[0].abs() > WIN / 2.0 {
            break;
        }
    }
    // In a long game the robot takes any move near the best now and then (seeded by the move
    // number): a race that has gone on this long is likely going round, and a weaker
    // opponent must be given the chance to go wrong somewhere new.
    let near: Vec<usize> = (0..values.len())
        .filter(|&i| values[i] >= values[0] - late.min(0.4))
        .collect();
    let best = order[near[rng.below(near.len())]];
    let text = legal::canonical(pos, &best);
    plies.contains(&text).then_some(text)
}

/// What the table remembers of a position: the depth searched, the value and whether it is
/// exact or a bound, and the best move found (searched first next time).
#[derive(Clone, Copy)]
struct Entry {
    key: u64,
    depth: u32,
    value: f64,
    bound: Bound,
    best: Move,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

struct Search {
    me: Seat,
    rule: SetupRule,
    nodes: u64,
    budget: u64,
    /// The opponent's replies up to this many plies from the root are judged fallible.
    fallible: u32,
    /// The keys of the positions on the line being searched, root first.
    path: Vec<u64>,
    table: Vec<Option<Entry>>,
    /// What a repetition costs the robot in this game (more the longer it has gone on).
    stall: f64,
}

impl Search {
    /// Each root move's value at this depth, or None when the count ran out. The opponent's
    /// replies are judged fallible, each searched in full, so every value is exact.
    fn root(&mut self, pos: &Position, order: &[Move], depth: u32) -> Option<Vec<f64>> {
        self.path.clear();
        self.path.push(key(pos));
        let mut values = Vec::with_capacity(order.len());
        for &mv in order {
            // The position's own judgement just after the move, a little of it: between lines
            // that search to the same value, the one that gains now (a die forward, not back
            // to come forward again later).
            let now =
                NOW * 0.95 * eval::dice_rink_position(&legal::apply(pos, &mv), self.me).tanh();
            let all = f64::INFINITY;
            values.push(self.after(pos, mv, depth, 1, -all, all)? + now);
        }
        Some(values)
    }

    /// The value of playing `mv` in `pos` for the side that plays it.
    fn after(
        &mut self,
        pos: &Position,
        mv: Move,
        depth: u32,
        ply: u32,
        alpha: f64,
        beta: f64,
    ) -> Option<f64> {
        let child = legal::apply(pos, &mv);
        let mover = pos.to_move;
        if legal::setup_done(pos)
            && child
                .dice_of(mover)
                .all(|d| d.square.rank() == goal_rank(mover))
        {
            return Some(WIN - f64::from(ply));
        }
        let k = key(&child);
        if self.path.contains(&k) {
            return Some(if mover == self.me {
                -self.stall
            } else {
                self.stall
            });
        }
        self.path.push(k);
        let v = self.negamax(&child, k, depth - 1, ply, -beta, -alpha);
        self.path.pop();
        Some(-v?)
    }

    /// Negamax with alpha-beta: the value of `pos` for its side to move.
    fn negamax(
        &mut self,
        pos: &Position,
        k: u64,
        depth: u32,
        ply: u32,
        mut alpha: f64,
        beta: f64,
    ) -> Option<f64> {
        self.nodes += 1;
        if self.nodes > self.budget {
            return None;
        }
        if depth == 0 {
            let e = 0.95 * eval::dice_rink_position(pos, self.me).tanh();
            return Some(if pos.to_move == self.me { e } else { -e });
        }
        if pos.to_move != self.me && ply <= self.fallible {
            return self.fallible(pos, depth, ply);
        }
        let slot = (k.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 47) as usize % TABLE;
        let mut first = None;
        if let Some(e) = self.table[slot].filter(|e| e.key == k) {
            first = Some(e.best);
            if e.depth >= depth
                && match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => e.value >= beta,
                    Bound::Upper => e.value <= alpha,
                }
            {
                return Some(e.value);
            }
        }
        let mut list = legal::legal_moves(pos, self.rule);
        if let Some(i) = first.and_then(|m| list.iter().position(|x| *x == m)) {
            list.swap(0, i);
        }
        let alpha0 = alpha;
        let mut best = (-f64::INFINITY, list[0]);
        for mv in list {
            let v = self.after(pos, mv, depth, ply + 1, alpha, beta)?;
            if v > best.0 {
                best = (v, mv);
            }
            alpha = alpha.max(v);
            if alpha >= beta {
                break;
            }
        }
        let bound = if best.0 <= alpha0 {
            Bound::Upper
        } else if best.0 >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table[slot] = Some(Entry {
            key: k,
            depth,
            value: best.0,
            bound,
            best: best.1,
        });
        Some(best.0)
    }
}

impl Search {
    /// An opponent's reply near the root, judged as a fallible player makes it: its best most
    /// of the time, any of its moves now and then. A perfect opponent could often hold the
    /// race in a cycle for ever; a line where it must find the one holding move at every turn
    /// is worth playing against one that does not always find it. Every reply is searched in
    /// full (no cut-off applies to an average), so this is done only this near the root.
    fn fallible(&mut self, pos: &Position, depth: u32, ply: u32) -> Option<f64> {
        let list = legal::legal_moves(pos, self.rule);
        let mut best = -f64::INFINITY;
        let mut sum = 0.0;
        for &mv in &list {
            let v = self.after(pos, mv, depth, ply + 1, -f64::INFINITY, f64::INFINITY)?;
            best = best.max(v);
            // A win in the average counts as a good position, not a hundred of them.
            sum += v.clamp(-1.0, 1.0);
        }
        Some((1.0 - SLIP) * best + SLIP * sum / list.len() as f64)
    }
}

/// A position as a number, exactly: each die in 12 bits (present, owner, square, top and
/// north face), then the forced square and the side to move.
fn key(pos: &Position) -> u64 {
    let mut k = 0u64;
    for d in pos.dice() {
        let sq = u64::from(d.square.file() * 4 + d.square.rank());
        let face = u64::from((d.top() - 1) * 6 + d.orient.face(Dir::North) - 1);
        k = (k << 12) | 1 << 11 | (d.owner as u64) << 10 | sq << 6 | face;
    }
    let forced = pos
        .forced
        .map_or(0, |s| 1 + u64::from(s.file() * 4 + s.rank()));
    k | forced << 48 | (pos.to_move as u64) << 53
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The key tells apart the positions of pseudo-random games of both set-ups (a move always
    /// changes the position), and every move the game lists for the search passes its worded
    /// check.
    #[test]
    fn keys_tell_positions_apart_and_the_moves_are_legal() {
        let mut seed = 7u64;
        for game in 0..60 {
            let rule = if game % 2 == 0 {
                SetupRule::Free
            } else {
                SetupRule::Fixed
            };
            let mut pos = Position::empty();
            for _ in 0..200 {
                let moves = legal::legal_moves(&pos, rule);
                for mv in &moves {
                    assert_eq!(legal::check(&pos, rule, mv), Ok(()), "{}", pos.tag());
                }
                seed = seed
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let mv = moves[(seed >> 33) as usize % moves.len()];
                let next = legal::apply(&pos, &mv);
                assert_ne!(key(&next), key(&pos));
                pos = next;
            }
        }
    }
}
