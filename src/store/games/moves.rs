//! Store methods for a game's log: its plies, the conditional plans and pending orders waiting for a roll or a turn, and the GM's event log.

use chrono::{DateTime, Utc};
use rusqlite::params;

use crate::store::{parse_ts, ts, PendingKind, Tx};

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

/// One logged ply.
#[derive(Debug, Clone)]
pub struct MoveRow {
    pub ply: i64,
    /// A seat name, `chance` or `gm`.
    pub actor: String,
    pub text: String,
    pub at: DateTime<Utc>,
    /// The robot played it: the record's comment after it (`robot`, `robot for B, out of
    /// time`); `None` for a ply a player or the GM made.
    pub robot: Option<String>,
    /// A comment on it kept from a record brought in (written after it in the record).
    pub comment: Option<String>,
}

impl Tx<'_> {
    pub fn moves(&self, game: i64) -> anyhow::Result<Vec<MoveRow>> {
        let mut st = self.conn().prepare_cached(
            "SELECT ply, actor, text, at, robot, comment FROM moves WHERE game_id = ?1 ORDER BY ply",
        )?;
        let rows = st.query_map([game], |r| {
            let at: String = r.get(3)?;
            Ok(MoveRow {
                ply: r.get(0)?,
                actor: r.get(1)?,
                text: r.get(2)?,
                at: parse_ts(&at).unwrap_or_default(),
                robot: r.get(4)?,
                comment: r.get(5)?,
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

    /// Marks a logged ply as the robot's (`what`: the record's comment after it).
    pub fn mark_robot_ply(&self, game: i64, ply: i64, what: &str) -> anyhow::Result<()> {
        self.exec(
            "UPDATE moves SET robot = ?3 WHERE game_id = ?1 AND ply = ?2",
            params![game, ply, what],
        )?;
        Ok(())
    }

    /// Sets a logged ply's comment (the words a record had after it).
    pub fn set_ply_comment(&self, game: i64, ply: i64, comment: &str) -> anyhow::Result<()> {
        self.exec(
            "UPDATE moves SET comment = ?3 WHERE game_id = ?1 AND ply = ?2",
            params![game, ply, comment],
        )?;
        Ok(())
    }

    /// Adds `comment` after the ply's comment (`; ` between), the whole kept to its first
    /// `max_chars` characters: one statement, whatever the game's length.
    pub fn add_ply_comment(
        &self,
        game: i64,
        ply: i64,
        comment: &str,
        max_chars: usize,
    ) -> anyhow::Result<()> {
        self.exec(
            "UPDATE moves SET comment = substr(CASE WHEN comment IS NULL OR comment = '' \
             THEN ?3 ELSE comment || '; ' || ?3 END, 1, ?4) WHERE game_id = ?1 AND ply = ?2",
            params![game, ply, comment, max_chars as i64],
        )?;
        Ok(())
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
