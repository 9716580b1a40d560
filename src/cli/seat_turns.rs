//! `pbem game orders|plan|start --seat|join|status|legal|history` and `pbem player games`: a seat's turn, its seat and what it may see, done through the same GM operations as its mail, with the same mails to the players.

use chrono::Duration;

use super::{print_played, say, seat_of, send_now, Exit};
use crate::compose::{self, Ctx};
use crate::gamelog;
use crate::gm;
use crate::store::Store;

/// Prints a refusal and gives exit status 1.
fn refused(why: impl std::fmt::Display) -> anyhow::Result<Exit> {
    say(&format!("refused: {why}"));
    Ok(1)
}

/// The seat's orders for the current simultaneous turn; each line's reading is printed.
pub fn orders(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    seat: &str,
    lines: &[String],
) -> anyhow::Result<Exit> {
    let early = Duration::seconds(ctx.cfg.early_resolve_secs);
    let res = store.tx(|tx| {
        let mut g = gamelog::load(tx, id)?;
        let s = seat_of(&g, seat)?;
        let res = gm::submit_orders(tx, &mut g, s, lines, ctx.now, early)?;
        if res.is_ok() {
            tx.log_event(Some(id), ctx.now, &format!("the GM gave {seat}'s orders"))?;
        }
        Ok(res)
    })?;
    let checked = match res {
        Ok(c) => c,
        Err(why) => return refused(why),
    };
    for (line, reading) in lines.iter().zip(&checked) {
        match reading {
            gm::LineCheck::Order(canonical) => println!("ok    {line}  ->  {canonical}"),
            gm::LineCheck::Void(why) => println!("void  {line}  ({why})"),
            gm::LineCheck::Prose => println!("ignored  {line}  (not an order)"),
        }
    }
    println!("game {id}: {seat}'s orders are recorded for this turn");
    Ok(0)
}

/// The seat's declaration with its outcomes planned per roll, read as the game reads such a
/// mail (the declaration first, then one line per roll).
pub fn plan(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    seat: &str,
    lines: &[String],
) -> anyhow::Result<Exit> {
    let (res, g) = store.tx(|tx| {
        let mut g = gamelog::load(tx, id)?;
        let s = seat_of(&g, seat)?;
        let Some(plan) = g.game.conditional(lines) else {
            return Ok((
                Err(
                    "these lines are not a declaration with planned outcomes in this game"
                        .to_string(),
                ),
                g,
            ));
        };
        let res = gm::play_planned(tx, &mut g, s, &plan, ctx.now, None, None)?;
        if let Ok(played) = &res {
            compose::announce(tx, ctx, &g, played, None)?;
        }
        Ok((res.map_err(|e| e.to_string()), g))
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
pub fn start(store: &mut Store, ctx: &Ctx, id: i64, seat: &str) -> anyhow::Result<Exit> {
    let (res, g) = store.tx(|tx| {
        let mut g = gamelog::load(tx, id)?;
        let s = seat_of(&g, seat)?;
        let res = gm::start(tx, &mut g, s, ctx.now, None)?;
        if let Ok(started) = &res {
            compose::announce(tx, ctx, &g, &started.played, None)?;
        }
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
pub fn join(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    email: &str,
    seat: Option<&str>,
) -> anyhow::Result<Exit> {
    let email = email.trim().to_ascii_lowercase();
    let res = store.tx(|tx| {
        let res = gm::join(tx, id, seat, &email, ctx.now, None)?;
        if let Ok(seated) = &res {
            tx.log_event(Some(id), ctx.now, &format!("the GM seated {email}"))?;
            if seated.started {
                compose::welcome_all(tx, ctx, &gamelog::load(tx, id)?)?;
            }
        }
        Ok(res)
    })?;
    match res {
        Ok(seated) => {
            send_now(store, ctx.cfg);
            println!("game {id}: {email} plays {}", seated.seat_name);
            if seated.started {
                println!("game {id}: every seat is taken; the game has begun");
            }
            Ok(0)
        }
        Err(why) => refused(why),
    }
}

/// Whose turn, the deadline and the players, as the seat's STATUS shows them.
pub fn status(store: &mut Store, id: i64, seat: Option<&str>) -> anyhow::Result<Exit> {
    let g = store.tx(|tx| gamelog::load(tx, id))?;
    let seat = seat.map(|s| seat_of(&g, s)).transpose()?;
    print!("{}", gm::view::status(&g, seat));
    Ok(0)
}

/// The seat's legal moves now, as its MOVES shows them.
pub fn legal(store: &mut Store, id: i64, seat: &str) -> anyhow::Result<Exit> {
    let g = store.tx(|tx| gamelog::load(tx, id))?;
    println!("{}", gm::view::moves(&g, seat_of(&g, seat)?));
    Ok(0)
}

/// The game so far as a record's move text, as HISTORY shows it.
pub fn history(store: &mut Store, id: i64) -> anyhow::Result<Exit> {
    let g = store.tx(|tx| gamelog::load(tx, id))?;
    println!("{}", gm::view::history(&g)?);
    Ok(0)
}

/// A player's games and the games with open seats, as LIST shows them.
pub fn games_of(store: &mut Store, email: &str) -> anyhow::Result<Exit> {
    let email = email.trim().to_ascii_lowercase();
    print!("{}", store.tx(|tx| gm::view::games_of(tx, &email))?);
    Ok(0)
}
