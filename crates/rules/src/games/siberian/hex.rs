//! The board's 37 hexes: names (`a1`..`g4`), the column/row rule for neighbours, and its table.
//!
//! Columns a to g hold 4, 5, 6, 7, 6, 5 and 4 hexes, numbered from the bottom. Neighbouring
//! columns are offset by half a hex, so a hex touches its column's hexes above and below and
//! two hexes of each neighbouring column; which two depends on whether that column is the
//! longer or the shorter one (RULES.md, "Siberian Dice").

use std::fmt;
use std::sync::OnceLock;

/// How many hexes each column holds, a to g.
pub const COLUMN_LENGTHS: [u8; 7] = [4, 5, 6, 7, 6, 5, 4];

/// The number of hexes on the board.
pub const HEXES: usize = 37;

/// The middle column (d), the longest: columns left of it grow toward it, right of it shrink.
const MIDDLE: u8 = 3;

/// One hex, by its index in board order: a1..a4, b1..b5, ..., g1..g4.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Hex(u8);

/// Where each column starts in board order.
fn column_start(col: u8) -> u8 {
    COLUMN_LENGTHS[..col as usize].iter().sum()
}

impl Hex {
    /// The hex in column `col` (0 = a) and row `row` (1 = bottom), if the board has it.
    pub fn new(col: i32, row: i32) -> Option<Hex> {
        let c = u8::try_from(col).ok().filter(|&c| c < 7)?;
        let r = u8::try_from(row).ok()?;
        (1..=COLUMN_LENGTHS[c as usize])
            .contains(&r)
            .then(|| Hex(column_start(c) + r - 1))
    }

    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// The column, 0 (a) to 6 (g).
    pub fn col(self) -> u8 {
        (0..7u8)
            .rev()
            .find(|&c| column_start(c) <= self.0)
            .unwrap_or(0)
    }

    /// The row, from 1 at the bottom of the column.
    pub fn row(self) -> u8 {
        self.0 - column_start(self.col()) + 1
    }

    /// Every hex in board order.
    pub fn all() -> impl Iterator<Item = Hex> {
        (0..HEXES as u8).map(Hex)
    }

    /// Reads a hex name, either case (`d4`, `D4`); `None` for anything else.
    pub fn parse(text: &str) -> Option<Hex> {
        let (col, row) = split_name(text)?;
        Hex::new(col, row)
    }

    /// The neighbours, from the table built once by the column/row rule.
    pub fn neighbours(self) -> &'static [Hex] {
        &table()[self.index()]
    }

    /// The neighbours by the column/row rule: the hexes above and below in the column, and two
    /// in each neighbouring column, at the same row and the row below when that column is the
    /// shorter one, at the same row and the row above when it is the longer one.
    fn neighbours_by_rule(self) -> Vec<Hex> {
        let (c, r) = (i32::from(self.col()), i32::from(self.row()));
        let middle = i32::from(MIDDLE);
        let left = if c <= middle { [r - 1, r] } else { [r, r + 1] };
        let right = if c >= middle { [r - 1, r] } else { [r, r + 1] };
        let mut out = vec![Hex::new(c, r - 1), Hex::new(c, r + 1)];
        out.extend(left.iter().map(|&lr| Hex::new(c - 1, lr)));
        out.extend(right.iter().map(|&rr| Hex::new(c + 1, rr)));
        out.into_iter().flatten().collect()
    }
}

/// A name's column (0 = a) and row as written, if it looks like a hex name at all (`d8` does,
/// though no such hex exists; `z9` and `d` do not).
pub fn split_name(text: &str) -> Option<(i32, i32)> {
    let text = text.trim();
    let mut chars = text.chars();
    let letter = chars.next()?.to_ascii_lowercase();
    if !('a'..='g').contains(&letter) {
        return None;
    }
    let digits = chars.as_str();
    if digits.is_empty() || digits.len() > 2 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    Some((i32::from(letter as u8 - b'a'), digits.parse().ok()?))
}

/// The neighbour table, built once (the board never changes shape).
fn table() -> &'static Vec<Vec<Hex>> {
    static TABLE: OnceLock<Vec<Vec<Hex>>> = OnceLock::new();
    TABLE.get_or_init(|| Hex::all().map(Hex::neighbours_by_rule).collect())
}

impl fmt::Display for Hex {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.col()) as char, self.row())
    }
}

/// The hexes of a column as people say them: `d1-d7`.
pub fn column_range(col: u8) -> String {
    let letter = (b'a' + col) as char;
    format!("{letter}1-{letter}{}", COLUMN_LENGTHS[col as usize])
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// An independent model: cube coordinates (x, y, z), x + y + z = 0, within distance 3 of
    /// the centre; x is the column, z grows upward within a column.
    fn cube(h: Hex) -> (i32, i32, i32) {
        let x = i32::from(h.col()) - 3;
        let z_min = (-3).max(-3 - x);
        let z = z_min + i32::from(h.row()) - 1;
        (x, -x - z, z)
    }

    fn cube_neighbours(h: Hex) -> BTreeSet<Hex> {
        let (x, y, z) = cube(h);
        let steps = [
            (1, -1, 0),
            (1, 0, -1),
            (0, 1, -1),
            (-1, 1, 0),
            (-1, 0, 1),
            (0, -1, 1),
        ];
        let all: Vec<Hex> = Hex::all().collect();
        steps
            .iter()
            .filter_map(|(dx, dy, dz)| {
                all.iter()
                    .copied()
                    .find(|&o| cube(o) == (x + dx, y + dy, z + dz))
            })
            .collect()
    }

    #[test]
    fn thirty_seven_hexes_named_a1_to_g4() {
        assert_eq!(Hex::all().count(), 37);
        let names: Vec<String> = Hex::all().map(|h| h.to_string()).collect();
        assert_eq!(names.first().map(String::as_str), Some("a1"));
        assert_eq!(names.last().map(String::as_str), Some("g4"));
        assert!(names.contains(&"d7".to_string()));
        for h in Hex::all() {
            assert_eq!(Hex::parse(&h.to_string()), Some(h));
            assert_eq!(Hex::parse(&h.to_string().to_uppercase()), Some(h));
            let (x, y, z) = cube(h);
            assert_eq!(x + y + z, 0);
            assert!(x.abs() <= 3 && y.abs() <= 3 && z.abs() <= 3, "{h}");
        }
        for bad in ["d8", "a5", "g5", "h1", "a0", "", "d", "4d", "e 3"] {
            assert_eq!(Hex::parse(bad), None, "{bad}");
        }
    }

    #[test]
    fn the_rule_agrees_with_the_cube_model() {
        for h in Hex::all() {
            let rule: BTreeSet<Hex> = h.neighbours().iter().copied().collect();
            assert_eq!(rule.len(), h.neighbours().len(), "{h}: a neighbour twice");
            assert_eq!(rule, cube_neighbours(h), "{h}");
        }
    }

    #[test]
    fn nineteen_inner_twelve_edge_six_corner_hexes() {
        let count = |n: usize| Hex::all().filter(|h| h.neighbours().len() == n).count();
        assert_eq!((count(6), count(4), count(3)), (19, 12, 6));
        let corners: Vec<String> = Hex::all()
            .filter(|h| h.neighbours().len() == 3)
            .map(|h| h.to_string())
            .collect();
        assert_eq!(corners, ["a1", "a4", "d1", "d7", "g1", "g4"]);
    }

    #[test]
    fn neighbourhood_is_symmetric_and_never_itself() {
        for h in Hex::all() {
            assert!(!h.neighbours().contains(&h));
            for n in h.neighbours() {
                assert!(n.neighbours().contains(&h), "{h} -> {n} but not back");
            }
        }
    }

    #[test]
    fn named_examples() {
        let names = |h: &str| -> Vec<String> {
            let mut v: Vec<String> = Hex::parse(h)
                .unwrap()
                .neighbours()
                .iter()
                .map(|n| n.to_string())
                .collect();
            v.sort();
            v
        };
        assert_eq!(names("d4"), ["c3", "c4", "d3", "d5", "e3", "e4"]);
        assert_eq!(names("a1"), ["a2", "b1", "b2"]);
        assert_eq!(names("c1"), ["b1", "c2", "d1", "d2"]);
        assert_eq!(names("e6"), ["d6", "d7", "e5", "f5"]);
        assert_eq!(names("g4"), ["f4", "f5", "g3"]);
    }
}
