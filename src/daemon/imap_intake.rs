//! `serve`'s IMAP intake on a thread of its own that only carries mail: each mail fetched goes durably into the spool, is marked on the server and remembered, and the main loop is woken to read the spool; IDLE lives here, so no IMAP server, however slow or hostile, delays the clocks or a SIGTERM.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::edge;
use crate::mail::imap::{ImapAccount, ImapSource, Keeper};
use crate::store::Store;
use crate::unwind;

/// How long `finish` waits for the thread once the stop flag is up: every read and write of
/// its connection looks at the flag four times a second, so it ends well within this; a
/// thread stuck elsewhere (a DNS lookup, a TCP connect) is left to end with the process.
const JOIN_WAIT: Duration = Duration::from_secs(2);

/// The spool, the store's memory of what was carried, and the main loop's wake-up.
struct SpoolKeeper {
    spool: PathBuf,
    store: Store,
    /// The account as it prints itself (no password): the memory's key.
    mailbox: String,
    wake: Option<mpsc::Sender<()>>,
}

impl Keeper for SpoolKeeper {
    fn carried(
        &mut self,
        uid_validity: u32,
        waiting: &[u32],
    ) -> anyhow::Result<std::collections::HashSet<u32>> {
        let mailbox = &self.mailbox;
        self.store
            .tx(|tx| tx.imap_carried(mailbox, uid_validity, waiting))
    }

    fn deliver(&mut self, raw: &[u8]) -> anyhow::Result<()> {
        crate::mail::spool::deliver(&self.spool, raw, edge::now())?;
        crate::fault::point("imap:after-spool");
        if let Some(wake) = &self.wake {
            let _ = wake.send(());
        }
        Ok(())
    }

    fn remember(&mut self, uid_validity: u32, uid: u32) -> anyhow::Result<()> {
        let mailbox = &self.mailbox;
        self.store
            .tx(|tx| tx.remember_imap_carried(mailbox, uid_validity, uid))
    }
}

fn keeper(
    db: &Path,
    account: &ImapAccount,
    wake: Option<mpsc::Sender<()>>,
) -> anyhow::Result<SpoolKeeper> {
    Ok(SpoolKeeper {
        spool: crate::mail::spool::dir(db),
        store: Store::open(db, false)?,
        mailbox: account.to_string(),
        wake,
    })
}

/// One round in the caller's thread (`serve --once`): every mail waiting into the spool.
pub fn once(
    db: &Path,
    cfg: &Config,
    account: &ImapAccount,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<usize> {
    let mut keeper = keeper(db, account, None)?;
    let mut source = ImapSource::new(account.clone(), cfg.max_message_bytes, stop);
    unwind::catch(|| source.carry(&mut keeper))
}

/// The running thread.
pub struct ImapIntake {
    handle: Option<std::thread::JoinHandle<()>>,
    /// Disconnected when the thread ends.
    ended: mpsc::Receiver<()>,
}

impl ImapIntake {
    /// Starts the thread; `wake` is sent to after each mail it delivers into the spool.
    pub fn start(
        db: &Path,
        cfg: &Config,
        account: &ImapAccount,
        stop: Arc<AtomicBool>,
        wake: mpsc::Sender<()>,
    ) -> anyhow::Result<ImapIntake> {
        let mut keeper = keeper(db, account, Some(wake))?;
        let mut source = ImapSource::new(account.clone(), cfg.max_message_bytes, Arc::clone(&stop));
        let poll_secs = cfg.poll_secs;
        let (alive, ended) = mpsc::channel::<()>();
        let handle = std::thread::spawn(move || {
            let _alive = alive;
            run(&mut source, &mut keeper, poll_secs, &stop);
        });
        Ok(ImapIntake {
            handle: Some(handle),
            ended,
        })
    }

    /// Once the stop flag is up: waits for the thread a moment (`JOIN_WAIT`), no longer.
    pub fn finish(mut self) {
        match self.ended.recv_timeout(JOIN_WAIT) {
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                if let Some(h) = self.handle.take() {
                    let _ = h.join();
                }
            }
            _ => tracing::warn!("the IMAP thread did not end in time; it ends with the process"),
        }
    }
}

/// Rounds until the stop flag: carry, then IDLE (or sleep) for the poll interval; after a
/// failure, a pause that doubles with each failure in a row (`super::retry_pause`), logged.
fn run(source: &mut ImapSource, keeper: &mut SpoolKeeper, poll_secs: u64, stop: &AtomicBool) {
    let poll = Duration::from_secs(poll_secs.max(1));
    let mut failures = 0;
    while !stop.load(Ordering::SeqCst) {
        match unwind::catch(|| source.carry(keeper)) {
            Ok(_) => failures = 0,
            Err(e) => {
                source.disconnect();
                if stop.load(Ordering::SeqCst) {
                    return;
                }
                failures += 1;
                let pause = super::retry_pause(poll_secs, failures);
                tracing::error!(error = %format!("{e:#}"), failures, retry_in_secs = pause, "IMAP round failed; retrying");
                sleep(Duration::from_secs(pause), stop);
                continue;
            }
        }
        let started = Instant::now();
        // RFC 2177: an IDLE is renewed within 29 minutes, or the server may log us out; a
        // longer poll interval ends in a round sooner, which costs nothing.
        match unwind::catch(|| source.idle(poll.min(Duration::from_secs(25 * 60)))) {
            Ok(true) => {}
            Ok(false) => sleep(poll, stop),
            Err(e) => {
                source.disconnect();
                if !stop.load(Ordering::SeqCst) {
                    tracing::warn!(error = %format!("{e:#}"), "IMAP IDLE failed; polling until the next round");
                }
                sleep(poll.saturating_sub(started.elapsed()), stop);
            }
        }
    }
}

/// Sleeps, waking early for the stop flag.
fn sleep(time: Duration, stop: &AtomicBool) {
    let until = Instant::now() + time;
    while !stop.load(Ordering::SeqCst) {
        let left = until.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        std::thread::sleep(left.min(Duration::from_millis(100)));
    }
}
