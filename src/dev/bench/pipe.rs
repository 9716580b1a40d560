//! `pbem bench pipe`: an order workload through one `pbem ingest` process per mail, as an MTA pipe runs it, beside a bare process start.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::Context;

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
        if run.kind == GameKind::DipTacToe {
            "turns"
        } else {
            "plies"
        },
        t.elapsed().as_secs_f64()
    );
    let bare = bare_start(&exe, 50)?;
    let mut daemon = match run.serve {
        true => Some(start_daemon(&exe, &db, &cfg)?),
        false => None,
    };
    let before = children_cpu()?;
    let mut times = Vec::with_capacity(run.mails);
    let start = Instant::now();
    let mut making = Duration::ZERO;
    for n in 0..run.mails {
        let game = &games[n % games.len()];
        let t = Instant::now();
        let raw = workload::next_mail(&mut store, &cfg, game, n, &mut picker)?;
        making += t.elapsed();
        times.push(ingest_once(&exe, &db, &cfg, &raw)?);
    }
    let ingesting = start.elapsed() - making;
    let (user, system) = children_cpu()?;
    let (user, system) = (user - before.0, system - before.1);
    let drained = wait_for_outbox(&mut store, &db, Duration::from_secs(600));
    if let Some(d) = daemon.as_mut() {
        let _ = d.kill();
        let _ = d.wait();
    }
    let drained = drained?;
    check_stored(&mut store, run.mails)?;
    times.sort();
    let p50 = percentile(&times, 0.5);
    let n = run.mails as f64;
    println!(
        "{} order workload ({} games, {} {} of history), one `pbem ingest` per mail, {}: \
         {} mails, {:.0} mails/s, per mail p50 {:.2} ms p99 {:.2} ms, CPU {:.2} ms/mail \
         ({:.2} user, {:.2} system)",
        run.kind.title(),
        games.len(),
        run.history,
        if run.kind == GameKind::DipTacToe {
            "turns"
        } else {
            "plies"
        },
        match run.serve {
            true => "`pbem serve` running",
            false => "no daemon",
        },
        run.mails,
        n / ingesting.as_secs_f64(),
        ms(p50),
        ms(percentile(&times, 0.99)),
        1000.0 * (user + system) / n,
        1000.0 * user / n,
        1000.0 * system / n,
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
    Ok(())
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

/// One `pbem ingest` with `raw` on its standard input; its wall time, until its exit.
fn ingest_once(exe: &Path, db: &Path, cfg: &Config, raw: &[u8]) -> anyhow::Result<Duration> {
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
    Ok(took)
}

/// User and system CPU seconds of this process's finished children (`/proc/self/stat`,
/// fields 16 and 17, in the kernel's fixed 100 ticks a second).
fn children_cpu() -> anyhow::Result<(f64, f64)> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = stat
        .rsplit_once(')')
        .map(|(_, r)| r)
        .context("unreadable /proc/self/stat")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state): field k is fields[k - 3].
    let tick = |k: usize| -> anyhow::Result<f64> {
        Ok(fields
            .get(k - 3)
            .context("short /proc/self/stat")?
            .parse::<f64>()?
            / 100.0)
    };
    Ok((tick(16)?, tick(17)?))
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
