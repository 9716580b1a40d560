//! The GM: every decision about a game, whoever asks (a mail, the command line, the clock); each operation asked for tells the players itself (`News`), `play` (one ply) being the untold building block beneath.

use anyhow::anyhow;

use crate::config::Config;
use crate::dice::Seed;
use crate::edge;
use crate::gamelog;
use crate::games::{AnyGame, GameKind, Options};
use crate::records;
use crate::store::{GameStatus, NewGame};

pub mod clock;
pub mod comments;
mod context;
pub mod life;
pub mod names;
mod ops;
pub mod options;
mod play;
pub mod ratings;
pub mod reachability;
mod record;
pub mod reliability;
pub mod robots;
mod salts;
mod seats;
pub mod stats;
mod submit;
mod to_act;
mod turn;
pub mod view;
pub use context::{Gm, Herald, News, Quiet};
pub use ops::{
    add_salt, decline_draw, offer_draw, press_targets, resign, send_press, set_digest,
    set_vacation, DrawOffer, Refusal,
};
/// One ply and what follows by itself, telling nobody: the building block beneath the
/// operations (which tell), for the GM's own plies, the tests' set-ups and the benchmarks.
pub use play::play;
use play::{close, play_with, store_plan};
pub use play::{play_as_gm, Played};
use record::turn_orders;
pub use record::{export, export_as};
pub use salts::salt_pairs;
use salts::{begin, salts_open};
pub use salts::{salts, start_now, waiting_for_salts};
pub use seats::{join, open_new, seat_open_to, Seated};
pub use submit::{submit, By, Intent, LineOutcome, Submission, Turn, TurnRefusal};
pub use to_act::{all_ordered, to_act_text};
pub use turn::{start, Started};

/// What the GM asks for when creating a game.
#[derive(Debug, Clone, Default)]
pub struct GameSpec {
    pub kind: Option<GameKind>,
    pub options: Options,
    /// (seat name, player address) for the seats filled at creation; `robot` (or
    /// `robot:easy`, `robot:normal`, `robot:strong`) seats the robot there.
    pub players: Vec<(String, String)>,
    pub event: Option<String>,
    /// Per-move (or per-turn) time limit.
    pub move_secs: Option<i64>,
    /// Start from a `[Position]` instead of the game's start.
    pub position: Option<String>,
}

/// The randomness a new game needs, made at the edge (CLI or daemon) and handed in.
pub struct Secrets {
    /// One secret reply token per seat, in seat order.
    pub tokens: Vec<String>,
    pub seed: Seed,
}

impl Secrets {
    /// Fresh secrets from the operating system.
    pub fn generate(seats: usize) -> anyhow::Result<Secrets> {
        let tokens = (0..seats)
            .map(|_| edge::new_token())
            .collect::<anyhow::Result<_>>()?;
        Ok(Secrets {
            tokens,
            seed: edge::new_seed()?,
        })
    }
}

/// A player address pbem may not seat: its own (plain, or a seat's secret one), whose mail
/// it drops as a loop, or `admin_address`, where the GM's notices go: the refusal in words.
pub fn refused_player(spec: &GameSpec, cfg: &Config) -> Option<String> {
    spec.players
        .iter()
        .filter(|(_, who)| robots::robot_named(who).is_none())
        .find_map(|(seat, email)| refused_address(email, &format!("seat {seat}"), cfg))
}

/// Why `email` cannot be a player's address (`what` names the seat in the reason): pbem's
/// own addresses and `admin_address` are the GM's, never a player's.
pub fn refused_address(email: &str, what: &str, cfg: &Config) -> Option<String> {
    let email = email.trim();
    if cfg.is_ours(email) {
        return Some(format!(
            "{email} ({what}) is pbem's own address: a player needs an address of their own"
        ));
    }
    let admin = cfg.admin_address.as_deref();
    admin.filter(|a| a.eq_ignore_ascii_case(email)).map(|a| {
        format!(
            "{a} ({what}) is admin_address, where the GM's notices go: a player needs an \
             address of their own"
        )
    })
}

/// Who takes a seat when a game is made: a player (their address) or the robot.
#[derive(Clone)]
enum Sitter {
    Player(String),
    Robot(crate::robot::Level),
}

/// Creates a game and its seats; seats without a player stay open for `JOIN`.
pub fn create_game(gm: &mut Gm, spec: &GameSpec, secrets: &Secrets) -> anyhow::Result<i64> {
    create_game_from(gm, spec, secrets, &[])
}

/// A ply of a game brought in: who played it, its text, the record's comment after it.
pub type BroughtPly = (crate::games::Actor, String, Option<String>);

/// Creates a game at the end of plies already played (a game brought in from a record,
/// replayed by the caller): they are its move log's first plies, with their comments, and
/// play goes on from there; a game they end is finished at once, with nobody told (no play
/// is left to tell).
pub fn create_game_from(
    gm: &mut Gm,
    spec: &GameSpec,
    secrets: &Secrets,
    plies: &[BroughtPly],
) -> anyhow::Result<i64> {
    let (tx, now) = (gm.tx, gm.now);
    let kind = spec.kind.ok_or_else(|| anyhow!("which game?"))?;
    options::check(&spec.options).map_err(|e| anyhow!("{e}"))?;
    // Every option (durations with their ranges included) is checked when the game is built.
    let game = match &spec.position {
        Some(p) => AnyGame::from_position(kind, &spec.options, p),
        None => AnyGame::new(kind, &spec.options),
    }
    .map_err(|e| anyhow!("{e}"))?;
    let names = game.seat_names();
    let mut filled = vec![None; names.len()];
    for (seat, email) in &spec.players {
        let s = game.seat_by_name(seat).ok_or_else(|| {
            anyhow!(
                "{} has no seat '{seat}' (seats: {})",
                kind.title(),
                names.join(", ")
            )
        })?;
        if filled[s].is_some() {
            anyhow::bail!("seat {} is given twice", names[s]);
        }
        filled[s] = Some(match robots::robot_named(email) {
            Some(level) => Sitter::Robot(level.map_err(|e| anyhow!("{e}"))?),
            None => match crate::mail::address(email) {
                Some(email) => Sitter::Player(email),
                None => anyhow::bail!("'{email}' is not a mail address"),
            },
        });
    }
    if secrets.tokens.len() < names.len() {
        anyhow::bail!("not enough reply tokens for {} seats", names.len());
    }
    let all_filled = filled.iter().all(Option::is_some);
    let options_json = serde_json::to_string(&spec.options)?;
    // A game without dice has no seed to commit to, reveal or record.
    let dice = kind.rolls_dice();
    let seed_hex = dice.then(|| secrets.seed.to_hex());
    let commitment = dice.then(|| secrets.seed.commitment());
    let id = tx.insert_game(
        &NewGame {
            kind: kind.name(),
            options_json: &options_json,
            status: if all_filled {
                GameStatus::Active
            } else {
                GameStatus::Open
            },
            event: spec.event.as_deref(),
            start_position: spec.position.as_deref(),
            seed: seed_hex.as_deref(),
            commitment: commitment.as_deref(),
            move_secs: spec.move_secs,
        },
        now,
    )?;
    for (s, sitter) in filled.iter().enumerate() {
        match sitter {
            Some(Sitter::Player(email)) => {
                let player = tx.player_id(email)?;
                tx.insert_seat(id, s, Some(player), Some(secrets.tokens[s].as_str()))?;
            }
            Some(Sitter::Robot(level)) => {
                tx.insert_seat(id, s, None, None)?;
                tx.seat_robot(id, s, level.name())?;
            }
            None => tx.insert_seat(id, s, None, None)?,
        }
    }
    for (actor, text, comment) in plies {
        let ply = tx.append_move(id, &records::actor_name(&game, *actor), text, now, None)?;
        if let Some(c) = comment {
            tx.set_ply_comment(id, ply, c)?;
        }
    }
    let mut g = gamelog::load(tx, id)?;
    if let Some(outcome) = g.game.outcome() {
        play::finish(tx, &mut g, &outcome, now)?;
    } else if all_filled {
        begin(gm, &mut g)?;
        gm.tell(News::Began { g: &g })?;
    }
    Ok(id)
}
