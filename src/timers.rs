//! The clock's errand boy: finds the games whose deadline (or reminder) is due and hands each to the GM (`gm::clock`), in its own transaction, quarantining a game whose timer fails; then the daily digests.

use chrono::Duration;

use crate::compose::{self, Ctx};
use crate::gm;
use crate::store::Store;

mod digest;
mod robots;

/// The robots' pass (`serve`'s loop, the ingest worker, `serve --once`).
pub use robots::run as robots;

/// Runs every due reminder and deadline, each game in its own transaction. A game whose
/// timer fails (an error or a panic: a bug in its rules, a corrupt log) is quarantined and
/// every other game goes on; only the store's own trouble (`store::is_transient`, e.g. a
/// database locked past the busy timeout) stops the run, to be tried again as a whole.
pub fn run(store: &mut Store, ctx: &Ctx) -> anyhow::Result<usize> {
    let horizon = ctx.now + Duration::seconds(ctx.cfg.remind_before_secs);
    let lead = ctx.cfg.remind_before_secs;
    let near = store.read(|tx| tx.games_with_deadline_before(horizon))?;
    // A game whose reminder is not due yet by its row alone waits (a vacation only makes
    // the deadline later): a daily game is not loaded at every pass of its last day.
    let due = near.into_iter().filter(|row| {
        row.deadline.is_some_and(|d| {
            d <= ctx.now
                || (!row.reminded && gm::clock::remind_at(d, row.move_secs, lead) <= ctx.now)
        })
    });
    let mut acted = 0;
    for row in due {
        // A panic unwinds out of `store.tx`, whose transaction then rolls back.
        let outcome = crate::unwind::catch(|| {
            store.tx(|tx| {
                injected_fault(row.id)?;
                // One mail per seat for all this deadline did (why the clock stopped, and
                // the plies it played).
                ctx.gathering(tx, || gm::clock::on_time(&mut ctx.gm(tx), row.id, lead))
            })
        });
        match outcome {
            Ok(did) => {
                // Told once committed.
                if let Some(what) = did {
                    tracing::info!(game = row.id, "timer of game {}: {what}", row.id);
                    acted += 1;
                }
            }
            Err(e) if crate::store::is_transient(&e) => return Err(e),
            Err(e) => quarantine(store, ctx, row.id, &format!("{e:#}"))?,
        }
    }
    // The daily digests go after the deadlines: they show the games as the timers left them.
    Ok(acted + digest::run(store, ctx)?)
}

/// Sets a game aside: its timers stop until the GM clears it (`pbem game unquarantine`),
/// the reason is in the GM's log and in `pbem game show`, and the GM is mailed a notice.
fn quarantine(store: &mut Store, ctx: &Ctx, id: i64, reason: &str) -> anyhow::Result<()> {
    tracing::error!(game = id, error = %reason, "game quarantined: its timers are stopped");
    store.tx(|tx| {
        tx.set_quarantined(id, Some(reason))?;
        tx.log_event(Some(id), ctx.now, &format!("quarantined: {reason}"))
    })?;
    // The notice is a courtesy: the quarantine above stands even if it cannot be written.
    let text = format!(
        "Game #{id} is quarantined: its timer or adjudication failed ({reason}). Its clock is \
         stopped; every other game goes on. Once the cause is fixed, clear it with \
         `pbem game unquarantine {id}`."
    );
    if let Err(e) = store.tx(|tx| compose::to_gm(tx, ctx, None, &text)) {
        tracing::error!(game = id, error = %format!("{e:#}"), "cannot queue the GM's notice");
    }
    Ok(())
}

/// Test faults (`PBEM_FAULT=timer:panic:<game>` or `timer:error:<game>`), for the tests of
/// quarantine; nothing outside tests.
fn injected_fault(id: i64) -> anyhow::Result<()> {
    let this = |fault| crate::fault::keyed(fault) == Some(id.to_string().as_str());
    if this("timer:panic") {
        panic!("fault injected: timer:panic in game {id}");
    }
    if this("timer:error") {
        anyhow::bail!("fault injected: timer:error in game {id}");
    }
    Ok(())
}
