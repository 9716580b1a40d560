//! Store methods for reliability: each turn a player owed and each game they left, as it was settled, and the seat marked overdue once its deadline passed.

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

use crate::store::{ts, Tx};

/// What became of one turn a player owed, or of their seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Duty {
    /// They moved (or ordered) before the deadline, or in a game without one.
    InTime,
    /// They moved after the deadline had passed: in the grace, or once the clock stopped.
    Late,
    /// The turn went without them: the robot stood in, the turn was adjudicated without
    /// their orders, the GM played for them, or they forfeited on time.
    Missed,
    /// They left the game: ejected, replaced, or forfeited on time.
    Left,
}

impl Duty {
    fn word(self) -> &'static str {
        match self {
            Duty::InTime => "in_time",
            Duty::Late => "late",
            Duty::Missed => "missed",
            Duty::Left => "left",
        }
    }
}

/// A player's duties counted, over every game.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DutyCounts {
    pub in_time: u32,
    pub late: u32,
    pub missed: u32,
    pub left: u32,
}

impl Tx<'_> {
    /// Records what became of the turn (or the seat) of the player now in `seat`, and clears
    /// the seat's overdue mark. A robot seat or an empty one records nothing.
    pub fn record_duty(
        &self,
        game: i64,
        seat: usize,
        duty: Duty,
        now: DateTime<Utc>,
    ) -> anyhow::Result<()> {
        self.exec(
            "INSERT INTO duties (player_id, game_id, at, kind) \
             SELECT player_id, game_id, ?3, ?4 FROM seats \
             WHERE game_id = ?1 AND seat = ?2 AND player_id IS NOT NULL",
            params![game, seat as i64, ts(now), duty.word()],
        )?;
        self.set_overdue(game, seat, false)
    }

    /// Marks (or clears) a seat whose deadline passed without its move.
    pub fn set_overdue(&self, game: i64, seat: usize, on: bool) -> anyhow::Result<()> {
        self.exec(
            "UPDATE seats SET overdue = ?3 WHERE game_id = ?1 AND seat = ?2",
            params![game, seat as i64, on],
        )?;
        Ok(())
    }

    /// Whether the seat's deadline passed without its move.
    pub fn overdue(&self, game: i64, seat: usize) -> anyhow::Result<bool> {
        Ok(self
            .one(
                "SELECT overdue FROM seats WHERE game_id = ?1 AND seat = ?2",
                params![game, seat as i64],
                |r| r.get(0),
            )
            .optional()?
            .unwrap_or(false))
    }

    /// A player known to the store: their address, their name column as it is, and their
    /// duties counted; `None` for an address the store has never seen.
    pub fn player_duties(
        &self,
        email: &str,
    ) -> anyhow::Result<Option<(String, Option<String>, DutyCounts)>> {
        let email = email.trim().to_ascii_lowercase();
        let Some((id, address, name)) = self
            .one(
                "SELECT id, email, name FROM players WHERE email = ?1",
                [&email],
                |r| Ok((r.get::<_, i64>(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()?
        else {
            return Ok(None);
        };
        let mut counts = DutyCounts::default();
        let mut st = self.conn().prepare_cached(
            "SELECT kind, COUNT(*) FROM duties WHERE player_id = ?1 GROUP BY kind",
        )?;
        let rows = st.query_map([id], |r| Ok((r.get::<_, String>(0)?, r.get::<_, u32>(1)?)))?;
        for row in rows {
            let (kind, n) = row?;
            match kind.as_str() {
                "in_time" => counts.in_time = n,
                "late" => counts.late = n,
                "missed" => counts.missed = n,
                _ => counts.left = n,
            }
        }
        Ok(Some((address, name, counts)))
    }
}
