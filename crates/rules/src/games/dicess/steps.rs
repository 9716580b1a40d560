//! One step and its legality: orthogonal adjacency, an empty target or a capture strong enough (the capturer plus the mover's dice next to the captured square).

use super::position::{Board, Square};
use crate::games::Seat;

/// What a capture can bring against the captured die: the capturer's number and the mover's
/// other dice orthogonally next to the captured square, as they stand before the step.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Strength {
    pub capturer: u8,
    pub supporters: Vec<(Square, u8)>,
}

impl Strength {
    /// The sum that must be at least the captured number.
    pub fn total(&self) -> u32 {
        u32::from(self.capturer)
            + self
                .supporters
                .iter()
                .map(|(_, n)| u32::from(*n))
                .sum::<u32>()
    }

    /// "your 2 plus the 1 on d5 and the 3 on c5 makes 6", or "your 2 alone".
    pub fn words(&self) -> String {
        if self.supporters.is_empty() {
            return format!("your {} alone", self.capturer);
        }
        let help: Vec<String> = self
            .supporters
            .iter()
            .map(|(sq, n)| format!("the {n} on {sq}"))
            .collect();
        format!(
            "your {} plus {} makes {}",
            self.capturer,
            join_and(&help),
            self.total()
        )
    }

    /// `2 + 1 (d5) = 3`, compact, for lists.
    pub fn sum_text(&self) -> String {
        let mut s = self.capturer.to_string();
        for (sq, n) in &self.supporters {
            s.push_str(&format!(" + {n} ({sq})"));
        }
        if !self.supporters.is_empty() {
            s.push_str(&format!(" = {}", self.total()));
        }
        s
    }
}

/// `a`, `a and b`, `a, b and c`.
pub fn join_and(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// The strength the die on `from` (the mover's) brings against the die on `to`. The capturer
/// itself touches `to` but counts once, as the capturer.
pub fn strength(board: &Board, side: Seat, from: Square, to: Square) -> Strength {
    let capturer = board.at(from).map_or(0, |d| d.number);
    let supporters = to
        .neighbours()
        .filter(|&sq| sq != from)
        .filter_map(|sq| {
            board
                .at(sq)
                .filter(|d| d.side == side)
                .map(|d| (sq, d.number))
        })
        .collect();
    Strength {
        capturer,
        supporters,
    }
}

/// A single step from the position as it stands: a move onto an empty square or a capture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SingleStep {
    pub from: Square,
    pub to: Square,
    /// The die's number, which is also the step's cost.
    pub number: u8,
    /// For a capture: the strength and the captured number.
    pub capture: Option<(Strength, u8)>,
}

impl SingleStep {
    /// Whether a capture is strong enough (a move onto an empty square always is).
    pub fn strong_enough(&self) -> bool {
        self.capture
            .as_ref()
            .is_none_or(|(s, target)| s.total() >= u32::from(*target))
    }

    /// The step as a one-step turn: `b2-b3`, `c4xd4`.
    pub fn text(&self) -> String {
        let mark = if self.capture.is_some() { 'x' } else { '-' };
        format!("{}{mark}{}", self.from, self.to)
    }
}

/// Every step `side` could make as the first of its turn, captures too weak included (the
/// caller filters with `strong_enough`). Any first step costs at most 6, so all are affordable.
pub fn first_steps(board: &Board, side: Seat) -> Vec<SingleStep> {
    let mut out = Vec::new();
    for (from, die) in board.dice_of(side) {
        for to in from.neighbours() {
            let capture = match board.at(to) {
                None => None,
                Some(d) if d.side == side => continue,
                Some(d) => Some((strength(board, side, from, to), d.number)),
            };
            out.push(SingleStep {
                from,
                to,
                number: die.number,
                capture,
            });
        }
    }
    out
}

/// Whether `side` has any legal step; without one its turn is `pass`.
pub fn has_legal_step(board: &Board, side: Seat) -> bool {
    first_steps(board, side)
        .iter()
        .any(SingleStep::strong_enough)
}

#[cfg(test)]
mod tests {
    use super::super::position::{Die, DARK, LIGHT};
    use super::*;

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }

    fn board(dice: &[(&str, usize, u8)]) -> Board {
        let mut b = Board::default();
        for &(s, side, number) in dice {
            b.put(sq(s), Die { side, number });
        }
        b
    }

    #[test]
    fn support_is_orthogonal_to_the_captured_square_and_excludes_the_capturer() {
        // c4 takes d4; d5 and e4 touch d4, c5 is diagonal to it, d3 is DARK's.
        let b = board(&[
            ("c4", LIGHT, 2),
            ("d5", LIGHT, 1),
            ("e4", LIGHT, 3),
            ("c5", LIGHT, 6),
            ("d3", DARK, 4),
            ("d4", DARK, 5),
        ]);
        let s = strength(&b, LIGHT, sq("c4"), sq("d4"));
        assert_eq!(s.total(), 6);
        assert_eq!(s.words(), "your 2 plus the 1 on d5 and the 3 on e4 makes 6");
        assert_eq!(s.sum_text(), "2 + 1 (d5) + 3 (e4) = 6");
        let alone = strength(&b, LIGHT, sq("c5"), sq("c6"));
        assert_eq!(alone.words(), "your 6 alone");
    }

    #[test]
    fn blocked_side_has_no_step() {
        // LIGHT's 1 on a1 is boxed in by DARK's 6s; too weak to take either.
        let b = board(&[("a1", LIGHT, 1), ("a2", DARK, 6), ("b1", DARK, 6)]);
        assert!(!has_legal_step(&b, LIGHT));
        assert!(has_legal_step(&b, DARK));
        let b = board(&[("a1", LIGHT, 6), ("a2", DARK, 6), ("b1", DARK, 6)]);
        assert!(has_legal_step(&b, LIGHT));
        assert!(!has_legal_step(&Board::default(), LIGHT));
    }
}
