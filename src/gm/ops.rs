//! The GM operations a seat asks for besides moves (resign, draw offers, salts), with typed results that the mail path and the command line both print.

use chrono::{DateTime, Utc};

use super::{play_with, salt_pairs, salts_open, Gm, News, Played};
use crate::gamelog::Loaded;
use crate::games::{Actor, PlyError};
use crate::store::{GameStatus, Tx};

/// Why an operation was not done, in words for the player who asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("the game is {0}")]
    NotActive(GameStatus),
    #[error("{0}")]
    Rules(#[from] PlyError),
    #[error("{0} rolls no dice: there is nothing to salt")]
    NoDice(&'static str),
    #[error("{0} rolls no dice: there is no seed to reveal")]
    NoSeed(&'static str),
    #[error("the salt window closed at {0}")]
    WindowClosed(String),
    #[error("the salts are already fixed")]
    SaltsFixed,
    #[error("{0}")]
    BadSalt(String),
    #[error("this game has its {0} salts already, the most it takes")]
    SaltsFull(usize),
    #[error("no player {0} (players: {1})")]
    NoSuchPlayer(String, String),
    #[error("{0} is played by the robot, which reads no press")]
    RobotReadsNoPress(String),
    #[error("the game starts when every seat is taken")]
    NotStarted,
    #[error("the game is over")]
    GameOver,
    #[error("the GM has paused the game: nothing is played until it resumes")]
    Paused,
    #[error("{0} rolls no dice: there are no salts to wait for")]
    NoSaltsToWaitFor(&'static str),
    #[error("there is no game {0}")]
    NoSuchGame(i64),
    #[error("game {0} has no open seat (it is {1})")]
    NotOpen(i64, GameStatus),
    #[error("you already play in game {0}")]
    AlreadySeated(i64),
    #[error("seat {0} is not open in game {1}")]
    SeatTaken(String, i64),
    #[error("no open seat")]
    NoOpenSeat,
    #[error("that game is no longer offered")]
    NotOffered,
    #[error("{0}")]
    BadOptions(String),
    #[error("the game is {0}, not paused")]
    NotPaused(GameStatus),
    #[error("{0} has no player: seat one first (pbem game replace)")]
    SeatEmpty(String),
    #[error("the dice seed is already public: every roll to come would be known")]
    SeedPublic,
    #[error("'{0}' is not a mail address")]
    BadAddress(String),
    #[error("{0} plays in no game")]
    NotAPlayer(String),
    #[error(
        "game {game} asks its players for a reliability of at least {min}% (min_reliability: \
         turns made in time); yours is {has}%"
    )]
    Unreliable { game: i64, min: u32, has: u32 },
}

/// What a draw offer did.
#[derive(Debug)]
pub enum DrawOffer {
    /// Every seat has offered or accepted: the game is over, drawn.
    Agreed(Played),
    /// Recorded; these seats have not offered or accepted yet.
    Waiting(Vec<usize>),
}

fn active(g: &Loaded) -> Result<(), Refusal> {
    match g.row.status {
        GameStatus::Active => Ok(()),
        other => Err(Refusal::NotActive(other)),
    }
}

/// The seat resigns (the game's `Leaving` rule says what follows: the last seat left wins, or
/// its units hold); the ply is logged and the game finished when it ends it. The other
/// players are told (every player once the game is over).
pub fn resign(gm: &Gm, g: &mut Loaded, seat: usize) -> anyhow::Result<Result<Played, Refusal>> {
    if let Err(r) = active(g) {
        return Ok(Err(r));
    }
    let played = match play_with(gm, g, Actor::Seat(seat), |game| game.resign(seat))? {
        Ok(p) => p,
        Err(e) => return Ok(Err(Refusal::from(e))),
    };
    gm.tell(News::Played {
        g,
        played: &played,
        except: Some(seat),
    })?;
    Ok(Ok(played))
}

/// The seat offers (or accepts) a draw; once every seat has, the GM plays the agreed draw.
/// The seats yet to agree hear of the offer (once: the same seat's offer again, while it
/// stands, is news to nobody); everyone of an agreed draw.
pub fn offer_draw(
    gm: &Gm,
    g: &mut Loaded,
    seat: usize,
) -> anyhow::Result<Result<DrawOffer, Refusal>> {
    let tx = gm.tx;
    if let Err(r) = active(g) {
        return Ok(Err(r));
    }
    let standing = g.seat(seat).is_some_and(|s| s.draw_offer);
    tx.set_draw_offer(g.row.id, seat, true)?;
    // Every seat still playing must agree; a seat that resigned has no say.
    let playing = g.game.playing();
    let seats = tx.seats(g.row.id)?;
    let waiting: Vec<usize> = seats
        .iter()
        .filter(|x| !x.draw_offer && playing.contains(&x.seat))
        .map(|x| x.seat)
        .collect();
    if !waiting.is_empty() {
        // An offer that stands was told when it was made: told again, a DRAW sent mail after
        // mail would fill the others' mailboxes.
        if !standing {
            gm.tell(News::DrawOffered {
                g,
                seat,
                waiting: &waiting,
            })?;
        }
        return Ok(Ok(DrawOffer::Waiting(waiting)));
    }
    let played = match play_with(gm, g, Actor::Gm, |game| game.agree_draw())? {
        Ok(p) => p,
        Err(e) => return Ok(Err(Refusal::from(e))),
    };
    gm.tell(News::Played {
        g,
        played: &played,
        except: None,
    })?;
    Ok(Ok(DrawOffer::Agreed(played)))
}

/// `seat` declines: every draw offer of the game is withdrawn, and the other players told.
pub fn decline_draw(gm: &Gm, g: &Loaded, seat: usize) -> anyhow::Result<()> {
    gm.tx.clear_draw_offers(g.row.id)?;
    gm.tell(News::DrawDeclined { g, seat })
}

/// A salt from the seat for the game's dice, while the salts are open and the game has room
/// for it (`max` in all); the number of salts so far.
pub fn add_salt(
    tx: &Tx,
    g: &Loaded,
    seat: usize,
    salt: &str,
    max: usize,
    now: DateTime<Utc>,
) -> anyhow::Result<Result<usize, Refusal>> {
    if !g.kind().rolls_dice() {
        return Ok(Err(Refusal::NoDice(g.kind().title())));
    }
    if !salts_open(&g.row, now) {
        return Ok(Err(match (g.row.salts_fixed, g.row.salts_until) {
            (false, Some(until)) => Refusal::WindowClosed(crate::template::date(until)),
            _ => Refusal::SaltsFixed,
        }));
    }
    let norm = match crate::dice::normalize_salt(salt) {
        Ok(n) => n,
        Err(e) => return Ok(Err(Refusal::BadSalt(e))),
    };
    let mut pairs = salt_pairs(&g.row)?;
    if pairs.len() >= max {
        return Ok(Err(Refusal::SaltsFull(max)));
    }
    pairs.push((seat, norm));
    tx.set_salts(g.row.id, &serde_json::to_string(&pairs)?)?;
    Ok(Ok(pairs.len()))
}

/// The seats a press message from `seat` goes to: every other seat for `ALL`, else the seats
/// named (by seat name, any case; the sender itself is skipped).
pub fn press_targets(g: &Loaded, seat: usize, to: &[String]) -> Result<Vec<usize>, Refusal> {
    let names = g.game.seat_names();
    let robot = |x: usize| g.seat(x).is_some_and(|s| s.robot.is_some());
    if to.iter().any(|t| t.eq_ignore_ascii_case("ALL")) {
        // Every other player who reads mail: a robot seat reads none.
        return Ok((0..names.len())
            .filter(|x| *x != seat && !robot(*x))
            .collect());
    }
    let mut targets = Vec::new();
    for t in to {
        match g.game.seat_by_name(t) {
            Some(x) if robot(x) => return Err(Refusal::RobotReadsNoPress(names[x].to_string())),
            Some(x) if x != seat && !targets.contains(&x) => targets.push(x),
            Some(_) => {}
            None => return Err(Refusal::NoSuchPlayer(t.clone(), names.join(", "))),
        }
    }
    Ok(targets)
}

/// Press from `seat` to `targets` (already chosen with `press_targets`), relayed by the GM.
pub fn send_press(
    gm: &Gm,
    g: &Loaded,
    seat: usize,
    targets: &[usize],
    to_all: bool,
    text: &str,
) -> anyhow::Result<()> {
    gm.tell(News::Press {
        g,
        from: seat,
        to: targets,
        to_all,
        text,
    })
}

/// A player's clocks pause for `days` (none: the vacation ends now); when it ends.
pub fn set_vacation(
    tx: &Tx,
    email: &str,
    days: Option<u32>,
    now: DateTime<Utc>,
) -> anyhow::Result<Option<DateTime<Utc>>> {
    let until = days.map(|d| now + chrono::Duration::days(i64::from(d)));
    tx.set_vacation(email, until)?;
    Ok(until)
}

/// The player's news as one mail a day (`on`) or a mail per move; only for an address that
/// plays (a mistyped one is refused, not made a player).
pub fn set_digest(
    tx: &Tx,
    email: &str,
    on: bool,
    now: DateTime<Utc>,
) -> anyhow::Result<Result<(), Refusal>> {
    if tx.seats_of(email)?.is_empty() {
        return Ok(Err(Refusal::NotAPlayer(email.to_string())));
    }
    tx.set_digest(email, on, now)?;
    Ok(Ok(()))
}
