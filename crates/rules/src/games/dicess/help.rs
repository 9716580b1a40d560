//! The answer to MOVES: the legal single steps per die and the captures with their strength, readable in mail (a turn chains them, so listing every turn would be useless).

use super::position::{Board, Square, SEAT_NAMES};
use super::steps::{first_steps, SingleStep};
use crate::games::Seat;

/// The single steps and captures `side` can make as the first step of its turn.
pub fn moves_help(board: &Board, side: Seat) -> String {
    let name = SEAT_NAMES[side];
    let all = first_steps(board, side);
    let mut lines = vec![
        format!("{name} to move: up to 6 points this turn; a step costs the number"),
        "of the die that makes it. The first steps open to you, per die:".to_string(),
    ];
    lines.extend(steps_by_die(&all));
    let (strong, weak): (Vec<&SingleStep>, Vec<&SingleStep>) = all
        .iter()
        .filter(|s| s.capture.is_some())
        .partition(|s| s.strong_enough());
    if !strong.is_empty() {
        lines.push("Captures now (your die plus your dice next to the captured one):".into());
        lines.extend(strong.iter().map(|s| capture_line(s)));
    }
    if !weak.is_empty() {
        lines.push("Too weak now (moving support in first may change that):".into());
        lines.extend(weak.iter().map(|s| capture_line(s)));
    }
    if all.iter().all(|s| !s.strong_enough()) {
        lines.push(format!("{name} has no legal step: the turn is pass."));
    } else {
        lines.push(
            "A turn chains steps, e.g. e2-e3-e4; f2-f3. A capture ends it;\n\
             entering a star square of the opponent wins at once."
                .into(),
        );
    }
    lines.join("\n")
}

/// `  e2 (L3): e3` per die that can step onto an empty square.
fn steps_by_die(all: &[SingleStep]) -> Vec<String> {
    let mut lines = Vec::new();
    let mut dice: Vec<(Square, u8)> = all
        .iter()
        .filter(|s| s.capture.is_none())
        .map(|s| (s.from, s.number))
        .collect();
    dice.dedup();
    for (from, number) in dice {
        let to: Vec<String> = all
            .iter()
            .filter(|s| s.from == from && s.capture.is_none())
            .map(|s| s.to.to_string())
            .collect();
        lines.push(format!("  {from} ({number}): {}", to.join(" ")));
    }
    if lines.is_empty() {
        lines.push("  (no die can step onto an empty square)".into());
    }
    lines
}

/// `  c4xd4: 2 + 1 (d5) = 3 against a 3`.
fn capture_line(s: &SingleStep) -> String {
    let (strength, target) = s.capture.as_ref().expect("a capture");
    format!("  {}: {} against a {target}", s.text(), strength.sum_text())
}

/// A sample of legal turns for `legal_plies`: every legal single step or capture as a
/// one-step turn (a full list of turns would run to thousands), or `pass` without one.
pub fn sample_turns(board: &Board, side: Seat) -> Vec<String> {
    let turns: Vec<String> = first_steps(board, side)
        .iter()
        .filter(|s| s.strong_enough())
        .map(SingleStep::text)
        .collect();
    if turns.is_empty() {
        vec!["pass".into()]
    } else {
        turns
    }
}
