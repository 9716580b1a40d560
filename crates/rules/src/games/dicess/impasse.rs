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

    /// Two lines for the board: the count of quiet rounds, and the round whose check ends the
    /// game if nothing changes (no capture or promotion, the scores `now` kept, `to_move`
    /// moving next), with the scores it compares against.
    pub fn status(&self, to_move: Seat, now: [u32; 2]) -> Vec<String> {
        let first = format!(
            "Impasse: {} of {SPAN} rounds without a capture or promotion.",
            self.quiet_rounds()
        );
        let (round, mark) = self.forecast(to_move, now);
        let second = if round - SPAN <= self.completed() {
            let [l, d] = mark;
            format!(
                "It comes after round {round} unless a die is captured or promoted, or a \
                 score rises above its mark ({} {l}, {} {d}).",
                SEAT_NAMES[LIGHT], SEAT_NAMES[DARK]
            )
        } else {
            // The mark is a round still to be played: only "as things stand" can be said.
            format!(
                "If no die is captured or promoted and the scores stay as they are, it \
                 comes after round {round}."
            )
        };
        vec![first, second]
    }

    /// The engine's own count run forward: quiet turns that keep the scores at `now`, from
    /// `to_move` on, until a check ends the game. Its round, and the scores of five rounds
    /// before it (the mark a score must rise above to prevent it).
    fn forecast(&self, to_move: Seat, now: [u32; 2]) -> (u32, [u32; 2]) {
        let mut ahead = self.clone();
        let mut mover = to_move;
        // Within six rounds the mark is a round played with the scores `now`: the check holds.
        for _ in 0..4 * (SPAN + 2) {
            if let Some(i) = ahead.turn(mover, false, now) {
                return (i.round, ahead.scores[(i.round - SPAN) as usize]);
            }
            mover = if mover == LIGHT { DARK } else { LIGHT };
        }
        unreachable!("an impasse check holds within six quiet rounds")
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
        let s = w.status(LIGHT, [184, 180]);
        assert_eq!(
            s[0],
            "Impasse: 0 of 5 rounds without a capture or promotion."
        );
        assert!(s[1].contains("after round 5") && s[1].contains("(LIGHT 184, DARK 180)"));
        let mut w = Watch::start([184, 184]);
        w.turn(LIGHT, true, [184, 184]);
        assert!(w.status(DARK, [184, 184])[1].contains("stay as they are, it comes after round 6"));
    }

    /// Issue 27, point 14: after a score rises above the mark of the round forecast, the
    /// forecast moves on with the engine's own count, round by round; it never names a check
    /// that cannot end the game.
    #[test]
    fn a_score_rise_moves_the_forecast_as_the_engine_counts() {
        let mut w = Watch::start([184, 184]);
        quiet(&mut w, 1, [184, 184]);
        // Round 2: a capture; the first check that can end the game is after round 7.
        w.turn(LIGHT, true, [184, 180]);
        w.turn(DARK, false, [184, 180]);
        assert!(w.status(LIGHT, [184, 180])[1].contains("after round 7"));
        // Round 3: LIGHT advances above round 2's 184; round 7 can no longer end it.
        w.turn(LIGHT, false, [185, 180]);
        let said = w.status(DARK, [185, 180]);
        assert!(said[1].contains("after round 8"), "{said:?}");
        w.turn(DARK, false, [185, 180]);
        for _ in 4..=7 {
            let said = w.status(LIGHT, [185, 180]);
            assert!(said[1].contains("after round 8"), "{said:?}");
            assert!(said[1].contains("(LIGHT 185, DARK 180)"), "{said:?}");
            assert!(quiet(&mut w, 1, [185, 180]).is_none());
        }
        // And the engine agrees: round 8 ends it.
        assert_eq!(quiet(&mut w, 1, [185, 180]).map(|i| i.round), Some(8));
    }
}
