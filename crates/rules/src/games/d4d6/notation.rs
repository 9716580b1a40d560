//! Reading and writing plies: declarations (`Gad8:d6`), rolls (`roll 3`), move choices
//! (`e5-e6/E`, `e5xd7/S@b7`, `stay`), special moves, and one-message conditional turns.

use super::board::{Dir, Sq};
use super::movegen::Move;
use super::pieces::{Color, Kind};
use super::position::Position;
use crate::games::PlyError;

/// A gambling move as the player chooses it: the move, and where a captured Cavalo waits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Choice {
    pub mv: Move,
    pub wait: Option<Sq>,
}

impl Choice {
    /// `b6-a6`, `b6xc6`, `e5-e6/E` (a Cavalo's facing is always written), `e5xd7/S@b7`, `stay`.
    pub fn text(&self, pos: &Position) -> String {
        if self.mv.steps == 0 {
            return "stay".into();
        }
        let mut s = format!(
            "{}{}{}",
            self.mv.from,
            if self.mv.capture { 'x' } else { '-' },
            self.mv.to
        );
        if pos.at(self.mv.from).is_some_and(|p| p.kind == Kind::Cavalo) {
            if let Some(f) = self.mv.facing {
                s.push_str(&format!("/{f}"));
            }
        }
        if let Some(w) = self.wait {
            s.push_str(&format!("@{w}"));
        }
        s
    }
}

/// Every choice for these moves: a capture of a Cavalo in the playing area needs an empty
/// waiting square for it (any, when there are some).
pub fn choices(pos: &Position, moves: &[Move]) -> Vec<Choice> {
    let waiting = pos.empty_waiting_squares();
    let mut out = Vec::new();
    for &mv in moves {
        let victim_waits = mv.capture
            && mv.to.is_playing()
            && pos.at(mv.to).is_some_and(|p| p.kind == Kind::Cavalo)
            && !waiting.is_empty();
        if victim_waits {
            out.extend(waiting.iter().map(|&w| Choice { mv, wait: Some(w) }));
        } else {
            out.push(Choice { mv, wait: None });
        }
    }
    out
}

fn syntax(msg: impl Into<String>) -> PlyError {
    PlyError::Syntax(msg.into())
}

/// Picks the one candidate a loose text means, or says why none (`none`, which names the
/// rule) or several fit.
pub fn pick<T: Clone>(
    candidates: Vec<T>,
    name: impl Fn(&T) -> String,
    none: impl FnOnce() -> PlyError,
) -> Result<T, PlyError> {
    match candidates.len() {
        1 => Ok(candidates[0].clone()),
        0 => Err(none()),
        _ => Err(PlyError::Ambiguous(format!(
            "that could be {}: say which",
            candidates.iter().map(name).collect::<Vec<_>>().join(", ")
        ))),
    }
}

/// A move choice as written: every part but the destination may be left out.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct ChoiceText {
    pub stay: bool,
    pub from: Option<Sq>,
    pub capture: Option<bool>,
    pub to: Option<Sq>,
    pub facing: Option<Dir>,
    pub wait: Option<Sq>,
}

/// Reads `e5-e6/E`, `e5xd7/S@b7`, `xd7`, `e6`, `d6/W`, `stay` (also `0`, `pass`).
pub fn parse_choice(text: &str) -> Result<ChoiceText, PlyError> {
    let t: String = text.chars().filter(|c| !c.is_whitespace()).collect();
    let lower = t.to_ascii_lowercase();
    if matches!(lower.as_str(), "stay" | "0" | "pass") {
        return Ok(ChoiceText {
            stay: true,
            ..Default::default()
        });
    }
    let mut c = ChoiceText::default();
    let (body, wait) = match lower.split_once('@') {
        Some((b, w)) => (b, Some(w)),
        None => (lower.as_str(), None),
    };
    if let Some(w) = wait {
        c.wait = Some(Sq::parse(w).ok_or_else(|| syntax(format!("bad waiting square '{w}'")))?);
    }
    let (body, facing) = match body.split_once('/') {
        Some((b, f)) => (b, Some(f)),
        None => (body, None),
    };
    if let Some(f) = facing {
        c.facing = Some(Dir::parse(f).ok_or_else(|| syntax(format!("bad facing '{f}'")))?);
    }
    let (from, rest) = if body.len() >= 2 && Sq::parse(&body[..2]).is_some() && body.len() > 2 {
        (Sq::parse(&body[..2]), &body[2..])
    } else {
        (None, body)
    };
    c.from = from;
    let rest = if let Some(r) = rest.strip_prefix('x').or_else(|| rest.strip_prefix(':')) {
        c.capture = Some(true);
        r
    } else if let Some(r) = rest.strip_prefix('-') {
        c.capture = Some(false);
        r
    } else {
        rest
    };
    c.to = Some(Sq::parse(rest).ok_or_else(|| {
        syntax(format!(
            "a move is like 'b6-a6', 'e5xf7/S', 'e5-e6/E' or 'stay', not '{text}'"
        ))
    })?);
    Ok(c)
}

impl ChoiceText {
    pub fn fits(&self, c: &Choice) -> bool {
        if self.stay {
            return c.mv.steps == 0;
        }
        let same = |want: Option<Sq>, have: Sq| want.is_none_or(|w| w == have);
        c.mv.steps > 0
            && same(self.from, c.mv.from)
            && same(self.to, c.mv.to)
            && self.capture.is_none_or(|x| x == c.mv.capture)
            && self.facing.is_none_or(|f| Some(f) == c.mv.facing)
            && self.wait.is_none_or(|w| Some(w) == c.wait)
    }
}

/// A declaration as written: the piece (by kind and/or square) and the Gata's die.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct DeclarationText {
    pub kind: Option<Kind>,
    pub square: Option<Sq>,
    pub die: Option<u32>,
}

/// Reads `Gad8:d6`, `Ga d8 d6`, `Ga d6`, `d8 d6`, `Fob6`, `b6`. A `d4`/`d6` token is the die
/// once a square is known, or when no piece of the mover stands on that square.
pub fn parse_declaration(
    text: &str,
    pos: &Position,
    color: Color,
) -> Result<DeclarationText, PlyError> {
    let mut d = DeclarationText::default();
    let tokens = text
        .split(|c: char| c.is_whitespace() || matches!(c, ':' | '@' | ',' | '/'))
        .filter(|t| !t.is_empty());
    let own_piece_on = |s: Sq| pos.at(s).is_some_and(|p| p.color == color);
    for tok in tokens {
        let low = tok.to_ascii_lowercase();
        let die = match low.as_str() {
            "d4" => Some(4),
            "d6" => Some(6),
            _ => None,
        };
        if let Some(k) = Kind::parse(&low) {
            d.kind = Some(k);
        } else if low.len() == 4
            && Kind::parse(&low[..2]).is_some()
            && Sq::parse(&low[2..]).is_some()
        {
            d.kind = Kind::parse(&low[..2]);
            d.square = Sq::parse(&low[2..]);
        } else if let (Some(n), true) = (die, d.square.is_some()) {
            d.die = Some(n);
        } else if let Some(s) = Sq::parse(&low) {
            if die.is_some() && !own_piece_on(s) {
                d.die = die;
            } else {
                d.square = Some(s);
            }
        } else if let Some(n) = die.or_else(|| low.strip_prefix('d').and_then(|n| n.parse().ok())) {
            d.die = Some(n);
        } else {
            return Err(syntax(format!(
                "a declaration names the piece and, for a Gata, the die: 'Gad8:d6', 'Fob6', not '{text}'"
            )));
        }
    }
    if d.kind.is_none() && d.square.is_none() {
        return Err(syntax(format!("name the piece to move in '{text}'")));
    }
    Ok(d)
}

/// A one-message turn's roll list: `1`, `2-3`, `1,4`, `5-6`, `*` (every value of the die).
pub fn parse_rolls(text: &str, sides: u32) -> Option<Vec<u32>> {
    let t = text.trim();
    if t == "*" || t.eq_ignore_ascii_case("else") || t.eq_ignore_ascii_case("any") {
        return Some((1..=sides).collect());
    }
    let mut out = Vec::new();
    for part in t.split(',') {
        let part = part.trim();
        let (a, b) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse().ok()?, b.trim().parse().ok()?),
            None => {
                let n: u32 = part.parse().ok()?;
                (n, n)
            }
        };
        if a < 1 || b > sides || a > b {
            return None;
        }
        out.extend(a..=b);
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rolls_lists() {
        assert_eq!(parse_rolls("2-3", 4), Some(vec![2, 3]));
        assert_eq!(parse_rolls("1,4", 4), Some(vec![1, 4]));
        assert_eq!(parse_rolls("*", 6), Some(vec![1, 2, 3, 4, 5, 6]));
        assert_eq!(parse_rolls("5", 4), None);
        assert_eq!(parse_rolls("x", 4), None);
    }

    #[test]
    fn record_split_keeps_rolls() {
        assert_eq!(
            crate::games::split_roll_plies("Fob6 roll 3 b6-a6 roll 1 4"),
            vec!["Fob6", "roll 3", "b6-a6", "roll 1 4"]
        );
    }

    #[test]
    fn choice_parts() {
        let c = parse_choice("e5xd7/S@b7").unwrap();
        assert_eq!(c.from, Sq::parse("e5"));
        assert_eq!(c.capture, Some(true));
        assert_eq!(c.to, Sq::parse("d7"));
        assert_eq!(c.facing, Some(Dir::S));
        assert_eq!(c.wait, Sq::parse("b7"));
        assert!(parse_choice("stay").unwrap().stay);
        assert_eq!(parse_choice("a6").unwrap().to, Sq::parse("a6"));
        assert!(parse_choice("zz9").is_err());
    }
}
