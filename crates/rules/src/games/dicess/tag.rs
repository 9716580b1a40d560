//! The `[Position]` tag: `LIGHT:a2=3,c4=1 DARK:d5=2 move=LIGHT` (contract 2.4), plus the set-up's own forms (`setup=roll`, `setup=<LIGHT's roll>,<DARK's roll>`).

use super::position::{Board, Die, Square, DARK, DICE_PER_SIDE, LIGHT, SEAT_NAMES};
use super::setup::{self, Phase};
use crate::games::Seat;

/// What a tag holds: the board, the phase, and the set-up roll while the set-up goes on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tag {
    pub board: Board,
    pub phase: Phase,
    pub rolled: Option<[Vec<u8>; 2]>,
}

/// Writes the tag. Between turns it is the contract's form; during the set-up it adds
/// `setup=roll` (the roll is due) or `setup=` and both sides' rolls as digits, so that a
/// record's final position and the lists can name any point of a game.
pub fn write(t: &Tag) -> String {
    let seat = |side: Seat| {
        let dice: Vec<String> = t
            .board
            .dice_of(side)
            .map(|(sq, d)| format!("{sq}={}", d.number))
            .collect();
        let list = if dice.is_empty() {
            "-".to_string()
        } else {
            dice.join(",")
        };
        format!("{}:{list}", SEAT_NAMES[side])
    };
    let head = format!("{} {}", seat(LIGHT), seat(DARK));
    match (t.phase, &t.rolled) {
        (Phase::Roll, _) => format!("{head} setup=roll"),
        (Phase::Place(s), Some([l, d])) => {
            let digits = |v: &[u8]| v.iter().map(u8::to_string).collect::<String>();
            format!(
                "{head} move={} setup={},{}",
                SEAT_NAMES[s],
                digits(l),
                digits(d)
            )
        }
        (Phase::Place(s), None) | (Phase::Turn(s), _) => {
            format!("{head} move={}", SEAT_NAMES[s])
        }
    }
}

/// The fields as read, before they are checked against each other.
#[derive(Default)]
struct Fields {
    seats: [Option<Vec<(Square, u8)>>; 2],
    to_move: Option<Seat>,
    setup: Option<Option<[Vec<u8>; 2]>>,
}

/// Reads a tag: fields in any order, names, seats and squares in either case.
pub fn read(text: &str) -> Result<Tag, String> {
    let mut f = Fields::default();
    for field in text.split_whitespace() {
        read_field(&mut f, field)?;
    }
    let mut board = Board::default();
    for side in [LIGHT, DARK] {
        let name = SEAT_NAMES[side];
        let dice = f.seats[side]
            .take()
            .ok_or_else(|| format!("no {name} field: write {name}:a2=3,... or {name}:-"))?;
        if dice.len() > DICE_PER_SIDE {
            return Err(format!("{name} has {} dice, more than 16", dice.len()));
        }
        for (sq, number) in dice {
            if board.at(sq).is_some() {
                return Err(format!("two dice on {sq}"));
            }
            board.put(sq, Die { side, number });
        }
    }
    match f.setup {
        None => between_turns(board, f.to_move),
        Some(rolled) => during_setup(board, f.to_move, rolled),
    }
}

fn seat_by_name(name: &str) -> Option<Seat> {
    SEAT_NAMES.iter().position(|s| s.eq_ignore_ascii_case(name))
}

fn read_field(f: &mut Fields, field: &str) -> Result<(), String> {
    let colon = field.find(':');
    let equals = field.find('=');
    if let Some(c) = colon.filter(|&c| equals.is_none_or(|e| c < e)) {
        let (name, list) = (&field[..c], &field[c + 1..]);
        let side = seat_by_name(name)
            .ok_or_else(|| format!("'{name}' is not a seat: the seats are LIGHT and DARK"))?;
        if f.seats[side].is_some() {
            return Err(format!("{} is given twice", SEAT_NAMES[side]));
        }
        f.seats[side] = Some(read_dice(list)?);
        return Ok(());
    }
    let Some((name, value)) = field.split_once('=') else {
        return Err(format!(
            "'{field}' is not a field: expected LIGHT:..., DARK:... and move=..."
        ));
    };
    match name.to_ascii_lowercase().as_str() {
        "move" if f.to_move.is_none() => {
            f.to_move = Some(
                seat_by_name(value)
                    .ok_or_else(|| format!("move={value}: the seats are LIGHT and DARK"))?,
            );
        }
        "setup" if f.setup.is_none() => f.setup = Some(read_setup(value)?),
        "move" | "setup" => return Err(format!("{name}= is given twice")),
        _ => return Err(format!("unknown field '{name}=' (fields: move=, setup=)")),
    }
    Ok(())
}

/// `a2=3,c4=1` or `-`.
fn read_dice(list: &str) -> Result<Vec<(Square, u8)>, String> {
    if list == "-" {
        return Ok(Vec::new());
    }
    list.split(',')
        .map(|item| {
            let bad = || format!("'{item}': a die is written square=number, like a2=3");
            let (sq, n) = item.split_once('=').ok_or_else(bad)?;
            let sq = Square::parse(sq).ok_or_else(bad)?;
            let n = n
                .parse::<u8>()
                .ok()
                .filter(|n| (1..=6).contains(n))
                .ok_or_else(|| format!("'{item}': a die shows 1 to 6"))?;
            Ok((sq, n))
        })
        .collect()
}

/// `roll`, or both sides' rolls as 16 digits each, LIGHT's first: `6241...,2251...`.
fn read_setup(value: &str) -> Result<Option<[Vec<u8>; 2]>, String> {
    if value.eq_ignore_ascii_case("roll") {
        return Ok(None);
    }
    let bad = || {
        format!(
            "setup={value}: expected setup=roll, or each side's 16 rolled numbers as digits \
             separated by a comma (LIGHT's first)"
        )
    };
    let (l, d) = value.split_once(',').ok_or_else(bad)?;
    let digits = |s: &str| -> Result<Vec<u32>, String> {
        s.chars()
            .map(|c| c.to_digit(10).ok_or_else(bad))
            .collect::<Result<Vec<u32>, String>>()
    };
    let (l, d) = (digits(l)?, digits(d)?);
    if l.len() != DICE_PER_SIDE || d.len() != DICE_PER_SIDE {
        return Err(bad());
    }
    let all: Vec<u32> = l.into_iter().chain(d).collect();
    setup::split_roll(&all).map(Some)
}

/// A position between turns: `move=` is needed, and neither side may stand on the other's star.
fn between_turns(board: Board, to_move: Option<Seat>) -> Result<Tag, String> {
    let to_move = to_move.ok_or("no move= field: name the seat to move (move=LIGHT)")?;
    for (sq, d) in board.dice() {
        if sq.is_goal_of(d.side) {
            return Err(format!(
                "{}'s die on the star square {sq}: that game is already over",
                SEAT_NAMES[d.side]
            ));
        }
    }
    Ok(Tag {
        board,
        phase: Phase::Turn(to_move),
        rolled: None,
    })
}

/// A position in the set-up: before the roll (no dice, no `move=`), or a side to place with
/// the roll known (LIGHT: no dice yet; DARK: LIGHT's placed as rolled, DARK's none).
fn during_setup(
    board: Board,
    to_move: Option<Seat>,
    rolled: Option<[Vec<u8>; 2]>,
) -> Result<Tag, String> {
    let Some(rolled) = rolled else {
        if board.dice().next().is_some() || to_move.is_some() {
            return Err("setup=roll: before the roll there are no dice and nobody moves".into());
        }
        return Ok(Tag {
            board,
            phase: Phase::Roll,
            rolled: None,
        });
    };
    let to_move = to_move.ok_or("no move= field: name the seat to place (move=LIGHT)")?;
    if to_move == LIGHT {
        if board.dice().next().is_some() {
            return Err("LIGHT places first: no dice are on the board yet".into());
        }
    } else {
        setup::placed_as_rolled(&board, LIGHT, &rolled[LIGHT])?;
    }
    Ok(Tag {
        board,
        phase: Phase::Place(to_move),
        rolled: Some(rolled),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_contract_s_example_reads_and_writes_back() {
        let t = read("LIGHT:a2=3,c4=1,h1=6 DARK:d5=2,h8=6 move=LIGHT").unwrap();
        assert_eq!(write(&t), "LIGHT:a2=3,c4=1,h1=6 DARK:d5=2,h8=6 move=LIGHT");
        let t = read("move=dark dark:- Light:H1=6,A2=3").unwrap();
        assert_eq!(write(&t), "LIGHT:a2=3,h1=6 DARK:- move=DARK");
        assert_eq!(t.phase, Phase::Turn(DARK));
    }

    #[test]
    fn bad_tags_say_why() {
        for (tag, why) in [
            ("LIGHT:a2=3 move=LIGHT", "no DARK field"),
            ("LIGHT:a2=3 DARK:a2=1 move=LIGHT", "two dice on a2"),
            ("LIGHT:a2=7 DARK:- move=LIGHT", "1 to 6"),
            ("LIGHT:a2=3 DARK:-", "no move="),
            ("LIGHT:d8=3 DARK:- move=DARK", "already over"),
            ("LIGHT:- DARK:e1=3 move=LIGHT", "already over"),
            ("LIGHT:- DARK:- move=LIGHT turn=3", "unknown field"),
            ("LIGHT:a9=1 DARK:- move=LIGHT", "square=number"),
            ("BLUE:- DARK:- move=LIGHT", "not a seat"),
        ] {
            let e = read(tag).unwrap_err();
            assert!(e.contains(why), "{tag}: {e}");
        }
        // A side's own star squares are ordinary squares for it.
        assert!(read("LIGHT:d1=3 DARK:e8=2 move=LIGHT").is_ok());
    }

    #[test]
    fn set_up_forms_read_back() {
        let t = read("LIGHT:- DARK:- setup=roll").unwrap();
        assert_eq!(t.phase, Phase::Roll);
        assert_eq!(write(&t), "LIGHT:- DARK:- setup=roll");
        let text = "LIGHT:- DARK:- move=LIGHT setup=6241135526431265,2251634415623316";
        let t = read(text).unwrap();
        assert_eq!(write(&t), text);
        assert!(read("LIGHT:- DARK:- move=DARK setup=6241135526431265,2251634415623316").is_err());
        assert!(read("LIGHT:- DARK:- move=LIGHT setup=624113552643126,2251634415623316").is_err());
    }
}
