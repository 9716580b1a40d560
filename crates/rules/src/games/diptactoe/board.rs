//! The board as text for mail: the four levels side by side with the seed's labels, 72 columns.

use super::position::Position;
use super::space::{Space, FILES, LEVELS};
use super::SEATS;

/// The letter that marks a player's unit on the board.
pub const MARKS: [char; 4] = ['B', 'R', 'G', 'Y'];

const GAP: &str = "    ";

/// Renders levels I..IV left to right, files across the top, rows 1-4 down the left of each.
pub fn render(position: &Position) -> String {
    let mut out = String::new();
    let headers: Vec<String> = LEVELS
        .iter()
        .map(|l| format!("{:<11}", format!("Level {l}")))
        .collect();
    out.push_str(headers.join(GAP).trim_end());
    out.push('\n');
    let files: Vec<String> = FILES
        .iter()
        .map(|fs| {
            let letters: Vec<String> = fs.iter().map(char::to_string).collect();
            format!("  {}  ", letters.join(" "))
        })
        .collect();
    out.push_str(files.join(GAP).trim_end());
    out.push('\n');
    for row in 0..4u8 {
        let blocks: Vec<String> = (0..4u8)
            .map(|level| {
                let cells: Vec<String> = (0..4u8)
                    .map(
                        |file| match position.units.get(&Space::new(level, file, row)) {
                            Some(owner) => MARKS[*owner].to_string(),
                            None => ".".to_string(),
                        },
                    )
                    .collect();
                format!("{} {}  ", row + 1, cells.join(" "))
            })
            .collect();
        out.push_str(blocks.join(GAP).trim_end());
        out.push('\n');
    }
    let reserves: Vec<String> = SEATS
        .iter()
        .enumerate()
        .map(|(seat, name)| format!("{name} ({}) {}", MARKS[seat], position.reserves[seat]))
        .collect();
    out.push_str(&format!("Reserves: {}\n", reserves.join(", ")));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_board_shows_the_four_corners_within_72_columns() {
        let text = render(&Position::start());
        assert!(text.lines().all(|l| l.len() <= 72), "{text}");
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[0].starts_with("Level I "));
        assert!(lines[1].contains("A B C D") && lines[1].contains("N P Q R"));
        // Row 1: Blue on I.A.1, Red on II.H.1; row 4: Green on III.M.4, Yellow on IV.N.4.
        assert_eq!(
            lines[2],
            "1 B . . .      1 . . . R      1 . . . .      1 . . . ."
        );
        assert_eq!(
            lines[5],
            "4 . . . .      4 . . . .      4 . . . G      4 Y . . ."
        );
        assert!(text.contains("YELLOW (Y) 7"));
    }
}
