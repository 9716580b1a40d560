//! A position between moves: the board, the seat to move, each variant's dice off the board (hands, indicators, sequences, the published numbers), the seats that left; and how one complete move changes it.

use std::collections::VecDeque;

use super::board::{Board, Die};
use super::hex::Hex;
use super::variant::{Config, Variant};
use crate::games::Seat;

/// Where the moving die comes from: the hand (`H`) or the seat's own die on a hex (a lift).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Hand,
    Lift(Hex),
}

impl Source {
    /// The declaration's canonical text: `H` or the hex.
    pub fn text(self) -> String {
        match self {
            Source::Hand => "H".into(),
            Source::Lift(h) => h.to_string(),
        }
    }

    pub fn lifted(self) -> Option<Hex> {
        match self {
            Source::Hand => None,
            Source::Lift(h) => Some(h),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub board: Board,
    pub to_move: Seat,
    /// STRATEGIC: each seat's indicator, once the opening roll set them.
    pub indicators: Option<Vec<u8>>,
    /// GROSSMEISTER: each seat's public sequence, head first (it is the hand).
    pub sequences: Option<Vec<VecDeque<u8>>>,
    /// PURITY: the published numbers not yet used, next first.
    pub purity: Option<VecDeque<u8>>,
    /// Seats that left the game (resigned or forfeited): skipped, never winners.
    pub retired: Vec<bool>,
}

impl Position {
    /// The empty board, BLUE to move, before any opening roll.
    pub fn start(players: usize) -> Position {
        Position {
            board: Board::default(),
            to_move: 0,
            indicators: None,
            sequences: None,
            purity: None,
            retired: vec![false; players],
        }
    }

    pub fn players(&self) -> usize {
        self.retired.len()
    }

    /// The dice in a seat's hand: its sequence in GROSSMEISTER; otherwise what is neither on
    /// the board nor the indicator.
    pub fn hand(&self, cfg: &Config, seat: Seat) -> usize {
        if let Some(seqs) = &self.sequences {
            return seqs[seat].len();
        }
        let indicator = usize::from(self.indicators.is_some());
        cfg.dice
            .saturating_sub(self.board.dice_of(seat).count() + indicator)
    }

    /// The seats still playing, in turn order.
    pub fn playing(&self) -> impl Iterator<Item = Seat> + '_ {
        (0..self.players()).filter(|&s| !self.retired[s])
    }

    /// The next seat still playing after `seat` in turn order (`seat` itself if it is the only
    /// one), and whether the turn order wrapped round to the first seat on the way.
    pub fn next_playing(&self, seat: Seat) -> (Seat, bool) {
        let n = self.players();
        (1..=n)
            .map(|k| (seat + k) % n)
            .find(|&s| !self.retired[s])
            .map(|s| (s, s <= seat))
            .unwrap_or((seat, false))
    }

    /// The opening chance ply's values, as the variant reads them (their number is checked
    /// before): indicators, sequences (each seat's in turn), or the published numbers.
    pub fn apply_opening(&mut self, cfg: &Config, values: &[u8]) {
        match cfg.variant {
            Variant::Strategic => self.indicators = Some(values.to_vec()),
            Variant::Grossmeister => {
                let seqs = values
                    .chunks(cfg.dice)
                    .map(|c| c.iter().copied().collect())
                    .collect();
                self.sequences = Some(seqs);
            }
            Variant::Purity => self.purity = Some(values.iter().copied().collect()),
            Variant::Basic | Variant::Primes => {}
        }
    }

    /// The pips the placed die will show for this declaration and roll (the roll is `None`
    /// where nothing is rolled): the roll itself, the old indicator, the sequence's head (the
    /// rolled die when the sequence was empty), or the next published number.
    pub fn placed_pips(&self, cfg: &Config, seat: Seat, roll: Option<u8>) -> Option<u8> {
        match cfg.variant {
            Variant::Basic | Variant::Primes => roll,
            Variant::Strategic => self.indicators.as_ref().map(|i| i[seat]),
            Variant::Grossmeister => {
                let seq = &self.sequences.as_ref()?[seat];
                seq.front().copied().or(roll)
            }
            Variant::Purity => self.purity.as_ref()?.front().copied(),
        }
    }

    /// Plays one complete move (declaration, roll, placement), already checked: the lifted die
    /// leaves its hex, the variant's dice off the board change, the placed die lands.
    pub fn apply_move(
        &mut self,
        cfg: &Config,
        seat: Seat,
        source: Source,
        roll: Option<u8>,
        target: Hex,
    ) {
        let pips = self
            .placed_pips(cfg, seat, roll)
            .expect("a checked move has a die to place");
        if let Source::Lift(h) = source {
            self.board.take(h);
        }
        match cfg.variant {
            Variant::Strategic => {
                if let (Some(ind), Some(r)) = (self.indicators.as_mut(), roll) {
                    ind[seat] = r;
                }
            }
            Variant::Grossmeister => {
                if let Some(seqs) = self.sequences.as_mut() {
                    if let (Source::Lift(_), Some(r)) = (source, roll) {
                        seqs[seat].push_back(r);
                    }
                    seqs[seat].pop_front();
                }
            }
            Variant::Purity => {
                if let Some(p) = self.purity.as_mut() {
                    p.pop_front();
                }
            }
            Variant::Basic | Variant::Primes => {}
        }
        self.board.put(target, Die { seat, pips });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Options;

    fn config(pairs: &[(&str, &str)]) -> Config {
        let options: Options = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::read(&options).unwrap()
    }

    fn hex(name: &str) -> Hex {
        Hex::parse(name).unwrap()
    }

    #[test]
    fn grossmeister_lift_rolls_to_the_tail_and_places_the_head() {
        let cfg = config(&[("variant", "grossmeister")]);
        let mut pos = Position::start(2);
        let mut values = vec![5, 1, 4];
        values.extend([2; 23]);
        pos.apply_opening(&cfg, &values);
        pos.apply_move(&cfg, 0, Source::Hand, None, hex("d4"));
        assert_eq!(pos.board.at(hex("d4")).map(|d| d.pips), Some(5));
        assert_eq!(pos.hand(&cfg, 0), 12);
        pos.apply_move(&cfg, 0, Source::Lift(hex("d4")), Some(6), hex("c3"));
        assert_eq!(pos.board.at(hex("d4")), None);
        assert_eq!(pos.board.at(hex("c3")).map(|d| d.pips), Some(1));
        let seq: Vec<u8> = pos.sequences.as_ref().unwrap()[0].iter().copied().collect();
        assert_eq!(seq.first(), Some(&4));
        assert_eq!(seq.last(), Some(&6));
        assert_eq!(pos.hand(&cfg, 0), 12);
    }

    #[test]
    fn grossmeister_lift_with_an_empty_sequence_places_the_rolled_die() {
        let cfg = config(&[("variant", "grossmeister")]);
        let mut pos = Position::start(2);
        pos.sequences = Some(vec![VecDeque::new(), VecDeque::from(vec![3])]);
        pos.board.put(hex("a1"), Die { seat: 0, pips: 2 });
        pos.apply_move(&cfg, 0, Source::Lift(hex("a1")), Some(6), hex("a1"));
        assert_eq!(pos.board.at(hex("a1")).map(|d| d.pips), Some(6));
        assert_eq!(pos.hand(&cfg, 0), 0);
    }

    #[test]
    fn strategic_places_the_old_indicator_and_keeps_the_roll() {
        let cfg = config(&[("variant", "strategic")]);
        let mut pos = Position::start(2);
        assert_eq!(pos.hand(&cfg, 0), 13);
        pos.apply_opening(&cfg, &[2, 6]);
        assert_eq!(pos.hand(&cfg, 0), 12);
        pos.apply_move(&cfg, 0, Source::Hand, Some(4), hex("c4"));
        assert_eq!(pos.board.at(hex("c4")).map(|d| d.pips), Some(2));
        assert_eq!(pos.indicators, Some(vec![4, 6]));
        assert_eq!(pos.hand(&cfg, 0), 11);
        pos.apply_move(&cfg, 0, Source::Lift(hex("c4")), Some(1), hex("d4"));
        assert_eq!(pos.board.at(hex("c4")), None);
        assert_eq!(pos.board.at(hex("d4")).map(|d| d.pips), Some(4));
        assert_eq!(pos.indicators, Some(vec![1, 6]));
        assert_eq!(pos.hand(&cfg, 0), 11);
    }

    #[test]
    fn turn_order_skips_seats_that_left() {
        let mut pos = Position::start(3);
        assert_eq!(pos.next_playing(0), (1, false));
        assert_eq!(pos.next_playing(2), (0, true));
        pos.retired[1] = true;
        assert_eq!(pos.next_playing(0), (2, false));
        pos.retired[0] = true;
        assert_eq!(pos.next_playing(2), (2, true));
    }
}
