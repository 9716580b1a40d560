//! The GM's hand on a game's life: pause and resume, deadlines, options changed mid-game, rollback, cancel and eject, each a typed operation that says what changed.

use chrono::{DateTime, Duration, Utc};

use super::{close, play_with, Gm, News, Played, Refusal};
use crate::duration::{self, Range};
use crate::gamelog::{self, Loaded};
use crate::games::{Actor, ToAct, COMMON_OPTIONS};
use crate::store::{GameStatus, PendingKind, Tx};

/// The options a GM may change once a game has begun: its clocks and its press. Everything
/// else shapes the position or the dice, which the log already depends on.
pub const CHANGEABLE: &[&str] = &["move_time", "grace", "timeout", "early_resolve", "press"];

fn must_be(g: &Loaded, status: GameStatus) -> Result<(), Refusal> {
    if g.row.status == status {
        Ok(())
    } else {
        Err(Refusal::NotActive(g.row.status))
    }
}

/// Pauses an active game: no clock runs and no move is played until `resume`.
pub fn pause(
    tx: &Tx,
    g: &mut Loaded,
    reason: &str,
    now: DateTime<Utc>,
) -> anyhow::Result<Result<(), Refusal>> {
    if let Err(r) = must_be(g, GameStatus::Active) {
        return Ok(Err(r));
    }
    tx.set_paused(g.row.id, Some((reason, now)), now)?;
    tx.log_event(Some(g.row.id), now, &format!("paused by the GM: {reason}"))?;
    g.row.status = GameStatus::Paused;
    g.row.paused_at = Some(now);
    g.row.pause_reason = Some(reason.to_string());
    Ok(Ok(()))
}

/// Resumes a paused game: every clock (the move deadline, the salt window) gets back the time
/// it had left when the game was paused.
pub fn resume(tx: &Tx, g: &mut Loaded, now: DateTime<Utc>) -> anyhow::Result<Result<(), Refusal>> {
    if g.row.status != GameStatus::Paused {
        return Ok(Err(Refusal::NotPaused(g.row.status)));
    }
    if let Some(empty) = g.seats.iter().find(|s| s.email.is_none()) {
        return Ok(Err(Refusal::SeatEmpty(
            g.game.seat_name(empty.seat).to_string(),
        )));
    }
    let gap = now - g.row.paused_at.unwrap_or(now);
    let deadline = g.row.deadline.map(|d| d + gap);
    let salts_until = g.row.salts_until.map(|u| u + gap);
    tx.set_paused(g.row.id, None, now)?;
    tx.shift_clocks(g.row.id, deadline, salts_until)?;
    tx.log_event(Some(g.row.id), now, "resumed by the GM")?;
    g.row.status = GameStatus::Active;
    g.row.paused_at = None;
    g.row.pause_reason = None;
    g.row.deadline = deadline;
    g.row.salts_until = salts_until;
    Ok(Ok(()))
}

/// A new deadline for whoever is to act now; it must lie ahead.
pub fn set_deadline(
    tx: &Tx,
    g: &mut Loaded,
    when: DateTime<Utc>,
    now: DateTime<Utc>,
) -> anyhow::Result<Result<(), Refusal>> {
    if let Err(r) = must_be(g, GameStatus::Active) {
        return Ok(Err(r));
    }
    if when <= now {
        return Ok(Err(Refusal::BadOptions(format!(
            "{} is not in the future",
            crate::template::date(when)
        ))));
    }
    // As far ahead as a move's time limit may reach, and no further (a stored date must read
    // back, and a clock a year off is a typing error).
    if when > now + Duration::seconds(Range::MOVE_TIME.max_secs) {
        return Ok(Err(Refusal::BadOptions(format!(
            "{} is more than {} away",
            crate::template::date(when),
            duration::format_secs(Range::MOVE_TIME.max_secs)
        ))));
    }
    if matches!(g.game.to_act(), ToAct::Nobody) {
        return Ok(Err(Refusal::BadOptions(
            "nobody is to act: there is no clock to set".into(),
        )));
    }
    tx.set_deadline(g.row.id, Some(when))?;
    g.row.deadline = Some(when);
    Ok(Ok(()))
}

/// Moves the deadline later by `secs` (from now when there is none, or it has passed).
pub fn extend(
    tx: &Tx,
    g: &mut Loaded,
    secs: i64,
    now: DateTime<Utc>,
) -> anyhow::Result<Result<(), Refusal>> {
    let from = g.row.deadline.filter(|d| *d > now).unwrap_or(now);
    set_deadline(tx, g, from + Duration::seconds(secs), now)
}

/// Changes one of the `CHANGEABLE` options of a game that has not ended; returns the value
/// as it now reads. The game's own checks apply (a game without press has no `press`).
pub fn set_option(
    tx: &Tx,
    g: &mut Loaded,
    name: &str,
    value: &str,
) -> anyhow::Result<Result<String, Refusal>> {
    if g.row.status == GameStatus::Finished {
        return Ok(Err(Refusal::NotActive(g.row.status)));
    }
    if !CHANGEABLE.contains(&name) {
        return Ok(Err(Refusal::BadOptions(format!(
            "'{name}' cannot change once the game is made (these can: {})",
            CHANGEABLE.join(", ")
        ))));
    }
    let mut move_secs = g.row.move_secs;
    let mut options = gamelog::options_of(&g.row)?;
    if name == "move_time" {
        move_secs = match value {
            "none" => None,
            v => match duration::parse(v, Range::MOVE_TIME) {
                Ok(s) => Some(s),
                Err(e) => return Ok(Err(Refusal::BadOptions(format!("move_time: {e}")))),
            },
        };
    } else {
        let known = COMMON_OPTIONS.iter().any(|o| o.name == name)
            || g.kind().facts().options.iter().any(|o| o.name == name);
        if !known {
            return Ok(Err(Refusal::BadOptions(format!(
                "{} has no option '{name}'",
                g.kind().title()
            ))));
        }
        options.insert(name.to_string(), value.to_string());
        let mut row = g.row.clone();
        row.options = serde_json::to_string(&options)?;
        if let Err(e) = gamelog::start_of(&row) {
            return Ok(Err(Refusal::BadOptions(e.to_string())));
        }
    }
    let json = serde_json::to_string(&options)?;
    tx.set_options(g.row.id, &json, move_secs)?;
    let reloaded = gamelog::load(tx, g.row.id)?;
    *g = reloaded;
    Ok(Ok(match (name, move_secs) {
        ("move_time", Some(s)) => duration::format_secs(s),
        ("move_time", None) => "none".into(),
        _ => value.to_string(),
    }))
}

/// Which plies a rollback keeps.
#[derive(Debug, Clone, Copy)]
pub enum Rollback {
    /// Undo this many plies.
    Plies(usize),
    /// Keep the first N plies.
    To(usize),
}

/// What a rollback did.
#[derive(Debug)]
pub struct RolledBack {
    /// The plies undone, as (actor, text), in the order they were played.
    pub undone: Vec<(String, String)>,
    /// The game had ended, and is on again.
    pub reopened: bool,
}

/// Undoes the last plies, back to where a player acts (a roll or a forced ply would only be
/// played again, the same: dice are derived from the seed, never drawn again). Orders, plans
/// and draw offers of the undone turn go; the clock restarts. A game whose dice seed is
/// already public cannot go back: every roll to come would be known.
pub fn rollback(
    tx: &Tx,
    g: &mut Loaded,
    how: Rollback,
    now: DateTime<Utc>,
) -> anyhow::Result<Result<RolledBack, Refusal>> {
    if matches!(g.row.status, GameStatus::Open | GameStatus::Paused) {
        return Ok(Err(Refusal::NotActive(g.row.status)));
    }
    let len = g.moves.len();
    let wanted = match how {
        Rollback::Plies(0) => {
            return Ok(Err(Refusal::BadOptions(
                "nothing to take back: say how many plies (1 or more)".into(),
            )))
        }
        Rollback::Plies(n) => len.checked_sub(n),
        Rollback::To(n) => (n < len).then_some(n),
    };
    let Some(wanted) = wanted else {
        return Ok(Err(Refusal::BadOptions(format!(
            "the game has {len} plies"
        ))));
    };
    let keep = rest_point(g, wanted)?;
    if keep >= len {
        return Ok(Err(Refusal::BadOptions(
            "nothing to take back before the opening roll".into(),
        )));
    }
    if g.row.seed_revealed && g.kind().rolls_dice() {
        return Ok(Err(Refusal::SeedPublic));
    }
    let undone: Vec<(String, String)> = g.moves[keep..]
        .iter()
        .map(|m| (m.actor.clone(), m.text.clone()))
        .collect();
    let reopened = g.row.status == GameStatus::Finished;
    tx.truncate_moves(g.row.id, keep)?;
    tx.clear_pending(g.row.id, PendingKind::Orders)?;
    tx.clear_pending(g.row.id, PendingKind::Plan)?;
    tx.clear_draw_offers(g.row.id)?;
    if reopened {
        tx.set_game_status(g.row.id, GameStatus::Active, None, now)?;
    }
    let deadline = g.row.move_secs.map(|s| now + Duration::seconds(s));
    tx.set_deadline(g.row.id, deadline)?;
    tx.log_event(Some(g.row.id), now, &format!("rolled back to ply {keep}"))?;
    *g = gamelog::load(tx, g.row.id)?;
    Ok(Ok(RolledBack { undone, reopened }))
}

/// The latest point at or before `wanted` plies where a player acts: not before a roll or a
/// ply the GM plays by itself (the game would play it again at once).
fn rest_point(g: &Loaded, mut wanted: usize) -> anyhow::Result<usize> {
    // The opening rolls (Dicess's set-up roll, Siberian's sequences) stand: taken back, the
    // game would make them again at once, the same.
    let opening = g
        .moves
        .iter()
        .take_while(|m| m.actor == crate::records::actor_name(&g.start, Actor::Chance))
        .count();
    wanted = wanted.max(opening);
    while wanted > opening {
        let (game, _) = gamelog::replay(&g.start, &g.moves[..wanted], g.row.id)?;
        let rests = match game.to_act() {
            ToAct::Seat(_) => game.auto_ply().is_none(),
            ToAct::Orders(_) => true,
            ToAct::Chance(_) | ToAct::Nobody => false,
        };
        if rests && game.outcome().is_none() {
            break;
        }
        wanted -= 1;
    }
    Ok(wanted)
}

/// The GM declares the game drawn (an abandoned game, a dispute): the game's shared draw,
/// with a result and news that say whose decision it was, not the players' agreement.
pub fn declare_draw(gm: &Gm, g: &mut Loaded) -> anyhow::Result<Result<Played, Refusal>> {
    if let Err(r) = must_be(g, GameStatus::Active) {
        return Ok(Err(r));
    }
    let played = match play_with(gm, g, Actor::Gm, |game| game.declare_draw())? {
        Ok(p) => p,
        Err(e) => return Ok(Err(Refusal::Rules(e))),
    };
    gm.tx
        .log_event(Some(g.row.id), gm.now, "the GM declared the game drawn")?;
    gm.tell(News::Played {
        g,
        played: &played,
        except: None,
    })?;
    Ok(Ok(played))
}

/// Ends the game with no result (`Result "*"`), for a reason the players are told; the dice
/// seed is revealed as at every game's end.
pub fn cancel(
    tx: &Tx,
    g: &mut Loaded,
    reason: &str,
    now: DateTime<Utc>,
) -> anyhow::Result<Result<(), Refusal>> {
    if g.row.status == GameStatus::Finished {
        return Ok(Err(Refusal::NotActive(g.row.status)));
    }
    close(tx, g, &format!("cancelled by the GM: {reason}"), now)?;
    tx.log_event(
        Some(g.row.id),
        now,
        &format!("cancelled by the GM: {reason}"),
    )?;
    Ok(Ok(()))
}

/// Takes a player out of their seat, and seats `replacement` there at once if given (with
/// its own new secret `token`). The seat's orders and plan of this turn go with the player
/// (never to the next one). Without a replacement the game is paused until the GM seats one
/// (`pbem game replace`): a seat nobody plays must not run out of time. Returns the address
/// that left.
pub fn eject(
    tx: &Tx,
    g: &mut Loaded,
    seat: usize,
    replacement: Option<(&str, &str)>,
    now: DateTime<Utc>,
) -> anyhow::Result<Result<String, Refusal>> {
    if g.row.status == GameStatus::Finished {
        return Ok(Err(Refusal::NotActive(g.row.status)));
    }
    let name = g.game.seat_name(seat).to_string();
    let Some(email) = g.seat(seat).and_then(|s| s.email.clone()) else {
        return Ok(Err(Refusal::SeatEmpty(name)));
    };
    let new = match replacement {
        Some((addr, token)) => match crate::mail::address(addr) {
            Some(a) => Some((a, token)),
            None => return Ok(Err(Refusal::BadAddress(addr.to_string()))),
        },
        None => None,
    };
    tx.empty_seat(g.row.id, seat)?;
    tx.clear_pending_of(g.row.id, seat)?;
    tx.log_event(
        Some(g.row.id),
        now,
        &format!("the GM ejected {email} from {name}"),
    )?;
    match new {
        Some((addr, token)) => {
            let player = tx.player_id(&addr)?;
            tx.fill_seat(g.row.id, seat, player, token)?;
            tx.log_event(Some(g.row.id), now, &format!("seat {name} given to {addr}"))?;
        }
        None if g.row.status == GameStatus::Active => {
            let reason = format!("{name} needs a new player");
            tx.set_paused(g.row.id, Some((&reason, now)), now)?;
        }
        None => {}
    }
    *g = gamelog::load(tx, g.row.id)?;
    Ok(Ok(email))
}
