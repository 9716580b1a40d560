//! What the kept archive is made of, in one query: each game's public state, its plies' count and comments, and its seats' players (address, robot, name), for `archive::Keeper` to see whether anything changed.

use crate::store::Tx;

impl Tx<'_> {
    /// One line per game (open ones too), in id order: its row's public state, how many plies
    /// it has, its plies' comments and its seats' players. Read by SQLite alone: no game is
    /// loaded, so the look costs one query however many games there are.
    pub fn archive_stamp_lines(&self) -> anyhow::Result<Vec<String>> {
        let mut st = self.conn().prepare_cached(
            "SELECT g.id || ' ' || g.status || ' ' || COALESCE(g.result, '') || ' ' || \
                    g.seed_revealed || ' ' || COALESCE(g.salts_fixed, '') || ' ' || g.salts || \
                    ' ' || g.options || ' ' || \
                    (SELECT COUNT(*) FROM moves m WHERE m.game_id = g.id) || ' ' || \
                    COALESCE((SELECT group_concat(m.ply || ':' || m.comment, '|') FROM moves m \
                              WHERE m.game_id = g.id AND m.comment IS NOT NULL), '') || ' ' || \
                    COALESCE((SELECT group_concat(s.seat || '=' || COALESCE(p.email, '') || '/' || \
                                     COALESCE(s.robot, '') || '/' || COALESCE(p.name, ''), ',') \
                              FROM seats s LEFT JOIN players p ON p.id = s.player_id \
                              WHERE s.game_id = g.id), '') \
             FROM games g ORDER BY g.id",
        )?;
        let rows = st.query_map([], |r| r.get::<_, String>(0))?;
        Ok(rows.collect::<Result<_, _>>()?)
    }
}
