//! One turn played step by step on a copy of the board: costs, captures, promotions and a star win, each refusal naming its step and the points spent.

use super::notation::{Path, Step};
use super::position::{Board, Square, SEAT_NAMES, TURN_POINTS};
use super::steps::{self, Strength};
use crate::games::Seat;

/// What a legal turn did.
#[derive(Debug, Clone)]
pub struct Played {
    pub board: Board,
    /// The turn as it is logged: promotions to the number the die already shows are dropped
    /// (they change nothing), everything else as written.
    pub paths: Vec<Path>,
    pub cost: u32,
    pub capture: Option<Capture>,
    /// (square, old number, new number) of every promotion that changed a number.
    pub promotions: Vec<(Square, u8, u8)>,
    /// The star square entered: the mover has won.
    pub win: Option<Square>,
    /// Every square a path started from or stepped onto, for the board's mark.
    pub touched: Vec<Square>,
}

/// A capture made by the turn.
#[derive(Debug, Clone)]
pub struct Capture {
    pub from: Square,
    pub on: Square,
    pub taken: u8,
    pub strength: Strength,
}

impl Played {
    /// Whether the turn counts as progress for the impasse rule: a capture, or a promotion
    /// that changed a number.
    pub fn progress(&self) -> bool {
        self.capture.is_some() || !self.promotions.is_empty()
    }
}

/// Why the turn has ended before all its steps were played.
enum Ended {
    Capture(String),
    Star(String, Square),
}

/// The turn under way: the board as the steps leave it, and what has happened so far.
struct Going {
    side: Seat,
    played: Played,
    ended: Option<Ended>,
}

/// Plays `paths` for `side` on a copy of `board`. The error names the failing step as written
/// (`c4xd4`), says why in a player's words, and gives the points spent before it.
pub fn play(board: &Board, side: Seat, paths: &[Path]) -> Result<Played, String> {
    let mut going = Going {
        side,
        played: Played {
            board: board.clone(),
            paths: Vec::new(),
            cost: 0,
            capture: None,
            promotions: Vec::new(),
            win: None,
            touched: Vec::new(),
        },
        ended: None,
    };
    for path in paths {
        going.path(path)?;
    }
    Ok(going.played)
}

impl Going {
    fn path(&mut self, path: &Path) -> Result<(), String> {
        let side_name = SEAT_NAMES[self.side];
        match self.played.board.at(path.start) {
            None => {
                return Err(format!(
                    "{path}: there is no die on {} ({} of 6 points spent before it)",
                    path.start, self.played.cost
                ))
            }
            Some(d) if d.side != self.side => {
                return Err(format!(
                    "{path}: the die on {} is {}'s, and {side_name} moves only its own",
                    path.start, SEAT_NAMES[d.side]
                ))
            }
            Some(_) => {}
        }
        let mut logged = Path {
            start: path.start,
            steps: Vec::new(),
        };
        self.played.touched.push(path.start);
        let mut at = path.start;
        for step in &path.steps {
            let written = step_text(at, step);
            let kept = self.step(at, step).map_err(|why| {
                format!(
                    "{written}: {why} ({} of 6 points spent before it)",
                    self.played.cost
                )
            })?;
            logged.steps.push(kept);
            at = step.to;
        }
        self.played.paths.push(logged);
        Ok(())
    }

    /// Plays one step of the die on `from`; returns the step as it is logged.
    fn step(&mut self, from: Square, step: &Step) -> Result<Step, String> {
        if let Some(ended) = &self.ended {
            return Err(match ended {
                Ended::Capture(c) => format!("the capture {c} ended the turn"),
                Ended::Star(s, sq) => format!(
                    "{s} entered the star square {sq} and won the game at once; nothing follows it"
                ),
            });
        }
        check_adjacent(from, step.to)?;
        let die = self
            .played
            .board
            .at(from)
            .expect("the path's die stands here");
        let target = self.played.board.at(step.to);
        match (target, step.capture) {
            (Some(d), _) if d.side == self.side => {
                return Err(format!("{} is taken by your own {}", step.to, d.number))
            }
            (Some(d), false) => {
                return Err(format!(
                    "{} holds {}'s {}: a capture is written {from}x{}",
                    step.to, SEAT_NAMES[d.side], d.number, step.to
                ))
            }
            (None, true) => {
                return Err(format!(
                    "{} is empty, so there is nothing to capture (a step is written {from}-{})",
                    step.to, step.to
                ))
            }
            _ => {}
        }
        let cost = u32::from(die.number);
        if self.played.cost + cost > TURN_POINTS {
            return Err(format!(
                "the die shows {}, and a step of it costs {cost}: that makes {}, more than 6",
                die.number,
                self.played.cost + cost
            ));
        }
        if let Some(taken) = target {
            self.capture(from, step.to, taken.number)?;
        }
        let promoted = self.promotion(from, step, die.number)?;
        self.played.cost += cost;
        let mut moved = self.played.board.take(from).expect("the die moves");
        if let Some(n) = promoted {
            self.played.promotions.push((step.to, moved.number, n));
            moved.number = n;
        }
        self.played.board.put(step.to, moved);
        self.played.touched.push(step.to);
        if step.to.is_goal_of(self.side) {
            self.played.win = Some(step.to);
            self.ended = Some(Ended::Star(step_text(from, step), step.to));
        }
        Ok(Step {
            promote: promoted.map(u32::from),
            ..*step
        })
    }

    /// Checks a capture's strength against the captured number and notes it; it ends the turn.
    fn capture(&mut self, from: Square, on: Square, taken: u8) -> Result<(), String> {
        let strength = steps::strength(&self.played.board, self.side, from, on);
        if strength.total() < u32::from(taken) {
            return Err(format!(
                "{}, not enough to take a {taken}",
                strength.words()
            ));
        }
        self.ended = Some(Ended::Capture(format!("{from}x{on}")));
        self.played.capture = Some(Capture {
            from,
            on,
            taken,
            strength,
        });
        Ok(())
    }

    /// The number a written `=n` promotes to, `None` when none is written or it is the number
    /// the die already shows (a promotion that changes nothing is left out of the log).
    fn promotion(&self, from: Square, step: &Step, number: u8) -> Result<Option<u8>, String> {
        let Some(n) = step.promote else {
            return Ok(None);
        };
        let n = u8::try_from(n)
            .ok()
            .filter(|n| (1..=6).contains(n))
            .ok_or_else(|| format!("a die shows 1 to 6, so it cannot be promoted to {n}"))?;
        if !(from.row_of(self.side) == 7 && step.to.row_of(self.side) == 8) {
            let (second_last, last) = if self.side == 0 { (7, 8) } else { (2, 1) };
            return Err(format!(
                "a die is promoted only on its step from the second-last row into the last, \
                 rank {second_last} to rank {last} for {}",
                SEAT_NAMES[self.side]
            ));
        }
        Ok((n != number).then_some(n))
    }
}

/// A step as written, for messages: `e2-e3`, `d5xd6`, `c7-c8=6`.
fn step_text(from: Square, step: &Step) -> String {
    let mark = if step.capture { 'x' } else { '-' };
    let promote = step.promote.map(|n| format!("={n}")).unwrap_or_default();
    format!("{from}{mark}{}{promote}", step.to)
}

/// A step goes to an orthogonal neighbour: no diagonal steps, no jumps, no standing still.
fn check_adjacent(from: Square, to: Square) -> Result<(), String> {
    if from.touches(to) {
        return Ok(());
    }
    Err(if from == to {
        format!("a step must leave {from}")
    } else if from.file().abs_diff(to.file()) == 1 && from.rank().abs_diff(to.rank()) == 1 {
        format!("{to} is diagonal to {from}, and dice never move diagonally")
    } else {
        format!(
            "{to} is not next to {from}: each step goes to an orthogonally adjacent square \
             (write every square of the path, e.g. {from}-...-{to})"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::super::notation::{self, Written};
    use super::super::position::{Die, DARK, LIGHT};
    use super::*;

    fn sq(s: &str) -> Square {
        Square::parse(s).unwrap()
    }

    fn board(dice: &[(&str, usize, u8)]) -> Board {
        let mut b = Board::default();
        for &(s, side, number) in dice {
            b.put(sq(s), Die { side, number });
        }
        b
    }

    fn run(b: &Board, side: Seat, text: &str) -> Result<Played, String> {
        let Ok(Written::Turn(paths)) = notation::parse(text) else {
            panic!("{text}")
        };
        play(b, side, &paths)
    }

    #[test]
    fn costs_add_up_to_six_at_most() {
        let b = board(&[("e2", LIGHT, 2), ("f2", LIGHT, 3)]);
        let p = run(&b, LIGHT, "e2-e3-e4").unwrap();
        assert_eq!(p.cost, 4);
        let e = run(&b, LIGHT, "e2-e3-e4; f2-f3").unwrap_err();
        assert_eq!(
            e,
            "f2-f3: the die shows 3, and a step of it costs 3: that makes 7, more than 6 \
             (4 of 6 points spent before it)"
        );
        // The same die again, in a second path starting where it stands.
        let p = run(&b, LIGHT, "e2-e3; e3-e4-e5").unwrap();
        assert_eq!(p.cost, 6);
    }

    #[test]
    fn the_brief_s_capture_message() {
        let b = board(&[("c4", LIGHT, 2), ("d5", LIGHT, 1), ("d4", DARK, 5)]);
        let e = run(&b, LIGHT, "c4xd4").unwrap_err();
        assert_eq!(
            e,
            "c4xd4: your 2 plus the 1 on d5 makes 3, not enough to take a 5 \
             (0 of 6 points spent before it)"
        );
    }

    #[test]
    fn later_steps_cost_the_promoted_number() {
        let b = board(&[("c7", LIGHT, 5)]);
        let p = run(&b, LIGHT, "c7-c8=1-b8").unwrap();
        assert_eq!(p.cost, 6);
        assert_eq!(p.promotions, [(sq("c8"), 5, 1)]);
        assert!(run(&b, LIGHT, "c7-c8=6-b8").is_err());
    }
}
