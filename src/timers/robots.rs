//! The robots' pass: every robot seat that is to act is played, each game in its own transaction, never inside the transaction of a player's mail (a slow robot never delays a reply).

use chrono::Duration;

use crate::compose::Ctx;
use crate::gm;
use crate::store::Store;

/// Plays every robot seat that is to act, each game in its own transaction (a robot against
/// a robot goes on until a player is to act, the game ends, or the pass's bound for a game is
/// reached): how many decisions were made. A game whose robot fails (an error or a panic) is
/// quarantined like one whose timer fails, and every other game goes on; only the store's own
/// trouble stops the pass.
pub fn run(store: &mut Store, ctx: &Ctx) -> anyhow::Result<usize> {
    let games = store.read(|tx| tx.games_with_robots())?;
    let early = Duration::seconds(ctx.cfg.early_resolve_secs);
    let mut made = 0;
    for id in games {
        let outcome = crate::unwind::catch(|| {
            store.tx(|tx| {
                // One mail per seat for all the robots did in this game.
                ctx.gathering(tx, || gm::robots::play_robots(&mut ctx.gm(tx), id, early))
            })
        });
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
