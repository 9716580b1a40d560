//! Siberian Dice (seed 004): the move as plies (declaration, the GM's roll, placement), the variants' opening rolls, and the `Rules` implementation over the hexes, dice and perfection.
//!
//! A move: the seat declares `H` (a die from its hand) or the hex of its own die (lifted);
//! the GM rolls it (`roll 4`; nothing is rolled in PURITY, nor after `H` in GROSSMEISTER);
//! the seat places the die on a vacant hex. Perfection is counted for every seat after each
//! placement. STRATEGIC, GROSSMEISTER and PURITY open with one chance ply before BLUE's
//! first declaration. The plies and records are `notation/siberian.md` (the contract).

pub mod ascii;
pub mod board;
pub mod help;
pub mod hex;
pub mod json;
pub mod notation;
pub mod perfection;
pub mod position;
pub mod report;
pub mod tag;
pub mod turn;
pub mod variant;

use board::SEATS;
use perfection::Change;
use position::{Position, Source};
use variant::{Config, OPTIONS};

use crate::games::{Actor, Conditional, GameFacts, Options, Outcome, PlyError, Rules, Seat, ToAct};

/// Where the current move stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    /// STRATEGIC, GROSSMEISTER, PURITY: the GM's opening roll comes first.
    Opening,
    /// The seat to move declares `H` or a hex.
    Declare,
    /// The GM rolls the declared die.
    Roll(Source),
    /// The seat places the die (`roll`: what the GM rolled, if anything).
    Place { source: Source, roll: Option<u8> },
}

/// The last complete move, for the board and the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Last {
    pub seat: Seat,
    pub source: Source,
    pub target: hex::Hex,
    pub pips: u8,
    pub change: Change,
}

#[derive(Debug, Clone)]
pub struct Siberian {
    cfg: Config,
    /// The position before the move under way: a declaration and a roll change nothing until
    /// the placement, so a seat that leaves mid-move leaves no trace of it.
    pos: Position,
    phase: Phase,
    outcome: Option<Outcome>,
    /// The move number: it grows when the turn passes from the last seat back to the first.
    move_no: u32,
    last: Option<Last>,
    report: Option<String>,
}

impl Siberian {
    fn with(cfg: Config, pos: Position, phase: Phase) -> Siberian {
        Siberian {
            cfg,
            pos,
            phase,
            outcome: None,
            move_no: 1,
            last: None,
            report: None,
        }
    }

    pub fn config(&self) -> &Config {
        &self.cfg
    }

    pub fn position(&self) -> &Position {
        &self.pos
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn last(&self) -> Option<&Last> {
        self.last.as_ref()
    }

    /// Each seat's perfect dice now.
    pub fn perfect_counts(&self) -> Vec<usize> {
        perfection::counts(&self.pos.board, self.cfg.players)
    }

    fn seat_name(seat: Seat) -> &'static str {
        SEATS.get(seat).copied().unwrap_or("?")
    }

    /// The declarations open to the seat to move: `H` while its hand holds a die, and each of
    /// its dice on the board.
    fn declarations(&self) -> Vec<Source> {
        let seat = self.pos.to_move;
        let mut out = Vec::new();
        if self.pos.hand(&self.cfg, seat) > 0 {
            out.push(Source::Hand);
        }
        out.extend(self.pos.board.dice_of(seat).map(|(h, _)| Source::Lift(h)));
        out
    }

    /// The hexes a die may be placed on: the vacant ones and the one it was lifted from.
    fn targets(&self, source: Source) -> Vec<hex::Hex> {
        hex::Hex::all()
            .filter(|&h| self.pos.board.at(h).is_none() || source.lifted() == Some(h))
            .collect()
    }

    fn play_seat(&mut self, seat: Seat, text: &str) -> Result<String, PlyError> {
        if self.pos.retired.get(seat).copied().unwrap_or(true) {
            return Err(PlyError::NotYourTurn(format!(
                "{} is not playing in this game",
                Self::seat_name(seat)
            )));
        }
        match (self.to_act(), self.phase) {
            (ToAct::Seat(s), Phase::Declare) if s == seat => self.declare(text),
            (ToAct::Seat(s), Phase::Place { .. }) if s == seat => self.place(text),
            _ => Err(PlyError::NotYourTurn(format!(
                "it is not {}'s turn: {}",
                Self::seat_name(seat),
                self.waiting_for()
            ))),
        }
    }
}

impl Rules for Siberian {
    const FACTS: GameFacts = GameFacts {
        name: "siberian",
        title: "Siberian Dice",
        rolls_dice: true,
        simultaneous: false,
        seats: &board::SEATS,
        players: (2, 3),
        options: OPTIONS,
        settings: variant::settings,
        summary: "Siberian Dice: take a die from your hand (H) or lift one of yours from\n\
             the board (c3); the GM rolls it and you place it on any empty hex (d4).\n\
             A die is perfect when its number equals the dice next to it: 6 perfect\n\
             dice win (7 in some variants). Write a whole move as H d4, c3 d4, or\n\
             with a hex for each roll: c3: 1>a1 3-5>d4 *>e5.",
        player_guide: include_str!("../../../../../help/siberian.md"),
    };

    fn new(options: &Options) -> Result<Self, String> {
        let cfg = Config::read(options)?;
        let phase = if cfg.opening_values() > 0 {
            Phase::Opening
        } else {
            Phase::Declare
        };
        let pos = Position::start(cfg.players);
        Ok(Siberian::with(cfg, pos, phase))
    }

    fn from_position(options: &Options, tag: &str) -> Result<Self, String> {
        let cfg = Config::read(options)?;
        let pos = tag::read(&cfg, tag)?;
        let opened = pos.indicators.is_some() || pos.sequences.is_some() || pos.purity.is_some();
        let phase = if cfg.opening_values() > 0 && !opened {
            Phase::Opening
        } else {
            Phase::Declare
        };
        Ok(Siberian::with(cfg, pos, phase))
    }

    fn position_tag(&self) -> String {
        tag::write(&self.cfg, &self.pos)
    }

    fn seat_names(&self) -> &'static [&'static str] {
        &SEATS[..self.cfg.players]
    }

    fn to_act(&self) -> ToAct {
        if self.outcome.is_some() {
            return ToAct::Nobody;
        }
        match self.phase {
            Phase::Opening => ToAct::Chance(vec![6; self.cfg.opening_values()]),
            Phase::Roll(_) => ToAct::Chance(vec![6]),
            Phase::Declare | Phase::Place { .. } => ToAct::Seat(self.pos.to_move),
        }
    }

    fn play(&mut self, actor: Actor, text: &str) -> Result<String, PlyError> {
        if self.outcome.is_some() {
            return Err(PlyError::NotYourTurn("the game is over".into()));
        }
        let mut next = self.clone();
        next.report = None;
        let canon = match actor {
            Actor::Gm => {
                return Err(PlyError::Illegal(
                    "the GM makes no ply of Siberian Dice but the dice rolls".into(),
                ))
            }
            Actor::Chance => next.roll(text)?,
            Actor::Seat(seat) => next.play_seat(seat, text)?,
        };
        *self = next;
        Ok(canon)
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome.clone()
    }

    /// Every legal ply; for the opening roll (6 to the power of up to 9999 values) only a
    /// sample: each face for every value.
    fn legal_plies(&self) -> Vec<String> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        match self.phase {
            Phase::Opening => (1..=6u32)
                .map(|v| self.chance_ply(&vec![v; self.cfg.opening_values()]))
                .collect(),
            Phase::Roll(_) => (1..=6).map(|v| format!("roll {v}")).collect(),
            Phase::Declare => self.declarations().iter().map(|s| s.text()).collect(),
            Phase::Place { source, .. } => {
                self.targets(source).iter().map(|h| h.to_string()).collect()
            }
        }
    }

    fn board(&self) -> String {
        ascii::render(self, true)
    }

    fn board_beside_report(&self) -> String {
        ascii::render(self, false)
    }

    fn position_json(&self) -> serde_json::Value {
        json::position(self)
    }

    fn move_number(&self) -> Option<(u32, bool)> {
        let first = self.pos.playing().next() == Some(self.pos.to_move);
        match self.phase {
            Phase::Opening | Phase::Roll(_) => None,
            Phase::Declare => Some((self.move_no, first)),
            Phase::Place { .. } => Some((self.move_no, false)),
        }
    }

    fn last_report(&self) -> Option<String> {
        self.report.clone()
    }

    /// A declaration, the roll and the placement each say what they did in words.
    fn reports_every_ply(&self) -> bool {
        true
    }

    /// A one-message move (`H d4`, `c3 d4`, `c3: 1>a1 3-5>d4 *>e5`): the declaration, then for
    /// each roll the hexes in the order written. Where nothing is rolled (PURITY; `H` in
    /// GROSSMEISTER) the value to place is known: the entries for it are listed with an empty
    /// roll list, to be tried at once after the declaration.
    fn conditional(&self, lines: &[String]) -> Option<Conditional> {
        if self.phase != Phase::Declare || self.outcome.is_some() {
            return None;
        }
        let plan = notation::read_plan(lines)?;
        let rolled = self.cfg.rolls_after(plan.source == Source::Hand);
        let known = self.pos.placed_pips(&self.cfg, self.pos.to_move, None);
        let outcomes = plan
            .entries
            .iter()
            .filter(|(rolls, _)| rolled || known.is_some_and(|k| rolls.contains(&k)))
            .map(|(rolls, hex)| {
                let rolls = if rolled {
                    rolls.iter().map(|&r| u32::from(r)).collect()
                } else {
                    Vec::new()
                };
                (rolls, hex.to_string())
            })
            .collect();
        Some(Conditional {
            declaration: plan.source.text(),
            outcomes,
        })
    }

    fn plan_refusal(&self, lines: &[String]) -> Option<PlyError> {
        if self.phase != Phase::Declare || self.outcome.is_some() {
            return None;
        }
        notation::plan_refusal(lines)
    }

    fn moves_help(&self) -> Option<String> {
        Some(help::render(self))
    }

    fn retire(&mut self, seat: Seat) -> Option<String> {
        self.retire_seat(seat);
        self.report.clone()
    }

    fn conclude(&mut self, outcome: &Outcome) {
        self.outcome = Some(outcome.clone());
    }

    /// The seats a `[Position]` says have left (`retired=GREEN`).
    fn retired(&self) -> Vec<Seat> {
        (0..self.pos.players())
            .filter(|s| self.pos.retired[*s])
            .collect()
    }
}

#[cfg(test)]
mod tests;
