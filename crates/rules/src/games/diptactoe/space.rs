//! The 4x4x4 board: the 64 spaces with the seed's names (`II.F.3`) and the 3D king-step neighbours.

use std::fmt;

/// Level numerals, top (I) to bottom (IV).
pub const LEVELS: [&str; 4] = ["I", "II", "III", "IV"];
/// The file letters of each level: a file letter names its level (no `O`, no `I`).
pub const FILES: [[char; 4]; 4] = [
    ['A', 'B', 'C', 'D'],
    ['E', 'F', 'G', 'H'],
    ['J', 'K', 'L', 'M'],
    ['N', 'P', 'Q', 'R'],
];

/// One of the 64 spaces; `level`, `file` and `row` are 0-based (row 0 is the seed's row 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Space {
    pub level: u8,
    pub file: u8,
    pub row: u8,
}

impl Space {
    pub fn new(level: u8, file: u8, row: u8) -> Space {
        debug_assert!(level < 4 && file < 4 && row < 4);
        Space { level, file, row }
    }

    /// All 64 spaces, level by level, row by row, file by file.
    pub fn all() -> impl Iterator<Item = Space> {
        (0..64u8).map(Space::from_index)
    }

    /// A dense index 0..64 for tables.
    pub fn index(self) -> usize {
        usize::from(self.level) * 16 + usize::from(self.row) * 4 + usize::from(self.file)
    }

    pub fn from_index(i: u8) -> Space {
        Space::new(i / 16, i % 4, (i / 4) % 4)
    }

    /// The file letter, which also names the level (`F` is on level II).
    pub fn file_letter(self) -> char {
        FILES[usize::from(self.level)][usize::from(self.file)]
    }

    /// True for the 26 spaces one king step away in three dimensions.
    pub fn is_adjacent(self, other: Space) -> bool {
        let d = |a: u8, b: u8| a.abs_diff(b);
        self != other
            && d(self.level, other.level) <= 1
            && d(self.file, other.file) <= 1
            && d(self.row, other.row) <= 1
    }

    /// The neighbours of this space (26 in the middle of the cube, 7 in a corner).
    pub fn neighbours(self) -> Vec<Space> {
        Space::all().filter(|s| self.is_adjacent(*s)).collect()
    }

    /// Reads a space: the full form `II.F.3` or the compact `F3` (the file letter names the
    /// level). Case and spaces around the dots do not matter. A file letter on the wrong level
    /// (`I.E.1`) is an error, never corrected.
    pub fn parse(text: &str) -> Result<Space, String> {
        let t: String = text
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_uppercase();
        let parts: Vec<&str> = t.split('.').collect();
        let (level_given, file_text, row_text) = match parts.as_slice() {
            [l, f, r] => (Some(*l), *f, *r),
            [compact] if compact.len() == 2 && compact.is_ascii() => {
                (None, &compact[..1], &compact[1..])
            }
            _ => {
                return Err(format!(
                    "'{}' is not a space (write it like II.F.3 or F3)",
                    text.trim()
                ))
            }
        };
        let mut chars = file_text.chars();
        let (Some(file_char), None) = (chars.next(), chars.next()) else {
            return Err(format!(
                "'{}': '{file_text}' is not a file letter",
                text.trim()
            ));
        };
        let Some((level, file)) = FILES
            .iter()
            .enumerate()
            .find_map(|(l, files)| files.iter().position(|c| *c == file_char).map(|f| (l, f)))
        else {
            return Err(format!(
                "'{}': there is no file {file_char} (files A-D, E-H, J-M, N P Q R)",
                text.trim()
            ));
        };
        if let Some(level_text) = level_given {
            let Some(named) = LEVELS.iter().position(|l| *l == level_text) else {
                return Err(format!(
                    "'{}': there is no level {level_text} (levels I, II, III, IV)",
                    text.trim()
                ));
            };
            if named != level {
                return Err(format!(
                    "'{}': file {file_char} is on level {}, not on level {level_text}",
                    text.trim(),
                    LEVELS[level]
                ));
            }
        }
        let row = match row_text {
            "1" => 0,
            "2" => 1,
            "3" => 2,
            "4" => 3,
            _ => {
                return Err(format!(
                    "'{}': there is no row {row_text} (rows 1-4)",
                    text.trim()
                ))
            }
        };
        Ok(Space::new(level as u8, file as u8, row))
    }
}

/// The full name, `II.F.3`.
impl fmt::Display for Space {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}.{}.{}",
            LEVELS[usize::from(self.level)],
            self.file_letter(),
            self.row + 1
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_compact_form_reads() {
        for s in Space::all() {
            assert_eq!(Space::parse(&s.to_string()), Ok(s));
            assert_eq!(Space::from_index(s.index() as u8), s);
        }
        assert_eq!(Space::parse("f3").unwrap().to_string(), "II.F.3");
        assert_eq!(Space::parse("iv . p . 4").unwrap().to_string(), "IV.P.4");
    }

    #[test]
    fn wrong_level_file_is_invalid_not_corrected() {
        let err = Space::parse("I.E.1").unwrap_err();
        assert!(err.contains("file E is on level II"), "{err}");
        assert!(Space::parse("V.A.1").is_err());
        assert!(Space::parse("O1").is_err());
        assert!(Space::parse("A5").is_err());
    }

    #[test]
    fn king_step_neighbours() {
        let corner = Space::parse("I.A.1").unwrap();
        assert_eq!(corner.neighbours().len(), 7);
        assert!(corner.is_adjacent(Space::parse("II.F.2").unwrap()));
        assert!(!corner.is_adjacent(Space::parse("III.K.2").unwrap()));
        let middle = Space::parse("II.F.2").unwrap();
        assert_eq!(middle.neighbours().len(), 26);
    }
}
