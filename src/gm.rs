//! The GM's operations on stored games, shared by the CLI and the mail path: create, play, advance, export.

use std::collections::BTreeMap;

use anyhow::anyhow;
use chrono::{DateTime, Duration, Utc};

use crate::dice::{DiceSource, Seed, SeededDice};
use crate::edge;
use crate::gamelog::{self, Loaded};
use crate::games::{Actor, AnyGame, GameKind, Options, Outcome, PlyError, ToAct};
use crate::records;
use crate::store::{GameRow, GameStatus, NewGame, PendingKind, PlannedOutcome, Tx};

pub mod life;
mod ops;
mod seats;
mod turn;
pub mod view;
pub use ops::{
    add_salt, decline_draw, offer_draw, press_targets, resign, set_digest, set_vacation, DrawOffer,
    Refusal,
};
pub use seats::{join, open_new, seat_open_to, Seated};
pub use turn::{play_planned, start, submit_orders, Checked, LineCheck, Started};

/// What the GM asks for when creating a game.
#[derive(Debug, Clone, Default)]
pub struct GameSpec {
    pub kind: Option<GameKind>,
    pub options: Options,
    /// (seat name, player address) for the seats filled at creation.
    pub players: Vec<(String, String)>,
    pub event: Option<String>,
    /// Per-move (or per-turn) time limit.
    pub move_secs: Option<i64>,
    /// Start from a `[Position]` instead of the game's start.
    pub position: Option<String>,
}

/// The randomness a new game needs, made at the edge (CLI or daemon) and handed in.
pub struct Secrets {
    /// One secret reply token per seat, in seat order.
    pub tokens: Vec<String>,
    pub seed: Seed,
}

impl Secrets {
    /// Fresh secrets from the operating system.
    pub fn generate(seats: usize) -> anyhow::Result<Secrets> {
        let tokens = (0..seats)
            .map(|_| edge::new_token())
            .collect::<anyhow::Result<_>>()?;
        Ok(Secrets {
            tokens,
            seed: edge::new_seed()?,
        })
    }
}

/// Creates a game and its seats; seats without a player stay open for `JOIN`.
pub fn create_game(
    tx: &Tx,
    spec: &GameSpec,
    secrets: &Secrets,
    now: DateTime<Utc>,
) -> anyhow::Result<i64> {
    let kind = spec.kind.ok_or_else(|| anyhow!("which game?"))?;
    // Every option (durations with their ranges included) is checked when the game is built.
    let game = match &spec.position {
        Some(p) => AnyGame::from_position(kind, &spec.options, p),
        None => AnyGame::new(kind, &spec.options),
    }
    .map_err(|e| anyhow!("{e}"))?;
    let names = game.seat_names();
    let mut filled = vec![None; names.len()];
    for (seat, email) in &spec.players {
        let s = game.seat_by_name(seat).ok_or_else(|| {
            anyhow!(
                "{} has no seat '{seat}' (seats: {})",
                kind.title(),
                names.join(", ")
            )
        })?;
        if filled[s].is_some() {
            anyhow::bail!("seat {} is given twice", names[s]);
        }
        let Some(email) = crate::mail::address(email) else {
            anyhow::bail!("'{email}' is not a mail address");
        };
        filled[s] = Some(email);
    }
    if secrets.tokens.len() < names.len() {
        anyhow::bail!("not enough reply tokens for {} seats", names.len());
    }
    let all_filled = filled.iter().all(Option::is_some);
    let options_json = serde_json::to_string(&spec.options)?;
    // A game without dice has no seed to commit to, reveal or record.
    let dice = kind.rolls_dice();
    let seed_hex = dice.then(|| secrets.seed.to_hex());
    let commitment = dice.then(|| secrets.seed.commitment());
    let id = tx.insert_game(
        &NewGame {
            kind: kind.name(),
            options_json: &options_json,
            status: if all_filled {
                GameStatus::Active
            } else {
                GameStatus::Open
            },
            event: spec.event.as_deref(),
            start_position: spec.position.as_deref(),
            seed: seed_hex.as_deref(),
            commitment: commitment.as_deref(),
            move_secs: spec.move_secs,
        },
        now,
    )?;
    for (s, email) in filled.iter().enumerate() {
        let player = email.as_deref().map(|e| tx.player_id(e)).transpose()?;
        let token = email.as_ref().map(|_| secrets.tokens[s].as_str());
        tx.insert_seat(id, s, player, token)?;
    }
    if all_filled {
        let mut g = gamelog::load(tx, id)?;
        begin(tx, &mut g, now, None)?;
    }
    Ok(id)
}

/// Play begins: every seat is taken. A game with dice opens its salt window (no die is rolled
/// before every player could add a salt); then the GM does what is his to do (an opening roll,
/// once the salts allow it) and the clock starts for whoever acts first.
pub fn begin(
    tx: &Tx,
    g: &mut Loaded,
    now: DateTime<Utc>,
    dice: Option<&mut dyn DiceSource>,
) -> anyhow::Result<Played> {
    if g.kind().rolls_dice() && !g.row.salts_fixed {
        let window = g.common.salt_window_secs;
        let until = (window > 0).then(|| now + Duration::seconds(window));
        tx.set_salts_until(g.row.id, until)?;
        g.row.salts_until = until;
    }
    let mut played = Played::default();
    advance(tx, g, now, None, dice, &mut played)?;
    Ok(played)
}

/// The salts may still change: not fixed, and the window (if any) not yet closed.
pub fn salts_open(row: &GameRow, now: DateTime<Utc>) -> bool {
    !row.salts_fixed && row.salts_until.is_none_or(|u| now < u)
}

/// The dice may roll: the salts are fixed, or every player is ready, or the window closed
/// (a game without a window keeps its salts open only until its first roll).
fn dice_may_roll(g: &Loaded, now: DateTime<Utc>) -> bool {
    g.row.salts_fixed
        || g.seats.iter().all(|s| s.ready)
        || g.row.salts_until.is_none_or(|u| u <= now)
}

/// The game waits for its first roll until the salts are fixed.
pub fn waiting_for_salts(g: &Loaded) -> bool {
    matches!(g.game.to_act(), ToAct::Chance(_)) && !g.row.salts_fixed
}

/// Who is to act, in words; a roll held back by the salt window says what it waits for.
pub fn to_act_text(g: &Loaded) -> String {
    if g.row.status == GameStatus::Paused {
        let why = g.row.pause_reason.as_deref().unwrap_or("no reason given");
        return format!("The game is paused by the GM ({why}): nobody is to move until it resumes");
    }
    if let ToAct::Orders(seats) = g.game.to_act() {
        return orders_text(g, &seats);
    }
    let text = g.game.to_act_text();
    if !waiting_for_salts(g) {
        return text;
    }
    let waiting: Vec<&str> = g
        .seats
        .iter()
        .filter(|s| !s.ready)
        .map(|s| g.game.seat_name(s.seat))
        .collect();
    let until = if g.row.salts_until.is_some() {
        ", or at the end of the salt window"
    } else {
        ""
    };
    format!(
        "{text} once the salts are fixed: when every player has sent START (still to come \
         from {}){until}",
        waiting.join(", ")
    )
}

/// A turn of orders in words: who is still awaited (never what anyone ordered), or, once all
/// are in, when the turn is adjudicated.
fn orders_text(g: &Loaded, seats: &[usize]) -> String {
    let awaited: Vec<&str> = seats
        .iter()
        .filter(|s| !g.ordered.contains(s))
        .map(|s| g.game.seat_name(*s))
        .collect();
    if !awaited.is_empty() {
        return format!("orders awaited from {}", awaited.join(", "));
    }
    match g.row.deadline {
        Some(d) => format!(
            "all orders are in: the turn is adjudicated at {}",
            crate::template::date(d)
        ),
        None => "all orders are in: the turn is adjudicated shortly".into(),
    }
}

/// Whether every seat that owes orders this turn has sent them (the deadline is then the
/// moment of adjudication, not one a player must meet).
pub fn all_ordered(g: &Loaded) -> bool {
    matches!(g.game.to_act(), ToAct::Orders(seats) if seats.iter().all(|s| g.ordered.contains(s)))
}

/// A seat is done with its salts (it sent START). Once every seat is, the salts are fixed
/// and a roll that was waiting for them is made: what followed is returned.
pub fn ready(
    tx: &Tx,
    g: &mut Loaded,
    seat: usize,
    now: DateTime<Utc>,
    dice: Option<&mut dyn DiceSource>,
) -> anyhow::Result<Played> {
    mark_ready(tx, g, seat)?;
    if g.seats.iter().all(|s| s.ready) && !g.row.salts_fixed {
        return fix_salts_and_roll(tx, g, now, dice, "Every player is ready");
    }
    resume(tx, g, now, dice)
}

/// The GM fixes the salts now, whoever is ready, and the game goes on (`pbem game start`).
pub fn start_now(
    tx: &Tx,
    g: &mut Loaded,
    now: DateTime<Utc>,
    dice: Option<&mut dyn DiceSource>,
) -> anyhow::Result<Played> {
    if g.row.status != GameStatus::Active {
        anyhow::bail!("game {} is {}: nothing to start", g.row.id, g.row.status);
    }
    if g.row.salts_fixed {
        anyhow::bail!("game {}: the salts are already fixed", g.row.id);
    }
    fix_salts_and_roll(tx, g, now, dice, "The GM started the game")
}

/// Fixes the salts, makes the roll that waited for them, and reports first why and which
/// salts ("Every player is ready: the salts are fixed: a | b.").
fn fix_salts_and_roll(
    tx: &Tx,
    g: &mut Loaded,
    now: DateTime<Utc>,
    dice: Option<&mut dyn DiceSource>,
    why: &str,
) -> anyhow::Result<Played> {
    fix_salts(tx, g)?;
    let mut played = resume(tx, g, now, dice)?;
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
pub fn resume(
    tx: &Tx,
    g: &mut Loaded,
    now: DateTime<Utc>,
    dice: Option<&mut dyn DiceSource>,
) -> anyhow::Result<Played> {
    let mut played = Played::default();
    // A game at rest on a roll is waiting for its salts (`advance` rolls whatever it may).
    let at_a_roll = matches!(g.game.to_act(), ToAct::Chance(_));
    if g.row.status == GameStatus::Active && at_a_roll && dice_may_roll(g, now) {
        advance(tx, g, now, None, dice, &mut played)?;
    }
    Ok(played)
}

/// Marks a seat ready for the first roll; a seat already ready needs no write.
fn mark_ready(tx: &Tx, g: &mut Loaded, seat: usize) -> anyhow::Result<()> {
    if let Some(s) = g.seats.iter_mut().find(|s| s.seat == seat && !s.ready) {
        tx.set_ready(g.row.id, seat)?;
        s.ready = true;
    }
    Ok(())
}

fn fix_salts(tx: &Tx, g: &mut Loaded) -> anyhow::Result<()> {
    tx.fix_salts(g.row.id)?;
    g.row.salts_fixed = true;
    Ok(())
}

/// What playing a ply did: every ply logged (the player's, then any rolls and forced plies).
#[derive(Debug, Clone, Default)]
pub struct Played {
    pub plies: Vec<(Actor, String)>,
    /// Reports of the plies (adjudication results, a roll's choices), in order.
    pub reports: Vec<String>,
    pub finished: bool,
}

/// Plays one ply in a loaded game and logs it, then lets the GM do what follows by itself
/// (rolls, forced plies, conditional outcomes planned in advance). An illegal ply changes
/// nothing and returns the reason.
pub fn play(
    tx: &Tx,
    g: &mut Loaded,
    actor: Actor,
    text: &str,
    now: DateTime<Utc>,
    message: Option<i64>,
    dice: Option<&mut dyn DiceSource>,
) -> anyhow::Result<Result<Played, PlyError>> {
    if g.row.status == GameStatus::Finished {
        return Ok(Err(PlyError::NotYourTurn("the game is over".into())));
    }
    if g.row.status == GameStatus::Open {
        return Ok(Err(PlyError::NotYourTurn(
            "the game has not started: seats are still open".into(),
        )));
    }
    if g.row.status == GameStatus::Paused {
        return Ok(Err(PlyError::NotYourTurn(
            "the GM has paused the game: nothing is played until it resumes".into(),
        )));
    }
    let mut played = Played::default();
    if let Err(e) = try_ply(tx, g, actor, text, now, message, &mut played)? {
        return Ok(Err(e));
    }
    if let Actor::Seat(seat) = actor {
        // A player who moves is done with salts: the move counts as their START (only games
        // with dice have salts).
        if g.kind().rolls_dice() && !g.row.salts_fixed {
            mark_ready(tx, g, seat)?;
        }
    }
    advance(tx, g, now, message, dice, &mut played)?;
    Ok(Ok(played))
}

/// Plays a ply that is not the side to move's move (a resignation, an agreed draw, a
/// forfeit): `f` makes it on a copy of the position; it is logged, and the game finished if
/// it ended. An illegal ply changes nothing and returns the reason.
pub fn play_with(
    tx: &Tx,
    g: &mut Loaded,
    actor: Actor,
    now: DateTime<Utc>,
    f: impl FnOnce(&mut AnyGame) -> Result<String, PlyError>,
) -> anyhow::Result<Result<Played, PlyError>> {
    let mut after = g.game.clone();
    let canonical = match f(&mut after) {
        Ok(c) => c,
        Err(e) => return Ok(Err(e)),
    };
    let mut played = Played::default();
    log_ply(tx, g, after, actor, &canonical, now, None, &mut played)?;
    if let Some(outcome) = g.game.outcome() {
        finish(tx, g, &outcome, now)?;
        played.finished = true;
    }
    Ok(Ok(played))
}

/// Tries a ply on a copy of the position and, if it is legal, logs it and makes it the
/// position; an illegal ply changes nothing.
#[allow(clippy::too_many_arguments)]
fn try_ply(
    tx: &Tx,
    g: &mut Loaded,
    actor: Actor,
    text: &str,
    now: DateTime<Utc>,
    message: Option<i64>,
    played: &mut Played,
) -> anyhow::Result<Result<String, PlyError>> {
    let mut after = g.game.clone();
    match after.play(actor, text) {
        Ok(canonical) => {
            log_ply(tx, g, after, actor, &canonical, now, message, played)?;
            Ok(Ok(canonical))
        }
        Err(e) => Ok(Err(e)),
    }
}

/// Logs a ply already played on `after`, and makes `after` the game's position.
#[allow(clippy::too_many_arguments)]
fn log_ply(
    tx: &Tx,
    g: &mut Loaded,
    after: AnyGame,
    actor: Actor,
    canonical: &str,
    now: DateTime<Utc>,
    message: Option<i64>,
    played: &mut Played,
) -> anyhow::Result<()> {
    let name = records::actor_name(&g.game, actor);
    let ply = tx.append_move(g.row.id, &name, canonical, now, message)?;
    g.moves.push(crate::store::MoveRow {
        ply,
        actor: name,
        text: canonical.to_string(),
        at: now,
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
fn advance(
    tx: &Tx,
    g: &mut Loaded,
    now: DateTime<Utc>,
    message: Option<i64>,
    mut dice: Option<&mut dyn DiceSource>,
    played: &mut Played,
) -> anyhow::Result<()> {
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
                let source: &mut dyn DiceSource = match dice.as_deref_mut() {
                    Some(d) => d,
                    None => seeded.get_or_insert(seeded_dice(g)?),
                };
                let values: Vec<u32> = sides.iter().map(|&s| source.roll(s)).collect();
                let text = g.game.chance_ply(&values);
                let before = played.reports.len();
                try_ply(tx, g, Actor::Chance, &text, now, message, played)?
                    .map_err(|e| anyhow!("the game refused its own roll {text}: {e}"))?;
                // The roll's own report, if it made one (a plan's move makes its choices moot).
                let roll_report = (played.reports.len() > before).then_some(before);
                try_plan(tx, g, &values, now, message, played, roll_report)?;
            }
            ToAct::Seat(seat) => {
                let Some(auto) = g.game.auto_ply() else { break };
                try_ply(tx, g, Actor::Seat(seat), &auto, now, message, played)?
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
#[allow(clippy::too_many_arguments)]
fn try_plan(
    tx: &Tx,
    g: &mut Loaded,
    values: &[u32],
    now: DateTime<Utc>,
    message: Option<i64>,
    played: &mut Played,
    roll_report: Option<usize>,
) -> anyhow::Result<()> {
    let ToAct::Seat(seat) = g.game.to_act() else {
        return Ok(());
    };
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
        match try_ply(tx, g, Actor::Seat(seat), &outcome.ply, now, message, played)? {
            Ok(_) => {
                if let Some(r) = roll_report.and_then(|i| played.reports.get_mut(i)) {
                    // Only what was rolled: the rest offered a choice the plan made.
                    if let Some(cut) = r.find(". ") {
                        r.truncate(cut + 1);
                    }
                    r.push_str(&skipped);
                    r.push_str(&format!(
                        " The move planned for it, {}, is played.",
                        outcome.ply
                    ));
                }
                return Ok(());
            }
            Err(e) => skipped.push_str(&format!(" {} cannot be played: {e}.", outcome.ply)),
        }
    }
    if !skipped.is_empty() {
        played
            .reports
            .push(format!("None of the planned moves can be played:{skipped}"));
    }
    Ok(())
}

/// Stores a seat's conditional outcomes until the roll.
pub fn store_plan(
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

/// The salts players sent, as stored: (seat, salt) pairs in arrival order.
pub fn salt_pairs(row: &GameRow) -> anyhow::Result<Vec<(usize, String)>> {
    serde_json::from_str(&row.salts).map_err(|e| anyhow!("game {}: bad stored salts: {e}", row.id))
}

/// The salts in the documented order that goes into every roll (`dice::salts_in_order`).
pub fn salts(row: &GameRow) -> anyhow::Result<Vec<String>> {
    Ok(crate::dice::salts_in_order(&salt_pairs(row)?))
}

/// The game's own seeded dice, continuing after the rolls already in its log.
pub fn seeded_dice(g: &Loaded) -> anyhow::Result<SeededDice> {
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

/// Marks a game finished with its result, stops its clock and reveals its dice seed.
pub fn finish(
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
/// revealed. A game the GM cancelled has no outcome, so its record's result stays `*`.
pub fn close(tx: &Tx, g: &mut Loaded, why: &str, now: DateTime<Utc>) -> anyhow::Result<()> {
    tx.set_game_status(g.row.id, GameStatus::Finished, Some(why), now)?;
    tx.set_deadline(g.row.id, None)?;
    tx.reveal_seed(g.row.id)?;
    tx.clear_pending(g.row.id, PendingKind::Orders)?;
    tx.clear_pending(g.row.id, PendingKind::Plan)?;
    g.row.status = GameStatus::Finished;
    g.row.result = Some(why.to_string());
    g.row.seed_revealed = true;
    Ok(())
}

/// The game's record: tags (players, options, start, dice commitment and, once revealed,
/// the seed), then every ply, each roll with a comment naming its dice (`roll 3 {d6}`) so
/// that anyone can check it against the seed without knowing the game's rules.
pub fn export(g: &Loaded) -> anyhow::Result<String> {
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
            s.email.clone().unwrap_or_else(|| "?".into()),
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
        tags.push(("DiceSalts".into(), serde_json::to_string(&salts(&g.row)?)?));
        if g.row.seed_revealed {
            if let Some(s) = &g.row.seed {
                tags.push(("DiceSeed".into(), s.clone()));
            }
        }
    }
    records::write_with_dice(&tags, &g.start, &g.plies()?).map_err(|e| anyhow!(e))
}

/// The orders each seat sent this turn, for adjudication.
pub fn turn_orders(tx: &Tx, game: i64) -> anyhow::Result<BTreeMap<usize, Vec<String>>> {
    Ok(tx.pending(game, PendingKind::Orders)?.into_iter().collect())
}

/// Lends the caller's dice (if any) for one call.
pub fn reborrow<'a>(dice: &'a mut Option<&mut dyn DiceSource>) -> Option<&'a mut dyn DiceSource> {
    match dice {
        Some(d) => Some(&mut **d),
        None => None,
    }
}
