//! `pbem bench`: the mail path's throughput and latency against SQLite's raw durable commit
//! rate (`ingest`), the endgame tables' solving time (`tablebase`) and the board pictures'
//! drawing time and size (`picture`), these two in their own files; the robots' strength and
//! time per decision (`robots`).

mod deadline;
mod ingest;
mod lcg;
mod path;
mod picture;
mod pipe;
mod reap;
mod robots;
mod tablebase;
mod workload;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::anyhow;
use clap::Subcommand;

use crate::compose::Ctx;
use crate::config::Config;
use crate::edge;

use crate::games::{Actor, GameKind};
use crate::gm::{self, GameSpec, Secrets};
use crate::records::Record;
use crate::store::{GameStatus, Store};
use crate::template::Templates;

#[derive(Debug, Subcommand)]
pub enum BenchCmd {
    /// Order mails for many Dice Rink games through a daemon's whole path (Maildir, store,
    /// rules, durable commit; replies drawn and sent on the sender's thread): all waiting at
    /// once (throughput, against SQLite's raw durable commit rate), then arriving one by one
    /// at a steady rate (latency, each pass taking what arrived), then with a store full of
    /// finished games.
    Ingest {
        /// Games played at once.
        #[arg(long, value_parser = at_least_one, default_value_t = 50)]
        games: usize,
        /// Order mails in all (each game plays the seed's Game 2 from the start).
        #[arg(long, value_parser = at_least_one, default_value_t = 1000)]
        mails: usize,
        /// Mails a second in the steady run (default: half the raw durable commit rate
        /// measured, some thousand mails a second: fifty times what njudge takes by pipe).
        #[arg(long, value_parser = mails_a_second)]
        rate: Option<f64>,
        /// Finished games in the store for the last run (0 to skip it).
        #[arg(long, default_value_t = 100_000)]
        finished: usize,
        /// Runs of it all, each printed, then each figure's median and range.
        #[arg(long, value_parser = at_least_one, default_value_t = 1)]
        runs: usize,
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
        #[arg(long, value_parser = at_least_one, default_value_t = 50)]
        games: usize,
        /// Order mails in all.
        #[arg(long, value_parser = at_least_one, default_value_t = 700)]
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
        /// Only the run without a daemon (for a pbem older than `pbem serve`'s wake-up socket).
        #[arg(long)]
        alone: bool,
        /// One mail every so long (e.g. 76ms, njudge's own rate) instead of all at once.
        #[arg(long, value_parser = pace)]
        pace: Option<Duration>,
    },
    /// Dip-Tac-Toe games whose turns all fall due at one deadline, every order in: the time
    /// of the one timers run that adjudicates them all.
    Deadline {
        #[arg(long, value_parser = at_least_one, default_value_t = 1000)]
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
    /// The robots: games of the strongest against a uniformly random legal player and
    /// against the easy robot, and of the easy robot against random (one robot among random
    /// players in the games of more), seats alternating; wins, draws, losses, the score and
    /// the time per decision (p50, p99).
    Robots {
        /// Games per pairing.
        #[arg(long, value_parser = at_least_one, default_value_t = 200)]
        games: usize,
        /// One JSON object per pairing, a line each.
        #[arg(long)]
        json: bool,
        /// Only this game (dicerink, d4d6, diptactoe, dicess, siberian).
        #[arg(long, value_parser = a_game)]
        game: Option<GameKind>,
    },
    /// Draws every position of a seeded game of each game and variant once, in order, from a
    /// cold start, and prints the median time per picture and the sizes.
    Picture {
        /// Passes over each game's positions, each from a cold start (nothing kept).
        #[arg(long, default_value_t = 5)]
        passes: u32,
        /// Only this game's pictures (dicerink, d4d6, diptactoe, dicess, siberian).
        #[arg(long, value_parser = a_game)]
        game: Option<GameKind>,
        /// Also write each picture to this folder as <game>-<position>.png, to look at.
        #[arg(long)]
        out: Option<PathBuf>,
    },
}

/// A count that must not be zero (no games, no mails: nothing to time).
fn at_least_one(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("a whole number, at least 1".into()),
    }
}

/// `--game`: a game pbem knows (an unknown name would bench nothing).
fn a_game(text: &str) -> Result<GameKind, String> {
    GameKind::parse(text).ok_or_else(|| {
        let names: Vec<&str> = GameKind::ALL.iter().map(|k| k.name()).collect();
        format!("one of {}", names.join(", "))
    })
}

/// `--rate`: a finite number of mails a second, more than none.
fn mails_a_second(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(r) if r.is_finite() && r > 0.0 => Ok(r),
        _ => Err("a number of mails a second, more than 0".into()),
    }
}

/// `--pace` of `bench pipe`: milliseconds (`76ms`) or seconds (`0.5s`).
fn pace(text: &str) -> Result<Duration, String> {
    let bad = || format!("{text}: a time such as 76ms or 0.5s");
    let (number, unit) = match text.strip_suffix("ms") {
        Some(n) => (n, 0.001),
        None => (text.strip_suffix('s').ok_or_else(bad)?, 1.0),
    };
    let secs = number.trim().parse::<f64>().map_err(|_| bad())? * unit;
    Duration::try_from_secs_f64(secs).map_err(|_| bad())
}

/// `--game` of `bench pipe`: a game with a history to replay.
fn bench_game(name: &str) -> Result<GameKind, String> {
    match GameKind::parse(name) {
        Some(k @ (GameKind::DipTacToe | GameKind::D4D6)) => Ok(k),
        _ => Err("diptactoe or d4d6".into()),
    }
}

const GAME2: &str = include_str!("../../tests/data/dicerink/game2.pgn");

/// Runs a benchmark and prints its figures.
pub fn run(cmd: BenchCmd, _db: &Path, cfg: Config) -> anyhow::Result<i32> {
    let (games, mails, rate, finished, runs, dir) = match cmd {
        BenchCmd::Ingest {
            games,
            mails,
            rate,
            finished,
            runs,
            dir,
        } => (games, mails, rate, finished, runs, dir),
        BenchCmd::Pipe {
            game,
            games,
            mails,
            history,
            exe,
            dir,
            keep,
            alone,
            pace,
        } => {
            let modes: &[bool] = if alone { &[false] } else { &[false, true] };
            return in_scratch(dir, keep, |d| {
                for &serve in modes {
                    let run = pipe::PipeRun {
                        exe: exe.clone(),
                        kind: game,
                        games,
                        mails,
                        history,
                        serve,
                        pace,
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
        BenchCmd::Robots { games, json, game } => return robots::run(games, json, game),
        BenchCmd::Picture { passes, out, game } => {
            return picture::run(passes, out.as_deref(), game)
        }
    };
    let run = ingest::IngestRun {
        games,
        mails,
        rate,
        finished,
        runs,
    };
    in_scratch(dir, false, |scratch| ingest::run(scratch, &cfg, &run))
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
                let id = gm::create_game(&mut ctx.gm(tx), &spec, &secrets)?;
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
