//! Replays every record tests/data/<game>/**/*.pgn and compares the result with its sibling expected file `<name>.final`; `BLESS=1` rewrites those.
//!
//! An expected file holds tag pairs, as a record's: for a record that replays, the final
//! `[Position]`, the `[Outcome]` (`*` while the game goes on) and the number of `[Plies]`; for a
//! deliberately broken record, `[Refused "ply N (TOKEN): reason"]`. Besides, every record
//! names its folder's game, a `[Result]` tag agrees with the replay, and a record written again
//! by `records::write` replays to the same plies, position and outcome, its move text (as
//! exported, dice named) in lines of at most 78 characters.

use std::io::Write;
use std::path::{Path, PathBuf};

use pbem_rules::games::GameKind;
use pbem_rules::records::{self, Record, Replayed};

use crate::{bless, workspace_root};

/// Every `.pgn` and `.final` under this folder, sub-folders included.
fn files_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else if path.extension().is_some_and(|e| e == "pgn" || e == "final") {
            out.push(path);
        }
    }
}

/// A path as the workspace names it (`tests/data/dicerink/game1.pgn`).
fn shown(path: &Path) -> String {
    let root = workspace_root();
    path.strip_prefix(&root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Tag pairs as a record writes them; a `"` in a value is written `\"`.
fn tags_text(tags: &[(&str, String)]) -> String {
    tags.iter()
        .map(|(name, value)| format!("[{name} \"{}\"]\n", value.replace('"', "\\\"")))
        .collect()
}

/// What a record's expected file should hold, from replaying it.
fn expected_text(replay: &Result<Replayed, records::ReplayError>) -> String {
    match replay {
        Ok(r) => tags_text(&[
            ("Position", r.game.position_tag()),
            (
                "Outcome",
                r.game.outcome_text().unwrap_or_else(|| "*".into()),
            ),
            ("Plies", r.plies.to_string()),
        ]),
        Err(e) => tags_text(&[("Refused", e.to_string())]),
    }
}

/// The checks that hold for every record that replays, whatever its expected file says.
fn check_replayed(kind: GameKind, record: &Record, r: &Replayed) -> Result<(), String> {
    if record.kind()? != kind {
        return Err(format!("a {} record in {}'s folder", record.kind()?, kind));
    }
    let result = records::result_tag(&r.game);
    if let Some(tag) = record.tag("Result").filter(|t| *t != result) {
        return Err(format!("[Result \"{tag}\"], but the replay gives {result}"));
    }
    let start = record.start()?;
    let text = records::write(&record.tags, &start, &r.log)?;
    let again = Record::parse(&text)
        .and_then(|rec| rec.replay().map_err(|e| e.to_string()))
        .map_err(|e| format!("as written again:\n{text}\n{e}"))?;
    if again.log != r.log
        || again.game.position_tag() != r.game.position_tag()
        || again.game.outcome() != r.game.outcome()
    {
        return Err(format!("as written again, it replays otherwise:\n{text}"));
    }
    // As exported (each roll's dice named), no move-text line is over 78 characters but a
    // single word that cannot be broken.
    let exported = records::write_with_dice(&record.tags, &start, &r.log)?;
    let long = exported
        .lines()
        .filter(|l| !l.starts_with('[') && l.chars().count() > 78 && l.contains(' '));
    if let Some(line) = long.into_iter().next() {
        return Err(format!("as exported, a line over 78 characters:\n{line}"));
    }
    Ok(())
}

/// Replays one record and compares (or, blessing, rewrites) its expected file.
fn check_record(kind: GameKind, pgn: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(pgn).map_err(|e| e.to_string())?;
    let record = Record::parse(&text)?;
    let replay = record.replay();
    if let Ok(r) = &replay {
        check_replayed(kind, &record, r)?;
    }
    let want = expected_text(&replay);
    let final_path = pgn.with_extension("final");
    let have = std::fs::read_to_string(&final_path).ok();
    if have.as_deref() == Some(want.as_str()) {
        return Ok(());
    }
    if bless() {
        std::fs::write(&final_path, &want).map_err(|e| e.to_string())?;
        // Straight to stderr, past the harness's capture: a rewrite must be seen.
        let _ = writeln!(std::io::stderr(), "blessed {}", shown(&final_path));
        return Ok(());
    }
    Err(match have {
        None => format!("no {} (BLESS=1 writes it):\n{want}", shown(&final_path)),
        Some(have) => format!(
            "{} says\n{have}but the replay gives\n{want}(BLESS=1 accepts the replay)",
            shown(&final_path)
        ),
    })
}

#[test]
fn every_record_replays_to_its_expected_final_position() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for &kind in GameKind::ALL {
        let mut files = Vec::new();
        files_under(
            &workspace_root().join("tests/data").join(kind.name()),
            &mut files,
        );
        files.sort();
        for path in &files {
            let is_pgn = path.extension().is_some_and(|e| e == "pgn");
            let outcome = if is_pgn {
                checked += 1;
                check_record(kind, path)
            } else if !path.with_extension("pgn").exists() {
                Err("an expected file without its record: delete it".to_string())
            } else {
                Ok(())
            };
            if let Err(why) = outcome {
                failures.push(format!("{}: {why}", shown(path)));
            }
        }
    }
    assert!(
        checked >= 7,
        "only {checked} records found under tests/data"
    );
    assert!(
        failures.is_empty(),
        "{} record(s) failed:\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}
