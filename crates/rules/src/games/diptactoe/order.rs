//! Order notation: reading a mailed line (order or claim), its canonical form, and why an order is void.

use std::fmt;

use super::position::Position;
use super::space::Space;
use super::SEATS;
use crate::games::Seat;

/// One order. Units without a (valid) order hold; there is no hold order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Order {
    /// `I.A.1-II.F.2`: move one unit one king step.
    Move { from: Space, to: Space },
    /// `R-II.F.3`: place a unit from the reserve on any space.
    Place { to: Space },
    /// `II.F.2(S)RED(I.A.1-I.B.1)`: support another player's move. The colour is
    /// informational; once checked against the board it is the unit's owner.
    SupportMove {
        supporter: Space,
        colour: Option<Seat>,
        from: Space,
        to: Space,
    },
    /// `IV.P.4(S)RED(R-IV.N.4)`: support another player's placement; the colour names the player.
    SupportPlace {
        supporter: Space,
        colour: Option<Seat>,
        to: Space,
    },
    /// `IV.P.4(S)RED(IV.N.4)`: support to hold; void unless the option `support_hold=on`.
    SupportHold {
        supporter: Space,
        colour: Option<Seat>,
        held: Space,
    },
}

/// A line of a player's orders as read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Line {
    Order(Order),
    /// `VICTORY`, `Victory!`, `Four!`: a claim, judged after the adjudication; not an order.
    Claim,
}

impl Order {
    /// The space an order moves into or supports into (for a hold support: the held space).
    pub fn target(&self) -> Space {
        match self {
            Order::Move { to, .. } | Order::Place { to } => *to,
            Order::SupportMove { to, .. } | Order::SupportPlace { to, .. } => *to,
            Order::SupportHold { held, .. } => *held,
        }
    }

    /// The space of the ordering unit, none for a placement.
    pub fn unit_space(&self) -> Option<Space> {
        match self {
            Order::Move { from, .. } => Some(*from),
            Order::Place { .. } => None,
            Order::SupportMove { supporter, .. }
            | Order::SupportPlace { supporter, .. }
            | Order::SupportHold { supporter, .. } => Some(*supporter),
        }
    }

    pub fn is_support(&self) -> bool {
        matches!(
            self,
            Order::SupportMove { .. } | Order::SupportPlace { .. } | Order::SupportHold { .. }
        )
    }

    /// Checks the order for `seat` against the position (everything that can be judged without
    /// the other players' orders) and fills in the colour of a supported unit. `Err` is the
    /// reason the order is void.
    pub fn validate(
        &mut self,
        seat: Seat,
        position: &Position,
        support_hold: bool,
    ) -> Result<(), String> {
        let own_unit = |space: Space| -> Result<(), String> {
            match position.units.get(&space) {
                None => Err(format!("there is no unit at {space}")),
                Some(owner) if *owner != seat => Err(format!(
                    "the unit at {space} is {}'s, not yours",
                    SEATS[*owner]
                )),
                Some(_) => Ok(()),
            }
        };
        let supporter_reaches = |supporter: Space, target: Space, what: &str| {
            if supporter.is_adjacent(target) {
                Ok(())
            } else {
                Err(format!(
                    "{supporter} is not adjacent to {target}, so it cannot support {what} there"
                ))
            }
        };
        match self {
            Order::Move { from, to } => {
                own_unit(*from)?;
                if !from.is_adjacent(*to) {
                    return Err(format!(
                        "{to} is not adjacent to {from} (a unit moves one step)"
                    ));
                }
            }
            Order::Place { .. } => {
                if position.reserves[seat] == 0 {
                    return Err("your reserve is empty".into());
                }
            }
            Order::SupportMove {
                supporter,
                colour,
                from,
                to,
            } => {
                own_unit(*supporter)?;
                supporter_reaches(*supporter, *to, "a move")?;
                match position.units.get(from) {
                    None => return Err(format!("there is no unit at {from} to support")),
                    Some(owner) if *owner == seat => {
                        return Err("support of your own unit is void".into())
                    }
                    Some(owner) => *colour = Some(*owner),
                }
                if !from.is_adjacent(*to) {
                    return Err(format!(
                        "{from} - {to} is not a legal move (not adjacent), so it cannot be supported"
                    ));
                }
            }
            Order::SupportPlace {
                supporter,
                colour,
                to,
            } => {
                own_unit(*supporter)?;
                supporter_reaches(*supporter, *to, "a placement")?;
                placement_supported(seat, position, *colour)?;
            }
            Order::SupportHold {
                supporter,
                colour,
                held,
            } => {
                if !support_hold {
                    return Err(
                        "there is no support to hold in this game (option support_hold=off)".into(),
                    );
                }
                own_unit(*supporter)?;
                supporter_reaches(*supporter, *held, "a unit")?;
                match position.units.get(held) {
                    None => return Err(format!("there is no unit at {held} to support")),
                    Some(owner) if *owner == seat => {
                        return Err("support of your own unit is void".into())
                    }
                    Some(owner) => *colour = Some(*owner),
                }
            }
        }
        Ok(())
    }
}

/// Whose placement a support of placement backs: another player's, who has a unit in reserve.
fn placement_supported(
    seat: Seat,
    position: &Position,
    colour: Option<Seat>,
) -> Result<(), String> {
    let Some(placer) = colour else {
        return Err("name the player whose placement you support (e.g. RED)".into());
    };
    if placer == seat {
        return Err("support of your own placement is void".into());
    }
    if position.reserves[placer] == 0 {
        return Err(format!(
            "{} has no units in reserve to place",
            SEATS[placer]
        ));
    }
    Ok(())
}

/// The canonical form: no white space, parses back to the same order.
impl fmt::Display for Order {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let colour = |c: &Option<Seat>| c.map(|s| SEATS[s]).unwrap_or("");
        match self {
            Order::Move { from, to } => write!(f, "{from}-{to}"),
            Order::Place { to } => write!(f, "R-{to}"),
            Order::SupportMove {
                supporter,
                colour: c,
                from,
                to,
            } => write!(f, "{supporter}(S){}({from}-{to})", colour(c)),
            Order::SupportPlace {
                supporter,
                colour: c,
                to,
            } => write!(f, "{supporter}(S){}(R-{to})", colour(c)),
            Order::SupportHold {
                supporter,
                colour: c,
                held,
            } => write!(f, "{supporter}(S){}({held})", colour(c)),
        }
    }
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Line::Order(o) => o.fmt(f),
            Line::Claim => f.write_str("VICTORY"),
        }
    }
}

/// A token of an order line: a word (space, keyword, colour) or the dash of a move.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Word(String),
    Dash,
}

/// Splits a line into words and dashes. Parentheses and `!` only decorate (`(supports)`,
/// `Victory!`), white space is free, and spaces around the dots of a space name are joined.
fn tokenize(line: &str) -> Result<Vec<Token>, String> {
    let mut tokens = Vec::new();
    let mut word = String::new();
    let chars: Vec<char> = line.chars().collect();
    let flush = |word: &mut String, tokens: &mut Vec<Token>| {
        if !word.is_empty() {
            tokens.push(Token::Word(std::mem::take(word).to_ascii_uppercase()));
        }
    };
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '.' => {
                // `II . F . 3`: a dot glues the words on either side of it.
                while word.is_empty() {
                    match tokens.pop() {
                        Some(Token::Word(w)) => word = w,
                        Some(other) => {
                            tokens.push(other);
                            break;
                        }
                        None => break,
                    }
                }
                word.push('.');
                i += 1;
                while i < chars.len() && chars[i].is_whitespace() {
                    i += 1;
                }
                continue;
            }
            c if c.is_ascii_alphanumeric() => word.push(c),
            c if c.is_whitespace() || c == '(' || c == ')' || c == '!' => {
                flush(&mut word, &mut tokens)
            }
            '-' | '\u{2013}' | '\u{2014}' => {
                flush(&mut word, &mut tokens);
                if chars.get(i + 1) == Some(&'>') {
                    i += 1;
                }
                tokens.push(Token::Dash);
            }
            other => return Err(format!("unexpected character '{other}'")),
        }
        i += 1;
    }
    flush(&mut word, &mut tokens);
    Ok(tokens)
}

fn word_is(token: Option<&Token>, words: &[&str]) -> bool {
    matches!(token, Some(Token::Word(w)) if words.contains(&w.as_str()))
}

fn space_at(tokens: &[Token], i: usize) -> Result<Space, String> {
    match tokens.get(i) {
        Some(Token::Word(w)) => Space::parse(w),
        Some(Token::Dash) => Err("a space is missing before '-'".into()),
        None => Err("the line ends where a space was expected".into()),
    }
}

/// The supported (or plain) action after any support keyword: a move `X - Y`, a placement
/// `[placement] reserve - Y`, or a lone space `X [hold]`.
enum Action {
    Move(Space, Space),
    Place(Space),
    Hold(Space),
}

const RESERVE_WORDS: &[&str] = &["R", "RESERVE", "RES"];
const PLACEMENT_WORDS: &[&str] = &["PLACEMENT", "PLACE"];
const HOLD_WORDS: &[&str] = &["H", "HOLD", "HOLDS", "STAND", "STANDS"];

fn parse_action(tokens: &[Token]) -> Result<Action, String> {
    let mut i = 0;
    let placement_word = word_is(tokens.first(), PLACEMENT_WORDS);
    if placement_word {
        i += 1;
    }
    if word_is(tokens.get(i), RESERVE_WORDS) || placement_word {
        if word_is(tokens.get(i), RESERVE_WORDS) {
            i += 1;
        }
        if tokens.get(i) != Some(&Token::Dash) {
            return Err("a placement reads 'Reserve - II.F.3'".into());
        }
        let to = space_at(tokens, i + 1)?;
        if tokens.len() > i + 2 {
            return Err(format!("unexpected text after {to}"));
        }
        return Ok(Action::Place(to));
    }
    let from = space_at(tokens, 0)?;
    match tokens.get(1) {
        None => Ok(Action::Hold(from)),
        Some(Token::Dash) => {
            let to = space_at(tokens, 2)?;
            if tokens.len() > 3 {
                return Err(format!("unexpected text after {to}"));
            }
            Ok(Action::Move(from, to))
        }
        Some(t) if word_is(Some(t), HOLD_WORDS) && tokens.len() == 2 => Ok(Action::Hold(from)),
        Some(Token::Word(w)) => Err(format!("expected '-' after {from}, found '{w}'")),
    }
}

/// Reads one line: a claim or an order (not yet checked against the board). `Err` says why
/// the line cannot be read; such a line is void.
pub fn parse_line(text: &str) -> Result<Line, String> {
    let tokens = tokenize(text)?;
    if tokens.is_empty() {
        return Err("empty line".into());
    }
    let claim_words = ["VICTORY", "FOUR", "CLAIM"];
    if tokens.len() <= 2 && tokens.iter().all(|t| word_is(Some(t), &claim_words)) {
        return Ok(Line::Claim);
    }
    let support_words = ["S", "SUPPORT", "SUPPORTS"];
    if word_is(tokens.get(1), &support_words) {
        let supporter = space_at(&tokens, 0)?;
        let mut rest = &tokens[2..];
        let mut colour = None;
        if let Some(Token::Word(w)) = rest.first() {
            if let Some(seat) = SEATS.iter().position(|s| s == w) {
                colour = Some(seat);
                rest = &rest[1..];
            }
        }
        if rest.is_empty() {
            return Err("a support names the move or placement it supports".into());
        }
        return Ok(Line::Order(match parse_action(rest)? {
            Action::Move(from, to) => Order::SupportMove {
                supporter,
                colour,
                from,
                to,
            },
            Action::Place(to) => Order::SupportPlace {
                supporter,
                colour,
                to,
            },
            Action::Hold(held) => Order::SupportHold {
                supporter,
                colour,
                held,
            },
        }));
    }
    match parse_action(&tokens)? {
        Action::Move(from, to) => Ok(Line::Order(Order::Move { from, to })),
        Action::Place(to) => Ok(Line::Order(Order::Place { to })),
        Action::Hold(_) => Err("there is no hold order: units without an order hold".into()),
    }
}

/// Whether a line is written as an order at all: it starts with a space (`I.A.1`, `F3`), the
/// reserve, or a claim of victory. Anything else is a player's prose, not a mistaken order.
pub fn looks_like_order(text: &str) -> bool {
    // The first word as written (the rest of the line may not even tokenize: a void order).
    let first = match tokenize(text) {
        Ok(tokens) => tokens.into_iter().next(),
        Err(_) => text
            .split(|c: char| c.is_whitespace() || c == '-' || c == '(')
            .next()
            .filter(|w| !w.is_empty())
            .map(|w| Token::Word(w.to_ascii_uppercase())),
    };
    match first.as_ref() {
        Some(Token::Word(w)) => {
            space_shaped(w)
                || ["VICTORY", "FOUR", "CLAIM"].contains(&w.as_str())
                || RESERVE_WORDS.contains(&w.as_str())
                || PLACEMENT_WORDS.contains(&w.as_str())
        }
        _ => false,
    }
}

/// A word written like a space, whether or not the space exists: `II.F.3`, `I.E.1` (no such
/// space: a void order, not prose), `F3`.
fn space_shaped(word: &str) -> bool {
    let parts: Vec<&str> = word.split('.').collect();
    let square = |s: &str| {
        let mut c = s.chars();
        c.next().is_some_and(|l| l.is_ascii_alphabetic())
            && c.as_str().len() == 1
            && c.as_str().chars().all(|d| d.is_ascii_digit())
    };
    let roman = |s: &str| !s.is_empty() && s.chars().all(|c| matches!(c, 'I' | 'V'));
    let digit = |s: &str| s.len() == 1 && s.chars().all(|d| d.is_ascii_digit());
    let letter = |s: &str| s.len() == 1 && s.chars().all(|l| l.is_ascii_alphabetic());
    match parts.as_slice() {
        [one] => square(one),
        [level, sq] => roman(level) && square(sq),
        [level, l, d] => roman(level) && letter(l) && digit(d),
        _ => false,
    }
}

/// What became of one of a player's lines once the player's whole message is read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineReading {
    /// The player's one order for the turn (identical duplicates all read as it).
    Order(Order),
    Claim,
    /// Void, with the reason.
    Void(String),
}

/// Reads a player's lines for a turn: each line is checked on its own; identical duplicates
/// count once; two or more different valid orders are all void (the units hold).
pub fn read_player_lines(
    seat: Seat,
    lines: &[String],
    position: &Position,
    support_hold: bool,
) -> Vec<LineReading> {
    let mut readings: Vec<LineReading> = lines
        .iter()
        .map(|text| match parse_line(text) {
            Ok(Line::Claim) => LineReading::Claim,
            Ok(Line::Order(mut order)) => match order.validate(seat, position, support_hold) {
                Ok(()) => LineReading::Order(order),
                Err(reason) => LineReading::Void(reason),
            },
            Err(reason) => LineReading::Void(reason),
        })
        .collect();
    let mut distinct: Vec<&Order> = Vec::new();
    for r in &readings {
        if let LineReading::Order(o) = r {
            if !distinct.contains(&o) {
                distinct.push(o);
            }
        }
    }
    if distinct.len() > 1 {
        let count = distinct.len();
        for r in readings.iter_mut() {
            if matches!(r, LineReading::Order(_)) {
                *r = LineReading::Void(format!(
                    "{count} different orders: all are void, your units hold"
                ));
            }
        }
    }
    readings
}

/// The one valid order among a player's readings, if any.
pub fn the_order(readings: &[LineReading]) -> Option<&Order> {
    readings.iter().find_map(|r| match r {
        LineReading::Order(o) => Some(o),
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canonical(text: &str) -> String {
        parse_line(text)
            .map(|l| l.to_string())
            .unwrap_or_else(|e| format!("ERR {e}"))
    }

    #[test]
    fn seed_examples_read() {
        assert_eq!(canonical("I.A.1 - I.B.1"), "I.A.1-I.B.1");
        assert_eq!(canonical("I.A.1 - II.F.2"), "I.A.1-II.F.2");
        assert_eq!(canonical("Reserve - II.F.3"), "R-II.F.3");
        assert_eq!(
            canonical("IV.P.4 (supports) RED placement reserve - IV.N.4"),
            "IV.P.4(S)RED(R-IV.N.4)"
        );
        assert_eq!(
            canonical("II.F.2 (supports) RED I.A.1 - I.B.1"),
            "II.F.2(S)RED(I.A.1-I.B.1)"
        );
        assert_eq!(canonical("A1-F2"), "I.A.1-II.F.2");
        assert_eq!(canonical("r-f3"), "R-II.F.3");
        assert_eq!(canonical("Victory!"), "VICTORY");
        assert_eq!(canonical("four!"), "VICTORY");
    }

    #[test]
    fn canonical_forms_read_back() {
        for text in [
            "I.A.1-II.F.2",
            "R-II.F.3",
            "II.F.2(S)RED(I.A.1-I.B.1)",
            "II.F.2(S)(I.A.1-I.B.1)",
            "IV.P.4(S)RED(R-IV.N.4)",
            "IV.P.4(S)RED(IV.N.4)",
            "VICTORY",
        ] {
            assert_eq!(canonical(text), text);
        }
    }

    #[test]
    fn holds_and_bad_spaces_are_void_with_reasons() {
        assert!(canonical("I.A.1 H").contains("no hold order"));
        assert!(canonical("I.E.1 - I.A.2").contains("file E is on level II"));
        assert!(canonical("I.A.1 - ").contains("line ends"));
        assert!(canonical("I.A.1 @ I.B.1").contains("unexpected character"));
    }
}
