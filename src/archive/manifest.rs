//! What the last run archived, kept beside the pages: each game's fingerprint and each ply's, so a rerun skips what did not change.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use super::files::Files;
use crate::gamelog::Loaded;
use crate::store::{GameRow, MoveRow};

/// The manifest's file in the archive's folder.
pub(super) const FILE: &str = "manifest.json";

/// Raised when the pages change shape, so that a new program redraws an old archive.
const PAGES_VERSION: &str = "archive 1";

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct Manifest {
    pub(super) games: BTreeMap<i64, GameEntry>,
}

#[derive(Debug, Default, Clone, PartialEq, Serialize, Deserialize)]
pub(super) struct GameEntry {
    /// Everything the game's pages are made of, hashed.
    pub(super) fingerprint: String,
    /// Each position's (the start, then after each ply), hashed: its picture is drawn again
    /// only when this changes (a rollback played differently).
    pub(super) positions: Vec<String>,
}

impl Manifest {
    /// The last run's manifest; an empty one when there is none or it does not read (then
    /// every page is compared and every picture drawn, which is only slower).
    pub(super) fn read(files: &Files) -> Manifest {
        std::fs::read(files.path(FILE))
            .ok()
            .and_then(|b| serde_json::from_slice(&b).ok())
            .unwrap_or_default()
    }

    pub(super) fn write(&self, files: &mut Files) -> anyhow::Result<()> {
        files.put(FILE, &serde_json::to_vec_pretty(self)?)
    }
}

fn hex(h: Sha256) -> String {
    hex::encode(h.finalize())
}

/// The game's fingerprint: its row's public state, its players' names and its plies with
/// their comments and times (read from the store's rows: an unchanged game is not replayed).
pub(super) fn fingerprint(row: &GameRow, moves: &[MoveRow], names: &[String]) -> String {
    let mut h = Sha256::new();
    let parts = [
        PAGES_VERSION.to_string(),
        row.kind.clone(),
        row.options.clone(),
        row.status.as_str().to_string(),
        format!("{:?}", row.event),
        format!("{:?}", row.start_position),
        format!("{} {} {}", row.seed_revealed, row.salts_fixed, row.salts),
        crate::store::ts(row.created_at),
        names.join("\n"),
    ];
    for p in parts {
        h.update(p.as_bytes());
        h.update([0]);
    }
    for m in moves {
        let ply = format!(
            "{}\0{}\0{}\0{:?}\0{:?}\0{}",
            m.ply,
            m.actor,
            m.text,
            m.comment,
            m.robot,
            crate::store::ts(m.at)
        );
        h.update(ply.as_bytes());
        h.update([1]);
    }
    hex(h)
}

/// Each position's hash, a chain: the start's (kind, options, set-up), then each ply's
/// with the one before it.
pub(super) fn positions(g: &Loaded) -> Vec<String> {
    let mut h = Sha256::new();
    h.update(PAGES_VERSION.as_bytes());
    h.update(
        format!(
            "{}\0{}\0{:?}",
            g.row.kind, g.row.options, g.row.start_position
        )
        .as_bytes(),
    );
    let mut last = hex(h);
    let mut out = vec![last.clone()];
    for m in &g.moves {
        let mut h = Sha256::new();
        h.update(format!("{last}\0{}\0{}", m.actor, m.text).as_bytes());
        last = hex(h);
        out.push(last.clone());
    }
    out
}
