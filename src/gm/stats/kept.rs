//! A finished game's facts kept at its end (`games.facts`, schema 20) and read back, so that the statistics and the ratings count a finished game from its row instead of replaying its log.

use serde_json::{json, Value};

use super::{facts, holders, Ending, GameFacts, Standing};
use crate::gamelog::{self, Loaded};
use crate::games::{GameKind, Outcome};
use crate::store::{parse_ts, ts, GameRow, GameStatus, SeatRow, Tx};

/// Each ending as the facts name it.
const ENDINGS: [(Ending, &str); 6] = [
    (Ending::WinCondition, "win_condition"),
    (Ending::Resignation, "resignation"),
    (Ending::Time, "time"),
    (Ending::Agreement, "agreement"),
    (Ending::Declared, "declared"),
    (Ending::Impasse, "impasse"),
];

/// Keeps the facts of `g`, just finished (won, drawn or cancelled), with its row: all but
/// who sits in its seats, which the seats say when they are read.
pub(crate) fn keep(tx: &Tx, g: &Loaded) -> anyhow::Result<()> {
    let f = facts(g)?;
    let (result, ending) = match (&f.outcome, &f.standing) {
        (Some(Outcome::Win { seat, .. }), Standing::Won { ending, .. }) => {
            (json!({ "won": seat }), Some(*ending))
        }
        (Some(Outcome::Draw { seats, .. }), Standing::Drawn { ending }) => {
            (json!({ "drawn": seats }), Some(*ending))
        }
        _ => (Value::Null, None),
    };
    let reason = match &f.outcome {
        Some(Outcome::Win { reason, .. } | Outcome::Draw { reason, .. }) => Some(reason),
        None => None,
    };
    let key = ending.and_then(|e| ENDINGS.iter().find(|(x, _)| *x == e).map(|(_, k)| *k));
    let kept = json!({
        "seat_names": f.seat_names,
        "result": result,
        "reason": reason,
        "ending": key,
        "moves": f.moves,
        "last": ts(f.last),
    });
    tx.set_game_facts(g.row.id, &kept.to_string())
}

/// A finished game's facts from its row, its seats and the facts kept at its end (None
/// when they do not read: the game is replayed instead).
pub(super) fn read(row: &GameRow, seats: &[SeatRow], text: &str) -> Option<GameFacts> {
    if row.status != GameStatus::Finished {
        return None;
    }
    let v: Value = serde_json::from_str(text).ok()?;
    let seat_names: Vec<String> = serde_json::from_value(v.get("seat_names")?.clone()).ok()?;
    let reason = v.get("reason")?.as_str().unwrap_or_default().to_string();
    let ending = v.get("ending")?.as_str();
    let ending = ENDINGS
        .iter()
        .find(|(_, k)| Some(*k) == ending)
        .map(|(e, _)| *e);
    let result = v.get("result")?;
    let (outcome, standing) = match (result.get("won"), result.get("drawn"), ending) {
        (Some(seat), None, Some(ending)) => {
            let seat = usize::try_from(seat.as_u64()?).ok()?;
            (
                Some(Outcome::Win { seat, reason }),
                Standing::Won { seat, ending },
            )
        }
        (None, Some(seats), Some(ending)) => {
            let seats: Vec<usize> = serde_json::from_value(seats.clone()).ok()?;
            (
                Some(Outcome::Draw { seats, reason }),
                Standing::Drawn { ending },
            )
        }
        _ if result.is_null() => (None, Standing::Cancelled),
        _ => return None,
    };
    let last = parse_ts(v.get("last")?.as_str()?).ok()?;
    let (players, shown) = holders(seats, seat_names.len().max(1));
    Some(GameFacts {
        id: row.id,
        kind: GameKind::parse(&row.kind)?,
        variant: gamelog::options_of(row).ok()?.get("variant").cloned(),
        seat_names,
        standing,
        outcome,
        moves: usize::try_from(v.get("moves")?.as_u64()?).ok()?,
        days: (last - row.created_at).num_days(),
        last,
        players,
        shown,
    })
}
