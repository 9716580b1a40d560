//! Store methods for inbound messages (raw, deduplicated), the outbox (one record per outgoing mail, `OutboxRow`) and the reply rate limit.

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension, Row};

use super::{parse_ts, ts, MessageStatus, OutboxStatus, Tx};

/// An inbound message as stored.
#[derive(Debug, Clone)]
pub struct MessageRow {
    pub id: i64,
    pub dedupe_key: String,
    pub raw: Vec<u8>,
    pub received_at: DateTime<Utc>,
    pub status: MessageStatus,
    pub note: Option<String>,
    pub from_addr: Option<String>,
    pub game_id: Option<i64>,
}

/// One outgoing mail, the one record from compose to the sender: compose fills in what it
/// says (kind, game, addresses, subject, body, thread, the HTML part it wants), queuing
/// gives it its Message-ID, sender and finished bytes in the inbound mail's transaction, and
/// the sender sends those bytes as they are, once committed.
#[derive(Debug, Clone, Default)]
pub struct OutboxRow {
    /// Given by the store when queued.
    pub id: i64,
    /// Given when queued (`compose::enqueue`).
    pub message_id: String,
    /// The template kind (`turn_report`, `refused`, ...), for the GM's listing.
    pub kind: String,
    pub game_id: Option<i64>,
    pub from_addr: String,
    pub to_addr: String,
    pub reply_to: Option<String>,
    pub subject: String,
    pub body: String,
    pub in_reply_to: Option<String>,
    /// Space-separated message ids.
    pub refs: Option<String>,
    /// The HTML part still to be made after the commit that queued it (`compose::illustrate`);
    /// `HtmlPart::None` once made or given up, and for a text-only mail.
    pub html: HtmlPart,
    pub status: OutboxStatus,
    pub attempts: i64,
    pub next_try_at: Option<DateTime<Utc>>,
    pub last_error: Option<String>,
    pub created_at: Option<DateTime<Utc>>,
    pub sent_at: Option<DateTime<Utc>>,
    /// What made pbem write it, for the GM (`pbem game pause 3`): set when queued from the
    /// composing context (`compose::Ctx::cause`); `None` when only its kind says.
    pub cause: Option<String>,
    /// When a delivery report for it came back, believed (`gm::reachability`), and what the
    /// remote server said.
    pub bounced_at: Option<DateTime<Utc>>,
    pub bounce: Option<String>,
    /// The finished message (RFC 5322 bytes) the sender sends: made when it was queued, or
    /// for a mail that waits for its HTML part, made with it by `compose::illustrate`.
    /// Listings leave it `None` (`outbox_raw` reads one); `None` in a row read with it is a
    /// mail that could not be built, one still waiting for its part, or one queued before
    /// schema 7 or whose part was given up (`compose::outgoing::build_missing` makes those).
    pub raw: Option<Vec<u8>>,
}

/// The HTML part a queued mail waits for. Its text-only bytes are stored already, so it can
/// always go; the HTML part is made after the commit (`compose::illustrate`), so that no
/// inbound mail's transaction waits for a drawing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum HtmlPart {
    /// None: a text-only mail, or one whose HTML part is made or given up.
    #[default]
    None,
    /// Its words as HTML, without a board.
    Words,
    /// Its words as HTML with the board of `game` after its first `plies` plies, drawn.
    Board { game: i64, plies: usize },
}

impl HtmlPart {
    /// The columns `html_wait`, `board_game`, `board_plies` (schema 13).
    fn columns(self) -> (Option<&'static str>, Option<i64>, Option<i64>) {
        match self {
            HtmlPart::None => (None, None, None),
            HtmlPart::Words => (Some("words"), None, None),
            HtmlPart::Board { game, plies } => {
                (Some("board"), Some(game), i64::try_from(plies).ok())
            }
        }
    }

    /// Read back from those columns; a board without its game or plies shows the words.
    fn from_columns(wait: Option<&str>, game: Option<i64>, plies: Option<i64>) -> HtmlPart {
        let plies = plies.and_then(|p| usize::try_from(p).ok());
        match (wait, game, plies) {
            (None, _, _) => HtmlPart::None,
            (Some("board"), Some(game), Some(plies)) => HtmlPart::Board { game, plies },
            (Some(_), _, _) => HtmlPart::Words,
        }
    }
}

pub(super) fn message_row(r: &Row) -> rusqlite::Result<MessageRow> {
    let at: String = r.get(3)?;
    Ok(MessageRow {
        id: r.get(0)?,
        dedupe_key: r.get(1)?,
        raw: r.get(2)?,
        received_at: parse_ts(&at).unwrap_or_default(),
        status: r.get(4)?,
        note: r.get(5)?,
        from_addr: r.get(6)?,
        game_id: r.get(7)?,
    })
}

/// A queued mail's bytes from their row of `outbox_raw` as `r`: as stored, or with the part
/// they share with other mails (schema 24) put back where it was taken out (`||` makes
/// text of the blobs, byte for byte, and the cast a blob of it again; `substr` of an empty
/// blob is NULL).
macro_rules! spliced {
    () => {
        "CASE WHEN r.part IS NULL THEN r.raw ELSE CAST( \
         COALESCE(substr(r.raw, 1, r.part_at), x'') \
         || (SELECT part FROM outbox_parts WHERE outbox_parts.id = r.part) \
         || COALESCE(substr(r.raw, r.part_at + 1), x'') AS BLOB) END"
    };
}

/// A queued mail's bytes, from their own table (schema 23), as a column of a query on the
/// outbox: the raw bytes `out_row` reads last (listings put NULL there).
pub(super) const OUT_RAW: &str = concat!(
    "(SELECT ",
    spliced!(),
    " FROM outbox_raw r WHERE r.id = outbox.id)"
);

/// Whether a queued mail has bytes, by their row alone: a test of `OUT_RAW` itself would read
/// the bytes (some kilobytes, a picture's) only to see they are there, and again to return them.
const HAS_RAW: &str = "EXISTS (SELECT 1 FROM outbox_raw WHERE outbox_raw.id = outbox.id)";

/// The outbox's columns in `out_row`'s order, the raw bytes last: listings put NULL there.
pub(super) const OUT_COLS: &str =
    "id, message_id, kind, game_id, from_addr, to_addr, reply_to, subject, \
    body, in_reply_to, refs, status, attempts, next_try_at, last_error, created_at, sent_at, \
    html_wait, board_game, board_plies, cause, bounced_at, bounce";

pub(super) fn out_row(r: &Row) -> rusqlite::Result<OutboxRow> {
    let t = |i: usize| -> rusqlite::Result<Option<DateTime<Utc>>> {
        let s: Option<String> = r.get(i)?;
        Ok(s.and_then(|s| parse_ts(&s).ok()))
    };
    Ok(OutboxRow {
        id: r.get(0)?,
        message_id: r.get(1)?,
        kind: r.get(2)?,
        game_id: r.get(3)?,
        from_addr: r.get(4)?,
        to_addr: r.get(5)?,
        reply_to: r.get(6)?,
        subject: r.get(7)?,
        body: r.get(8)?,
        in_reply_to: r.get(9)?,
        refs: r.get(10)?,
        status: r.get(11)?,
        attempts: r.get(12)?,
        next_try_at: t(13)?,
        last_error: r.get(14)?,
        created_at: t(15)?,
        sent_at: t(16)?,
        html: HtmlPart::from_columns(
            r.get::<_, Option<String>>(17)?.as_deref(),
            r.get(18)?,
            r.get(19)?,
        ),
        cause: r.get(20)?,
        bounced_at: t(21)?,
        bounce: r.get(22)?,
        raw: r.get(23)?,
    })
}

impl Tx<'_> {
    /// Stores a raw message under its dedupe key; `None` when that key is already stored
    /// (a second delivery of the same mail, which must change nothing).
    pub fn insert_message(
        &self,
        key: &str,
        raw: &[u8],
        now: DateTime<Utc>,
    ) -> anyhow::Result<Option<i64>> {
        let n = self.exec(
            "INSERT INTO messages (dedupe_key, received_at) VALUES (?1, ?2) \
             ON CONFLICT(dedupe_key) DO NOTHING",
            params![key, ts(now)],
        )?;
        if n != 1 {
            return Ok(None);
        }
        let id = self.conn().last_insert_rowid();
        self.exec(
            "INSERT INTO message_raw (id, raw) VALUES (?1, ?2)",
            params![id, raw],
        )?;
        Ok(Some(id))
    }

    pub fn message(&self, id: i64) -> anyhow::Result<Option<MessageRow>> {
        Ok(self
            .one(
                "SELECT m.id, m.dedupe_key, r.raw, m.received_at, m.status, m.note, \
                 m.from_addr, m.game_id \
                 FROM messages m JOIN message_raw r ON r.id = m.id WHERE m.id = ?1",
                [id],
                message_row,
            )
            .optional()?)
    }

    /// Ids of stored messages not yet processed, oldest first.
    pub fn new_messages(&self) -> anyhow::Result<Vec<i64>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT id FROM messages WHERE status = 'new' ORDER BY id")?;
        let rows = st.query_map([], |r| r.get(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Recent messages for the GM, newest first.
    pub fn messages(&self, limit: i64) -> anyhow::Result<Vec<MessageRow>> {
        let mut st = self.conn().prepare_cached(
            "SELECT id, dedupe_key, x'', received_at, status, note, from_addr, game_id \
             FROM messages ORDER BY id DESC LIMIT ?1",
        )?;
        let rows = st.query_map([limit], message_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    pub fn finish_message(
        &self,
        id: i64,
        status: MessageStatus,
        note: &str,
        from: Option<&str>,
        game: Option<i64>,
    ) -> anyhow::Result<()> {
        self.exec(
            "UPDATE messages SET status = ?2, note = ?3, from_addr = ?4, game_id = ?5 \
             WHERE id = ?1",
            params![id, status, note, from, game],
        )?;
        Ok(())
    }

    /// Queues a mail (due at its `next_try_at`, or at once) with its status, error and raw
    /// bytes; it is sent only after this transaction commits.
    pub fn enqueue(&self, m: &OutboxRow, now: DateTime<Utc>) -> anyhow::Result<i64> {
        let (html_wait, board_game, board_plies) = m.html.columns();
        self.exec(
            "INSERT INTO outbox (message_id, kind, game_id, from_addr, to_addr, reply_to, \
             subject, body, in_reply_to, refs, next_try_at, created_at, status, last_error, \
             html_wait, board_game, board_plies, cause) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, \
             ?17, ?18)",
            params![
                m.message_id,
                m.kind,
                m.game_id,
                m.from_addr,
                m.to_addr,
                m.reply_to,
                m.subject,
                m.body,
                m.in_reply_to,
                m.refs,
                // A mail held by the rate limit is due later; any other at once.
                ts(m.next_try_at.unwrap_or(now).max(now)),
                ts(now),
                m.status,
                m.last_error,
                html_wait,
                board_game,
                board_plies,
                m.cause,
            ],
        )?;
        let id = self.conn().last_insert_rowid();
        if let Some(raw) = &m.raw {
            self.exec(
                "INSERT INTO outbox_raw (id, raw) VALUES (?1, ?2)",
                params![id, raw],
            )?;
        }
        Ok(id)
    }

    /// The id the next queued mail will get (unique within this transaction's view).
    pub fn next_outbox_id(&self) -> anyhow::Result<i64> {
        Ok(
            self.one("SELECT COALESCE(MAX(id), 0) + 1 FROM outbox", [], |r| {
                r.get(0)
            })?,
        )
    }

    /// Pending mails whose next attempt is due, with their finished bytes: those waiting
    /// for their HTML part, or (queued before schema 7) for any bytes, are not due yet.
    pub fn outbox_due(&self, now: DateTime<Utc>, limit: i64) -> anyhow::Result<Vec<OutboxRow>> {
        let mut st = self.conn().prepare_cached(&format!(
            "SELECT {OUT_COLS}, {OUT_RAW} FROM outbox WHERE status = 'pending' \
             AND next_try_at <= ?1 AND html_wait IS NULL AND {HAS_RAW} \
             ORDER BY id LIMIT ?2"
        ))?;
        let rows = st.query_map(params![ts(now), limit], out_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The outbox for the GM, newest first; `status` filters.
    pub fn outbox(
        &self,
        status: Option<OutboxStatus>,
        limit: i64,
    ) -> anyhow::Result<Vec<OutboxRow>> {
        let mut st = self.conn().prepare_cached(&format!(
            "SELECT {OUT_COLS}, NULL FROM outbox WHERE ?1 IS NULL OR status = ?1 \
             ORDER BY id DESC LIMIT ?2"
        ))?;
        let rows = st.query_map(params![status, limit], out_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// The last mail about a game queued for an address (what `pbem game resend` sends), its
    /// `html` the part it was given (the board it showed, else its words), made or not.
    pub fn last_outbox_to(&self, game: i64, to: &str) -> anyhow::Result<Option<OutboxRow>> {
        let cols = OUT_COLS.replace(
            "html_wait,",
            "CASE WHEN board_game IS NULL THEN 'words' ELSE 'board' END,",
        );
        Ok(self
            .one(
                &format!(
                    "SELECT {cols}, NULL FROM outbox WHERE game_id = ?1 AND to_addr = ?2 \
                     ORDER BY id DESC LIMIT 1"
                ),
                params![game, to],
                out_row,
            )
            .optional()?)
    }

    /// Pending mails waiting for their HTML part, numbered after `after`, oldest first,
    /// without their bytes (the part's step makes them again from the columns).
    pub fn outbox_to_illustrate(&self, after: i64, limit: i64) -> anyhow::Result<Vec<OutboxRow>> {
        let mut st = self.conn().prepare_cached(&format!(
            "SELECT {OUT_COLS}, NULL FROM outbox \
             WHERE html_wait IS NOT NULL AND status = 'pending' AND id > ?1 \
             ORDER BY id LIMIT ?2"
        ))?;
        let rows = st.query_map([after, limit], out_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Due mails without finished bytes that wait for no HTML part (queued before schema 7,
    /// or their part given up before it was made), oldest first.
    pub fn outbox_unbuilt(&self, now: DateTime<Utc>) -> anyhow::Result<Vec<OutboxRow>> {
        let mut st = self.conn().prepare_cached(&format!(
            "SELECT {OUT_COLS}, NULL FROM outbox \
             WHERE NOT {HAS_RAW} AND status = 'pending' AND html_wait IS NULL \
             AND next_try_at <= ?1 ORDER BY id"
        ))?;
        let rows = st.query_map([ts(now)], out_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// A mail's HTML part is made (`Some(bytes)`: the finished mail with it) or given up
    /// (`None`: it goes as text): either way it no longer waits. The board it shows stays
    /// noted (`drop_stale_held` reads it).
    pub fn illustrated(&self, id: i64, raw: Option<&[u8]>) -> anyhow::Result<()> {
        self.exec("UPDATE outbox SET html_wait = NULL WHERE id = ?1", [id])?;
        if let Some(raw) = raw {
            self.exec(
                "INSERT OR REPLACE INTO outbox_raw (id, raw) VALUES (?1, ?2)",
                params![id, raw],
            )?;
        }
        Ok(())
    }

    /// Stores a part several mails carry the same (`illustrated_spliced`), unless it is
    /// stored already (the same bytes, by their SHA-256); its id.
    pub fn keep_part(&self, part: &[u8]) -> anyhow::Result<i64> {
        use sha2::Digest as _;
        let digest = sha2::Sha256::digest(part).to_vec();
        self.exec(
            "INSERT INTO outbox_parts (digest, part) VALUES (?1, ?2) \
             ON CONFLICT (digest) DO NOTHING",
            params![digest, part],
        )?;
        Ok(self.one(
            "SELECT id FROM outbox_parts WHERE digest = ?1",
            [digest],
            |r| r.get(0),
        )?)
    }

    /// A mail's HTML part is made, and its bytes are `raw` with the stored part `part` (its
    /// id, `keep_part`) put back at offset `at`: the bytes are stored without the part, which
    /// every mail showing the same picture shares. They read back whole.
    pub fn illustrated_spliced(
        &self,
        id: i64,
        raw: &[u8],
        part: i64,
        at: usize,
    ) -> anyhow::Result<()> {
        self.illustrated(id, None)?;
        self.exec(
            "INSERT OR REPLACE INTO outbox_raw (id, raw, part, part_at) VALUES (?1, ?2, ?3, ?4)",
            params![id, raw, part, i64::try_from(at)?],
        )?;
        Ok(())
    }

    /// How many shared parts are stored, and how many bytes mail `id`'s row holds without
    /// its part (the tests of `illustrated_spliced`'s callers).
    #[cfg(test)]
    pub fn stored_sizes(&self, id: i64) -> anyhow::Result<(i64, i64)> {
        Ok(self.one(
            "SELECT (SELECT COUNT(*) FROM outbox_parts), \
             (SELECT length(raw) FROM outbox_raw WHERE id = ?1)",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?)
    }

    /// Mails queued before `before` and still waiting for their HTML part go as text.
    pub fn give_up_html(&self, before: DateTime<Utc>) -> anyhow::Result<()> {
        self.exec(
            "UPDATE outbox SET html_wait = NULL WHERE html_wait IS NOT NULL AND created_at <= ?1",
            [ts(before)],
        )?;
        Ok(())
    }

    /// A queued mail's finished bytes (`None`: no such mail, or none stored).
    pub fn outbox_raw(&self, id: i64) -> anyhow::Result<Option<Vec<u8>>> {
        Ok(self
            .one(
                concat!("SELECT ", spliced!(), " FROM outbox_raw r WHERE r.id = ?1"),
                [id],
                |r| r.get(0),
            )
            .optional()?
            .flatten())
    }

    /// Stores the bytes a mail queued before schema 7 was built into before its first try,
    /// so every try sends the same ones.
    pub fn set_outbox_raw(&self, id: i64, raw: &[u8]) -> anyhow::Result<()> {
        // Only for a mail there is, and never over bytes it has.
        self.exec(
            "INSERT OR IGNORE INTO outbox_raw (id, raw) \
             SELECT id, ?2 FROM outbox WHERE id = ?1",
            params![id, raw],
        )?;
        Ok(())
    }

    /// Marks a mail sent; a mail already marked is left as it was (a sender that died
    /// between marking and clearing its notes has its mails marked again: `SendTurn`).
    pub fn mark_sent(&self, id: i64, now: DateTime<Utc>) -> anyhow::Result<()> {
        self.exec(
            "UPDATE outbox SET status = 'sent', sent_at = ?2, attempts = attempts + 1, \
             last_error = NULL WHERE id = ?1 AND status = 'pending'",
            params![id, ts(now)],
        )?;
        Ok(())
    }

    /// How many mails wait to be sent now or later (not those failed for good).
    pub fn outbox_pending_count(&self) -> anyhow::Result<i64> {
        Ok(self.one(
            "SELECT COUNT(*) FROM outbox WHERE status = 'pending'",
            [],
            |r| r.get(0),
        )?)
    }

    /// Marks every waiting mail sent without sending it: `pbem bench` settles the mail its
    /// set-up caused, which no timed run should draw or send.
    pub fn bench_settle_outbox(&self, now: DateTime<Utc>) -> anyhow::Result<()> {
        self.exec(
            "UPDATE outbox SET status = 'sent', sent_at = ?1, html_wait = NULL, \
             board_game = NULL, board_plies = NULL WHERE status = 'pending'",
            [ts(now)],
        )?;
        Ok(())
    }

    /// Records a failed attempt: retried at `retry_at`, or marked failed when `None`.
    pub fn mark_attempt_failed(
        &self,
        id: i64,
        error: &str,
        retry_at: Option<DateTime<Utc>>,
    ) -> anyhow::Result<()> {
        match retry_at {
            Some(at) => self.exec(
                "UPDATE outbox SET attempts = attempts + 1, last_error = ?2, next_try_at = ?3 \
                 WHERE id = ?1",
                params![id, error, ts(at)],
            )?,
            None => self.exec(
                "UPDATE outbox SET attempts = attempts + 1, last_error = ?2, status = 'failed' \
                 WHERE id = ?1",
                params![id, error],
            )?,
        };
        Ok(())
    }

    /// The GM asks for another try of a failed (or delayed) mail, now.
    pub fn retry_outbox(&self, id: i64, now: DateTime<Utc>) -> anyhow::Result<bool> {
        let n = self.exec(
            "UPDATE outbox SET status = 'pending', next_try_at = ?2 \
             WHERE id = ?1 AND status != 'sent'",
            params![id, ts(now)],
        )?;
        Ok(n == 1)
    }

    /// Drops the turn reports and reminders to `to` that the hourly limit holds (never
    /// tried, due after `now`) showing `game` before its ply `plies`: a newer mail shows
    /// where it stands. News (`news`, press, notices) is never dropped. Returns how many.
    pub fn drop_stale_held(
        &self,
        game: i64,
        to: &str,
        plies: usize,
        now: DateTime<Utc>,
    ) -> anyhow::Result<usize> {
        Ok(self.exec(
            "DELETE FROM outbox WHERE board_game = ?1 AND to_addr = ?2 AND board_plies < ?3 \
             AND status = 'pending' AND attempts = 0 AND next_try_at > ?4 \
             AND kind IN ('turn_report', 'reminder')",
            params![game, to, plies as i64, ts(now)],
        )?)
    }

    /// How many replies this address was sent since `since` (the per-sender rate limit).
    pub fn replies_since(&self, addr: &str, since: DateTime<Utc>) -> anyhow::Result<i64> {
        Ok(self.one(
            "SELECT COUNT(*) FROM outbox WHERE to_addr = ?1 AND created_at >= ?2",
            params![addr, ts(since)],
            |r| r.get(0),
        )?)
    }
}

#[cfg(test)]
mod tests;
