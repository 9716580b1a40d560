//! Who is still playing, and the plies every game shares: a seat's resignation and the GM's agreed draw, ruled once for all games.
//!
//! A game's own rules never read `resign`, `timeout` or `draw`: `AnyGame` reads them first
//! (`read`) and rules on them here, the same way in every game, two players or more. A
//! resigning seat leaves the game (`Rules::retire` lets the game drop it from the turn order);
//! what that ends depends on the game's `Leaving` rule. A seat that runs out of time under a
//! forfeit clock (`SEAT:timeout`, the GM's ply) leaves the same way, but is said to have run
//! out of time. An agreed draw is shared by every seat still playing.

use super::{Actor, Outcome, PlyError, Seat};

/// What a seat's leaving does to the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leaving {
    /// The seat is out; its pieces stay on the board, it can no longer win, and when one seat
    /// is left that seat wins (two players: the other seat wins at once).
    LastSeatWins,
    /// The seat's units hold for the rest of the game, which goes on for the others; when
    /// every seat has left, the game is a draw among all (Dip-Tac-Toe).
    UnitsHold,
}

/// A ply that `AnyGame` rules on itself instead of the game.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shared {
    Resign(Seat),
    /// The seat ran out of time and forfeits: it leaves as by resigning.
    Timeout(Seat),
    Draw,
}

/// Why a seat leaves the game: what its players, the record and the outcome say.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    Resigned,
    /// Its move time ran out under a forfeit clock.
    OutOfTime,
}

/// Which shared ply ended a game (a game's own rules end it otherwise): what the statistics
/// count it as, typed rather than read from the outcome's reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ended {
    /// The last seat but one left (or, where units hold, the last seat): why it left.
    Left(Why),
    /// Every seat still playing agreed a draw.
    Agreed,
    /// The GM declared the game drawn (a replay of its record reads it as agreed).
    Declared,
}

/// Reads a shared ply: `resign` (or `resigns`) by a seat, `SEAT:resign` by that seat or the
/// GM, `SEAT:timeout` by the GM (its clock), `draw` by the GM. Anything else is the game's
/// (`None`); a shared word from an actor who may not play it is refused here.
pub fn read(
    actor: Actor,
    text: &str,
    seat_by_name: impl Fn(&str) -> Option<Seat>,
) -> Option<Result<Shared, PlyError>> {
    let text = text.trim();
    // Exactly `SEAT:resign` or `SEAT:timeout`, nothing around it: no other ply (a Dip-Tac-Toe
    // turn, whatever its players wrote) can read as one.
    let named = |word: &str| {
        text.split_once(':')
            .filter(|(name, w)| w.eq_ignore_ascii_case(word) && !name.contains(' '))
            .and_then(|(name, _)| seat_by_name(name))
    };
    if let Some(seat) = named("timeout") {
        // Only the clock runs a seat out of time: a player's mail cannot say it did.
        return Some(match actor {
            Actor::Gm => Ok(Shared::Timeout(seat)),
            _ => Err(PlyError::Illegal(
                "only the GM's clock rules that a player ran out of time (to leave the game, \
                 resign)"
                    .into(),
            )),
        });
    }
    let named = named("resign");
    let bare_resign = text.eq_ignore_ascii_case("resign") || text.eq_ignore_ascii_case("resigns");
    match actor {
        Actor::Seat(seat) if bare_resign => Some(Ok(Shared::Resign(seat))),
        Actor::Seat(seat) => match named {
            Some(s) if s == seat => Some(Ok(Shared::Resign(s))),
            Some(_) => Some(Err(PlyError::NotYourTurn(
                "a player can resign only for themself".into(),
            ))),
            None if text.eq_ignore_ascii_case("draw") => Some(Err(PlyError::Illegal(
                "a draw is agreed by every player (offer one with DRAW); it is not a move".into(),
            ))),
            None => None,
        },
        Actor::Gm if text.eq_ignore_ascii_case("draw") => Some(Ok(Shared::Draw)),
        Actor::Gm => named.map(|s| Ok(Shared::Resign(s))),
        Actor::Chance => None,
    }
}

/// The seats that have left, and how the game ended if a shared ply ended it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Standing {
    seats: usize,
    left: Vec<Seat>,
    ended: Option<(Outcome, Ended)>,
    /// What the last ply did, when the last ply was a shared one.
    report: Option<String>,
}

impl Standing {
    /// A game of `seats` seats where these have already left (a `[Position]` may say so).
    pub fn new(seats: usize, left: Vec<Seat>) -> Standing {
        Standing {
            seats,
            left,
            ended: None,
            report: None,
        }
    }

    /// The seats still playing, in seat order.
    pub fn playing(&self) -> Vec<Seat> {
        (0..self.seats).filter(|s| !self.left.contains(s)).collect()
    }

    /// How a shared ply ended the game, if one did.
    pub fn ended(&self) -> Option<&Outcome> {
        self.ended.as_ref().map(|(o, _)| o)
    }

    /// Which shared ply ended the game, if one did.
    pub fn ended_by(&self) -> Option<Ended> {
        self.ended.as_ref().map(|(_, by)| *by)
    }

    /// What the last ply did, when it was a shared one.
    pub fn report(&self) -> Option<&str> {
        self.report.as_deref()
    }

    /// What the game itself says of the last shared ply, told after it.
    pub fn add_to_report(&mut self, more: &str) {
        let report = self.report.get_or_insert_with(String::new);
        if !report.is_empty() {
            if !report.trim_end().ends_with(['.', '!']) {
                report.push('.');
            }
            report.push(' ');
        }
        report.push_str(more);
    }

    /// The next ply is the game's own: the report of the last shared one no longer applies.
    pub fn game_played(&mut self) {
        self.report = None;
    }

    /// The seat leaves under `rule`, for `why`; `names` are the seat names. Returns the
    /// canonical ply: `resign`, or `SEAT:resign` where the game's plies name the seat, and
    /// always `SEAT:timeout` for a seat out of time (the GM's ply).
    pub fn leave(
        &mut self,
        seat: Seat,
        why: Why,
        rule: Leaving,
        names: &[&str],
        named_ply: bool,
    ) -> Result<String, PlyError> {
        let name = names.get(seat).copied().unwrap_or("?");
        if seat >= self.seats {
            return Err(PlyError::NotYourTurn(format!(
                "no seat {name} in this game"
            )));
        }
        if self.left.contains(&seat) {
            return Err(PlyError::Illegal(format!(
                "{name} has already left the game"
            )));
        }
        self.left.push(seat);
        let playing = self.playing();
        let others = |seats: &[Seat]| -> String {
            let n: Vec<&str> = seats.iter().map(|s| names[*s]).collect();
            n.join(", ")
        };
        // What the seat did, as the report says it ("B resigns", "B ran out of time").
        let did = match why {
            Why::Resigned => format!("{name} resigns"),
            Why::OutOfTime => format!("{name} ran out of time"),
        };
        self.report = Some(match (rule, playing.as_slice()) {
            (Leaving::LastSeatWins, [winner]) => {
                let reason = match (why, self.seats) {
                    (Why::Resigned, 2) => format!("{name} resigned"),
                    (Why::OutOfTime, 2) => format!("{name} ran out of time"),
                    (Why::Resigned, _) => "every other player resigned".to_string(),
                    (Why::OutOfTime, _) => {
                        format!("every other player has left, {name} last by running out of time")
                    }
                };
                let won = Outcome::Win {
                    seat: *winner,
                    reason,
                };
                self.ended = Some((won, Ended::Left(why)));
                format!("{did}; {} wins", names[*winner])
            }
            (Leaving::LastSeatWins, rest) => {
                format!("{did} and leaves the game; {} play on", others(rest))
            }
            (Leaving::UnitsHold, rest) => {
                if rest.is_empty() {
                    let reason = match why {
                        Why::Resigned => "every player resigned",
                        Why::OutOfTime => "every player has left the game",
                    };
                    let drawn = Outcome::Draw {
                        seats: (0..self.seats).collect(),
                        reason: reason.into(),
                    };
                    self.ended = Some((drawn, Ended::Left(why)));
                }
                format!("{did}; its units hold for the rest of the game.\n")
            }
        });
        Ok(match (why, named_ply) {
            (Why::OutOfTime, _) => format!("{name}:timeout"),
            (Why::Resigned, true) => format!("{name}:resign"),
            (Why::Resigned, false) => "resign".into(),
        })
    }

    /// Every seat still playing agreed a draw; they share it.
    pub fn agree_draw(&mut self) -> String {
        self.draw(
            "agreed by all players",
            "The players agreed a draw: the game is over.",
            Ended::Agreed,
        )
    }

    /// The GM declares the game drawn (an abandoned game): the same ply as an agreed draw
    /// (a record cannot tell them apart, and replays it as agreed), told as the GM's.
    pub fn declare_draw(&mut self) -> String {
        self.draw(
            "declared by the GM",
            "The GM declared the game drawn.",
            Ended::Declared,
        )
    }

    fn draw(&mut self, reason: &str, report: &str, by: Ended) -> String {
        let drawn = Outcome::Draw {
            seats: self.playing(),
            reason: reason.into(),
        };
        self.ended = Some((drawn, by));
        self.report = Some(report.into());
        "draw".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NAMES: &[&str] = &["BLUE", "RED", "GREEN"];

    fn by_name(n: &str) -> Option<Seat> {
        NAMES.iter().position(|s| s.eq_ignore_ascii_case(n))
    }

    #[test]
    fn shared_plies_are_only_their_exact_forms() {
        assert_eq!(
            read(Actor::Seat(1), " Resign ", by_name),
            Some(Ok(Shared::Resign(1)))
        );
        assert_eq!(
            read(Actor::Gm, "red:resign", by_name),
            Some(Ok(Shared::Resign(1)))
        );
        assert_eq!(read(Actor::Gm, "DRAW", by_name), Some(Ok(Shared::Draw)));
        assert!(matches!(
            read(Actor::Seat(0), "red:resign", by_name),
            Some(Err(_))
        ));
        assert!(matches!(
            read(Actor::Seat(0), "draw", by_name),
            Some(Err(_))
        ));
        assert_eq!(read(Actor::Seat(0), "c3", by_name), None);
        assert_eq!(read(Actor::Gm, "resign", by_name), None);
        assert_eq!(read(Actor::Chance, "resign", by_name), None);
        assert_eq!(read(Actor::Gm, "thanks:resign", by_name), None);
    }

    #[test]
    fn only_the_gm_runs_a_seat_out_of_time() {
        assert_eq!(
            read(Actor::Gm, "red:TIMEOUT", by_name),
            Some(Ok(Shared::Timeout(1)))
        );
        for actor in [Actor::Seat(1), Actor::Seat(0), Actor::Chance] {
            assert!(matches!(read(actor, "RED:timeout", by_name), Some(Err(_))));
        }
        assert_eq!(read(Actor::Gm, "timeout", by_name), None);
        assert_eq!(read(Actor::Gm, "thanks:timeout", by_name), None);
        assert_eq!(read(Actor::Gm, "RED:timeout;BLUE:", by_name), None);
    }

    #[test]
    fn a_seat_out_of_time_leaves_and_is_said_to_have_run_out_of_time() {
        let mut s = Standing::new(2, vec![]);
        assert_eq!(
            s.leave(1, Why::OutOfTime, Leaving::LastSeatWins, NAMES, false),
            Ok("RED:timeout".into())
        );
        assert_eq!(s.report(), Some("RED ran out of time; BLUE wins"));
        assert_eq!(
            s.ended(),
            Some(&Outcome::Win {
                seat: 0,
                reason: "RED ran out of time".into()
            })
        );
        let mut s = Standing::new(3, vec![]);
        s.leave(2, Why::OutOfTime, Leaving::LastSeatWins, NAMES, false)
            .unwrap();
        assert_eq!(
            s.report(),
            Some("GREEN ran out of time and leaves the game; BLUE, RED play on")
        );
        let mut s = Standing::new(2, vec![]);
        s.leave(0, Why::OutOfTime, Leaving::UnitsHold, NAMES, true)
            .unwrap();
        assert!(s
            .report()
            .unwrap()
            .starts_with("BLUE ran out of time; its units hold"));
    }

    #[test]
    fn with_three_players_the_last_seat_left_wins() {
        let mut s = Standing::new(3, vec![]);
        assert_eq!(
            s.leave(1, Why::Resigned, Leaving::LastSeatWins, NAMES, false),
            Ok("resign".into())
        );
        assert_eq!(s.ended(), None);
        assert_eq!(s.playing(), vec![0, 2]);
        assert!(s
            .leave(1, Why::Resigned, Leaving::LastSeatWins, NAMES, false)
            .is_err());
        s.leave(0, Why::Resigned, Leaving::LastSeatWins, NAMES, false)
            .unwrap();
        assert!(matches!(s.ended(), Some(Outcome::Win { seat: 2, .. })));
        assert_eq!(s.ended_by(), Some(Ended::Left(Why::Resigned)));
    }

    #[test]
    fn a_draw_is_shared_by_the_seats_still_playing() {
        let mut s = Standing::new(3, vec![2]);
        s.agree_draw();
        assert!(matches!(s.ended(), Some(Outcome::Draw { seats, .. }) if seats == &vec![0, 1]));
        assert_eq!(s.ended_by(), Some(Ended::Agreed));
        let mut s = Standing::new(2, vec![]);
        s.declare_draw();
        assert_eq!(s.ended_by(), Some(Ended::Declared));
    }

    #[test]
    fn when_units_hold_the_game_ends_only_when_all_have_left() {
        let mut s = Standing::new(2, vec![]);
        assert_eq!(
            s.leave(0, Why::Resigned, Leaving::UnitsHold, NAMES, true),
            Ok("BLUE:resign".into())
        );
        assert_eq!(s.ended(), None);
        s.leave(1, Why::Resigned, Leaving::UnitsHold, NAMES, true)
            .unwrap();
        assert!(matches!(s.ended(), Some(Outcome::Draw { .. })));
    }
}
