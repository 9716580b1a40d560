//! A finished game's facts kept at its end (`games.facts`, `gm::stats` writes and reads them), so that the statistics need not replay its log.

use std::collections::HashMap;

use crate::store::Tx;

impl Tx<'_> {
    /// Keeps a finished game's facts (JSON).
    pub fn set_game_facts(&self, game: i64, facts: &str) -> anyhow::Result<()> {
        self.exec(
            "UPDATE games SET facts = ?2 WHERE id = ?1",
            rusqlite::params![game, facts],
        )?;
        Ok(())
    }

    /// The kept facts of every finished game that has them, by game id.
    pub fn finished_facts(&self) -> anyhow::Result<HashMap<i64, String>> {
        let mut st = self.conn().prepare_cached(
            "SELECT id, facts FROM games WHERE status = 'finished' AND facts IS NOT NULL",
        )?;
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
