//! The command line's shape (clap derive): every command and its arguments, the games listed under `--help`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

use super::{seat_ops, ConfigCmd, InboxCmd, InboxList, OutboxCmd};
use crate::games::GameKind;
use crate::store::GameStatus;

impl Cli {
    /// The command line, with the games pbem plays listed under `--help` (from the registry,
    /// so a new game appears there by itself). An `ingest` line, an MTA's one per mail, is
    /// read by its own small parser first (`ingest_args`).
    pub fn parse_with_games() -> Cli {
        use clap::{CommandFactory, FromArgMatches};
        if let Some(i) = super::ingest_args::IngestOnly::parse(std::env::args_os()) {
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
        let matches = Cli::command()
            .after_help(help)
            .try_get_matches()
            .unwrap_or_else(|e| super::exit::clap_exit(&e));
        Cli::from_arg_matches(&matches).unwrap_or_else(|e| super::exit::clap_exit(&e))
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
    /// Write a game's record, or with --all every game as one collection (records one
    /// after another; --game and --finished choose which).
    Export {
        #[arg(required_unless_present = "all", conflicts_with = "all")]
        id: Option<i64>,
        #[arg(long, default_value = "record", value_parser = ["record", "json"])]
        format: String,
        /// Every game (that --game and --finished leave), as one collection.
        #[arg(long)]
        all: bool,
        /// With --all: only games of this kind.
        #[arg(long, requires = "all")]
        game: Option<String>,
        /// With --all: only finished games.
        #[arg(long, requires = "all")]
        finished: bool,
        /// Name the players by name and address (without it, by name only: a record is
        /// shared, an address is not).
        #[arg(long)]
        with_addresses: bool,
    },
    /// Per game kind and variant: the games on record, the results by seat, their length
    /// and how they ended (as STATS by mail).
    Stats {
        /// Only this game (dicerink, d4d6, ...).
        game: Option<String>,
    },
    /// The players' Glicko-2 ratings in a game, from its finished games (as RATINGS by mail).
    Ratings { game: String },
    /// Write the games on record as a static website in DIR (indexes, a page per game with
    /// its record and the board at every ply, per player and per game); a rerun rewrites
    /// only what changed.
    Archive { dir: PathBuf },
    /// Replay a record file (or each game of a collection) without touching the database.
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
    /// Recompute every dice roll of an exported record (or of each game of a collection)
    /// from its revealed seed.
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
    /// A player: address, name, games, reliability (turns in time, late, missed, games
    /// left) and their rating in each game they played.
    Show { email: String },
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
        #[arg(long, value_parser = clap::value_parser!(u32).range(1..=60), conflicts_with = "off",
              required_unless_present = "off")]
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
    /// Set a player's name (1 to 40 characters, no '@'), shown instead of their address in
    /// records, statistics and ratings, as NAME by mail; or remove it with --clear.
    Name {
        email: String,
        #[arg(required_unless_present = "clear", conflicts_with = "clear")]
        name: Option<String>,
        #[arg(long)]
        clear: bool,
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
    /// Put another player in a seat (e.g. after missed turns); they get a welcome. `robot`
    /// (or robot:easy, robot:normal, robot:strong) hands the seat to the robot for the rest
    /// of the game; an address gives a robot's seat back to a player.
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
    /// seat to another at once with --replace, or to the robot with --robot (a level may
    /// follow: easy, normal, strong; the strongest by default).
    Eject {
        id: i64,
        #[arg(long)]
        seat: String,
        #[arg(long, conflicts_with = "robot")]
        replace: Option<String>,
        #[arg(long, value_name = "LEVEL", num_args = 0..=1, default_missing_value = "strong")]
        robot: Option<String>,
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
    /// Seat a player in an open game (as a confirmed JOIN by mail), or the robot (`robot`,
    /// robot:easy, ...); the game begins when the last seat is taken.
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

impl GameCmd {
    /// The game the command is about (all but `new` and `list` name one).
    pub(super) fn game_id(&self) -> Option<i64> {
        use GameCmd as G;
        match self {
            G::New(_) | G::List { .. } => None,
            G::Show { id }
            | G::Moves { id }
            | G::Play { id, .. }
            | G::Replace { id, .. }
            | G::Reveal { id }
            | G::Pause { id, .. }
            | G::Resume { id }
            | G::Deadline { id, .. }
            | G::Extend { id, .. }
            | G::Set { id, .. }
            | G::Rollback { id, .. }
            | G::Cancel { id, .. }
            | G::Eject { id, .. }
            | G::Message { id, .. }
            | G::Resend { id, .. }
            | G::Start { id, .. }
            | G::Orders { id, .. }
            | G::Plan { id, .. }
            | G::Join { id, .. }
            | G::Status { id, .. }
            | G::Legal { id, .. }
            | G::History { id }
            | G::Unquarantine { id }
            | G::Resign { id, .. }
            | G::Draw { id, .. }
            | G::Press { id, .. }
            | G::Salt { id, .. }
            | G::RotateToken { id, .. } => Some(*id),
        }
    }

    /// The command in the GM's words, for the mails it causes (`outbox list`, serve's log):
    /// `pbem game pause 3`, `pbem game new dicerink`.
    pub(super) fn cause(&self) -> String {
        // clap names each subcommand after its variant, in kebab-case (`RotateToken` is
        // `rotate-token`); the variant's name is the start of its Debug text.
        let debug = format!("{self:?}");
        let mut name = String::new();
        for c in debug.chars().take_while(char::is_ascii_alphanumeric) {
            if c.is_ascii_uppercase() && !name.is_empty() {
                name.push('-');
            }
            name.push(c.to_ascii_lowercase());
        }
        match (self, self.game_id()) {
            (GameCmd::New(args), _) => format!("pbem game new {}", args.kind),
            (_, Some(id)) => format!("pbem game {name} {id}"),
            (_, None) => format!("pbem game {name}"),
        }
    }
}

#[derive(Debug, Args)]
pub struct NewArgs {
    /// The game: one of those `pbem --help` lists (dicerink, d4d6, diptactoe, ...).
    pub kind: String,
    /// SEAT=ADDRESS, once per seat (A=alice@example.org); SEAT=robot seats the robot
    /// (robot:easy, robot:normal, robot:strong; robot is the strongest).
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
    #[arg(long, conflicts_with = "from_record")]
    pub position: Option<String>,
    /// Start at the end of this record (a game begun on paper): its plies are replayed and
    /// kept in the game's move log; a record that does not replay is refused.
    #[arg(long, value_name = "FILE")]
    pub from_record: Option<PathBuf>,
}

/// `--status` of `game list`: a game status by its name.
fn game_status(text: &str) -> Result<GameStatus, String> {
    GameStatus::parse(text).ok_or_else(|| "one of: open, active, paused, finished".to_string())
}
