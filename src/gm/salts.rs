//! The salts players add to the dice before the first roll, and the roll that waits for them: the salt window, START, the GM's start, the game's own seeded dice.

use anyhow::anyhow;
use chrono::{DateTime, Duration, Utc};

use super::play::advance;
use super::{Gm, News, Played};
use crate::dice::{Seed, SeededDice};
use crate::gamelog::Loaded;
use crate::games::ToAct;
use crate::store::{GameRow, GameStatus, Tx};

/// Play begins: every seat is taken. A game with dice opens its salt window (no die is rolled
/// before every player could add a salt); then the GM does what is his to do (an opening roll,
/// once the salts allow it) and the clock starts for whoever acts first.
pub(super) fn begin(gm: &mut Gm, g: &mut Loaded) -> anyhow::Result<Played> {
    let (tx, now) = (gm.tx, gm.now);
    if g.kind().rolls_dice() && !g.row.salts_fixed {
        let window = super::options::of(g).salt_window_secs;
        let until = (window > 0).then(|| now + Duration::seconds(window));
        tx.set_salts_until(g.row.id, until)?;
        g.row.salts_until = until;
    }
    let mut played = Played::default();
    advance(gm, g, None, &mut played)?;
    Ok(played)
}

/// The salts may still change: not fixed, and the window (if any) not yet closed.
pub(super) fn salts_open(row: &GameRow, now: DateTime<Utc>) -> bool {
    !row.salts_fixed && row.salts_until.is_none_or(|u| now < u)
}

/// The dice may roll: the salts are fixed, or every player is ready, or the window closed
/// (a game without a window keeps its salts open only until its first roll).
pub(super) fn dice_may_roll(g: &Loaded, now: DateTime<Utc>) -> bool {
    g.row.salts_fixed
        || g.seats.iter().all(|s| s.ready)
        || g.row.salts_until.is_none_or(|u| u <= now)
}

/// The game waits for its first roll until the salts are fixed.
pub fn waiting_for_salts(g: &Loaded) -> bool {
    matches!(g.game.to_act(), ToAct::Chance(_)) && !g.row.salts_fixed
}

/// A seat is done with its salts (it sent START). Once every seat is, the salts are fixed
/// and a roll that was waiting for them is made: what followed is returned.
pub(super) fn ready(gm: &mut Gm, g: &mut Loaded, seat: usize) -> anyhow::Result<Played> {
    mark_ready(gm.tx, g, seat)?;
    if g.seats.iter().all(|s| s.ready) && !g.row.salts_fixed {
        return fix_salts_and_roll(gm, g, "Every player is ready");
    }
    roll_if_due(gm, g)
}

/// The GM fixes the salts now, whoever is ready, and the game goes on (`pbem game start`);
/// the players hear of it.
pub fn start_now(gm: &mut Gm, g: &mut Loaded) -> anyhow::Result<Played> {
    if g.row.status != GameStatus::Active {
        anyhow::bail!("game {} is {}: nothing to start", g.row.id, g.row.status);
    }
    if g.row.salts_fixed {
        anyhow::bail!("game {}: the salts are already fixed", g.row.id);
    }
    let played = fix_salts_and_roll(gm, g, "The GM started the game")?;
    gm.tell(News::Played {
        g,
        played: &played,
        except: None,
    })?;
    Ok(played)
}

/// Fixes the salts, makes the roll that waited for them, and reports first why and which
/// salts ("Every player is ready: the salts are fixed: a | b.").
fn fix_salts_and_roll(gm: &mut Gm, g: &mut Loaded, why: &str) -> anyhow::Result<Played> {
    fix_salts(gm.tx, g)?;
    let mut played = roll_if_due(gm, g)?;
    let salts = salts(&g.row)?;
    let fixed = if salts.is_empty() {
        "the salts are fixed (none were sent)".to_string()
    } else {
        format!("the salts are fixed: {}", salts.join(" | "))
    };
    played.reports.insert(0, format!("{why}: {fixed}."));
    Ok(played)
}

/// Makes a roll that was waiting for the salts, if they now allow it (at the end of the salt
/// window, or once everybody is ready); nothing otherwise.
pub(super) fn roll_if_due(gm: &mut Gm, g: &mut Loaded) -> anyhow::Result<Played> {
    let mut played = Played::default();
    // A game at rest on a roll is waiting for its salts (`advance` rolls whatever it may).
    let at_a_roll = matches!(g.game.to_act(), ToAct::Chance(_));
    if g.row.status == GameStatus::Active && at_a_roll && dice_may_roll(g, gm.now) {
        advance(gm, g, None, &mut played)?;
    }
    Ok(played)
}

/// Marks a seat ready for the first roll; a seat already ready needs no write.
pub(super) fn mark_ready(tx: &Tx, g: &mut Loaded, seat: usize) -> anyhow::Result<()> {
    if let Some(s) = g.seats.iter_mut().find(|s| s.seat == seat && !s.ready) {
        tx.set_ready(g.row.id, seat)?;
        s.ready = true;
    }
    Ok(())
}

pub(super) fn fix_salts(tx: &Tx, g: &mut Loaded) -> anyhow::Result<()> {
    tx.fix_salts(g.row.id)?;
    g.row.salts_fixed = true;
    Ok(())
}

/// The salts players sent, as stored: (seat, salt) pairs in arrival order.
pub fn salt_pairs(row: &GameRow) -> anyhow::Result<Vec<(usize, String)>> {
    serde_json::from_str(&row.salts).map_err(|e| anyhow!("game {}: bad stored salts: {e}", row.id))
}

/// The salts in the documented order that goes into every roll (`dice::salts_in_order`).
pub fn salts(row: &GameRow) -> anyhow::Result<Vec<String>> {
    Ok(crate::dice::salts_in_order(&salt_pairs(row)?))
}

/// The game's own seeded dice, continuing after the rolls already in its log.
pub(super) fn seeded_dice(g: &Loaded) -> anyhow::Result<SeededDice> {
    let seed = g
        .row
        .seed
        .as_deref()
        .ok_or_else(|| anyhow!("game {} has no dice seed", g.row.id))?;
    let seed = Seed::from_hex(seed)?;
    let salts = salts(&g.row)?;
    Ok(SeededDice::new(
        &seed,
        &salts,
        &g.row.id.to_string(),
        g.rolls.len() as u64,
    ))
}
