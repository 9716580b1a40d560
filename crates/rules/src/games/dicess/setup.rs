//! The set-up: the GM's roll of both sides' 16 dice, and each side's placement of exactly its rolled numbers on its two home ranks.

use super::position::{Board, Die, Square, DARK, DICE_PER_SIDE, LIGHT, SEAT_NAMES};
use crate::games::Seat;

/// Where a game stands: the GM's roll, a side's placement, or a side's turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Roll,
    Place(Seat),
    Turn(Seat),
}

/// The two ranks a side places on, in the order its set-up is written (LIGHT `R1 / R2`, DARK
/// `R8 / R7`: each side's back rank first).
pub fn home_ranks(side: Seat) -> [u8; 2] {
    if side == LIGHT {
        [1, 2]
    } else {
        [8, 7]
    }
}

/// Reads the set-up roll: 32 values 1-6, LIGHT's 16 in the order rolled, then DARK's.
pub fn split_roll(values: &[u32]) -> Result<[Vec<u8>; 2], String> {
    if values.len() != 2 * DICE_PER_SIDE {
        return Err(format!(
            "the set-up roll is 32 dice (16 for each side), not {}",
            values.len()
        ));
    }
    let dice = values
        .iter()
        .map(|&v| {
            u8::try_from(v)
                .ok()
                .filter(|v| (1..=6).contains(v))
                .ok_or_else(|| format!("a d6 cannot show {v}"))
        })
        .collect::<Result<Vec<u8>, String>>()?;
    let (light, dark) = dice.split_at(DICE_PER_SIDE);
    Ok([light.to_vec(), dark.to_vec()])
}

/// Checks a side's written rows against its roll and gives the dice to put on the board.
pub fn placement(
    side: Seat,
    rows: &[(u8, Vec<u32>)],
    rolled: &[u8],
) -> Result<Vec<(Square, Die)>, String> {
    let name = SEAT_NAMES[side];
    let [back, front] = home_ranks(side);
    let mut ranks: Vec<u8> = rows.iter().map(|(r, _)| *r).collect();
    ranks.sort_unstable();
    let mut want = vec![back, front];
    want.sort_unstable();
    if ranks != want {
        return Err(format!(
            "{name} places its dice on ranks {back} and {front}: write R{back}: ... / R{front}: ..."
        ));
    }
    let mut dice = Vec::new();
    for (rank, values) in rows {
        for (file, &v) in values.iter().enumerate() {
            let number = u8::try_from(v)
                .ok()
                .filter(|v| (1..=6).contains(v))
                .ok_or_else(|| format!("a die shows 1 to 6, not {v} (R{rank})"))?;
            let file = u8::try_from(file).unwrap_or(u8::MAX);
            let sq = Square::new(file, rank - 1).expect("ranks 1-8, files a-h");
            dice.push((sq, Die { side, number }));
        }
    }
    let placed: Vec<u8> = dice.iter().map(|(_, d)| d.number).collect();
    check_same_numbers(name, &placed, rolled)?;
    Ok(dice)
}

/// The placed numbers must be the rolled ones, each as often: says which differ.
pub fn check_same_numbers(name: &str, placed: &[u8], rolled: &[u8]) -> Result<(), String> {
    let count = |v: &[u8], n: u8| v.iter().filter(|&&x| x == n).count();
    let wrong: Vec<String> = (1..=6)
        .filter(|&n| count(placed, n) != count(rolled, n))
        .map(|n| {
            format!(
                "{n}s: {} placed, {} rolled",
                count(placed, n),
                count(rolled, n)
            )
        })
        .collect();
    if wrong.is_empty() {
        return Ok(());
    }
    Err(format!(
        "{name} must place exactly the numbers it rolled ({}): {}",
        spaced(&sorted(rolled)),
        wrong.join(", ")
    ))
}

/// A side's placement as it is logged: `R1: ... / R2: ...` or `R8: ... / R7: ...`.
pub fn canonical(side: Seat, board: &Board) -> String {
    let rows: Vec<String> = home_ranks(side)
        .iter()
        .map(|&rank| {
            let values: Vec<String> = (0..8)
                .map(|file| {
                    let sq = Square::new(file, rank - 1).expect("on the board");
                    board.at(sq).map_or("?".into(), |d| d.number.to_string())
                })
                .collect();
            format!("R{rank}: {}", values.join(" "))
        })
        .collect();
    rows.join(" / ")
}

/// Whether the side's dice are exactly its 16 on its home ranks showing its rolled numbers
/// (how a `[Position]` during DARK's set-up is checked).
pub fn placed_as_rolled(board: &Board, side: Seat, rolled: &[u8]) -> Result<(), String> {
    let name = SEAT_NAMES[side];
    let dice: Vec<(Square, Die)> = board.dice_of(side).collect();
    let home = home_ranks(side);
    if dice.len() != DICE_PER_SIDE || dice.iter().any(|(sq, _)| !home.contains(&(sq.rank() + 1))) {
        return Err(format!(
            "{name} has placed: its 16 dice fill ranks {} and {}",
            home[0], home[1]
        ));
    }
    let numbers: Vec<u8> = dice.iter().map(|(_, d)| d.number).collect();
    check_same_numbers(name, &numbers, rolled)?;
    if board
        .dice_of(if side == LIGHT { DARK } else { LIGHT })
        .next()
        .is_some()
    {
        return Err(format!(
            "the other side has not placed yet while {name} has"
        ));
    }
    Ok(())
}

pub fn sorted(values: &[u8]) -> Vec<u8> {
    let mut v = values.to_vec();
    v.sort_unstable();
    v
}

/// `6 2 4 1`.
pub fn spaced(values: &[u8]) -> String {
    values
        .iter()
        .map(u8::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROLL: [u32; 32] = [
        6, 2, 4, 1, 1, 3, 5, 5, 2, 6, 4, 3, 1, 2, 6, 5, 2, 2, 5, 1, 6, 3, 4, 4, 1, 5, 6, 2, 3, 3,
        1, 6,
    ];

    #[test]
    fn the_roll_is_32_d6() {
        let [l, d] = split_roll(&ROLL).unwrap();
        assert_eq!(l.len(), 16);
        assert_eq!(d[0], 2);
        assert!(split_roll(&ROLL[1..]).unwrap_err().contains("not 31"));
        let mut bad = ROLL;
        bad[3] = 7;
        assert_eq!(split_roll(&bad).unwrap_err(), "a d6 cannot show 7");
    }

    #[test]
    fn a_placement_is_a_permutation_on_the_home_ranks() {
        let [l, _] = split_roll(&ROLL).unwrap();
        let rows = vec![
            (2, vec![2, 6, 4, 3, 1, 2, 6, 5]),
            (1, vec![6, 2, 4, 1, 1, 3, 5, 5]),
        ];
        let dice = placement(LIGHT, &rows, &l).unwrap();
        let mut b = Board::default();
        for (sq, d) in dice {
            b.put(sq, d);
        }
        assert_eq!(
            canonical(LIGHT, &b),
            "R1: 6 2 4 1 1 3 5 5 / R2: 2 6 4 3 1 2 6 5"
        );
        assert!(placed_as_rolled(&b, LIGHT, &l).is_ok());
        let wrong = vec![
            (1, vec![6, 2, 4, 1, 1, 3, 5, 6]),
            (2, vec![2, 6, 4, 3, 1, 2, 6, 5]),
        ];
        let e = placement(LIGHT, &wrong, &l).unwrap_err();
        assert!(
            e.contains("5s: 2 placed, 3 rolled, 6s: 4 placed, 3 rolled"),
            "{e}"
        );
        let e = placement(DARK, &rows, &l).unwrap_err();
        assert!(e.contains("ranks 8 and 7"), "{e}");
    }
}
