//! The board as plain text for mail: a 4x4 grid, rank 4 at the top, each die's owner, top and front.

use super::position::{Position, Square, SEAT_NAMES, SIZE};
use crate::games::wrap_status as wrap;

/// Width of a cell's inside, in characters.
const CELL: usize = 8;

/// The widest line a mail may carry.
const WIDTH: usize = 72;

/// Renders the board under a status line (whose turn, the obligation, the result). Each die
/// shows its owner and top on one line, its front face below with an arrow pointing the way
/// the front faces (`^` north for A, `v` south for B); `!` marks `must_move`, the die that must
/// move (none once the game is over).
pub fn render(pos: &Position, must_move: Option<Square>, status: &[String]) -> String {
    let mut out = String::new();
    for line in status {
        for wrapped in wrap(line, WIDTH) {
            out.push_str(&wrapped);
            out.push('\n');
        }
    }
    out.push('\n');
    let files: String = (0..SIZE)
        .map(|f| format!("{:^width$}", (b'a' + f) as char, width = CELL + 1))
        .collect();
    let rule = format!(
        "   +{}",
        format!("{}+", "-".repeat(CELL)).repeat(SIZE as usize)
    );
    out.push_str(&format!("    {}\n", files.trim_end()));
    out.push_str(&rule);
    out.push('\n');
    for rank in (0..SIZE).rev() {
        let mut upper = format!(" {} |", rank + 1);
        let mut lower = "   |".to_string();
        for file in 0..SIZE {
            let (u, l) = Square::new(file, rank)
                .map(|sq| cell(pos, sq, must_move == Some(sq)))
                .unwrap_or_default();
            upper.push_str(&format!("{u:^CELL$}|"));
            lower.push_str(&format!("{l:^CELL$}|"));
        }
        let home = match rank {
            0 => "  A's home",
            r if r == SIZE - 1 => "  B's home",
            _ => "",
        };
        out.push_str(&format!("{upper} {}{home}\n", rank + 1));
        out.push_str(&lower);
        out.push('\n');
        out.push_str(&rule);
        out.push('\n');
    }
    out.push_str(&format!("    {}\n", files.trim_end()));
    out.push('\n');
    for (seat, name) in SEAT_NAMES.iter().enumerate() {
        let dice: Vec<String> = pos
            .dice_of(seat)
            .map(|d| format!("{} top {} front {}", d.square, d.top(), d.front()))
            .collect();
        let listed = if dice.is_empty() {
            "no dice yet".to_string()
        } else {
            dice.join(", ")
        };
        out.push_str(&format!("{name}: {listed}\n"));
    }
    out.push_str("Front = the face toward the opponent (^ north for A, v south for B).\n");
    out.push_str("Values: low 1-2, high 4-5, 3, 6.  ! = the die that must move.\n");
    out
}

/// The two text lines of one square.
fn cell(pos: &Position, sq: Square, must_move: bool) -> (String, String) {
    let Some(die) = pos.die_at(sq) else {
        return (String::new(), String::new());
    };
    let mark = if must_move { "!" } else { "" };
    let arrow = if die.owner == 0 { '^' } else { 'v' };
    (
        format!("{} {}{mark}", SEAT_NAMES[die.owner], die.top()),
        format!("{arrow}{}", die.front()),
    )
}

#[cfg(test)]
mod tests {
    use super::wrap;

    #[test]
    fn long_status_lines_wrap_at_spaces() {
        let line =
            "A must move the die on d4 (it matches B's 5); it cannot roll, so it must be rotated";
        let lines = wrap(line, 72);
        assert_eq!(lines.len(), 2);
        assert!(lines.iter().all(|l| l.len() <= 72));
        assert_eq!(
            lines.join(" ").split_whitespace().collect::<Vec<_>>(),
            line.split_whitespace().collect::<Vec<_>>()
        );
        assert_eq!(wrap("short", 72), vec!["short"]);
    }
}
