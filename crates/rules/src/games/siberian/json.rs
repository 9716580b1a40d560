//! The position as JSON (contract 3.6): to_move, dice, hands, perfect, and the variant's indicators, sequences or published numbers; besides, the phase and the seats that left.

use serde_json::{json, Map, Value};

use super::board::SEATS;
use super::perfection;
use super::position::Source;
use super::{Phase, Siberian};
use crate::games::{Rules, ToAct};

/// One value per seat, keyed by seat name in seat order.
fn per_seat(players: usize, f: impl Fn(usize) -> Value) -> Value {
    let mut map = Map::new();
    for (s, name) in SEATS.iter().enumerate().take(players) {
        map.insert(name.to_string(), f(s));
    }
    Value::Object(map)
}

pub fn position(game: &Siberian) -> Value {
    let cfg = game.config();
    let pos = game.position();
    let players = cfg.players;
    let to_move = match game.to_act() {
        ToAct::Seat(s) => Value::from(SEATS[s]),
        _ => Value::Null,
    };
    let perfect = perfection::perfect_hexes(&pos.board);
    let dice: Vec<Value> = pos
        .board
        .dice()
        .map(|(h, d)| {
            json!({"player": SEATS[d.seat], "hex": h.to_string(), "pips": d.pips,
                   "perfect": perfect.contains(&h)})
        })
        .collect();
    let counts = game.perfect_counts();
    let indicators = pos
        .indicators
        .as_ref()
        .map_or(Value::Null, |i| per_seat(players, |s| json!(i[s])));
    let sequences = pos.sequences.as_ref().map_or(Value::Null, |q| {
        per_seat(players, |s| json!(q[s].iter().collect::<Vec<_>>()))
    });
    let purity = pos
        .purity
        .as_ref()
        .map_or(Value::Null, |p| json!(p.iter().collect::<Vec<_>>()));
    let (phase, declared, roll) = match game.phase() {
        _ if game.outcome().is_some() => ("over", None, None),
        Phase::Opening => ("opening", None, None),
        Phase::Declare => ("declare", None, None),
        Phase::Roll(s) => ("roll", Some(s), None),
        Phase::Place { source, roll } => ("place", Some(source), roll),
    };
    let retired: Vec<&str> = (0..players)
        .filter(|&s| pos.retired[s])
        .map(|s| SEATS[s])
        .collect();
    json!({
        "to_move": to_move,
        "dice": dice,
        "hands": per_seat(players, |s| json!(pos.hand(cfg, s))),
        "perfect": per_seat(players, |s| json!(counts[s])),
        "indicators": indicators,
        "sequences": sequences,
        "purity": purity,
        "variant": cfg.variant.name(),
        "target": cfg.target,
        "phase": phase,
        "declared": declared.map(Source::text),
        "roll": roll,
        "retired": retired,
        "position": game.position_tag(),
    })
}
