//! The daemon: the one place that reads the clock and sleeps; Maildir intake, timers and the outbox sender in a loop.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::Arc;

use anyhow::Context;
use chrono::Utc;

use crate::compose::Ctx;
use crate::config::Config;
use crate::inbox;
use crate::mail::outbound::Transport;
use crate::sender;
use crate::store::Store;
use crate::template::Templates;
use crate::timers;

/// How many messages share one transaction (and so one fsync).
const BATCH: usize = 200;

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
        Ok(Daemon {
            db: db.to_path_buf(),
            store,
            cfg,
            templates,
            transport,
            stop: Arc::new(AtomicBool::new(false)),
        })
    }

    /// Stores one raw message (durably) and processes it; then sends what is due.
    /// Returns whether it was new. Errors after the raw store are logged, not returned:
    /// the message is safe and the next pass processes it.
    pub fn ingest(&mut self, raw: &[u8]) -> anyhow::Result<bool> {
        crate::fault::point("ingest:before-store");
        let ctx = Ctx::new(&self.cfg, &self.templates, Utc::now());
        // Stored and processed in one commit (one fsync): a crash before it leaves nothing,
        // and the MTA, which saw no exit 0, delivers again.
        let id = inbox::store_and_process(&mut self.store, raw, &ctx)?;
        crate::fault::point("process:after-commit");
        // Any message an earlier run stored but did not finish is processed exactly once.
        let unfinished = !self.store.read(|tx| tx.new_messages())?.is_empty();
        if unfinished {
            if let Err(e) = inbox::process_batch(&mut self.store, &ctx, BATCH) {
                tracing::error!(error = %format!("{e:#}"), "processing failed; the messages stay new");
            }
        }
        if let Err(e) = sender::drain(&mut self.store, &self.cfg, &self.transport, &Utc::now) {
            tracing::error!(error = %format!("{e:#}"), "sending failed; the outbox keeps the mail");
        }
        Ok(id.is_some())
    }

    /// One pass: the Maildir, every stored message not yet processed, the timers, the outbox.
    pub fn pass(&mut self) -> anyhow::Result<Pass> {
        let mut pass = self.pass_without_sending()?;
        let d = sender::drain(&mut self.store, &self.cfg, &self.transport, &Utc::now)?;
        pass.sent = d.sent;
        pass.retrying = d.retrying;
        pass.failed = d.failed;
        Ok(pass)
    }

    /// A pass that leaves the outbox to a `BackgroundSender`.
    pub fn pass_without_sending(&mut self) -> anyhow::Result<Pass> {
        let mut pass = Pass::default();
        if let Some(dir) = self.cfg.maildir.clone() {
            self.intake(&dir, &mut pass)?;
        }
        let ctx = Ctx::new(&self.cfg, &self.templates, Utc::now());
        loop {
            let n = inbox::process_batch(&mut self.store, &ctx, BATCH)?;
            crate::fault::point("process:after-commit");
            pass.processed += n;
            if n < BATCH || self.stop.load(Ordering::SeqCst) {
                break;
            }
        }
        pass.timers = timers::run(&mut self.store, &ctx, None)?;
        Ok(pass)
    }

    /// Moves each mail in new/ into the store, then to cur/ (never deleted before the store
    /// committed it; a crash in between re-reads it and the dedupe key makes that harmless).
    fn intake(&mut self, dir: &Path, pass: &mut Pass) -> anyhow::Result<()> {
        let new = dir.join("new");
        let mut names: Vec<_> = std::fs::read_dir(&new)
            .with_context(|| format!("cannot read the Maildir {}", new.display()))?
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.file_name())
            .collect();
        names.sort();
        for chunk in names.chunks(BATCH) {
            if self.stop.load(Ordering::SeqCst) {
                break;
            }
            let raws = chunk
                .iter()
                .map(|name| {
                    let path = new.join(name);
                    std::fs::File::open(&path)
                        .and_then(|mut f| {
                            crate::mail::intake::read_bounded(&mut f, self.cfg.max_message_bytes)
                        })
                        .with_context(|| format!("cannot read {}", path.display()))
                })
                .collect::<anyhow::Result<Vec<_>>>()?;
            let ctx = Ctx::new(&self.cfg, &self.templates, Utc::now());
            // One commit stores and plays the whole chunk; only then do the files leave new/.
            for fresh in inbox::store_and_process_batch(&mut self.store, &raws, &ctx)? {
                if fresh {
                    pass.stored += 1;
                    pass.processed += 1;
                } else {
                    pass.duplicates += 1;
                }
            }
            crate::fault::point("process:after-commit");
            for name in chunk {
                let mut cur_name = name.to_string_lossy().into_owned();
                if !cur_name.contains(":2,") {
                    cur_name.push_str(":2,S");
                }
                let path = new.join(name);
                std::fs::rename(&path, dir.join("cur").join(cur_name))
                    .with_context(|| format!("cannot move {} to cur/", path.display()))?;
            }
        }
        Ok(())
    }

    /// Runs passes until SIGINT or SIGTERM (finishing the message in hand), or once. A
    /// running daemon sends from a second thread, woken after each pass.
    pub fn serve(&mut self, once: bool) -> anyhow::Result<Pass> {
        signal_hook::flag::register(signal_hook::consts::SIGTERM, Arc::clone(&self.stop))?;
        signal_hook::flag::register(signal_hook::consts::SIGINT, Arc::clone(&self.stop))?;
        if once {
            return self.pass();
        }
        let sender = BackgroundSender::start(&self.db, &self.cfg, Arc::clone(&self.stop))?;
        let mut total = Pass::default();
        let result = loop {
            let p = match self.pass_without_sending() {
                Ok(p) => p,
                Err(e) => break Err(e),
            };
            sender.wake();
            if p.stored + p.processed + p.timers > 0 {
                tracing::info!(?p, "pass");
            }
            total.stored += p.stored;
            total.duplicates += p.duplicates;
            total.processed += p.processed;
            total.timers += p.timers;
            if self.stop.load(Ordering::SeqCst) {
                break Ok(());
            }
            for _ in 0..(self.cfg.poll_secs * 10).max(1) {
                if self.stop.load(Ordering::SeqCst) {
                    break;
                }
                std::thread::sleep(std::time::Duration::from_millis(100));
            }
        };
        let d = sender.finish()?;
        total.sent = d.sent;
        total.retrying = d.retrying;
        total.failed = d.failed;
        result.map(|_| total)
    }
}

/// The outbox sender on its own thread and database connection, so slow SMTP or file
/// creation never holds up reading and playing mail. It drains after each `wake` (and every
/// poll interval, for retries), and once more when finished.
pub struct BackgroundSender {
    wake: Option<mpsc::Sender<()>>,
    handle: Option<std::thread::JoinHandle<anyhow::Result<sender::Drained>>>,
    /// Microseconds the thread spent sending (for `pbem bench`).
    busy_us: Arc<std::sync::atomic::AtomicU64>,
}

impl BackgroundSender {
    pub fn start(
        db: &Path,
        cfg: &Config,
        stop: Arc<AtomicBool>,
    ) -> anyhow::Result<BackgroundSender> {
        let mut store = Store::open(db, false)?;
        let transport = cfg.transport()?;
        let cfg = cfg.clone();
        let (wake, rx) = mpsc::channel::<()>();
        let busy_us = Arc::new(std::sync::atomic::AtomicU64::new(0));
        let busy = Arc::clone(&busy_us);
        let handle = std::thread::spawn(move || {
            let mut total = sender::Drained::default();
            let poll = std::time::Duration::from_secs(cfg.poll_secs.max(1));
            loop {
                let started = std::time::Instant::now();
                let drained = sender::drain(&mut store, &cfg, &transport, &Utc::now);
                busy.fetch_add(started.elapsed().as_micros() as u64, Ordering::Relaxed);
                match drained {
                    Ok(d) => {
                        total.sent += d.sent;
                        total.retrying += d.retrying;
                        total.failed += d.failed;
                    }
                    Err(e) => {
                        tracing::error!(error = %format!("{e:#}"), "sending failed; the outbox keeps the mail")
                    }
                }
                match rx.recv_timeout(poll) {
                    Ok(()) => while rx.try_recv().is_ok() {},
                    Err(mpsc::RecvTimeoutError::Timeout) if !stop.load(Ordering::SeqCst) => {}
                    Err(_) => break,
                }
            }
            // A last drain: what the final pass committed goes out before exit.
            let d = sender::drain(&mut store, &cfg, &transport, &Utc::now)?;
            total.sent += d.sent;
            total.retrying += d.retrying;
            total.failed += d.failed;
            Ok(total)
        });
        Ok(BackgroundSender {
            wake: Some(wake),
            handle: Some(handle),
            busy_us,
        })
    }

    /// New mail was committed: send it.
    pub fn wake(&self) {
        if let Some(w) = &self.wake {
            let _ = w.send(());
        }
    }

    /// Time spent sending so far.
    pub fn busy(&self) -> std::time::Duration {
        std::time::Duration::from_micros(self.busy_us.load(Ordering::Relaxed))
    }

    /// Sends what is left and stops the thread.
    pub fn finish(mut self) -> anyhow::Result<sender::Drained> {
        self.wake.take();
        match self.handle.take().map(|h| h.join()) {
            Some(Ok(r)) => r,
            Some(Err(_)) => anyhow::bail!("the sender thread panicked"),
            None => Ok(sender::Drained::default()),
        }
    }
}
