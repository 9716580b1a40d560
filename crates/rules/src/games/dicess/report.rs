//! What a ply did, in words for the turn report: the roll's numbers per side, a placement, a turn's cost, capture, promotions, a star win or an impasse.

use super::impasse::Impasse;
use super::position::{opponent, DARK, LIGHT, SEAT_NAMES};
use super::setup::{home_ranks, sorted, spaced};
use super::steps::join_and;
use super::turn::Played;
use crate::games::Seat;

/// One side's roll, as rolled and sorted (the sorted form is what a player places from).
pub fn rolled_line(side: Seat, rolled: &[u8]) -> String {
    format!(
        "{} rolled {} (sorted: {}).",
        SEAT_NAMES[side],
        spaced(rolled),
        spaced(&sorted(rolled))
    )
}

/// After the GM's roll.
pub fn roll(rolled: &[Vec<u8>; 2]) -> String {
    format!(
        "The set-up roll: {} {} LIGHT places first, on ranks 1 and 2 (R1: ... / R2: ...).",
        rolled_line(LIGHT, &rolled[LIGHT]),
        rolled_line(DARK, &rolled[DARK])
    )
}

/// After a side's placement.
pub fn placement(side: Seat, canonical: &str) -> String {
    let next = if side == LIGHT {
        let [back, front] = home_ranks(DARK);
        format!("DARK places next, on ranks {back} and {front} (R{back}: ... / R{front}: ...).")
    } else {
        "The set-up is complete: LIGHT moves first.".to_string()
    };
    format!("{} placed {canonical}. {next}", SEAT_NAMES[side])
}

/// After a turn (`played` is `None` for a pass). `blocked` says the next side has no legal
/// step, so the GM passes for it.
pub fn turn(
    side: Seat,
    canonical: &str,
    played: Option<&Played>,
    impasse: Option<&Impasse>,
    blocked: bool,
) -> String {
    let name = SEAT_NAMES[side];
    let mut parts = Vec::new();
    match played {
        None => parts.push(format!("{name} had no legal step and passed.")),
        Some(p) => {
            parts.push(format!(
                "{name} played {canonical} ({} of 6 points).",
                p.cost
            ));
            if let Some(c) = &p.capture {
                parts.push(format!(
                    "{}x{} took {}'s {} with {}.",
                    c.from,
                    c.on,
                    SEAT_NAMES[opponent(side)],
                    c.taken,
                    c.strength.sum_text()
                ));
            }
            let promoted: Vec<String> = p
                .promotions
                .iter()
                .map(|(sq, old, new)| format!("the {old} on {sq} became a {new}"))
                .collect();
            if !promoted.is_empty() {
                parts.push(format!("Promotion: {}.", join_and(&promoted)));
            }
            if let Some(sq) = p.win {
                parts.push(format!("{name} entered the star square {sq} and wins."));
            }
        }
    }
    if let Some(i) = impasse {
        parts.push(format!(
            "The game ends in an {}; {} wins.",
            i.reason(),
            SEAT_NAMES[i.winner]
        ));
    } else if blocked {
        parts.push(format!(
            "{} has no legal step, so the GM passes for it.",
            SEAT_NAMES[opponent(side)]
        ));
    }
    parts.join(" ")
}
