//! The GM's hand on a game's life: pause and resume, deadlines, options changed mid-game, rollback, cancel and eject, each a typed operation that says what changed.

use chrono::{DateTime, Duration, Utc};

use super::options::{self, COMMON_OPTIONS};
use super::{close, play_with, Gm, News, Played, Refusal};
use crate::duration::{self, Range};
use crate::gamelog::{self, Loaded};
use crate::games::{Actor, ToAct};
use crate::store::{GameStatus, PendingKind, Tx};
use crate::template::date;

/// The options a GM may change once a game has begun: its clocks and its press. Everything
/// else shapes the position or the dice, which the log already depends on.
pub const CHANGEABLE: &[&str] = &["move_time", "grace", "timeout", "early_resolve", "press"];

/// The GM reveals the dice seed mid-game (every roll to come is then known to all); every
/// player learns it at once, as a seed known to some would be an edge. Returns the seed.
pub fn reveal(gm: &Gm, g: &mut Loaded) -> anyhow::Result<Result<String, Refusal>> {
    if !g.kind().rolls_dice() {
        return Ok(Err(Refusal::NoSeed(g.kind().title())));
    }
    gm.tx.reveal_seed(g.row.id)?;
    g.row.seed_revealed = true;
    gm.tx
        .log_event(Some(g.row.id), gm.now, "dice seed revealed by the GM")?;
    gm.tell(News::SeedRevealed { g })?;
    Ok(Ok(g.row.seed.clone().unwrap_or_default()))
}

/// Seats a player, who starts clean: the turns the seat already missed (the game's count)
/// were the old player's, and the GM is told of the new one's own only.
fn seat_player(tx: &Tx, g: &Loaded, seat: usize, email: &str, token: &str) -> anyhow::Result<()> {
    let player = tx.player_id(email)?;
    tx.fill_seat(g.row.id, seat, player, token)?;
    let inherited = g.game.missed(seat).map_or(0, |m| m.turns);
    tx.set_missed_before(g.row.id, seat, inherited)
}

/// A message from the GM to every player; an empty one is refused (it would mail every
/// player a headline and nothing under it).
pub fn message(gm: &Gm, g: &Loaded, text: &str) -> anyhow::Result<Result<(), &'static str>> {
    if text.trim().is_empty() {
        return Ok(Err(
            "the message is empty: write what the players should read",
        ));
    }
    tell_all(gm, g, format!("A message from the GM:\n\n{text}"), false)?;
    Ok(Ok(()))
}

/// Every player hears what the GM changed (with the board as it now stands; the game-over
/// mail with the record when the game ended).
fn tell_all(gm: &Gm, g: &Loaded, news: String, finished: bool) -> anyhow::Result<()> {
    let played = Played {
        reports: vec![news],
        finished,
        ..Played::default()
    };
    gm.tell(News::Played {
        g,
        played: &played,
        except: None,
    })
}

fn must_be(g: &Loaded, status: GameStatus) -> Result<(), Refusal> {
    if g.row.status == status {
        Ok(())
    } else {
        Err(Refusal::NotActive(g.row.status))
    }
}

/// Pauses an active game: no clock runs and no move is played until `resume`.
pub fn pause(gm: &Gm, g: &mut Loaded, reason: &str) -> anyhow::Result<Result<(), Refusal>> {
    let (tx, now) = (gm.tx, gm.now);
    if let Err(r) = must_be(g, GameStatus::Active) {
        return Ok(Err(r));
    }
    tx.set_paused(g.row.id, Some((reason, now)), now)?;
    tx.log_event(Some(g.row.id), now, &format!("paused by the GM: {reason}"))?;
    g.row.status = GameStatus::Paused;
    g.row.paused_at = Some(now);
    g.row.pause_reason = Some(reason.to_string());
    let news = format!(
        "The GM has paused the game ({reason}). No clock runs and no move is played until it \
         resumes; you will be told when it does."
    );
    tell_all(gm, g, news, false)?;
    Ok(Ok(()))
}

/// Resumes a paused game: every clock (the move deadline, the salt window) gets back the time
/// it had left when the game was paused.
pub fn resume(gm: &Gm, g: &mut Loaded) -> anyhow::Result<Result<(), Refusal>> {
    let (tx, now) = (gm.tx, gm.now);
    if g.row.status != GameStatus::Paused {
        return Ok(Err(Refusal::NotPaused(g.row.status)));
    }
    if let Some(empty) = g.seats.iter().find(|s| s.is_open()) {
        return Ok(Err(Refusal::SeatEmpty(
            g.game.seat_name(empty.seat).to_string(),
        )));
    }
    let gap = now - g.row.paused_at.unwrap_or(now);
    let deadline = g.row.deadline.map(|d| d + gap);
    let salts_until = g.row.salts_until.map(|u| u + gap);
    tx.set_paused(g.row.id, None, now)?;
    tx.shift_clocks(g.row.id, deadline, salts_until)?;
    tx.log_event(Some(g.row.id), now, "resumed by the GM")?;
    g.row.status = GameStatus::Active;
    g.row.paused_at = None;
    g.row.pause_reason = None;
    g.row.deadline = deadline;
    g.row.salts_until = salts_until;
    let left = match deadline {
        Some(d) => format!(" The clock runs again: the deadline is now {}.", date(d)),
        None => String::new(),
    };
    tell_all(gm, g, format!("The GM has resumed the game.{left}"), false)?;
    Ok(Ok(()))
}

/// A new deadline for whoever is to act now; it must lie ahead.
pub fn set_deadline(
    gm: &Gm,
    g: &mut Loaded,
    when: DateTime<Utc>,
) -> anyhow::Result<Result<(), Refusal>> {
    let news = format!("The GM has set a new deadline: {}.", date(when));
    move_deadline(gm, g, when, news)
}

/// Moves the deadline to `when`, if it may, and tells every player (`news`).
fn move_deadline(
    gm: &Gm,
    g: &mut Loaded,
    when: DateTime<Utc>,
    news: String,
) -> anyhow::Result<Result<(), Refusal>> {
    let now = gm.now;
    if let Err(r) = must_be(g, GameStatus::Active) {
        return Ok(Err(r));
    }
    if when <= now {
        return Ok(Err(Refusal::BadOptions(format!(
            "{} is not in the future",
            crate::template::date(when)
        ))));
    }
    // As far ahead as a move's time limit may reach, and no further (a stored date must read
    // back, and a clock a year off is a typing error).
    if when > now + Duration::seconds(Range::MOVE_TIME.max_secs) {
        return Ok(Err(Refusal::BadOptions(format!(
            "{} is more than {} away",
            crate::template::date(when),
            duration::format_secs(Range::MOVE_TIME.max_secs)
        ))));
    }
    if matches!(g.game.to_act(), ToAct::Nobody) {
        return Ok(Err(Refusal::BadOptions(
            "nobody is to act: there is no clock to set".into(),
        )));
    }
    gm.tx.set_deadline(g.row.id, Some(when))?;
    g.row.deadline = Some(when);
    tell_all(gm, g, news, false)?;
    Ok(Ok(()))
}

/// Moves the deadline later by `secs` (from now when there is none, or it has passed).
pub fn extend(gm: &Gm, g: &mut Loaded, secs: i64) -> anyhow::Result<Result<(), Refusal>> {
    let from = g.row.deadline.filter(|d| *d > gm.now).unwrap_or(gm.now);
    let when = from + Duration::seconds(secs);
    let news = format!(
        "The GM has extended the deadline by {}: it is now {}.",
        duration::format_secs(secs),
        date(when)
    );
    move_deadline(gm, g, when, news)
}

/// Changes one of the `CHANGEABLE` options of a game that has not ended; returns the value
/// as it now reads. The game's own checks apply (a game without press has no `press`).
pub fn set_option(
    gm: &Gm,
    g: &mut Loaded,
    name: &str,
    value: &str,
) -> anyhow::Result<Result<String, Refusal>> {
    let tx = gm.tx;
    if g.row.status == GameStatus::Finished {
        return Ok(Err(Refusal::NotActive(g.row.status)));
    }
    if !CHANGEABLE.contains(&name) {
        return Ok(Err(Refusal::BadOptions(format!(
            "'{name}' cannot change once the game is made (these can: {})",
            CHANGEABLE.join(", ")
        ))));
    }
    let mut move_secs = g.row.move_secs;
    let mut options = gamelog::options_of(&g.row)?;
    if name == "move_time" {
        move_secs = match value {
            "none" => None,
            v => match duration::parse(v, Range::MOVE_TIME) {
                Ok(s) => Some(s),
                Err(e) => return Ok(Err(Refusal::BadOptions(format!("move_time: {e}")))),
            },
        };
    } else {
        let known = COMMON_OPTIONS.iter().any(|o| o.name == name)
            || g.kind().facts().options.iter().any(|o| o.name == name);
        if !known {
            return Ok(Err(Refusal::BadOptions(format!(
                "{} has no option '{name}'",
                g.kind().title()
            ))));
        }
        options.insert(name.to_string(), value.to_string());
        let mut row = g.row.clone();
        row.options = serde_json::to_string(&options)?;
        if let Err(e) = gamelog::start_of(&row) {
            return Ok(Err(Refusal::BadOptions(e.to_string())));
        }
        if let Err(e) = options::check(&options) {
            return Ok(Err(Refusal::BadOptions(e)));
        }
    }
    let json = serde_json::to_string(&options)?;
    tx.set_options(g.row.id, &json, move_secs)?;
    let reloaded = gamelog::load(tx, g.row.id)?;
    *g = reloaded;
    let now_reads = match (name, move_secs) {
        ("move_time", Some(s)) => duration::format_secs(s),
        ("move_time", None) => "none".into(),
        _ => value.to_string(),
    };
    let news = format!("The GM has changed the game's {name}: it is now {now_reads}.");
    tell_all(gm, g, news, false)?;
    Ok(Ok(now_reads))
}

/// Which plies a rollback keeps.
#[derive(Debug, Clone, Copy)]
pub enum Rollback {
    /// Undo this many plies.
    Plies(usize),
    /// Keep the first N plies.
    To(usize),
}

/// What a rollback did.
#[derive(Debug)]
pub struct RolledBack {
    /// The plies undone, as (actor, text), in the order they were played.
    pub undone: Vec<(String, String)>,
    /// The game had ended, and is on again.
    pub reopened: bool,
}

/// Undoes the last plies, back to where a player acts (a roll or a forced ply would only be
/// played again, the same: dice are derived from the seed, never drawn again). Orders, plans
/// and draw offers of the undone turn go; the clock restarts. A game whose dice seed is
/// already public cannot go back: every roll to come would be known.
pub fn rollback(
    gm: &Gm,
    g: &mut Loaded,
    how: Rollback,
) -> anyhow::Result<Result<RolledBack, Refusal>> {
    let (tx, now) = (gm.tx, gm.now);
    if matches!(g.row.status, GameStatus::Open | GameStatus::Paused) {
        return Ok(Err(Refusal::NotActive(g.row.status)));
    }
    let len = g.moves.len();
    let wanted = match how {
        Rollback::Plies(0) => {
            return Ok(Err(Refusal::BadOptions(
                "nothing to take back: say how many plies (1 or more)".into(),
            )))
        }
        Rollback::Plies(n) => len.checked_sub(n),
        Rollback::To(n) => (n < len).then_some(n),
    };
    let Some(wanted) = wanted else {
        return Ok(Err(Refusal::BadOptions(format!(
            "the game has {len} plies"
        ))));
    };
    let keep = rest_point(g, wanted)?;
    if keep >= len {
        return Ok(Err(Refusal::BadOptions(
            "nothing to take back before the opening roll".into(),
        )));
    }
    if g.row.seed_revealed && g.kind().rolls_dice() {
        return Ok(Err(Refusal::SeedPublic));
    }
    let undone: Vec<(String, String)> = g.moves[keep..]
        .iter()
        .map(|m| (m.actor.clone(), m.text.clone()))
        .collect();
    let reopened = g.row.status == GameStatus::Finished;
    tx.truncate_moves(g.row.id, keep)?;
    tx.clear_pending(g.row.id, PendingKind::Orders)?;
    tx.clear_pending(g.row.id, PendingKind::Plan)?;
    tx.clear_draw_offers(g.row.id)?;
    if reopened {
        tx.set_game_status(g.row.id, GameStatus::Active, None, now)?;
    }
    let deadline = g.row.move_secs.map(|s| now + Duration::seconds(s));
    tx.set_deadline(g.row.id, deadline)?;
    tx.log_event(Some(g.row.id), now, &format!("rolled back to ply {keep}"))?;
    *g = gamelog::load(tx, g.row.id)?;
    let back = RolledBack { undone, reopened };
    tell_all(gm, g, rolled_back_news(&back), false)?;
    Ok(Ok(back))
}

/// A rollback in words, for every player.
fn rolled_back_news(back: &RolledBack) -> String {
    let undone: Vec<String> = back
        .undone
        .iter()
        .map(|(a, t)| format!("{a} {t}"))
        .collect();
    let plies = match undone.len() {
        1 => "the last ply".to_string(),
        n => format!("the last {n} plies"),
    };
    let on_again = if back.reopened {
        " and is on again"
    } else {
        ""
    };
    format!(
        "The GM has taken back {plies} (played: {}). The game stands as below{on_again}.",
        undone.join(", ")
    )
}

/// The latest point at or before `wanted` plies where a player acts: not before a roll or a
/// ply the GM plays by itself (the game would play it again at once).
fn rest_point(g: &Loaded, mut wanted: usize) -> anyhow::Result<usize> {
    // The opening rolls (Dicess's set-up roll, Siberian's sequences) stand: taken back, the
    // game would make them again at once, the same.
    let opening = g
        .moves
        .iter()
        .take_while(|m| m.actor == crate::records::actor_name(&g.start, Actor::Chance))
        .count();
    wanted = wanted.max(opening);
    while wanted > opening {
        let (game, _) = gamelog::replay(&g.start, &g.moves[..wanted], g.row.id)?;
        let rests = match game.to_act() {
            ToAct::Seat(_) => game.auto_ply().is_none(),
            ToAct::Orders(_) => true,
            ToAct::Chance(_) | ToAct::Nobody => false,
        };
        if rests && game.outcome().is_none() {
            break;
        }
        wanted -= 1;
    }
    Ok(wanted)
}

/// The GM declares the game drawn (an abandoned game, a dispute): the game's shared draw,
/// with a result and news that say whose decision it was, not the players' agreement.
pub fn declare_draw(gm: &Gm, g: &mut Loaded) -> anyhow::Result<Result<Played, Refusal>> {
    if let Err(r) = must_be(g, GameStatus::Active) {
        return Ok(Err(r));
    }
    let played = match play_with(gm, g, Actor::Gm, |game| game.declare_draw())? {
        Ok(p) => p,
        Err(e) => return Ok(Err(Refusal::Rules(e))),
    };
    gm.tx
        .log_event(Some(g.row.id), gm.now, "the GM declared the game drawn")?;
    gm.tell(News::Played {
        g,
        played: &played,
        except: None,
    })?;
    Ok(Ok(played))
}

/// Ends the game with no result (`Result "*"`), for a reason the players are told; the dice
/// seed is revealed as at every game's end.
pub fn cancel(gm: &Gm, g: &mut Loaded, reason: &str) -> anyhow::Result<Result<(), Refusal>> {
    let (tx, now) = (gm.tx, gm.now);
    if g.row.status == GameStatus::Finished {
        return Ok(Err(Refusal::NotActive(g.row.status)));
    }
    close(tx, g, &format!("cancelled by the GM: {reason}"), now)?;
    tx.log_event(
        Some(g.row.id),
        now,
        &format!("cancelled by the GM: {reason}"),
    )?;
    let news = format!("The GM has cancelled the game ({reason}). It ends without a result.");
    tell_all(gm, g, news, true)?;
    Ok(Ok(()))
}

/// Takes a player out of their seat, and seats `replacement` there at once if given (with
/// its own new secret `token`). The seat's orders and plan of this turn go with the player
/// (never to the next one). Without a replacement the game is paused until the GM seats one
/// (`pbem game replace`): a seat nobody plays must not run out of time. The one who leaves,
/// the one who comes (a welcome) and the others are told. Returns the address that left.
pub fn eject(
    gm: &Gm,
    g: &mut Loaded,
    seat: usize,
    replacement: Option<(&str, &str)>,
) -> anyhow::Result<Result<String, Refusal>> {
    let (tx, now) = (gm.tx, gm.now);
    if g.row.status == GameStatus::Finished {
        return Ok(Err(Refusal::NotActive(g.row.status)));
    }
    let name = g.game.seat_name(seat).to_string();
    let Some(email) = g.seat(seat).and_then(|s| s.email.clone()) else {
        return Ok(Err(Refusal::SeatEmpty(name)));
    };
    let new = match replacement {
        Some((addr, token)) => match crate::mail::address(addr) {
            Some(a) => Some((a, token)),
            None => return Ok(Err(Refusal::BadAddress(addr.to_string()))),
        },
        None => None,
    };
    // The one who leaves is told from the game as it was (their seat and address).
    let before = g.clone();
    super::reliability::left(tx, g, seat, now)?;
    tx.empty_seat(g.row.id, seat)?;
    tx.clear_pending_of(g.row.id, seat)?;
    tx.log_event(
        Some(g.row.id),
        now,
        &format!("the GM ejected {email} from {name}"),
    )?;
    match new {
        Some((addr, token)) => {
            seat_player(tx, g, seat, &addr, token)?;
            tx.log_event(Some(g.row.id), now, &format!("seat {name} given to {addr}"))?;
        }
        None if g.row.status == GameStatus::Active => {
            let reason = format!("{name} needs a new player");
            tx.set_paused(g.row.id, Some((&reason, now)), now)?;
        }
        None => {}
    }
    *g = gamelog::load(tx, g.row.id)?;
    let text = format!("The GM has taken you out of {name}: you no longer play in this game.");
    gm.tell(News::TakenOut {
        g: &before,
        seat,
        text: &text,
    })?;
    let news = match replacement {
        Some(_) => {
            gm.tell(News::Welcome { g, seats: &[seat] })?;
            format!("{name} has a new player.")
        }
        None => format!(
            "{name}'s player has left the game. It is paused until the GM seats a new player."
        ),
    };
    let others: Vec<usize> = g
        .seats
        .iter()
        .map(|x| x.seat)
        .filter(|x| *x != seat)
        .collect();
    gm.tell(News::Said {
        g,
        seats: &others,
        text: &news,
    })?;
    Ok(Ok(email))
}

/// Gives a seat to `email` (with its own new secret `token`), who gets a welcome. Whatever the
/// seat had ordered or planned this turn was its old player's, and goes.
pub fn replace(
    gm: &Gm,
    g: &mut Loaded,
    seat: usize,
    email: &str,
    token: &str,
) -> anyhow::Result<()> {
    let (tx, id) = (gm.tx, g.row.id);
    tx.clear_pending_of(id, seat)?;
    // A player still in the seat leaves it (one taken out by `eject` was recorded then).
    super::reliability::left(tx, g, seat, gm.now)?;
    seat_player(tx, g, seat, email, token)?;
    let name = g.game.seat_name(seat);
    tx.log_event(Some(id), gm.now, &format!("seat {name} given to {email}"))?;
    *g = gamelog::load(tx, id)?;
    gm.tell(News::Welcome { g, seats: &[seat] })
}
