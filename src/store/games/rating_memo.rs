//! Each game kind's ratings as they stood after so many finished games (`gm::ratings` keeps it), and the count of finished games of a kind.

use rusqlite::OptionalExtension;

use crate::store::Tx;

impl Tx<'_> {
    /// The kind's ratings memo: how many finished games it covers and its state (JSON).
    pub fn rating_memo(&self, kind: &str) -> anyhow::Result<Option<(i64, String)>> {
        Ok(self
            .one(
                "SELECT games, state FROM rating_memo WHERE kind = ?1",
                [kind],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()?)
    }

    /// Keeps the kind's ratings memo.
    pub fn set_rating_memo(&self, kind: &str, games: i64, state: &str) -> anyhow::Result<()> {
        self.exec(
            "INSERT INTO rating_memo (kind, games, state) VALUES (?1, ?2, ?3)
             ON CONFLICT(kind) DO UPDATE SET games = ?2, state = ?3",
            rusqlite::params![kind, games, state],
        )?;
        Ok(())
    }

    /// How many games of the kind are finished.
    pub fn finished_count(&self, kind: &str) -> anyhow::Result<i64> {
        Ok(self.one(
            "SELECT COUNT(*) FROM games WHERE kind = ?1 AND status = 'finished'",
            [kind],
            |r| r.get(0),
        )?)
    }
}
