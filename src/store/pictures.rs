//! Board pictures kept by position (game, plies): every mail that shows a position attaches the bytes drawn once, whichever process or pass draws it.

use rusqlite::{params, OptionalExtension};

use super::{ts, MoveRow, Tx};

/// How many positions a game in play keeps, the latest: the one its players are shown now
/// (replies to orders, a digest, a resend) and the few before it (a mail queued before the
/// game moved on). More would only make the store grow with every ply.
const KEPT_PER_GAME: i64 = 3;

/// A position's board drawn: its two texts (alone, and beside a report that told the last
/// ply) and its PNG.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BoardPicture {
    pub texts: [String; 2],
    pub png: Vec<u8>,
}

impl Tx<'_> {
    /// The picture kept of game `game` after its first `plies` plies, if any.
    pub fn picture(&self, game: i64, plies: usize) -> anyhow::Result<Option<BoardPicture>> {
        Ok(self
            .one(
                "SELECT board, beside, png FROM pictures WHERE game_id = ?1 AND plies = ?2",
                params![game, plies as i64],
                |r| {
                    Ok(BoardPicture {
                        texts: [r.get(0)?, r.get(1)?],
                        png: r.get(2)?,
                    })
                },
            )
            .optional()?)
    }

    /// Keeps a picture drawn from the log whose ply number `plies` was `last` (`None`: the
    /// start), unless the log no longer leads there (rolled back and played otherwise while
    /// it was drawn) or the game is over (its last mails are drawn in one pass; nothing
    /// shows it again but a resend, which draws it anew). Drops the game's older positions
    /// past `KEPT_PER_GAME`. Returns whether it was kept.
    pub fn keep_picture(
        &self,
        game: i64,
        plies: usize,
        last: Option<&MoveRow>,
        picture: &BoardPicture,
    ) -> anyhow::Result<bool> {
        let (actor, text, at) = match last {
            Some(m) => (
                Some(m.actor.as_str()),
                Some(m.text.as_str()),
                Some(ts(m.at)),
            ),
            None => (None, None, None),
        };
        let kept = self.exec(
            "INSERT OR REPLACE INTO pictures (game_id, plies, board, beside, png) \
             SELECT ?1, ?2, ?3, ?4, ?5 FROM games g WHERE g.id = ?1 AND g.status != 'finished' \
             AND CASE WHEN ?2 = 0 THEN 1 ELSE EXISTS (SELECT 1 FROM moves m \
                 WHERE m.game_id = ?1 AND m.ply = ?2 AND m.actor = ?6 AND m.text = ?7 \
                 AND m.at = ?8) END",
            params![
                game,
                plies as i64,
                picture.texts[0],
                picture.texts[1],
                picture.png,
                actor,
                text,
                at
            ],
        )?;
        if kept > 0 {
            self.exec(
                "DELETE FROM pictures WHERE game_id = ?1 AND plies NOT IN \
                 (SELECT plies FROM pictures WHERE game_id = ?1 ORDER BY plies DESC LIMIT ?2)",
                params![game, KEPT_PER_GAME],
            )?;
        }
        Ok(kept > 0)
    }

    /// The positions of a game that have a picture kept, in order.
    #[cfg(test)]
    pub fn pictures_kept(&self, game: i64) -> anyhow::Result<Vec<usize>> {
        let mut st = self
            .conn()
            .prepare_cached("SELECT plies FROM pictures WHERE game_id = ?1 ORDER BY plies")?;
        let rows = st.query_map([game], |r| r.get::<_, i64>(0))?;
        Ok(rows
            .map(|p| p.map(|p| p as usize))
            .collect::<Result<_, _>>()?)
    }
}
