//! Dicess notation read without a position (the roll, a set-up, a turn of paths, `pass`), its canonical forms, and the record's ply splitting.

use std::fmt;

use super::position::Square;

/// A ply as written, before it is matched against a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// `roll 6 2 4 ...`: the GM's set-up roll, the values as given (counted and ranged later).
    Roll(Vec<u32>),
    /// `R1: 6 2 4 1 1 3 5 5 / R2: ...`: rows as (1-based rank, the values for files a to h).
    Setup(Vec<(u8, Vec<u32>)>),
    /// `e2-e3-e4; f2-f3`: the paths in the order written.
    Turn(Vec<Path>),
    /// `pass`.
    Pass,
}

/// One path of a turn: the die standing on `start` makes `steps`, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Path {
    pub start: Square,
    pub steps: Vec<Step>,
}

/// One step of a path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub to: Square,
    /// Written `x`: a capture (the square must hold an enemy die).
    pub capture: bool,
    /// Written `=n` right after the square: the number the die is promoted to.
    pub promote: Option<u32>,
}

impl fmt::Display for Path {
    /// The canonical path: `e2-e3-e4`, `d4-d5xd6`, `c7-c8=6`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.start)?;
        for step in &self.steps {
            write!(f, "{}{}", if step.capture { 'x' } else { '-' }, step.to)?;
            if let Some(n) = step.promote {
                write!(f, "={n}")?;
            }
        }
        Ok(())
    }
}

/// The canonical turn: its paths joined by `; `.
pub fn write_turn(paths: &[Path]) -> String {
    paths
        .iter()
        .map(Path::to_string)
        .collect::<Vec<_>>()
        .join("; ")
}

/// Reads any Dicess ply. The error says where the text stopped making sense and what was
/// expected there (it goes into the player's reply as it is).
pub fn parse(text: &str) -> Result<Written, String> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    if lower.is_empty() {
        return Err("the ply is empty: expected a turn like e2-e3-e4; f2-f3".into());
    }
    if lower == "pass" {
        return Ok(Written::Pass);
    }
    if let Some(rest) = lower.strip_prefix("roll") {
        return parse_roll(rest);
    }
    if lower.starts_with(|c: char| c.is_ascii_digit()) {
        return parse_roll(&lower);
    }
    // Set-ups and turns are read from the text as written, so that an error quotes the
    // player's own words (not a lower-cased, squeezed form of them).
    let mut chars = lower.chars();
    if chars.next() == Some('r') && chars.next().is_some_and(|c| c.is_ascii_digit()) {
        return parse_setup(t);
    }
    parse_turn(t)
}

/// `roll` already removed: the values, white space separated.
fn parse_roll(rest: &str) -> Result<Written, String> {
    let values: Result<Vec<u32>, _> = rest.split_whitespace().map(str::parse::<u32>).collect();
    match values {
        Ok(v) if !v.is_empty() => Ok(Written::Roll(v)),
        _ => Err(format!(
            "'roll{rest}': a roll is 'roll' and 32 numbers from 1 to 6"
        )),
    }
}

/// `R1: 6 2 4 1 1 3 5 5 / R2: 2 6 4 3 1 2 6 5` (`r` or `R`), rows in either order.
fn parse_setup(text: &str) -> Result<Written, String> {
    let parts: Vec<&str> = text.split('/').collect();
    if parts.len() != 2 {
        return Err(format!(
            "'{text}': a set-up is two rows separated by '/', like \
             R1: 6 2 4 1 1 3 5 5 / R2: 2 6 4 3 1 2 6 5"
        ));
    }
    let rows = parts
        .iter()
        .map(|p| parse_row(p.trim()))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Written::Setup(rows))
}

/// One row of a set-up: `r1: 6 2 4 1 1 3 5 5` (the eight numbers may also be written together).
fn parse_row(part: &str) -> Result<(u8, Vec<u32>), String> {
    let expected = "a row is written like R1: 6 2 4 1 1 3 5 5";
    let Some((head, values)) = part.split_once(':') else {
        return Err(format!("'{part}': {expected} (the ':' is missing)"));
    };
    let rank = head
        .trim()
        .strip_prefix(['r', 'R'])
        .and_then(|n| n.trim().parse::<u8>().ok())
        .filter(|r| (1..=8).contains(r))
        .ok_or_else(|| format!("'{}': {expected} (R and a rank 1 to 8)", head.trim()))?;
    let mut numbers = Vec::new();
    for c in values.chars() {
        match c {
            '0'..='9' => numbers.push(c.to_digit(10).unwrap_or(0)),
            ',' => {}
            c if c.is_whitespace() => {}
            _ => {
                return Err(format!(
                    "'{part}': {expected} ('{c}' is not a number of the row)"
                ))
            }
        }
    }
    if numbers.len() != 8 {
        return Err(format!(
            "'{part}': R{rank} needs 8 numbers, one for each file a to h, not {}",
            numbers.len()
        ));
    }
    Ok((rank, numbers))
}

/// A turn: paths separated by `;`. Case does not count and white space is free around every
/// mark, so each path is read lower-cased with its white space dropped; a missing mark between
/// two squares is then reported where it is missing, quoting the path as written.
fn parse_turn(text: &str) -> Result<Written, String> {
    let paths = text
        .split(';')
        .map(|written| {
            let squeezed: String = written
                .chars()
                .filter(|c| !c.is_whitespace())
                .collect::<String>()
                .to_ascii_lowercase();
            parse_path(&squeezed, written.trim())
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Written::Turn(paths))
}

/// Reads a square at the start of `rest`, or says what was found instead.
fn take_square<'a>(rest: &'a str, after: &str) -> Result<(Square, &'a str), String> {
    let found = rest.get(..2).and_then(Square::parse);
    match found {
        Some(sq) => Ok((sq, &rest[2..])),
        None if rest.is_empty() => Err(format!(
            "expected a square (a1 to h8) {after}, found nothing"
        )),
        None => Err(format!(
            "expected a square (a1 to h8) {after}, found '{}'",
            rest.chars().take(3).collect::<String>()
        )),
    }
}

/// One path: a start square followed by steps (`-e3`, `xd6`), each maybe with `=n`; `written`
/// is the path as the player wrote it, for the errors.
fn parse_path(path: &str, written: &str) -> Result<Path, String> {
    let expected_turn = "a turn is written like e2-e3-e4; f2-f3 (capture d5xd6, promotion c7-c8=6)";
    if path.is_empty() {
        return Err(format!("an empty path between ';' marks: {expected_turn}"));
    }
    let at = |e: String| format!("in '{written}': {e}; {expected_turn}");
    let (start, mut rest) = take_square(path, "to start the path").map_err(at)?;
    let mut steps = Vec::new();
    while let Some(mark) = rest.chars().next() {
        let capture = match mark {
            '-' => false,
            'x' => true,
            _ => {
                let after = steps.last().map_or(start, |s: &Step| s.to);
                return Err(at(format!(
                    "expected '-', 'x', '=' or ';' after {after}, found '{mark}'"
                )));
            }
        };
        let (to, after) = take_square(&rest[1..], &format!("after '{mark}'")).map_err(at)?;
        rest = after;
        let mut promote = None;
        if let Some(digits) = rest.strip_prefix('=') {
            let n: String = digits.chars().take_while(char::is_ascii_digit).collect();
            if n.is_empty() {
                return Err(at(format!("expected a number 1 to 6 after '{to}='")));
            }
            promote = Some(n.parse::<u32>().unwrap_or(u32::MAX));
            rest = &digits[n.len()..];
        }
        steps.push(Step {
            to,
            capture,
            promote,
        });
    }
    if steps.is_empty() {
        return Err(at(format!(
            "{start} alone moves nothing: a path is a start square followed by steps"
        )));
    }
    Ok(Path { start, steps })
}

/// The marks after or before which a token belongs to the ply before it (contract 2.3).
const JOINING_MARKS: &[char] = &['-', 'x', 'X', '=', ';', '/', ':'];

/// Splits a record's move text into plies: a token joins the ply before it when it begins with
/// a digit or a joining mark, or when the token before it ends with one; any other token
/// starts a new ply. So `roll` keeps its 32 values, a set-up stays one ply, and
/// `e2-e3-e4; f2-f3` is one turn.
pub fn split_plies(text: &str) -> Vec<String> {
    let mut plies: Vec<String> = Vec::new();
    let mut previous_ends_with_mark = false;
    for token in text.split_whitespace() {
        let first = token.chars().next().unwrap_or(' ');
        let joins = first.is_ascii_digit() || JOINING_MARKS.contains(&first);
        match plies.last_mut() {
            Some(ply) if joins || previous_ends_with_mark => {
                ply.push(' ');
                ply.push_str(token);
            }
            _ => plies.push(token.to_string()),
        }
        previous_ends_with_mark = token.ends_with(JOINING_MARKS);
    }
    plies
}

#[cfg(test)]
mod tests {
    use super::*;

    fn turn(text: &str) -> String {
        match parse(text) {
            Ok(Written::Turn(paths)) => write_turn(&paths),
            other => panic!("{text}: {other:?}"),
        }
    }

    #[test]
    fn turns_read_with_free_spacing_and_case() {
        assert_eq!(turn("e2-e3-e4; f2-f3"), "e2-e3-e4; f2-f3");
        assert_eq!(turn(" E2 - E3 -e4 ;F2-F3 "), "e2-e3-e4; f2-f3");
        assert_eq!(turn("d4-d5Xd6"), "d4-d5xd6");
        assert_eq!(turn("c7 - c8 = 6"), "c7-c8=6");
        assert_eq!(turn("c7-c8=6-b8"), "c7-c8=6-b8");
    }

    #[test]
    fn turn_errors_say_where_and_what() {
        let e = parse("e2-e9").unwrap_err();
        assert!(e.contains("found 'e9'"), "{e}");
        let e = parse("e2-e3 e4-e5").unwrap_err();
        assert!(e.contains("after e3, found 'e'"), "{e}");
        assert!(parse("e2").unwrap_err().contains("alone"));
        assert!(parse("e2-e3;").unwrap_err().contains("empty path"));
        assert!(parse("c7-c8=").unwrap_err().contains("number 1 to 6"));
        assert!(parse("hello").is_err());
        // The error quotes the player's words as written.
        let e = parse("Hello there").unwrap_err();
        assert!(e.starts_with("in 'Hello there': "), "{e}");
        let e = parse("E2 - E3; F2 F3").unwrap_err();
        assert!(e.starts_with("in 'F2 F3': expected '-'"), "{e}");
        let e = parse("R1: 6 2 4 1 1 3 5 5").unwrap_err();
        assert!(e.starts_with("'R1: 6 2 4 1 1 3 5 5': "), "{e}");
    }

    #[test]
    fn setups_read_rows_in_either_order() {
        let w = parse("R1: 6 2 4 1 1 3 5 5 / R2: 2 6 4 3 1 2 6 5").unwrap();
        let w2 = parse("r2:26431265/r1:6,2,4,1,1,3,5,5").unwrap();
        let Written::Setup(rows) = w else { panic!() };
        let Written::Setup(rows2) = w2 else { panic!() };
        assert_eq!(rows[0], (1, vec![6, 2, 4, 1, 1, 3, 5, 5]));
        assert_eq!(rows2[1], rows[0]);
        assert!(parse("R1: 6 2 4 1 1 3 5 / R2: 2 6 4 3 1 2 6 5")
            .unwrap_err()
            .contains("8 numbers"));
        assert!(parse("R1: 6 2 4 1 1 3 5 5")
            .unwrap_err()
            .contains("two rows"));
        assert!(parse("R9: 6 2 4 1 1 3 5 5 / R2: 2 6 4 3 1 2 6 5").is_err());
    }

    #[test]
    fn rolls_and_pass() {
        assert_eq!(parse("roll 1 2").unwrap(), Written::Roll(vec![1, 2]));
        assert_eq!(parse("ROLL 3").unwrap(), Written::Roll(vec![3]));
        assert_eq!(parse("PASS").unwrap(), Written::Pass);
        assert!(parse("roll x").is_err());
        assert!(parse("roll").is_err());
    }

    #[test]
    fn record_text_splits_into_plies() {
        let text = "roll 6 2 4 1 R1: 6 2 4 1 1 3 5 5 / R2: 2 6 4 3 1 2 6 5 \
                    R8: 2 2 5 1 6 3 4 4 / R7: 1 5 6 2 3 3 1 6 e2-e3-e4; f2-f3 a7 - a6 -a5; g7-g6 \
                    pass c7-c8= 6";
        assert_eq!(
            split_plies(text),
            [
                "roll 6 2 4 1",
                "R1: 6 2 4 1 1 3 5 5 / R2: 2 6 4 3 1 2 6 5",
                "R8: 2 2 5 1 6 3 4 4 / R7: 1 5 6 2 3 3 1 6",
                "e2-e3-e4; f2-f3",
                "a7 - a6 -a5; g7-g6",
                "pass",
                "c7-c8= 6",
            ]
        );
    }
}
