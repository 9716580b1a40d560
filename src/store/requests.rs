//! Store methods for what must wait or be counted per address: NEW/JOIN requests awaiting confirmation, and hourly throttles.

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

use super::{parse_ts, ts, Tx};

/// A NEW or JOIN that waits until its address replies to the code mailed to it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RequestRow {
    pub id: i64,
    pub code: String,
    pub kind: String,
    pub address: String,
    /// The request as JSON (`{"game": "d4d6", "options": {...}}`, `{"game": 4, "seat": "B"}`).
    pub payload: String,
    pub expires_at: DateTime<Utc>,
}

impl Tx<'_> {
    pub fn insert_request(
        &self,
        code: &str,
        kind: &str,
        address: &str,
        payload: &str,
        now: DateTime<Utc>,
        expires_at: DateTime<Utc>,
    ) -> anyhow::Result<i64> {
        self.exec(
            "INSERT INTO requests (code, kind, address, payload, created_at, expires_at) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![code, kind, address, payload, ts(now), ts(expires_at)],
        )?;
        Ok(self.conn().last_insert_rowid())
    }

    /// The request with this code, expired or not.
    pub fn request_by_code(&self, code: &str) -> anyhow::Result<Option<RequestRow>> {
        Ok(self
            .one(
                "SELECT id, code, kind, address, payload, expires_at FROM requests WHERE code = ?1",
                [code],
                |r| {
                    let at: String = r.get(5)?;
                    Ok(RequestRow {
                        id: r.get(0)?,
                        code: r.get(1)?,
                        kind: r.get(2)?,
                        address: r.get(3)?,
                        payload: r.get(4)?,
                        expires_at: parse_ts(&at).unwrap_or_default(),
                    })
                },
            )
            .optional()?)
    }

    /// Requests of an address still waiting at `now`.
    pub fn pending_requests(&self, address: &str, now: DateTime<Utc>) -> anyhow::Result<i64> {
        Ok(self.one(
            "SELECT COUNT(*) FROM requests WHERE address = ?1 AND expires_at > ?2",
            params![address, ts(now)],
            |r| r.get(0),
        )?)
    }

    pub fn delete_request(&self, id: i64) -> anyhow::Result<()> {
        self.exec("DELETE FROM requests WHERE id = ?1", [id])?;
        Ok(())
    }

    /// Forgets expired requests and throttle entries older than a day; how many went.
    pub fn prune_requests_and_throttles(&self, now: DateTime<Utc>) -> anyhow::Result<usize> {
        let requests = self.exec("DELETE FROM requests WHERE expires_at <= ?1", [ts(now)])?;
        let old = now - chrono::Duration::days(1);
        let throttles = self.exec("DELETE FROM throttle WHERE at < ?1", [ts(old)])?;
        Ok(requests + throttles)
    }

    /// Counts one `what` (an answer to unproven mail, a failed authentication, ...) for an address.
    pub fn note_throttle(
        &self,
        address: &str,
        what: &str,
        now: DateTime<Utc>,
    ) -> anyhow::Result<()> {
        self.exec(
            "INSERT INTO throttle (address, what, at) VALUES (?1, ?2, ?3)",
            params![address, what, ts(now)],
        )?;
        Ok(())
    }

    /// How many `what` an address has had since `since`.
    pub fn throttle_count(
        &self,
        address: &str,
        what: &str,
        since: DateTime<Utc>,
    ) -> anyhow::Result<i64> {
        Ok(self.one(
            "SELECT COUNT(*) FROM throttle WHERE address = ?1 AND what = ?2 AND at >= ?3",
            params![address, what, ts(since)],
            |r| r.get(0),
        )?)
    }

    /// Replaces a stored raw message (a password redacted from it once processed).
    pub fn replace_raw(&self, id: i64, raw: &[u8]) -> anyhow::Result<()> {
        self.exec(
            "UPDATE message_raw SET raw = ?2 WHERE id = ?1",
            params![id, raw],
        )?;
        Ok(())
    }
}
