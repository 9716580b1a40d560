//! Reading plies and mail forms: declarations (`H`, `c3`, `ROLL c3`), placements (`d4`, `PLACE d4`), rolls (`roll 4`), a record's move text, and one-message plans (`H d4`, `c3: 1>a1 3-5>d4 *>e5`).

use super::hex::{split_name, Hex, COLUMN_LENGTHS};
use super::position::Source;
use crate::games::PlyError;

fn syntax(msg: impl Into<String>) -> PlyError {
    PlyError::Syntax(msg.into())
}

fn illegal(msg: impl Into<String>) -> PlyError {
    PlyError::Illegal(msg.into())
}

/// Strips a leading keyword (`ROLL`, `PLACE`), either case, when a word follows it.
fn strip_keyword<'a>(text: &'a str, keyword: &str) -> &'a str {
    let t = text.trim();
    match t.split_once(char::is_whitespace) {
        Some((first, rest)) if first.eq_ignore_ascii_case(keyword) => rest.trim(),
        _ => t,
    }
}

/// A hex name; one shaped like a hex but off the board (`d8`) is refused naming it and its
/// column's length, from the board itself ("d8: column d has 7 hexes, d1 to d7").
pub fn hex_word(word: &str) -> Result<Hex, PlyError> {
    if let Some(h) = Hex::parse(word) {
        return Ok(h);
    }
    match split_name(word) {
        Some((col, _)) => {
            let letter = (b'a' + col as u8) as char;
            let length = COLUMN_LENGTHS[col as usize];
            Err(illegal(format!(
                "{}: column {letter} has {length} hexes, {letter}1 to {letter}{length}",
                word.to_ascii_lowercase()
            )))
        }
        None => Err(syntax(format!("'{word}' is not a hex (a1 to g4)"))),
    }
}

/// A die value as written in a plan's roll list: `7` is refused naming it, and so is a number
/// too big for any integer (by its start).
fn face(word: &str) -> Result<u8, PlyError> {
    let number = !word.is_empty() && word.bytes().all(|b| b.is_ascii_digit());
    match word.parse::<u32>() {
        Ok(v) if (1..=6).contains(&v) => Ok(v as u8),
        Ok(v) => Err(illegal(format!("{v}: a die shows 1 to 6"))),
        Err(_) if number => Err(illegal(format!(
            "{}: a die shows 1 to 6",
            crate::quote::shorten(word, 12)
        ))),
        Err(_) => Err(syntax(format!(
            "'{}' is not a roll: write 4, 3-5, 1,4 or * before '>'",
            crate::quote::shorten(word, 12)
        ))),
    }
}

fn is_hand_word(word: &str) -> bool {
    word.eq_ignore_ascii_case("h") || word.eq_ignore_ascii_case("hand")
}

/// A declaration: `H` (a die from the hand) or the hex of the seat's own die, optionally after
/// `ROLL`. A whole move in one ply (`H d4`) is refused with where it belongs.
pub fn parse_declaration(text: &str) -> Result<Source, PlyError> {
    let rest = strip_keyword(text, "roll");
    let words: Vec<&str> = rest.split_whitespace().collect();
    match words[..] {
        [w] if is_hand_word(w) => Ok(Source::Hand),
        [w] => match hex_word(w) {
            Ok(h) => Ok(Source::Lift(h)),
            Err(PlyError::Syntax(_)) => Err(declaration_syntax(text)),
            Err(e) => Err(e),
        },
        [first, second]
            if (is_hand_word(first) || Hex::parse(first).is_some())
                && Hex::parse(strip_keyword(second, "place")).is_some() =>
        {
            Err(illegal(format!(
                "one step at a time here: declare '{}' now and place the die once it is \
                 rolled ('{text}' as a whole move is read from a mail, as a plan)",
                if is_hand_word(first) {
                    "H".to_string()
                } else {
                    first.to_ascii_lowercase()
                }
            )))
        }
        // A whole move or a plan on one line with a bad word (`h d8`, `H: 1>a1 7>e5`): the
        // word is named, not the line.
        _ => Err(plan_refusal(&[text.to_string()]).unwrap_or_else(|| declaration_syntax(text))),
    }
}

fn declaration_syntax(text: &str) -> PlyError {
    syntax(format!(
        "'{}' is not a declaration: write H (a die from your hand) or the hex of one of your \
         dice to lift it (c3), also ROLL H or ROLL c3",
        text.trim()
    ))
}

/// A placement: a hex, optionally after `PLACE`.
pub fn parse_placement(text: &str) -> Result<Hex, PlyError> {
    let rest = strip_keyword(text, "place");
    if is_hand_word(rest) {
        return Err(illegal(
            "the die is declared already: now name the vacant hex to place it on (d4)",
        ));
    }
    match hex_word(rest) {
        Err(PlyError::Syntax(_)) => Err(syntax(format!(
            "'{}' is not a placement: name the vacant hex for the die (d4, also PLACE d4)",
            text.trim()
        ))),
        other => other,
    }
}

/// A chance ply: `roll 4 2 ...` (or the bare values), every value a die's face.
pub fn parse_roll(text: &str) -> Result<Vec<u8>, PlyError> {
    let t = text.trim();
    let numbers = match t.get(..4) {
        Some(w) if w.eq_ignore_ascii_case("roll") => &t[4..],
        _ => t,
    };
    let values: Vec<u32> = numbers
        .split_whitespace()
        .map(str::parse::<u32>)
        .collect::<Result<_, _>>()
        .ok()
        .filter(|v: &Vec<u32>| !v.is_empty())
        .ok_or_else(|| syntax(format!("a roll is like 'roll 4', not '{t}'")))?;
    values
        .iter()
        .map(|&v| {
            u8::try_from(v)
                .ok()
                .filter(|v| (1..=6).contains(v))
                .ok_or_else(|| illegal(format!("a die cannot show {v}")))
        })
        .collect()
}

/// A move planned in one message: the declaration, then hexes for the roll's values, tried in
/// the order written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub source: Source,
    pub entries: Vec<(Vec<u8>, Hex)>,
}

/// Reads `H d4`, `c3 d4`, `ROLL c3` + `PLACE d4`, `c3: 1>a1 3-5>d4 *>e5` (entries also as
/// `3-5: d4`, on one line or several). `None` when the lines are not such a plan, or plan no
/// placement at all (a bare declaration is a ply, not a plan).
pub fn read_plan(lines: &[String]) -> Option<Plan> {
    parse_plan(lines).ok()
}

/// Lines that start as a plan with a word that spoils it (`H: 1>a1` then `3-5>d4 7>e5`): the
/// refusal naming the word. Prose after a plan, or lines that are no plan, are not refused here.
pub fn plan_refusal(lines: &[String]) -> Option<PlyError> {
    match parse_plan(lines) {
        Err(Some(e @ PlyError::Illegal(_))) => Some(e),
        _ => None,
    }
}

/// A plan, or why not: `Err(None)` when the lines do not start like one, else the first
/// word that spoils it (a hex off the board, a die value out of 1 to 6).
fn parse_plan(lines: &[String]) -> Result<Plan, Option<PlyError>> {
    let text: String = lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join(" ");
    let spaced = text.replace('>', " > ").replace(':', " : ");
    let tokens: Vec<&str> = spaced.split_whitespace().collect();
    let mut i = usize::from(tokens.first().ok_or(None)?.eq_ignore_ascii_case("roll"));
    let first = *tokens.get(i).ok_or(None)?;
    let source = if is_hand_word(first) {
        Source::Hand
    } else if split_name(first).is_some() {
        Source::Lift(hex_word(first)?)
    } else {
        return Err(None);
    };
    i += 1;
    if tokens.get(i) == Some(&":") {
        i += 1;
    }
    let mut entries = Vec::new();
    while i < tokens.len() {
        if tokens[i].eq_ignore_ascii_case("place") {
            i += 1;
            continue;
        }
        let (rolls, at) = match tokens.get(i + 1) {
            Some(&">") | Some(&":") => (roll_list(tokens[i])?, i + 2),
            _ => ((1..=6).collect(), i),
        };
        entries.push((rolls, hex_word(tokens.get(at).ok_or(None)?)?));
        i = at + 1;
    }
    if entries.is_empty() {
        return Err(None);
    }
    Ok(Plan { source, entries })
}

/// `4`, `3-5`, `1,4`, `1,3-5` or `*` (every face).
pub fn parse_rolls(spec: &str) -> Option<Vec<u8>> {
    roll_list(spec).ok()
}

/// A roll list, or the value that spoils it.
fn roll_list(spec: &str) -> Result<Vec<u8>, PlyError> {
    if spec == "*" {
        return Ok((1..=6).collect());
    }
    let mut out = Vec::new();
    for part in spec.split(',') {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b) = (face(a)?, face(b)?);
                if a > b {
                    return Err(illegal(format!(
                        "{a}-{b}: a range of rolls runs from low to high ({b}-{a})"
                    )));
                }
                out.extend(a..=b);
            }
            None => out.push(face(part)?),
        }
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(text: &str) -> Vec<String> {
        text.lines().map(str::to_string).collect()
    }

    fn hex(name: &str) -> Hex {
        Hex::parse(name).unwrap()
    }

    #[test]
    fn declarations_and_placements() {
        assert_eq!(parse_declaration("H"), Ok(Source::Hand));
        assert_eq!(parse_declaration(" roll h "), Ok(Source::Hand));
        assert_eq!(parse_declaration("ROLL C3"), Ok(Source::Lift(hex("c3"))));
        assert!(matches!(parse_declaration("d8"), Err(PlyError::Illegal(_))));
        assert!(matches!(
            parse_declaration("H d4"),
            Err(PlyError::Illegal(_))
        ));
        assert!(matches!(
            parse_declaration("hello"),
            Err(PlyError::Syntax(_))
        ));
        assert_eq!(parse_placement("PLACE d4"), Ok(hex("d4")));
        assert_eq!(parse_placement("D4"), Ok(hex("d4")));
        assert!(matches!(parse_placement("H"), Err(PlyError::Illegal(_))));
    }

    #[test]
    fn rolls() {
        assert_eq!(parse_roll("roll 4"), Ok(vec![4]));
        assert_eq!(parse_roll("3"), Ok(vec![3]));
        assert_eq!(parse_roll("ROLL 2 6"), Ok(vec![2, 6]));
        assert!(matches!(parse_roll("roll 7"), Err(PlyError::Illegal(_))));
        assert!(matches!(parse_roll("roll"), Err(PlyError::Syntax(_))));
        assert_eq!(parse_rolls("1,3-5"), Some(vec![1, 3, 4, 5]));
        assert_eq!(parse_rolls("5-3"), None);
        assert_eq!(parse_rolls("0"), None);
    }

    #[test]
    fn split_keeps_roll_values() {
        assert_eq!(
            crate::games::split_roll_plies("H roll 4 c2 H roll 2 b2 c2 roll 1 c3"),
            ["H", "roll 4", "c2", "H", "roll 2", "b2", "c2", "roll 1", "c3"]
        );
    }

    #[test]
    fn plans() {
        let every: Vec<u8> = (1..=6).collect();
        assert_eq!(
            read_plan(&lines("H d4")),
            Some(Plan {
                source: Source::Hand,
                entries: vec![(every.clone(), hex("d4"))]
            })
        );
        assert_eq!(
            read_plan(&lines("ROLL c3\nPLACE d4")),
            Some(Plan {
                source: Source::Lift(hex("c3")),
                entries: vec![(every.clone(), hex("d4"))]
            })
        );
        assert_eq!(
            read_plan(&lines("c3: 1>a1 3-5>d4 *>e5")),
            Some(Plan {
                source: Source::Lift(hex("c3")),
                entries: vec![
                    (vec![1], hex("a1")),
                    (vec![3, 4, 5], hex("d4")),
                    (every, hex("e5"))
                ]
            })
        );
        assert_eq!(
            read_plan(&lines("c3\n1: a1\n2-6 > b2")).map(|p| p.entries.len()),
            Some(2)
        );
        assert_eq!(read_plan(&lines("H")), None);
        assert_eq!(read_plan(&lines("c3: 7>a1")), None);
        assert_eq!(read_plan(&lines("c3 d9")), None);
        assert_eq!(read_plan(&lines("hello there")), None);
    }

    /// A plan over several lines that a word spoils is refused naming it; prose after a plan,
    /// or lines that are no plan, are not refused as a plan.
    #[test]
    fn a_spoiled_plan_names_its_bad_word() {
        let why = |text: &str| plan_refusal(&lines(text)).map(|e| e.to_string());
        assert_eq!(
            why("H: 1>a1\n3-5>d4 7>e5").as_deref(),
            Some("7: a die shows 1 to 6")
        );
        assert_eq!(
            why("c3\n1: a1\n2-6 > d9").as_deref(),
            Some("d9: column d has 7 hexes, d1 to d7")
        );
        assert_eq!(why("H: 1>a1\nSee you on d9"), None);
        assert_eq!(why("H: 1>a1\n3-5>d4"), None);
        assert_eq!(why("hello there"), None);
    }

    /// Issue 27, point 13: a hex off the board or a die value out of 1 to 6 is refused naming
    /// that word (the column's length from the board), not as "not a declaration".
    #[test]
    fn a_bad_hex_or_roll_value_is_named() {
        let refused = |text: &str| match parse_declaration(text) {
            Err(PlyError::Illegal(why)) => why,
            other => panic!("{text}: {other:?}"),
        };
        assert_eq!(refused("h d8"), "d8: column d has 7 hexes, d1 to d7");
        assert_eq!(refused("d8"), "d8: column d has 7 hexes, d1 to d7");
        assert_eq!(refused("a5 d4"), "a5: column a has 4 hexes, a1 to a4");
        assert_eq!(refused("H: 1>a1 3-5>d4 7>e5"), "7: a die shows 1 to 6");
        assert_eq!(
            refused("c3: 1>a1 *>g5"),
            "g5: column g has 4 hexes, g1 to g4"
        );
        assert_eq!(
            refused("H 5-3>d4"),
            "5-3: a range of rolls runs from low to high (3-5)"
        );
        assert!(matches!(
            parse_placement("PLACE e7"),
            Err(PlyError::Illegal(why)) if why == "e7: column e has 6 hexes, e1 to e6"
        ));
        // Prose that starts like a declaration is still not one.
        assert!(matches!(
            parse_declaration("H is for hand"),
            Err(PlyError::Syntax(_))
        ));
    }
}
