//! Store methods for the GM's desk (`pbem inbox`, `pbem outbox`): inbound mail by game, sender and fate, second deliveries of a stored mail, one queued mail with its bytes, the replies to a mail.

use chrono::{DateTime, Utc};
use rusqlite::{params, OptionalExtension};

use super::mail::{message_row, out_row, OUT_COLS, OUT_RAW};
use super::{parse_ts, MessageRow, OutboxRow, Tx};

/// Which inbound mail the GM lists.
#[derive(Debug, Clone, Default)]
pub struct MessageFilter {
    pub game: Option<i64>,
    /// The sender's address (stored lowercased).
    pub from: Option<String>,
    /// The `fate` of the message's note when the note is JSON (the inbox's `MailNote`),
    /// else its status: `new`, `done`, `refused`, `ignored` or `failed`.
    pub fate: Option<String>,
    pub limit: i64,
}

/// How a second delivery of a stored mail reads in the event log: this, the stored mail's
/// id, then why it is the same mail. The listing finds them by it.
const DUPLICATE: &str = "duplicate delivery of mail #";

/// A message's fate: its JSON note's `fate`, or its status for a note in plain text (one
/// written before notes were JSON) or none (a message not processed yet).
const FATE: &str = "COALESCE(CASE WHEN json_valid(note) THEN json_extract(note, '$.fate') END, \
     status)";

impl Tx<'_> {
    /// Inbound mail for the GM, newest first, without its bytes.
    pub fn messages_where(&self, f: &MessageFilter) -> anyhow::Result<Vec<MessageRow>> {
        let mut st = self.conn().prepare_cached(&format!(
            "SELECT id, dedupe_key, x'', received_at, status, note, from_addr, game_id \
             FROM messages WHERE (?1 IS NULL OR game_id = ?1) AND (?2 IS NULL OR from_addr = ?2) \
             AND (?3 IS NULL OR {FATE} = ?3) ORDER BY id DESC LIMIT ?4"
        ))?;
        let from = f.from.as_deref().map(str::to_ascii_lowercase);
        let rows = st.query_map(params![f.game, from, f.fate, f.limit], message_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// Notes in the event log that the mail stored under `key` was delivered again (it is
    /// not stored again: the dedupe key is unique). Returns the stored mail's id.
    pub fn note_duplicate(&self, key: &str, now: DateTime<Utc>) -> anyhow::Result<Option<i64>> {
        let Some((id, game)) = self
            .one(
                "SELECT id, game_id FROM messages WHERE dedupe_key = ?1",
                [key],
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, Option<i64>>(1)?)),
            )
            .optional()?
        else {
            return Ok(None);
        };
        let same = if key.starts_with("mid:") {
            "the same Message-ID"
        } else {
            "the same bytes"
        };
        self.log_event(
            game,
            now,
            &format!("{DUPLICATE}{id} ({same}): not stored or processed again"),
        )?;
        Ok(Some(id))
    }

    /// Second deliveries of stored mail, newest first: when each came, and the stored mail
    /// (without its bytes), filtered by the stored mail's game and sender.
    pub fn duplicates(
        &self,
        f: &MessageFilter,
    ) -> anyhow::Result<Vec<(DateTime<Utc>, MessageRow)>> {
        let mut st = self.conn().prepare_cached(
            "SELECT m.id, m.dedupe_key, x'', m.received_at, m.status, m.note, m.from_addr, \
             m.game_id, e.at FROM events e \
             JOIN messages m ON m.id = CAST(substr(e.text, ?1) AS INTEGER) \
             WHERE e.text LIKE ?2 AND (?3 IS NULL OR m.game_id = ?3) \
             AND (?4 IS NULL OR m.from_addr = ?4) ORDER BY e.id DESC LIMIT ?5",
        )?;
        let from = f.from.as_deref().map(str::to_ascii_lowercase);
        let rows = st.query_map(
            params![
                DUPLICATE.len() as i64 + 1,
                format!("{DUPLICATE}%"),
                f.game,
                from,
                f.limit
            ],
            |r| {
                let at: String = r.get(8)?;
                Ok((parse_ts(&at).unwrap_or_default(), message_row(r)?))
            },
        )?;
        Ok(rows.collect::<Result<_, _>>()?)
    }

    /// When each second delivery of mail `id` came.
    pub fn deliveries_again(&self, id: i64) -> anyhow::Result<Vec<DateTime<Utc>>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT at FROM events WHERE text LIKE ?1 ORDER BY id")?;
        // `#12 ` and `#12 (` differ from `#123`: the id is followed by a space.
        let rows = st.query_map([format!("{DUPLICATE}{id} %")], |r| r.get::<_, String>(0))?;
        Ok(rows
            .map(|r| r.map(|at| parse_ts(&at).unwrap_or_default()))
            .collect::<Result<_, _>>()?)
    }

    /// One queued mail with its finished bytes (`raw` is `None` for a mail queued before
    /// schema 7 that was never sent, or one that could not be built).
    pub fn outbox_mail(&self, id: i64) -> anyhow::Result<Option<OutboxRow>> {
        Ok(self
            .one(
                &format!("SELECT {OUT_COLS}, {OUT_RAW} FROM outbox WHERE id = ?1"),
                [id],
                out_row,
            )
            .optional()?)
    }

    /// The mails queued in reply to the mail with this Message-ID (with its angle brackets),
    /// oldest first, without their bytes.
    pub fn replies_to(&self, message_id: &str) -> anyhow::Result<Vec<OutboxRow>> {
        let mut st = self.conn().prepare_cached(&format!(
            "SELECT {OUT_COLS}, NULL FROM outbox WHERE in_reply_to = ?1 ORDER BY id"
        ))?;
        let rows = st.query_map([message_id], out_row)?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
