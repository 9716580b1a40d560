//! The daemon: the one place that reads the clock and sleeps; Maildir and IMAP intake, timers and the outbox sender in a loop.

use std::path::{Path, PathBuf};
use std::sync::{atomic::AtomicBool, atomic::Ordering, mpsc, Arc};

use crate::compose::Ctx;
use crate::config::Config;
use crate::mail::imap::ImapAccount;
use crate::mail::intake::{Aside, MaildirSource, Source};
use crate::mail::outbound::Transport;
use crate::store::Store;
use crate::template::Templates;
use crate::{edge, mailroom, sender, timers, unwind};

pub use background_sender::BackgroundSender;

mod background_sender;
pub mod handover;
pub mod imap_intake;
mod linger;
mod serve_lock;
pub mod wake;
pub mod worker;

/// How many messages share one transaction (and so one fsync).
const BATCH: usize = 200;

/// How many bytes of raw mail a batch may hold (but for its first mail, which may be as large
/// as `max_message_bytes`): a backlog of large mails is read in several batches, never 200
/// times the size limit at once.
const BATCH_BYTES: usize = 16 << 20;

/// What one pass did, for the log and for `serve --once`.
#[derive(Debug, Default, Clone)]
pub struct Pass {
    pub stored: usize,
    pub duplicates: usize,
    pub processed: usize,
    pub timers: usize,
    pub sent: usize,
    pub retrying: usize,
    pub failed: usize,
    /// Spool entries moved aside (`mail::spool::aside`).
    pub set_aside: usize,
}

/// What storing and answering mail needs besides the store: the database's path (its spool
/// beside it), the configuration, the compiled templates, the flag that stops between
/// batches, and whom to tell of each batch's commit (`Daemon::wake_on_commit`).
struct IntakeCtx<'a> {
    db: &'a Path,
    cfg: &'a Config,
    templates: &'a Templates,
    stop: &'a AtomicBool,
    committed: Option<&'a mpsc::Sender<()>>,
}

/// Tells the sender (if one listens) that a batch committed: its replies can be drawn and
/// sent now, while the next batch is read.
fn tell_committed(wake: Option<&mpsc::Sender<()>>) {
    if let Some(wake) = wake {
        let _ = wake.send(());
    }
}

/// Reads the spool of the database at `db` (`mail::spool`) into `store`, a batch per commit,
/// each file deleted after its commit; clears what killed deliveries left in its `tmp/`. One
/// reader at a time (the spool's lock, waited for): two would read the same file, and the
/// second would note a duplicate delivery that never was.
fn intake_spool(store: &mut Store, intake: &IntakeCtx, pass: &mut Pass) -> anyhow::Result<()> {
    let dir = crate::mail::spool::dir(intake.db);
    let Some(_reading) = crate::mail::spool::lock(&dir)? else {
        return Ok(());
    };
    let Some(mut source) = MaildirSource::spool(&dir, intake.cfg.max_message_bytes) else {
        return Ok(());
    };
    let swept = crate::mail::spool::sweep_tmp(&dir, edge::now());
    if swept > 0 {
        tracing::info!(swept, spool = %dir.display(), "removed unfinished deliveries from the spool's tmp/");
    }
    drain(store, &mut source, intake, pass)
}

/// Stores and processes everything `source` has, a batch per commit, acknowledging each
/// batch to the source only after its commit. The source hears of each mail before it is
/// parsed and of the commit (`Source::begin`, `put_down`): the spool keeps a mark of the mail
/// in hand, so one that kills its readers is set aside, and the GM told.
fn drain(
    store: &mut Store,
    source: &mut dyn Source,
    intake: &IntakeCtx,
    pass: &mut Pass,
) -> anyhow::Result<()> {
    while !intake.stop.load(Ordering::SeqCst) {
        let batch = source.fetch_within(BATCH, BATCH_BYTES)?;
        tell_set_aside(store, intake, source.set_aside(), pass);
        if batch.is_empty() {
            break;
        }
        let raws: Vec<&[u8]> = batch.iter().map(|f| f.raw.as_slice()).collect();
        let ctx = Ctx::new(intake.cfg, intake.templates, edge::now());
        // One commit stores and plays the whole batch; only then does the source let go.
        let mut step = |step: Option<usize>| match step {
            Some(i) => source.begin(&batch[i]),
            None => source.put_down(),
        };
        let raw = mailroom::Batch::Raw {
            raws: &raws,
            step: &mut step,
        };
        let stored = mailroom::process(store, &ctx, raw, None);
        let stored = match stored {
            Ok(fresh) => fresh,
            Err(e) => {
                // An error is no death: the mail in hand is not to blame.
                let _ = source.put_down();
                return Err(e);
            }
        };
        for mail in stored {
            if mail.id.is_some() {
                pass.stored += 1;
                pass.processed += 1;
            } else {
                pass.duplicates += 1;
            }
        }
        crate::fault::point("process:after-commit");
        source.ack(&batch)?;
        tell_committed(intake.committed);
    }
    Ok(())
}

/// Tells the GM of each spool entry moved aside, once (it has left `new/`, so no reader finds
/// it again). A notice that cannot be stored is logged; the entry waits in `quarantine/`,
/// which `pbem inbox` counts.
fn tell_set_aside(store: &mut Store, intake: &IntakeCtx, aside: Vec<Aside>, pass: &mut Pass) {
    if aside.is_empty() {
        return;
    }
    pass.set_aside += aside.len();
    let ctx = Ctx::new(intake.cfg, intake.templates, edge::now());
    let told = store.tx(|tx| {
        for a in &aside {
            let text = format!(
                "a mail was set aside, not read into the store: {}. It is {} (move it back \
                 into new/ beside that folder to have it read again).",
                a.why,
                a.to.display()
            );
            crate::compose::to_gm(tx, &ctx, None, &text)?;
        }
        Ok(())
    });
    if let Err(e) = told {
        tracing::error!(error = %format!("{e:#}"), "the GM was not told of mail set aside");
    }
}

/// Everything a pass needs.
pub struct Daemon {
    /// The database file, for the background sender's own connection.
    pub db: PathBuf,
    pub store: Store,
    pub cfg: Config,
    pub templates: Templates,
    pub transport: Transport,
    pub stop: Arc<AtomicBool>,
    /// The IMAP mailbox, when the config names one: read by a thread of its own
    /// (`imap_intake`), which `serve` starts.
    imap: Option<ImapAccount>,
    /// The IMAP thread's wake-ups (a mail delivered into the spool), while it runs.
    imap_wakes: Option<mpsc::Receiver<()>>,
    /// When expired NEW/JOIN requests and old throttle counts were last forgotten.
    pruned: Option<std::time::Instant>,
    /// The games' website kept current after each pass (`archive_dir`), if configured.
    archive: Option<crate::archive::Keeper>,
    /// The background sender's waker, told of each batch's commit within a pass: a burst's
    /// first replies are drawn and sent while its later mail is still read and played (told
    /// only at the pass's end, the other core idled for the whole burst's reading).
    pub wake_on_commit: Option<mpsc::Sender<()>>,
}

impl Daemon {
    pub fn new(db: &Path, store: Store, cfg: Config) -> anyhow::Result<Daemon> {
        // The GM's own templates are checked at start, so a broken file stops the daemon
        // rather than a player's mail; the embedded ones are known good and load lazily.
        let templates = match &cfg.templates_dir {
            Some(dir) => Templates::check(Some(dir))?,
            None => Templates::load(None)?,
        };
        let transport = cfg.transport()?;
        let stop = Arc::new(AtomicBool::new(false));
        let imap = cfg.imap_account()?;
        Ok(Daemon {
            db: db.to_path_buf(),
            store,
            templates,
            transport,
            stop,
            imap,
            imap_wakes: None,
            pruned: None,
            wake_on_commit: None,
            archive: cfg.archive_dir.clone().map(crate::archive::Keeper::new),
            cfg,
        })
    }

    /// Stores one raw message (durably) and processes it, leaving its replies in the outbox
    /// (`send_now`, or a background sender). Returns whether it was new. Errors and panics
    /// after the commit are logged, not returned: the message is safe, and the next pass
    /// finishes what is left.
    pub fn ingest(&mut self, raw: &[u8]) -> anyhow::Result<bool> {
        crate::fault::point("ingest:before-store");
        let ctx = Ctx::new(&self.cfg, &self.templates, edge::now());
        // Stored and processed in one commit (one fsync): a crash before it leaves nothing,
        // and the MTA, which saw no exit 0, delivers again. Processing runs isolated inside
        // it, so a mail whose processing fails or panics is still stored (marked failed).
        let raw = mailroom::Batch::Raw {
            raws: &[raw],
            step: &mut |_| Ok(()),
        };
        let id = mailroom::process(&mut self.store, &ctx, raw, None)?
            .pop()
            .and_then(|m| m.id);
        crate::fault::point("process:after-commit");
        // Any message an earlier run stored but did not finish is processed exactly once.
        if let Err(e) = unwind::catch(|| self.process_stored().map(drop)) {
            tracing::error!(error = %format!("{e:#}"), "processing failed; the messages stay new");
        }
        Ok(id.is_some())
    }

    /// Processes every stored message not yet processed, `BATCH` to a commit; how many. A
    /// read first, so that finding none takes no write lock.
    pub fn process_stored(&mut self) -> anyhow::Result<usize> {
        if self.store.read(|tx| tx.new_messages())?.is_empty() {
            return Ok(0);
        }
        let ctx = Ctx::new(&self.cfg, &self.templates, edge::now());
        let mut processed = 0;
        loop {
            let n =
                mailroom::process(&mut self.store, &ctx, mailroom::Batch::Waiting(BATCH), None)?
                    .iter()
                    .filter(|m| m.handled.is_some())
                    .count();
            crate::fault::point("process:after-commit");
            tell_committed(self.wake_on_commit.as_ref());
            processed += n;
            if n < BATCH || self.stop.load(Ordering::SeqCst) {
                return Ok(processed);
            }
        }
    }

    /// Sends what is due now, in this process; a failure is logged (the outbox keeps the mail).
    pub fn send_now(&mut self) {
        let sent = unwind::catch(|| {
            sender::drain(&mut self.store, &self.cfg, &self.transport, &edge::now)
        });
        if let Err(e) = sent {
            tracing::error!(error = %format!("{e:#}"), "sending failed; the outbox keeps the mail");
        }
    }

    /// One pass: the Maildir, every stored message not yet processed, the timers, the outbox.
    pub fn pass(&mut self) -> anyhow::Result<Pass> {
        let mut pass = self.pass_without_sending()?;
        let d = sender::drain(&mut self.store, &self.cfg, &self.transport, &edge::now)?;
        pass.sent = d.sent;
        pass.retrying = d.retrying;
        pass.failed = d.failed;
        Ok(pass)
    }

    /// A pass that leaves the outbox to a `BackgroundSender`. Its parts (the Maildir, the
    /// spool, stored messages, the timers) each run even when one before failed or panicked:
    /// a broken Maildir must not stop the clocks. IMAP is no part of it: its thread
    /// (`imap_intake`) carries mail into the spool, so no IMAP server can hold a pass up.
    /// Only the store's own trouble (a lock held past the busy timeout) skips the parts after
    /// it, which would wait for it in vain. The error is every failed part's.
    pub fn pass_without_sending(&mut self) -> anyhow::Result<Pass> {
        let mut pass = Pass::default();
        let mut failed = Failed::default();
        if let Some(dir) = self.cfg.maildir.clone() {
            failed.note("Maildir", unwind::catch(|| self.intake(&dir, &mut pass)));
        }
        if !failed.store_down {
            failed.note("spool", unwind::catch(|| self.intake_spool(&mut pass)));
        }
        if !failed.store_down {
            let processed = unwind::catch(|| self.process_stored());
            pass.processed += failed.note("stored messages", processed).unwrap_or(0);
        }
        let ctx = Ctx::new(&self.cfg, &self.templates, edge::now());
        if !failed.store_down {
            let timers = unwind::catch(|| timers::run(&mut self.store, &ctx));
            pass.timers = failed.note("timers", timers).unwrap_or(0);
            // The robots play after the mail and the deadlines, each game in its own transaction.
            let robots = unwind::catch(|| timers::robots(&mut self.store, &ctx));
            pass.timers += failed.note("robots", robots).unwrap_or(0);
        }
        // Once an hour: the tables of the hostile-mail limits keep only what still counts.
        if !failed.store_down && self.pruned.is_none_or(|t| t.elapsed().as_secs() >= 3600) {
            let now = ctx.now;
            let pruned = self.store.tx(|tx| tx.prune_requests_and_throttles(now));
            if failed.note("pruning", pruned).is_some() {
                self.pruned = Some(std::time::Instant::now());
            }
        }
        if let (Some(archive), false) = (&mut self.archive, failed.store_down) {
            archive.after_pass(&mut self.store);
        }
        match failed.parts.is_empty() {
            true => Ok(pass),
            false => Err(anyhow::anyhow!("{}", failed.parts.join("; "))),
        }
    }

    /// Moves each mail in new/ into the store, then to cur/ (never deleted before the store
    /// committed it; a crash in between re-reads it and the dedupe key makes that harmless).
    /// A file that cannot be read or moved is logged and left for the next pass; the others go on.
    fn intake(&mut self, dir: &Path, pass: &mut Pass) -> anyhow::Result<()> {
        let mut source = MaildirSource::open(dir, self.cfg.max_message_bytes)?;
        self.drain_source(&mut source, pass)
    }

    /// The store, and beside it what storing and answering mail needs.
    fn store_and_intake(&mut self) -> (&mut Store, IntakeCtx<'_>) {
        let intake = IntakeCtx {
            db: &self.db,
            cfg: &self.cfg,
            templates: &self.templates,
            stop: &self.stop,
            committed: self.wake_on_commit.as_ref(),
        };
        (&mut self.store, intake)
    }

    /// Reads the mail `pbem ingest` spooled into the store (`intake_spool`).
    pub fn intake_spool(&mut self, pass: &mut Pass) -> anyhow::Result<()> {
        let (store, intake) = self.store_and_intake();
        intake_spool(store, &intake, pass)
    }

    /// Stores and processes everything a source has (`drain`).
    pub fn drain_source(&mut self, source: &mut dyn Source, pass: &mut Pass) -> anyhow::Result<()> {
        let (store, intake) = self.store_and_intake();
        drain(store, source, &intake, pass)
    }

    /// Runs passes until SIGINT or SIGTERM (finishing the message in hand), or once. A
    /// running daemon sends from a second thread, woken after each pass, and reads IMAP on a
    /// third (`imap_intake`), which wakes it when it delivered mail into the spool. A pass
    /// that fails (a database locked past the busy timeout, a missing Maildir, a timer's
    /// error) is logged and tried again after a pause that doubles with each failure in a
    /// row, up to a minute; nothing but a signal stops a running daemon.
    pub fn serve(&mut self, once: bool) -> anyhow::Result<Pass> {
        // One daemon per database; a one-off pass (`--once`), like a worker, may run beside it.
        let _only = (!once).then(|| serve_lock::take(&self.db)).transpose()?;
        signal_hook::flag::register(signal_hook::consts::SIGTERM, Arc::clone(&self.stop))?;
        signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&self.stop))?;
        self.log_start();
        if once {
            return self.once();
        }
        let sender = BackgroundSender::start(&self.db, &self.cfg, Arc::clone(&self.stop))?;
        let imap = match &self.imap {
            Some(account) => {
                let (wake, wakes) = mpsc::channel();
                self.imap_wakes = Some(wakes);
                let stop = Arc::clone(&self.stop);
                Some(imap_intake::ImapIntake::start(
                    &self.db, &self.cfg, account, stop, wake,
                )?)
            }
            None => None,
        };
        // `pbem ingest` hands this daemon its mail, or calls it to read the spool (and starts
        // a worker when it cannot): a socket that fails to open costs only that speed.
        self.wake_on_commit = Some(sender.waker());
        let (db, waker) = (&self.db, sender.waker());
        let handover_socket =
            handover::Handover::open(db, &self.cfg, &self.templates, waker.clone());
        let wake_socket = wake::Listener::open(db, &self.cfg, &self.templates, waker);
        let mut total = Pass::default();
        let mut failures = 0;
        while !self.stop.load(Ordering::SeqCst) {
            let pause = match unwind::catch(|| self.pass_without_sending()) {
                Ok(p) => {
                    failures = 0;
                    if p.stored + p.processed + p.timers > 0 {
                        tracing::debug!(?p, "pass");
                    }
                    total.stored += p.stored;
                    total.duplicates += p.duplicates;
                    total.processed += p.processed;
                    total.timers += p.timers;
                    self.cfg.poll_secs.max(1)
                }
                Err(e) => {
                    failures += 1;
                    let pause = retry_pause(self.cfg.poll_secs, failures);
                    tracing::error!(error = %format!("{e:#}"), failures, retry_in_secs = pause, "pass failed; retrying");
                    pause
                }
            };
            // Whatever committed, even in a pass that failed in part, goes out now.
            sender.wake();
            self.wait(pause);
        }
        // Their copies of the sender's waker keep the sender waiting: they go first.
        drop((wake_socket, handover_socket, self.wake_on_commit.take()));
        if let Some(imap) = imap {
            imap.finish();
        }
        match sender.finish() {
            Ok(d) => {
                total.sent = d.sent;
                total.retrying = d.retrying;
                total.failed = d.failed;
            }
            Err(e) => {
                tracing::error!(error = %format!("{e:#}"), "the last send failed; the outbox keeps the mail")
            }
        }
        Ok(total)
    }

    /// The start-up line: what this daemon reads, writes and sends through (the transport as
    /// it prints itself: a user, never a password).
    fn log_start(&self) {
        let mut intake: Vec<String> = Vec::new();
        if let Some(m) = &self.cfg.maildir {
            intake.push(format!("Maildir {}", m.display()));
        }
        if let Some(account) = &self.imap {
            intake.push(format!("IMAP {account}"));
        }
        let intake = match intake.is_empty() {
            true => "no Maildir nor IMAP (mail comes by pbem ingest)".into(),
            false => intake.join(" and "),
        };
        let admin = self
            .cfg
            .admin_address
            .as_deref()
            .unwrap_or("none (GM notices stay in the event log)");
        tracing::info!(
            "pbem {} started for {}: database {}, intake {intake}, transport {}, admin {admin}",
            env!("CARGO_PKG_VERSION"),
            self.cfg.address,
            self.db.display(),
            self.transport,
        );
    }

    /// `serve --once`: the IMAP mailbox's mail into the spool, then a pass. A failed IMAP
    /// round does not stop the pass; it is the error, after it.
    fn once(&mut self) -> anyhow::Result<Pass> {
        let carried = match &self.imap {
            Some(account) => {
                imap_intake::once(&self.db, &self.cfg, account, Arc::clone(&self.stop))
            }
            None => Ok(0),
        };
        let pass = self.pass();
        carried.map_err(|e| anyhow::anyhow!("IMAP: {e:#}"))?;
        pass
    }

    /// Waits `secs` seconds before the next pass, waking early for a signal or for mail the
    /// IMAP thread delivered into the spool.
    fn wait(&mut self, secs: u64) {
        let until = std::time::Instant::now() + std::time::Duration::from_secs(secs);
        let tick = std::time::Duration::from_millis(100);
        while !self.stop.load(Ordering::SeqCst) {
            let left = until.saturating_duration_since(std::time::Instant::now());
            if left.is_zero() {
                return;
            }
            let Some(wakes) = &self.imap_wakes else {
                std::thread::sleep(left.min(tick));
                continue;
            };
            match wakes.recv_timeout(left.min(tick)) {
                Ok(()) => {
                    // One pass reads all the thread delivered so far.
                    while wakes.try_recv().is_ok() {}
                    return;
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
                Err(mpsc::RecvTimeoutError::Disconnected) => self.imap_wakes = None,
            }
        }
    }
}

/// The parts of a pass that failed, and whether the store itself is in trouble.
#[derive(Default)]
struct Failed {
    parts: Vec<String>,
    store_down: bool,
}

impl Failed {
    /// Keeps a part's error, if it failed; its value otherwise.
    fn note<T>(&mut self, part: &str, result: anyhow::Result<T>) -> Option<T> {
        match result {
            Ok(v) => Some(v),
            Err(e) => {
                self.store_down |= crate::store::is_transient(&e);
                self.parts.push(format!("{part}: {e:#}"));
                None
            }
        }
    }
}

/// The pause after `failures` failed passes in a row: the poll interval, doubled with each
/// further failure, at most a minute (or the poll interval, if that is longer).
pub fn retry_pause(poll_secs: u64, failures: u32) -> u64 {
    let poll = poll_secs.max(1);
    poll.saturating_mul(1 << failures.saturating_sub(1).min(16))
        .min(poll.max(60))
}
