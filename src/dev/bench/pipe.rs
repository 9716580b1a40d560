//! `pbem bench pipe`: an order workload through one `pbem ingest` process per mail, as an MTA pipe runs it, beside a bare process start.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;

use super::reap;
use super::workload::{self, Picker};
use super::{bench_config, ms, percentile};
use crate::config::Config;
use crate::games::GameKind;
use crate::store::Store;

/// What to run: which binary, which game, how many games, mails and steps of history.
pub(super) struct PipeRun {
    pub exe: Option<PathBuf>,
    pub kind: GameKind,
    pub games: usize,
    pub mails: usize,
    pub history: usize,
    /// With `pbem serve` running, which takes each mail from `pbem ingest` (`daemon::wake`).
    pub serve: bool,
    /// One mail every so long (as mail comes to a server at a steady rate), else all at once.
    pub pace: Option<Duration>,
}

/// Runs the workload in `dir` and prints its figures.
pub(super) fn run(dir: &Path, cfg: &Config, run: &PipeRun) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)?;
    let cfg = bench_config(cfg, dir);
    let db = dir.join("pbem.sqlite");
    let exe = match &run.exe {
        Some(e) => e.clone(),
        None => std::env::current_exe().context("cannot find the pbem binary")?,
    };
    let mut store = Store::open(&db, true)?;
    let mut picker = Picker::new(0x5eed);
    let t = Instant::now();
    let games = workload::make_games(
        &mut store,
        &cfg,
        run.kind,
        run.games,
        run.history,
        &mut picker,
    )?;
    eprintln!(
        "(made {} {} games with {} {} of history in {:.1} s)",
        games.len(),
        run.kind.title(),
        run.history,
        steps(run.kind),
        t.elapsed().as_secs_f64()
    );
    let bare = bare_start(&exe, 50)?;
    // Every process from here on is counted, the workers `pbem ingest` detaches too.
    reap::adopt_descendants()?;
    reap::reap_all(Duration::from_secs(60))?;
    let before = reap::children_cpu()?;
    let mut daemon = match run.serve {
        true => Some(start_daemon(&exe, &db, &cfg)?),
        false => None,
    };
    let mut sent = Sent::default();
    for n in 0..run.mails {
        let game = &games[n % games.len()];
        let t = Instant::now();
        let raw = workload::next_mail(&mut store, &cfg, game, n, &mut picker)?;
        if n > 0 {
            sent.making += t.elapsed();
        }
        if let Some(pace) = run.pace {
            // On the schedule, whatever making the mail took.
            let due = sent.start + pace * n as u32;
            std::thread::sleep(due.saturating_duration_since(Instant::now()));
        } else if n == 0 {
            sent.start = Instant::now();
        }
        let (took, cpu) = ingest_once(&exe, &db, &cfg, &raw)?;
        sent.times.push(took);
        sent.ingest_cpu += cpu;
        sent.last = Instant::now();
        reap::reap_ended();
    }
    let drained = wait_for_outbox(&mut store, &db, Duration::from_secs(600));
    if let Some(d) = daemon.as_mut() {
        let _ = d.kill();
        let _ = d.wait();
    }
    let drained = drained?;
    // A worker lingering for the next mail counts too: its end is waited for.
    reap::reap_all(Duration::from_secs(120))?;
    let after = reap::children_cpu()?;
    check_stored(&mut store, run.mails)?;
    let all = (after.0 - before.0, after.1 - before.1);
    report(run, games.len(), bare, &mut sent, drained, all);
    Ok(())
}

/// What sending the mails measured: each `pbem ingest`'s wall time, the CPU of those
/// processes, when the first began and the last ended.
struct Sent {
    times: Vec<Duration>,
    ingest_cpu: f64,
    /// Making the mails between them (the bench's work, not pbem's).
    making: Duration,
    start: Instant,
    last: Instant,
}

impl Default for Sent {
    fn default() -> Self {
        let now = Instant::now();
        Sent {
            times: Vec::new(),
            ingest_cpu: 0.0,
            making: Duration::ZERO,
            start: now,
            last: now,
        }
    }
}

/// "turns" of a Dip-Tac-Toe game, "plies" of the others.
fn steps(kind: GameKind) -> &'static str {
    if kind == GameKind::DipTacToe {
        "turns"
    } else {
        "plies"
    }
}

/// Prints the run's figures; `all` is the user and system CPU of every process it started.
fn report(
    run: &PipeRun,
    games: usize,
    bare: Duration,
    sent: &mut Sent,
    drained: Duration,
    all: (f64, f64),
) {
    sent.times.sort();
    let times = &sent.times;
    let p50 = percentile(times, 0.5);
    let n = run.mails as f64;
    // At a pace the mails are made while waiting for the next one's time.
    let ingesting = match run.pace {
        Some(_) => sent.last - sent.start,
        None => (sent.last - sent.start).saturating_sub(sent.making),
    };
    let pace = run
        .pace
        .map_or(String::new(), |p| format!(" (one every {:.0} ms)", ms(p)));
    println!(
        "{} order workload ({} games, {} {} of history), one `pbem ingest` per mail, {}: \
         {} mails{pace}, {:.0} mails/s, per mail p50 {:.2} ms p99 {:.2} ms, CPU {:.2} ms/mail",
        run.kind.title(),
        games,
        run.history,
        steps(run.kind),
        match run.serve {
            true => "`pbem serve` running",
            false => "no daemon",
        },
        run.mails,
        n / ingesting.as_secs_f64(),
        ms(p50),
        ms(percentile(times, 0.99)),
        1000.0 * sent.ingest_cpu / n,
    );
    println!(
        "  CPU per mail of every process pbem started (`pbem ingest`, its workers{}): \
         {:.2} ms ({:.2} user, {:.2} system)",
        if run.serve { ", `pbem serve`" } else { "" },
        1000.0 * (all.0 + all.1) / n,
        1000.0 * all.0 / n,
        1000.0 * all.1 / n,
    );
    println!(
        "  bare process start (`pbem --version`): p50 {:.2} ms; ingest p50 is {:.1}x that",
        ms(bare),
        p50.as_secs_f64() / bare.as_secs_f64()
    );
    println!(
        "  every mail answered and its replies drawn and sent {:.0} ms after the last mail was stored ({:.0} mails/s \
         from the first mail to the last reply)",
        ms(drained),
        n / (ingesting + drained).as_secs_f64()
    );
}

/// `pbem serve` on the bench's database, once its wake-up socket listens.
fn start_daemon(exe: &Path, db: &Path, cfg: &Config) -> anyhow::Result<std::process::Child> {
    let socket = crate::daemon::wake::socket_path(db);
    let mut child = Command::new(exe)
        .arg("serve")
        .env("PBEM_DB", db)
        .env("PBEM_ADDRESS", &cfg.address)
        .env("PBEM_TRANSPORT", &cfg.transport)
        .env("PBEM_POLL", "1h")
        .env_remove("PBEM_MAILDIR")
        .env_remove("PBEM_FAULT")
        .env_remove("PBEM_CONFIG")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()?;
    let start = Instant::now();
    while std::os::unix::net::UnixStream::connect(&socket).is_err() {
        if start.elapsed() > Duration::from_secs(30) || child.try_wait()?.is_some() {
            let _ = child.kill();
            anyhow::bail!("pbem serve did not open {}", socket.display());
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    Ok(child)
}

/// The median time of `exe --version`: the floor for any process an MTA starts.
fn bare_start(exe: &Path, n: usize) -> anyhow::Result<Duration> {
    let mut times = Vec::with_capacity(n);
    for _ in 0..n {
        let t = Instant::now();
        let status = Command::new(exe)
            .arg("--version")
            .stdout(Stdio::null())
            .status()?;
        if !status.success() {
            anyhow::bail!("{} --version exited with {status}", exe.display());
        }
        times.push(t.elapsed());
    }
    times.sort();
    Ok(percentile(&times, 0.5))
}

/// One `pbem ingest` with `raw` on its standard input: its wall time, until its exit, and its
/// CPU seconds.
fn ingest_once(exe: &Path, db: &Path, cfg: &Config, raw: &[u8]) -> anyhow::Result<(Duration, f64)> {
    let cpu = reap::children_cpu()?;
    let t = Instant::now();
    let mut child = Command::new(exe)
        .arg("ingest")
        .env("PBEM_DB", db)
        .env("PBEM_ADDRESS", &cfg.address)
        .env("PBEM_TRANSPORT", &cfg.transport)
        .env_remove("PBEM_MAILDIR")
        .env_remove("PBEM_FAULT")
        .env_remove("PBEM_CONFIG")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .spawn()?;
    std::io::Write::write_all(&mut child.stdin.take().expect("piped"), raw)?;
    let status = child.wait()?;
    let took = t.elapsed();
    if !status.success() {
        anyhow::bail!("pbem ingest exited with {status}");
    }
    let after = reap::children_cpu()?;
    Ok((took, after.0 + after.1 - cpu.0 - cpu.1))
}

/// Waits until no mail waits in the spool or in the store to be answered, and no reply to be
/// drawn or sent (the background workers' work); its time.
fn wait_for_outbox(store: &mut Store, db: &Path, limit: Duration) -> anyhow::Result<Duration> {
    let t = Instant::now();
    let spool = crate::mail::spool::dir(db);
    loop {
        let spooled = crate::mail::spool::waiting(&spool);
        let (stored, unsent) =
            store.read(|tx| Ok((tx.new_messages()?.len(), tx.outbox_pending_count()?)))?;
        let unanswered = spooled + stored;
        if unanswered == 0 && unsent == 0 {
            return Ok(t.elapsed());
        }
        if t.elapsed() > limit {
            anyhow::bail!(
                "{unanswered} mails still unanswered and {unsent} replies unsent after {limit:?}"
            );
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

/// Every mail of the run is stored and was processed.
fn check_stored(store: &mut Store, mails: usize) -> anyhow::Result<()> {
    let messages = store.read(|tx| tx.messages(mails as i64 + 10))?;
    let done = messages.iter().filter(|m| m.status == "done").count();
    if done != mails {
        anyhow::bail!("{done} of {mails} mails were processed");
    }
    Ok(())
}
