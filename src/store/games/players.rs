//! Store methods for players: their address, name, password, vacation and daily digest.

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

use crate::store::{parse_ts, ts, Tx};

/// A player whose daily digest is due.
#[derive(Debug, Clone)]
pub struct DigestDue {
    pub player: i64,
    pub email: String,
    /// When the last digest went.
    pub last: Option<DateTime<Utc>>,
}

impl Tx<'_> {
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

    /// Whether a player with this address is on record (without creating one).
    pub fn player_exists(&self, email: &str) -> anyhow::Result<bool> {
        Ok(self
            .one(
                "SELECT 1 FROM players WHERE email = ?1",
                [email.trim().to_ascii_lowercase()],
                |_| Ok(()),
            )
            .optional()?
            .is_some())
    }

    /// The player's name, when they have one.
    pub fn player_name(&self, email: &str) -> anyhow::Result<Option<String>> {
        Ok(self
            .one(
                "SELECT name FROM players WHERE email = ?1",
                [email.trim().to_ascii_lowercase()],
                |r| r.get(0),
            )
            .optional()?
            .flatten())
    }

    /// Sets (or with None removes) a player's name, creating the player if new.
    pub fn set_player_name(&self, email: &str, name: Option<&str>) -> anyhow::Result<()> {
        let id = self.player_id(email)?;
        self.exec(
            "UPDATE players SET name = ?2 WHERE id = ?1",
            params![id, name],
        )?;
        Ok(())
    }

    /// The address of the player who has this name (compared without regard to case).
    pub fn player_named(&self, name: &str) -> anyhow::Result<Option<String>> {
        Ok(self
            .one(
                "SELECT email FROM players WHERE name = ?1 COLLATE NOCASE ORDER BY id LIMIT 1",
                [name],
                |r| r.get(0),
            )
            .optional()?)
    }

    /// Every player's name, by address (players without a name left out).
    pub fn player_names(&self) -> anyhow::Result<Vec<(String, String)>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT email, name FROM players WHERE name IS NOT NULL")?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
