//! After `pbem ingest` without a daemon: the worker it starts in the background answers the stored mail, then draws and sends the replies, so the MTA waits for the mail's commit only.

use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::edge;
use crate::sender::{self, Drained};
use crate::unwind;

use super::Daemon;

/// After a commit that stored mail or queued replies: makes sure a worker will answer and
/// send them. A worker already waiting for the send turn will (it answers stored mail once
/// more after it stops waiting, and reads the outbox only once it has the turn, so after
/// this commit); otherwise `pbem outbox send --background` (`run_background`) starts. It runs in a process group
/// of its own with no standard streams: an MTA waits for `pbem ingest` and for the end of its
/// output, and must wait for neither the answering, the drawing nor the sending (nor kill
/// them when it kills a timed-out delivery). Returns whether one was started.
pub fn start(exe: &Path, db: &Path, config: Option<&Path>) -> anyhow::Result<bool> {
    if crate::store::sender_waiting(db)? {
        return Ok(false);
    }
    let mut cmd = Command::new(exe);
    cmd.arg("--db").arg(db);
    if let Some(c) = config {
        cmd.arg("--config").arg(c);
    }
    cmd.args(["outbox", "send", "--background"])
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    // Not waited for: once `pbem ingest` exits, the system reaps it.
    cmd.spawn()?;
    Ok(true)
}

/// `pbem outbox send --background`, as `pbem ingest` starts it after storing a mail
/// (`start`). It becomes the one worker that waits for the send turn, or ends at once
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
    sender::drain_in_turn(
        &mut daemon.store,
        &daemon.cfg,
        &daemon.transport,
        &edge::now,
        turn,
    )
    .map(Some)
}

/// Reads the spool into the store and answers it, then anything else stored and not yet
/// answered; a failure is logged (the mail stays in the spool, or new in the store, for the
/// next worker or pass), and the sending goes on: the replies already queued are not held
/// back by it.
fn answer_stored(daemon: &mut Daemon) {
    let mut pass = super::Pass::default();
    if let Err(e) = unwind::catch(|| daemon.intake_spool(&mut pass)) {
        tracing::error!(error = %format!("{e:#}"), "reading the spool failed; its mail stays there");
    }
    if let Err(e) = unwind::catch(|| daemon.process_stored()) {
        tracing::error!(error = %format!("{e:#}"), "processing failed; the messages stay new");
    }
}
