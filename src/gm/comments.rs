//! A player's comment on their own move, kept as that ply's comment in the record (as an annotator's words after it): `COMMENT ...` by mail, or a parenthesis after the move on its line; never read as a move.

use crate::gamelog::Loaded;
use crate::games::{Actor, PlyError};
use crate::store::Tx;

/// The most characters of a comment kept (a record is for reading, not for letters).
const MAX_CHARS: usize = 500;
/// The most characters of a ply's comments together (a mail of many COMMENT lines).
pub const MAX_PLY_CHARS: usize = 4 * MAX_CHARS;

/// A move line with a comment after it in parentheses (`1N4 (a risky one)`): the move and the
/// comment. A line the game reads whole stays whole, so that notation with parentheses in it
/// (Dice Rink's `rotate 6 (2N)`, Dip-Tac-Toe's `(supports)`) is never cut: the parenthesis
/// is a comment only where the whole line is not the game's notation and what comes before
/// it is.
pub(super) fn split(g: &Loaded, seat: usize, line: &str) -> Option<(String, String)> {
    let (head, comment) = trailing_parenthesis(line)?;
    let syntax = |text: &str| {
        matches!(
            g.game.clone().play(Actor::Seat(seat), text),
            Err(PlyError::Syntax(_))
        )
    };
    (syntax(line) && !syntax(head)).then(|| (head.to_string(), comment.to_string()))
}

/// The text before a parenthesis that closes the line and the words inside it, when white
/// space comes before the parenthesis and something before that; nested parentheses stay
/// part of the comment.
fn trailing_parenthesis(line: &str) -> Option<(&str, &str)> {
    let line = line.trim_end();
    let inner = line.strip_suffix(')')?;
    let mut depth = 0usize;
    for (i, c) in inner.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' if depth > 0 => depth -= 1,
            '(' => {
                let head = &line[..i];
                let words = inner[i + 1..].trim();
                let spaced = head.ends_with(char::is_whitespace);
                return (spaced && !head.trim().is_empty() && !words.is_empty())
                    .then(|| (head.trim_end(), words));
            }
            _ => {}
        }
    }
    None
}

/// Keeps `text` as ply `ply`'s comment, after any it has (a parenthesis and a `COMMENT` line
/// in one mail are both kept). Braces would end the record's comment: they go, and a long
/// comment keeps its start, as do a ply's comments together (`MAX_PLY_CHARS`).
pub fn keep(tx: &Tx, game: i64, ply: i64, text: &str) -> anyhow::Result<()> {
    let text: String = text
        .replace(['{', '}'], "")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if text.is_empty() {
        return Ok(());
    }
    let text: String = text.chars().take(MAX_CHARS).collect();
    tx.add_ply_comment(game, ply, &text, MAX_PLY_CHARS)
}

#[cfg(test)]
mod tests {
    use super::trailing_parenthesis;

    #[test]
    fn a_parenthesis_after_a_move_is_found_and_one_inside_it_is_not() {
        assert_eq!(
            trailing_parenthesis("1N4 (a risky one)"),
            Some(("1N4", "a risky one"))
        );
        assert_eq!(
            trailing_parenthesis("1N4 (forced (sadly))"),
            Some(("1N4", "forced (sadly)"))
        );
        assert_eq!(trailing_parenthesis("rotate 6(2N)"), None);
        assert_eq!(trailing_parenthesis("(just words)"), None);
        assert_eq!(trailing_parenthesis("1N4 ()"), None);
        assert_eq!(trailing_parenthesis("1N4"), None);
    }
}
