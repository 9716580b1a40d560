//! Store methods for games: a game's row, its status, clocks, options and salts (players, seats and the game's log in `games/`).

mod archive_stamp;
mod duties;
mod facts;
mod moves;
mod players;
mod rating_memo;
mod seats;

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension, Row};

use super::{parse_ts, ts, GameStatus, Tx};

pub use duties::{Duty, DutyCounts};
pub use moves::{MoveRow, PlannedOutcome};
pub use players::DigestDue;
pub use seats::SeatRow;

/// A game as stored (its position is rebuilt from `moves`, never stored).
#[derive(Debug, Clone)]
pub struct GameRow {
    pub id: i64,
    pub kind: String,
    /// Options as a JSON object of strings.
    pub options: String,
    pub status: GameStatus,
    pub event: Option<String>,
    pub start_position: Option<String>,
    pub result: Option<String>,
    pub seed: Option<String>,
    pub commitment: Option<String>,
    /// Salts as a JSON array of strings.
    pub salts: String,
    pub seed_revealed: bool,
    pub move_secs: Option<i64>,
    pub deadline: Option<DateTime<Utc>>,
    pub reminded: bool,
    pub created_at: DateTime<Utc>,
    /// The current deadline was already extended by the game's grace period.
    pub graced: bool,
    /// When the salt window closes by itself (`None`: at the game's first roll).
    pub salts_until: Option<DateTime<Utc>>,
    /// The salts are closed: no more SALT, and the dice may roll.
    pub salts_fixed: bool,
    /// Why the game's timers are stopped (its timer or adjudication failed); `None`: fine.
    pub quarantined: Option<String>,
    /// When the GM paused the game and why (both `None` unless it is paused).
    pub paused_at: Option<DateTime<Utc>>,
    pub pause_reason: Option<String>,
}

const GAME_COLS: &str = "id, kind, options, status, event, start_position, result, seed, \
     commitment, salts, seed_revealed, move_secs, deadline, reminded, created_at, graced, salts_until, salts_fixed, quarantined, paused_at, pause_reason";

fn game_row(r: &Row) -> rusqlite::Result<GameRow> {
    let deadline: Option<String> = r.get(12)?;
    let created: String = r.get(14)?;
    Ok(GameRow {
        id: r.get(0)?,
        kind: r.get(1)?,
        options: r.get(2)?,
        status: r.get(3)?,
        event: r.get(4)?,
        start_position: r.get(5)?,
        result: r.get(6)?,
        seed: r.get(7)?,
        commitment: r.get(8)?,
        salts: r.get(9)?,
        seed_revealed: r.get(10)?,
        move_secs: r.get(11)?,
        deadline: deadline.and_then(|d| parse_ts(&d).ok()),
        reminded: r.get(13)?,
        created_at: parse_ts(&created).unwrap_or_default(),
        graced: r.get(15)?,
        salts_until: r
            .get::<_, Option<String>>(16)?
            .and_then(|d| parse_ts(&d).ok()),
        salts_fixed: r.get(17)?,
        quarantined: r.get(18)?,
        paused_at: r
            .get::<_, Option<String>>(19)?
            .and_then(|d| parse_ts(&d).ok()),
        pause_reason: r.get(20)?,
    })
}

/// What a new game is made of.
pub struct NewGame<'a> {
    pub kind: &'a str,
    pub options_json: &'a str,
    pub status: GameStatus,
    pub event: Option<&'a str>,
    pub start_position: Option<&'a str>,
    pub seed: Option<&'a str>,
    pub commitment: Option<&'a str>,
    pub move_secs: Option<i64>,
}

impl Tx<'_> {
    pub fn insert_game(&self, g: &NewGame, now: DateTime<Utc>) -> anyhow::Result<i64> {
        self.exec(
            "INSERT INTO games (kind, options, status, event, start_position, seed, commitment, \
             move_secs, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?9)",
            params![
                g.kind,
                g.options_json,
                g.status,
                g.event,
                g.start_position,
                g.seed,
                g.commitment,
                g.move_secs,
                ts(now)
            ],
        )?;
        Ok(self.conn().last_insert_rowid())
    }

    pub fn game(&self, id: i64) -> anyhow::Result<Option<GameRow>> {
        Ok(self
            .one(
                &format!("SELECT {GAME_COLS} FROM games WHERE id = ?1"),
                [id],
                game_row,
            )
            .optional()?)
    }

    /// Games, newest first; `status` filters when given.
    pub fn games(&self, status: Option<GameStatus>) -> anyhow::Result<Vec<GameRow>> {
        let mut st = self.conn().prepare_cached(&format!(
            "SELECT {GAME_COLS} FROM games WHERE ?1 IS NULL OR status = ?1 ORDER BY id DESC"
        ))?;
        let rows = st.query_map([status], game_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Active games with a deadline at or before `now`, or a reminder due.
    pub fn games_with_deadline_before(&self, t: DateTime<Utc>) -> anyhow::Result<Vec<GameRow>> {
        let mut st = self.conn().prepare_cached(&format!(
            "SELECT {GAME_COLS} FROM games WHERE status = 'active' AND deadline IS NOT NULL \
             AND deadline <= ?1 AND quarantined IS NULL ORDER BY deadline"
        ))?;
        let rows = st.query_map([ts(t)], game_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn set_game_status(
        &self,
        id: i64,
        status: GameStatus,
        result: Option<&str>,
        now: DateTime<Utc>,
    ) -> anyhow::Result<()> {
        if status != GameStatus::Finished {
            // A finished game taken back (a rollback) leaves its kind's kept ratings and its
            // own kept facts behind: both are rebuilt from the games when next asked.
            self.exec(
                "DELETE FROM rating_memo WHERE kind = \
                 (SELECT kind FROM games WHERE id = ?1 AND status = 'finished')",
                [id],
            )?;
        }
        self.exec(
            "UPDATE games SET status = ?2, result = ?3, updated_at = ?4, \
             facts = CASE WHEN ?2 = 'finished' THEN facts END WHERE id = ?1",
            params![id, status, result, ts(now)],
        )?;
        Ok(())
    }

    pub fn set_deadline(&self, id: i64, deadline: Option<DateTime<Utc>>) -> anyhow::Result<()> {
        self.exec(
            "UPDATE games SET deadline = ?2, reminded = 0, graced = 0 WHERE id = ?1",
            params![id, deadline.map(ts)],
        )?;
        Ok(())
    }

    /// Moves the deadline by a grace period, once: `graced` stops a second one.
    pub fn grant_grace(&self, id: i64, deadline: DateTime<Utc>) -> anyhow::Result<()> {
        self.exec(
            "UPDATE games SET deadline = ?2, graced = 1 WHERE id = ?1",
            params![id, ts(deadline)],
        )?;
        Ok(())
    }

    /// Sets a game aside (`Some(reason)`): its timers are skipped until the GM clears it
    /// (`None`). Returns whether the game exists.
    pub fn set_quarantined(&self, id: i64, reason: Option<&str>) -> anyhow::Result<bool> {
        let n = self.exec(
            "UPDATE games SET quarantined = ?2 WHERE id = ?1",
            params![id, reason],
        )?;
        Ok(n == 1)
    }

    /// Pauses an active game (`Some((reason, when))`) or resumes a paused one (`None`).
    pub fn set_paused(
        &self,
        id: i64,
        pause: Option<(&str, DateTime<Utc>)>,
        now: DateTime<Utc>,
    ) -> anyhow::Result<()> {
        let status = if pause.is_some() {
            GameStatus::Paused
        } else {
            GameStatus::Active
        };
        self.exec(
            "UPDATE games SET status = ?2, pause_reason = ?3, paused_at = ?4, updated_at = ?5 \
             WHERE id = ?1",
            params![
                id,
                status,
                pause.map(|p| p.0),
                pause.map(|p| ts(p.1)),
                ts(now)
            ],
        )?;
        Ok(())
    }

    /// Moves a game's clocks (resuming it: each gets back the time it had left), keeping
    /// whether its reminder was sent and its grace granted.
    pub fn shift_clocks(
        &self,
        id: i64,
        deadline: Option<DateTime<Utc>>,
        salts_until: Option<DateTime<Utc>>,
    ) -> anyhow::Result<()> {
        self.exec(
            "UPDATE games SET deadline = ?2, salts_until = ?3 WHERE id = ?1",
            params![id, deadline.map(ts), salts_until.map(ts)],
        )?;
        Ok(())
    }

    /// Changes a game's options (a JSON object of strings) and its move time.
    pub fn set_options(
        &self,
        id: i64,
        options_json: &str,
        move_secs: Option<i64>,
    ) -> anyhow::Result<()> {
        self.exec(
            "UPDATE games SET options = ?2, move_secs = ?3 WHERE id = ?1",
            params![id, options_json, move_secs],
        )?;
        Ok(())
    }

    /// Undoes the log after its first `keep` plies (`pbem game rollback`).
    pub fn truncate_moves(&self, game: i64, keep: usize) -> anyhow::Result<usize> {
        Ok(self.exec(
            "DELETE FROM moves WHERE game_id = ?1 AND ply > ?2",
            params![game, keep as i64],
        )?)
    }

    /// A seat's orders and plan waiting in this turn are dropped (its player left).
    pub fn clear_pending_of(&self, game: i64, seat: usize) -> anyhow::Result<()> {
        self.exec(
            "DELETE FROM pending WHERE game_id = ?1 AND seat = ?2",
            params![game, seat as i64],
        )?;
        Ok(())
    }

    /// Empties a seat (`pbem game eject`): no player, no secret address, nothing offered.
    pub fn empty_seat(&self, game: i64, seat: usize) -> anyhow::Result<()> {
        self.exec(
            "UPDATE seats SET player_id = NULL, token = NULL, draw_offer = 0, missed_before = 0, \
             robot = NULL, overdue = 0 \
             WHERE game_id = ?1 AND seat = ?2",
            params![game, seat as i64],
        )?;
        Ok(())
    }

    pub fn set_reminded(&self, id: i64) -> anyhow::Result<()> {
        self.exec("UPDATE games SET reminded = 1 WHERE id = ?1", [id])?;
        Ok(())
    }

    pub fn set_salts(&self, id: i64, salts_json: &str) -> anyhow::Result<()> {
        self.exec(
            "UPDATE games SET salts = ?2 WHERE id = ?1",
            params![id, salts_json],
        )?;
        Ok(())
    }

    /// Opens the salt window until `until` (`None`: until the first roll).
    pub fn set_salts_until(&self, id: i64, until: Option<DateTime<Utc>>) -> anyhow::Result<()> {
        self.exec(
            "UPDATE games SET salts_until = ?2 WHERE id = ?1",
            params![id, until.map(ts)],
        )?;
        Ok(())
    }

    /// Closes the salts for good: the dice may roll from now on.
    pub fn fix_salts(&self, id: i64) -> anyhow::Result<()> {
        self.exec("UPDATE games SET salts_fixed = 1 WHERE id = ?1", [id])?;
        Ok(())
    }

    /// Marks a seat ready for the first roll (it sent START, or moved).
    pub fn set_ready(&self, game: i64, seat: usize) -> anyhow::Result<()> {
        self.exec(
            "UPDATE seats SET ready = 1 WHERE game_id = ?1 AND seat = ?2",
            params![game, seat as i64],
        )?;
        Ok(())
    }

    pub fn reveal_seed(&self, id: i64) -> anyhow::Result<()> {
        self.exec("UPDATE games SET seed_revealed = 1 WHERE id = ?1", [id])?;
        Ok(())
    }
}
