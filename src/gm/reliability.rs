//! A player's reliability, as the Diplomacy judges' dedication: turns in time, late and missed, games left; the score in percent, recorded as each turn settles, and `min_reliability` at JOIN.

use std::collections::BTreeMap;

use chrono::{DateTime, Utc};

use crate::gamelog::Loaded;
use crate::store::{Duty, DutyCounts, Tx};

/// How many turns owed a game left weighs: leaving strands the other players for the rest of
/// the game (or until the GM finds someone), which one late or missed turn does not.
pub const LEFT_WEIGHT: u32 = 5;

/// A player's record of duties.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reliability(pub DutyCounts);

impl Reliability {
    /// The score in percent, rounded down:
    ///
    /// `100 × in_time / (in_time + late + missed + LEFT_WEIGHT × left)`
    ///
    /// that is, the turns made in time over all turns owed, each game left counting as
    /// `LEFT_WEIGHT` turns owed and not made. A late move is owed and not in time: it counts
    /// for nothing, as a missed one. `None` when the player has no record yet.
    pub fn percent(&self) -> Option<u32> {
        // In u64: counts of millions of turns would overflow u32 (100 × in_time).
        let c = self.0;
        let [in_time, late, missed, left] = [c.in_time, c.late, c.missed, c.left].map(u64::from);
        let owed = in_time + late + missed + u64::from(LEFT_WEIGHT) * left;
        (owed > 0).then(|| (100 * in_time / owed) as u32)
    }

    /// The record in words: "12 turns in time, 1 late, 2 missed, 0 games left: 80%".
    pub fn words(&self) -> String {
        let c = self.0;
        let turns = if c.in_time == 1 { "turn" } else { "turns" };
        let games = if c.left == 1 { "game" } else { "games" };
        let score = match self.percent() {
            Some(p) => format!("{p}%"),
            None => "no record yet".into(),
        };
        format!(
            "{} {turns} in time, {} late, {} missed, {} {games} left: {score}",
            c.in_time, c.late, c.missed, c.left
        )
    }
}

/// A player's address as the store has it, their name column as it is, and their record;
/// `None` for an address the store has never seen.
pub fn of(tx: &Tx, email: &str) -> anyhow::Result<Option<(String, Option<String>, Reliability)>> {
    Ok(tx
        .player_duties(email)?
        .map(|(address, name, counts)| (address, name, Reliability(counts))))
}

/// Whether a move the seat makes now is late: its deadline passed without it (the grace
/// was granted, or the clock stopped for the GM: the seat is marked overdue), or the deadline
/// is past and the clock has not yet acted on it.
pub(super) fn late_now(
    tx: &Tx,
    g: &Loaded,
    seat: usize,
    now: DateTime<Utc>,
) -> anyhow::Result<bool> {
    let past = super::clock::deadline(g).is_some_and(|d| d < now);
    Ok(past || g.row.graced || tx.overdue(g.row.id, seat)?)
}

/// The seat's player made their move: in time, or late (`late`, judged before the move
/// moved the clock on).
pub(super) fn moved(
    tx: &Tx,
    g: &Loaded,
    seat: usize,
    late: bool,
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    let duty = if late { Duty::Late } else { Duty::InTime };
    tx.record_duty(g.row.id, seat, duty, now)
}

/// The seats whose deadline passed without their move or orders (a grace granted, or the
/// clock stopped for the GM): what they send from now on is late.
pub(super) fn overdue(tx: &Tx, g: &Loaded, seats: &[usize]) -> anyhow::Result<()> {
    seats
        .iter()
        .try_for_each(|&s| tx.set_overdue(g.row.id, s, true))
}

/// The turn of orders of `seats` settled: a seat that ordered itself did so in time or late
/// (overdue), a seat the robot ordered for (`stood_in`) or that sent nothing missed it.
pub(super) fn orders_settled(
    tx: &Tx,
    g: &Loaded,
    seats: &[usize],
    ordered: &BTreeMap<usize, Vec<String>>,
    stood_in: &[usize],
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    for &s in seats {
        let duty = match (
            ordered.contains_key(&s) && !stood_in.contains(&s),
            tx.overdue(g.row.id, s)?,
        ) {
            (true, false) => Duty::InTime,
            (true, true) => Duty::Late,
            (false, _) => Duty::Missed,
        };
        tx.record_duty(g.row.id, s, duty, now)?;
    }
    Ok(())
}

/// The seat's player missed the turn (the robot stood in, the GM played for them).
pub(super) fn missed(tx: &Tx, g: &Loaded, seat: usize, now: DateTime<Utc>) -> anyhow::Result<()> {
    tx.record_duty(g.row.id, seat, Duty::Missed, now)
}

/// The seat's player left the game (ejected, replaced, forfeited on time).
pub(super) fn left(tx: &Tx, g: &Loaded, seat: usize, now: DateTime<Utc>) -> anyhow::Result<()> {
    tx.record_duty(g.row.id, seat, Duty::Left, now)
}

/// Why `email` may not join a game asking `min_reliability` of `min` percent: their figure is
/// below it. A player with no record yet is welcome (everyone starts somewhere).
pub(super) fn below(tx: &Tx, email: &str, min: u32) -> anyhow::Result<Option<u32>> {
    let has = of(tx, email)?.and_then(|(_, _, r)| r.percent());
    Ok(has.filter(|&p| p < min))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(in_time: u32, late: u32, missed: u32, left: u32) -> Option<u32> {
        Reliability(DutyCounts {
            in_time,
            late,
            missed,
            left,
        })
        .percent()
    }

    #[test]
    fn the_score_is_turns_in_time_over_turns_owed_a_game_left_weighing_more() {
        assert_eq!(score(0, 0, 0, 0), None);
        assert_eq!(score(10, 0, 0, 0), Some(100));
        assert_eq!(score(8, 1, 1, 0), Some(80));
        assert_eq!(score(10, 0, 0, 1), Some(66));
        assert!(score(9, 0, 1, 0) > score(10, 0, 0, 1));
    }

    #[test]
    fn the_score_holds_for_a_player_with_only_games_left_and_for_huge_counts() {
        assert_eq!(score(0, 0, 0, 3), Some(0));
        assert_eq!(score(0, 2, 0, 0), Some(0));
        assert_eq!(score(u32::MAX, 0, 0, 0), Some(100));
        assert_eq!(score(u32::MAX, u32::MAX, u32::MAX, u32::MAX), Some(12));
    }
}
