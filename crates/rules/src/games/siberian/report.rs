//! What a ply did, in the words of a turn report: the opening roll, a roll and what it allows, a placement's perfection changes and the counts, the end of the game, a seat leaving.

use super::board::SEATS;
use super::perfection::Change;
use super::position::Source;
use super::variant::Variant;
use super::{Phase, Siberian};
use crate::games::{Outcome, Seat};

/// The declared die in words: `the die from the hand`, `the die lifted from c3`.
fn die_of(source: Source) -> String {
    match source {
        Source::Hand => "the die from the hand".into(),
        Source::Lift(h) => format!("the die lifted from {h}"),
    }
}

/// The hexes the die may go to, in words.
fn where_to(source: Source) -> String {
    match source {
        Source::Hand => "on any vacant hex".into(),
        Source::Lift(h) => format!("on any vacant hex (or back on {h})"),
    }
}

fn digits(values: impl IntoIterator<Item = u8>) -> String {
    values.into_iter().map(|v| v.to_string()).collect()
}

/// Numbers as digits in groups of ten, so that a long sequence wraps and can be counted.
pub(super) fn in_tens(values: impl IntoIterator<Item = u8>) -> String {
    let values: Vec<u8> = values.into_iter().collect();
    let tens: Vec<String> = values
        .chunks(10)
        .map(|c| digits(c.iter().copied()))
        .collect();
    tens.join(" ")
}

/// The opening roll: the indicators, the sequences or the published numbers.
pub fn opening(game: &Siberian) -> String {
    let pos = game.position();
    let seats = 0..game.config().players;
    match game.config().variant {
        Variant::Strategic => {
            let ind = pos.indicators.clone().unwrap_or_default();
            let v: Vec<String> = seats.map(|s| format!("{} {}", SEATS[s], ind[s])).collect();
            format!("The indicators: {}.", v.join(", "))
        }
        Variant::Grossmeister => {
            let seqs = pos.sequences.clone().unwrap_or_default();
            let v: Vec<String> = seats
                .map(|s| format!("{} {}", SEATS[s], digits(seqs[s].iter().copied())))
                .collect();
            format!("The sequences, head first: {}.", v.join(", "))
        }
        _ => {
            let p = pos.purity.clone().unwrap_or_default();
            format!(
                "The published sequence ({} numbers, used from the first, in tens): {}.",
                p.len(),
                in_tens(p.iter().copied())
            )
        }
    }
}

/// A roll for the declared die: what is placed, and where it may go.
pub fn rolled(game: &Siberian, source: Source, roll: u8) -> String {
    let seat = game.position().to_move;
    let who = SEATS[seat];
    let pips = game
        .position()
        .placed_pips(game.config(), seat, Some(roll))
        .unwrap_or(roll);
    let head = format!(
        "The GM rolled {roll} for {who}'s {}",
        die_of(source).trim_start_matches("the ")
    );
    let then = match game.config().variant {
        Variant::Strategic => format!(
            ": it is {who}'s new indicator. {who} places the old indicator, a {pips}, {}.",
            where_to(source)
        ),
        Variant::Grossmeister => format!(
            ": it goes to the tail of {who}'s sequence. {who} places the head, a {pips}, {}.",
            where_to(source)
        ),
        _ => format!(". {who} places it, a {pips}, {}.", where_to(source)),
    };
    format!("{head}{then} MOVES shows which hexes make dice perfect.")
}

/// A declaration whose die the GM rolls next, in words beside its notation.
pub fn declared(game: &Siberian, source: Source) -> String {
    let who = SEATS[game.position().to_move];
    let what = match source {
        Source::Hand => "a die from the hand".to_string(),
        Source::Lift(h) => format!("lifting the die on {h}"),
    };
    format!(
        "{who} declared {} ({what}); the GM rolls it.",
        source.text()
    )
}

/// A declaration with nothing rolled: the known die to place.
pub fn to_place(game: &Siberian, source: Source) -> String {
    let seat = game.position().to_move;
    let who = SEATS[seat];
    let pips = game
        .position()
        .placed_pips(game.config(), seat, None)
        .unwrap_or(0);
    let what = match game.config().variant {
        Variant::Purity => "the next published number",
        _ => "the head of the sequence",
    };
    let lifted = match source {
        Source::Hand => String::new(),
        Source::Lift(h) => format!(" (the die on {h} is lifted)"),
    };
    format!(
        "{who} declared {} and places {what}, a {pips}{lifted}, {}.",
        source.text(),
        where_to(source)
    )
}

/// A placement: the move, the dice that became perfect or stopped, the counts, the end.
pub fn placed(game: &Siberian) -> String {
    let Some(last) = game.last() else {
        return String::new();
    };
    let from = match last.source {
        Source::Hand => "from the hand".to_string(),
        Source::Lift(h) if h == last.target => format!("lifted from {h} and put back"),
        Source::Lift(h) => format!("lifted from {h}"),
    };
    let mut out = format!(
        "{} placed a {} on {} ({from}).",
        SEATS[last.seat], last.pips, last.target
    );
    out.push(' ');
    out.push_str(&changes(game, &last.change));
    out.push_str(&format!(" Perfect dice: {}.", counts_text(game)));
    if let Some(end) = outcome_text(game) {
        out.push(' ');
        out.push_str(&end);
    } else if game.phase() == Phase::Declare {
        out.push_str(&format!(" {} to move.", SEATS[game.position().to_move]));
    }
    out
}

fn changes(game: &Siberian, change: &Change) -> String {
    if change.is_empty() {
        return "No die changed its perfection.".into();
    }
    let name = |(h, s): &(super::hex::Hex, Seat)| {
        let pips = game.position().board.at(*h).map(|d| d.pips);
        match pips {
            Some(p) => format!("{h} ({} {p})", SEATS[*s]),
            None => format!("{h} ({}, lifted)", SEATS[*s]),
        }
    };
    let mut parts = Vec::new();
    if !change.gained.is_empty() {
        let v: Vec<String> = change.gained.iter().map(name).collect();
        parts.push(format!("Now perfect: {}.", v.join(", ")));
    }
    if !change.lost.is_empty() {
        let v: Vec<String> = change.lost.iter().map(name).collect();
        parts.push(format!("No longer perfect: {}.", v.join(", ")));
    }
    parts.join(" ")
}

/// `BLUE 3, RED 2 of 6` (a seat that left is marked).
pub fn counts_text(game: &Siberian) -> String {
    let counts = game.perfect_counts();
    let v: Vec<String> = (0..game.config().players)
        .map(|s| {
            let left = if game.position().retired[s] {
                " (left)"
            } else {
                ""
            };
            format!("{} {}{left}", SEATS[s], counts[s])
        })
        .collect();
    format!("{} of {}", v.join(", "), game.config().target)
}

/// The end of the game in a sentence, if it ended.
pub fn outcome_text(game: &Siberian) -> Option<String> {
    use crate::games::Rules;
    Some(match game.outcome()? {
        Outcome::Win { seat, reason } => format!("{} wins: {reason}.", SEATS[seat]),
        Outcome::Draw { seats, reason } => {
            let names: Vec<&str> = seats.iter().map(|&s| SEATS[s]).collect();
            format!("A draw between {}: {reason}.", names.join(", "))
        }
    })
}

/// A seat left the game.
pub fn retired(game: &Siberian, seat: Seat, dropped: bool) -> String {
    let mut out = format!(
        "{} has left the game: its dice stay on the board, and it can no longer win.",
        SEATS[seat]
    );
    if dropped {
        out.push_str(" Its move under way is dropped.");
    }
    if game.phase() == Phase::Declare {
        out.push_str(&format!(" {} to move.", SEATS[game.position().to_move]));
    }
    out
}
