//! Move generation for gambling pieces: the step paths of each piece, exact-n moves (which may
//! capture) and the non-capturing fallbacks n-1 .. 0 when no n-step move of any kind exists.

use super::board::{Dir, Sq};
use super::pieces::{cavalo_turns, Kind, Piece};
use super::position::Position;

/// The end of one step path: where it stops, the facing there, and the squares it visited
/// before its last square (the start excluded), which must all be empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PathEnd {
    pub steps: u8,
    pub to: Sq,
    pub facing: Option<Dir>,
    pub via: u64,
    /// The path may end on an empty square (a Cavalo's diagonal step only captures).
    pub may_move: bool,
    /// The path may end by capturing on `to` (a Cavalo's orthogonal step never captures).
    pub may_capture: bool,
}

/// Where this piece may stand while stepping: a Rinoceronte anywhere, the others in the
/// playing area.
pub fn in_area(kind: Kind, sq: Sq) -> bool {
    kind == Kind::Rinoceronte || sq.is_playing()
}

/// Calls `visit` for every step path of 1..=`max_steps` steps from `from` in which no square
/// is visited twice (the start counts as visited) and every square before the last is empty
/// by `is_empty`. The last square may be occupied; `visit` decides. A Gata's path is all
/// orthogonal or all diagonal, and only orthogonal when `gata_orthogonal_only` (rolls 5, 6).
pub fn walk(
    piece: Piece,
    from: Sq,
    max_steps: u8,
    gata_orthogonal_only: bool,
    is_empty: &dyn Fn(Sq) -> bool,
    visit: &mut dyn FnMut(&PathEnd),
) {
    let mut walker = Walker {
        piece,
        max_steps,
        is_empty,
        visit,
    };
    let start = Trail {
        at: from,
        facing: piece.facing,
        visited: from.bit(),
        via: 0,
        steps: 0,
    };
    match piece.kind {
        Kind::Rato => walker.single_steps(&Dir::DIAGONAL, start),
        Kind::Formiga => walker.single_steps(&Dir::ORTHOGONAL, start),
        Kind::Gata => {
            walker.single_steps(&Dir::ORTHOGONAL, start);
            if !gata_orthogonal_only {
                walker.single_steps(&Dir::DIAGONAL, start);
            }
        }
        Kind::Rinoceronte => {
            let f = piece.facing.expect("a Rinoceronte has a facing");
            let [back1, back2] = f.backward_orthogonals();
            walker.single_steps(&[f, back1, back2], start);
        }
        Kind::Cavalo => walker.cavalo_steps(start),
        Kind::Gato => walker.gato_steps(start),
        Kind::Guarda => {}
    }
}

#[derive(Clone, Copy)]
struct Trail {
    at: Sq,
    facing: Option<Dir>,
    visited: u64,
    via: u64,
    steps: u8,
}

struct Walker<'a> {
    piece: Piece,
    max_steps: u8,
    is_empty: &'a dyn Fn(Sq) -> bool,
    visit: &'a mut dyn FnMut(&PathEnd),
}

impl Walker<'_> {
    fn open(&self, trail: &Trail, sq: Sq) -> bool {
        in_area(self.piece.kind, sq) && trail.visited & sq.bit() == 0
    }

    /// Reports the path ending on `to` and goes on from there if it is empty.
    fn arrive(
        &mut self,
        trail: &Trail,
        to: Sq,
        facing: Option<Dir>,
        passed: u64,
        kinds: (bool, bool),
        step: &mut dyn FnMut(&mut Self, Trail),
    ) {
        let steps = trail.steps + 1;
        (self.visit)(&PathEnd {
            steps,
            to,
            facing,
            via: trail.via | passed,
            may_move: kinds.0,
            may_capture: kinds.1,
        });
        if kinds.0 && steps < self.max_steps && (self.is_empty)(to) {
            let next = Trail {
                at: to,
                facing,
                visited: trail.visited | passed | to.bit(),
                via: trail.via | passed | to.bit(),
                steps,
            };
            step(self, next);
        }
    }

    fn single_steps(&mut self, dirs: &[Dir], trail: Trail) {
        for &d in dirs {
            let Some(to) = trail.at.step(d) else { continue };
            if !self.open(&trail, to) {
                continue;
            }
            self.arrive(&trail, to, trail.facing, 0, (true, true), &mut |w, t| {
                w.single_steps(dirs, t)
            });
        }
    }

    fn cavalo_steps(&mut self, trail: Trail) {
        let color = self.piece.color;
        let facing = trail.facing.expect("a Cavalo has a facing");
        if let Some(to) = trail.at.step(facing) {
            if self.open(&trail, to) {
                for turned in cavalo_turns(color, to, facing) {
                    self.arrive(&trail, to, Some(turned), 0, (true, false), &mut |w, t| {
                        w.cavalo_steps(t)
                    });
                }
            }
        }
        for d in facing.diagonals_beside() {
            let Some(to) = trail.at.step(d) else { continue };
            if self.open(&trail, to) {
                for turned in cavalo_turns(color, to, facing) {
                    self.arrive(&trail, to, Some(turned), 0, (false, true), &mut |_, _| {});
                }
            }
        }
    }

    /// A Gato step: a knight move through its three unit squares, in any of the three orders
    /// (two one way and one perpendicular); the first two must be empty.
    fn gato_steps(&mut self, trail: Trail) {
        for long in Dir::ORTHOGONAL {
            for short in [long.turned(true), long.turned(false)] {
                for order in [
                    [long, long, short],
                    [long, short, long],
                    [short, long, long],
                ] {
                    let Some(units) = self.gato_units(&trail, order) else {
                        continue;
                    };
                    let passed = units[0].bit() | units[1].bit();
                    self.arrive(&trail, units[2], None, passed, (true, true), &mut |w, t| {
                        w.gato_steps(t)
                    });
                }
            }
        }
    }

    fn gato_units(&self, trail: &Trail, order: [Dir; 3]) -> Option<[Sq; 3]> {
        let mut at = trail.at;
        let mut units = [at; 3];
        for (i, d) in order.into_iter().enumerate() {
            at = at.step(d)?;
            if !self.open(trail, at) || (i < 2 && !(self.is_empty)(at)) {
                return None;
            }
            units[i] = at;
        }
        Some(units)
    }
}

/// One gambling move's result: where the piece ends, facing what, and whether it captures there.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Move {
    pub from: Sq,
    pub to: Sq,
    pub facing: Option<Dir>,
    pub capture: bool,
    pub steps: u8,
}

/// The legal results of rolling `roll` for the gambling piece on `from`: every exact-`roll`
/// move (capturing or not); if there is none, the non-capturing moves of the largest smaller
/// number of steps that has any; at worst the 0-step move (staying put).
pub fn legal_moves(pos: &Position, from: Sq, roll: u32) -> Vec<Move> {
    let piece = pos.at(from).expect("a piece to move");
    let is_empty = |sq: Sq| pos.at(sq).is_none();
    let mut by_steps: Vec<Vec<Move>> = vec![Vec::new(); roll as usize + 1];
    walk(piece, from, roll as u8, roll >= 5, &is_empty, &mut |end| {
        let mv = |capture| Move {
            from,
            to: end.to,
            facing: end.facing,
            capture,
            steps: end.steps,
        };
        let exact = u32::from(end.steps) == roll;
        if pos.at(end.to).is_none() {
            if end.may_move {
                by_steps[end.steps as usize].push(mv(false));
            }
        } else if exact && end.may_capture && pos.capturable_by(piece.color, end.to) {
            by_steps[end.steps as usize].push(mv(true));
        }
    });
    let found = (1..=roll as usize).rev().find(|&k| !by_steps[k].is_empty());
    let mut moves = match found {
        Some(k) => std::mem::take(&mut by_steps[k]),
        None => vec![Move {
            from,
            to: from,
            facing: piece.facing,
            capture: false,
            steps: 0,
        }],
    };
    moves.sort();
    moves.dedup_by(|a, b| (a.to, a.facing, a.capture) == (b.to, b.facing, b.capture));
    moves
}
