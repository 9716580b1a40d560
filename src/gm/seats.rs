//! Taking seats as GM operations: a new game with its first seat (NEW), a seat in an open game (JOIN), and the start once every seat is taken; the mail path (after confirmation) and the command line both call them.

use super::ops::Refusal;
use super::robots::robot_named;
use super::{begin, create_game, GameSpec, Gm, News, Secrets};
use crate::edge;
use crate::gamelog;
use crate::games::{AnyGame, GameKind, Options};
use crate::robot::Level;
use crate::store::{GameStatus, Tx};

/// A seat taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seated {
    pub game: i64,
    pub seat: usize,
    pub seat_name: &'static str,
    /// The game began with this seat (every seat is taken): its players get their welcome.
    pub started: bool,
}

/// A new game of `kind` whose first seat is `email`'s; the other seats wait for JOIN, or are
/// the robot's at once (`robot`: `NEW dicerink robot`), and the game begins.
pub fn open_new(
    gm: &mut Gm,
    kind: &str,
    options: Options,
    email: &str,
    move_secs: Option<i64>,
    robot: Option<Level>,
) -> anyhow::Result<Result<Seated, Refusal>> {
    let Some(kind) = GameKind::parse(kind) else {
        return Ok(Err(Refusal::NotOffered));
    };
    let probe = match super::options::check(&options).and_then(|()| AnyGame::new(kind, &options)) {
        Ok(g) => g,
        Err(e) => return Ok(Err(Refusal::BadOptions(e))),
    };
    let seat_name = probe.seat_name(0);
    let mut players = vec![(seat_name.to_string(), email.to_string())];
    if let Some(level) = robot {
        let robot = format!("robot:{}", level.name());
        players.extend(
            probe.seat_names()[1..]
                .iter()
                .map(|s| (s.to_string(), robot.clone())),
        );
    }
    let spec = GameSpec {
        kind: Some(kind),
        options,
        players,
        event: None,
        move_secs,
        position: None,
    };
    let secrets = Secrets::generate(probe.seat_names().len())?;
    let game = create_game(gm, &spec, &secrets)?;
    // A game of one seat, or against the robot, is full at once; `create_game` began it.
    let started = probe.seat_names().len() == 1 || robot.is_some();
    Ok(Ok(Seated {
        game,
        seat: 0,
        seat_name,
        started,
    }))
}

/// `email` takes `seat` (or the first open seat) of an open game; the game begins when that
/// was the last open seat, and its players get their welcome. `robot` (or `robot:easy`, ...)
/// for `email` seats the robot there (the GM's `pbem game join ID robot --seat S`).
pub fn join(
    gm: &mut Gm,
    game: i64,
    seat: Option<&str>,
    email: &str,
) -> anyhow::Result<Result<Seated, Refusal>> {
    let tx = gm.tx;
    let robot = match robot_named(email) {
        Some(Ok(level)) => Some(level),
        Some(Err(why)) => return Ok(Err(Refusal::BadAddress(why))),
        None => None,
    };
    let target = match seat_open_to(tx, game, seat, email)? {
        Ok(t) => t,
        Err(why) => return Ok(Err(why)),
    };
    match robot {
        Some(level) => tx.seat_robot(game, target, level.name())?,
        None => {
            let player = tx.player_id(email)?;
            tx.fill_seat(game, target, player, &edge::new_token()?)?;
        }
    }
    let started = begin_when_full(gm, game)?;
    let g = gamelog::load(tx, game)?;
    Ok(Ok(Seated {
        game,
        seat: target,
        seat_name: g.game.seat_name(target),
        started,
    }))
}

/// Whether `email` may take `seat` (or any seat) in `game` now: the seat, or why not.
pub fn seat_open_to(
    tx: &Tx,
    game: i64,
    seat: Option<&str>,
    email: &str,
) -> anyhow::Result<Result<usize, Refusal>> {
    let Some(row) = tx.game(game)? else {
        return Ok(Err(Refusal::NoSuchGame(game)));
    };
    if row.status != GameStatus::Open {
        return Ok(Err(Refusal::NotOpen(game, row.status)));
    }
    let g = gamelog::load(tx, game)?;
    let robot = robot_named(email).is_some();
    if !robot && g.seats.iter().any(|x| x.email.as_deref() == Some(email)) {
        return Ok(Err(Refusal::AlreadySeated(game)));
    }
    if let Some(min) = super::options::of(&g).min_reliability.filter(|_| !robot) {
        if let Some(has) = super::reliability::below(tx, email, min)? {
            return Ok(Err(Refusal::Unreliable { game, min, has }));
        }
    }
    let open: Vec<usize> = g
        .seats
        .iter()
        .filter(|x| x.is_open())
        .map(|x| x.seat)
        .collect();
    Ok(match seat {
        Some(name) => match g.game.seat_by_name(name) {
            Some(x) if open.contains(&x) => Ok(x),
            _ => Err(Refusal::SeatTaken(name.to_string(), game)),
        },
        None => open.first().copied().ok_or(Refusal::NoOpenSeat),
    })
}

/// An open game whose seats are all taken becomes active and begins (its salt window, or its
/// first move); whether it did.
fn begin_when_full(gm: &mut Gm, game: i64) -> anyhow::Result<bool> {
    let (tx, now) = (gm.tx, gm.now);
    let g = gamelog::load(tx, game)?;
    if g.row.status != GameStatus::Open || g.seats.iter().any(|s| s.is_open()) {
        return Ok(false);
    }
    tx.set_game_status(game, GameStatus::Active, None, now)?;
    let mut g = gamelog::load(tx, game)?;
    begin(gm, &mut g)?;
    gm.tell(News::Began { g: &g })?;
    Ok(true)
}
