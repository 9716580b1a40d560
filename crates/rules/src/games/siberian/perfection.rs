//! Perfection (the seed's core definition): a die is perfect when its pips equal the number of dice next to it, whoever owns them; counted for every seat, and compared before and after.

use super::board::Board;
use super::hex::Hex;
use crate::games::Seat;

/// Whether the die on this hex is perfect (`false` for a vacant hex).
pub fn is_perfect(board: &Board, hex: Hex) -> bool {
    board
        .at(hex)
        .is_some_and(|d| usize::from(d.pips) == board.occupied_neighbours(hex))
}

/// The hexes of every perfect die, in board order.
pub fn perfect_hexes(board: &Board) -> Vec<Hex> {
    Hex::all().filter(|&h| is_perfect(board, h)).collect()
}

/// Each seat's number of perfect dice.
pub fn counts(board: &Board, players: usize) -> Vec<usize> {
    let mut out = vec![0; players];
    for h in perfect_hexes(board) {
        if let Some(d) = board.at(h) {
            out[d.seat] += 1;
        }
    }
    out
}

/// What one move did to perfection: the dice that became perfect and those that stopped
/// being so (a die lifted while perfect is among the latter; a die placed back on its own hex
/// perfect again is in neither).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Change {
    pub gained: Vec<(Hex, Seat)>,
    pub lost: Vec<(Hex, Seat)>,
}

impl Change {
    /// Compares two boards hex by hex.
    pub fn between(before: &Board, after: &Board) -> Change {
        let mut change = Change::default();
        for h in Hex::all() {
            match (is_perfect(before, h), is_perfect(after, h)) {
                (false, true) => change.gained.extend(after.at(h).map(|d| (h, d.seat))),
                (true, false) => change.lost.extend(before.at(h).map(|d| (h, d.seat))),
                (true, true) if before.at(h) != after.at(h) => {
                    // A different die, perfect too: the old one stopped, the new one started.
                    change.lost.extend(before.at(h).map(|d| (h, d.seat)));
                    change.gained.extend(after.at(h).map(|d| (h, d.seat)));
                }
                _ => {}
            }
        }
        change
    }

    pub fn is_empty(&self) -> bool {
        self.gained.is_empty() && self.lost.is_empty()
    }

    /// One seat's part as `+d2 +e4 -c3`, or `None` when the move changed none of its dice.
    pub fn of_seat(&self, seat: Seat) -> Option<String> {
        let mut words: Vec<String> = Vec::new();
        words.extend(
            self.gained
                .iter()
                .filter(|(_, s)| *s == seat)
                .map(|(h, _)| format!("+{h}")),
        );
        words.extend(
            self.lost
                .iter()
                .filter(|(_, s)| *s == seat)
                .map(|(h, _)| format!("-{h}")),
        );
        (!words.is_empty()).then(|| words.join(" "))
    }
}

#[cfg(test)]
mod tests {
    use super::super::board::Die;
    use super::*;

    fn board(dice: &[(&str, Seat, u8)]) -> Board {
        let mut b = Board::default();
        for &(h, seat, pips) in dice {
            b.put(Hex::parse(h).unwrap(), Die { seat, pips });
        }
        b
    }

    fn names(hexes: &[Hex]) -> Vec<String> {
        hexes.iter().map(|h| h.to_string()).collect()
    }

    /// The seed's example figure, reconstructed: five in the middle (d4) with one, two, three,
    /// four and a sixth die around it, c4 vacant. Five and three are perfect; one and two have
    /// more neighbours than their pips. Moving one to X (d2, touching only four) makes five
    /// regular and two, four and one itself perfect; three stays perfect.
    #[test]
    fn the_seeds_example_figure() {
        let before = board(&[
            ("d4", 0, 5),
            ("d5", 0, 1),
            ("e4", 1, 2),
            ("e3", 0, 3),
            ("d3", 1, 4),
            ("c3", 1, 6),
        ]);
        assert_eq!(names(&perfect_hexes(&before)), ["d4", "e3"]);
        assert_eq!(before.occupied_neighbours(Hex::parse("d5").unwrap()), 2);
        assert_eq!(before.occupied_neighbours(Hex::parse("e4").unwrap()), 3);
        let mut after = before.clone();
        let one = after.take(Hex::parse("d5").unwrap()).unwrap();
        after.put(Hex::parse("d2").unwrap(), one);
        assert_eq!(names(&perfect_hexes(&after)), ["d2", "d3", "e3", "e4"]);
        let change = Change::between(&before, &after);
        let gained: Vec<Hex> = change.gained.iter().map(|(h, _)| *h).collect();
        let lost: Vec<Hex> = change.lost.iter().map(|(h, _)| *h).collect();
        assert_eq!(names(&gained), ["d2", "d3", "e4"]);
        assert_eq!(names(&lost), ["d4"]);
        assert_eq!(counts(&before, 2), [2, 0]);
        assert_eq!(counts(&after, 2), [2, 2]);
        assert_eq!(change.of_seat(0).as_deref(), Some("+d2 -d4"));
        assert_eq!(change.of_seat(1).as_deref(), Some("+d3 +e4"));
    }

    #[test]
    fn a_lone_die_is_never_perfect_and_a_corner_holds_at_most_three() {
        for pips in 1..=6 {
            assert!(!is_perfect(
                &board(&[("d4", 0, pips)]),
                Hex::parse("d4").unwrap()
            ));
        }
        let b = board(&[("a1", 0, 3), ("a2", 1, 1), ("b1", 1, 1), ("b2", 0, 4)]);
        assert_eq!(names(&perfect_hexes(&b)), ["a1"]);
    }
}
