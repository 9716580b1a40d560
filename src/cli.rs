//! The command line (clap derive): the GM's commands, each mapped to the library; exit codes here.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use chrono::Utc;
use clap::{Args, Parser, Subcommand};

use crate::compose::{self, Ctx};
use crate::config::{self, Config};
use crate::daemon::Daemon;
use crate::edge;
use crate::gamelog;
use crate::games::{Actor, GameKind};
use crate::gm::{self, GameSpec, Secrets};
use crate::mail::intake::{PipeSource, Source};
use crate::records::{self, Record};
use crate::store::{GameStatus, Store};
use crate::template::Templates;

mod analyze;
mod config_check;
mod desk;
mod inbox_desk;
mod ingest_args;
mod outbox_desk;
mod seat_ops;
mod seat_turns;
mod show;
pub use analyze::{d4d6_query, D4d6Args};
pub use config_check::ConfigCmd;
pub use inbox_desk::{InboxCmd, InboxList};
pub use outbox_desk::OutboxCmd;

impl Cli {
    /// The command line, with the games pbem plays listed under `--help` (from the registry,
    /// so a new game appears there by itself). An `ingest` line, an MTA's one per mail, is
    /// read by its own small parser first (`ingest_args`).
    pub fn parse_with_games() -> Cli {
        use clap::{CommandFactory, FromArgMatches};
        if let Some(i) = ingest_args::IngestOnly::parse(std::env::args_os()) {
            return Cli {
                db: i.db,
                config: i.config,
                command: Command::Ingest,
            };
        }
        let games: Vec<String> = GameKind::ALL
            .iter()
            .map(|k| {
                let (fewest, most) = k.facts().players;
                let players = if fewest == most {
                    format!("{most} players")
                } else {
                    format!("{fewest} to {most} players")
                };
                let variants = k
                    .facts()
                    .options
                    .iter()
                    .find(|o| o.name == "variant")
                    .map(|o| format!("; variant={}", o.values.join("|")))
                    .unwrap_or_default();
                format!("  {:<10} {} ({players}{variants})", k.name(), k.title())
            })
            .collect();
        let help = format!("Games:\n{}", games.join("\n"));
        let matches = Cli::command().after_help(help).get_matches();
        Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit())
    }
}

/// pbem: a play-by-email game master.
#[derive(Debug, Parser)]
#[command(name = "pbem", version, about, long_about = None)]
pub struct Cli {
    /// The SQLite database (default: pbem.sqlite in the working directory).
    #[arg(long, global = true, env = "PBEM_DB")]
    pub db: Option<PathBuf>,
    /// The configuration file (default: pbem.toml when it exists).
    #[arg(long, global = true, env = "PBEM_CONFIG")]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Create the database (or bring its schema up to date).
    Init,
    /// Create, list, show and play games.
    #[command(subcommand)]
    Game(GameCmd),
    /// Write a game's record.
    Export {
        id: i64,
        #[arg(long, default_value = "record", value_parser = ["record", "json"])]
        format: String,
    },
    /// Replay a record file without touching the database.
    Replay {
        file: PathBuf,
        /// Print the result as JSON.
        #[arg(long)]
        json: bool,
    },
    /// Read one mail on standard input (for an MTA pipe); exit 0 once it is safe on disk
    /// (in the spool beside the database, for `pbem serve` or a background worker to read
    /// in), 75 (EX_TEMPFAIL) when it could not be, so the MTA retries.
    Ingest,
    /// The worker `pbem ingest` starts when no daemon runs: reads the spool in, answers it,
    /// sends the replies (`daemon::worker`).
    #[command(hide = true)]
    IngestWorker,
    /// Run the game master: the Maildir, timers and the outbox, until SIGINT/SIGTERM.
    Serve {
        /// Process everything pending once, then exit.
        #[arg(long)]
        once: bool,
    },
    /// The outgoing mail queue.
    #[command(subcommand)]
    Outbox(OutboxCmd),
    /// Incoming mail as stored, newest first, with what became of it (`inbox show ID`:
    /// one mail, line by line).
    #[command(args_conflicts_with_subcommands = true)]
    Inbox {
        #[command(subcommand)]
        show: Option<InboxCmd>,
        #[command(flatten)]
        list: InboxList,
    },
    /// The configuration.
    #[command(subcommand)]
    Config(ConfigCmd),
    /// Players.
    #[command(subcommand)]
    Player(PlayerCmd),
    /// What-if adjudication for the GM (njudge's PREDICT): a position and orders in, results out.
    Adjudicate {
        /// The game (diptactoe).
        game: String,
        /// JSON: {"units": {...}, "reserves": {...}, "orders": {...}}.
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// The d4 d6 chess 2-men endgame tablebase: `pbem analyze d4d6 --white Ga --black Ra
    /// [--white-squares light|dark] [--black-squares ...] [--to-move white|black]
    /// [--variant rinoceronte] [--extremes squares|positions] [--json]`; pieces Ra Ca Fo Ga Go
    /// Ri, optionally `Ga@a6`, `Ca@e5/N`. The worst and best cases are by square (a Cavalo's
    /// facings averaged), or by single position with `--extremes positions`.
    Analyze {
        /// The game (d4d6).
        game: String,
        /// The query (see above).
        // Read by `analyze::D4d6Args` once the game is known.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
    /// Recompute every dice roll of an exported record from its revealed seed.
    Verify { file: PathBuf },
    /// Measure the mail path (see README).
    #[command(subcommand)]
    Bench(crate::dev::bench::BenchCmd),
    /// A fresh database plays a seed game to the end, printing each board.
    Demo {
        /// Where the demo's database goes (default: a new temporary folder).
        #[arg(long)]
        dir: Option<PathBuf>,
        /// Also write every mail to this folder as files: its text (.txt), its HTML part
        /// (.html) and the board pictures it shows (.png).
        #[arg(long, value_name = "DIR")]
        html: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
pub enum PlayerCmd {
    /// A player's games and the games with open seats (as LIST by mail shows them).
    Games { email: String },
    /// Set (or with --clear remove) a player's password for PASSWORD lines; read from stdin.
    Password {
        email: String,
        #[arg(long)]
        clear: bool,
    },
    /// Pause a player's clocks for some days (1 to 60), or end the pause with --off (as the
    /// player's VACATION by mail).
    Vacation {
        email: String,
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=60), conflicts_with = "off")]
        days: Option<u32>,
        #[arg(long)]
        off: bool,
    },
    /// A player's news as one mail a day (on) or a mail per move (off), as DIGEST by mail.
    Digest {
        email: String,
        #[arg(value_parser = ["on", "off"])]
        state: String,
    },
}

#[derive(Debug, Subcommand)]
pub enum GameCmd {
    /// Create a game; prints its id.
    New(NewArgs),
    /// List the games.
    List {
        /// Only games with this status (open, active, finished).
        #[arg(long, value_parser = game_status)]
        status: Option<GameStatus>,
    },
    /// Show a game's board, whose turn it is and its players.
    Show { id: i64 },
    /// List a game's plies.
    Moves { id: i64 },
    /// Play a ply as a seat (the GM's override; the mail path uses the same code).
    Play {
        id: i64,
        /// The seat that plays (A, B, WHITE, BLUE, ...); `--gm` for a GM ply.
        #[arg(long, required_unless_present = "gm")]
        seat: Option<String>,
        /// Play as the GM (an agreed draw, a turn's adjudication).
        #[arg(long)]
        gm: bool,
        /// The ply in the game's notation.
        ply: String,
    },
    /// Put another player in a seat (e.g. after missed turns); they get a welcome.
    Replace {
        id: i64,
        #[arg(long)]
        seat: String,
        email: String,
    },
    /// Reveal a game's dice seed now (it is revealed by itself when the game ends); future
    /// rolls become predictable, so this is for games that are abandoned or under dispute.
    Reveal { id: i64 },
    /// Pause a game: no clock runs and no move is played until it resumes (players are told).
    Pause {
        id: i64,
        #[arg(long)]
        reason: Option<String>,
    },
    /// Resume a paused game: every clock gets back the time it had left.
    Resume { id: i64 },
    /// A new deadline for whoever is to act: `2026-12-01 18:00` (UTC), RFC 3339, or a
    /// duration from now (`2d`).
    Deadline { id: i64, when: String },
    /// Move the deadline later (`12h`, `2d`, `1h 30m`).
    Extend { id: i64, by: String },
    /// Change an option mid-game: move_time, grace, timeout, early_resolve or press
    /// (`pbem game set 3 grace=12h`).
    Set { id: i64, assignment: String },
    /// Undo the last plies (rolls replay identically: they are derived, not drawn again).
    Rollback {
        id: i64,
        /// How many plies to undo (default 1; back further to where a player acts).
        #[arg(long, conflicts_with = "to")]
        plies: Option<usize>,
        /// Keep the first N plies.
        #[arg(long)]
        to: Option<usize>,
    },
    /// End a game without a result (record `Result "*"`, dice seed revealed).
    Cancel {
        id: i64,
        #[arg(long)]
        reason: String,
    },
    /// Take a player out of their seat (the game pauses until one is seated), or give the
    /// seat to another at once with --replace.
    Eject {
        id: i64,
        #[arg(long)]
        seat: String,
        #[arg(long)]
        replace: Option<String>,
    },
    /// A message from the GM to every player of a game.
    Message { id: i64, text: String },
    /// Send a seat's player the last mail about the game again.
    Resend {
        id: i64,
        #[arg(long)]
        seat: String,
    },
    /// Fix the dice salts now and make the roll that waits for them (a game with dice waits
    /// for every player's START, or the end of its salt window, before its first roll); with
    /// --seat, that seat's START only (as by mail).
    Start {
        id: i64,
        #[arg(long)]
        seat: Option<String>,
    },
    /// Give a seat's orders for the current simultaneous turn (as its order lines by mail).
    Orders {
        id: i64,
        #[arg(long)]
        seat: String,
        #[arg(required = true)]
        lines: Vec<String>,
    },
    /// Play a seat's declaration with outcomes planned per roll (as its conditional mail):
    /// the declaration, then one argument per planned line.
    Plan {
        id: i64,
        #[arg(long)]
        seat: String,
        #[arg(required = true)]
        lines: Vec<String>,
    },
    /// Seat a player in an open game (as a confirmed JOIN by mail); the game begins when the
    /// last seat is taken.
    Join {
        id: i64,
        email: String,
        #[arg(long)]
        seat: Option<String>,
    },
    /// Whose turn, the deadline and the players (as a seat's STATUS by mail).
    Status {
        id: i64,
        #[arg(long)]
        seat: Option<String>,
    },
    /// A seat's legal moves now (as its MOVES by mail).
    Legal {
        id: i64,
        #[arg(long)]
        seat: String,
    },
    /// The game so far as a record's move text (as HISTORY by mail).
    History { id: i64 },
    /// Clear a game's quarantine (set when its timer or adjudication failed) once the cause
    /// is fixed: its timers run again from the next pass.
    #[command(alias = "release")]
    Unquarantine { id: i64 },
    /// Resign for a seat (as its RESIGN by mail would).
    Resign {
        id: i64,
        #[arg(long)]
        seat: String,
    },
    /// Offer, accept or decline a draw for a seat (as its DRAW line by mail would).
    Draw {
        id: i64,
        #[arg(long)]
        seat: String,
        #[arg(value_enum)]
        action: seat_ops::DrawAction,
    },
    /// Send press for a seat (as its PRESS line by mail would): --to ALL or seat names.
    Press {
        id: i64,
        #[arg(long)]
        seat: String,
        #[arg(long, value_delimiter = ',', required = true)]
        to: Vec<String>,
        text: String,
    },
    /// Add a salt to the dice for a seat (as its SALT line by mail would).
    Salt {
        id: i64,
        #[arg(long)]
        seat: String,
        text: String,
    },
    /// Give a seat a new secret reply address (the old one stops working).
    RotateToken {
        id: i64,
        #[arg(long)]
        seat: String,
    },
}

#[derive(Debug, Args)]
pub struct NewArgs {
    /// The game: one of those `pbem --help` lists (dicerink, d4d6, diptactoe, ...).
    pub kind: String,
    /// SEAT=ADDRESS, once per seat (A=alice@example.org).
    #[arg(long = "player", value_name = "SEAT=ADDRESS")]
    pub players: Vec<String>,
    /// NAME=VALUE, a game option (see `notation/<game>.md`).
    #[arg(long = "option", value_name = "NAME=VALUE")]
    pub options: Vec<String>,
    /// The event name written in the record.
    #[arg(long)]
    pub event: Option<String>,
    /// Time limit per move (or per turn): e.g. 3d, 36h, 90m.
    #[arg(long)]
    pub move_time: Option<String>,
    /// Start from this position (the game's `[Position]` tag format).
    #[arg(long)]
    pub position: Option<String>,
}

/// The database path: --db, PBEM_DB, the config file's `db`, or pbem.sqlite here.
pub fn db_path(cli: &Cli, from_config: Option<PathBuf>) -> PathBuf {
    cli.db
        .clone()
        .or(from_config)
        .unwrap_or_else(|| PathBuf::from("pbem.sqlite"))
}

/// Exit status of a command: 0 done, 1 refused (an illegal ply, a bad record), other codes
/// for mail-system use (sysexits) where a command says so.
pub type Exit = i32;

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
        Command::IngestWorker => crate::daemon::worker::run(&db, cfg).map(|()| 0),
        Command::Outbox(cmd) => outbox_desk::run(&db, &cfg, cmd, edge::now()),
        Command::Inbox { show, list } => inbox_desk::run(&db, show, list),
        Command::Config(cmd) => config_check::run(&cfg, &db, cmd),
        Command::Player(PlayerCmd::Games { email }) => {
            let mut store = Store::open(&db, false)?;
            seat_turns::games_of(&mut store, &email)
        }
        Command::Player(PlayerCmd::Digest { email, state }) => {
            let mut store = Store::open(&db, false)?;
            let on = state == "on";
            let email = email.trim().to_ascii_lowercase();
            match store.tx(|tx| gm::set_digest(tx, &email, on, edge::now()))? {
                Ok(()) => {
                    println!("{email}: daily digest {state}");
                    Ok(0)
                }
                Err(why) => {
                    say(&format!("refused: {why}"));
                    Ok(1)
                }
            }
        }
        Command::Player(PlayerCmd::Vacation { email, days, off }) => {
            if days.is_none() && !off {
                anyhow::bail!("say --days N (1 to 60) or --off");
            }
            let mut store = Store::open(&db, false)?;
            let email = email.trim().to_ascii_lowercase();
            let until = store.tx(|tx| gm::set_vacation(tx, &email, days, edge::now()))?;
            match until {
                Some(u) => println!("{email}: clocks paused until {}", crate::template::date(u)),
                None => println!("{email}: clocks run again"),
            }
            Ok(0)
        }
        Command::Player(PlayerCmd::Password { email, clear }) => {
            let mut store = Store::open(&db, false)?;
            let hash = if clear {
                None
            } else {
                let mut pw = String::new();
                std::io::stdin().read_line(&mut pw)?;
                let pw = pw.trim();
                if pw.len() < 6 {
                    anyhow::bail!("a password needs at least 6 characters");
                }
                Some(crate::password::hash(pw, &edge::new_salt()?)?)
            };
            store.tx(|tx| tx.set_password_hash(&email, hash.as_deref()))?;
            println!(
                "password {} for {email}",
                if clear { "removed" } else { "set" }
            );
            Ok(0)
        }
        Command::Verify { file } => verify(&file),
        Command::Analyze { game, args } => analyze::run(&game, &args),
        Command::Adjudicate { game, file, json } => adjudicate(&game, &file, json),
        Command::Bench(cmd) => crate::dev::bench::run(cmd, &db, cfg),
        Command::Init => {
            Store::open(&db, true)?;
            println!("database ready: {}", db.display());
            Ok(0)
        }
        Command::Game(cmd) => game(&db, cmd, cfg),
        Command::Export { id, format } => {
            let mut store = Store::open(&db, false)?;
            let g = store.tx(|tx| gamelog::load(tx, id))?;
            if format == "json" {
                println!("{}", serde_json::to_string_pretty(&export_json(&g)?)?);
            } else {
                print!("{}", gm::export(&g)?);
            }
            Ok(0)
        }
        Command::Replay { file, json } => replay(&file, json),
        Command::Demo { dir, html } => crate::dev::demo::run(dir.as_deref(), html.as_deref()),
    }
}

fn game(db: &Path, cmd: GameCmd, cfg: Config) -> anyhow::Result<Exit> {
    let mut store = Store::open(db, false)?;
    let now = edge::now();
    let templates = Templates::load(cfg.templates_dir.as_deref())?;
    let ctx = Ctx::new(&cfg, &templates, now);
    match cmd {
        GameCmd::New(args) => game_new(&mut store, &ctx, &args),
        GameCmd::List { status } => game_list(&mut store, status),
        GameCmd::Show { id } => show::show(&mut store, &ctx, id),
        GameCmd::Moves { id } => game_moves(&mut store, id),
        GameCmd::Play { id, seat, gm, ply } => game_play(&mut store, &ctx, id, seat, gm, &ply),
        GameCmd::Start { id, seat: None } => game_start(&mut store, &ctx, id),
        GameCmd::Start {
            id,
            seat: Some(seat),
        } => seat_turns::start(&mut store, &ctx, id, &seat),
        GameCmd::Orders { id, seat, lines } => {
            seat_turns::orders(&mut store, &ctx, id, &seat, &lines)
        }
        GameCmd::Plan { id, seat, lines } => seat_turns::plan(&mut store, &ctx, id, &seat, &lines),
        GameCmd::Join { id, email, seat } => {
            seat_turns::join(&mut store, &ctx, id, &email, seat.as_deref())
        }
        GameCmd::Status { id, seat } => seat_turns::status(&mut store, id, seat.as_deref()),
        GameCmd::Legal { id, seat } => seat_turns::legal(&mut store, id, &seat),
        GameCmd::History { id } => seat_turns::history(&mut store, id),
        GameCmd::Replace { id, seat, email } => game_replace(&mut store, &ctx, id, &seat, &email),
        GameCmd::Reveal { id } => game_reveal(&mut store, &ctx, id),
        GameCmd::Unquarantine { id } => unquarantine(&mut store, id, now),
        GameCmd::RotateToken { id, seat } => game_rotate_token(&mut store, &ctx, id, &seat),
        GameCmd::Resign { id, seat } => seat_ops::resign(&mut store, &ctx, id, &seat),
        GameCmd::Draw { id, seat, action } => seat_ops::draw(&mut store, &ctx, id, &seat, action),
        GameCmd::Salt { id, seat, text } => seat_ops::salt(&mut store, &ctx, id, &seat, &text),
        GameCmd::Press { id, seat, to, text } => {
            seat_ops::press(&mut store, &ctx, id, &seat, &to, &text)
        }
        GameCmd::Pause { id, reason } => desk::pause(&mut store, &ctx, id, reason.as_deref()),
        GameCmd::Resume { id } => desk::resume(&mut store, &ctx, id),
        GameCmd::Deadline { id, when } => desk::deadline(&mut store, &ctx, id, &when),
        GameCmd::Extend { id, by } => desk::extend(&mut store, &ctx, id, &by),
        GameCmd::Set { id, assignment } => desk::set(&mut store, &ctx, id, &assignment),
        GameCmd::Rollback { id, plies, to } => {
            let how = match to {
                Some(n) => gm::life::Rollback::To(n),
                None => gm::life::Rollback::Plies(plies.unwrap_or(1)),
            };
            desk::rollback(&mut store, &ctx, id, how)
        }
        GameCmd::Cancel { id, reason } => desk::cancel(&mut store, &ctx, id, &reason),
        GameCmd::Eject { id, seat, replace } => {
            desk::eject(&mut store, &ctx, id, &seat, replace.as_deref())
        }
        GameCmd::Message { id, text } => desk::message(&mut store, &ctx, id, &text),
        GameCmd::Resend { id, seat } => desk::resend(&mut store, &ctx, id, &seat),
    }
}

/// `game new`: creates the game (mailing each seat its welcome) and prints its id.
fn game_new(store: &mut Store, ctx: &Ctx, args: &NewArgs) -> anyhow::Result<Exit> {
    let spec = spec_from_args(args)?;
    let kind = spec.kind.expect("set by spec_from_args");
    let seats = crate::games::AnyGame::new(kind, &spec.options)
        .map(|g| g.seat_names().len())
        .unwrap_or(8);
    let secrets = Secrets::generate(seats)?;
    let mut spec = spec;
    if spec.move_secs.is_none() {
        spec.move_secs = ctx.cfg.move_secs;
    }
    let id = store.tx(|tx| gm::create_game(&mut ctx.gm(tx), &spec, &secrets))?;
    println!("{id}");
    send_now(store, ctx.cfg);
    Ok(0)
}

/// `game list`: one line per game.
fn game_list(store: &mut Store, status: Option<GameStatus>) -> anyhow::Result<Exit> {
    let games = store.tx(|tx| {
        let rows = tx.games(status)?;
        rows.into_iter()
            .map(|r| {
                let g = gamelog::load(tx, r.id)?;
                Ok((r, g))
            })
            .collect::<anyhow::Result<Vec<_>>>()
    })?;
    if games.is_empty() {
        println!("no games");
    }
    for (r, g) in games {
        let players: Vec<String> = g
            .seats
            .iter()
            .map(|s| {
                format!(
                    "{}={}",
                    g.game.seat_name(s.seat),
                    s.email.as_deref().unwrap_or("(open)")
                )
            })
            .collect();
        println!(
            "#{:<4} {:<10} {:<8} ply {:<4} {}  {}{}",
            r.id,
            r.kind,
            r.status,
            g.moves.len(),
            g.game.to_act_text(),
            players.join(" "),
            if r.quarantined.is_some() {
                "  QUARANTINED"
            } else {
                ""
            }
        );
    }
    Ok(0)
}

/// `game moves`: the move log with times.
fn game_moves(store: &mut Store, id: i64) -> anyhow::Result<Exit> {
    let g = store.tx(|tx| gamelog::load(tx, id))?;
    for m in &g.moves {
        println!(
            "{:>4}  {:<7} {:<24} {}",
            m.ply,
            m.actor,
            m.text,
            m.at.format("%Y-%m-%d %H:%M:%S")
        );
    }
    if g.moves.is_empty() {
        println!("no moves yet");
    }
    Ok(0)
}

/// `game play`: a ply for a seat or the GM (exit 1 and the reason if illegal).
fn game_play(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    seat: Option<String>,
    as_gm: bool,
    ply: &str,
) -> anyhow::Result<Exit> {
    let out = store.tx(|tx| {
        let mut g = gamelog::load(tx, id)?;
        let res = match as_gm {
            false => {
                let seat = seat_of(&g, seat.as_deref().unwrap_or_default())?;
                let lines = [ply.to_string()];
                let turn = gm::Turn {
                    seat,
                    lines: &lines,
                    guard: None,
                    moved: false,
                    by: gm::By::Gm,
                    early: chrono::Duration::seconds(ctx.cfg.early_resolve_secs),
                };
                let sub = gm::submit(&mut ctx.gm(tx), &mut g, &turn)?;
                match (sub.played, sub.lines.into_iter().next()) {
                    (Some(played), _) => Ok(played),
                    (None, Some(gm::LineOutcome::Refused(why))) => Err(why
                        .to_string()
                        .trim_start_matches("not played: ")
                        .to_string()),
                    (None, Some(gm::LineOutcome::NotAMove(Some(e)))) => Err(e.to_string()),
                    (None, _) => Err("not a move".to_string()),
                }
            }
            true if is_draw(&g, ply) => {
                gm::life::declare_draw(&ctx.gm(tx), &mut g)?.map_err(|r| r.to_string())
            }
            true => gm::play_as_gm(&mut ctx.gm(tx), &mut g, ply)?.map_err(|e| e.to_string()),
        };
        Ok((res, g))
    });
    // An illegal ply rolls the transaction back: nothing changed.
    let (res, g) = out?;
    match res {
        Ok(played) => {
            send_now(store, ctx.cfg);
            print_played(&g, &played);
            Ok(0)
        }
        Err(e) => {
            say(&format!("illegal: {e}"));
            Ok(1)
        }
    }
}

/// Whether the GM's ply is the game's shared draw (`draw`, read as the rules read it).
fn is_draw(g: &gamelog::Loaded, ply: &str) -> bool {
    let by_name = |n: &str| g.game.seat_by_name(n);
    matches!(
        crate::games::standing::read(Actor::Gm, ply, by_name),
        Some(Ok(crate::games::standing::Shared::Draw))
    )
}

/// `game start`: the salts are fixed now, and the roll that waited is made.
fn game_start(store: &mut Store, ctx: &Ctx, id: i64) -> anyhow::Result<Exit> {
    let (played, g) = store.tx(|tx| {
        let mut g = gamelog::load(tx, id)?;
        let played = gm::start_now(&mut ctx.gm(tx), &mut g)?;
        tx.log_event(Some(id), ctx.now, "salts fixed by the GM")?;
        Ok((played, g))
    })?;
    send_now(store, ctx.cfg);
    print_played(&g, &played);
    Ok(0)
}

/// `game replace`: a seat is given to another address, which gets a welcome.
fn game_replace(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    seat: &str,
    email: &str,
) -> anyhow::Result<Exit> {
    let email =
        crate::mail::address(email).ok_or_else(|| anyhow!("'{email}' is not a mail address"))?;
    let email = email.as_str();
    let token = edge::new_token()?;
    store.tx(|tx| {
        let mut g = gamelog::load(tx, id)?;
        let s = seat_of(&g, seat)?;
        gm::life::replace(&ctx.gm(tx), &mut g, s, email, &token)
    })?;
    send_now(store, ctx.cfg);
    println!("seat {seat} of game {id} is now played by {email}");
    Ok(0)
}

/// `game reveal`: the dice seed is revealed to every player.
fn game_reveal(store: &mut Store, ctx: &Ctx, id: i64) -> anyhow::Result<Exit> {
    let seed = store.tx(|tx| {
        let mut g = gamelog::load(tx, id)?;
        if !g.kind().rolls_dice() {
            anyhow::bail!(
                "{} rolls no dice: there is no seed to reveal",
                g.kind().title()
            );
        }
        tx.reveal_seed(id)?;
        g.row.seed_revealed = true;
        tx.log_event(Some(id), ctx.now, "dice seed revealed by the GM")?;
        // Every player learns it at once: a seed known to some would be an edge.
        for s in &g.seats {
            compose::to_seat(tx, ctx, &g, s.seat, &compose::DiceRevealed {}, None)?;
        }
        Ok(g.row.seed)
    })?;
    send_now(store, ctx.cfg);
    println!(
        "game {id}: dice seed {} (in the record from ctx.now on; `pbem verify` checks it)",
        seed.as_deref().unwrap_or("(none)")
    );
    Ok(0)
}

/// `game rotate-token`: a seat gets a new secret reply address.
fn game_rotate_token(store: &mut Store, ctx: &Ctx, id: i64, seat: &str) -> anyhow::Result<Exit> {
    let token = edge::new_token()?;
    store.tx(|tx| {
        let g = gamelog::load(tx, id)?;
        let s = seat_of(&g, seat)?;
        tx.set_token(id, s, &token)?;
        tx.log_event(
            Some(id),
            ctx.now,
            &format!("reply token of seat {seat} rotated"),
        )
    })?;
    println!("seat {seat} of game {id} has a new reply address (mailed with its next report)");
    Ok(0)
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

/// `pbem game unquarantine`: the GM fixed what made the game's timer fail; its timers run
/// again from the next pass.
fn unquarantine(store: &mut Store, id: i64, now: chrono::DateTime<Utc>) -> anyhow::Result<Exit> {
    let was = store.tx(|tx| {
        let was = tx.game(id)?.ok_or_else(|| anyhow!("no game {id}"))?;
        if was.quarantined.is_some() {
            tx.set_quarantined(id, None)?;
            tx.log_event(Some(id), now, "quarantine cleared by the GM")?;
        }
        Ok(was.quarantined)
    })?;
    match was {
        Some(why) => println!("game {id} is out of quarantine (it was: {why})"),
        None => println!("game {id} was not quarantined"),
    }
    Ok(0)
}

/// Reads `pbem game new` arguments into a spec.
pub fn spec_from_args(args: &NewArgs) -> anyhow::Result<GameSpec> {
    let kind = GameKind::parse(&args.kind).ok_or_else(|| {
        let names: Vec<&str> = GameKind::ALL.iter().map(|k| k.name()).collect();
        anyhow!("unknown game '{}' (games: {})", args.kind, names.join(", "))
    })?;
    let mut options = crate::games::Options::new();
    for o in &args.options {
        let (k, v) = o
            .split_once('=')
            .ok_or_else(|| anyhow!("--option {o}: write NAME=VALUE"))?;
        options.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
    }
    let players = args
        .players
        .iter()
        .map(|p| {
            p.split_once('=')
                .map(|(s, e)| (s.trim().to_string(), e.trim().to_string()))
                .ok_or_else(|| anyhow!("--player {p}: write SEAT=ADDRESS"))
        })
        .collect::<anyhow::Result<_>>()?;
    let move_secs = args
        .move_time
        .as_deref()
        .map(|t| {
            crate::duration::parse(t, crate::duration::Range::MOVE_TIME)
                .map_err(|e| anyhow!("--move-time {t}: {e}"))
        })
        .transpose()?;
    Ok(GameSpec {
        kind: Some(kind),
        options,
        players,
        event: args.event.clone(),
        move_secs,
        position: args.position.clone(),
    })
}

/// A record file's text, or why it is no record: a file that is not text (invalid UTF-8) is a
/// bad record (exit 1, as one that does not parse), a file that cannot be read is an error (2).
fn record_text(file: &Path) -> anyhow::Result<Result<String, String>> {
    let bytes = std::fs::read(file).with_context(|| format!("cannot read {}", file.display()))?;
    Ok(String::from_utf8(bytes).map_err(|e| {
        format!(
            "{}: not a record: not UTF-8 text (byte {})",
            file.display(),
            e.utf8_error().valid_up_to() + 1
        )
    }))
}

/// A record file read and parsed, or the line that says why not (exit 1).
fn record_file(file: &Path) -> anyhow::Result<Result<Record, String>> {
    Ok(record_text(file)?
        .and_then(|text| Record::parse(&text).map_err(|e| format!("{}: {e}", file.display()))))
}

fn replay(file: &Path, json: bool) -> anyhow::Result<Exit> {
    let record = match record_file(file)? {
        Ok(r) => r,
        Err(why) => {
            say(&why);
            return Ok(1);
        }
    };
    match record.replay() {
        Ok(done) => {
            if json {
                println!(
                    "{}",
                    serde_json::to_string(&replay_json(&done.game, done.plies))?
                );
            } else {
                print!("{}", done.game.board());
                println!("{} plies; {}", done.plies, done.game.to_act_text());
            }
            Ok(0)
        }
        Err(e) => {
            say(&e.to_string());
            Ok(1)
        }
    }
}

/// `{"game":..,"plies":N,"outcome":{"winner":..,"draw":..,"drawn":[..]},"position":{..}}`.
pub fn replay_json(game: &crate::games::AnyGame, plies: usize) -> serde_json::Value {
    serde_json::json!({
        "game": game.kind().name(),
        "plies": plies,
        "outcome": game.outcome_json(),
        "position": game.position_json(),
    })
}

fn export_json(g: &gamelog::Loaded) -> anyhow::Result<serde_json::Value> {
    let plies: Vec<serde_json::Value> = g
        .moves
        .iter()
        .map(|m| serde_json::json!({"ply": m.ply, "actor": m.actor, "text": m.text, "at": crate::store::ts(m.at)}))
        .collect();
    let seats: serde_json::Map<String, serde_json::Value> = g
        .seats
        .iter()
        .map(|s| {
            (
                g.game.seat_name(s.seat).to_string(),
                serde_json::json!(s.email),
            )
        })
        .collect();
    let mut v = replay_json(&g.game, g.moves.len());
    v["id"] = serde_json::json!(g.row.id);
    v["status"] = serde_json::json!(g.row.status);
    v["options"] = serde_json::from_str(&g.row.options)?;
    v["start_position"] = serde_json::json!(g.row.start_position);
    v["seats"] = serde_json::Value::Object(seats);
    v["moves"] = serde_json::Value::Array(plies);
    v["record"] = serde_json::json!(gm::export(g)?);
    Ok(v)
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

/// `pbem ingest`, the MTA's contract (sysexits): 0 once the mail is durable in the spool,
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

/// Reads the mail on stdin, spools it and calls the daemon or starts a worker (storing,
/// processing and sending follow, but their failures are logged, never returned: the mail
/// is safe).
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

/// `pbem verify FILE`: replays the record and checks each roll against the revealed seed.
/// A bad record (one that does not parse, replay or list its salts) exits 1 with the reason,
/// as `replay` does; only a file that cannot be read at all is an error (2).
fn verify(file: &Path) -> anyhow::Result<Exit> {
    let record = match record_file(file)? {
        Ok(r) => r,
        Err(why) => {
            say(&why);
            return Ok(1);
        }
    };
    let Some(seed) = record.tag("DiceSeed") else {
        say("the record has no [DiceSeed]: the seed is revealed only when the game is over");
        return Ok(1);
    };
    let checked = serde_json::from_str::<Vec<String>>(record.tag("DiceSalts").unwrap_or("[]"))
        .map_err(|e| format!("[DiceSalts] is not a JSON list: {e}"))
        .and_then(|salts| Ok((salts, recorded_rolls(&record)?)));
    let (salts, rolls) = match checked {
        Ok(v) => v,
        Err(why) => {
            say(&format!("{}: {why}", file.display()));
            return Ok(1);
        }
    };
    let commitment = record.tag("DiceCommitment").unwrap_or("");
    let game_id = record.tag("GameId").unwrap_or("");
    let v = crate::dice::verify(seed, commitment, &salts, game_id, &rolls);
    print!("{v}");
    // Last, how to check it all without trusting this program: the documented script.
    if v.seed_error.is_none() {
        match crate::dice::script_command(seed, commitment, &salts, game_id, &rolls) {
            Some(command) => {
                println!("to re-check without pbem (notation/dice.md), run:\n{command}")
            }
            None => println!("no roll to check with notation/dice_verify.py"),
        }
    }
    Ok(if v.is_ok() { 0 } else { 1 })
}

/// Every die roll of a record, with the sides of the die it was rolled with, as the replay
/// meets them; or why the record does not replay.
fn recorded_rolls(record: &Record) -> Result<Vec<(u32, u32)>, String> {
    let done = record.replay().map_err(|e| e.to_string())?;
    let mut game = record.start()?;
    let mut rolls = Vec::new();
    for (actor, ply) in &done.log {
        if let (Actor::Chance, crate::games::ToAct::Chance(sides)) = (actor, game.to_act()) {
            rolls.extend(sides.into_iter().zip(gamelog::chance_values(ply)));
        }
        game.play(*actor, ply).map_err(|e| e.to_string())?;
    }
    Ok(rolls)
}

/// A seat of a loaded game by name, or the error naming the seats there are.
fn seat_of(g: &gamelog::Loaded, name: &str) -> anyhow::Result<usize> {
    g.game.seat_by_name(name).ok_or_else(|| {
        anyhow!(
            "no seat '{name}' in game {} (seats: {})",
            g.row.id,
            g.game.seat_names().join(", ")
        )
    })
}

/// `--status` of `game list`: a game status by its name.
fn game_status(text: &str) -> Result<GameStatus, String> {
    GameStatus::parse(text).ok_or_else(|| "one of: open, active, paused, finished".to_string())
}

/// `adjudicate diptactoe FILE`: a what-if adjudication of one turn.
fn adjudicate(game: &str, file: &Path, json: bool) -> anyhow::Result<Exit> {
    if GameKind::parse(game) != Some(GameKind::DipTacToe) {
        anyhow::bail!("adjudicate knows diptactoe only (the game with simultaneous orders)");
    }
    let text = match record_text(file)? {
        Ok(text) => text,
        Err(why) => {
            say(&why);
            return Ok(1);
        }
    };
    match crate::games::diptactoe::whatif::adjudicate_request(&text) {
        Ok(w) if json => {
            println!("{}", serde_json::to_string_pretty(&w.json())?);
            Ok(0)
        }
        Ok(w) => {
            print!("{}", w.report());
            Ok(0)
        }
        Err(e) => {
            say(&format!("{}: {e}", file.display()));
            Ok(1)
        }
    }
}
