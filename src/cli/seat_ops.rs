//! `pbem game resign|draw|salt|press`: what a player can ask for by mail, done by the GM for a seat through the same GM operations, with the same mails to the players.

use clap::ValueEnum;

use super::{print_played, say, seat_of, send_now, Exit};
use crate::compose::Ctx;
use crate::gamelog;
use crate::gm;
use crate::store::Store;

/// What `game draw` does for the seat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum DrawAction {
    /// Offer a draw (or accept one: the game is drawn once every seat has).
    Offer,
    Accept,
    /// Withdraw every offer.
    Decline,
}

/// The seat resigns; exit 1 with the reason when it cannot.
pub(super) fn resign(store: &mut Store, ctx: &Ctx, id: i64, seat: &str) -> anyhow::Result<Exit> {
    let (res, g) = store.tx(|tx| {
        let mut g = gamelog::load(tx, id)?;
        let s = seat_of(&g, seat)?;
        let res = gm::resign(&ctx.gm(tx), &mut g, s)?;
        if res.is_ok() {
            tx.log_event(Some(id), ctx.now, &format!("the GM resigned {seat}"))?;
        }
        Ok((res, g))
    })?;
    match res {
        Ok(played) => {
            send_now(store, ctx.cfg);
            print_played(&g, &played);
            Ok(0)
        }
        Err(why) => {
            say(&format!("refused: {why}"));
            Ok(1)
        }
    }
}

/// The seat offers, accepts or declines a draw; the other players are told.
pub(super) fn draw(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    seat: &str,
    action: DrawAction,
) -> anyhow::Result<Exit> {
    let said = store.tx(|tx| {
        let mut g = gamelog::load(tx, id)?;
        let s = seat_of(&g, seat)?;
        if action == DrawAction::Decline {
            gm::decline_draw(&ctx.gm(tx), &g, s)?;
            return Ok(Ok("draw declined; all offers are withdrawn".to_string()));
        }
        Ok(match gm::offer_draw(&ctx.gm(tx), &mut g, s)? {
            Err(why) => Err(why),
            Ok(gm::DrawOffer::Agreed(_)) => Ok("draw agreed by all: the game is over".to_string()),
            Ok(gm::DrawOffer::Waiting(_)) => {
                Ok("draw offered; the game ends drawn when every player accepts".to_string())
            }
        })
    })?;
    match said {
        Ok(text) => {
            send_now(store, ctx.cfg);
            println!("game {id}: {text}");
            Ok(0)
        }
        Err(why) => {
            say(&format!("refused: {why}"));
            Ok(1)
        }
    }
}

/// A salt for the game's dice in the seat's name.
pub(super) fn salt(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    seat: &str,
    text: &str,
) -> anyhow::Result<Exit> {
    let max = ctx.cfg.max_salts_per_game;
    let res = store.tx(|tx| {
        let g = gamelog::load(tx, id)?;
        let s = seat_of(&g, seat)?;
        gm::add_salt(tx, &g, s, text, max, ctx.now)
    })?;
    match res {
        Ok(n) => {
            println!("game {id}: salt recorded for {seat} ({n} of at most {max})");
            Ok(0)
        }
        Err(why) => {
            say(&format!("refused: {why}"));
            Ok(1)
        }
    }
}

/// Press in the seat's name, to the seats named (or ALL), mailed as its PRESS line would be.
pub(super) fn press(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    seat: &str,
    to: &[String],
    text: &str,
) -> anyhow::Result<Exit> {
    let res = store.tx(|tx| {
        let g = gamelog::load(tx, id)?;
        let s = seat_of(&g, seat)?;
        Ok(match gm::press_targets(&g, s, to) {
            Err(why) => Err(why.to_string()),
            Ok(targets) if targets.is_empty() => Err("nobody to send it to".to_string()),
            Ok(targets) => {
                let to_all = to.iter().any(|t| t.eq_ignore_ascii_case("ALL"));
                gm::send_press(&ctx.gm(tx), &g, s, &targets, to_all, text)?;
                let names: Vec<&str> = targets.iter().map(|x| g.game.seat_name(*x)).collect();
                Ok(names.join(", "))
            }
        })
    })?;
    match res {
        Ok(names) => {
            send_now(store, ctx.cfg);
            println!("game {id}: press from {seat} sent to {names}");
            Ok(0)
        }
        Err(why) => {
            say(&format!("refused: {why}"));
            Ok(1)
        }
    }
}
