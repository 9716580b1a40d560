//! The dice on the board: which seat's die, showing how many pips, stands on each hex.

use super::hex::{Hex, HEXES};
use crate::games::Seat;

/// The seats, in turn order; a two-player game has the first two.
pub const SEATS: [&str; 3] = ["BLUE", "RED", "GREEN"];

/// One die on the board.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Die {
    pub seat: Seat,
    pub pips: u8,
}

impl Die {
    /// `RED's 5`, as a refusal names a die.
    pub fn described(self) -> String {
        format!("{}'s {}", SEATS[self.seat], self.pips)
    }
}

/// Every hex, vacant or holding one die (on the heap: a game is moved around whole).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Board {
    cells: Vec<Option<Die>>,
}

impl Default for Board {
    fn default() -> Self {
        Board {
            cells: vec![None; HEXES],
        }
    }
}

impl Board {
    pub fn at(&self, hex: Hex) -> Option<Die> {
        self.cells[hex.index()]
    }

    pub fn put(&mut self, hex: Hex, die: Die) {
        self.cells[hex.index()] = Some(die);
    }

    pub fn take(&mut self, hex: Hex) -> Option<Die> {
        self.cells[hex.index()].take()
    }

    /// Every die with its hex, in board order.
    pub fn dice(&self) -> impl Iterator<Item = (Hex, Die)> + '_ {
        Hex::all().filter_map(|h| self.at(h).map(|d| (h, d)))
    }

    /// One seat's dice with their hexes, in board order.
    pub fn dice_of(&self, seat: Seat) -> impl Iterator<Item = (Hex, Die)> + '_ {
        self.dice().filter(move |(_, d)| d.seat == seat)
    }

    /// The vacant hexes, in board order.
    pub fn vacant(&self) -> impl Iterator<Item = Hex> + '_ {
        Hex::all().filter(|&h| self.at(h).is_none())
    }

    /// How many dice stand next to this hex, whoever owns them.
    pub fn occupied_neighbours(&self, hex: Hex) -> usize {
        hex.neighbours()
            .iter()
            .filter(|&&n| self.at(n).is_some())
            .count()
    }
}
