//! The command line (clap derive): the GM's commands, each mapped to the library; exit codes here.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use chrono::Utc;
use clap::{Args, Parser, Subcommand};

use crate::gamelog;
use crate::games::{Actor, GameKind, Outcome};
use crate::gm::{self, GameSpec, Secrets};
use crate::records::{self, Record};
use crate::store::Store;

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
    /// A fresh database plays a seed game to the end, printing each board.
    Demo {
        /// Where the demo's database goes (default: a new temporary folder).
        #[arg(long)]
        dir: Option<PathBuf>,
    },
}

#[derive(Debug, Subcommand)]
pub enum GameCmd {
    /// Create a game; prints its id.
    New(NewArgs),
    /// List the games.
    List {
        /// Only games with this status (open, active, finished).
        #[arg(long)]
        status: Option<String>,
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
    /// Give a seat a new secret reply address (the old one stops working).
    RotateToken {
        id: i64,
        #[arg(long)]
        seat: String,
    },
}

#[derive(Debug, Args)]
pub struct NewArgs {
    /// The game: dicerink, d4d6, diptactoe.
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

/// The database path: --db, PBEM_DB, or pbem.sqlite here.
pub fn db_path(cli: &Cli) -> PathBuf {
    cli.db
        .clone()
        .unwrap_or_else(|| PathBuf::from("pbem.sqlite"))
}

/// Exit status of a command: 0 done, 1 refused (an illegal ply, a bad record), other codes
/// for mail-system use (sysexits) where a command says so.
pub type Exit = i32;

/// Runs a parsed command, printing its output; errors go back to main.
pub fn run(cli: Cli) -> anyhow::Result<Exit> {
    let db = db_path(&cli);
    match cli.command {
        Command::Init => {
            Store::open(&db, true)?;
            println!("database ready: {}", db.display());
            Ok(0)
        }
        Command::Game(cmd) => game(&db, cmd),
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
        Command::Demo { dir } => crate::demo::run(dir.as_deref()),
    }
}

fn game(db: &Path, cmd: GameCmd) -> anyhow::Result<Exit> {
    let mut store = Store::open(db, false)?;
    let now = Utc::now();
    match cmd {
        GameCmd::New(args) => {
            let spec = spec_from_args(&args)?;
            let kind = spec.kind.expect("set by spec_from_args");
            let seats = crate::games::AnyGame::new(kind, &spec.options)
                .map(|g| g.seat_names().len())
                .unwrap_or(8);
            let secrets = Secrets::generate(seats)?;
            let id = store.tx(|tx| gm::create_game(tx, &spec, &secrets, now))?;
            println!("{id}");
            Ok(0)
        }
        GameCmd::List { status } => {
            let games = store.tx(|tx| {
                let rows = tx.games(status.as_deref())?;
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
                    "#{:<4} {:<10} {:<8} ply {:<4} {}  {}",
                    r.id,
                    r.kind,
                    r.status,
                    g.moves.len(),
                    g.game.to_act_text(),
                    players.join(" ")
                );
            }
            Ok(0)
        }
        GameCmd::Show { id } => {
            let g = store.tx(|tx| gamelog::load(tx, id))?;
            println!(
                "Game #{id}: {} ({}), {}",
                g.kind().title(),
                g.row.status,
                g.game.to_act_text()
            );
            for s in &g.seats {
                println!(
                    "  {:<7} {}",
                    g.game.seat_name(s.seat),
                    s.email.as_deref().unwrap_or("(open seat)")
                );
            }
            if let Some(d) = g.row.deadline {
                println!("  deadline {}", d.format("%Y-%m-%d %H:%M UTC"));
            }
            println!();
            print!("{}", g.game.board());
            Ok(0)
        }
        GameCmd::Moves { id } => {
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
        GameCmd::Play { id, seat, gm, ply } => {
            let out = store.tx(|tx| {
                let mut g = gamelog::load(tx, id)?;
                let actor = if gm {
                    Actor::Gm
                } else {
                    let name = seat.as_deref().unwrap_or_default();
                    let s = g.game.seat_by_name(name).ok_or_else(|| {
                        anyhow!(
                            "no seat '{name}' in this game (seats: {})",
                            g.game.seat_names().join(", ")
                        )
                    })?;
                    Actor::Seat(s)
                };
                let res = gm::play(tx, &mut g, actor, &ply, now, None, None)?;
                Ok((res, g))
            });
            // An illegal ply rolls the transaction back: nothing changed.
            let (res, g) = out?;
            match res {
                Ok(played) => {
                    for (a, text) in &played.plies {
                        println!("{}: {text}", records::actor_name(&g.game, *a));
                    }
                    for r in &played.reports {
                        println!("{r}");
                    }
                    println!();
                    print!("{}", g.game.board());
                    println!("{}", g.game.to_act_text());
                    Ok(0)
                }
                Err(e) => {
                    eprintln!("illegal: {e}");
                    Ok(1)
                }
            }
        }
        GameCmd::RotateToken { id, seat } => {
            let token = gm::new_token()?;
            store.tx(|tx| {
                let g = gamelog::load(tx, id)?;
                let s = g
                    .game
                    .seat_by_name(&seat)
                    .ok_or_else(|| anyhow!("no seat '{seat}' in game {id}"))?;
                tx.set_token(id, s, &token)?;
                tx.log_event(
                    Some(id),
                    now,
                    &format!("reply token of seat {seat} rotated"),
                )
            })?;
            println!(
                "seat {seat} of game {id} has a new reply address (mailed with its next report)"
            );
            Ok(0)
        }
    }
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
    let move_secs = args.move_time.as_deref().map(parse_duration).transpose()?;
    Ok(GameSpec {
        kind: Some(kind),
        options,
        players,
        event: args.event.clone(),
        move_secs,
        position: args.position.clone(),
    })
}

/// Reads `3d`, `36h`, `90m`, `45s` (or a plain number of seconds).
pub fn parse_duration(text: &str) -> anyhow::Result<i64> {
    let t = text.trim();
    let (num, unit) = t.split_at(t.find(|c: char| !c.is_ascii_digit()).unwrap_or(t.len()));
    let n: i64 = num
        .parse()
        .with_context(|| format!("'{text}' is not a duration like 3d, 36h, 90m"))?;
    let mult = match unit.trim() {
        "" | "s" => 1,
        "m" => 60,
        "h" => 3600,
        "d" => 86400,
        "w" => 7 * 86400,
        u => anyhow::bail!("'{u}' is not a time unit (s, m, h, d, w)"),
    };
    Ok(n * mult)
}

fn replay(file: &Path, json: bool) -> anyhow::Result<Exit> {
    let text =
        std::fs::read_to_string(file).with_context(|| format!("cannot read {}", file.display()))?;
    let record = match Record::parse(&text) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("{}: {e}", file.display());
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
            eprintln!("{e}");
            Ok(1)
        }
    }
}

/// `{"game":..,"plies":N,"outcome":{"winner":..,"draw":..},"position":{..}}`.
pub fn replay_json(game: &crate::games::AnyGame, plies: usize) -> serde_json::Value {
    let (winner, draw) = match game.outcome() {
        Some(Outcome::Win { seat, .. }) => (serde_json::json!(game.seat_name(seat)), false),
        Some(Outcome::Draw { .. }) => (serde_json::Value::Null, true),
        None => (serde_json::Value::Null, false),
    };
    serde_json::json!({
        "game": game.kind().name(),
        "plies": plies,
        "outcome": {"winner": winner, "draw": draw},
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
