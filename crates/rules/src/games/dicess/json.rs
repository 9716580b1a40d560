//! The position as JSON for `pbem replay --json` (contract 2.5: `to_move`, `dice`, `scores`), with the phase, the set-up roll and the impasse count besides.

use serde_json::{json, Value};

use super::impasse::Watch;
use super::position::{Board, DARK, LIGHT, SEAT_NAMES};
use super::setup::Phase;
use crate::games::Seat;

/// What the JSON is made from.
pub struct View<'a> {
    pub board: &'a Board,
    pub phase: Phase,
    pub over: bool,
    pub rolled: Option<&'a [Vec<u8>; 2]>,
    pub watch: &'a Watch,
    pub last_turn: Option<&'a (Seat, String)>,
}

pub fn position(v: &View) -> Value {
    let to_move = match (v.over, v.phase) {
        (true, _) | (false, Phase::Roll) => None,
        (false, Phase::Place(s) | Phase::Turn(s)) => Some(SEAT_NAMES[s]),
    };
    let dice: Vec<Value> = v
        .board
        .dice()
        .map(|(sq, d)| {
            json!({"player": SEAT_NAMES[d.side], "square": sq.to_string(), "number": d.number})
        })
        .collect();
    let phase = match (v.over, v.phase) {
        (true, _) => "over",
        (false, Phase::Roll) => "roll",
        (false, Phase::Place(_)) => "setup",
        (false, Phase::Turn(_)) => "turn",
    };
    let in_turns = matches!(v.phase, Phase::Turn(_));
    json!({
        "to_move": to_move,
        "dice": dice,
        "scores": {"LIGHT": v.board.score(LIGHT), "DARK": v.board.score(DARK)},
        "phase": phase,
        "round": in_turns.then(|| v.watch.round()),
        "quiet_rounds": in_turns.then(|| v.watch.quiet_rounds()),
        "rolled": v.rolled.map(|[l, d]| json!({"LIGHT": l, "DARK": d})),
        "last_turn": v.last_turn.map(|(s, t)| json!({"player": SEAT_NAMES[*s], "turn": t})),
    })
}
