//! `pbem archive DIR`: the games on record as a static website (indexes, a page per game, ply, player and game kind), rewritten only where something changed.

mod chart;
mod files;
mod game_page;
mod html;
mod index;
mod kind_page;
mod manifest;
mod people;
mod player_page;
mod plies;
mod public;

use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

use crate::gamelog;
use crate::gm::stats;
use crate::store::{Store, Tx};

/// What one run did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Written {
    /// Files written because they were new or their content changed.
    pub written: usize,
    /// Files found already right (compared, or a skipped game's, kept).
    pub unchanged: usize,
    /// Games on record, and those of them unchanged since the last run (not drawn again).
    pub games: usize,
    pub skipped: usize,
    /// Files of a game that are no longer part of it (plies a rollback took back).
    pub removed: usize,
}

/// Writes (or brings up to date) the archive in `dir`: a game whose pages are as the last
/// run left them (its rows' fingerprint) is neither replayed nor drawn again, and the indexes
/// are made from the games' facts (a finished game's kept at its end); every file is
/// compared before it is written.
pub fn write(store: &mut Store, dir: &Path) -> anyhow::Result<Written> {
    let mut files = files::Files::new(dir)?;
    let old = manifest::Manifest::read(&files);
    let mut new = manifest::Manifest::default();
    let (facts, skipped) = store.read(|tx| {
        let facts = stats::games_on_record(tx, None)?;
        let people = people::People::of(&facts);
        let mut skipped = 0;
        for f in &facts {
            let seats = people.seats(f);
            let row = tx
                .game(f.id)?
                .ok_or_else(|| anyhow::anyhow!("there is no game {}", f.id))?;
            let moves = tx.moves(f.id)?;
            let key = game_page::people_key(&seats);
            let was = old.games.get(&f.id);
            let (fingerprint, same) = game_page::unchanged(&mut files, (&row, &moves), &key, was);
            let entry = match (same, was) {
                (true, Some(was)) => {
                    skipped += 1;
                    was.clone()
                }
                _ => {
                    let g = gamelog::load(tx, f.id)?;
                    let a = game_page::Archived { g: &g, f, seats };
                    game_page::write(&mut files, &a, fingerprint, was)?
                }
            };
            new.games.insert(f.id, entry);
        }
        Ok((facts, skipped))
    })?;
    let people = people::People::of(&facts);
    files.put("style.css", html::CSS.as_bytes())?;
    index::write(&mut files, &facts, &people)?;
    player_page::write(&mut files, &facts, &people)?;
    kind_page::write(&mut files, &facts, &people)?;
    let mut removed = 0;
    for dir in ["players", "kinds"] {
        removed += files.prune(dir)?;
    }
    new.write(&mut files)?;
    Ok(Written {
        written: files.written,
        unchanged: files.unchanged,
        games: facts.len(),
        skipped,
        removed,
    })
}

/// The archive kept current by `serve` (the config's `archive_dir`): after a pass, the
/// archive is written again only when a game changed since the last time (a cheap look at
/// the games' rows, their plies' count and comments and the players' names, not a replay).
pub struct Keeper {
    dir: PathBuf,
    stamp: Option<String>,
}

impl Keeper {
    pub fn new(dir: PathBuf) -> Keeper {
        Keeper { dir, stamp: None }
    }

    /// `keep` after a pass of `serve`: its trouble (a full disk) is logged, and holds up no
    /// mail.
    pub fn after_pass(&mut self, store: &mut Store) {
        if let Err(e) = crate::unwind::catch(|| self.keep(store)) {
            tracing::error!(error = %format!("{e:#}"), dir = %self.dir.display(), "the archive could not be written");
        }
    }

    /// Brings the archive up to date if a game changed; what it wrote, if it ran.
    pub fn keep(&mut self, store: &mut Store) -> anyhow::Result<Option<Written>> {
        let stamp = store.read(stamp)?;
        if self.stamp.as_deref() == Some(stamp.as_str()) {
            return Ok(None);
        }
        let written = write(store, &self.dir)?;
        self.stamp = Some(stamp);
        if written.written > 0 {
            tracing::info!(dir = %self.dir.display(), files = written.written, "archive updated");
        }
        Ok(Some(written))
    }
}

/// Every game's public state, its plies' count and comments and its seats' players with
/// their names (a rename or a comment changes no ply), hashed: one query of the store's.
fn stamp(tx: &Tx) -> anyhow::Result<String> {
    let mut h = Sha256::new();
    for line in tx.archive_stamp_lines()? {
        h.update(line.as_bytes());
        h.update(b"\n");
    }
    Ok(hex::encode(h.finalize()))
}
