//! A computer player for every game: what a seat sees, in, and its move or orders, out (placeholder: replaced by the robot crate at merge).

// placeholder: replaced by the robot crate at merge. The interface is the one the application
// builds on; the body plays the first legal ply, or the first legal order a seat may give.

use crate::games::{AnyGame, Seat, ToAct};

/// How well a robot plays; `Strong` is the strongest.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Level {
    Easy,
    Normal,
    Strong,
}

impl Level {
    /// A level by name; "" is the strongest.
    pub fn parse(s: &str) -> Option<Level> {
        match s.trim().to_ascii_lowercase().as_str() {
            "easy" => Some(Level::Easy),
            "normal" => Some(Level::Normal),
            "strong" | "" => Some(Level::Strong),
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

/// What a robot sees: the public position (no seed, no salt: `AnyGame` holds none) and the
/// game's id (for randomness derived from public data).
pub struct View {
    game: AnyGame,
    #[allow(dead_code)]
    game_id: i64,
}

impl View {
    pub fn new(game: &AnyGame, game_id: i64) -> View {
        View {
            game: game.clone(),
            game_id,
        }
    }
}

/// A robot's decision: one ply, or a turn's orders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Ply(String),
    Orders(Vec<String>),
}

/// The robot's move or orders for `seat`, if it is to act.
pub fn decide(view: &View, seat: Seat, _level: Level) -> Option<Decision> {
    let game = &view.game;
    match game.to_act() {
        ToAct::Seat(s) if s == seat => game.legal_plies().into_iter().next().map(Decision::Ply),
        ToAct::Orders(seats) if seats.contains(&seat) => {
            let prefix = format!("{}:", game.seat_name(seat));
            let first = game
                .legal_plies()
                .into_iter()
                .filter_map(|p| p.strip_prefix(&prefix).map(str::to_string))
                .find(|o| {
                    let lines = [o.clone()];
                    game.check_orders(seat, &lines).iter().all(Result::is_ok)
                });
            Some(Decision::Orders(first.into_iter().collect()))
        }
        _ => None,
    }
}
