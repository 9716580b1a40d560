//! The rules crate's data-driven tests: every game's notation lists, the moves its player's guide shows, every record under tests/data, and random Siberian Dice games, through `AnyGame` only.

mod facts;
mod guides;
mod notation;
mod records;
mod siberian_games;

use std::path::PathBuf;

/// The workspace root, where `notation/` and `tests/data/` are.
pub fn workspace_root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Whether this run rewrites the expected files (`BLESS=1 cargo test ...`) instead of checking them.
pub fn bless() -> bool {
    std::env::var_os("BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}
