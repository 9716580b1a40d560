//! The rules crate's one test binary, needing nothing of the app: every game's notation lists, the moves its player's guide shows and every record under tests/data, through `AnyGame` only; each game's rules through its engine (seed examples, pseudo-random and property-tested games, DATC cases); and the dice derivation.

mod lcg;

mod d4d6_example;
mod d4d6_playout;
mod d4d6_rules;
mod dice;
mod dicerink_games;
mod dicerink_props;
mod dicerink_rules;
mod diptactoe_datc;
mod diptactoe_rules;
mod facts;
mod guides;
mod notation;
mod record_roundtrip;
mod record_shared;
mod records;
mod robot;
mod robot_dicerink;
mod robot_dicess;
mod robot_siberian;
mod robot_tablebase;
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
