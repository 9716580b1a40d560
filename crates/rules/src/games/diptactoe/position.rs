//! Who stands where and how many units each player holds in reserve.

use std::collections::BTreeMap;

use super::space::Space;
use super::SEATS;
use crate::games::Seat;

/// Every player has eight units, on the board or in reserve.
pub const UNITS_PER_PLAYER: u32 = 8;

/// The units on the board (space -> owner) and each seat's reserve.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Position {
    pub units: BTreeMap<Space, Seat>,
    pub reserves: [u32; 4],
}

impl Position {
    /// The seed's start: one unit on a corner of each level, seven in reserve each.
    pub fn start() -> Position {
        let mut units = BTreeMap::new();
        for (seat, name) in ["I.A.1", "II.H.1", "III.M.4", "IV.N.4"].iter().enumerate() {
            units.insert(Space::parse(name).expect("start spaces are valid"), seat);
        }
        Position {
            units,
            reserves: [7; 4],
        }
    }

    /// The spaces a seat occupies, in board order.
    pub fn units_of(&self, seat: Seat) -> Vec<Space> {
        self.units
            .iter()
            .filter(|(_, owner)| **owner == seat)
            .map(|(space, _)| *space)
            .collect()
    }

    /// Builds a position from per-seat unit lists and reserves, checking that no space is used
    /// twice and nobody has more than eight units in all.
    pub fn from_parts(units: &[Vec<Space>; 4], reserves: [u32; 4]) -> Result<Position, String> {
        let mut position = Position {
            units: BTreeMap::new(),
            reserves,
        };
        for (seat, spaces) in units.iter().enumerate() {
            for space in spaces {
                if let Some(other) = position.units.insert(*space, seat) {
                    return Err(format!(
                        "{space} holds two units ({} and {})",
                        SEATS[other], SEATS[seat]
                    ));
                }
            }
            let total = spaces.len() as u32 + reserves[seat];
            if total > UNITS_PER_PLAYER {
                return Err(format!(
                    "{} has {total} units in all; a player has at most {UNITS_PER_PLAYER}",
                    SEATS[seat]
                ));
            }
        }
        Ok(position)
    }

    /// `{"units":{"BLUE":["I.A.1"],...},"reserves":{"BLUE":7,...}}`.
    pub fn json(&self) -> serde_json::Value {
        let mut units = serde_json::Map::new();
        let mut reserves = serde_json::Map::new();
        for (seat, name) in SEATS.iter().enumerate() {
            let spaces: Vec<String> = self.units_of(seat).iter().map(Space::to_string).collect();
            units.insert(name.to_string(), serde_json::json!(spaces));
            reserves.insert(name.to_string(), serde_json::json!(self.reserves[seat]));
        }
        serde_json::json!({"units": units, "reserves": reserves})
    }

    /// Reads the `units`/`reserves` objects of `json()` (missing players: no units, 0 reserve).
    pub fn from_json(value: &serde_json::Value) -> Result<Position, String> {
        let mut units: [Vec<Space>; 4] = Default::default();
        let mut reserves = [0u32; 4];
        if let Some(map) = value.get("units") {
            let map = map.as_object().ok_or("\"units\" must be an object")?;
            for (name, spaces) in map {
                let seat = seat_by_name(name)?;
                let list = spaces
                    .as_array()
                    .ok_or_else(|| format!("units of {name} must be a list"))?;
                for s in list {
                    let text = s
                        .as_str()
                        .ok_or_else(|| format!("units of {name}: spaces are strings"))?;
                    units[seat].push(Space::parse(text)?);
                }
            }
        }
        if let Some(map) = value.get("reserves") {
            let map = map.as_object().ok_or("\"reserves\" must be an object")?;
            for (name, count) in map {
                let seat = seat_by_name(name)?;
                reserves[seat] = count
                    .as_u64()
                    .and_then(|c| u32::try_from(c).ok())
                    .ok_or_else(|| format!("reserve of {name} must be a number 0-8"))?;
            }
        }
        Position::from_parts(&units, reserves)
    }
}

/// A seat by its name, case-insensitive.
pub fn seat_by_name(name: &str) -> Result<Seat, String> {
    SEATS
        .iter()
        .position(|s| s.eq_ignore_ascii_case(name.trim()))
        .ok_or_else(|| format!("'{name}' is not a player (BLUE, RED, GREEN, YELLOW)"))
}
