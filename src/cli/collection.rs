//! Collections: `pbem export --all` writes every game's record one after another; `pbem replay` and `pbem verify` judge each game of one and sum them up.

use std::path::Path;

use super::record_desk::{recorded_rolls, replay_json};
use super::{say, stats::kind_named, Exit};
use crate::records::{split_collection, Record};
use crate::store::{GameStatus, Store};
use crate::{gamelog, gm};

/// `pbem export --all [--game GAME] [--finished] [--with-addresses]`: every game's record
/// (open games, which have no play yet, left out), a blank line between them, in the order of
/// their ids; the players by name unless the GM asks for their addresses.
pub(super) fn export_all(
    db: &Path,
    game: Option<&str>,
    finished: bool,
    reveal: gm::names::Reveal,
) -> anyhow::Result<Exit> {
    let kind = game.map(kind_named).transpose()?;
    let mut store = Store::open(db, false)?;
    let records = store.read(|tx| {
        let mut out = Vec::new();
        let mut rows = tx.games(None)?;
        rows.sort_by_key(|r| r.id);
        for row in rows {
            let wanted = row.status != GameStatus::Open
                && (!finished || row.status == GameStatus::Finished)
                && kind.is_none_or(|k| k.name() == row.kind);
            if wanted {
                out.push(gm::export_as(&gamelog::load(tx, row.id)?, reveal)?);
            }
        }
        Ok(out)
    })?;
    print!("{}", records.join("\n"));
    Ok(0)
}

/// The records of a file's text when it holds more than one, else None (one record is read
/// as before, with its own messages).
pub(super) fn records_of(text: &str) -> Option<Vec<String>> {
    let parts = split_collection(text);
    (parts.len() > 1).then_some(parts)
}

/// One record of a collection named for the GM: `game 3 (dicerink, "Event")`.
fn label(n: usize, record: Option<&Record>) -> String {
    let Some(r) = record else {
        return format!("game {n}");
    };
    let game = r.tag("Game").unwrap_or("?");
    match r.tag("Event") {
        Some(e) => format!("game {n} ({game}, \"{e}\")"),
        None => format!("game {n} ({game})"),
    }
}

/// `pbem replay` of a collection: each game's end (or why it does not replay), then how many
/// replay; exit 1 when one does not.
pub(super) fn replay_all(records: &[String], json: bool) -> anyhow::Result<Exit> {
    let (mut good, mut bad) = (0, 0);
    let mut all = Vec::new();
    for (i, text) in records.iter().enumerate() {
        let record = Record::parse(text);
        let name = label(i + 1, record.as_ref().ok());
        let done = record.and_then(|r| r.replay().map_err(|e| e.to_string()));
        match done {
            Ok(done) => {
                good += 1;
                if json {
                    all.push(replay_json(&done.game, done.plies));
                } else {
                    println!("{name}: {} plies; {}", done.plies, done.game.to_act_text());
                }
            }
            Err(why) => {
                bad += 1;
                if json {
                    all.push(serde_json::json!({ "error": why }));
                }
                say(&format!("{name}: {why}"));
            }
        }
    }
    if json {
        println!("{}", serde_json::Value::Array(all));
    } else {
        println!("{} games: {good} replay, {bad} do not", good + bad);
    }
    Ok(if bad == 0 { 0 } else { 1 })
}

/// `pbem verify` of a collection: each game's dice checked against its revealed seed (a game
/// without dice, or whose seed is not revealed yet, is replayed only), then the sums; exit 1
/// when a game does not replay or a roll does not check.
pub(super) fn verify_all(records: &[String]) -> anyhow::Result<Exit> {
    let (mut checked, mut unchecked, mut bad) = (0, 0, 0);
    for (i, text) in records.iter().enumerate() {
        let record = Record::parse(text);
        let name = label(i + 1, record.as_ref().ok());
        match record.map_err(|e| e.to_string()).and_then(|r| judge(&r)) {
            Ok(Some(rolls)) => {
                checked += 1;
                println!("{name}: every roll checks ({rolls} rolls)");
            }
            Ok(None) => {
                unchecked += 1;
                println!("{name}: replays; no revealed dice to check");
            }
            Err(why) => {
                bad += 1;
                println!("{name}: FAILED: {why}");
            }
        }
    }
    println!(
        "{} games: {checked} with every roll checked, {unchecked} without dice to check, {bad} failed",
        checked + unchecked + bad
    );
    Ok(if bad == 0 { 0 } else { 1 })
}

/// One record judged: the number of rolls checked, None when there was nothing to check
/// (no dice, or the seed not revealed), or why it fails.
fn judge(record: &Record) -> Result<Option<usize>, String> {
    let rolls = recorded_rolls(record)?;
    let Some(seed) = record.tag("DiceSeed") else {
        return Ok(None);
    };
    let salts = record.dice_salts()?;
    let v = crate::dice::verify(
        seed,
        record.tag("DiceCommitment").unwrap_or(""),
        &salts,
        record.tag("GameId").unwrap_or(""),
        &rolls,
    );
    match (&v.seed_error, v.commitment_matches) {
        _ if v.is_ok() => Ok(Some(v.rolls_checked)),
        (Some(e), _) => Err(format!("the seed is unreadable: {e}")),
        (None, false) => Err("the seed is not the one committed to".into()),
        (None, true) => Err(format!(
            "{} of {} rolls are not what the seed gives",
            v.mismatches.len(),
            v.rolls.len()
        )),
    }
}

/// `game new GAME --from-record FILE`: the record's plies, replayed, for the new game to
/// start at their end; its options, start position and event go into `spec` (the GM's own
/// `--option`s win). Why not, in the record's own words: a record of another game, one that
/// does not read or does not replay.
pub(super) fn brought_in(
    file: &Path,
    spec: &mut crate::gm::GameSpec,
) -> anyhow::Result<Result<Vec<crate::gm::BroughtPly>, String>> {
    let record = match super::record_desk::record_file(file)? {
        Ok(r) => r,
        Err(why) => return Ok(Err(why)),
    };
    let shown = file.display();
    let kind = spec.kind.expect("set by spec_from_args");
    match record.kind() {
        Ok(k) if k == kind => {}
        Ok(k) => {
            return Ok(Err(format!(
                "{shown}: a record of {}, not of {}",
                k.title(),
                kind.title()
            )))
        }
        Err(why) => return Ok(Err(format!("{shown}: {why}"))),
    }
    let options = match record.options() {
        Ok(o) => o,
        Err(why) => return Ok(Err(format!("{shown}: {why}"))),
    };
    for (k, v) in options {
        spec.options.entry(k).or_insert(v);
    }
    spec.position = record.tag("Position").map(str::to_string);
    if spec.event.is_none() {
        spec.event = record.tag("Event").map(str::to_string);
    }
    let mut record = record;
    // The record's own options are replayed with those the GM added (a move cap, ...).
    record
        .tags
        .retain(|(n, _)| !n.eq_ignore_ascii_case("Options"));
    if !spec.options.is_empty() {
        let options = crate::records::format_options(&spec.options);
        record.tags.push(("Options".into(), options));
    }
    Ok(match record.replay() {
        Ok(done) => Ok(with_comments(done)),
        Err(e) => Err(format!("{shown}: {e}")),
    })
}

/// The replayed plies, each with the record's comments after it joined (those before the
/// first ply go with it). The comments an export writes itself are left out, so a record
/// exported and brought in again does not say them twice: a roll's dice (`{d6}`) and the
/// robot's mark.
fn with_comments(done: crate::records::Replayed) -> Vec<crate::gm::BroughtPly> {
    let mut out: Vec<crate::gm::BroughtPly> =
        done.log.into_iter().map(|(a, t)| (a, t, None)).collect();
    for (after, text) in done.comments {
        let Some(ply) = out.get_mut(after.max(1) - 1) else {
            continue;
        };
        let written_by_pbem = text.starts_with("robot")
            || (ply.0 == crate::games::Actor::Chance && crate::records::is_dice_comment(&text));
        if written_by_pbem {
            continue;
        }
        // Joined in place: a record of many comments on one ply costs their length, once.
        match &mut ply.2 {
            Some(before) => {
                before.push(' ');
                before.push_str(&text);
            }
            None => ply.2 = Some(text),
        }
    }
    out
}
