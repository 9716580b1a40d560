//! Squares, sides, dice and the board of Dicess, with each side's score (10 + row from its own side, per die).

use std::fmt;

use crate::games::Seat;

/// The seats' names, in seat order: LIGHT sets up on ranks 1-2 and moves first.
pub const SEAT_NAMES: [&str; 2] = ["LIGHT", "DARK"];

/// LIGHT's seat index.
pub const LIGHT: Seat = 0;
/// DARK's seat index.
pub const DARK: Seat = 1;

/// Dice per side.
pub const DICE_PER_SIDE: usize = 16;

/// What one turn may spend at most.
pub const TURN_POINTS: u32 = 6;

/// The other seat of the two.
pub fn opponent(seat: Seat) -> Seat {
    1 - seat
}

/// A square of the 8x8 board, ordered by file, then rank (a1 < a2 < b1), as tags list them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    file: u8,
    rank: u8,
}

impl Square {
    /// The square at 0-based file and rank, if on the board.
    pub fn new(file: u8, rank: u8) -> Option<Square> {
        (file < 8 && rank < 8).then_some(Square { file, rank })
    }

    /// Reads `e4` (either case).
    pub fn parse(text: &str) -> Option<Square> {
        let mut chars = text.chars();
        let (f, r) = (chars.next()?, chars.next()?);
        if chars.next().is_some() {
            return None;
        }
        let file = (f.to_ascii_lowercase() as u32).checked_sub('a' as u32)?;
        let rank = (r as u32).checked_sub('1' as u32)?;
        Square::new(u8::try_from(file).ok()?, u8::try_from(rank).ok()?)
    }

    /// Every square, a1 a2 ... h8.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..8).flat_map(|file| (0..8).map(move |rank| Square { file, rank }))
    }

    /// 0-based file (a = 0).
    pub fn file(self) -> u8 {
        self.file
    }

    /// 0-based rank (rank 1 = 0).
    pub fn rank(self) -> u8 {
        self.rank
    }

    fn index(self) -> usize {
        usize::from(self.rank) * 8 + usize::from(self.file)
    }

    /// The orthogonal neighbours on the board (no diagonals: Dicess has none).
    pub fn neighbours(self) -> impl Iterator<Item = Square> {
        let (f, r) = (i16::from(self.file), i16::from(self.rank));
        [(0, 1), (1, 0), (0, -1), (-1, 0)]
            .into_iter()
            .filter_map(move |(df, dr)| {
                let file = u8::try_from(f + df).ok()?;
                let rank = u8::try_from(r + dr).ok()?;
                Square::new(file, rank)
            })
    }

    /// Whether `other` is an orthogonal neighbour.
    pub fn touches(self, other: Square) -> bool {
        self.file.abs_diff(other.file) + self.rank.abs_diff(other.rank) == 1
    }

    /// The row as `seat` counts it: 1 on its own back rank, 8 on the opponent's.
    pub fn row_of(self, seat: Seat) -> u8 {
        if seat == LIGHT {
            self.rank + 1
        } else {
            8 - self.rank
        }
    }

    /// Whether this is one of the star squares `seat` wins by entering (the opponent's).
    pub fn is_goal_of(self, seat: Seat) -> bool {
        self.is_star() && self.row_of(seat) == 8
    }

    /// d1, e1, d8 and e8: the middle squares of each back rank.
    pub fn is_star(self) -> bool {
        (self.file == 3 || self.file == 4) && (self.rank == 0 || self.rank == 7)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file) as char, self.rank + 1)
    }
}

/// A die on the board: whose it is and the number it shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Die {
    pub side: Seat,
    pub number: u8,
}

impl Die {
    /// `L3` or `D5`, as the board shows it.
    pub fn label(self) -> String {
        let s = if self.side == LIGHT { 'L' } else { 'D' };
        format!("{s}{}", self.number)
    }
}

/// The 64 squares and what stands on them (boxed: `AnyGame` holds every game by value, and
/// its variants should stay of similar size).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Board {
    cells: Box<[Option<Die>; 64]>,
}

impl Default for Board {
    fn default() -> Self {
        Board {
            cells: Box::new([None; 64]),
        }
    }
}

impl Board {
    pub fn at(&self, sq: Square) -> Option<Die> {
        self.cells[sq.index()]
    }

    pub fn put(&mut self, sq: Square, die: Die) {
        self.cells[sq.index()] = Some(die);
    }

    pub fn take(&mut self, sq: Square) -> Option<Die> {
        self.cells[sq.index()].take()
    }

    /// Every die with its square, in square order (a1, a2, ..., h8).
    pub fn dice(&self) -> impl Iterator<Item = (Square, Die)> + '_ {
        Square::all().filter_map(|sq| self.at(sq).map(|d| (sq, d)))
    }

    /// One side's dice with their squares, in square order.
    pub fn dice_of(&self, side: Seat) -> impl Iterator<Item = (Square, Die)> + '_ {
        self.dice().filter(move |(_, d)| d.side == side)
    }

    /// The seed's score: the sum over the side's dice of 10 + the die's row from its own side.
    /// A side with no dice scores 0.
    pub fn score(&self, side: Seat) -> u32 {
        self.dice_of(side)
            .map(|(sq, _)| 10 + u32::from(sq.row_of(side)))
            .sum()
    }

    /// Both scores, LIGHT's first.
    pub fn scores(&self) -> [u32; 2] {
        [self.score(LIGHT), self.score(DARK)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }

    #[test]
    fn squares_read_and_print() {
        assert_eq!(sq("E4").to_string(), "e4");
        assert!(Square::parse("i1").is_none());
        assert!(Square::parse("a9").is_none());
        assert!(Square::parse("a").is_none());
        assert_eq!(Square::all().count(), 64);
    }

    #[test]
    fn neighbours_are_orthogonal_and_on_the_board() {
        let n: Vec<String> = sq("a1").neighbours().map(|s| s.to_string()).collect();
        assert_eq!(n, ["a2", "b1"]);
        assert_eq!(sq("d4").neighbours().count(), 4);
        assert!(sq("d4").touches(sq("d5")));
        assert!(!sq("d4").touches(sq("e5")));
        assert!(!sq("d4").touches(sq("d6")));
    }

    #[test]
    fn rows_stars_and_scores() {
        assert_eq!(sq("c1").row_of(LIGHT), 1);
        assert_eq!(sq("c1").row_of(DARK), 8);
        assert!(sq("d8").is_goal_of(LIGHT) && sq("e8").is_goal_of(LIGHT));
        assert!(sq("d1").is_goal_of(DARK) && !sq("d1").is_goal_of(LIGHT));
        assert!(!sq("c8").is_goal_of(LIGHT));
        let mut b = Board::default();
        b.put(
            sq("a1"),
            Die {
                side: LIGHT,
                number: 3,
            },
        );
        b.put(
            sq("h8"),
            Die {
                side: LIGHT,
                number: 6,
            },
        );
        b.put(
            sq("a7"),
            Die {
                side: DARK,
                number: 1,
            },
        );
        assert_eq!(b.scores(), [11 + 18, 12]);
        assert_eq!(Board::default().score(DARK), 0);
    }
}
