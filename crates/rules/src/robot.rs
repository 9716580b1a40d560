//! The robot: a computer player for every game, pure and deterministic, seeing only the public position.
//!
//! The robot's whole input is a `View`: an `AnyGame` (the public position: it holds no dice
//! seed or salt, those live in the app's store and `dice.rs` commitments) and the game's public
//! id. Nothing secret can be passed in by type. Its randomness (sampling the dice, breaking
//! ties, sampling other seats' orders) comes from a small PRNG seeded from that public data, so
//! the same view, seat and level always give the same decision. Its work is bounded by counts
//! of positions searched, never by a clock (this crate has none).

mod dicess;
mod diptactoe;
mod eval;
mod rng;
mod search;
mod siberian;
mod tablebase;

pub use tablebase::endgame_table;

use crate::games::{AnyGame, Seat, ToAct};

/// How hard the robot plays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    Easy,
    Normal,
    Strong,
}

impl Level {
    /// "easy" | "normal" | "strong"; `robot` alone is the strongest.
    pub fn parse(s: &str) -> Option<Level> {
        match s.trim().to_ascii_lowercase().as_str() {
            "easy" => Some(Level::Easy),
            "normal" => Some(Level::Normal),
            "strong" | "" | "robot" => Some(Level::Strong),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Level::Easy => "easy",
            Level::Normal => "normal",
            Level::Strong => "strong",
        }
    }
}

/// What the robot may know: the public position (an `AnyGame` holds no dice seed or salt) and
/// public identifiers for its deterministic choices. Built only from these; nothing secret can
/// be passed in by type.
pub struct View {
    game: AnyGame,
    game_id: i64,
}

impl View {
    pub fn new(game: &AnyGame, game_id: i64) -> View {
        View {
            game: game.clone(),
            game_id,
        }
    }

    /// The seed of the robot's PRNG for this decision: the game id, the position (its tag,
    /// public) and the seat; the same view always draws the same numbers.
    fn seed(&self, seat: Seat, level: Level) -> u64 {
        let mut h = rng::Fnv::new();
        h.write(&self.game_id.to_le_bytes());
        h.write(self.game.position_tag().as_bytes());
        h.write(&(seat as u64).to_le_bytes());
        h.write(level.name().as_bytes());
        h.finish()
    }
}

/// A robot at or above this judgement of its own position declines a draw: it plays on.
const AHEAD: f64 = 0.1;

/// Whether the robot playing `seat` agrees to a draw offered now: it does unless it judges
/// itself ahead on the public position (a draw is a fair end to a balanced or a losing
/// position, and a robot that never answered would hold an offer open for ever).
pub fn accepts_draw(view: &View, seat: Seat) -> bool {
    eval::evaluate(&view.game, seat) < AHEAD
}

/// What the robot does for a seat now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Ply(String),
    Orders(Vec<String>),
}

/// The robot's move for `seat`, or None when that seat has nothing to do now (not its turn,
/// chance to roll, game over). Deterministic: the same view, seat and level give the same answer.
pub fn decide(view: &View, seat: Seat, level: Level) -> Option<Decision> {
    let game = &view.game;
    let mut rng = rng::Rng::new(view.seed(seat, level));
    match game.to_act() {
        ToAct::Seat(s) if s == seat => {
            // d4 d6 with one gambling piece a side: the 2-men table decides (not for the
            // beginner, who plays by its own lights).
            let table = (level != Level::Easy)
                .then(|| tablebase::best_ply(game, seat, &mut rng))
                .flatten();
            table
                .or_else(|| search::best_ply(game, seat, level, &mut rng))
                .map(Decision::Ply)
        }
        ToAct::Orders(seats) if seats.contains(&seat) => Some(Decision::Orders(diptactoe::orders(
            game, seat, level, &mut rng,
        ))),
        _ => None,
    }
}
