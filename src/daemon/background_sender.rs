//! The outbox sender on a thread and database connection of its own, woken when mail is committed.

use std::path::Path;
use std::sync::{atomic::AtomicBool, atomic::Ordering, mpsc, Arc};

use crate::config::Config;
use crate::store::Store;
use crate::{edge, sender, unwind};

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
            sender::lower_priority();
            let mut total = sender::Drained::default();
            let poll = std::time::Duration::from_secs(cfg.poll_secs.max(1));
            loop {
                let started = std::time::Instant::now();
                // A panic is logged like an error: the thread must live on, or nothing
                // would be sent until the daemon restarts.
                let drained =
                    unwind::catch(|| sender::drain(&mut store, &cfg, &transport, &edge::now));
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
            let d = sender::drain(&mut store, &cfg, &transport, &edge::now)?;
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

    /// What wakes the sender from another thread.
    pub fn waker(&self) -> mpsc::Sender<()> {
        self.wake.clone().expect("the waker lives until `finish`")
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
