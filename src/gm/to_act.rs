//! Who is to act, in words: a paused game, a turn of orders (who is still awaited), a roll waiting for the salts.

use super::waiting_for_salts;
use crate::gamelog::Loaded;
use crate::games::ToAct;
use crate::store::GameStatus;

/// Who is to act, in words; a roll held back by the salt window says what it waits for.
pub fn to_act_text(g: &Loaded) -> String {
    if g.row.status == GameStatus::Paused {
        let why = g.row.pause_reason.as_deref().unwrap_or("no reason given");
        return format!("The game is paused by the GM ({why}): nobody is to move until it resumes");
    }
    if let ToAct::Orders(seats) = g.game.to_act() {
        return orders_text(g, &seats);
    }
    let text = g.game.to_act_text();
    if !waiting_for_salts(g) {
        return text;
    }
    let waiting: Vec<&str> = g
        .seats
        .iter()
        .filter(|s| !s.ready)
        .map(|s| g.game.seat_name(s.seat))
        .collect();
    let until = if g.row.salts_until.is_some() {
        ", or at the end of the salt window"
    } else {
        ""
    };
    format!(
        "{text} once the salts are fixed: when every player has sent START (still to come \
         from {}){until}",
        waiting.join(", ")
    )
}

/// A turn of orders in words: who is still awaited (never what anyone ordered), or, once all
/// are in, when the turn is adjudicated.
fn orders_text(g: &Loaded, seats: &[usize]) -> String {
    let awaited: Vec<&str> = seats
        .iter()
        .filter(|s| !g.ordered.contains(s))
        .map(|s| g.game.seat_name(*s))
        .collect();
    if !awaited.is_empty() {
        return format!("orders awaited from {}", awaited.join(", "));
    }
    match g.row.deadline {
        Some(d) => format!(
            "all orders are in: the turn is adjudicated at {}",
            crate::template::date(d)
        ),
        None => "all orders are in: the turn is adjudicated shortly".into(),
    }
}

/// Whether every seat that owes orders this turn has sent them (the deadline is then the
/// moment of adjudication, not one a player must meet).
pub fn all_ordered(g: &Loaded) -> bool {
    matches!(g.game.to_act(), ToAct::Orders(seats) if seats.iter().all(|s| g.ordered.contains(s)))
}
