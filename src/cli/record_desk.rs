//! `pbem replay|verify` and `export --json`: records (or the JSON exports carrying them) read, replayed and checked, exit 1 for a record that does not read.

use std::path::Path;

use anyhow::Context;

use super::{say, Exit};
use crate::games::Actor;
use crate::records::Record;
use crate::{gamelog, gm};

/// A record file's text, or why it is no record: a file that is not text (invalid UTF-8) is a
/// bad record (exit 1, as one that does not parse), a file that cannot be read is an error (2).
pub(super) fn record_text(file: &Path) -> anyhow::Result<Result<String, String>> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    Ok(String::from_utf8(bytes).map_err(|e| {
        format!(
            "{}: not a record: not UTF-8 text (byte {})",
            file.display(),
            e.utf8_error().valid_up_to() + 1
        )
    }))
}

/// The records of a file that holds a collection (more than one record), else None.
fn collection(file: &Path) -> anyhow::Result<Option<Vec<String>>> {
    Ok(record_text(file)?
        .ok()
        .and_then(|t| super::collection::records_of(&t)))
}

/// A record file read and parsed, or the line that says why not (exit 1). A JSON export
/// (`pbem export ID --format json`) is read for the record it carries.
pub(super) fn record_file(file: &Path) -> anyhow::Result<Result<Record, String>> {
    Ok(record_text(file)?
        .and_then(|text| exported_record(text).map_err(|e| format!("{}: {e}", file.display())))
        .and_then(|text| Record::parse(&text).map_err(|e| format!("{}: {e}", file.display()))))
}

/// The record in a file's text: the text itself, or the `"record"` of a JSON export. A text
/// that is no JSON object is left to the record reader (a record may open with a comment).
fn exported_record(text: String) -> Result<String, String> {
    let Ok(serde_json::Value::Object(json)) = serde_json::from_str(&text) else {
        return Ok(text);
    };
    match json.get("record").and_then(|r| r.as_str()) {
        Some(record) => Ok(record.to_string()),
        None => Err(format!(
            "JSON without a \"record\": give a record file (`pbem export ID`) or a {}",
            "JSON export (`pbem export ID --format json`)"
        )),
    }
}

pub(super) fn replay(file: &Path, json: bool) -> anyhow::Result<Exit> {
    if let Some(records) = collection(file)? {
        return super::collection::replay_all(&records, json);
    }
    let record = match record_file(file)? {
        Ok(r) => r,
        Err(why) => {
            say(&why);
            return Ok(1);
        }
    };
    match record.replay() {
        Ok(done) => {
            if json {
                println!(
                    "{}",
                    serde_json::to_string(&replay_json(&done.game, done.plies))?
                );
            } else {
                print!("{}", done.game.board());
                println!("{} plies; {}", done.plies, done.game.to_act_text());
            }
            Ok(0)
        }
        Err(e) => {
            say(&e.to_string());
            Ok(1)
        }
    }
}

/// `{"game":..,"plies":N,"outcome":{"winner":..,"draw":..,"drawn":[..]},"position":{..}}`.
pub(super) fn replay_json(game: &crate::games::AnyGame, plies: usize) -> serde_json::Value {
    serde_json::json!({
        "game": game.kind().name(),
        "plies": plies,
        "outcome": game.outcome_json(),
        "position": game.position_json(),
    })
}

/// A game as JSON: its plies, outcome and position, its seats' players shown as `reveal`
/// allows (`pbem export ID --format json`), and the record written the same way.
pub(super) fn export_json(
    g: &gamelog::Loaded,
    reveal: gm::names::Reveal,
) -> anyhow::Result<serde_json::Value> {
    let plies: Vec<serde_json::Value> = g
        .moves
        .iter()
        .map(|m| serde_json::json!({"ply": m.ply, "actor": m.actor, "text": m.text, "at": crate::store::ts(m.at)}))
        .collect();
    let seats: serde_json::Map<String, serde_json::Value> = g
        .seats
        .iter()
        .map(|s| {
            (
                g.game.seat_name(s.seat).to_string(),
                match &s.robot {
                    Some(level) if s.email.is_none() => serde_json::json!(format!("robot:{level}")),
                    _ => serde_json::json!(gm::names::seat_holder(s, reveal)),
                },
            )
        })
        .collect();
    let mut v = replay_json(&g.game, g.moves.len());
    v["id"] = serde_json::json!(g.row.id);
    v["status"] = serde_json::json!(g.row.status);
    v["options"] = serde_json::from_str(&g.row.options)?;
    v["start_position"] = serde_json::json!(g.row.start_position);
    v["seats"] = serde_json::Value::Object(seats);
    v["moves"] = serde_json::Value::Array(plies);
    v["record"] = serde_json::json!(gm::export_as(g, reveal)?);
    Ok(v)
}

/// `pbem verify FILE`: replays the record and checks each roll against the revealed seed.
/// A bad record (one that does not parse, replay or list its salts) exits 1 with the reason,
/// as `replay` does; only a file that cannot be read at all is an error (2).
pub(super) fn verify(file: &Path) -> anyhow::Result<Exit> {
    if let Some(records) = collection(file)? {
        return super::collection::verify_all(&records);
    }
    let record = match record_file(file)? {
        Ok(r) => r,
        Err(why) => {
            say(&why);
            return Ok(1);
        }
    };
    let Some(seed) = record.tag("DiceSeed") else {
        say("the record has no [DiceSeed]: the seed is revealed only when the game is over");
        return Ok(1);
    };
    // The salts' plain tags, or the JSON list of records written before them.
    let checked = record
        .dice_salts()
        .and_then(|salts| Ok((salts, recorded_rolls(&record)?)));
    let (salts, rolls) = match checked {
        Ok(v) => v,
        Err(why) => {
            say(&format!("{}: {why}", file.display()));
            return Ok(1);
        }
    };
    let commitment = record.tag("DiceCommitment").unwrap_or("");
    let game_id = record.tag("GameId").unwrap_or("");
    let v = crate::dice::verify(seed, commitment, &salts, game_id, &rolls);
    print!("{v}");
    // Last, how to check it all without trusting this program: the documented script.
    if v.seed_error.is_none() {
        match crate::dice::script_command(seed, commitment, &salts, game_id, &rolls) {
            Some(command) => {
                println!("to re-check without pbem (notation/dice.md), run:\n{command}")
            }
            None => println!("no roll to check with notation/dice_verify.py"),
        }
    }
    Ok(if v.is_ok() { 0 } else { 1 })
}

/// Every die roll of a record, with the sides of the die it was rolled with, as the replay
/// meets them; or why the record does not replay.
pub(super) fn recorded_rolls(record: &Record) -> Result<Vec<(u32, u32)>, String> {
    let done = record.replay().map_err(|e| e.to_string())?;
    let mut game = record.start()?;
    let mut rolls = Vec::new();
    for (actor, ply) in &done.log {
        if let (Actor::Chance, crate::games::ToAct::Chance(sides)) = (actor, game.to_act()) {
            rolls.extend(sides.into_iter().zip(gamelog::chance_values(ply)));
        }
        game.play(*actor, ply).map_err(|e| e.to_string())?;
    }
    Ok(rolls)
}
