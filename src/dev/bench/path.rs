//! `pbem bench ingest`'s daemon runs: order mails through the Maildir, the store, the rules and a durable commit, all waiting at once (throughput) or arriving one by one at a steady rate (latency, the batches as large as what arrived), the replies drawn and sent on the sender's thread.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::anyhow;
use chrono::{DateTime, Utc};

use super::{bench_config, fill_finished, make_games, make_mails, ms, percentile, thread_cpu};
use crate::config::Config;
use crate::daemon::{BackgroundSender, Daemon};
use crate::edge;
use crate::store::{OutboxStatus, Store};

/// How the mails come: all waiting before the first pass, or one every `1/rate` seconds.
#[derive(Clone, Copy)]
pub(super) enum Arrival {
    AllAtOnce,
    Steady(f64),
}

pub(super) struct PathFigures {
    mails: usize,
    /// Mails stored, processed and durably committed per second, first arrival to last commit.
    pub rate: f64,
    /// CPU time of the passes' thread per mail: the work itself, without waits for the disk.
    cpu_per_mail: Duration,
    /// How many mails each pass took, median.
    batch_p50: usize,
    /// From a mail's arrival in new/ to the commit of its pass.
    commit_p50: Duration,
    commit_p99: Duration,
    /// From a mail's arrival to the last of its replies sent (its board picture drawn).
    sent_p50: Duration,
    sent_p99: Duration,
    /// Replies sent per second, from the first arrival to the last reply.
    pub sent_rate: f64,
}

impl PathFigures {
    pub(super) fn cpu_ms(&self) -> f64 {
        ms(self.cpu_per_mail)
    }

    pub(super) fn sent_p50_ms(&self) -> f64 {
        ms(self.sent_p50)
    }

    pub(super) fn print(&self, what: &str, raw: f64) {
        println!(
            "mail path, {what}: {} mails, {:.0} mails/s stored, played and durably committed \
             (ratio to raw commits {:.2}), {:.3} ms CPU a mail; batches of p50 {} mails; \
             arrival to commit p50 {:.1} ms p99 {:.1} ms",
            self.mails,
            self.rate,
            self.rate / raw,
            ms(self.cpu_per_mail),
            self.batch_p50,
            ms(self.commit_p50),
            ms(self.commit_p99),
        );
        println!(
            "  replies drawn and sent on the sender's thread: {:.0} mails/s; arrival to the \
             last reply sent p50 {:.1} ms p99 {:.1} ms",
            self.sent_rate,
            ms(self.sent_p50),
            ms(self.sent_p99)
        );
    }
}

/// One daemon run in `dir`: `games` Dice Rink games, `mails` order mails, `finished` finished
/// games in the store beforehand.
pub(super) fn run(
    dir: &Path,
    cfg: &Config,
    games: usize,
    mails: usize,
    finished: usize,
    arrival: Arrival,
) -> anyhow::Result<PathFigures> {
    for sub in ["Maildir/new", "Maildir/cur", "Maildir/tmp"] {
        std::fs::create_dir_all(dir.join(sub))?;
    }
    let cfg = bench_config(cfg, dir);
    let db = dir.join("pbem.sqlite");
    let mut store = Store::open(&db, true)?;
    if finished > 0 {
        let t = Instant::now();
        fill_finished(&mut store, finished)?;
        eprintln!(
            "(filled {finished} finished games in {:.1} s)",
            t.elapsed().as_secs_f64()
        );
    }
    let ids = make_games(&mut store, &cfg, games)?;
    let raws = make_mails(&cfg, &ids, mails)?;
    let mut daemon = Daemon::new(&db, store, cfg.clone())?;
    daemon.pass()?; // the welcome mails
                    // The MTA's part, untimed: each mail written into tmp/; delivering it is a rename into
                    // new/, in name order (the order a pass takes them).
    let (tmp, new) = (dir.join("Maildir/tmp"), dir.join("Maildir/new"));
    let names: Vec<String> = (0..raws.len()).map(|i| format!("{i:08}.bench")).collect();
    for (name, raw) in names.iter().zip(&raws) {
        std::fs::write(tmp.join(name), raw)?;
    }
    let sender = BackgroundSender::start(&db, &cfg, daemon.stop.clone())?;
    // As `serve` does: each batch's commit wakes the sender, not only the pass's end.
    daemon.wake_on_commit = Some(sender.waker());
    let arrivals = Arc::new(std::sync::Mutex::new(Vec::with_capacity(raws.len())));
    if let Arrival::AllAtOnce = arrival {
        deliver_all(&names, &tmp, &new, &arrivals)?;
    }
    let start = Instant::now();
    let feeder = match arrival {
        Arrival::Steady(rate) => Some(feed(names.clone(), tmp, new, rate, &arrivals)),
        Arrival::AllAtOnce => None,
    };
    // pbem's part, timed: passes back to back, each taking what has arrived.
    let (mut commits, mut batches, mut cpu) = (Vec::new(), Vec::new(), Duration::ZERO);
    let mut done = 0;
    let mut progress = Instant::now();
    while done < raws.len() {
        let c = thread_cpu();
        let p = daemon.pass_without_sending()?;
        cpu += thread_cpu().saturating_sub(c);
        if p.processed == 0 {
            // A pass that never counts the mails it took would otherwise loop for good.
            if progress.elapsed() > Duration::from_secs(60) {
                anyhow::bail!("no mail processed for a minute: {done} of {}", raws.len());
            }
            // Nothing arrived yet: a short nap, as a daemon woken by the arrival would wait.
            std::thread::sleep(Duration::from_micros(200));
            continue;
        }
        sender.wake();
        let at = Instant::now();
        progress = at;
        commits.extend(std::iter::repeat_n(at, p.processed));
        batches.push(p.processed);
        done += p.processed;
    }
    let committed = start.elapsed();
    if let Some(f) = feeder {
        f.join()
            .map_err(|_| anyhow!("the arrivals thread panicked"))??;
    }
    let sending = Instant::now();
    // The sender stops once every waker is gone.
    daemon.wake_on_commit = None;
    sender.finish()?;
    let sent_all = committed + sending.elapsed();
    let arrivals = arrivals.lock().map_err(|_| anyhow!("poisoned"))?.clone();
    let figures = latencies(&mut daemon.store, &raws, &arrivals, &commits)?;
    batches.sort_unstable();
    Ok(PathFigures {
        mails: raws.len(),
        rate: raws.len() as f64 / committed.as_secs_f64(),
        cpu_per_mail: cpu / raws.len() as u32,
        batch_p50: batches.get(batches.len() / 2).copied().unwrap_or(0),
        commit_p50: percentile(&figures.0, 0.5),
        commit_p99: percentile(&figures.0, 0.99),
        sent_p50: percentile(&figures.1, 0.5),
        sent_p99: percentile(&figures.1, 0.99),
        sent_rate: raws.len() as f64 / sent_all.as_secs_f64(),
    })
}

type Arrivals = Arc<std::sync::Mutex<Vec<(Instant, DateTime<Utc>)>>>;

fn deliver_all(
    names: &[String],
    tmp: &Path,
    new: &Path,
    arrivals: &Arrivals,
) -> anyhow::Result<()> {
    for name in names {
        std::fs::rename(tmp.join(name), new.join(name))?;
    }
    let at = (Instant::now(), edge::now());
    arrivals
        .lock()
        .map_err(|_| anyhow!("poisoned"))?
        .extend(std::iter::repeat_n(at, names.len()));
    Ok(())
}

/// Delivers one mail every `1/rate` seconds on a thread of its own, as an MTA would.
fn feed(
    names: Vec<String>,
    tmp: std::path::PathBuf,
    new: std::path::PathBuf,
    rate: f64,
    arrivals: &Arrivals,
) -> std::thread::JoinHandle<anyhow::Result<()>> {
    let arrivals = Arc::clone(arrivals);
    std::thread::spawn(move || {
        let start = Instant::now();
        for (i, name) in names.iter().enumerate() {
            let due = start + Duration::from_secs_f64(i as f64 / rate);
            while Instant::now() < due {
                std::thread::sleep(due.saturating_duration_since(Instant::now()));
            }
            std::fs::rename(tmp.join(name), new.join(name))?;
            let at = (Instant::now(), edge::now());
            arrivals.lock().map_err(|_| anyhow!("poisoned"))?.push(at);
        }
        Ok(())
    })
}

/// Each mail's time from arrival to its commit, and to the last of its replies sent.
fn latencies(
    store: &mut Store,
    raws: &[Vec<u8>],
    arrivals: &[(Instant, DateTime<Utc>)],
    commits: &[Instant],
) -> anyhow::Result<(Vec<Duration>, Vec<Duration>)> {
    let sent = store.tx(|tx| tx.outbox(None, i64::MAX))?;
    if let Some(bad) = sent.iter().find(|r| r.status != OutboxStatus::Sent) {
        anyhow::bail!("a reply was not sent: {:?}", bad.last_error);
    }
    let mut done_at: std::collections::HashMap<&str, DateTime<Utc>> = Default::default();
    for r in &sent {
        if let (Some(irt), Some(at)) = (&r.in_reply_to, r.sent_at) {
            let e = done_at.entry(irt.as_str()).or_insert(at);
            *e = (*e).max(at);
        }
    }
    let mut to_commit = Vec::with_capacity(raws.len());
    let mut to_sent = Vec::with_capacity(raws.len());
    for ((raw, (arrived, wall)), committed) in raws.iter().zip(arrivals).zip(commits) {
        to_commit.push(committed.saturating_duration_since(*arrived));
        let id = crate::mail::inbound::parse(raw)
            .message_id
            .unwrap_or_default();
        let done = done_at
            .get(format!("<{id}>").as_str())
            .ok_or_else(|| anyhow!("no reply to {id}"))?;
        let us = (*done - *wall).num_microseconds().unwrap_or(0).max(0) as u64;
        to_sent.push(Duration::from_micros(us));
    }
    to_commit.sort();
    to_sent.sort();
    Ok((to_commit, to_sent))
}
