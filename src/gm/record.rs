//! A game's record as the GM exports it (tags, plies, each roll named), and the turn's orders as stored.

use std::collections::BTreeMap;

use anyhow::anyhow;

use super::names::{seat_holder, Reveal};
use super::salts;
use crate::gamelog::{self, Loaded};
use crate::records;
use crate::store::{PendingKind, Tx};

/// The game's record as anyone may read it: its players by name, never by address
/// (`export_as` with `Reveal::Names`).
pub fn export(g: &Loaded) -> anyhow::Result<String> {
    export_as(g, Reveal::Names)
}

/// The game's record: tags (players shown as `reveal` allows, options, start, dice commitment
/// and, once revealed, the seed), then every ply, each roll with a comment naming its dice
/// (`roll 3 {d6}`) so that anyone can check it against the seed without knowing the game's
/// rules.
pub fn export_as(g: &Loaded, reveal: Reveal) -> anyhow::Result<String> {
    let mut tags: Vec<(String, String)> = vec![
        ("Game".into(), g.kind().name().into()),
        (
            "Event".into(),
            g.row
                .event
                .clone()
                .unwrap_or_else(|| format!("pbem game {}", g.row.id)),
        ),
        ("Site".into(), "pbem".into()),
        (
            "Date".into(),
            g.row.created_at.format("%Y.%m.%d").to_string(),
        ),
        ("GameId".into(), g.row.id.to_string()),
    ];
    for s in &g.seats {
        tags.push((
            g.game.seat_name(s.seat).to_string(),
            seat_holder(s, reveal).unwrap_or_else(|| "?".into()),
        ));
    }
    tags.push(("Result".into(), records::result_tag(&g.game)));
    let options = gamelog::options_of(&g.row)?;
    if !options.is_empty() {
        tags.push(("Options".into(), records::format_options(&options)));
    }
    if let Some(p) = &g.row.start_position {
        tags.push(("Position".into(), p.clone()));
    }
    // (Games stored before games without dice stopped getting a seed still have one: it
    // stays out of their record.)
    if let (Some(c), true) = (&g.row.commitment, g.kind().rolls_dice()) {
        tags.push(("DiceCommitment".into(), c.clone()));
        // One plain tag a salt, as a player wrote it (`[DiceSalt1 "..."]`), not a JSON list.
        tags.extend(records::dice_salt_tags(&salts(&g.row)?));
        if g.row.seed_revealed {
            if let Some(s) = &g.row.seed {
                tags.push(("DiceSeed".into(), s.clone()));
            }
        }
    }
    // The robot's plies are marked (`{robot}`) after them, and a ply brought in from a
    // record has its comment there (a ply is one or the other: the robot plays only after).
    let marks: Vec<Option<String>> = g
        .moves
        .iter()
        .map(|m| m.robot.clone().or_else(|| m.comment.clone()))
        .collect();
    records::write_with_dice_marked(&tags, &g.start, &g.plies()?, &marks).map_err(|e| anyhow!(e))
}

/// The orders each seat sent this turn, for adjudication.
pub(super) fn turn_orders(tx: &Tx, game: i64) -> anyhow::Result<BTreeMap<usize, Vec<String>>> {
    Ok(tx.pending(game, PendingKind::Orders)?.into_iter().collect())
}
