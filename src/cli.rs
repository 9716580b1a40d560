//! The command line (clap derive): the GM's commands, each mapped to the library; exit codes here.

use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::config::{self, Config};
use crate::daemon::Daemon;
use crate::edge;
use crate::gamelog;
use crate::gm;
use crate::mail::intake::{PipeSource, Source};
use crate::records;
use crate::store::Store;

mod analyze;
mod args;
mod collection;
mod config_check;
mod desk;
mod exit;
mod game;
mod inbox_desk;
mod ingest_args;
mod outbox_desk;
mod player;
mod record_desk;
mod seat_ops;
mod seat_turns;
mod show;
mod stats;
pub use analyze::{d4d6_query, D4d6Args};
pub use args::{Cli, Command, GameCmd, NewArgs, PlayerCmd};
use game::adjudicate;
use record_desk::{export_json, replay, verify};

pub use config_check::ConfigCmd;
pub use inbox_desk::{InboxCmd, InboxList};
pub use outbox_desk::OutboxCmd;

/// The database path: --db, PBEM_DB, the config file's `db`, or pbem.sqlite here.
pub fn db_path(cli: &Cli, from_config: Option<PathBuf>) -> PathBuf {
    cli.db
        .clone()
        .or(from_config)
        .unwrap_or_else(|| PathBuf::from("pbem.sqlite"))
}

use exit::refuse;
pub use exit::{failed, Exit, Refused};

/// Runs a parsed command, printing its output; errors go back to main.
pub fn run(cli: Cli) -> anyhow::Result<Exit> {
    // The MTA's command keeps its own contract, even for a config that does not load.
    if let Command::Ingest = cli.command {
        return Ok(ingest(&cli));
    }
    let (cfg, cfg_db) = config::load(cli.config.as_deref(), &config::process_env)?;
    crate::store::set_busy_timeout(std::time::Duration::from_secs(cfg.busy_timeout_secs));
    let db = db_path(&cli, cfg_db);
    match cli.command {
        Command::Ingest => unreachable!("handled above"),
        Command::Serve { once } => {
            let store = match once {
                true => Store::open(&db, true)?,
                false => open_for_serve(&db, cfg.poll_secs)?,
            };
            let mut d = Daemon::new(&db, store, cfg)?;
            let p = d.serve(once)?;
            if once {
                println!(
                    "stored {} (duplicates {}), processed {}, timers {}, sent {}, retrying {}, failed {}",
                    p.stored, p.duplicates, p.processed, p.timers, p.sent, p.retrying, p.failed
                );
            }
            Ok(0)
        }
        Command::IngestWorker => {
            crate::daemon::worker::run(&db, cfg, cli.config.as_deref()).map(|()| 0)
        }
        Command::Outbox(cmd) => outbox_desk::run(&db, &cfg, cmd, edge::now()),
        Command::Inbox { show, list } => inbox_desk::run(&db, show, list),
        Command::Config(cmd) => config_check::run(&cfg, &db, cmd),
        Command::Player(cmd) => player::run(&db, cmd),
        Command::Verify { file } => verify(&file),
        Command::Analyze { game, args } => analyze::run(&game, &args),
        Command::Adjudicate { game, file, json } => adjudicate(&game, &file, json),
        Command::Bench(cmd) => crate::dev::bench::run(cmd, &db, cfg),
        Command::Init => {
            Store::open(&db, true)?;
            println!("database ready: {}", db.display());
            Ok(0)
        }
        Command::Game(cmd) => game::run(&db, cmd, cfg),
        Command::Stats { game } => stats::run_stats(&db, game.as_deref()),
        Command::Ratings { game } => stats::run_ratings(&db, &game),
        Command::Export {
            all: true,
            game,
            finished,
            with_addresses,
            ..
        } => collection::export_all(&db, game.as_deref(), finished, reveal(with_addresses)),
        Command::Export {
            id,
            format,
            with_addresses,
            ..
        } => {
            let id = id.expect("clap requires an id without --all");
            let mut store = Store::open(&db, false)?;
            game_exists(&mut store, id)?;
            let g = store.tx(|tx| gamelog::load(tx, id))?;
            let reveal = reveal(with_addresses);
            if format == "json" {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&export_json(&g, reveal)?)?
                );
            } else {
                print!("{}", gm::export_as(&g, reveal)?);
            }
            Ok(0)
        }
        Command::Archive { dir } => {
            let w = crate::archive::write(&mut Store::open(&db, false)?, &dir)?;
            println!(
                "archive {}: {} games ({} unchanged), {} files written, {} unchanged, {} removed",
                dir.display(),
                w.games,
                w.skipped,
                w.written,
                w.unchanged,
                w.removed
            );
            Ok(0)
        }
        Command::Replay { file, json } => replay(&file, json),
        Command::Demo { dir, html } => crate::dev::demo::run(dir.as_deref(), html.as_deref()),
    }
}

/// Opens the daemon's database, waiting out what time may cure (another process holding
/// the lock a migration needs, a full disk): a daemon started at boot must not die because
/// something else held the database at that moment. Anything else is an error at start.
fn open_for_serve(db: &Path, poll_secs: u64) -> anyhow::Result<Store> {
    let mut failures = 0;
    loop {
        match Store::open(db, true) {
            Ok(store) => return Ok(store),
            Err(e) if crate::store::is_transient(&e) => {
                failures += 1;
                let pause = crate::daemon::retry_pause(poll_secs, failures);
                tracing::error!(error = %format!("{e:#}"), retry_in_secs = pause, "cannot open the database; retrying");
                std::thread::sleep(std::time::Duration::from_secs(pause));
            }
            Err(e) => return Err(e),
        }
    }
}

/// What the GM's command played (plies, reports), then the board and who acts next.
fn print_played(g: &gamelog::Loaded, played: &gm::Played) {
    for (a, text) in &played.plies {
        println!("{}: {text}", records::actor_name(&g.game, *a));
    }
    for r in &played.reports {
        println!("{r}");
    }
    println!();
    print!("{}", g.game.board());
    println!("{}", gm::to_act_text(g));
}

/// Sends what is due now; a failure leaves the mail queued for `pbem serve`.
fn send_now(store: &mut Store, cfg: &Config) {
    let result = cfg
        .transport()
        .and_then(|t| crate::sender::drain(store, cfg, &t, &edge::now));
    if let Err(e) = result {
        say(&format!("pbem: mail queued, not sent yet: {e:#}"));
    }
}

/// `pbem ingest`, the MTA's contract (sysexits): 0 once the mail is durable (in a running
/// daemon's commit, or in the spool),
/// 75 (EX_TEMPFAIL) for anything a retry could cure, so the MTA keeps the mail and delivers
/// it again: an unreadable or malformed config (the GM fixes it), a spool that cannot be
/// written, a full disk, even a panic. Never 101: no panic leaves this function, and
/// nothing here panics on a closed or full stderr (`say`).
fn ingest(cli: &Cli) -> Exit {
    const EX_TEMPFAIL: Exit = 75;
    match crate::unwind::catch(|| ingest_stored(cli)) {
        Ok(()) => 0,
        Err(e) => {
            say(&format!("pbem ingest: the message was not kept: {e:#}"));
            EX_TEMPFAIL
        }
    }
}

/// Reads the mail on stdin and hands it to a running daemon, or else spools it and calls the
/// daemon or starts a worker (processing and sending follow, but their failures are logged,
/// never returned: the mail is safe).
fn ingest_stored(cli: &Cli) -> anyhow::Result<()> {
    let (cfg, cfg_db) = config::load(cli.config.as_deref(), &config::process_env)?;
    // Never more than the size limit in memory: a larger mail is kept as its headers.
    let mut source = PipeSource::new(std::io::stdin().lock(), cfg.max_message_bytes);
    let mail = source.fetch(1)?;
    let db = db_path(cli, cfg_db);
    // The mail goes into the spool, a file synced to disk, and nothing more (no database
    // opened). Reading it into the store, answering it, drawing and sending the replies is
    // the work of a running `pbem serve`, woken now (`daemon::wake`), or else of a
    // background worker, which the MTA does not wait for (a failure to start one is logged;
    // the next `pbem ingest` or `pbem serve` does it).
    // A running daemon takes the mail over its socket and stores it in its own durable
    // commit: no spool file, no sync here (`daemon::handover`). Short of its word that the
    // mail is stored, the mail is spooled.
    if let [m] = mail.as_slice() {
        crate::fault::point("ingest:before-handover");
        if crate::daemon::handover::hand_over(&db, &m.raw) {
            return source.ack(&mail);
        }
    }
    let spool = crate::mail::spool::dir(&db);
    for m in &mail {
        crate::fault::point("ingest:before-store");
        crate::mail::spool::deliver(&spool, &m.raw, edge::now())?;
        crate::fault::point("ingest:after-store");
    }
    if crate::daemon::wake::call(&db) {
        return source.ack(&mail);
    }
    let exe = std::env::current_exe().context("cannot find the pbem binary");
    if let Err(e) =
        exe.and_then(|exe| crate::daemon::worker::start(&exe, &db, cli.config.as_deref()))
    {
        say(&format!("pbem ingest: spooled; no worker started: {e:#}"));
    }
    // For a pipe the acknowledgement is the exit code 0 that follows.
    source.ack(&mail)
}

/// Writes a line to stderr, ignoring failure: a closed or full stderr must not turn a
/// message into a panic (`eprintln!` panics when it cannot write), least of all in
/// `pbem ingest`, whose exit code an MTA acts on.
pub fn say(line: &str) {
    use std::io::Write as _;
    // A refusal can quote what a stranger wrote: shown escaped, as on standard output.
    let _ = writeln!(std::io::stderr(), "{}", crate::stdout::shown(line));
}

/// A game id that names no game is refused (exit 1), in every command that takes one.
fn game_exists(store: &mut Store, id: i64) -> anyhow::Result<()> {
    match store.read(|tx| tx.game(id))? {
        Some(_) => Ok(()),
        None => Err(refuse(format_args!("there is no game {id}"))),
    }
}

/// A seat of a loaded game by name, or the error naming the seats there are.
fn seat_of(g: &gamelog::Loaded, name: &str) -> anyhow::Result<usize> {
    g.game.seat_by_name(name).ok_or_else(|| {
        refuse(format_args!(
            "no seat '{name}' in game {} (seats: {})",
            g.row.id,
            g.game.seat_names().join(", ")
        ))
    })
}

/// How an export names the players: by name, unless the GM asks for the addresses too.
fn reveal(with_addresses: bool) -> gm::names::Reveal {
    match with_addresses {
        true => gm::names::Reveal::Addresses,
        false => gm::names::Reveal::Names,
    }
}
