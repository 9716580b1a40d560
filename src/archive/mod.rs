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

use crate::gamelog::{self, Loaded};
use crate::gm::stats::{self, GameFacts};
use crate::store::{GameStatus, Store, Tx};

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

/// Every game that has begun, loaded, with its facts, in the order they were last played.
fn on_record(tx: &Tx) -> anyhow::Result<Vec<(GameFacts, Loaded)>> {
    let mut out = Vec::new();
    for row in tx.games(None)? {
        if row.status == GameStatus::Open {
            continue;
        }
        let g = gamelog::load(tx, row.id)?;
        out.push((stats::facts(&g)?, g));
    }
    out.sort_by_key(|(f, _)| (f.last, f.id));
    Ok(out)
}

/// Writes (or brings up to date) the archive in `dir`: a game whose pages are as the last
/// run left them is skipped; every other file is compared before it is written.
pub fn write(store: &mut Store, dir: &Path) -> anyhow::Result<Written> {
    let games = store.read(on_record)?;
    let mut files = files::Files::new(dir)?;
    let old = manifest::Manifest::read(&files);
    let mut new = manifest::Manifest::default();
    let facts: Vec<GameFacts> = games.iter().map(|(f, _)| f.clone()).collect();
    let people = people::People::of(&facts);
    let mut skipped = 0;
    let mut removed = 0;
    for (f, g) in &games {
        let a = game_page::Archived {
            g,
            f,
            seats: people.seats(f),
        };
        let (entry, skip) = game_page::write(&mut files, &a, old.games.get(&f.id))?;
        skipped += usize::from(skip);
        new.games.insert(f.id, entry);
    }
    files.put("style.css", html::CSS.as_bytes())?;
    index::write(&mut files, &facts, &people)?;
    player_page::write(&mut files, &facts, &people)?;
    kind_page::write(&mut files, &facts, &people)?;
    for dir in ["players", "kinds"] {
        removed += files.prune(dir)?;
    }
    new.write(&mut files)?;
    Ok(Written {
        written: files.written,
        unchanged: files.unchanged,
        games: games.len(),
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

/// Every game's row (its state, not its clock), its seats, its plies' count and comments,
/// and every player's name (a rename or a comment changes no ply), hashed.
fn stamp(tx: &Tx) -> anyhow::Result<String> {
    let mut h = Sha256::new();
    for row in tx.games(None)? {
        let moves = tx.moves(row.id)?;
        let seats: Vec<String> = tx
            .seats(row.id)?
            .iter()
            .map(|s| format!("{}={:?}/{:?}", s.seat, s.email, s.robot))
            .collect();
        h.update(
            format!(
                "{} {} {:?} {} {} {} {} {} {}\n",
                row.id,
                row.status.as_str(),
                row.result,
                row.seed_revealed,
                row.salts_fixed,
                row.salts,
                row.options,
                moves.len(),
                seats.join(",")
            )
            .as_bytes(),
        );
        for m in moves.iter().filter(|m| m.comment.is_some()) {
            h.update(format!("{} {:?}\n", m.ply, m.comment).as_bytes());
        }
    }
    for (player, name) in tx.player_names()? {
        h.update(format!("{player}={name}\n").as_bytes());
    }
    Ok(hex::encode(h.finalize()))
}
