//! After `pbem ingest` with no daemon to call: the worker it starts in the background reads the spool into the store and answers it, then draws and sends the replies, so the MTA waits for the spool's sync only.

use std::os::unix::process::CommandExt as _;
use std::path::Path;
use std::process::{Command, Stdio};

use crate::config::Config;
use crate::edge;
use crate::sender::{self, Drained};
use crate::unwind;

use super::Daemon;

/// The worker's (hidden) command, as `pbem ingest` starts it.
const COMMAND: &str = "ingest-worker";

/// After a mail was spooled: makes sure a worker will read it in, answer it and send the
/// replies. A worker already waiting for the send turn will (it reads the spool only after it
/// stops waiting, so after this mail was spooled), and so will a worker lingering after its
/// last mail, called on its socket (`linger`); otherwise `pbem ingest-worker` (`run`)
/// starts. It runs in a process group of its own with no standard streams: an MTA waits for
/// `pbem ingest` and for the end of its output, and must wait for neither the answering, the
/// drawing nor the sending (nor kill them when it kills a timed-out delivery). Returns
/// whether one was started.
pub fn start(exe: &Path, db: &Path, config: Option<&Path>) -> anyhow::Result<bool> {
    if crate::store::sender_waiting(db)? || super::linger::call(db, config) {
        return Ok(false);
    }
    let mut cmd = Command::new(exe);
    cmd.arg("--db").arg(db);
    if let Some(c) = config {
        cmd.arg("--config").arg(c);
    }
    cmd.arg(COMMAND)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .process_group(0);
    // Not waited for: once `pbem ingest` exits, the system reaps it.
    cmd.spawn()?;
    Ok(true)
}

/// `pbem ingest-worker` (hidden), as `pbem ingest` starts it after spooling a mail (`start`),
/// with the `config` file it was given; once done it lingers a few seconds for the next mail
/// (`linger`). `pbem outbox send --background`, its name before, does the same, so that a
/// worker started by a `pbem ingest` of the version before an upgrade still runs.
pub fn run(db: &Path, cfg: Config, config: Option<&Path>) -> anyhow::Result<()> {
    let store = crate::store::Store::open(db, false)?;
    let mut daemon = Daemon::new(db, store, cfg)?;
    run_background(&mut daemon)?;
    super::linger::linger(&mut daemon, config, &mut |d| run_background(d).map(|_| ()))
}

/// The ingest worker's work (`run`). It becomes the one worker that waits for the send turn,
/// or ends at once when another already waits (`None`): that one will read in and send all
/// there is.
/// Once it has the turn it reads the spool and answers it (a commit a batch of all that came
/// in while it waited), answers any other stored mail, then draws and sends everything due.
///
/// No spooled mail goes unanswered: `pbem ingest` syncs its mail into the spool, then starts
/// a worker unless one waits, and a waiting worker reads the spool only after it stops
/// waiting. A mail spooled while another worker draws and sends is answered when that work
/// ends (a daemon's pass, and so a deadline, reads the spool first). A waiting worker that
/// dies (killed, out of memory) leaves its place free, so the next `pbem ingest` starts
/// another (the kernel drops a dead process's locks); and the worker that was sending, at the
/// end of its turn, finds mail in the spool with no one waiting for it, and takes it over
/// (`take_over`).
pub fn run_background(daemon: &mut Daemon) -> anyhow::Result<Option<Drained>> {
    let Some(mut waiter) = daemon.store.wait_for_send_turn()? else {
        return Ok(None);
    };
    sender::lower_priority();
    let mut total = Drained::default();
    for round in 0.. {
        let turn = daemon.store.send_turn()?;
        // From here a newly spooled mail needs a new worker: this one may read the spool
        // before that mail is there.
        drop(waiter);
        let read = answer_stored(daemon);
        let mut d = sender::drain_in_turn(
            &mut daemon.store,
            &daemon.cfg,
            &daemon.transport,
            &edge::now,
            turn,
        )?;
        if play_robots(daemon) > 0 {
            let turn = daemon.store.send_turn()?;
            let more = sender::drain_in_turn(
                &mut daemon.store,
                &daemon.cfg,
                &daemon.transport,
                &edge::now,
                turn,
            )?;
            d.sent += more.sent;
            d.retrying += more.retrying;
            d.failed += more.failed;
        }
        total.sent += d.sent;
        total.retrying += d.retrying;
        total.failed += d.failed;
        // A round that read nothing new from the spool is not repeated: the spool's mail
        // cannot be read now (the next mail or pass tries again), and looping would not help.
        let progress = round == 0 || read.stored + read.set_aside > 0;
        match progress.then(|| take_over(daemon)).transpose()?.flatten() {
            Some(w) => waiter = w,
            None => break,
        }
    }
    Ok(Some(total))
}

/// After its turn, the worker's place as the waiting one, if mail waits in the spool and no
/// other worker waits for it: a worker that was waiting died since this one read the spool,
/// and what `pbem ingest` spooled meanwhile, seeing it wait, would wait for the next mail.
fn take_over(daemon: &Daemon) -> anyhow::Result<Option<crate::store::SendWaiter>> {
    if crate::mail::spool::waiting(&crate::mail::spool::dir(&daemon.db)) == 0 {
        return Ok(None);
    }
    let waiter = daemon.store.wait_for_send_turn()?;
    if waiter.is_some() {
        tracing::info!("mail waits in the spool and no worker waits for it: reading it");
    }
    Ok(waiter)
}

/// Reads the spool into the store and answers it, then anything else stored and not yet
/// answered; a failure is logged (the mail stays in the spool, or new in the store, for the
/// next worker or pass), and the sending goes on: the replies already queued are not held
/// back by it. What the spool's reading did.
fn answer_stored(daemon: &mut Daemon) -> super::Pass {
    let mut pass = super::Pass::default();
    if let Err(e) = unwind::catch(|| daemon.intake_spool(&mut pass)) {
        tracing::error!(error = %format!("{e:#}"), "reading the spool failed; its mail stays there");
    }
    if let Err(e) = unwind::catch(|| daemon.process_stored()) {
        tracing::error!(error = %format!("{e:#}"), "processing failed; the messages stay new");
    }
    pass
}

/// A robot to act after the mail (the player's move came) plays once the replies are sent,
/// so that no search, however long, holds up a player's answer. How many plies it played.
fn play_robots(daemon: &mut Daemon) -> usize {
    let ctx = crate::compose::Ctx::new(&daemon.cfg, &daemon.templates, edge::now());
    match unwind::catch(|| crate::timers::robots(&mut daemon.store, &ctx)) {
        Ok(n) => n,
        Err(e) => {
            tracing::error!(error = %format!("{e:#}"), "the robots' pass failed; the next tries again");
            0
        }
    }
}
