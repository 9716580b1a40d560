//! Dice Rink notation read without a position (rolls `5W6`, rotations `R6(2N)`, placements `b1 5/4`) and its canonical forms.

use super::die::{Dir, Orientation};
use super::position::Square;

/// A ply as written, before it is matched against a position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Written {
    /// `b1 5/4`: a set-up placement, top and front (the face toward the opponent).
    Place {
        square: Square,
        top: u8,
        front: u8,
    },
    /// `5W6`, `b1 5W6`, `b1 W`: the die is named by its square and/or its old top; the new
    /// top, if given, is a check.
    Roll {
        square: Option<Square>,
        old_top: Option<u8>,
        dir: Dir,
        new_top: Option<u8>,
    },
    /// `R6(2N)`, `rotate 6(2N)`, `b1 R6(2N)`: new top 6 with 2 facing north.
    Rotate {
        square: Option<Square>,
        top: u8,
        face: u8,
        facing: Dir,
    },
    Pass,
}

impl Written {
    /// The roll as the player wrote it, compactly (`6W5`, `a1 W`), to quote in messages.
    pub fn echo(&self) -> String {
        match self {
            Written::Roll {
                square,
                old_top,
                dir,
                new_top,
            } => {
                let mut s = String::new();
                if let Some(sq) = square {
                    s.push_str(&format!("{sq} "));
                }
                if let Some(t) = old_top {
                    s.push_str(&t.to_string());
                }
                s.push(dir.letter());
                if let Some(t) = new_top {
                    s.push_str(&t.to_string());
                }
                s
            }
            Written::Rotate {
                square,
                top,
                face,
                facing,
            } => {
                let prefix = square.map(|s| format!("{s} ")).unwrap_or_default();
                format!("{prefix}R{top}({face}{})", facing.letter())
            }
            Written::Place { square, top, front } => place_text(*square, *top, *front),
            Written::Pass => "pass".into(),
        }
    }
}

/// Canonical roll: `5W6`.
pub fn roll_text(old_top: u8, dir: Dir, new_top: u8) -> String {
    format!("{old_top}{}{new_top}", dir.letter())
}

/// Canonical rotation: `R6(2N)`, with the square in front (`b1 R6(2N)`) when either of the
/// mover's dice could make the same rotation.
pub fn rotate_text(square: Option<Square>, orient: Orientation) -> String {
    let prefix = square.map(|s| format!("{s} ")).unwrap_or_default();
    format!("{prefix}R{}({}N)", orient.top(), orient.face(Dir::North))
}

/// Canonical placement: `b1 5/4`.
pub fn place_text(square: Square, top: u8, front: u8) -> String {
    format!("{square} {top}/{front}")
}

/// Reads one ply. Case-insensitive and spacing-free: all white space is ignored, so
/// `B1 5 w 6` reads as `b1 5W6`. Errors say where reading stopped and what was expected.
pub fn parse(text: &str) -> Result<Written, String> {
    parse_compact(text).map_err(|e| {
        if e.starts_with('\'') || text.trim().is_empty() {
            e
        } else {
            format!("'{}': {e}", text.trim())
        }
    })
}

fn parse_compact(text: &str) -> Result<Written, String> {
    let compact: String = text
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    if compact.is_empty() {
        return Err("the move is empty".into());
    }
    if compact == "pass" {
        return Ok(Written::Pass);
    }
    let mut rest = compact.as_str();
    let mut square = None;
    if rest.len() >= 2 && rest.is_char_boundary(2) {
        if let Some(sq) = Square::parse(&rest[..2]) {
            square = Some(sq);
            rest = &rest[2..];
        }
    }
    if square.is_none() && looks_like_square(rest) {
        return Err(format!(
            "'{}' is not a square: files are a-d, ranks 1-4",
            &rest[..rest.len().min(2)]
        ));
    }
    if let Some(body) = rest
        .strip_prefix("rotate")
        .or_else(|| rest.strip_prefix('r'))
    {
        return parse_rotation(square, body, text.trim());
    }
    if rest.contains('/') {
        let Some(square) = square else {
            return Err(format!(
                "'{text}': a placement starts with its square, e.g. b1 5/4",
                text = text.trim()
            ));
        };
        return parse_placement(square, rest);
    }
    parse_roll(square, rest, text.trim())
}

/// A token starting like a square with a letter outside a-d or a rank outside 1-4 (`e1 W`,
/// `a5`), so the error can name the square rather than say "expected a direction". A bare
/// direction and digit (`W6`) is left to the roll reader.
fn looks_like_square(rest: &str) -> bool {
    let b = rest.as_bytes();
    let letter_digit = b.len() >= 2 && b[0].is_ascii_lowercase() && b[1].is_ascii_digit();
    let direction_first = matches!(b.first(), Some(b'n' | b'e' | b's' | b'w'));
    let rotation = b.first() == Some(&b'r');
    letter_digit && !rotation && (b.len() > 2 || !direction_first)
}

fn face_digit(c: Option<char>) -> Option<u8> {
    c.and_then(|c| c.to_digit(10))
        .and_then(|d| u8::try_from(d).ok())
}

fn check_face(n: u8, what: &str) -> Result<u8, String> {
    if (1..=6).contains(&n) {
        Ok(n)
    } else {
        Err(format!("{what} {n} is not a face of a die (1 to 6)"))
    }
}

/// `<old top>? <N|E|S|W> <new top>?` after the optional square.
fn parse_roll(square: Option<Square>, rest: &str, original: &str) -> Result<Written, String> {
    let mut chars = rest.chars().peekable();
    let old_top = match face_digit(chars.peek().copied()) {
        Some(d) => {
            chars.next();
            Some(check_face(d, "the old top")?)
        }
        None => None,
    };
    let Some(dir_char) = chars.next() else {
        return Err(format!(
            "'{original}': expected a direction N, E, S or W after {}",
            if old_top.is_some() {
                "the old top"
            } else {
                "the square"
            }
        ));
    };
    let Some(dir) = Dir::from_letter(dir_char) else {
        return Err(format!(
            "'{original}': expected a roll like 5W6 (old top, direction N/E/S/W, new top), a \
             rotation like R6(2N), a placement like b1 5/4, or pass; '{dir_char}' is not a \
             direction"
        ));
    };
    let new_top = match chars.next() {
        None => None,
        Some(c) => match face_digit(Some(c)) {
            Some(d) => Some(check_face(d, "the new top")?),
            None => {
                return Err(format!(
                    "'{original}': expected the new top (a digit) after the direction, not '{c}'"
                ))
            }
        },
    };
    if let Some(extra) = chars.next() {
        return Err(format!("'{original}': unexpected '{extra}' after the roll"));
    }
    if square.is_none() && old_top.is_none() && new_top.is_some() {
        // `W6` is more likely a typo than a roll named by its new top.
        return Err(format!(
            "'{original}': name the die by its old top (5W6) or its square (b1 W)"
        ));
    }
    Ok(Written::Roll {
        square,
        old_top,
        dir,
        new_top,
    })
}

/// `6(2n)` after `r` / `rotate`.
fn parse_rotation(square: Option<Square>, body: &str, original: &str) -> Result<Written, String> {
    let expected = || {
        format!(
            "'{original}': a rotation reads R6(2N): the new top, then in brackets a side face \
             and the direction it faces"
        )
    };
    let mut chars = body.chars();
    let top = check_face(
        face_digit(chars.next()).ok_or_else(expected)?,
        "the new top",
    )?;
    if chars.next() != Some('(') {
        return Err(expected());
    }
    let face = check_face(
        face_digit(chars.next()).ok_or_else(expected)?,
        "the side face",
    )?;
    let facing = chars
        .next()
        .and_then(Dir::from_letter)
        .ok_or_else(expected)?;
    if chars.next() != Some(')') || chars.next().is_some() {
        return Err(expected());
    }
    Ok(Written::Rotate {
        square,
        top,
        face,
        facing,
    })
}

/// `5/4` after the square.
fn parse_placement(square: Square, rest: &str) -> Result<Written, String> {
    let expected = || format!("'{square} {rest}': a placement reads b1 5/4 (square, top/front)");
    let (top, front) = rest.split_once('/').ok_or_else(expected)?;
    let top: u8 = top.parse().map_err(|_| expected())?;
    let front: u8 = front.parse().map_err(|_| expected())?;
    Ok(Written::Place {
        square,
        top: check_face(top, "the top")?,
        front: check_face(front, "the front")?,
    })
}

/// Splits a record's move text into plies: a square token joins the token after it
/// (`b1 5/4`, `b1 W`), `rotate` / `r` joins the next token, and a token opening with `(`
/// joins the one before (`R6 (2N)`).
pub fn split_plies(text: &str) -> Vec<String> {
    let mut plies: Vec<String> = Vec::new();
    let mut pending: Option<String> = None;
    for token in text.split_whitespace() {
        let joined = match pending.take() {
            Some(p) => format!("{p} {token}"),
            None if token.starts_with('(') && !plies.is_empty() => {
                let prev = plies.pop().unwrap_or_default();
                format!("{prev} {token}")
            }
            None => token.to_string(),
        };
        // A record may name the actor in front of a ply (`B>resign`): look past it.
        let lower = token.to_ascii_lowercase();
        let word = lower.rsplit('>').next().unwrap_or(&lower);
        if Square::parse(word).is_some() || word == "rotate" || word == "r" {
            pending = Some(joined);
        } else {
            plies.push(joined);
        }
    }
    if let Some(p) = pending {
        plies.push(p);
    }
    plies
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Option<Square> {
        Square::parse(s)
    }

    #[test]
    fn reads_rolls_in_every_spelling() {
        let want = Written::Roll {
            square: None,
            old_top: Some(5),
            dir: Dir::West,
            new_top: Some(6),
        };
        assert_eq!(parse("5W6").unwrap(), want);
        assert_eq!(parse(" 5 w 6 ").unwrap(), want);
        assert_eq!(
            parse("b1 W").unwrap(),
            Written::Roll {
                square: sq("b1"),
                old_top: None,
                dir: Dir::West,
                new_top: None
            }
        );
        assert!(matches!(
            parse("B1 5W6").unwrap(),
            Written::Roll {
                square: Some(_),
                old_top: Some(5),
                ..
            }
        ));
    }

    #[test]
    fn reads_rotations_and_placements() {
        let r = Written::Rotate {
            square: None,
            top: 6,
            face: 2,
            facing: Dir::North,
        };
        assert_eq!(parse("rotate 6(2N)").unwrap(), r);
        assert_eq!(parse("R6(2n)").unwrap(), r);
        assert_eq!(parse("r 6 ( 2 N )").unwrap(), r);
        assert_eq!(
            parse("b1 5/4").unwrap(),
            Written::Place {
                square: sq("b1").unwrap(),
                top: 5,
                front: 4
            }
        );
        assert_eq!(parse("PASS").unwrap(), Written::Pass);
    }

    #[test]
    fn syntax_errors_say_what_was_expected() {
        assert!(parse("5X6").unwrap_err().contains("'x' is not a direction"));
        assert!(parse("7W6").unwrap_err().contains("not a face"));
        assert!(parse("e1 W").unwrap_err().contains("not a square"));
        assert!(parse("R6(2)").unwrap_err().contains("R6(2N)"));
        assert!(parse("5/4").unwrap_err().contains("starts with its square"));
        assert!(parse("").is_err());
        assert!(parse("W6").unwrap_err().contains("name the die"));
    }

    #[test]
    fn splits_record_text_into_plies() {
        assert_eq!(
            split_plies("b1 5/4 b4 2/4 5W6 rotate 6(2N) c2 W R6 (2N) pass"),
            vec![
                "b1 5/4",
                "b4 2/4",
                "5W6",
                "rotate 6(2N)",
                "c2 W",
                "R6 (2N)",
                "pass"
            ]
        );
        assert_eq!(split_plies("b1 rotate 6(2N)"), vec!["b1 rotate 6(2N)"]);
        assert_eq!(
            split_plies("A>a1 R1(2N) B>resign"),
            vec!["A>a1 R1(2N)", "B>resign"]
        );
    }
}
