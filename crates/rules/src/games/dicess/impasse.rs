//! The impasse rule: rounds, the scores at each round's end, the last capture or promotion, and the check after every round from round 5.

use super::position::{DARK, LIGHT, SEAT_NAMES};
use crate::games::Seat;

/// How many rounds the rule looks back.
pub const SPAN: u32 = 5;

/// What the impasse rule needs of the game so far. A round is LIGHT's turn and DARK's turn and
/// ends after DARK's; a game from a `[Position]` with DARK to move has a round 1 of that one
/// turn. Round 0 is the start: the end of the set-up, or the tag (contract 2.4).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Watch {
    /// Both scores (LIGHT's first) at the end of each round, from round 0.
    scores: Vec<[u32; 2]>,
    /// The last round with a capture or a promotion that changed a number.
    last_progress: Option<u32>,
}

/// A game ended by impasse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Impasse {
    pub round: u32,
    pub scores: [u32; 2],
    pub winner: Seat,
}

impl Impasse {
    /// The reason, as the outcome and the report give it.
    pub fn reason(&self) -> String {
        let [l, d] = self.scores;
        if l == d {
            format!(
                "impasse after round {}, the scores tied at {l} (a tie goes to DARK)",
                self.round
            )
        } else {
            format!("impasse after round {}, LIGHT {l} to DARK {d}", self.round)
        }
    }
}

impl Watch {
    /// The watch at round 0, with the scores the game starts from.
    pub fn start(scores: [u32; 2]) -> Watch {
        Watch {
            scores: vec![scores],
            last_progress: None,
        }
    }

    /// Rounds completed so far.
    pub fn completed(&self) -> u32 {
        u32::try_from(self.scores.len() - 1).unwrap_or(u32::MAX)
    }

    /// The round the next turn belongs to.
    pub fn round(&self) -> u32 {
        self.completed() + 1
    }

    /// Notes one turn (a pass is a turn too) with the scores after it. When DARK's turn closes
    /// a round from round 5 on, checks the rule and returns the impasse if it holds: no capture
    /// or number-changing promotion in the last 5 rounds, and neither score above what it was
    /// 5 rounds ago. The higher score wins; a tie goes to DARK.
    pub fn turn(&mut self, mover: Seat, progress: bool, scores: [u32; 2]) -> Option<Impasse> {
        let round = self.round();
        if progress {
            self.last_progress = Some(round);
        }
        if mover != DARK {
            return None;
        }
        self.scores.push(scores);
        if round < SPAN || self.last_progress.is_some_and(|p| p > round - SPAN) {
            return None;
        }
        let before = self.scores[(round - SPAN) as usize];
        if scores[LIGHT] > before[LIGHT] || scores[DARK] > before[DARK] {
            return None;
        }
        let winner = if scores[LIGHT] > scores[DARK] {
            LIGHT
        } else {
            DARK
        };
        Some(Impasse {
            round,
            scores,
            winner,
        })
    }

    /// Rounds without a capture or promotion, up to 5, counting the round under way only once
    /// it has had one (then the count is 0).
    pub fn quiet_rounds(&self) -> u32 {
        let done = self.completed();
        match self.last_progress {
            Some(p) if p > done => 0,
            Some(p) => (done - p).min(SPAN),
            None => done.min(SPAN),
        }
    }

    /// Two lines for the board: the count of quiet rounds, and when the next check can end
    /// the game and which scores would have to be passed to prevent it.
    pub fn status(&self) -> Vec<String> {
        let done = self.completed();
        let first = format!(
            "Impasse: {} of {SPAN} rounds without a capture or promotion.",
            self.quiet_rounds()
        );
        let next = SPAN
            .max(done + 1)
            .max(self.last_progress.map_or(0, |p| p + SPAN));
        let second = match self.scores.get((next - SPAN) as usize) {
            Some([l, d]) => format!(
                "It comes after round {next} unless a die is captured or promoted, or a \
                 score rises above its mark ({} {l}, {} {d}).",
                SEAT_NAMES[LIGHT], SEAT_NAMES[DARK]
            ),
            None => format!("No impasse can come before the end of round {next}."),
        };
        vec![first, second]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plays `rounds` quiet rounds with the scores unchanged.
    fn quiet(w: &mut Watch, rounds: u32, scores: [u32; 2]) -> Option<Impasse> {
        let mut last = None;
        for _ in 0..rounds {
            assert!(last.is_none(), "an impasse came early");
            w.turn(LIGHT, false, scores);
            last = w.turn(DARK, false, scores);
        }
        last
    }

    #[test]
    fn first_check_is_after_round_five() {
        let mut w = Watch::start([184, 184]);
        assert!(quiet(&mut w, 4, [184, 184]).is_none());
        assert_eq!(w.quiet_rounds(), 4);
        let i = quiet(&mut w, 1, [184, 184]).expect("impasse after round 5");
        assert_eq!(i.round, 5);
        assert_eq!(i.winner, DARK);
        assert!(i.reason().contains("tied at 184"));
    }

    #[test]
    fn progress_postpones_it_five_rounds() {
        let mut w = Watch::start([184, 184]);
        w.turn(LIGHT, true, [184, 180]);
        assert_eq!(w.quiet_rounds(), 0);
        w.turn(DARK, false, [184, 180]);
        assert!(quiet(&mut w, 4, [184, 180]).is_none());
        let i = quiet(&mut w, 1, [184, 180]).expect("impasse after round 6");
        assert_eq!(i.round, 6);
        assert_eq!(i.winner, LIGHT);
    }

    #[test]
    fn a_score_above_its_mark_prevents_it() {
        let mut w = Watch::start([184, 184]);
        w.turn(LIGHT, false, [185, 184]);
        w.turn(DARK, false, [185, 184]);
        assert!(
            quiet(&mut w, 4, [185, 184]).is_none(),
            "185 > 184 at round 5"
        );
        // Round 6 compares with round 1's 185: no longer above it.
        assert_eq!(quiet(&mut w, 1, [185, 184]).map(|i| i.round), Some(6));
    }

    #[test]
    fn a_round_from_a_tag_with_dark_to_move_is_dark_s_turn_alone() {
        let mut w = Watch::start([30, 30]);
        w.turn(DARK, false, [30, 30]);
        assert_eq!(w.completed(), 1);
        assert_eq!(quiet(&mut w, 4, [30, 30]).map(|i| i.round), Some(5));
    }

    #[test]
    fn status_names_the_next_check() {
        let w = Watch::start([184, 180]);
        let s = w.status();
        assert_eq!(
            s[0],
            "Impasse: 0 of 5 rounds without a capture or promotion."
        );
        assert!(s[1].contains("after round 5") && s[1].contains("(LIGHT 184, DARK 180)"));
        let mut w = Watch::start([184, 184]);
        w.turn(LIGHT, true, [184, 184]);
        assert!(w.status()[1].contains("before the end of round 6"));
    }
}
