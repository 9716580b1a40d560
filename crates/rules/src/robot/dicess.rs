//! The robot's plies for Dicess: whole turns (several steps and dice, up to 6 points) found by a bounded beam over steps, a few sensible set-up placements, and the judgement of a board both use.
//!
//! The game itself lists only one-step turns and the placement as rolled (a full list of
//! turns runs to thousands); the search needs the turns worth considering. A turn here is
//! built step by step on a small copy of the board (each side's dice as signed numbers), the
//! partial turns after each step judged cheaply and the best `BEAM` of them carried on, every
//! board reached once. The turns found are ranked by the full judgement of the board they
//! leave and the best `KEEP` handed to the search, captures always among them. A turn that
//! wins at once (a die reaching a star square) is the only candidate when there is one.

use std::collections::HashSet;

use crate::games::dicess::notation::{self, Path, Step};
use crate::games::dicess::position::{Board, Square, LIGHT, TURN_POINTS};
use crate::games::dicess::{setup, tag};
use crate::games::{AnyGame, GameRef, Seat, ToAct};

/// Partial turns carried on after each step.
const BEAM: usize = 40;
/// Whole turns handed to the search.
const KEEP: usize = 48;
/// Turns, among those the cheap score ranks best, given the full judgement.
const RERANK: usize = 96;
/// Captures kept beyond `KEEP` when the judgement ranks them lower.
const EXTRA_CAPTURES: usize = 12;

/// The board from one side: 0 empty, +n that side's die showing n, -n the other side's.
pub(super) type Cells = [i8; 64];

/// The board as `me` sees it.
pub(super) fn cells(board: &Board, me: Seat) -> Cells {
    let mut c = [0i8; 64];
    for (sq, die) in board.dice() {
        let n = die.number as i8;
        c[index(sq)] = if die.side == me { n } else { -n };
    }
    c
}

fn index(sq: Square) -> usize {
    usize::from(sq.rank()) * 8 + usize::from(sq.file())
}

fn square(i: usize) -> Square {
    Square::new((i % 8) as u8, (i / 8) as u8).expect("an index below 64")
}

/// The orthogonal neighbours of a square's index.
fn neighbours(i: usize) -> impl Iterator<Item = usize> {
    let (f, r) = (i % 8, i / 8);
    [
        (f > 0).then(|| i - 1),
        (f < 7).then(|| i + 1),
        (r > 0).then(|| i - 8),
        (r < 7).then(|| i + 8),
    ]
    .into_iter()
    .flatten()
}

/// The row of a square as `side` counts it: 1 its own back rank, 8 the far one.
fn row(i: usize, side: Seat) -> i32 {
    i32::from(square(i).row_of(side))
}

/// The star squares `side` wins by entering: d8 e8 for LIGHT, d1 e1 for DARK.
fn goals(side: Seat) -> [usize; 2] {
    if side == LIGHT {
        [59, 60]
    } else {
        [3, 4]
    }
}

/// Orthogonal steps from a square to the nearer of `side`'s goals, obstacles ignored.
fn to_goal(i: usize, side: Seat) -> i32 {
    goals(side)
        .iter()
        .map(|&g| ((i % 8).abs_diff(g % 8) + (i / 8).abs_diff(g / 8)) as i32)
        .min()
        .unwrap_or(0)
}

/// The robot's plies for the seat to act in a Dicess game: whole turns in a turn, placements
/// in the set-up; the game's own list anywhere else (the roll, a pass, another game).
pub(super) fn candidates(game: &AnyGame) -> Vec<String> {
    let (GameRef::Dicess(g), ToAct::Seat(side)) = (game.game(), game.to_act()) else {
        return game.legal_plies();
    };
    // Only a turn has a move number; before it the seat to act places its dice.
    let found = if game.move_number().is_some() {
        turns(g.position(), side)
    } else {
        placements(game, side)
    };
    if found.is_empty() {
        game.legal_plies()
    } else {
        found
    }
}

/// One step of a turn, on indices: `promote` is a number written `=n` (one that changes it).
#[derive(Debug, Clone, Copy)]
struct Move {
    from: usize,
    to: usize,
    capture: bool,
    promote: Option<i8>,
}

/// A turn under construction: the board it leaves, the points spent, its steps, whether it
/// has ended (a capture or a star entered), and its cheap score.
#[derive(Debug, Clone)]
struct Partial {
    cells: Cells,
    cost: i8,
    moves: Vec<Move>,
    ended: bool,
    score: f64,
}

/// Whole turns for `side`: the winning one alone when a die can reach a star square now, else
/// the best `KEEP` by the judgement of the board they leave, captures always included.
fn turns(board: &Board, side: Seat) -> Vec<String> {
    let start = cells(board, side);
    if let Some(win) = winning_path(&start, side) {
        return vec![text(&win)];
    }
    let mut seen: HashSet<Cells> = HashSet::new();
    seen.insert(start);
    let mut layer = vec![Partial {
        cells: start,
        cost: 0,
        moves: Vec::new(),
        ended: false,
        score: 0.0,
    }];
    let mut pool: Vec<Partial> = Vec::new();
    while !layer.is_empty() {
        let mut next = Vec::new();
        for p in &layer {
            extend(p, side, &mut seen, &mut next);
        }
        next.sort_by(|a, b| b.score.total_cmp(&a.score));
        layer = next
            .iter()
            .filter(|p| !p.ended)
            .take(BEAM)
            .cloned()
            .collect();
        pool.extend(next);
    }
    choose(pool, side)
}

/// Ranks the turns found: the cheap score picks the ones worth judging (every one-step turn
/// and every capture among them), the full judgement orders those.
fn choose(mut pool: Vec<Partial>, side: Seat) -> Vec<String> {
    // A stable sort on scores from a deterministic generation: the same board always gives
    // the same list.
    pool.sort_by(|a, b| b.score.total_cmp(&a.score));
    let mut judged: Vec<(f64, &Partial)> = pool
        .iter()
        .enumerate()
        .filter(|(i, p)| *i < RERANK || p.moves.len() == 1 || p.ended)
        .map(|(_, p)| {
            let won = p.moves.iter().any(|m| goals(side).contains(&m.to));
            let value = if won {
                f64::INFINITY
            } else {
                judge(&p.cells, side, false)
            };
            (value, p)
        })
        .collect();
    judged.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut out: Vec<String> = judged
        .iter()
        .take(KEEP)
        .map(|(_, p)| text(&p.moves))
        .collect();
    out.extend(
        judged
            .iter()
            .skip(KEEP)
            .filter(|(_, p)| p.ended)
            .take(EXTRA_CAPTURES)
            .map(|(_, p)| text(&p.moves)),
    );
    out
}

/// Every legal next step of a partial turn, onto boards not reached before.
fn extend(p: &Partial, side: Seat, seen: &mut HashSet<Cells>, next: &mut Vec<Partial>) {
    let budget = TURN_POINTS as i8;
    for from in 0..64 {
        let n = p.cells[from];
        if n <= 0 || p.cost + n > budget {
            continue;
        }
        for to in neighbours(from) {
            let target = p.cells[to];
            if target > 0 {
                continue;
            }
            let capture = target < 0;
            if capture && strength(&p.cells, from, to) < i32::from(-target) {
                continue;
            }
            // Into the last row a die may change its number: 1 to run on to a star square,
            // 6 to hold and capture; any other is seldom better.
            let promotions: &[Option<i8>] = if row(from, side) == 7 && row(to, side) == 8 {
                &[None, Some(1), Some(6)]
            } else {
                &[None]
            };
            for &promote in promotions {
                let promote = promote.filter(|&k| k != n);
                let mut c = p.cells;
                c[from] = 0;
                c[to] = promote.unwrap_or(n);
                if !seen.insert(c) {
                    continue;
                }
                let mv = Move {
                    from,
                    to,
                    capture,
                    promote,
                };
                let mut moves = p.moves.clone();
                moves.push(mv);
                next.push(Partial {
                    cells: c,
                    cost: p.cost + n,
                    moves,
                    ended: capture || goals(side).contains(&to),
                    score: p.score + gain(&p.cells, side, mv),
                });
            }
        }
    }
}

/// What a capture from `from` onto `to` brings: the capturer and the mover's dice next to
/// `to`, as they stand (the game's `steps::strength`, on the robot's compact board).
fn strength(c: &Cells, from: usize, to: usize) -> i32 {
    let support: i32 = neighbours(to)
        .filter(|&s| s != from)
        .map(|s| i32::from(c[s].max(0)))
        .sum();
    i32::from(c[from].max(0)) + support
}

/// The cheap score of one step: the judgement's change for the moved die (its row, its number,
/// its nearness to a star square) and the die it captures.
fn gain(c: &Cells, side: Seat, mv: Move) -> f64 {
    let n = f64::from(c[mv.from]);
    let m = mv.promote.map_or(n, f64::from);
    let mut g = 0.6 * f64::from(row(mv.to, side) - row(mv.from, side)) + 0.4 * (m - n);
    g += 0.3 * f64::from(to_goal(mv.from, side) - to_goal(mv.to, side));
    if mv.capture {
        let taken = f64::from(-c[mv.to]);
        g += 10.0 + 0.6 * f64::from(row(mv.to, 1 - side)) + 0.4 * taken;
    }
    g
}

/// A path on which one of `side`'s dice reaches a star square this turn, if there is one:
/// through empty squares within 6 points, the last step onto the star empty or a capture
/// strong enough.
fn winning_path(c: &Cells, side: Seat) -> Option<Vec<Move>> {
    for start in 0..64 {
        let n = c[start];
        if n <= 0 {
            continue;
        }
        let max_steps = (TURN_POINTS as i8 / n) as u8;
        // Most dice are too far to get there whatever stands in the way.
        if to_goal(start, side) > i32::from(max_steps) {
            continue;
        }
        let mut parent = [usize::MAX; 64];
        let mut steps = [u8::MAX; 64];
        steps[start] = 0;
        let mut queue = [start; 64];
        let (mut head, mut tail) = (0, 1);
        while head < tail {
            let at = queue[head];
            head += 1;
            if steps[at] >= max_steps {
                continue;
            }
            for to in neighbours(at) {
                if goals(side).contains(&to) {
                    let mut cells = *c;
                    cells[start] = 0;
                    cells[at] = n;
                    let open =
                        c[to] == 0 || (c[to] < 0 && strength(&cells, at, to) >= i32::from(-c[to]));
                    if open {
                        return Some(path_to(&parent, start, at, to, c[to] < 0));
                    }
                } else if c[to] == 0 && steps[to] == u8::MAX {
                    steps[to] = steps[at] + 1;
                    parent[to] = at;
                    queue[tail] = to;
                    tail += 1;
                }
            }
        }
    }
    None
}

/// The moves of a found path, from `start` through `at` (by `parent`) and onto `goal`.
fn path_to(parent: &[usize; 64], start: usize, at: usize, goal: usize, capture: bool) -> Vec<Move> {
    let mut squares = vec![goal, at];
    let mut s = at;
    while s != start {
        s = parent[s];
        squares.push(s);
    }
    squares.reverse();
    squares
        .windows(2)
        .enumerate()
        .map(|(i, w)| Move {
            from: w[0],
            to: w[1],
            capture: capture && i + 2 == squares.len(),
            promote: None,
        })
        .collect()
}

/// Whether `side` can reach a star square this turn with one die.
fn wins_now(c: &Cells, side: Seat) -> bool {
    winning_path(c, side).is_some()
}

/// A turn's text in the game's notation: a step that goes on from where the last one stopped
/// continues its path (`e2-e3-e4`), any other starts a new one (`; f2-f3`).
fn text(moves: &[Move]) -> String {
    let mut paths: Vec<Path> = Vec::new();
    for m in moves {
        let step = Step {
            to: square(m.to),
            capture: m.capture,
            promote: m.promote.map(|k| k as u32),
        };
        match paths.last_mut() {
            Some(p) if p.steps.last().map(|s| s.to) == Some(square(m.from)) => p.steps.push(step),
            _ => paths.push(Path {
                start: square(m.from),
                steps: vec![step],
            }),
        }
    }
    notation::write_turn(&paths)
}

/// How good the board `c` (seen from `me`) is for `me`, unbounded (the caller squashes it):
/// the seed's score of each die and its number, the fastest die's points to a star square,
/// the dice guarding the own star squares, and above all a die that reaches a star square this
/// turn (`me_to_move`: whose turn it is).
pub(super) fn judge(c: &Cells, me: Seat, me_to_move: bool) -> f64 {
    let opp = 1 - me;
    let flipped: Cells = c.map(|v| -v);
    let (mine_wins, theirs_wins) = (wins_now(c, me), wins_now(&flipped, opp));
    if me_to_move && mine_wins {
        return 100.0;
    }
    if !me_to_move && theirs_wins {
        return -100.0;
    }
    let mut raw = side_worth(c, me) - side_worth(&flipped, opp);
    raw += 8.0 * (f64::from(u8::from(mine_wins)) - f64::from(u8::from(theirs_wins)));
    raw
}

/// One side's worth on a board seen from it (its dice positive): material and advance, its
/// fastest runner, and its guard of the star squares the other side must reach.
fn side_worth(c: &Cells, side: Seat) -> f64 {
    let mut worth = 0.0;
    let mut furthest = 0;
    let mut fastest = i32::MAX;
    for (i, &v) in c.iter().enumerate() {
        if v <= 0 {
            continue;
        }
        let r = row(i, side);
        furthest = furthest.max(r);
        worth += 10.0 + 0.6 * f64::from(r) + 0.4 * f64::from(v);
        fastest = fastest.min(i32::from(v) * to_goal(i, side));
    }
    if fastest == i32::MAX {
        return worth;
    }
    // The points the fastest die still needs, up to four turns' worth, each point a tenth.
    worth += 0.5 * f64::from(furthest) - 0.25 * f64::from(fastest.min(24));
    // The own star squares (the other side's goals): a die on one, or next to one, holds it.
    let guard: i32 = goals(1 - side)
        .iter()
        .flat_map(|&g| std::iter::once(g).chain(neighbours(g)))
        .map(|s| i32::from(c[s].max(0)))
        .sum();
    worth + 0.05 * f64::from(guard.min(40))
}

/// Orders of the 16 home squares, (0 back rank / 1 front rank, file), to which the numbers
/// are given from the highest down.
#[rustfmt::skip]
const ORDERS: [[(usize, usize); 16]; 4] = [
    // Fortress: the highest on and before the star squares, the lowest on the wings.
    [
        (0, 3), (0, 4), (1, 3), (1, 4), (0, 2), (0, 5), (1, 2), (1, 5),
        (0, 1), (0, 6), (1, 1), (1, 6), (0, 0), (0, 7), (1, 0), (1, 7),
    ],
    // Guard and run: the highest behind, the lowest in front in the centre, to run.
    [
        (0, 3), (0, 4), (0, 2), (0, 5), (0, 1), (0, 6), (0, 0), (0, 7),
        (1, 0), (1, 7), (1, 1), (1, 6), (1, 2), (1, 5), (1, 3), (1, 4),
    ],
    // Wall: the highest in front, to block and capture.
    [
        (1, 3), (1, 4), (1, 2), (1, 5), (1, 1), (1, 6), (1, 0), (1, 7),
        (0, 3), (0, 4), (0, 2), (0, 5), (0, 1), (0, 6), (0, 0), (0, 7),
    ],
    // Guarded stars, runners on the wings in front.
    [
        (0, 3), (0, 4), (1, 3), (1, 4), (1, 2), (1, 5), (0, 2), (0, 5),
        (0, 1), (0, 6), (0, 0), (0, 7), (1, 1), (1, 6), (1, 0), (1, 7),
    ],
];

/// Set-up placements of the side's rolled numbers: as rolled, and each of `ORDERS`.
fn placements(game: &AnyGame, side: Seat) -> Vec<String> {
    let Some(rolled) = tag::read(&game.position_tag()).ok().and_then(|t| t.rolled) else {
        return Vec::new();
    };
    let mine = &rolled[side];
    if mine.len() != 16 {
        return Vec::new();
    }
    let [back, front] = setup::home_ranks(side);
    let write = |rows: &[[u8; 8]; 2]| {
        format!(
            "R{back}: {} / R{front}: {}",
            setup::spaced(&rows[0]),
            setup::spaced(&rows[1])
        )
    };
    let mut as_rolled = [[0u8; 8]; 2];
    for (k, &v) in mine.iter().enumerate() {
        as_rolled[k / 8][k % 8] = v;
    }
    let mut out = vec![write(&as_rolled)];
    let mut high_first = mine.clone();
    high_first.sort_unstable_by(|a, b| b.cmp(a));
    for order in &ORDERS {
        let mut rows = [[0u8; 8]; 2];
        for (k, &(r, f)) in order.iter().enumerate() {
            rows[r][f] = high_first[k];
        }
        let text = write(&rows);
        if !out.contains(&text) {
            out.push(text);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{Actor, GameKind, Options};

    fn game(tag: &str) -> AnyGame {
        AnyGame::from_position(GameKind::Dicess, &Options::new(), tag).expect(tag)
    }

    /// Every candidate of the position is a ply the game accepts; returns them.
    fn all_legal(g: &AnyGame) -> Vec<String> {
        let ToAct::Seat(seat) = g.to_act() else {
            panic!("a seat to act")
        };
        let found = candidates(g);
        assert!(!found.is_empty());
        for ply in &found {
            let mut child = g.clone();
            if let Err(e) = child.play(Actor::Seat(seat), ply) {
                panic!("{ply} refused: {e:?}\n{}", g.board());
            }
        }
        found
    }

    #[test]
    fn every_candidate_is_legal_from_the_set_up_to_the_midgame() {
        let mut g = game("LIGHT:- DARK:- move=LIGHT setup=6241135526431265,2251634415623316");
        let placements = all_legal(&g);
        assert!(placements.len() >= 4, "{placements:?}");
        // Each side places, then some turns, each the first candidate (the best judged).
        for ply_number in 0..24 {
            let ToAct::Seat(seat) = g.to_act() else { break };
            let found = all_legal(&g);
            // A winning turn, when there is one, is the only candidate.
            if ply_number >= 2 && found.len() > 1 {
                assert!(
                    found
                        .iter()
                        .any(|t| t.contains(';') || t.matches('-').count() > 1),
                    "no turn of several steps in {found:?}\n{}",
                    g.board()
                );
            }
            g.play(Actor::Seat(seat), &found[ply_number % found.len().min(3)])
                .expect("legal");
        }
    }

    #[test]
    fn a_die_that_can_reach_a_star_square_is_the_only_candidate() {
        let g = game("LIGHT:d2=1,a1=6 DARK:a8=6,h8=6 move=LIGHT");
        assert_eq!(candidates(&g), ["d2-d3-d4-d5-d6-d7-d8"]);
        // Onto a held star square only by a capture strong enough: a 6 there stops a 1.
        let g = game("LIGHT:d2=1,a1=6 DARK:d8=6,e8=6,a8=6 move=LIGHT");
        assert!(all_legal(&g)
            .iter()
            .all(|t| !t.contains("d8") && !t.contains("e8")));
    }

    #[test]
    fn a_promotion_into_the_last_row_is_offered() {
        let g = game("LIGHT:b7=4,a1=6 DARK:d8=6,e8=6,h1=6 move=LIGHT");
        let found = all_legal(&g);
        assert!(found.iter().any(|t| t == "b7-b8=1-c8"), "{found:?}");
    }

    #[test]
    fn judge_sees_a_win_for_the_side_to_move() {
        let g = game("LIGHT:d2=1,a1=6 DARK:a8=6,h8=6 move=LIGHT");
        let GameRef::Dicess(d) = g.game() else {
            panic!()
        };
        let c = cells(d.position(), LIGHT);
        assert_eq!(judge(&c, LIGHT, true), 100.0);
        assert!(judge(&c, LIGHT, false) > 0.0);
        assert_eq!(judge(&cells(d.position(), 1), 1, false), -100.0);
    }

    /// The compact board's capture strength is the game's, for every capture of either side.
    #[test]
    fn capture_strength_is_the_games() {
        use crate::games::dicess::steps;
        let g = game("LIGHT:c4=2,d5=1,e4=3,c5=6,d4=1 DARK:d3=4,e5=5,c6=2,b5=3 move=LIGHT");
        let GameRef::Dicess(d) = g.game() else {
            panic!()
        };
        let board = d.position();
        let mut captures = 0;
        for side in [0, 1] {
            let c = cells(board, side);
            for step in steps::first_steps(board, side) {
                let Some((game_strength, _)) = &step.capture else {
                    continue;
                };
                captures += 1;
                let ours = strength(&c, index(step.from), index(step.to));
                assert_eq!(ours as u32, game_strength.total(), "{}", step.text());
            }
        }
        assert!(captures >= 6, "{captures}");
    }
}
