//! `pbem stats [GAME]` and `pbem ratings GAME`: the games on record counted, the players rated.

use std::path::Path;

use super::{refuse, Exit};
use crate::games::GameKind;
use crate::gm::{ratings, stats};
use crate::store::Store;

/// A game kind by the name the GM wrote, or the refusal naming the games there are.
pub(super) fn kind_named(name: &str) -> anyhow::Result<GameKind> {
    GameKind::parse(name).ok_or_else(|| {
        let names: Vec<&str> = GameKind::ALL.iter().map(|k| k.name()).collect();
        refuse(format_args!(
            "unknown game '{name}' (games: {})",
            names.join(", ")
        ))
    })
}

/// `pbem stats [GAME]`.
pub(super) fn run_stats(db: &Path, game: Option<&str>) -> anyhow::Result<Exit> {
    let kind = game.map(kind_named).transpose()?;
    let mut store = Store::open(db, false)?;
    let games = store.read(|tx| stats::games_on_record(tx, kind))?;
    print!("{}", stats::report(&games, kind));
    Ok(0)
}

/// `pbem ratings GAME`.
pub(super) fn run_ratings(db: &Path, game: &str) -> anyhow::Result<Exit> {
    let kind = kind_named(game)?;
    let mut store = Store::open(db, false)?;
    let standings = store.read(|tx| ratings::standings(tx, kind))?;
    print!("{}", ratings::report(&standings, kind));
    Ok(0)
}
