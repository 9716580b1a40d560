//! Store methods for games, players, seats, the move log, pending orders and the GM's event log.

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension, Row};

use super::{parse_ts, ts, GameStatus, PendingKind, Tx};

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

/// One outcome of a conditional plan: for these roll values, try this ply.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PlannedOutcome {
    pub rolls: Vec<u32>,
    pub ply: String,
}

impl PlannedOutcome {
    /// A stored plan: a JSON list of outcomes, or (stores from before typed plans) a JSON
    /// list of `rolls TAB ply` strings.
    fn read(json: &str) -> anyhow::Result<Vec<PlannedOutcome>> {
        if let Ok(plan) = serde_json::from_str(json) {
            return Ok(plan);
        }
        let lines: Vec<String> = serde_json::from_str(json)?;
        Ok(lines
            .iter()
            .filter_map(|l| l.split_once('\t'))
            .map(|(rolls, ply)| PlannedOutcome {
                rolls: rolls.split(',').filter_map(|r| r.parse().ok()).collect(),
                ply: ply.to_string(),
            })
            .collect())
    }
}

/// A seat and the player in it.
#[derive(Debug, Clone)]
pub struct SeatRow {
    pub seat: usize,
    pub player_id: Option<i64>,
    pub email: Option<String>,
    pub token: Option<String>,
    pub missed: i64,
    pub draw_offer: bool,
    pub vacation_until: Option<DateTime<Utc>>,
    /// The player sent START (or moved): done with salts, ready for the first roll.
    pub ready: bool,
    /// The player takes their turn reports as one daily digest (`DIGEST ON`).
    pub digest: bool,
}

/// A player whose daily digest is due.
#[derive(Debug, Clone)]
pub struct DigestDue {
    pub player: i64,
    pub email: String,
    /// When the last digest went.
    pub last: Option<DateTime<Utc>>,
}

/// One logged ply.
#[derive(Debug, Clone)]
pub struct MoveRow {
    pub ply: i64,
    /// A seat name, `chance` or `gm`.
    pub actor: String,
    pub text: String,
    pub at: DateTime<Utc>,
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
        self.exec(
            "UPDATE games SET status = ?2, result = ?3, updated_at = ?4 WHERE id = ?1",
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
            "UPDATE seats SET player_id = NULL, token = NULL, draw_offer = 0, missed = 0 \
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

    /// The player with this address, created if new.
    pub fn player_id(&self, email: &str) -> anyhow::Result<i64> {
        let email = email.trim().to_ascii_lowercase();
        self.exec(
            "INSERT INTO players (email) VALUES (?1) ON CONFLICT(email) DO NOTHING",
            [&email],
        )?;
        Ok(
            self.one("SELECT id FROM players WHERE email = ?1", [&email], |r| {
                r.get(0)
            })?,
        )
    }

    pub fn set_password_hash(&self, email: &str, hash: Option<&str>) -> anyhow::Result<()> {
        let id = self.player_id(email)?;
        self.exec(
            "UPDATE players SET password_hash = ?2 WHERE id = ?1",
            params![id, hash],
        )?;
        Ok(())
    }

    pub fn password_hash(&self, email: &str) -> anyhow::Result<Option<String>> {
        Ok(self
            .one(
                "SELECT password_hash FROM players WHERE email = ?1",
                [email.trim().to_ascii_lowercase()],
                |r| r.get(0),
            )
            .optional()?
            .flatten())
    }

    pub fn set_vacation(&self, email: &str, until: Option<DateTime<Utc>>) -> anyhow::Result<()> {
        let id = self.player_id(email)?;
        self.exec(
            "UPDATE players SET vacation_until = ?2 WHERE id = ?1",
            params![id, until.map(ts)],
        )?;
        Ok(())
    }

    /// Turns a player's daily digest on or off (off: anything waiting goes at the next pass).
    pub fn set_digest(&self, email: &str, on: bool, now: DateTime<Utc>) -> anyhow::Result<()> {
        let id = self.player_id(email)?;
        self.exec(
            "UPDATE players SET digest = ?2, \
             digest_due = CASE WHEN ?2 OR digest_due IS NULL THEN digest_due ELSE ?3 END \
             WHERE id = ?1",
            params![id, on, ts(now)],
        )?;
        Ok(())
    }

    /// A turn report waits for the player's digest: it goes at `due` at the latest, or a day
    /// after the last digest, whichever is later (at most one digest a day).
    pub fn wait_for_digest(&self, player: i64, now: DateTime<Utc>) -> anyhow::Result<()> {
        let last: Option<String> = self.one(
            "SELECT digest_sent_at FROM players WHERE id = ?1",
            [player],
            |r| r.get(0),
        )?;
        let next = last
            .and_then(|l| parse_ts(&l).ok())
            .map(|l| l + chrono::Duration::days(1))
            .filter(|n| *n > now)
            .unwrap_or(now);
        self.exec(
            "UPDATE players SET digest_due = COALESCE(digest_due, ?2) WHERE id = ?1",
            params![player, ts(next)],
        )?;
        Ok(())
    }

    /// Players whose digest is due.
    pub fn digests_due(&self, now: DateTime<Utc>) -> anyhow::Result<Vec<DigestDue>> {
        let mut st = self.conn().prepare_cached(
            "SELECT id, email, digest_sent_at FROM players \
             WHERE digest_due IS NOT NULL AND digest_due <= ?1 ORDER BY digest_due",
        )?;
        let rows = st.query_map([ts(now)], |r| {
            let last: Option<String> = r.get(2)?;
            Ok(DigestDue {
                player: r.get(0)?,
                email: r.get(1)?,
                last: last.and_then(|l| parse_ts(&l).ok()),
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The player's digest went (or had nothing to say).
    pub fn digest_sent(&self, player: i64, now: DateTime<Utc>) -> anyhow::Result<()> {
        self.exec(
            "UPDATE players SET digest_due = NULL, digest_sent_at = ?2 WHERE id = ?1",
            params![player, ts(now)],
        )?;
        Ok(())
    }

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
        // A new player starts clean: the old one's draw offer and missed turns stay with them.
        self.exec(
            "UPDATE seats SET player_id = ?3, token = ?4, draw_offer = 0, missed = 0 \
             WHERE game_id = ?1 AND seat = ?2",
            params![game, seat as i64, player, token],
        )?;
        Ok(())
    }

    pub fn seats(&self, game: i64) -> anyhow::Result<Vec<SeatRow>> {
        let mut st = self.conn().prepare_cached(
            "SELECT s.seat, s.player_id, p.email, s.token, s.missed, s.draw_offer, \
             p.vacation_until, s.ready, COALESCE(p.digest, 0) FROM seats s \
             LEFT JOIN players p ON p.id = s.player_id \
             WHERE s.game_id = ?1 ORDER BY s.seat",
        )?;
        let rows = st.query_map([game], |r| {
            let vac: Option<String> = r.get(6)?;
            Ok(SeatRow {
                seat: r.get::<_, i64>(0)? as usize,
                player_id: r.get(1)?,
                email: r.get(2)?,
                token: r.get(3)?,
                missed: r.get(4)?,
                draw_offer: r.get(5)?,
                vacation_until: vac.and_then(|v| parse_ts(&v).ok()),
                ready: r.get(7)?,
                digest: r.get(8)?,
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

    pub fn set_missed(&self, game: i64, seat: usize, missed: i64) -> anyhow::Result<()> {
        self.exec(
            "UPDATE seats SET missed = ?3 WHERE game_id = ?1 AND seat = ?2",
            params![game, seat as i64, missed],
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

    pub fn moves(&self, game: i64) -> anyhow::Result<Vec<MoveRow>> {
        let mut st = self.conn().prepare_cached(
            "SELECT ply, actor, text, at FROM moves WHERE game_id = ?1 ORDER BY ply",
        )?;
        let rows = st.query_map([game], |r| {
            let at: String = r.get(3)?;
            Ok(MoveRow {
                ply: r.get(0)?,
                actor: r.get(1)?,
                text: r.get(2)?,
                at: parse_ts(&at).unwrap_or_default(),
            })
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Appends a ply to the log (numbered after the last), returning its number.
    pub fn append_move(
        &self,
        game: i64,
        actor: &str,
        text: &str,
        now: DateTime<Utc>,
        message: Option<i64>,
    ) -> anyhow::Result<i64> {
        let ply: i64 = self.one(
            "SELECT COALESCE(MAX(ply), 0) + 1 FROM moves WHERE game_id = ?1",
            [game],
            |r| r.get(0),
        )?;
        self.exec(
            "INSERT INTO moves (game_id, ply, actor, text, at, message_id) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![game, ply, actor, text, ts(now), message],
        )?;
        self.exec(
            "UPDATE games SET updated_at = ?2 WHERE id = ?1",
            params![game, ts(now)],
        )?;
        Ok(ply)
    }

    /// A seat's outcomes planned per roll, kept until the roll (replacing any before).
    pub fn set_plan(
        &self,
        game: i64,
        seat: usize,
        plan: &[PlannedOutcome],
        now: DateTime<Utc>,
    ) -> anyhow::Result<()> {
        let json = serde_json::to_string(plan)?;
        self.put_pending(game, seat, PendingKind::Plan, &json, now)
    }

    /// The plans waiting in a game, by seat.
    pub fn plans(&self, game: i64) -> anyhow::Result<Vec<(usize, Vec<PlannedOutcome>)>> {
        self.pending_json(game, PendingKind::Plan)?
            .into_iter()
            .map(|(seat, json)| Ok((seat, PlannedOutcome::read(&json)?)))
            .collect()
    }

    /// A game's pending lines of a kind, by seat (`orders` for simultaneous turns, `plan`
    /// for conditional outcomes waiting for a roll).
    pub fn pending(
        &self,
        game: i64,
        kind: PendingKind,
    ) -> anyhow::Result<Vec<(usize, Vec<String>)>> {
        self.pending_json(game, kind)?
            .into_iter()
            .map(|(seat, json)| Ok((seat, serde_json::from_str(&json)?)))
            .collect()
    }

    /// A seat's pending lines of a kind (replacing any before).
    pub fn set_pending(
        &self,
        game: i64,
        seat: usize,
        kind: PendingKind,
        lines: &[String],
        now: DateTime<Utc>,
    ) -> anyhow::Result<()> {
        let json = serde_json::to_string(lines)?;
        self.put_pending(game, seat, kind, &json, now)
    }

    fn pending_json(&self, game: i64, kind: PendingKind) -> anyhow::Result<Vec<(usize, String)>> {
        let mut st = self.conn().prepare_cached(
            "SELECT seat, lines FROM pending WHERE game_id = ?1 AND kind = ?2 ORDER BY seat",
        )?;
        let rows = st.query_map(params![game, kind], |r| {
            Ok((r.get::<_, i64>(0)? as usize, r.get::<_, String>(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    fn put_pending(
        &self,
        game: i64,
        seat: usize,
        kind: PendingKind,
        json: &str,
        now: DateTime<Utc>,
    ) -> anyhow::Result<()> {
        self.exec(
            "INSERT INTO pending (game_id, seat, kind, lines, at) VALUES (?1, ?2, ?3, ?4, ?5) \
             ON CONFLICT(game_id, seat, kind) DO UPDATE SET lines = ?4, at = ?5",
            params![game, seat as i64, kind, json, ts(now)],
        )?;
        Ok(())
    }

    pub fn clear_pending(&self, game: i64, kind: PendingKind) -> anyhow::Result<()> {
        self.exec(
            "DELETE FROM pending WHERE game_id = ?1 AND kind = ?2",
            params![game, kind],
        )?;
        Ok(())
    }

    /// The GM's log: what happened that is not a ply (refusals, timeouts, token rotations).
    pub fn log_event(
        &self,
        game: Option<i64>,
        now: DateTime<Utc>,
        text: &str,
    ) -> anyhow::Result<()> {
        self.exec(
            "INSERT INTO events (game_id, at, text) VALUES (?1, ?2, ?3)",
            params![game, ts(now), text],
        )?;
        Ok(())
    }

    pub fn events(&self, game: Option<i64>) -> anyhow::Result<Vec<(DateTime<Utc>, String)>> {
        let mut st = self.conn().prepare_cached(
            "SELECT at, text FROM events WHERE ?1 IS NULL OR game_id = ?1 ORDER BY id",
        )?;
        let rows = st.query_map([game], |r| {
            let at: String = r.get(0)?;
            Ok((parse_ts(&at).unwrap_or_default(), r.get(1)?))
        })?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}

#[cfg(test)]
mod tests {
    use super::PlannedOutcome;

    #[test]
    fn plans_read_in_both_stored_forms() {
        let typed = PlannedOutcome::read(r#"[{"rolls":[1,2],"ply":"xe6"}]"#).unwrap();
        let old = PlannedOutcome::read(r#"["1,2\txe6"]"#).unwrap();
        assert_eq!(typed, old);
        assert_eq!(typed[0].rolls, vec![1, 2]);
    }
}
