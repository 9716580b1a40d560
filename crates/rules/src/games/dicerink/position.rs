//! Squares, dice on the board, and a position with its `[Position]` tag (`A:b1=5/4,... move=A forced=-`).

use std::fmt;

use super::die::{Dir, Orientation, Value};
use crate::games::Seat;

/// The seats' names, in seat order: A starts on rank 1, B on rank 4.
pub const SEAT_NAMES: [&str; 2] = ["A", "B"];

/// The board is 4 files (a-d) by 4 ranks (1-4).
pub const SIZE: u8 = 4;

/// A square of the 4x4 board. Ordered by file, then rank (a1 < a2 < b1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Square {
    file: u8,
    rank: u8,
}

impl Square {
    /// The square at 0-based file and rank, if on the board.
    pub fn new(file: u8, rank: u8) -> Option<Square> {
        (file < SIZE && rank < SIZE).then_some(Square { file, rank })
    }

    /// Reads `b1` (either case).
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

    /// Every square, a1 a2 ... d4.
    pub fn all() -> impl Iterator<Item = Square> {
        (0..SIZE).flat_map(|file| (0..SIZE).map(move |rank| Square { file, rank }))
    }

    /// 0-based file (a = 0).
    pub fn file(self) -> u8 {
        self.file
    }

    /// 0-based rank (rank 1 = 0).
    pub fn rank(self) -> u8 {
        self.rank
    }

    /// The neighbouring square toward `dir`, or `None` off the board.
    pub fn step(self, dir: Dir) -> Option<Square> {
        let (df, dr) = dir.delta();
        let file = u8::try_from(self.file as i8 + df).ok()?;
        let rank = u8::try_from(self.rank as i8 + dr).ok()?;
        Square::new(file, rank)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file) as char, self.rank + 1)
    }
}

/// The other seat of the two.
pub fn opponent(seat: Seat) -> Seat {
    1 - seat
}

/// The 0-based rank a seat sets up on (A: rank 1, B: rank 4).
pub fn home_rank(seat: Seat) -> u8 {
    if seat == 0 {
        0
    } else {
        SIZE - 1
    }
}

/// The rank a seat must reach with both dice: the opponent's home rank.
pub fn goal_rank(seat: Seat) -> u8 {
    home_rank(opponent(seat))
}

/// The direction a seat's "front" face points: toward the opponent.
pub fn front_dir(seat: Seat) -> Dir {
    if seat == 0 {
        Dir::North
    } else {
        Dir::South
    }
}

/// One die on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Die {
    pub owner: Seat,
    pub square: Square,
    pub orient: Orientation,
}

impl Die {
    pub fn top(&self) -> u8 {
        self.orient.top()
    }

    /// The face toward the opponent (north for A, south for B).
    pub fn front(&self) -> u8 {
        self.orient.face(front_dir(self.owner))
    }

    pub fn value(&self) -> Value {
        self.orient.value()
    }
}

/// The dice on the board, whose turn it is, and the die (if any) the side to move must move.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Position {
    /// Kept sorted: A's dice before B's, each by square.
    dice: Vec<Die>,
    pub to_move: Seat,
    /// The square of the side to move's die that matched the last moved die.
    pub forced: Option<Square>,
}

impl Position {
    /// An empty board, A to place first.
    pub fn empty() -> Position {
        Position {
            dice: Vec::new(),
            to_move: 0,
            forced: None,
        }
    }

    /// All dice, A's first, each side's by square.
    pub fn dice(&self) -> &[Die] {
        &self.dice
    }

    pub fn die_at(&self, square: Square) -> Option<&Die> {
        self.dice.iter().find(|d| d.square == square)
    }

    /// A seat's dice, by square.
    pub fn dice_of(&self, seat: Seat) -> impl Iterator<Item = &Die> + '_ {
        self.dice.iter().filter(move |d| d.owner == seat)
    }

    /// The owner's die other than the one on `square`.
    pub fn other_die(&self, owner: Seat, square: Square) -> Option<&Die> {
        self.dice_of(owner).find(|d| d.square != square)
    }

    /// Puts a die on an empty square.
    pub fn place(&mut self, die: Die) {
        self.dice.push(die);
        self.dice.sort_by_key(|d| (d.owner, d.square));
    }

    /// Moves the die on `from` to `to` with a new orientation (`to` may equal `from`).
    pub fn relocate(&mut self, from: Square, to: Square, orient: Orientation) {
        if let Some(d) = self.dice.iter_mut().find(|d| d.square == from) {
            d.square = to;
            d.orient = orient;
        }
        self.dice.sort_by_key(|d| (d.owner, d.square));
    }

    /// The `[Position]` tag: `A:b1=5/4,d1=3/6 B:b4=2/4,d4=6/4 move=A forced=-`
    /// (square=top/front; front is north for A's dice and south for B's).
    pub fn tag(&self) -> String {
        let side = |seat: Seat| {
            let dice: Vec<String> = self
                .dice_of(seat)
                .map(|d| format!("{}={}/{}", d.square, d.top(), d.front()))
                .collect();
            format!("{}:{}", SEAT_NAMES[seat], dice.join(","))
        };
        let forced = self
            .forced
            .map(|s| s.to_string())
            .unwrap_or_else(|| "-".into());
        format!(
            "{} {} move={} forced={forced}",
            side(0),
            side(1),
            SEAT_NAMES[self.to_move]
        )
    }

    /// Reads a tag written by `tag` (case-insensitive, fields in any order), checking that it
    /// is a position reachable in play: two dice a side, no shared square, each side's two
    /// dice of different values, and a forced die that really matches an opposing die.
    pub fn parse_tag(tag: &str) -> Result<Position, String> {
        let mut pos = Position::empty();
        let mut to_move = None;
        let mut forced = None;
        let mut seen_side = [false; 2];
        for field in tag.split_whitespace() {
            let lower = field.to_ascii_lowercase();
            if let Some(name) = lower.strip_prefix("move=") {
                to_move = Some(
                    seat_by_name(name)
                        .ok_or_else(|| format!("move={name}: the side to move is A or B"))?,
                );
            } else if let Some(sq) = lower.strip_prefix("forced=") {
                forced = match sq {
                    "-" | "" => None,
                    _ => Some(Square::parse(sq).ok_or_else(|| {
                        format!("forced={sq}: expected a square such as b1, or -")
                    })?),
                };
            } else if let Some((name, list)) = lower.split_once(':') {
                let seat = seat_by_name(name)
                    .ok_or_else(|| format!("'{field}': expected A:... or B:..."))?;
                if seen_side[seat] {
                    return Err(format!("{} is listed twice", SEAT_NAMES[seat]));
                }
                seen_side[seat] = true;
                for entry in list.split(',').filter(|e| !e.is_empty()) {
                    pos.place(parse_die(seat, entry, &pos)?);
                }
            } else {
                return Err(format!(
                    "'{field}': expected A:<dice>, B:<dice>, move=<A|B> or forced=<square|->"
                ));
            }
        }
        for (seat, name) in SEAT_NAMES.iter().enumerate() {
            let count = pos.dice_of(seat).count();
            if count != 2 {
                return Err(format!(
                    "{name} has {count} dice; a position after the set-up has two a side"
                ));
            }
            let values: Vec<Value> = pos.dice_of(seat).map(Die::value).collect();
            if values[0] == values[1] {
                return Err(format!(
                    "{name}'s two dice show the same value ({}), which the rules never allow",
                    values[0].name()
                ));
            }
        }
        pos.to_move = to_move.ok_or("the tag needs move=A or move=B")?;
        if let Some(sq) = forced {
            let die = pos
                .die_at(sq)
                .filter(|d| d.owner == pos.to_move)
                .ok_or_else(|| {
                    format!("forced={sq}: {} has no die there", SEAT_NAMES[pos.to_move])
                })?;
            let value = die.value();
            if !pos
                .dice_of(opponent(pos.to_move))
                .any(|d| d.value() == value)
            {
                return Err(format!(
                    "forced={sq}: the die there shows {}, which matches no opposing die",
                    die.top()
                ));
            }
        }
        pos.forced = forced;
        Ok(pos)
    }
}

/// A seat by its name (`a` or `b`, either case).
pub fn seat_by_name(name: &str) -> Option<Seat> {
    SEAT_NAMES
        .iter()
        .position(|n| n.eq_ignore_ascii_case(name.trim()))
}

/// One `b1=5/4` entry of a tag.
fn parse_die(owner: Seat, entry: &str, pos: &Position) -> Result<Die, String> {
    let bad = || format!("'{entry}': expected square=top/front, e.g. b1=5/4");
    let (sq, faces) = entry.split_once('=').ok_or_else(bad)?;
    let square = Square::parse(sq).ok_or_else(bad)?;
    let (top, front) = faces.split_once('/').ok_or_else(bad)?;
    let top: u8 = top.parse().map_err(|_| bad())?;
    let front: u8 = front.parse().map_err(|_| bad())?;
    if pos.die_at(square).is_some() {
        return Err(format!("{square} holds two dice"));
    }
    let orient = Orientation::with_top_facing(top, front, front_dir(owner))
        .map_err(|e| format!("'{entry}': {e}"))?;
    Ok(Die {
        owner,
        square,
        orient,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_read_and_step() {
        let b1 = Square::parse("B1").unwrap();
        assert_eq!(b1.to_string(), "b1");
        assert_eq!(b1.step(Dir::North).unwrap().to_string(), "b2");
        assert_eq!(b1.step(Dir::South), None);
        assert_eq!(Square::parse("e1"), None);
        assert_eq!(Square::parse("a5"), None);
        assert_eq!(Square::parse("a0"), None);
        assert_eq!(Square::all().count(), 16);
    }

    #[test]
    fn tag_round_trips() {
        let tag = "A:a3=2/3,b1=5/1 B:c3=5/6,d3=6/2 move=A forced=b1";
        let pos = Position::parse_tag(tag).unwrap();
        assert_eq!(pos.tag(), tag);
        assert_eq!(pos.die_at(Square::parse("c3").unwrap()).unwrap().front(), 6);
    }

    #[test]
    fn bad_tags_are_explained() {
        let err = Position::parse_tag("A:b1=5/4,d1=4/6 B:b4=2/4,d4=6/4 move=A").unwrap_err();
        assert!(err.contains("same value"), "{err}");
        let err =
            Position::parse_tag("A:b1=5/4,d1=3/6 B:b4=2/4,d4=6/4 move=A forced=b1").unwrap_err();
        assert!(err.contains("matches no opposing die"), "{err}");
        let err = Position::parse_tag("A:b1=5/2 B:b4=2/4,d4=6/4 move=A").unwrap_err();
        assert!(err.contains("bottom"), "{err}");
    }
}
