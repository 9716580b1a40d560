//! One move's steps as plies (the opening roll, declaration, roll, placement), the end of the game after each placement, and a seat leaving the turn order.

use super::board::SEATS;
use super::notation::{parse_declaration, parse_placement, parse_roll};
use super::perfection::{self, Change};
use super::position::Source;
use super::report;
use super::variant::{Simultaneous, Variant};
use super::{Last, Phase, Siberian};
use crate::games::{Outcome, PlyError, Seat};

fn illegal(msg: impl Into<String>) -> PlyError {
    PlyError::Illegal(msg.into())
}

/// Hexes as a list in words: `c3, d4`.
pub fn hex_list(hexes: impl IntoIterator<Item = super::hex::Hex>) -> String {
    hexes
        .into_iter()
        .map(|h| h.to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl Siberian {
    /// What the game waits for, in words (for a ply that came at the wrong time).
    pub(super) fn waiting_for(&self) -> String {
        let who = SEATS[self.pos.to_move];
        match self.phase {
            Phase::Opening => "the GM's opening roll comes first".into(),
            Phase::Declare => format!("{who} declares a die"),
            Phase::Roll(_) => format!("the GM rolls {who}'s die"),
            Phase::Place { .. } => format!("{who} places the die"),
        }
    }

    /// The GM's roll: the opening values, or the declared die.
    pub(super) fn roll(&mut self, text: &str) -> Result<String, PlyError> {
        let values = match self.phase {
            Phase::Opening | Phase::Roll(_) => parse_roll(text)?,
            _ => {
                return Err(PlyError::NotYourTurn(format!(
                    "no roll is due: {}",
                    self.waiting_for()
                )))
            }
        };
        let wide: Vec<u32> = values.iter().map(|&v| u32::from(v)).collect();
        let canon = crate::games::Rules::chance_ply(self, &wide);
        match self.phase {
            Phase::Opening => self.open(&values)?,
            Phase::Roll(source) => {
                let [v] = values[..] else {
                    return Err(illegal(format!(
                        "one die is rolled, not {} values",
                        values.len()
                    )));
                };
                self.phase = Phase::Place {
                    source,
                    roll: Some(v),
                };
                self.report = Some(report::rolled(self, source, v));
            }
            _ => {}
        }
        Ok(canon)
    }

    /// The opening roll: exactly the variant's number of values.
    fn open(&mut self, values: &[u8]) -> Result<(), PlyError> {
        let want = self.cfg.opening_values();
        if values.len() != want {
            let what = match self.cfg.variant {
                Variant::Strategic => "one indicator for each seat".to_string(),
                Variant::Grossmeister => format!("{} for each seat's sequence", self.cfg.dice),
                _ => format!("the published sequence, length={want}"),
            };
            return Err(illegal(format!(
                "the opening roll has {want} values ({what}), not {}",
                values.len()
            )));
        }
        self.pos.apply_opening(&self.cfg, values);
        self.phase = Phase::Declare;
        self.report = Some(report::opening(self));
        Ok(())
    }

    /// The seat's declaration: `H` with a die in the hand, or the hex of its own die.
    pub(super) fn declare(&mut self, text: &str) -> Result<String, PlyError> {
        let source = parse_declaration(text)?;
        self.check_source(source)?;
        if self.cfg.rolls_after(source == Source::Hand) {
            self.phase = Phase::Roll(source);
            self.report = Some(report::declared(self, source));
        } else {
            self.phase = Phase::Place { source, roll: None };
            self.report = Some(report::to_place(self, source));
        }
        Ok(source.text())
    }

    fn check_source(&self, source: Source) -> Result<(), PlyError> {
        let seat = self.pos.to_move;
        let mine: Vec<_> = self.pos.board.dice_of(seat).map(|(h, _)| h).collect();
        let hand = self.pos.hand(&self.cfg, seat);
        let alternatives = || match (hand > 0, mine.is_empty()) {
            (true, true) => "take one from your hand (H)".to_string(),
            (true, false) => format!(
                "take one from your hand (H) or lift one of your dice ({})",
                hex_list(mine.iter().copied())
            ),
            (false, _) => format!("lift one of your dice ({})", hex_list(mine.iter().copied())),
        };
        match source {
            Source::Hand if hand == 0 => {
                let what = match self.cfg.variant {
                    Variant::Grossmeister => "your sequence is empty",
                    _ => "your hand is empty",
                };
                Err(illegal(format!("{what}: {}", alternatives())))
            }
            Source::Hand => Ok(()),
            Source::Lift(h) => match self.pos.board.at(h) {
                None => Err(illegal(format!("{h} is vacant: {}", alternatives()))),
                Some(d) if d.seat != seat => Err(illegal(format!(
                    "{h} is {}, not one of your dice: {}",
                    d.described(),
                    alternatives()
                ))),
                Some(_) => Ok(()),
            },
        }
    }

    /// The placement: a vacant hex, or the one the die was lifted from; then perfection is
    /// judged and the turn passes.
    pub(super) fn place(&mut self, text: &str) -> Result<String, PlyError> {
        let Phase::Place { source, roll } = self.phase else {
            return Err(PlyError::NotYourTurn(self.waiting_for()));
        };
        if text
            .trim()
            .get(..4)
            .is_some_and(|w| w.eq_ignore_ascii_case("roll"))
        {
            // PURITY, and H in GROSSMEISTER: the die to place is known, nothing is rolled.
            return Err(illegal(format!(
                "nothing is rolled now: {} places the {} on a vacant hex (d4)",
                SEATS[self.pos.to_move],
                self.pos
                    .placed_pips(&self.cfg, self.pos.to_move, roll)
                    .unwrap_or(0)
            )));
        }
        let target = parse_placement(text)?;
        if let Some(d) = self.pos.board.at(target) {
            if source.lifted() != Some(target) {
                return Err(illegal(format!("{target} is taken by {}", d.described())));
            }
        }
        let seat = self.pos.to_move;
        let pips = self
            .pos
            .placed_pips(&self.cfg, seat, roll)
            .ok_or_else(|| illegal("there is no die to place"))?;
        let before = self.pos.board.clone();
        self.pos.apply_move(&self.cfg, seat, source, roll, target);
        self.last = Some(Last {
            seat,
            source,
            target,
            pips,
            change: Change::between(&before, &self.pos.board),
        });
        self.phase = Phase::Declare;
        self.judge(seat);
        if self.outcome.is_none() {
            self.pass_turn(seat);
        }
        self.report = Some(report::placed(self));
        Ok(target.to_string())
    }

    fn pass_turn(&mut self, seat: Seat) {
        let (next, wrapped) = self.pos.next_playing(seat);
        if wrapped {
            self.move_no += 1;
        }
        self.pos.to_move = next;
    }

    /// After a placement: the seats still playing at or above the target; one wins, whoever
    /// moved; two or more are settled by `simultaneous`. PURITY's last number used with nobody
    /// there draws among every seat still playing.
    fn judge(&mut self, mover: Seat) {
        let counts = perfection::counts(&self.pos.board, self.cfg.players);
        let target = self.cfg.target;
        let reached: Vec<Seat> = self
            .pos
            .playing()
            .filter(|&s| counts[s] >= target)
            .collect();
        self.outcome = match reached[..] {
            [] if self.pos.purity.as_ref().is_some_and(|p| p.is_empty()) => Some(Outcome::Draw {
                seats: self.pos.playing().collect(),
                reason: "the published sequence is used up".into(),
            }),
            [] => None,
            _ => Some(self.ending(&reached, &counts, mover)),
        };
    }

    /// The end when `reached` (one seat or more) reached the target, in words.
    fn ending(&self, reached: &[Seat], counts: &[usize], mover: Seat) -> Outcome {
        let names = |seats: &[Seat]| {
            seats
                .iter()
                .map(|&s| format!("{} {}", SEATS[s], counts[s]))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let several = reached.len() > 1;
        match settle(reached, counts, self.cfg.simultaneous) {
            Settled::Win(seat) if several => Outcome::Win {
                seat,
                reason: format!(
                    "the most perfect dice when several reached the target ({})",
                    names(reached)
                ),
            },
            Settled::Win(seat) => Outcome::Win {
                seat,
                reason: if seat == mover {
                    format!("{} perfect dice", counts[seat])
                } else {
                    format!(
                        "{} perfect dice, made by {}'s move",
                        counts[seat], SEATS[mover]
                    )
                },
            },
            Settled::Draw(seats) if self.cfg.simultaneous == Simultaneous::Most => Outcome::Draw {
                seats,
                reason: format!(
                    "tied at the top when several reached the target ({})",
                    names(reached)
                ),
            },
            Settled::Draw(seats) => Outcome::Draw {
                seats,
                reason: format!("the target reached on the same move ({})", names(reached)),
            },
        }
    }

    /// A seat leaves (it resigned or forfeited): it drops out of the turn order (a declaration
    /// of its that is under way is dropped, the next seat still playing moves), its dice stay
    /// on the board, and it is no longer counted for the target.
    pub(super) fn retire_seat(&mut self, seat: Seat) {
        if seat >= self.cfg.players || self.pos.retired[seat] || self.outcome.is_some() {
            return;
        }
        self.pos.retired[seat] = true;
        let mut dropped = false;
        if self.pos.to_move == seat {
            if self.phase != Phase::Opening {
                dropped = self.phase != Phase::Declare;
                self.phase = Phase::Declare;
            }
            let (next, wrapped) = self.pos.next_playing(seat);
            if next != seat {
                if wrapped {
                    self.move_no += 1;
                }
                self.pos.to_move = next;
            }
        }
        self.report = Some(report::retired(self, seat, dropped));
    }
}

/// How a placement ends the game when `reached` (the seats still playing at or above the
/// target, one or more) got there: one seat wins, or the seats named draw. Several at once
/// are settled by the game's rule: the most perfect dice win (a tie at the top draws), or a
/// draw among them all. The robot's search asks this of the boards it imagines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Settled {
    Win(Seat),
    Draw(Vec<Seat>),
}

pub fn settle(reached: &[Seat], counts: &[usize], rule: Simultaneous) -> Settled {
    let top = reached.iter().map(|&s| counts[s]).max().unwrap_or(0);
    let tied: Vec<Seat> = reached
        .iter()
        .copied()
        .filter(|&s| counts[s] == top)
        .collect();
    match (reached, rule, &tied[..]) {
        ([one], _, _) | (_, Simultaneous::Most, [one]) => Settled::Win(*one),
        (_, Simultaneous::Most, _) => Settled::Draw(tied),
        (_, Simultaneous::Draw, _) => Settled::Draw(reached.to_vec()),
    }
}
