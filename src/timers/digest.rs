//! The daily digest: each player whose digest is due gets one mail listing every game where it is their turn, with the plies played since the last one.

use chrono::{DateTime, Utc};

use crate::compose::{self, Ctx, DigestGame};
use crate::gamelog;
use crate::games::ToAct;
use crate::store::{GameStatus, Store, Tx};

/// How many plies of a game a digest lists at most (the board shows the rest).
const MAX_SINCE: usize = 30;

/// Sends every digest that is due; one player's failure is logged and the others go on.
pub(super) fn run(store: &mut Store, ctx: &Ctx) -> anyhow::Result<usize> {
    let due = store.read(|tx| tx.digests_due(ctx.now))?;
    let mut sent = 0;
    for crate::store::DigestDue {
        player,
        email,
        last,
    } in due
    {
        let outcome = crate::unwind::catch(|| {
            store.tx(|tx| {
                let games = waiting(tx, ctx, &email, last)?;
                let any = !games.is_empty();
                if any {
                    compose::digest(tx, ctx, &email, games)?;
                }
                tx.digest_sent(player, ctx.now)?;
                Ok(any)
            })
        });
        match outcome {
            Ok(true) => sent += 1,
            Ok(false) => {}
            Err(e) if crate::store::is_transient(&e) => return Err(e),
            Err(e) => tracing::error!(player, error = %format!("{e:#}"), "digest failed"),
        }
    }
    Ok(sent)
}

/// The player's active games where it is their turn (a move to make, or orders not yet sent).
fn waiting(
    tx: &Tx,
    ctx: &Ctx,
    email: &str,
    last: Option<DateTime<Utc>>,
) -> anyhow::Result<Vec<DigestGame>> {
    let mut games = Vec::new();
    for (id, seat) in tx.seats_of(email)? {
        // Only a game still on is replayed: a player's finished games may be many.
        if tx.game(id)?.is_none_or(|r| r.status != GameStatus::Active) {
            continue;
        }
        let g = gamelog::load(tx, id)?;
        let turn = match g.game.to_act() {
            ToAct::Seat(s) => s == seat,
            ToAct::Orders(seats) => seats.contains(&seat) && !g.ordered.contains(&seat),
            _ => false,
        };
        let Some(token) = g.seat(seat).and_then(|s| s.token.clone()) else {
            continue;
        };
        if !turn {
            continue;
        }
        let plies = g.plies()?;
        let since: Vec<String> = g
            .moves
            .iter()
            .zip(&plies)
            .filter(|(m, _)| last.is_none_or(|l| m.at > l))
            .map(|(_, (a, t))| format!("{} played {t}", crate::records::actor_name(&g.game, *a)))
            .collect();
        let skip = since.len().saturating_sub(MAX_SINCE);
        games.push(DigestGame {
            id,
            title: g.kind().title(),
            seat: g.game.seat_name(seat),
            since: since[skip..].to_vec(),
            board: g.board().to_string(),
            to_act: crate::gm::to_act_text(&g),
            deadline: crate::gm::clock::deadline(&g).map(crate::template::date),
            reply_to: ctx.cfg.seat_address(&token),
        });
    }
    Ok(games)
}
