//! Siberian Dice's own search for the normal and strong robots: every placement judged on a compact board, the best few answered by the next seat's best reply, chance only where a die is really rolled.
//!
//! The generic search walks `AnyGame` plies (a clone and a report in words each) and counts
//! depth in turns: one turn of Siberian Dice is some 13 declarations x 6 rolls x 30 hexes, so
//! its second turn never fitted the count and the robot judged its own turn only, by perfect
//! dice alone. Here a move is a lift and a placement on a few bytes, the evaluation sees what a
//! player keeps in mind (dice the other side can break, dice one neighbour from perfect, the
//! hexes where the next roll makes a die perfect), and the strong robot answers its best
//! placements with the next seat's best reply. The pips are known wherever the variant shows
//! them (STRATEGIC's indicator, GROSSMEISTER's sequence, PURITY's list): only BASIC and PRIMES,
//! and a lift in GROSSMEISTER with an empty sequence, average over a roll. Bounded by counts
//! (how many placements get a reply), never by a clock.

use std::sync::OnceLock;

use super::eval;
use super::rng::Rng;
use super::Level;
use crate::games::siberian::hex::{Hex, HEXES};
use crate::games::siberian::position::Source;
use crate::games::siberian::turn::{settle, Settled};
use crate::games::siberian::variant::{Simultaneous, Variant};
use crate::games::siberian::{Phase, Siberian};
use crate::games::Seat;

/// An owner byte for a vacant hex.
const VACANT: u8 = u8::MAX;
/// Values this close to the best count as equally good (chosen among, seeded).
const NEAR: f64 = 0.005;

/// The board as the search needs it: each hex's owner and pips, and how many of its
/// neighbours hold a die (perfection is `pips == filled`).
#[derive(Clone, Copy)]
pub(super) struct Lite {
    pub(super) owner: [u8; HEXES],
    pub(super) pips: [u8; HEXES],
    pub(super) filled: [u8; HEXES],
    /// Each seat's dice next to each hex (kept up to date, so judging a die is a lookup).
    pub(super) by_seat: [[u8; HEXES]; 3],
}

/// Each hex's neighbours by index, built once from the board's own table.
pub(super) fn neighbours(i: usize) -> &'static [usize] {
    static TABLE: OnceLock<Vec<Vec<usize>>> = OnceLock::new();
    &TABLE.get_or_init(|| {
        Hex::all()
            .map(|h| h.neighbours().iter().map(|n| n.index()).collect())
            .collect()
    })[i]
}

impl Lite {
    fn of(g: &Siberian) -> Lite {
        let mut b = Lite {
            owner: [VACANT; HEXES],
            pips: [0; HEXES],
            filled: [0; HEXES],
            by_seat: [[0; HEXES]; 3],
        };
        for (h, d) in g.position().board.dice() {
            b.place(h.index(), d.seat as u8, d.pips);
        }
        b
    }

    pub(super) fn vacant(&self, i: usize) -> bool {
        self.owner[i] == VACANT
    }

    pub(super) fn perfect(&self, i: usize) -> bool {
        !self.vacant(i) && self.pips[i] == self.filled[i]
    }

    fn lift(&mut self, i: usize) {
        let seat = usize::from(self.owner[i]);
        self.owner[i] = VACANT;
        for &n in neighbours(i) {
            self.filled[n] -= 1;
            self.by_seat[seat][n] -= 1;
        }
    }

    fn place(&mut self, i: usize, seat: u8, pips: u8) {
        self.owner[i] = seat;
        self.pips[i] = pips;
        for &n in neighbours(i) {
            self.filled[n] += 1;
            self.by_seat[usize::from(seat)][n] += 1;
        }
    }

    /// Each seat's perfect dice.
    pub(super) fn counts(&self) -> [usize; 3] {
        let mut c = [0; 3];
        for i in 0..HEXES {
            if self.perfect(i) {
                c[usize::from(self.owner[i])] += 1;
            }
        }
        c
    }
}

/// What the search knows of the game beyond the board: who plays, the target, the rule for a
/// shared finish, each seat's hand and the pips it will place where they are public.
pub(super) struct Ctx {
    pub(super) me: Seat,
    pub(super) players: usize,
    pub(super) playing: [bool; 3],
    pub(super) target: usize,
    rule: Simultaneous,
    hand: [bool; 3],
    /// Each seat's next pips when known, by moves from now (PURITY's list is shared).
    known: Vec<[Option<u8>; 3]>,
}

impl Ctx {
    fn of(g: &Siberian, me: Seat) -> Ctx {
        let cfg = g.config();
        let pos = g.position();
        let mut playing = [false; 3];
        let mut hand = [false; 3];
        for s in pos.playing() {
            playing[s] = true;
            hand[s] = pos.hand(cfg, s) > 0;
        }
        // The robot's own second move (`ahead` 2 with two players) places its roll of now in
        // STRATEGIC (known once rolled) and the second of its sequence in GROSSMEISTER.
        let roll = match g.phase() {
            Phase::Place { roll, .. } => roll,
            _ => None,
        };
        let seat_pips = |s: Seat, ahead: usize| -> Option<u8> {
            let again = s == me && ahead > 0;
            match cfg.variant {
                Variant::Basic | Variant::Primes => None,
                Variant::Strategic if again => roll,
                Variant::Strategic => pos.indicators.as_ref().map(|i| i[s]),
                Variant::Grossmeister => {
                    pos.sequences.as_ref()?[s].get(usize::from(again)).copied()
                }
                Variant::Purity => pos.purity.as_ref()?.get(ahead).copied(),
            }
        };
        let known = (0..3)
            .map(|ahead| {
                let mut row = [None; 3];
                for (s, slot) in row.iter_mut().enumerate().take(cfg.players) {
                    *slot = seat_pips(s, ahead);
                }
                row
            })
            .collect();
        Ctx {
            me,
            players: cfg.players,
            playing,
            target: cfg.target,
            rule: cfg.simultaneous,
            hand,
            known,
        }
    }

    /// The next seat still playing after `seat`.
    pub(super) fn next(&self, seat: Seat) -> Seat {
        (1..=self.players)
            .map(|k| (seat + k) % self.players)
            .find(|&s| self.playing[s])
            .unwrap_or(seat)
    }

    /// The board's value for the robot when someone has reached the target, else None: 1 a
    /// win, -1 another's win, a shared finish (a draw) 0 for the seats in it, settled by the
    /// game's rule.
    fn terminal(&self, b: &Lite) -> Option<f64> {
        let counts = b.counts();
        let reached: Vec<Seat> = (0..self.players)
            .filter(|&s| self.playing[s] && counts[s] >= self.target)
            .collect();
        if reached.is_empty() {
            return None;
        }
        Some(match settle(&reached, &counts, self.rule) {
            Settled::Win(seat) if seat == self.me => 1.0,
            Settled::Draw(seats) if seats.contains(&self.me) => 0.0,
            Settled::Win(_) | Settled::Draw(_) => -1.0,
        })
    }

    /// A board after a move, `to_move` next: the end if it is one, else the evaluation.
    fn leaf(&self, b: &Lite, to_move: Seat, ahead: usize) -> f64 {
        self.terminal(b).unwrap_or_else(|| {
            let pips = self.known.get(ahead).and_then(|k| k[to_move]);
            eval::siberian_board(b, self, to_move, pips)
        })
    }

    /// The declarations open to `seat`, as sources.
    fn sources(&self, b: &Lite, seat: Seat) -> Vec<Source> {
        let mut out = Vec::new();
        if self.hand[seat] {
            out.push(Source::Hand);
        }
        out.extend(
            Hex::all()
                .filter(|h| usize::from(b.owner[h.index()]) == seat)
                .map(Source::Lift),
        );
        out
    }
}

/// How many of the best placements the strong robot answers with a reply (besides every one
/// that breaks another seat's die): for the die in hand, and for a declaration, per roll when
/// the pips are rolled (six times the work, so fewer: p99 within 300 ms on the bench).
fn answered(level: Level, placing: bool, rolled: bool) -> usize {
    match (level, placing, rolled) {
        (Level::Strong, true, _) => 8,
        (Level::Strong, false, false) => 3,
        (Level::Strong, false, true) => 1,
        _ => 0,
    }
}

/// The robot's ply for `me` in Siberian Dice, one of `plies` (the legal ones, two or more).
pub(super) fn best_ply(
    g: &Siberian,
    me: Seat,
    level: Level,
    plies: &[String],
    rng: &mut Rng,
) -> Option<String> {
    let ctx = Ctx::of(g, me);
    let board = Lite::of(g);
    let values: Vec<f64> = match g.phase() {
        Phase::Declare => plies
            .iter()
            .map(|p| {
                let source = if p == "H" {
                    Source::Hand
                } else {
                    Source::Lift(Hex::parse(p)?)
                };
                Some(declared(&ctx, &board, source, level))
            })
            .collect::<Option<_>>()?,
        Phase::Place { source, roll } => {
            let pips = g.position().placed_pips(g.config(), me, roll)?;
            let mut lifted = board;
            if let Some(h) = source.lifted() {
                lifted.lift(h.index());
            }
            let targets: Vec<usize> = plies
                .iter()
                .map(|p| Hex::parse(p).map(Hex::index))
                .collect::<Option<_>>()?;
            placements(&ctx, &lifted, pips, &targets, answered(level, true, false))
        }
        _ => return None,
    };
    let best = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let ties: Vec<usize> = (0..plies.len())
        .filter(|&i| values[i] >= best - NEAR)
        .collect();
    Some(plies[ties[rng.below(ties.len())]].clone())
}

/// A declaration's value: the best placement for the pips it will show, averaged over the
/// roll where they are not known.
fn declared(ctx: &Ctx, board: &Lite, source: Source, level: Level) -> f64 {
    let mut lifted = *board;
    if let Some(h) = source.lifted() {
        lifted.lift(h.index());
    }
    let targets: Vec<usize> = (0..HEXES).filter(|&i| lifted.vacant(i)).collect();
    let rolled = ctx.known[0][ctx.me].is_none();
    let best = |pips: u8| {
        placements(ctx, &lifted, pips, &targets, answered(level, false, rolled))
            .into_iter()
            .fold(f64::NEG_INFINITY, f64::max)
    };
    match ctx.known[0][ctx.me] {
        Some(pips) => best(pips),
        None => (1..=6).map(best).sum::<f64>() / 6.0,
    }
}

/// Each target's value for placing `pips` there: all judged at once, then the best `deep`
/// of them (by that judgement) judged again after the next seat's best reply.
fn placements(ctx: &Ctx, lifted: &Lite, pips: u8, targets: &[usize], deep: usize) -> Vec<f64> {
    let next = ctx.next(ctx.me);
    let boards: Vec<Lite> = targets
        .iter()
        .map(|&t| {
            let mut b = *lifted;
            b.place(t, ctx.me as u8, pips);
            b
        })
        .collect();
    let values: Vec<f64> = boards.iter().map(|b| ctx.leaf(b, next, 1)).collect();
    if deep == 0 || next == ctx.me {
        return values;
    }
    // The best by the evaluation, and every placement that breaks another seat's perfect die:
    // a block looks poor to the evaluation alone (it gains the robot nothing) until the
    // reply shows what it stopped.
    let theirs = |b: &Lite| {
        let c = b.counts();
        (0..ctx.players)
            .filter(|&s| s != ctx.me)
            .map(|s| c[s])
            .sum::<usize>()
    };
    let before = theirs(lifted);
    let mut order: Vec<usize> = (0..targets.len()).collect();
    order.sort_by(|&a, &b| values[b].total_cmp(&values[a]));
    let breaks = order[deep.min(order.len())..]
        .iter()
        .copied()
        .filter(|&i| theirs(&boards[i]) < before);
    let chosen: Vec<usize> = order.iter().copied().take(deep).chain(breaks).collect();
    // The rest were judged worse before any reply: a reply only lowers a judgement, so they
    // must not outrank the answered ones on their unanswered (hopeful) values.
    let mut out = vec![f64::NEG_INFINITY; targets.len()];
    for &i in &chosen {
        out[i] = match ctx.terminal(&boards[i]) {
            Some(v) => v,
            None => reply(ctx, &boards[i], next),
        };
    }
    out
}

/// The board's value after `seat` (another seat) plays its best move on it: the worst for the
/// robot over its declarations, averaged over its roll where the pips are not known.
fn reply(ctx: &Ctx, board: &Lite, seat: Seat) -> f64 {
    let after = ctx.next(seat);
    let mut worst = f64::INFINITY;
    for source in ctx.sources(board, seat) {
        let mut lifted = *board;
        if let Some(h) = source.lifted() {
            lifted.lift(h.index());
        }
        let best_for_them = |pips: u8| {
            let mut low = f64::INFINITY;
            for t in (0..HEXES).filter(|&i| lifted.vacant(i)) {
                let mut b = lifted;
                b.place(t, seat as u8, pips);
                low = low.min(ctx.leaf(&b, after, 2));
            }
            low
        };
        let v = match ctx.known[1][seat] {
            Some(pips) => best_for_them(pips),
            None => (1..=6).map(best_for_them).sum::<f64>() / 6.0,
        };
        worst = worst.min(v);
    }
    if worst.is_finite() {
        worst
    } else {
        ctx.leaf(board, seat, 1)
    }
}
