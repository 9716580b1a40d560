//! After `pbem ingest` without a daemon: a worker in the background answers the stored mail, then draws and sends the replies, so the MTA waits for the mail's commit only.

use crate::edge;
use crate::sender::{self, Drained};
use crate::unwind;

use super::Daemon;

/// `pbem outbox send --background`, as `pbem ingest` starts it after storing a mail
/// (`sender::kick`). It becomes the one worker that waits for the send turn, or ends at once
/// when another already waits (`None`): that one will answer and send all that is stored.
/// Once it has the turn it answers every stored mail (one commit for all that came in while
/// it waited), then draws and sends everything due.
///
/// No stored mail goes unanswered: `pbem ingest` commits its mail, then starts a worker
/// unless one waits, and a waiting worker looks for stored mail only after it stops waiting.
/// A mail stored while another worker draws and sends is answered when that work ends (a
/// daemon's pass, and so a deadline, answers stored mail first).
pub fn run_background(daemon: &mut Daemon) -> anyhow::Result<Option<Drained>> {
    let Some(waiter) = daemon.store.wait_for_send_turn()? else {
        return Ok(None);
    };
    sender::lower_priority();
    let turn = daemon.store.send_turn()?;
    // From here a newly stored mail needs a new worker: this one may look for stored mail
    // before that commit.
    drop(waiter);
    answer_stored(daemon);
    let d = &mut *daemon;
    sender::drain_in_turn(&mut d.store, &d.cfg, &d.transport, &edge::now, turn).map(Some)
}

/// Processes what is stored; a failure is logged (the messages stay new for the next worker
/// or pass), and the sending goes on: the replies already queued are not held back by it.
fn answer_stored(daemon: &mut Daemon) {
    if let Err(e) = unwind::catch(|| daemon.process_stored()) {
        tracing::error!(error = %format!("{e:#}"), "processing failed; the messages stay new");
    }
}
