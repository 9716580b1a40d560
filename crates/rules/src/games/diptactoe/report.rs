//! The turn report everybody gets: every line with its result, dislodged units, reserves, claims.

use super::adjudicate::{Turn, Verdict};
use super::order::LineReading;
use super::SEATS;
use crate::games::Seat;

/// The one-word result of a line (what-if JSON): succeeds, fails, given, cut, void,
/// claim_valid, claim_invalid.
pub fn line_word(turn: &Turn, seat: Seat, reading: &LineReading) -> &'static str {
    match reading {
        LineReading::Void(_) => "void",
        LineReading::Claim => {
            let valid = turn
                .claims
                .iter()
                .any(|c| c.seat == seat && c.line.is_some());
            if valid {
                "claim_valid"
            } else {
                "claim_invalid"
            }
        }
        LineReading::Order(_) => match turn.result_of(seat) {
            Some(Verdict::Succeeds) => "succeeds",
            Some(Verdict::Fails) => "fails",
            Some(Verdict::Given) => "given",
            Some(Verdict::Cut) => "cut",
            Some(Verdict::Unmatched) | None => "void",
        },
    }
}

/// The result of a line in words.
fn line_text(turn: &Turn, seat: Seat, text: &str, reading: &LineReading) -> String {
    match reading {
        LineReading::Void(reason) => format!("{}: void ({reason})", text.trim()),
        LineReading::Claim => match turn.claims.iter().find(|c| c.seat == seat) {
            Some(claim) if claim.line.is_some() => {
                let spaces: Vec<String> =
                    claim.line.iter().flatten().map(|s| s.to_string()).collect();
                format!("VICTORY: claim valid, four in a row {}", spaces.join(" "))
            }
            _ => "VICTORY: claim invalid, no four in a row".into(),
        },
        LineReading::Order(order) => {
            let result = match turn.result_of(seat) {
                Some(Verdict::Succeeds) => "succeeds",
                Some(Verdict::Fails) => "fails",
                Some(Verdict::Given) => "support given",
                Some(Verdict::Cut) => "support cut",
                Some(Verdict::Unmatched) | None => "void (the supported order was not given)",
            };
            format!("{order}: {result}")
        }
    }
}

/// The report of a turn, headed by `title` (e.g. `Turn 3`).
pub fn render(turn: &Turn, title: &str) -> String {
    let mut out = format!("{title} adjudicated.\n");
    for (seat, name) in SEATS.iter().enumerate() {
        let lines = &turn.lines[seat];
        if lines.is_empty() {
            out.push_str(&format!("{name}: no orders (units hold)\n"));
            continue;
        }
        out.push_str(&format!("{name}:\n"));
        let mut shown: Vec<String> = Vec::new();
        for (text, reading) in lines {
            let line = line_text(turn, seat, text, reading);
            // Identical duplicates count once and are reported once.
            if !shown.contains(&line) {
                out.push_str(&format!("  {line}\n"));
                shown.push(line);
            }
        }
        if !lines
            .iter()
            .any(|(_, r)| matches!(r, LineReading::Order(_)))
        {
            out.push_str("  (no valid order: units hold)\n");
        }
    }
    if turn.dislodged.is_empty() {
        out.push_str("Dislodged: none\n");
    } else {
        let list: Vec<String> = turn
            .dislodged
            .iter()
            .map(|(space, owner)| format!("{} {space}", SEATS[*owner]))
            .collect();
        out.push_str(&format!(
            "Dislodged (back to reserve): {}\n",
            list.join(", ")
        ));
    }
    let reserves: Vec<String> = SEATS
        .iter()
        .enumerate()
        .map(|(seat, name)| format!("{name} {}", turn.after.reserves[seat]))
        .collect();
    out.push_str(&format!("Reserves: {}\n", reserves.join(", ")));
    let winners = turn.winners();
    match winners.as_slice() {
        [] => {}
        [one] => out.push_str(&format!("{} wins with a valid claim.\n", SEATS[*one])),
        many => {
            let names: Vec<&str> = many.iter().map(|s| SEATS[*s]).collect();
            out.push_str(&format!(
                "Draw: valid claims by {} in the same turn.\n",
                names.join(", ")
            ));
        }
    }
    out
}
