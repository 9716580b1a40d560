//! Sending after `pbem ingest`: a sender started in the background draws and sends the replies, so the MTA waits for the mail's commit only.

use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Command, Stdio};

use super::Drained;
use crate::config::Config;
use crate::edge;
use crate::mail::outbound::Transport;
use crate::store::Store;

/// After a commit that may have queued mail: makes sure a sender will send it. A sender
/// already waiting for its turn will (it reads the outbox only once it has the turn, so after
/// this commit); otherwise `pbem outbox send --background` starts. It runs in a process group
/// of its own with no standard streams: an MTA waits for `pbem ingest` and for the end of its
/// output, and must wait for neither the drawing nor the sending (nor kill them when it kills
/// a timed-out delivery). Returns whether one was started.
pub fn kick(store: &Store, exe: &Path, db: &Path, config: Option<&Path>) -> anyhow::Result<bool> {
    if store.sender_waiting()? {
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

/// `pbem outbox send --background`: waits for the send turn unless another sender already
/// waits (then there is nothing for this one to do: `None`), and sends all that is due.
pub fn run_background(
    store: &mut Store,
    cfg: &Config,
    transport: &Transport,
) -> anyhow::Result<Option<Drained>> {
    let Some(waiter) = store.wait_for_send_turn()? else {
        return Ok(None);
    };
    super::lower_priority();
    let turn = store.send_turn()?;
    // From here a newly committed mail needs a new waiter: this sender may have read the
    // outbox before that commit.
    drop(waiter);
    super::drain_in_turn(store, cfg, transport, &edge::now, turn).map(Some)
}
