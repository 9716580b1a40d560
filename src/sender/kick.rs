//! Starting the background worker after `pbem ingest` (`daemon::worker`), so the MTA waits for the mail's commit only.

use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::store::Store;

/// After a commit that stored mail or queued replies: makes sure a worker will answer and
/// send them. A worker already waiting for the send turn will (it answers stored mail once
/// more after it stops waiting, and reads the outbox only once it has the turn, so after
/// this commit); otherwise `pbem outbox send --background` starts. It runs in a process group
/// of its own with no standard streams: an MTA waits for `pbem ingest` and for the end of its
/// output, and must wait for neither the answering, the drawing nor the sending (nor kill
/// them when it kills a timed-out delivery). Returns whether one was started.
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
