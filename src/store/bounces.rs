//! Store methods for mail that does not arrive: outbox rows marked bounced, the addresses that bounce (`unreachable`), and the store's own keys.

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension, Row};

use super::mail::{out_row, OUT_COLS};
use super::{parse_ts, ts, OutboxRow, Tx};

/// An address whose mail comes back, as `unreachable` keeps it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unreachable {
    pub addr: String,
    /// The first failure since mail to it last arrived (or the player last wrote).
    pub since: DateTime<Utc>,
    pub last_at: DateTime<Utc>,
    /// Reports of a failure for good (5.x.x) and for now (4.x.x given up on).
    pub permanent: i64,
    pub transient: i64,
    /// The remote server's words in the last report.
    pub reason: String,
    /// The day (`YYYY-MM-DD`, UTC) the GM was last told of it.
    pub told_on: Option<String>,
    /// While its mail is held (too many failures for good): when the next probe may go.
    pub probe_at: Option<DateTime<Utc>>,
}

fn unreachable_row(r: &Row) -> rusqlite::Result<Unreachable> {
    let t = |i: usize| -> rusqlite::Result<DateTime<Utc>> {
        Ok(parse_ts(&r.get::<_, String>(i)?).unwrap_or_default())
    };
    Ok(Unreachable {
        addr: r.get(0)?,
        since: t(1)?,
        last_at: t(2)?,
        permanent: r.get(3)?,
        transient: r.get(4)?,
        reason: r.get(5)?,
        told_on: r.get(6)?,
        probe_at: r
            .get::<_, Option<String>>(7)?
            .and_then(|s| parse_ts(&s).ok()),
    })
}

const UNREACHABLE_COLS: &str =
    "addr, since, last_at, permanent, transient, reason, told_on, probe_at";

impl Tx<'_> {
    /// The store's key `name`, made by `make` (the OS's randomness, at the edge) the first
    /// time it is asked for.
    pub fn key(
        &self,
        name: &str,
        make: impl FnOnce() -> anyhow::Result<[u8; 32]>,
    ) -> anyhow::Result<Vec<u8>> {
        let kept: Option<Vec<u8>> = self
            .one("SELECT value FROM keys WHERE name = ?1", [name], |r| {
                r.get(0)
            })
            .optional()?;
        if let Some(k) = kept {
            return Ok(k);
        }
        let k = make()?.to_vec();
        self.exec(
            "INSERT INTO keys (name, value) VALUES (?1, ?2)",
            params![name, k],
        )?;
        Ok(k)
    }

    /// The outbox row whose Message-ID is `bare` (given without angle brackets).
    pub fn outbox_by_message_id(&self, bare: &str) -> anyhow::Result<Option<OutboxRow>> {
        Ok(self
            .one(
                &format!("SELECT {OUT_COLS}, NULL FROM outbox WHERE message_id = ?1"),
                [format!("<{}>", bare.trim_matches(['<', '>']))],
                out_row,
            )
            .optional()?)
    }

    /// Marks an outbox row bounced, with the remote server's words.
    pub fn mark_bounced(&self, id: i64, now: DateTime<Utc>, why: &str) -> anyhow::Result<()> {
        self.exec(
            "UPDATE outbox SET bounced_at = ?2, bounce = ?3 WHERE id = ?1",
            params![id, ts(now), why],
        )?;
        Ok(())
    }

    /// The mails that bounced, newest first.
    pub fn outbox_bounced(&self, limit: i64) -> anyhow::Result<Vec<OutboxRow>> {
        let mut st = self.conn().prepare_cached(&format!(
            "SELECT {OUT_COLS}, NULL FROM outbox WHERE bounced_at IS NOT NULL \
             ORDER BY id DESC LIMIT ?1"
        ))?;
        let rows = st.query_map([limit], out_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Whether mail to `addr` bounces, and how.
    pub fn unreachable(&self, addr: &str) -> anyhow::Result<Option<Unreachable>> {
        Ok(self
            .one(
                &format!("SELECT {UNREACHABLE_COLS} FROM unreachable WHERE addr = ?1"),
                [addr],
                unreachable_row,
            )
            .optional()?)
    }

    /// Keeps what is known of an address that bounces.
    pub fn set_unreachable(&self, u: &Unreachable) -> anyhow::Result<()> {
        self.exec(
            "INSERT INTO unreachable (addr, since, last_at, permanent, transient, reason, \
             told_on, probe_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8) \
             ON CONFLICT(addr) DO UPDATE SET since = ?2, last_at = ?3, permanent = ?4, \
             transient = ?5, reason = ?6, told_on = ?7, probe_at = ?8",
            params![
                u.addr,
                ts(u.since),
                ts(u.last_at),
                u.permanent,
                u.transient,
                u.reason,
                u.told_on,
                u.probe_at.map(ts)
            ],
        )?;
        Ok(())
    }

    /// Forgets that `addr` bounces (mail came from it); whether it was marked.
    pub fn clear_unreachable(&self, addr: &str) -> anyhow::Result<Option<Unreachable>> {
        let was = self.unreachable(addr)?;
        if was.is_some() {
            self.exec("DELETE FROM unreachable WHERE addr = ?1", [addr])?;
        }
        Ok(was)
    }

    /// The addresses whose mail is held (each but a daily probe).
    pub fn held_addresses(&self) -> anyhow::Result<Vec<Unreachable>> {
        let mut st = self.conn().prepare_cached(&format!(
            "SELECT {UNREACHABLE_COLS} FROM unreachable WHERE probe_at IS NOT NULL"
        ))?;
        let rows = st.query_map([], unreachable_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The mails to `addr` held for the probe at `probe_at` are due at `now` (the address was
    /// heard from). Mails held for another reason (the hourly limit) keep their time.
    pub fn release_held(
        &self,
        addr: &str,
        probe_at: DateTime<Utc>,
        now: DateTime<Utc>,
    ) -> anyhow::Result<()> {
        self.exec(
            "UPDATE outbox SET next_try_at = ?3 WHERE to_addr = ?1 COLLATE NOCASE \
             AND status = 'pending' AND next_try_at = ?2",
            params![addr, ts(probe_at), ts(now)],
        )?;
        Ok(())
    }

    /// A pending mail waits until `until` without a try counted (its address's mail is
    /// held until the next probe).
    pub fn postpone_outbox(&self, id: i64, until: DateTime<Utc>) -> anyhow::Result<()> {
        self.exec(
            "UPDATE outbox SET next_try_at = ?2 WHERE id = ?1 AND status = 'pending'",
            params![id, ts(until)],
        )?;
        Ok(())
    }
}
