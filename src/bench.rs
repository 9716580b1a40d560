//! `pbem bench`: the mail path's throughput and latency against SQLite's raw durable commit
//! rate (`ingest`), the endgame tables' solving time (`tablebase`) and the board pictures'
//! drawing time and size (`picture`), these two in their own files.

mod deadline;
mod picture;
mod pipe;
mod tablebase;
mod workload;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context};
use chrono::Utc;
use clap::Subcommand;

use crate::compose::Ctx;
use crate::config::Config;
use crate::daemon::Daemon;
use crate::edge;
use crate::gamelog;
use crate::games::{Actor, GameKind};
use crate::gm::{self, GameSpec, Secrets};
use crate::records::Record;
use crate::store::{GameStatus, OutboxStatus, Store};
use crate::template::Templates;

#[derive(Debug, Subcommand)]
pub enum BenchCmd {
    /// Order mails for many Dice Rink games through the whole path (Maildir, store, rules,
    /// replies into an .eml outbox), then the same with a store full of finished games, then
    /// one `pbem ingest` process per mail as an MTA runs it.
    Ingest {
        /// Games played at once.
        #[arg(long, default_value_t = 50)]
        games: usize,
        /// Order mails in all (each game plays the seed's Game 2 from the start).
        #[arg(long, default_value_t = 1000)]
        mails: usize,
        /// Mails arriving between two daemon passes (what one poll interval collects).
        #[arg(long, default_value_t = 100)]
        wave: usize,
        /// Finished games in the store for the second run (0 to skip it).
        #[arg(long, default_value_t = 100_000)]
        finished: usize,
        /// `pbem ingest` processes to time, one mail each (0 to skip).
        #[arg(long, default_value_t = 200)]
        pipe: usize,
        /// Where the scratch databases go (the disk under test); default: here.
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// An order workload through one `pbem ingest` process per mail, as an MTA pipe runs it,
    /// for games with a history, once with no daemon and once with `pbem serve` running:
    /// per-mail time and CPU beside a bare process start, then how long drawing and sending
    /// every reply takes after the last mail.
    Pipe {
        /// diptactoe (orders of four players) or d4d6 (moves, each rolled for).
        #[arg(long, default_value = "diptactoe", value_parser = bench_game)]
        game: GameKind,
        /// Games played at once (the mails go to each in turn).
        #[arg(long, default_value_t = 50)]
        games: usize,
        /// Order mails in all.
        #[arg(long, default_value_t = 700)]
        mails: usize,
        /// Turns (Dip-Tac-Toe) or plies (d4 d6) each game has played before the first mail.
        #[arg(long, default_value_t = 10)]
        history: usize,
        /// The pbem binary to time (default: this one), e.g. an older build to compare.
        #[arg(long)]
        exe: Option<PathBuf>,
        /// Where the scratch database goes; default: here.
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Keep the scratch folder (its path is printed), to look into or to profile
        /// `pbem ingest` on a store with history.
        #[arg(long)]
        keep: bool,
    },
    /// Dip-Tac-Toe games whose turns all fall due at one deadline, every order in: the time
    /// of the one timers run that adjudicates them all.
    Deadline {
        #[arg(long, default_value_t = 1000)]
        games: usize,
        /// Turns each game has played before.
        #[arg(long, default_value_t = 10)]
        history: usize,
        /// Where the scratch database goes; default: here.
        #[arg(long)]
        dir: Option<PathBuf>,
    },
    /// Solves every d4 d6 chess 2-men endgame table, standard and Rinoceronte variant.
    Tablebase,
    /// Draws each game's board picture (a start and a mid-game position) and prints the mean
    /// time per picture and its size.
    Picture {
        /// Pictures drawn per position for the mean.
        #[arg(long, default_value_t = 20)]
        rounds: u32,
        /// Also write each picture to this folder as <game>-<position>.png, to look at.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

/// `--game` of `bench pipe`: a game with a history to replay.
fn bench_game(name: &str) -> Result<GameKind, String> {
    match GameKind::parse(name) {
        Some(k @ (GameKind::DipTacToe | GameKind::D4D6)) => Ok(k),
        _ => Err("diptactoe or d4d6".into()),
    }
}

const GAME2: &str = include_str!("../tests/data/dicerink/game2.pgn");

/// Runs a benchmark and prints its figures.
pub fn run(cmd: BenchCmd, _db: &Path, cfg: Config) -> anyhow::Result<i32> {
    let (games, mails, wave, finished, pipe, dir) = match cmd {
        BenchCmd::Ingest {
            games,
            mails,
            wave,
            finished,
            pipe,
            dir,
        } => (games, mails, wave, finished, pipe, dir),
        BenchCmd::Pipe {
            game,
            games,
            mails,
            history,
            exe,
            dir,
            keep,
        } => {
            return in_scratch(dir, keep, |d| {
                for serve in [false, true] {
                    let run = pipe::PipeRun {
                        exe: exe.clone(),
                        kind: game,
                        games,
                        mails,
                        history,
                        serve,
                    };
                    pipe::run(&d.join(if serve { "served" } else { "alone" }), &cfg, &run)?;
                }
                Ok(())
            });
        }
        BenchCmd::Deadline {
            games,
            history,
            dir,
        } => return in_scratch(dir, false, |d| deadline::run(d, &cfg, games, history)),
        BenchCmd::Tablebase => return tablebase::run(),
        BenchCmd::Picture { rounds, out } => return picture::run(rounds, out.as_deref()),
    };
    in_scratch(dir, false, |scratch| {
        let raw = raw_commit_rate(&scratch.join("raw.sqlite"), 1000)?;
        println!(
            "SQLite raw durable commits (one-row transactions, WAL, synchronous=FULL): {raw:.0}/s"
        );
        let empty = path_run(&scratch.join("empty"), &cfg, games, mails, wave, 0)?;
        empty.print("empty store", raw);
        if finished > 0 {
            let full = path_run(&scratch.join("full"), &cfg, games, mails, wave, finished)?;
            full.print(&format!("store with {finished} finished games"), raw);
            println!(
                "rate with {finished} finished games: {:.1}% of the empty-store rate",
                100.0 * full.rate / empty.rate
            );
        }
        if pipe > 0 {
            pipe_run(&scratch.join("pipe"), &cfg, games.min(pipe), pipe)?;
        }
        Ok(())
    })
}

/// Runs `f` in a new scratch folder under `dir` (default: here), removed afterwards unless
/// `keep`.
fn in_scratch(
    dir: Option<PathBuf>,
    keep: bool,
    f: impl FnOnce(&Path) -> anyhow::Result<()>,
) -> anyhow::Result<i32> {
    let base = dir.unwrap_or_else(|| PathBuf::from("."));
    let outer = base.join(format!("pbem-bench-{}", std::process::id()));
    std::fs::create_dir_all(&outer)?;
    spread_subdirectories(&outer);
    // A name of its own for each run: ext4 starts its search for a group at a hash of it.
    let stamp = edge::now().timestamp_nanos_opt().unwrap_or_default();
    let scratch = outer.join(format!("run-{stamp:x}"));
    std::fs::create_dir_all(&scratch)?;
    let result = f(&scratch);
    if keep {
        eprintln!("(kept {})", scratch.display());
    } else {
        let _ = std::fs::remove_dir_all(&outer);
    }
    result.map(|_| 0)
}

/// Asks ext4 to place each subdirectory of `dir` in a block group of its own choosing
/// (`chattr +T`), not beside `dir`, starting from a hash of its name. A filesystem without a journal (this machine's) skips
/// inodes freed in the last minutes when it creates a file, scanning past each of them: after
/// a previous run deleted its thousands of files, writing the `.eml` files got 30 times slower
/// and the benchmark measured the filesystem's memory, not pbem. Other filesystems ignore it.
fn spread_subdirectories(dir: &Path) {
    use rustix::fs::{ioctl_getflags, ioctl_setflags, IFlags};
    if let Ok(f) = std::fs::File::open(dir) {
        if let Ok(flags) = ioctl_getflags(&f) {
            let _ = ioctl_setflags(&f, flags | IFlags::TOPDIR);
        }
    }
}

fn raw_commit_rate(path: &Path, n: usize) -> anyhow::Result<f64> {
    let mut store = Store::open(path, true)?;
    let t = Instant::now();
    store.bench_raw_commits(n)?;
    Ok(n as f64 / t.elapsed().as_secs_f64())
}

struct PathFigures {
    /// Time in passes (intake, rules, commits) and in sending (building and writing .eml files).
    passes: Duration,
    /// CPU time of the passes' thread: the work itself, without waits for the disk or locks.
    passes_cpu: Duration,
    sending: Duration,
    mails: usize,
    rate: f64,
    p50: Duration,
    p99: Duration,
    wave: usize,
}

impl PathFigures {
    fn print(&self, what: &str, raw: f64) {
        println!(
            "mail path, {what}: {} mails, {:.0} mails/s, latency p50 {:.1} ms p99 {:.1} ms \
             (arrival waves of {}), ratio to raw commits {:.2}",
            self.mails,
            self.rate,
            ms(self.p50),
            ms(self.p99),
            self.wave,
            self.rate / raw
        );
        println!(
            "  of which: passes (Maildir, rules, commits) {:.3} ms/mail ({:.3} ms/mail on the CPU), \
             sending (.eml files) {:.3} ms/mail",
            ms(self.passes) / self.mails as f64,
            ms(self.passes_cpu) / self.mails as f64,
            ms(self.sending) / self.mails as f64
        );
    }
}

/// CPU time this thread has used.
fn thread_cpu() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let i = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[i]
}

/// The plies every bench game plays, in order.
fn script() -> anyhow::Result<Vec<(Actor, String)>> {
    Ok(Record::parse(GAME2)
        .map_err(|e| anyhow!(e))?
        .replay()
        .map_err(|e| anyhow!("{e}"))?
        .log)
}

/// A scratch config: mail as files in `dir`.
fn bench_config(cfg: &Config, dir: &Path) -> Config {
    let mut c = cfg.clone();
    c.address = "gm@bench.example".into();
    c.maildir = Some(dir.join("Maildir"));
    c.transport = format!("dir:{}", dir.join("outbox").display());
    c.replies_per_hour = i64::MAX;
    c.move_secs = None;
    c
}

/// Creates `n` Dice Rink games; returns each game's (id, token of A, token of B).
fn make_games(
    store: &mut Store,
    cfg: &Config,
    n: usize,
) -> anyhow::Result<Vec<(i64, String, String)>> {
    let templates = Templates::load(None)?;
    let now = edge::now();
    store.tx(|tx| {
        let ctx = Ctx::new(cfg, &templates, now);
        (0..n)
            .map(|i| {
                let spec = GameSpec {
                    kind: Some(GameKind::DiceRink),
                    players: vec![
                        ("A".into(), format!("a{i}@players.example")),
                        ("B".into(), format!("b{i}@players.example")),
                    ],
                    ..Default::default()
                };
                let secrets = Secrets::generate(2)?;
                let id = gm::create_game(tx, &spec, &secrets, now)?;
                let g = gamelog::load(tx, id)?;
                crate::compose::welcome_all(tx, &ctx, &g)?;
                Ok((id, secrets.tokens[0].clone(), secrets.tokens[1].clone()))
            })
            .collect()
    })
}

/// The raw mails, in an order where each is legal when it arrives.
fn make_mails(
    cfg: &Config,
    games: &[(i64, String, String)],
    total: usize,
) -> anyhow::Result<Vec<Vec<u8>>> {
    let plies = script()?;
    let mut out = Vec::new();
    'outer: for (n, (actor, ply)) in plies.iter().enumerate() {
        for (i, (id, ta, tb)) in games.iter().enumerate() {
            if out.len() == total {
                break 'outer;
            }
            let (from, token) = match actor {
                Actor::Seat(0) => (format!("a{i}@players.example"), ta),
                _ => (format!("b{i}@players.example"), tb),
            };
            out.push(
                format!(
                    "From: {from}\r\nTo: {to}\r\nSubject: Re: [pbem #{id}] Dice Rink\r\n\
                     Message-ID: <bench.{id}.{n}@players.example>\r\n\r\n{ply}\r\n",
                    to = cfg.seat_address(token)
                )
                .into_bytes(),
            );
        }
    }
    if out.len() < total {
        anyhow::bail!(
            "{} games give at most {} mails; ask for more games",
            games.len(),
            out.len()
        );
    }
    Ok(out)
}

/// Fills the store with finished games (each a whole Game 2 with its players and log).
fn fill_finished(store: &mut Store, n: usize) -> anyhow::Result<()> {
    let plies = script()?;
    let now = edge::now();
    let options = "{}";
    for chunk in 0..n.div_ceil(10_000) {
        store.tx(|tx| {
            for i in chunk * 10_000..((chunk + 1) * 10_000).min(n) {
                let id = tx.insert_game(
                    &crate::store::NewGame {
                        kind: "dicerink",
                        options_json: options,
                        status: GameStatus::Finished,
                        event: None,
                        start_position: None,
                        seed: None,
                        commitment: None,
                        move_secs: None,
                    },
                    now,
                )?;
                let a = tx.player_id(&format!("old{}@players.example", i % 5000))?;
                let b = tx.player_id(&format!("old{}@players.example", (i + 1) % 5000))?;
                tx.insert_seat(id, 0, Some(a), None)?;
                tx.insert_seat(id, 1, Some(b), None)?;
                for (actor, ply) in &plies {
                    let name = if *actor == Actor::Seat(0) { "A" } else { "B" };
                    tx.append_move(id, name, ply, now, None)?;
                }
                tx.set_game_status(id, GameStatus::Finished, Some("B wins"), now)?;
            }
            Ok(())
        })?;
    }
    Ok(())
}

fn path_run(
    dir: &Path,
    cfg: &Config,
    games: usize,
    mails: usize,
    wave: usize,
    finished: usize,
) -> anyhow::Result<PathFigures> {
    for sub in ["Maildir/new", "Maildir/cur", "Maildir/tmp"] {
        std::fs::create_dir_all(dir.join(sub))?;
    }
    let cfg = bench_config(cfg, dir);
    let mut store = Store::open(&dir.join("pbem.sqlite"), true)?;
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
    let db = dir.join("pbem.sqlite");
    let mut daemon = Daemon::new(&db, store, cfg.clone())?;
    daemon.pass()?; // the welcome mails
                    // The MTA's part, untimed: each mail written into tmp/; delivering it is a rename into new/.
    let (tmp, new) = (dir.join("Maildir/tmp"), dir.join("Maildir/new"));
    let mut waves = Vec::new();
    for (w, chunk) in raws.chunks(wave.max(1)).enumerate() {
        let mut names = Vec::new();
        for (i, raw) in chunk.iter().enumerate() {
            let name = format!("{w:06}.{i:06}.bench");
            std::fs::write(tmp.join(&name), raw)?;
            names.push(name);
        }
        waves.push(names);
    }
    // pbem's part, timed: passes on this thread, sending on the background sender's.
    let sender = crate::daemon::BackgroundSender::start(&db, &cfg, daemon.stop.clone())?;
    let mut arrived = std::collections::HashMap::new();
    let mut passes = Duration::ZERO;
    let mut passes_cpu = Duration::ZERO;
    let start = Instant::now();
    for (w, names) in waves.iter().enumerate() {
        let at = edge::now();
        for name in names {
            std::fs::rename(tmp.join(name), new.join(name))?;
        }
        for n in names {
            arrived.insert(n.clone(), at);
        }
        let (t, cpu) = (Instant::now(), thread_cpu());
        let p = daemon.pass_without_sending()?;
        passes += t.elapsed();
        passes_cpu += thread_cpu().saturating_sub(cpu);
        sender.wake();
        if p.processed != names.len() {
            anyhow::bail!(
                "wave {w}: {} of {} mails processed",
                p.processed,
                names.len()
            );
        }
    }
    let sending = {
        let busy_before_finish = sender.busy();
        let started = Instant::now();
        sender.finish()?;
        busy_before_finish + started.elapsed()
    };
    let total = start.elapsed();
    let sent = daemon.store.tx(|tx| tx.outbox(None, i64::MAX))?;
    if let Some(bad) = sent.iter().find(|r| r.status != OutboxStatus::Sent) {
        anyhow::bail!("a reply was not sent: {:?}", bad.last_error);
    }
    // Latency of a mail: from its arrival in new/ to the last of its replies being sent.
    let mut done_at: std::collections::HashMap<String, chrono::DateTime<Utc>> = Default::default();
    for r in &sent {
        if let (Some(irt), Some(at)) = (&r.in_reply_to, r.sent_at) {
            let e = done_at.entry(irt.clone()).or_insert(at);
            *e = (*e).max(at);
        }
    }
    let mut latencies = Vec::with_capacity(raws.len());
    for (names, chunk) in waves.iter().zip(raws.chunks(wave.max(1))) {
        for (name, raw) in names.iter().zip(chunk) {
            let id = crate::mail::inbound::parse(raw)
                .message_id
                .unwrap_or_default();
            let done = done_at
                .get(&format!("<{id}>"))
                .ok_or_else(|| anyhow!("no reply to {id}"))?;
            let ms = (*done - arrived[name])
                .num_microseconds()
                .unwrap_or(0)
                .max(0) as u64;
            latencies.push(Duration::from_micros(ms));
        }
    }
    latencies.sort();
    Ok(PathFigures {
        passes,
        passes_cpu,
        sending,
        mails: raws.len(),
        rate: raws.len() as f64 / total.as_secs_f64(),
        p50: percentile(&latencies, 0.5),
        p99: percentile(&latencies, 0.99),
        wave,
    })
}

/// One `pbem ingest` process per mail, as an MTA pipe runs it.
fn pipe_run(dir: &Path, cfg: &Config, games: usize, mails: usize) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)?;
    let cfg = bench_config(cfg, dir);
    let db = dir.join("pbem.sqlite");
    let mut store = Store::open(&db, true)?;
    let ids = make_games(&mut store, &cfg, games)?;
    let raws = make_mails(&cfg, &ids, mails)?;
    drop(store);
    let exe = std::env::current_exe().context("cannot find the pbem binary")?;
    let mut times = Vec::with_capacity(raws.len());
    let start = Instant::now();
    for raw in &raws {
        let t = Instant::now();
        let mut child = Command::new(&exe)
            .arg("ingest")
            .env("PBEM_DB", &db)
            .env("PBEM_ADDRESS", &cfg.address)
            .env("PBEM_TRANSPORT", &cfg.transport)
            .env_remove("PBEM_MAILDIR")
            .env_remove("PBEM_FAULT")
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .spawn()?;
        std::io::Write::write_all(&mut child.stdin.take().expect("piped"), raw)?;
        let status = child.wait()?;
        if !status.success() {
            anyhow::bail!("pbem ingest exited with {status}");
        }
        times.push(t.elapsed());
    }
    let total = start.elapsed();
    times.sort();
    println!(
        "MTA pipe, one `pbem ingest` process per mail: {} mails, {:.0} mails/s, per mail p50 {:.1} ms p99 {:.1} ms",
        raws.len(),
        raws.len() as f64 / total.as_secs_f64(),
        ms(percentile(&times, 0.5)),
        ms(percentile(&times, 0.99))
    );
    Ok(())
}
