//! The board as plain text for mail (within 72 columns): each die as side and number, the star squares and the last turn's path marked.

use super::position::{Board, Square};

/// One square in five columns: `[`, two for the content, `*` on a star square, `]`. The
/// brackets mark the last turn's path (where its dice started, passed and stopped).
fn cell(board: &Board, sq: Square, path: &[Square]) -> String {
    let on_path = path.contains(&sq);
    let content = match board.at(sq) {
        Some(d) => d.label(),
        None => " .".to_string(),
    };
    let star = if sq.is_star() { '*' } else { ' ' };
    if on_path {
        format!("[{content}{star}]")
    } else {
        format!(" {content}{star} ")
    }
}

/// The board seen from LIGHT's side (rank 8 at the top), with the status lines under it.
pub fn render(board: &Board, path: &[Square], lines: &[String]) -> String {
    let files = "      a    b    c    d    e    f    g    h";
    let mut out = String::new();
    out.push_str(files);
    out.push('\n');
    for rank in (0..8).rev() {
        out.push_str(&format!("  {} ", rank + 1));
        for file in 0..8 {
            let sq = Square::new(file, rank).expect("on the board");
            out.push_str(&cell(board, sq, path));
        }
        out.push_str(&format!(" {}\n", rank + 1));
    }
    out.push_str(files);
    out.push('\n');
    out.push_str(
        "  L3: a LIGHT die showing 3, D5: a DARK die showing 5. * marks the star\n  \
         squares d1 e1 d8 e8, [ ] the last turn's path.\n",
    );
    for line in lines {
        for l in crate::games::wrap_status(line, 72) {
            out.push_str(&l);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::position::{Die, DARK, LIGHT};
    use super::*;

    #[test]
    fn dice_stars_and_path_fit_in_72_columns() {
        let mut b = Board::default();
        let sq = |s: &str| Square::parse(s).unwrap();
        b.put(
            sq("e4"),
            Die {
                side: LIGHT,
                number: 3,
            },
        );
        b.put(
            sq("d8"),
            Die {
                side: DARK,
                number: 5,
            },
        );
        let text = render(
            &b,
            &[sq("e2"), sq("e3"), sq("e4")],
            &["a status line that is long enough to need wrapping when it goes on and on and on past the edge".into()],
        );
        assert!(text.lines().all(|l| l.len() <= 72), "{text}");
        assert!(text.contains("[L3 ]"), "{text}");
        assert!(text.contains(" D5* "), "{text}");
        assert!(text.contains("[ . ]"), "{text}");
        assert!(text.contains("  .* "), "{text}");
    }
}
