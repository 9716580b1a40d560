//! The GM's what-if tool: adjudicate a position and orders given as JSON, without a game.

use super::adjudicate::{run_turn, Turn};
use super::position::{seat_by_name, Position};
use super::report::{line_word, render};
use super::SEATS;

/// One adjudicated what-if request.
#[derive(Debug, Clone)]
pub struct WhatIf {
    turn: Turn,
}

/// Reads `{"units": {...}, "reserves": {...}, "orders": {"BLUE": ["I.A.1 - II.F.2"], ...},
/// "options": {"support_hold": "on"}}` (orders exactly as mailed; `options` may be left out)
/// and adjudicates the turn.
pub fn adjudicate_request(json: &str) -> Result<WhatIf, String> {
    let value: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("not JSON: {e}"))?;
    let position = Position::from_json(&value)?;
    let mut lines: [Vec<String>; 4] = Default::default();
    if let Some(orders) = value.get("orders") {
        let map = orders.as_object().ok_or("\"orders\" must be an object")?;
        for (name, list) in map {
            let seat = seat_by_name(name)?;
            let list = list
                .as_array()
                .ok_or_else(|| format!("orders of {name} must be a list of lines"))?;
            for line in list {
                let text = line
                    .as_str()
                    .ok_or_else(|| format!("orders of {name}: each line is a string"))?;
                lines[seat].push(text.to_string());
            }
        }
    }
    let support_hold = match value
        .get("options")
        .and_then(|o| o.get("support_hold"))
        .and_then(|v| v.as_str())
    {
        None | Some("off") => false,
        Some("on") => true,
        Some(other) => return Err(format!("support_hold cannot be '{other}' (on, off)")),
    };
    Ok(WhatIf {
        turn: run_turn(&position, &lines, support_hold),
    })
}

impl WhatIf {
    /// `{"results": {"BLUE": ["succeeds"], ...}, "after": {...}, "dislodged": [...],
    /// "outcome": {"winner": "BLUE" | null, "draw": [...]}}`.
    pub fn json(&self) -> serde_json::Value {
        let mut results = serde_json::Map::new();
        for (seat, name) in SEATS.iter().enumerate() {
            let words: Vec<&str> = self.turn.lines[seat]
                .iter()
                .map(|(_, reading)| line_word(&self.turn, seat, reading))
                .collect();
            results.insert(name.to_string(), serde_json::json!(words));
        }
        let dislodged: Vec<serde_json::Value> = self
            .turn
            .dislodged
            .iter()
            .map(|(space, owner)| {
                serde_json::json!({"space": space.to_string(), "player": SEATS[*owner]})
            })
            .collect();
        let winners = self.turn.winners();
        let (winner, draw): (Option<&str>, Vec<&str>) = match winners.as_slice() {
            [one] => (Some(SEATS[*one]), Vec::new()),
            many => (None, many.iter().map(|s| SEATS[*s]).collect()),
        };
        serde_json::json!({
            "results": results,
            "after": self.turn.after.json(),
            "dislodged": dislodged,
            "outcome": {"winner": winner, "draw": draw},
        })
    }

    /// The readable report players would get for this turn.
    pub fn report(&self) -> String {
        render(&self.turn, "What-if turn")
    }
}
