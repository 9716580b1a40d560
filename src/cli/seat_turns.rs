//! `pbem game orders|plan|start --seat|join|status|legal|history` and `pbem player games`: a seat's turn, its seat and what it may see, done through the same GM operations as its mail, with the same mails to the players.

use chrono::Duration;

use super::{print_played, say, seat_of, send_now, Exit};
use crate::compose::Ctx;
use crate::gamelog;

use crate::gm;
use crate::store::Store;

/// The seat's lines as the GM gives them for it.
pub(super) fn turn<'l>(
    ctx: &Ctx,
    seat: usize,
    lines: &'l [String],
    intent: gm::Intent,
) -> gm::Turn<'l> {
    gm::Turn {
        seat,
        lines,
        guard: None,
        moved: false,
        by: gm::By::Gm,
        intent,
        early: Duration::seconds(ctx.cfg.early_resolve_secs),
    }
}

/// Prints a refusal and gives exit status 1.
fn refused(why: impl std::fmt::Display) -> anyhow::Result<Exit> {
    say(&format!("refused: {why}"));
    Ok(1)
}

/// The seat's orders for the current simultaneous turn; each line's reading is printed.
pub(super) fn orders(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    seat: &str,
    lines: &[String],
) -> anyhow::Result<Exit> {
    let sub = store.tx(|tx| {
        let mut g = gamelog::load(tx, id)?;
        let s = seat_of(&g, seat)?;
        let turn = turn(ctx, s, lines, gm::Intent::Orders);
        let sub = gm::submit(&mut ctx.gm(tx), &mut g, &turn)?;
        if sub.ordered {
            tx.log_event(Some(id), ctx.now, &format!("the GM gave {seat}'s orders"))?;
        }
        Ok(sub)
    })?;
    if let Some(gm::LineOutcome::Refused(why)) = sub.lines.first() {
        return refused(why.reason());
    }
    for (line, reading) in lines.iter().zip(&sub.lines) {
        match reading {
            gm::LineOutcome::Ordered(canonical) => println!("ok    {line}  ->  {canonical}"),
            gm::LineOutcome::Void(why) => println!("void  {line}  ({why})"),
            _ => println!("ignored  {line}  (not an order)"),
        }
    }
    match sub.ordered {
        true => println!("game {id}: {seat}'s orders are recorded for this turn"),
        false => println!("game {id}: no orders given for {seat} (any sent before stand)"),
    }
    Ok(0)
}

/// The seat's declaration with its outcomes planned per roll, read as the game reads such a
/// mail (the declaration first, then one line per roll).
pub(super) fn plan(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    seat: &str,
    lines: &[String],
) -> anyhow::Result<Exit> {
    let (res, g) = store.tx(|tx| {
        let mut g = gamelog::load(tx, id)?;
        let s = seat_of(&g, seat)?;
        let turn = turn(ctx, s, lines, gm::Intent::Plan);
        let sub = gm::submit(&mut ctx.gm(tx), &mut g, &turn)?;
        let res = match (sub.played, sub.lines.into_iter().next()) {
            (Some(played), _) => Ok(played),
            (None, Some(gm::LineOutcome::Refused(why))) => Err(why.reason()),
            (None, _) => Err("the plan was not played".to_string()),
        };
        Ok((res, g))
    })?;
    match res {
        Ok(played) => {
            send_now(store, ctx.cfg);
            print_played(&g, &played);
            Ok(0)
        }
        Err(why) => refused(why),
    }
}

/// The seat's START: it has no more salts to add.
pub(super) fn start(store: &mut Store, ctx: &Ctx, id: i64, seat: &str) -> anyhow::Result<Exit> {
    let (res, g) = store.tx(|tx| {
        let mut g = gamelog::load(tx, id)?;
        let s = seat_of(&g, seat)?;
        let res = gm::start(&mut ctx.gm(tx), &mut g, s, false)?;
        Ok((res, g))
    })?;
    match res {
        Ok(started) => {
            send_now(store, ctx.cfg);
            if started.all_ready {
                println!("game {id}: every player is ready; the salts are fixed");
                print_played(&g, &started.played);
            } else {
                println!("game {id}: {seat} is ready; the salts are fixed once every player is");
            }
            Ok(0)
        }
        Err(why) => refused(why),
    }
}

/// `email` takes a seat in an open game (as a confirmed JOIN by mail); the players get their
/// welcome when it was the last open seat.
pub(super) fn join(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    email: &str,
    seat: Option<&str>,
) -> anyhow::Result<Exit> {
    let email = email.trim().to_ascii_lowercase();
    if let Some(why) = gm::refused_address(&email, "the joining player", ctx.cfg) {
        return refused(why);
    }
    let res = store.tx(|tx| {
        let res = gm::join(&mut ctx.gm(tx), id, seat, &email)?;
        if res.is_ok() {
            tx.log_event(Some(id), ctx.now, &format!("the GM seated {email}"))?;
        }
        Ok(res)
    })?;
    match res {
        Ok(seated) => {
            send_now(store, ctx.cfg);
            let who = match gm::robots::robot_named(&email) {
                Some(Ok(level)) => format!("the {}", gm::robots::robot_words(level.name())),
                _ => email.clone(),
            };
            println!("game {id}: {who} plays {}", seated.seat_name);
            if seated.started {
                println!("game {id}: every seat is taken; the game has begun");
            }
            Ok(0)
        }
        Err(why) => refused(why),
    }
}

/// Whose turn, the deadline and the players, as the seat's STATUS shows them.
pub(super) fn status(store: &mut Store, id: i64, seat: Option<&str>) -> anyhow::Result<Exit> {
    let g = store.tx(|tx| gamelog::load(tx, id))?;
    let seat = seat.map(|s| seat_of(&g, s)).transpose()?;
    print!("{}", gm::view::status(&g, seat));
    Ok(0)
}

/// The seat's legal moves now, as its MOVES shows them.
pub(super) fn legal(store: &mut Store, id: i64, seat: &str) -> anyhow::Result<Exit> {
    let g = store.tx(|tx| gamelog::load(tx, id))?;
    println!("{}", gm::view::moves(&g, seat_of(&g, seat)?));
    Ok(0)
}

/// The game so far as a record's move text, as HISTORY shows it.
pub(super) fn history(store: &mut Store, id: i64) -> anyhow::Result<Exit> {
    let g = store.tx(|tx| gamelog::load(tx, id))?;
    println!("{}", gm::view::history(&g)?);
    Ok(0)
}

/// A player's games and the games with open seats, as LIST shows them.
pub(super) fn games_of(store: &mut Store, email: &str) -> anyhow::Result<Exit> {
    let email = email.trim().to_ascii_lowercase();
    print!("{}", store.tx(|tx| gm::view::games_of(tx, &email))?);
    Ok(0)
}
