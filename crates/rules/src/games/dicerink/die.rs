//! A right-handed die: its orientation (top, north and east faces), rolls, quarter-turns and the four values.

use std::fmt;

/// A compass direction on the board; north is toward rank 4 (B's home rank).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Dir {
    North,
    East,
    South,
    West,
}

impl Dir {
    pub const ALL: [Dir; 4] = [Dir::North, Dir::East, Dir::South, Dir::West];

    /// The letter used in notation (`N`, `E`, `S`, `W`).
    pub fn letter(self) -> char {
        match self {
            Dir::North => 'N',
            Dir::East => 'E',
            Dir::South => 'S',
            Dir::West => 'W',
        }
    }

    /// The word players read ("north").
    pub fn name(self) -> &'static str {
        match self {
            Dir::North => "north",
            Dir::East => "east",
            Dir::South => "south",
            Dir::West => "west",
        }
    }

    /// Reads a direction letter, either case.
    pub fn from_letter(c: char) -> Option<Dir> {
        match c.to_ascii_uppercase() {
            'N' => Some(Dir::North),
            'E' => Some(Dir::East),
            'S' => Some(Dir::South),
            'W' => Some(Dir::West),
            _ => None,
        }
    }

    /// The step on the board: (files, ranks).
    pub fn delta(self) -> (i8, i8) {
        match self {
            Dir::North => (0, 1),
            Dir::East => (1, 0),
            Dir::South => (0, -1),
            Dir::West => (-1, 0),
        }
    }

    pub fn opposite(self) -> Dir {
        match self {
            Dir::North => Dir::South,
            Dir::East => Dir::West,
            Dir::South => Dir::North,
            Dir::West => Dir::East,
        }
    }
}

/// The four values a top face can show: 1 and 2 are equivalent, so are 4 and 5.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Value {
    Low,
    High,
    Three,
    Six,
}

impl Value {
    /// The value of a face number (1..=6).
    pub fn of(face: u8) -> Value {
        match face {
            1 | 2 => Value::Low,
            4 | 5 => Value::High,
            3 => Value::Three,
            _ => Value::Six,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Value::Low => "low",
            Value::High => "high",
            Value::Three => "3",
            Value::Six => "6",
        }
    }
}

/// A die's orientation. Opposite faces sum to 7, so the top, north and east faces fix all six;
/// only right-handed orientations can be built (1 on top and 2 facing you puts 3 on your right).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Orientation {
    top: u8,
    north: u8,
    east: u8,
}

/// The outward direction of a face as an (x east, y north, z up) unit vector.
type Axis = [i8; 3];

impl Orientation {
    /// The orientation with these faces on top, north and east, if a right-handed die has one.
    pub fn new(top: u8, north: u8, east: u8) -> Option<Orientation> {
        let in_range = |f: u8| (1..=6).contains(&f);
        if !(in_range(top) && in_range(north) && in_range(east)) {
            return None;
        }
        // The three faces must lie on three different axes.
        let axis_of = |f: u8| f.min(7 - f);
        if axis_of(top) == axis_of(north)
            || axis_of(top) == axis_of(east)
            || axis_of(north) == axis_of(east)
        {
            return None;
        }
        let candidate = Orientation { top, north, east };
        (candidate.handedness() > 0).then_some(candidate)
    }

    /// The orientation with `top` up and `face` pointing toward `dir`, saying why none exists.
    pub fn with_top_facing(top: u8, face: u8, dir: Dir) -> Result<Orientation, String> {
        for (n, name) in [(top, "top"), (face, "side")] {
            if !(1..=6).contains(&n) {
                return Err(format!("a die has faces 1 to 6, not {n} (the {name} face)"));
            }
        }
        if face == top {
            return Err(format!(
                "{top} cannot be on top and face {} at once",
                dir.name()
            ));
        }
        if face == 7 - top {
            return Err(format!(
                "with {top} on top, {face} is the bottom face and cannot face {}",
                dir.name()
            ));
        }
        Orientation::all()
            .into_iter()
            .find(|o| o.top == top && o.face(dir) == face)
            .ok_or_else(|| format!("no die has {top} on top and {face} facing {}", dir.name()))
    }

    /// All 24 orientations of a right-handed die, ordered by top, then north, then east
    /// (found once: the move lists ask for them at every ply).
    pub fn all() -> [Orientation; 24] {
        static ALL: std::sync::OnceLock<[Orientation; 24]> = std::sync::OnceLock::new();
        *ALL.get_or_init(|| {
            let mut all = Vec::with_capacity(24);
            for top in 1..=6 {
                for north in 1..=6 {
                    for east in 1..=6 {
                        if let Some(o) = Orientation::new(top, north, east) {
                            all.push(o);
                        }
                    }
                }
            }
            all.try_into().expect("a die has 24 orientations")
        })
    }

    pub fn top(self) -> u8 {
        self.top
    }

    pub fn bottom(self) -> u8 {
        7 - self.top
    }

    /// The face pointing toward `dir`.
    pub fn face(self, dir: Dir) -> u8 {
        match dir {
            Dir::North => self.north,
            Dir::East => self.east,
            Dir::South => 7 - self.north,
            Dir::West => 7 - self.east,
        }
    }

    /// The value the die shows (of its top face).
    pub fn value(self) -> Value {
        Value::of(self.top)
    }

    /// The orientation after tipping the die over its edge toward `dir`: the face that pointed
    /// the other way (rolling north: the old south face) comes up.
    pub fn rolled(self, dir: Dir) -> Orientation {
        let Orientation { top, north, east } = self;
        match dir {
            Dir::North => Orientation {
                top: 7 - north,
                north: top,
                east,
            },
            Dir::South => Orientation {
                top: north,
                north: 7 - top,
                east,
            },
            Dir::East => Orientation {
                top: 7 - east,
                north,
                east: top,
            },
            Dir::West => Orientation {
                top: east,
                north,
                east: 7 - top,
            },
        }
    }

    /// The orientation after a quarter-turn clockwise seen from above (north face goes east).
    pub fn turned_clockwise(self) -> Orientation {
        Orientation {
            top: self.top,
            north: 7 - self.east,
            east: self.north,
        }
    }

    /// +1 for a right-handed arrangement of faces 1, 2, 3 around their corner, -1 for mirrored:
    /// the sign of the determinant of their outward axes.
    fn handedness(self) -> i8 {
        let axis = |face: u8| -> Axis {
            let faces = [
                (self.top, [0, 0, 1]),
                (7 - self.top, [0, 0, -1]),
                (self.north, [0, 1, 0]),
                (7 - self.north, [0, -1, 0]),
                (self.east, [1, 0, 0]),
                (7 - self.east, [-1, 0, 0]),
            ];
            faces
                .iter()
                .find(|(f, _)| *f == face)
                .map(|(_, a)| *a)
                .unwrap_or([0, 0, 0])
        };
        let (a, b, c) = (axis(1), axis(2), axis(3));
        let cross = [
            b[1] * c[2] - b[2] * c[1],
            b[2] * c[0] - b[0] * c[2],
            b[0] * c[1] - b[1] * c[0],
        ];
        a[0] * cross[0] + a[1] * cross[1] + a[2] * cross[2]
    }
}

impl fmt::Display for Orientation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "top {} north {} east {}",
            self.top, self.north, self.east
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn there_are_24_right_handed_orientations() {
        assert_eq!(Orientation::all().len(), 24);
    }

    #[test]
    fn one_up_two_toward_you_puts_three_on_your_right() {
        // A viewer south of the die looks north: the face toward them is the south face and
        // their right hand points east.
        let o = Orientation::with_top_facing(1, 2, Dir::South).unwrap();
        assert_eq!(o.face(Dir::East), 3);
        assert_eq!(o.face(Dir::West), 4);
        assert!(
            Orientation::new(1, 5, 4).is_none(),
            "mirror image must not exist"
        );
    }

    #[test]
    fn rolling_brings_the_trailing_face_up() {
        let o = Orientation::new(1, 5, 3).unwrap();
        assert_eq!(o.rolled(Dir::North).top(), 2); // old south
        assert_eq!(o.rolled(Dir::South).top(), 5); // old north
        assert_eq!(o.rolled(Dir::East).top(), 4); // old west
        assert_eq!(o.rolled(Dir::West).top(), 3); // old east
        for d in Dir::ALL {
            assert_eq!(o.rolled(d).rolled(d.opposite()), o);
            assert!(Orientation::all().contains(&o.rolled(d)));
        }
    }

    #[test]
    fn four_quarter_turns_are_the_identity() {
        for o in Orientation::all() {
            let once = o.turned_clockwise();
            assert_ne!(once, o);
            assert_eq!(once.top(), o.top());
            assert_eq!(once.face(Dir::East), o.face(Dir::North));
            assert_eq!(
                once.turned_clockwise()
                    .turned_clockwise()
                    .turned_clockwise(),
                o
            );
        }
    }

    #[test]
    fn impossible_faces_are_explained() {
        let err = Orientation::with_top_facing(6, 1, Dir::North).unwrap_err();
        assert!(err.contains("bottom"), "{err}");
        let err = Orientation::with_top_facing(6, 6, Dir::North).unwrap_err();
        assert!(err.contains("cannot be on top"), "{err}");
        assert!(Orientation::with_top_facing(7, 1, Dir::North).is_err());
    }

    #[test]
    fn values_pair_low_and_high_faces() {
        assert_eq!(Value::of(1), Value::of(2));
        assert_eq!(Value::of(4), Value::of(5));
        assert_ne!(Value::of(3), Value::of(6));
        assert_ne!(Value::of(2), Value::of(3));
    }
}
