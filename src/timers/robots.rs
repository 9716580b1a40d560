//! The robots' pass: every robot seat that is to act is played, its search outside any transaction and its move in a short one of its own (a slow robot never delays a reply or holds the store).

use chrono::Duration;

use crate::compose::{Ctx, HeldNews};
use crate::gm;
use crate::store::Store;

/// Plays every robot seat that is to act (a robot against a robot goes on until a player is
/// to act, the game ends, or the pass's bound for a game is reached): how many decisions were
/// made. Each decision is searched with no lock held, on the position as read, then played
/// in a short transaction of its own if the game has not moved on meanwhile; so a slow search
/// never holds up a player's mail, and each robot's move is told as any player's. A game whose
/// robot fails (an error or a panic) is quarantined like one whose timer fails, and every
/// other game goes on; only the store's own trouble stops the pass.
pub fn run(store: &mut Store, ctx: &Ctx) -> anyhow::Result<usize> {
    let games = store.read(|tx| tx.games_with_robots())?;
    let early = Duration::seconds(ctx.cfg.early_resolve_secs);
    let mut made = 0;
    for id in games {
        let outcome = crate::unwind::catch(|| play_game(store, ctx, id, early));
        match outcome {
            Ok(0) => {}
            Ok(n) => {
                tracing::info!(game = id, "robots of game {id}: {n} decisions played");
                made += n;
            }
            Err(e) if crate::store::is_transient(&e) => return Err(e),
            Err(e) => super::quarantine(store, ctx, id, &format!("{e:#}"))?,
        }
    }
    Ok(made)
}

/// One game's robots: a draw offered to them answered, then decision after decision, up to
/// the pass's bound (a round whose decisions the game moved past before they were played
/// counts toward it too, so the loop always ends). A robot's turn of several plies (d4 d6's
/// declaration then choice, Siberian Dice's die then hex) is told as one mail a seat, as a
/// player's would be: its news is held across its transactions until the turn is over.
fn play_game(store: &mut Store, ctx: &Ctx, id: i64, early: Duration) -> anyhow::Result<usize> {
    let mut held = HeldNews::default();
    let result = play_turns(store, ctx, id, early, &mut held);
    if !held.is_empty() {
        store.tx(|tx| ctx.tell_held(tx, &mut held))?;
    }
    result
}

/// The decisions of `play_game`, their news gathered in `held`.
fn play_turns(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    early: Duration,
    held: &mut HeldNews,
) -> anyhow::Result<usize> {
    let bound = gm::robots::PLIES_PER_PASS;
    let mut made = 0;
    if !store
        .read(|tx| gm::robots::draw_offered_to_robots(tx, id))?
        .is_empty()
    {
        made +=
            store.tx(|tx| ctx.gathering(tx, || gm::robots::answer_draw_offers(&ctx.gm(tx), id)))?;
    }
    for _ in 0..bound {
        let room = bound - made;
        let Some(due) = store.read(|tx| gm::robots::due(tx, id, room))? else {
            break;
        };
        let decisions = gm::robots::decide_due(&due);
        made += store.tx(|tx| {
            ctx.gathering_held(tx, held, || {
                let n = gm::robots::play_decided(&mut ctx.gm(tx), &due, decisions, early)?;
                let goes_on = n > 0 && made + n < bound && gm::robots::turn_goes_on(tx, &due)?;
                Ok((n, !goes_on))
            })
        })?;
        if made >= bound {
            break;
        }
    }
    Ok(made)
}
