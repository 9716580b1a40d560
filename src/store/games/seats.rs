//! Store methods for a game's seats: who sits where, their reply token, draw offers and readiness.

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

use crate::store::{parse_ts, Tx};

/// A seat and the player in it.
#[derive(Debug, Clone)]
pub struct SeatRow {
    pub seat: usize,
    pub player_id: Option<i64>,
    pub email: Option<String>,
    /// The player's name (`pbem player name`, `NAME` by mail), when they have one.
    pub name: Option<String>,
    pub token: Option<String>,
    /// Of the game's count of this seat's missed turns, those before its player took it.
    pub missed_before: u32,
    pub draw_offer: bool,
    pub vacation_until: Option<DateTime<Utc>>,
    /// The player sent START (or moved): done with salts, ready for the first roll.
    pub ready: bool,
    /// The player takes their turn reports as one daily digest (`DIGEST ON`).
    pub digest: bool,
    /// The robot plays this seat, at this level (`easy`, `normal`, `strong`): no player, no
    /// address, no mail.
    pub robot: Option<String>,
}

impl SeatRow {
    /// Nobody sits here, player or robot: the seat is open to JOIN.
    pub fn is_open(&self) -> bool {
        self.email.is_none() && self.robot.is_none()
    }
}

impl Tx<'_> {
    pub fn insert_seat(
        &self,
        game: i64,
        seat: usize,
        player: Option<i64>,
        token: Option<&str>,
    ) -> anyhow::Result<()> {
        self.exec(
            "INSERT INTO seats (game_id, seat, player_id, token) VALUES (?1, ?2, ?3, ?4)",
            params![game, seat as i64, player, token],
        )?;
        Ok(())
    }

    pub fn fill_seat(
        &self,
        game: i64,
        seat: usize,
        player: i64,
        token: &str,
    ) -> anyhow::Result<()> {
        // A new player starts clean: the old one's draw offer stays with them.
        self.exec(
            "UPDATE seats SET player_id = ?3, token = ?4, draw_offer = 0, missed_before = 0, \
             robot = NULL, overdue = 0 \
             WHERE game_id = ?1 AND seat = ?2",
            params![game, seat as i64, player, token],
        )?;
        Ok(())
    }

    /// The robot takes a seat (at `level`) for the rest of the game: no player, no secret
    /// address, nothing offered; it is ready for the dice at once.
    pub fn seat_robot(&self, game: i64, seat: usize, level: &str) -> anyhow::Result<()> {
        self.exec(
            "UPDATE seats SET player_id = NULL, token = NULL, draw_offer = 0, missed_before = 0, \
             robot = ?3, ready = 1, overdue = 0 WHERE game_id = ?1 AND seat = ?2",
            params![game, seat as i64, level],
        )?;
        Ok(())
    }

    /// Active games with a robot seat, oldest first (the robots' pass looks for their turn).
    pub fn games_with_robots(&self) -> anyhow::Result<Vec<i64>> {
        let mut st = self.conn().prepare_cached(
            "SELECT DISTINCT g.id FROM games g JOIN seats s ON s.game_id = g.id \
             WHERE g.status = 'active' AND g.quarantined IS NULL AND s.robot IS NOT NULL \
             ORDER BY g.id",
        )?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn seats(&self, game: i64) -> anyhow::Result<Vec<SeatRow>> {
        let mut st = self.conn().prepare_cached(
            "SELECT s.seat, s.player_id, p.email, s.token, s.draw_offer, \
             p.vacation_until, s.ready, COALESCE(p.digest, 0), s.missed_before, s.robot, p.name FROM seats s \
             LEFT JOIN players p ON p.id = s.player_id \
             WHERE s.game_id = ?1 ORDER BY s.seat",
        )?;
        let rows = st.query_map([game], |r| {
            let vac: Option<String> = r.get(5)?;
            Ok(SeatRow {
                seat: r.get::<_, i64>(0)? as usize,
                player_id: r.get(1)?,
                email: r.get(2)?,
                token: r.get(3)?,
                draw_offer: r.get(4)?,
                vacation_until: vac.and_then(|v| parse_ts(&v).ok()),
                ready: r.get(6)?,
                digest: r.get(7)?,
                missed_before: r.get(8)?,
                robot: r.get(9)?,
                name: r.get(10)?,
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The address on record for a seat (no game replay: for checking a sender).
    pub fn seat_email(&self, game: i64, seat: usize) -> anyhow::Result<Option<String>> {
        Ok(self
            .one(
                "SELECT p.email FROM seats s JOIN players p ON p.id = s.player_id \
                 WHERE s.game_id = ?1 AND s.seat = ?2",
                params![game, seat as i64],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// The game and seat a secret reply token belongs to.
    pub fn seat_by_token(&self, token: &str) -> anyhow::Result<Option<(i64, usize)>> {
        Ok(self
            .one(
                "SELECT game_id, seat FROM seats WHERE token = ?1",
                [token],
                |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as usize)),
            )
            .optional()?)
    }

    /// Games (and seats) where this address plays, newest first.
    pub fn seats_of(&self, email: &str) -> anyhow::Result<Vec<(i64, usize)>> {
        let mut st = self.conn().prepare_cached(
            "SELECT s.game_id, s.seat FROM seats s JOIN players p ON p.id = s.player_id \
             WHERE p.email = ?1 ORDER BY s.game_id DESC, s.seat",
        )?;
        let rows = st.query_map([email.trim().to_ascii_lowercase()], |r| {
            Ok((r.get(0)?, r.get::<_, i64>(1)? as usize))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn set_token(&self, game: i64, seat: usize, token: &str) -> anyhow::Result<()> {
        self.exec(
            "UPDATE seats SET token = ?3 WHERE game_id = ?1 AND seat = ?2",
            params![game, seat as i64, token],
        )?;
        Ok(())
    }

    /// How many of the game's missed turns of this seat came before its player took it.
    pub fn set_missed_before(&self, game: i64, seat: usize, turns: u32) -> anyhow::Result<()> {
        self.exec(
            "UPDATE seats SET missed_before = ?3 WHERE game_id = ?1 AND seat = ?2",
            params![game, seat as i64, turns],
        )?;
        Ok(())
    }

    pub fn set_draw_offer(&self, game: i64, seat: usize, on: bool) -> anyhow::Result<()> {
        self.exec(
            "UPDATE seats SET draw_offer = ?3 WHERE game_id = ?1 AND seat = ?2",
            params![game, seat as i64, on],
        )?;
        Ok(())
    }

    pub fn clear_draw_offers(&self, game: i64) -> anyhow::Result<()> {
        self.exec("UPDATE seats SET draw_offer = 0 WHERE game_id = ?1", [game])?;
        Ok(())
    }
}
