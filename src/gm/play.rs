//! Playing plies: one ply checked and logged, then what follows by itself (rolls, forced plies, planned outcomes), and the end of a game.

use anyhow::anyhow;
use chrono::{DateTime, Duration, Utc};

use super::salts::{dice_may_roll, fix_salts, mark_ready, seeded_dice};
use super::{Gm, News, Refusal};
use crate::dice::DiceSource;
use crate::gamelog::{self, Loaded};
use crate::games::{Actor, AnyGame, Outcome, PlyError, ToAct};
use crate::records;
use crate::store::{GameStatus, PendingKind, PlannedOutcome, Tx};

/// What playing a ply did: every ply logged (the player's, then any rolls and forced plies).
#[derive(Debug, Clone, Default)]
pub struct Played {
    pub plies: Vec<(Actor, String)>,
    /// Reports of the plies (adjudication results, a roll's choices), in order.
    pub reports: Vec<String>,
    pub finished: bool,
    /// What only one seat may read (its own plan's moves that could not be played: a plan is
    /// private, the others learn only what was played), as (seat, text).
    pub private: Vec<(usize, String)>,
}

/// Plays one ply in a loaded game and logs it, then lets the GM do what follows by itself
/// (rolls, forced plies, conditional outcomes planned in advance). An illegal ply changes
/// nothing and returns the reason: the game's state (over, not started, paused) or the rules'.
pub fn play(
    gm: &mut Gm,
    g: &mut Loaded,
    actor: Actor,
    text: &str,
    message: Option<i64>,
) -> anyhow::Result<Result<Played, Refusal>> {
    match g.row.status {
        GameStatus::Active => {}
        GameStatus::Finished => return Ok(Err(Refusal::GameOver)),
        GameStatus::Open => return Ok(Err(Refusal::NotStarted)),
        GameStatus::Paused => return Ok(Err(Refusal::Paused)),
    }
    let mut played = Played::default();
    if let Err(e) = try_ply(gm, g, actor, text, message, &mut played)? {
        return Ok(Err(Refusal::Rules(e)));
    }
    if let Actor::Seat(seat) = actor {
        // A player who moves is done with salts: the move counts as their START (only games
        // with dice have salts).
        if g.kind().rolls_dice() && !g.row.salts_fixed {
            mark_ready(gm.tx, g, seat)?;
        }
    }
    advance(gm, g, message, &mut played)?;
    Ok(Ok(played))
}

/// The GM's own ply (`pbem game play --gm`: an adjudication now, a roll by hand); the players
/// are told it was the GM's doing.
pub fn play_as_gm(
    gm: &mut Gm,
    g: &mut Loaded,
    ply: &str,
) -> anyhow::Result<Result<Played, Refusal>> {
    let mut played = match play(gm, g, Actor::Gm, ply, None)? {
        Ok(p) => p,
        Err(e) => return Ok(Err(e)),
    };
    let said = match g.kind().facts().simultaneous {
        true => "The GM adjudicated the turn.".to_string(),
        false => format!("The GM played {ply}."),
    };
    played.reports.insert(0, said);
    gm.tell(News::Played {
        g,
        played: &played,
        except: None,
    })?;
    Ok(Ok(played))
}

/// Plays a ply that is not the side to move's move (a resignation, an agreed draw, a
/// forfeit): `f` makes it on a copy of the position; it is logged, and the game finished if
/// it ended. An illegal ply changes nothing and returns the reason.
pub(super) fn play_with(
    gm: &Gm,
    g: &mut Loaded,
    actor: Actor,
    f: impl FnOnce(&mut AnyGame) -> Result<String, PlyError>,
) -> anyhow::Result<Result<Played, PlyError>> {
    let mut after = g.game.clone();
    let canonical = match f(&mut after) {
        Ok(c) => c,
        Err(e) => return Ok(Err(e)),
    };
    let mut played = Played::default();
    log_ply(gm, g, after, actor, &canonical, None, &mut played)?;
    if let Some(outcome) = g.game.outcome() {
        finish(gm.tx, g, &outcome, gm.now)?;
        played.finished = true;
    }
    Ok(Ok(played))
}

/// Tries a ply on a copy of the position and, if it is legal, logs it and makes it the
/// position; an illegal ply changes nothing.
fn try_ply(
    gm: &Gm,
    g: &mut Loaded,
    actor: Actor,
    text: &str,
    message: Option<i64>,
    played: &mut Played,
) -> anyhow::Result<Result<String, PlyError>> {
    let mut after = g.game.clone();
    match after.play(actor, text) {
        Ok(canonical) => {
            log_ply(gm, g, after, actor, &canonical, message, played)?;
            Ok(Ok(canonical))
        }
        Err(e) => Ok(Err(e)),
    }
}

/// Logs a ply already played on `after`, and makes `after` the game's position.
fn log_ply(
    gm: &Gm,
    g: &mut Loaded,
    after: AnyGame,
    actor: Actor,
    canonical: &str,
    message: Option<i64>,
    played: &mut Played,
) -> anyhow::Result<()> {
    let name = records::actor_name(&g.game, actor);
    let ply = gm
        .tx
        .append_move(g.row.id, &name, canonical, gm.now, message)?;
    g.moves.push(crate::store::MoveRow {
        ply,
        actor: name,
        text: canonical.to_string(),
        at: gm.now,
        robot: None,
        comment: None,
    });
    if let (Actor::Chance, ToAct::Chance(sides)) = (actor, g.game.to_act()) {
        g.rolls
            .extend(sides.into_iter().zip(gamelog::chance_values(canonical)));
    }
    g.set_game(after);
    played.plies.push((actor, canonical.to_string()));
    if let Some(r) = g.game.last_report() {
        played.reports.push(r);
    }
    Ok(())
}

/// After a ply: roll what the GM must roll, play forced or planned plies, then either finish
/// the game or restart the clock for whoever acts next.
pub(super) fn advance(
    gm: &mut Gm,
    g: &mut Loaded,
    message: Option<i64>,
    played: &mut Played,
) -> anyhow::Result<()> {
    let (tx, now) = (gm.tx, gm.now);
    let mut seeded = None;
    let mut held_for_salts = false;
    for _ in 0..1000 {
        if g.game.outcome().is_some() {
            break;
        }
        match g.game.to_act() {
            ToAct::Chance(sides) => {
                if !dice_may_roll(g, now) {
                    held_for_salts = true;
                    break;
                }
                if !g.row.salts_fixed {
                    fix_salts(tx, g)?;
                }
                let source: &mut dyn DiceSource = match gm.scripted() {
                    Some(d) => d,
                    None => seeded.get_or_insert(seeded_dice(g)?),
                };
                let values: Vec<u32> = sides.iter().map(|&s| source.roll(s)).collect();
                let text = g.game.chance_ply(&values);
                let before = played.reports.len();
                try_ply(gm, g, Actor::Chance, &text, message, played)?
                    .map_err(|e| anyhow!("the game refused its own roll {text}: {e}"))?;
                // The roll's own report, if it made one (a plan's move makes its choices moot).
                let roll_report = (played.reports.len() > before).then_some(before);
                try_plan(gm, g, &values, message, played, roll_report)?;
            }
            ToAct::Seat(seat) => {
                let Some(auto) = g.game.auto_ply() else { break };
                try_ply(gm, g, Actor::Seat(seat), &auto, message, played)?
                    .map_err(|e| anyhow!("the game refused its own forced ply {auto}: {e}"))?;
            }
            ToAct::Orders(_) | ToAct::Nobody => break,
        }
    }
    if let Some(outcome) = g.game.outcome() {
        finish(tx, g, &outcome, now)?;
        played.finished = true;
    } else {
        // A roll held for the salts is due when the salt window closes; anything else gets
        // the time limit of a move.
        let deadline = if held_for_salts {
            g.row.salts_until
        } else {
            g.row.move_secs.map(|s| now + Duration::seconds(s))
        };
        tx.set_deadline(g.row.id, deadline)?;
        g.row.deadline = deadline;
        g.row.reminded = false;
        g.row.graced = false;
    }
    Ok(())
}

/// After a roll: the outcome the player chose in advance for this value, if it is legal.
fn try_plan(
    gm: &Gm,
    g: &mut Loaded,
    values: &[u32],
    message: Option<i64>,
    played: &mut Played,
    roll_report: Option<usize>,
) -> anyhow::Result<()> {
    let ToAct::Seat(seat) = g.game.to_act() else {
        return Ok(());
    };
    let tx = gm.tx;
    let plans = tx.plans(g.row.id)?;
    let Some((_, plan)) = plans.into_iter().find(|(s, _)| *s == seat) else {
        return Ok(());
    };
    tx.clear_pending(g.row.id, PendingKind::Plan)?;
    let Some(first) = values.first() else {
        return Ok(());
    };
    // Planned moves that could not be played are said, so that a plan line confirmed when it
    // was sent is not silently dropped.
    let mut skipped = String::new();
    for outcome in plan.iter().filter(|o| o.rolls.contains(first)) {
        match try_ply(gm, g, Actor::Seat(seat), &outcome.ply, message, played)? {
            Ok(_) => {
                if let Some(r) = roll_report.and_then(|i| played.reports.get_mut(i)) {
                    // Only what was rolled: the rest offered a choice the plan made.
                    if let Some(cut) = r.find(". ") {
                        r.truncate(cut + 1);
                    }
                    // A game whose move reports itself says it next; others name it here.
                    if !g.game.reports_every_ply() {
                        r.push_str(&format!(
                            " The move planned for it, {}, is played.",
                            outcome.ply
                        ));
                    }
                }
                if !skipped.is_empty() {
                    let note = format!("Of your plan, not played:{skipped}");
                    played.private.push((seat, note));
                }
                return Ok(());
            }
            Err(e) => skipped.push_str(&format!(" {} cannot be played: {e}.", outcome.ply)),
        }
    }
    if !skipped.is_empty() {
        let note = format!("None of the planned moves can be played:{skipped}");
        played.private.push((seat, note));
    }
    Ok(())
}

/// Stores a seat's conditional outcomes until the roll.
pub(super) fn store_plan(
    tx: &Tx,
    game: i64,
    seat: usize,
    outcomes: &[(Vec<u32>, String)],
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    let plan: Vec<PlannedOutcome> = outcomes
        .iter()
        .map(|(rolls, ply)| PlannedOutcome {
            rolls: rolls.clone(),
            ply: ply.clone(),
        })
        .collect();
    tx.set_plan(game, seat, &plan, now)
}

/// Marks a game finished with its result, stops its clock and reveals its dice seed.
pub(super) fn finish(
    tx: &Tx,
    g: &mut Loaded,
    outcome: &Outcome,
    now: DateTime<Utc>,
) -> anyhow::Result<()> {
    let _ = outcome;
    let text = g.game.outcome_text().unwrap_or_else(|| "over".into());
    close(tx, g, &text, now)
}

/// Ends a game: finished with `why` as its result in words, its clock stopped, its dice seed
/// revealed, its facts kept for the statistics (`stats::keep`). A game the GM cancelled has
/// no outcome, so its record's result stays `*`.
pub(super) fn close(tx: &Tx, g: &mut Loaded, why: &str, now: DateTime<Utc>) -> anyhow::Result<()> {
    tx.set_game_status(g.row.id, GameStatus::Finished, Some(why), now)?;
    tx.set_deadline(g.row.id, None)?;
    tx.reveal_seed(g.row.id)?;
    tx.clear_pending(g.row.id, PendingKind::Orders)?;
    tx.clear_pending(g.row.id, PendingKind::Plan)?;
    g.row.status = GameStatus::Finished;
    g.row.result = Some(why.to_string());
    g.row.seed_revealed = true;
    // What the statistics and the ratings count of it, so that they need not replay it.
    super::stats::keep(tx, g)
}
