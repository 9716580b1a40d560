//! Special moves (at most one a turn, before choosing the gambling piece or after its move):
//! Guarda moves and placements, Cavalo promotion, the third Cavalo, Rinoceronte turns.

use super::board::{Dir, Sq};
use super::pieces::{Color, Kind, Piece};
use super::position::Position;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Special {
    /// A Guarda's king step to an empty square, or its placement from a teleportation corner
    /// onto any empty square of the playing area (`Gua1-d4`).
    Guarda { from: Sq, to: Sq },
    /// A Cavalo in the promotion area becomes `kind`; the Cavalo itself goes to the empty
    /// waiting square `cavalo_to` (none when the waiting area is full) (`Cah6=Ga@b2`).
    Promote {
        at: Sq,
        kind: Kind,
        facing: Option<Dir>,
        cavalo_to: Option<Sq>,
    },
    /// Both own Cavalos wait: the one on `from` goes to `to` in the starting area, the other
    /// leaves the board (`Cab7-d1`).
    ThirdCavalo { from: Sq, to: Sq },
    /// A Rinoceronte turns 90 degrees (`Rib3/NW`).
    TurnRinoceronte { at: Sq, facing: Dir },
}

impl Special {
    /// Canonical notation.
    pub fn text(&self) -> String {
        match *self {
            Special::Guarda { from, to } => format!("Gu{from}-{to}"),
            Special::Promote {
                at,
                kind,
                facing,
                cavalo_to,
            } => {
                let mut s = format!("Ca{at}={}", kind.letters());
                if let Some(f) = facing {
                    s.push_str(&format!("/{f}"));
                }
                if let Some(w) = cavalo_to {
                    s.push_str(&format!("@{w}"));
                }
                s
            }
            Special::ThirdCavalo { from, to } => format!("Ca{from}-{to}"),
            Special::TurnRinoceronte { at, facing } => format!("Ri{at}/{facing}"),
        }
    }

    pub fn is_promotion(&self) -> bool {
        matches!(self, Special::Promote { .. })
    }
}

/// Every special move `color` may make now.
pub fn legal_specials(pos: &Position, color: Color, rinoceronte: bool) -> Vec<Special> {
    let mut out = Vec::new();
    let empty = |s: Sq| pos.at(s).is_none();
    let own: Vec<(Sq, Piece)> = pos.squares_of(color).collect();
    for &(sq, piece) in &own {
        match piece.kind {
            Kind::Guarda => {
                let mut targets: Vec<Sq> = Dir::ORTHOGONAL
                    .into_iter()
                    .chain(Dir::DIAGONAL)
                    .filter_map(|d| sq.step(d))
                    .filter(|&t| empty(t))
                    .collect();
                if sq.is_teleportation() {
                    targets.extend(Sq::all().filter(|&t| t.is_playing() && empty(t)));
                }
                targets.sort();
                targets.dedup();
                out.extend(
                    targets
                        .into_iter()
                        .map(|to| Special::Guarda { from: sq, to }),
                );
            }
            Kind::Cavalo if sq.is_promotion() => {
                let waiting = pos.empty_waiting_squares();
                let destinations: Vec<Option<Sq>> = if waiting.is_empty() {
                    vec![None]
                } else {
                    waiting.into_iter().map(Some).collect()
                };
                for &kind in Kind::promotion_choices(rinoceronte) {
                    let facings: Vec<Option<Dir>> = if kind == Kind::Rinoceronte {
                        Dir::DIAGONAL.into_iter().map(Some).collect()
                    } else {
                        vec![None]
                    };
                    for facing in facings {
                        for &cavalo_to in &destinations {
                            out.push(Special::Promote {
                                at: sq,
                                kind,
                                facing,
                                cavalo_to,
                            });
                        }
                    }
                }
            }
            Kind::Rinoceronte => {
                let f = piece.facing.expect("a Rinoceronte has a facing");
                for cw in [true, false] {
                    out.push(Special::TurnRinoceronte {
                        at: sq,
                        facing: f.turned(cw),
                    });
                }
            }
            _ => {}
        }
    }
    let cavalos: Vec<Sq> = own
        .iter()
        .filter(|(_, p)| p.kind == Kind::Cavalo)
        .map(|(s, _)| *s)
        .collect();
    if cavalos.len() == 2 && cavalos.iter().all(|s| s.is_waiting()) {
        let home: Vec<Sq> = (2..6)
            .filter_map(|f| Sq::new(f, color.home_rank()))
            .filter(|&s| empty(s))
            .collect();
        for &from in &cavalos {
            for &to in &home {
                out.push(Special::ThirdCavalo { from, to });
            }
        }
    }
    out
}

/// Plays a special move known to be legal.
pub fn apply(pos: &mut Position, special: &Special) {
    match *special {
        Special::Guarda { from, to } => {
            let g = pos.take(from).expect("a Guarda");
            pos.put(to, g);
        }
        Special::Promote {
            at,
            kind,
            facing,
            cavalo_to,
        } => {
            let cavalo = pos.take(at).expect("a Cavalo");
            if let Some(w) = cavalo_to {
                pos.put(w, cavalo);
            }
            pos.put(at, Piece::new(cavalo.color, kind, facing));
        }
        Special::ThirdCavalo { from, to } => {
            let color = pos.at(from).expect("a Cavalo").color;
            let others: Vec<Sq> = pos
                .squares_of(color)
                .filter(|(s, p)| p.kind == Kind::Cavalo && *s != from)
                .map(|(s, _)| s)
                .collect();
            for s in others {
                pos.take(s);
            }
            pos.take(from);
            // The starting area is border area: the Cavalo faces toward its sixth rank.
            pos.put(to, Piece::new(color, Kind::Cavalo, Some(color.forward())));
        }
        Special::TurnRinoceronte { at, facing } => {
            let mut r = pos.take(at).expect("a Rinoceronte");
            r.facing = Some(facing);
            pos.put(at, r);
        }
    }
}
