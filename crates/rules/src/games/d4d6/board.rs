//! Squares, directions and the board's areas (playing, waiting, teleportation, promotion, border, starting).

use std::fmt;

/// A square, 0..64: `rank * 8 + file`, a1 = 0, h1 = 7, a8 = 56.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sq(pub u8);

impl Sq {
    pub fn new(file: i8, rank: i8) -> Option<Sq> {
        if (0..8).contains(&file) && (0..8).contains(&rank) {
            Some(Sq((rank * 8 + file) as u8))
        } else {
            None
        }
    }
    /// 0 = file a.
    pub fn file(self) -> i8 {
        (self.0 % 8) as i8
    }
    /// 0 = rank 1.
    pub fn rank(self) -> i8 {
        (self.0 / 8) as i8
    }
    pub fn bit(self) -> u64 {
        1u64 << self.0
    }
    /// The neighbour one step in this direction, if on the board.
    pub fn step(self, dir: Dir) -> Option<Sq> {
        let (df, dr) = dir.delta();
        Sq::new(self.file() + df, self.rank() + dr)
    }
    /// Reads `e4` (case-insensitive).
    pub fn parse(text: &str) -> Option<Sq> {
        let b = text.as_bytes();
        if b.len() != 2 {
            return None;
        }
        let file = b[0].to_ascii_lowercase().wrapping_sub(b'a') as i8;
        let rank = b[1].wrapping_sub(b'1') as i8;
        Sq::new(file, rank)
    }
    pub fn all() -> impl Iterator<Item = Sq> {
        (0..64u8).map(Sq)
    }

    /// The 48 squares where gambling pieces live: ranks 3-6, and files c-f on ranks 1, 2, 7, 8.
    pub fn is_playing(self) -> bool {
        (2..=5).contains(&self.rank()) || (2..=5).contains(&self.file())
    }
    /// The 16 squares outside the playing area.
    pub fn is_waiting(self) -> bool {
        !self.is_playing()
    }
    /// a1, h1, a8, h8: Guardas here may be placed anywhere in the playing area.
    pub fn is_teleportation(self) -> bool {
        matches!(self.0, 0 | 7 | 56 | 63)
    }
    /// a3-a6 and h3-h6: Cavalos here may promote.
    pub fn is_promotion(self) -> bool {
        (self.file() == 0 || self.file() == 7) && (2..=5).contains(&self.rank())
    }
    /// The 12 squares of ranks 1, 2, 7, 8 in the playing area except d2, e2, d7, e7.
    pub fn is_border(self) -> bool {
        let (f, r) = (self.file(), self.rank());
        (2..=5).contains(&f)
            && match r {
                0 | 7 => true,
                1 | 6 => f == 2 || f == 5,
                _ => false,
            }
    }
    /// Chess colouring: a1 dark; light when file number + rank is odd.
    pub fn is_light(self) -> bool {
        (self.file() + self.rank()) % 2 == 1
    }
}

impl fmt::Display for Sq {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}{}",
            (b'a' + self.file() as u8) as char,
            (b'1' + self.rank() as u8) as char
        )
    }
}

/// The eight compass directions (north = toward rank 8).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dir {
    N,
    E,
    S,
    W,
    NE,
    SE,
    SW,
    NW,
}

impl Dir {
    pub const ORTHOGONAL: [Dir; 4] = [Dir::N, Dir::E, Dir::S, Dir::W];
    pub const DIAGONAL: [Dir; 4] = [Dir::NE, Dir::SE, Dir::SW, Dir::NW];

    /// (file delta, rank delta).
    pub fn delta(self) -> (i8, i8) {
        match self {
            Dir::N => (0, 1),
            Dir::E => (1, 0),
            Dir::S => (0, -1),
            Dir::W => (-1, 0),
            Dir::NE => (1, 1),
            Dir::SE => (1, -1),
            Dir::SW => (-1, -1),
            Dir::NW => (-1, 1),
        }
    }
    pub fn from_delta(df: i8, dr: i8) -> Option<Dir> {
        Dir::ORTHOGONAL
            .into_iter()
            .chain(Dir::DIAGONAL)
            .find(|d| d.delta() == (df, dr))
    }
    pub fn is_orthogonal(self) -> bool {
        Dir::ORTHOGONAL.contains(&self)
    }
    pub fn is_vertical(self) -> bool {
        matches!(self, Dir::N | Dir::S)
    }
    pub fn opposite(self) -> Dir {
        let (df, dr) = self.delta();
        Dir::from_delta(-df, -dr).expect("every direction has an opposite")
    }
    /// The two diagonals at 45 degrees to an orthogonal direction (a Cavalo's capture steps).
    pub fn diagonals_beside(self) -> [Dir; 2] {
        let (df, dr) = self.delta();
        if df == 0 {
            [
                Dir::from_delta(1, dr).unwrap(),
                Dir::from_delta(-1, dr).unwrap(),
            ]
        } else {
            [
                Dir::from_delta(df, 1).unwrap(),
                Dir::from_delta(df, -1).unwrap(),
            ]
        }
    }
    /// A diagonal's two backward orthogonal components (a Rinoceronte's retreats).
    pub fn backward_orthogonals(self) -> [Dir; 2] {
        let (df, dr) = self.delta();
        [
            Dir::from_delta(0, -dr).expect("diagonal"),
            Dir::from_delta(-df, 0).expect("diagonal"),
        ]
    }
    /// Turned 90 degrees clockwise / counter-clockwise.
    pub fn turned(self, clockwise: bool) -> Dir {
        let (df, dr) = self.delta();
        if clockwise {
            Dir::from_delta(dr, -df).unwrap()
        } else {
            Dir::from_delta(-dr, df).unwrap()
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Dir::N => "N",
            Dir::E => "E",
            Dir::S => "S",
            Dir::W => "W",
            Dir::NE => "NE",
            Dir::SE => "SE",
            Dir::SW => "SW",
            Dir::NW => "NW",
        }
    }
    pub fn parse(text: &str) -> Option<Dir> {
        Dir::ORTHOGONAL
            .into_iter()
            .chain(Dir::DIAGONAL)
            .find(|d| d.name().eq_ignore_ascii_case(text))
    }
}

impl fmt::Display for Dir {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Sq {
        Sq::parse(s).unwrap()
    }

    #[test]
    fn areas_have_the_seed_sizes() {
        assert_eq!(Sq::all().filter(|s| s.is_playing()).count(), 48);
        assert_eq!(Sq::all().filter(|s| s.is_waiting()).count(), 16);
        assert_eq!(Sq::all().filter(|s| s.is_promotion()).count(), 8);
        assert_eq!(Sq::all().filter(|s| s.is_border()).count(), 12);
        assert!(Sq::all()
            .filter(|s| s.is_teleportation())
            .all(|s| s.is_waiting()));
        for s in ["c8", "f7", "c2", "f1", "d1"] {
            assert!(sq(s).is_border(), "{s}");
        }
        for s in ["d7", "e2", "b8", "a3"] {
            assert!(!sq(s).is_border(), "{s}");
        }
        assert!(sq("b7").is_waiting() && sq("b6").is_playing() && sq("c7").is_playing());
    }

    #[test]
    fn colours_follow_chess() {
        assert!(!sq("a1").is_light());
        assert!(sq("a6").is_light() && sq("d3").is_light() && sq("h1").is_light());
        assert!(!sq("d4").is_light() && !sq("h8").is_light());
    }

    #[test]
    fn directions_turn_and_reverse() {
        assert_eq!(Dir::N.diagonals_beside(), [Dir::NE, Dir::NW]);
        assert_eq!(Dir::E.diagonals_beside(), [Dir::NE, Dir::SE]);
        assert_eq!(Dir::NE.backward_orthogonals(), [Dir::S, Dir::W]);
        assert_eq!(Dir::NE.turned(true), Dir::SE);
        assert_eq!(Dir::NE.turned(false), Dir::NW);
        assert_eq!(sq("b3").step(Dir::NE), Some(sq("c4")));
        assert_eq!(sq("a3").step(Dir::W), None);
    }
}
