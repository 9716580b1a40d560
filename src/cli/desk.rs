//! `pbem game pause|resume|deadline|extend|set|rollback|cancel|eject|message|resend`: the GM runs a game's whole life from the command line, and every player is mailed what changed.

use chrono::{DateTime, NaiveDateTime, Utc};

use super::{say, seat_of, send_now, Exit};
use crate::compose::{self, Ctx};
use crate::duration::{self, Range};
use crate::gamelog::{self, Loaded};
use crate::gm::{self, life, Gm, Refusal};
use crate::store::Store;
use crate::template::date as when;

/// Runs one GM operation on a game in one transaction (the operation tells the players what
/// it changed); the mail is sent, and a refusal exits 1 with its reason. `op` gives the line
/// the GM reads.
fn run(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    op: impl FnOnce(&Gm, &mut Loaded) -> anyhow::Result<Result<String, Refusal>>,
) -> anyhow::Result<Exit> {
    let res = store.tx(|tx| {
        let mut g = gamelog::load(tx, id)?;
        op(&ctx.gm(tx), &mut g)
    })?;
    outcome(store, ctx, id, res)
}

/// Done: the mail goes and the GM reads what was done; refused: the reason, exit 1.
fn outcome(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    res: Result<String, impl std::fmt::Display>,
) -> anyhow::Result<Exit> {
    match res {
        Ok(done) => {
            send_now(store, ctx.cfg);
            println!("game {id}: {done}");
            Ok(0)
        }
        Err(why) => {
            say(&format!("refused: {why}"));
            Ok(1)
        }
    }
}

/// `game pause ID [--reason]`.
pub(super) fn pause(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    reason: Option<&str>,
) -> anyhow::Result<Exit> {
    let reason = reason.unwrap_or("no reason given");
    run(store, ctx, id, |gm, g| {
        Ok(life::pause(gm, g, reason)?.map(|()| "paused; every player is told".into()))
    })
}

/// `game resume ID`.
pub(super) fn resume(store: &mut Store, ctx: &Ctx, id: i64) -> anyhow::Result<Exit> {
    run(store, ctx, id, |gm, g| {
        Ok(life::resume(gm, g)?.map(|()| "resumed; every clock has the time it had left".into()))
    })
}

/// `game deadline ID WHEN`: a date and time (UTC), or a duration from now.
pub(super) fn deadline(store: &mut Store, ctx: &Ctx, id: i64, text: &str) -> anyhow::Result<Exit> {
    let at = read_when(text, ctx.now)?;
    run(store, ctx, id, |gm, g| {
        Ok(life::set_deadline(gm, g, at)?.map(|()| format!("deadline {}", when(at))))
    })
}

/// A point in time as the GM writes it: `2026-12-01 18:00` (UTC), RFC 3339, or a duration
/// from now (`3d`, `2h 30m`).
fn read_when(text: &str, now: DateTime<Utc>) -> anyhow::Result<DateTime<Utc>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(text) {
        return Ok(t.with_timezone(&Utc));
    }
    for format in ["%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S"] {
        if let Ok(t) = NaiveDateTime::parse_from_str(text, format) {
            return Ok(t.and_utc());
        }
    }
    duration::parse(text, Range::MOVE_TIME)
        .map(|s| now + chrono::Duration::seconds(s))
        .map_err(|e| super::refuse(format_args!("'{text}': not a date and time (2026-12-01 18:00, UTC) nor a duration from now ({e})")))
}

/// `game extend ID DURATION`.
pub(super) fn extend(store: &mut Store, ctx: &Ctx, id: i64, by: &str) -> anyhow::Result<Exit> {
    let secs = duration::parse(by, Range::MOVE_TIME)
        .map_err(|e| super::refuse(format_args!("'{by}': {e}")))?;
    run(store, ctx, id, |gm, g| {
        Ok(life::extend(gm, g, secs)?
            .map(|()| format!("deadline {}", g.row.deadline.map(when).unwrap_or_default())))
    })
}

/// `game set ID NAME=VALUE`: one of the options that may change mid-game.
pub(super) fn set(store: &mut Store, ctx: &Ctx, id: i64, assignment: &str) -> anyhow::Result<Exit> {
    let (name, value) = assignment
        .split_once('=')
        .map(|(n, v)| (n.trim(), v.trim()))
        .ok_or_else(|| {
            super::refuse(format_args!(
                "write NAME=VALUE (these may change: {})",
                life::CHANGEABLE.join(", ")
            ))
        })?;
    run(store, ctx, id, |gm, g| {
        Ok(life::set_option(gm, g, name, value)?.map(|now_reads| format!("{name} = {now_reads}")))
    })
}

/// `game rollback ID [--plies N | --to N]`.
pub(super) fn rollback(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    how: life::Rollback,
) -> anyhow::Result<Exit> {
    run(store, ctx, id, |gm, g| {
        Ok(life::rollback(gm, g, how)?.map(|_| format!("rolled back to ply {}", g.moves.len())))
    })
}

/// `game cancel ID --reason`.
pub(super) fn cancel(store: &mut Store, ctx: &Ctx, id: i64, reason: &str) -> anyhow::Result<Exit> {
    run(store, ctx, id, |gm, g| {
        Ok(life::cancel(gm, g, reason)?.map(|()| "cancelled; the record's result is *".into()))
    })
}

/// `game eject ID --seat S [--replace ADDR]`: the player leaves the seat; the game waits,
/// paused, for a new player, or the new one is seated at once (one transaction).
pub(super) fn eject(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    seat: &str,
    replace: Option<&str>,
) -> anyhow::Result<Exit> {
    let refused = replace.and_then(|a| gm::refused_address(a, &format!("seat {seat}"), ctx.cfg));
    if let Some(why) = refused {
        return outcome(store, ctx, id, Err::<String, _>(why));
    }
    let token = replace.map(|_| crate::edge::new_token()).transpose()?;
    run(store, ctx, id, |gm, g| {
        let s = seat_of(g, seat)?;
        let email = match life::eject(gm, g, s, replace.zip(token.as_deref()))? {
            Ok(e) => e,
            Err(why) => return Ok(Err(why)),
        };
        Ok(Ok(match replace {
            Some(addr) => format!("{email} is out of {seat}, now played by {addr}"),
            None => format!(
                "{email} is out of {seat}; the game is paused: seat a player with \
                 `pbem game replace {id} --seat {seat} ADDRESS`, then `pbem game resume {id}`"
            ),
        }))
    })
}

/// `game eject ID --seat S --robot [LEVEL]`, `game replace ID --seat S robot[:LEVEL]`: the
/// robot plays the seat for the rest of the game (its player, if any, is taken out).
pub(super) fn to_robot(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    seat: &str,
    robot: &str,
) -> anyhow::Result<Exit> {
    let level = match gm::robots::robot_named(robot) {
        Some(Ok(level)) => level,
        Some(Err(why)) => return Err(crate::cli::exit::refuse(why)),
        None => {
            return Err(crate::cli::exit::refuse(format_args!(
                "'{robot}' is no robot"
            )))
        }
    };
    run(store, ctx, id, |gm, g| {
        let s = seat_of(g, seat)?;
        gm::robots::hand_to_robot(gm, g, s, level)
    })
}

/// `game message ID TEXT`: a message from the GM to every player.
pub(super) fn message(store: &mut Store, ctx: &Ctx, id: i64, text: &str) -> anyhow::Result<Exit> {
    let res = store.tx(|tx| {
        let g = gamelog::load(tx, id)?;
        Ok(gm::life::message(&ctx.gm(tx), &g, text)?
            .map(|()| "message sent to every player".to_string()))
    })?;
    outcome(store, ctx, id, res)
}

/// `game resend ID --seat S`: the last mail about the game to that seat's player, again.
pub(super) fn resend(store: &mut Store, ctx: &Ctx, id: i64, seat: &str) -> anyhow::Result<Exit> {
    let res = store.tx(|tx| {
        let g = gamelog::load(tx, id)?;
        let s = seat_of(&g, seat)?;
        let Some(email) = g.seat(s).and_then(|r| r.email.clone()) else {
            return Ok(Err(format!("{seat} has no player")));
        };
        let Some(last) = tx.last_outbox_to(id, &email)? else {
            return Ok(Err(format!(
                "no mail about game {id} was ever queued for {email}"
            )));
        };
        compose::enqueue(tx, ctx, compose::resent(&last), compose::Limit::Applies)?;
        Ok(Ok(format!(
            "{} ({}) queued again for {email}",
            last.subject, last.kind
        )))
    })?;
    outcome(store, ctx, id, res)
}
