//! NEW and JOIN by mail take effect only when the address confirms: the request waits, a one-time code goes to the address as its Reply-To, and the reply to it creates the game or fills the seat.
//!
//! Without this, a forged NEW and three forged JOINs started a game that mailed four
//! strangers, and one mail of 5,000 NEW lines made 5,000 games.

use chrono::Duration;
use serde::{Deserialize, Serialize};

use super::session::Session;
use super::{Handled, Line};
use crate::compose::{self, Ctx};
use crate::edge;
use crate::games::{AnyGame, GameKind, Options};
use crate::gm;
use crate::gm::Gm;
use crate::store::{GameStatus, HtmlPart, OutboxRow, Tx};

/// The local-part prefix of a confirmation address: `gm+confirm-CODE@domain`.
const PREFIX: &str = "confirm-";

/// What a request asks for, as stored until it is confirmed.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub(super) enum Request {
    New {
        game: String,
        options: Options,
        /// Against the robot (its level's name): every other seat is the robot's.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        robot: Option<String>,
    },
    Join {
        game: i64,
        seat: Option<String>,
    },
}

impl Request {
    fn kind(&self) -> &'static str {
        match self {
            Request::New { .. } => "new",
            Request::Join { .. } => "join",
        }
    }
}

/// The confirmation code in one of our addresses, if it is a confirmation address.
pub(super) fn code_in(ctx: &Ctx, addr: &str) -> Option<String> {
    ctx.cfg
        .token_in(addr)
        .and_then(|t| t.strip_prefix(PREFIX).map(str::to_string))
        .filter(|c| !c.is_empty())
}

/// A NEW line: checked now (game, options), kept as a request to confirm.
pub(super) fn ask_new(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    text: &str,
    from: &str,
    game: &str,
    options: &[String],
) -> anyhow::Result<()> {
    let Some(kind) = GameKind::parse(game) else {
        let names: Vec<&str> = GameKind::ALL.iter().map(|k| k.name()).collect();
        s.lines.push(Line::no(
            text,
            format!(
                "there is no game by that name (games: {})",
                names.join(", ")
            ),
        ));
        return Ok(());
    };
    let mut opts = Options::new();
    let mut robot = None;
    for o in options {
        // `NEW dicerink robot` (or `robot:easy`): a game against the robot.
        match gm::robots::robot_named(o) {
            Some(Ok(level)) => {
                robot = Some(level.name().to_string());
                continue;
            }
            Some(Err(why)) => {
                s.lines.push(Line::no(text, why));
                return Ok(());
            }
            None => {}
        }
        let Some((k, v)) = o.split_once('=') else {
            s.lines
                .push(Line::no(text, "options are written name=value"));
            return Ok(());
        };
        opts.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
    }
    let checked = gm::options::check(&opts).and_then(|()| AnyGame::new(kind, &opts).map(drop));
    if let Err(e) = checked {
        s.lines.push(Line::no(text, e));
        return Ok(());
    }
    let request = Request::New {
        game: kind.name().to_string(),
        options: opts,
        robot,
    };
    file(tx, ctx, s, text, from, &request)
}

/// A JOIN line: checked now (the game is open, the seat free), kept as a request to confirm.
pub(super) fn ask_join(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    text: &str,
    from: &str,
    game: i64,
    seat: Option<&str>,
) -> anyhow::Result<()> {
    if let Err(why) = gm::seat_open_to(tx, game, seat, from)? {
        s.lines.push(Line::no(text, why.to_string()));
        return Ok(());
    }
    let request = Request::Join {
        game,
        seat: seat.map(str::to_string),
    };
    file(tx, ctx, s, text, from, &request)
}

/// Stores a request (within the address's allowance) and says how to confirm it.
fn file(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    text: &str,
    from: &str,
    request: &Request,
) -> anyhow::Result<()> {
    let waiting = tx.pending_requests(from, ctx.now)? + open_games_created(tx, from)?;
    if waiting >= ctx.cfg.max_pending_requests {
        s.lines.push(Line::no(
            text,
            format!(
                "you already have {waiting} games or requests waiting (at most {}): confirm \
                 them or wait until their games fill up",
                ctx.cfg.max_pending_requests
            ),
        ));
        return Ok(());
    }
    let code = edge::new_token()?;
    let expires = ctx.now + Duration::seconds(ctx.cfg.request_ttl_secs);
    tx.insert_request(
        &code,
        request.kind(),
        from,
        &serde_json::to_string(request)?,
        ctx.now,
        expires,
    )?;
    s.lines.push(Line::ok(
        text,
        Some("waiting for your confirmation: see below".into()),
    ));
    let (title, detail) = describe(request);
    let body = compose::render(
        ctx,
        &compose::Confirm {
            kind: request.kind(),
            title,
            options: detail,
            game_id: match request {
                Request::Join { game, .. } => Some(*game),
                _ => None,
            },
            seat: match request {
                Request::Join { seat, .. } => seat.clone(),
                _ => None,
            },
            expires: crate::template::date(expires),
        },
    )?;
    s.confirm = Some((code, body));
    Ok(())
}

/// The game's title and, for NEW, its options in one line.
fn describe(request: &Request) -> (String, String) {
    match request {
        Request::New {
            game,
            options,
            robot,
        } => (
            GameKind::parse(game).map_or(game.clone(), |k| k.title().to_string()),
            options
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .chain(robot.iter().map(|l| format!("against the robot ({l})")))
                .collect::<Vec<_>>()
                .join(", "),
        ),
        Request::Join { .. } => (String::new(), String::new()),
    }
}

/// Open games this address created or joined that still wait for players.
fn open_games_created(tx: &Tx, from: &str) -> anyhow::Result<i64> {
    let mut n = 0;
    for (game, _) in tx.seats_of(from)? {
        if tx.game(game)?.is_some_and(|r| r.status == GameStatus::Open) {
            n += 1;
        }
    }
    Ok(n)
}

/// A reply to a confirmation address: from the address that asked, the request is carried
/// out; from any other, or for an unknown code, nothing happens and nobody is answered.
pub(super) fn confirm(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    from: &str,
    code: &str,
    gm: &mut Gm,
) -> anyhow::Result<Result<(), Handled>> {
    let Some(row) = tx.request_by_code(code)? else {
        tx.note_throttle(from, super::guard::AUTH_FAILURE, ctx.now)?;
        return Ok(Err(super::refused(format!(
            "confirmation to an unknown or used code from {from}"
        ))));
    };
    if !row.address.eq_ignore_ascii_case(from) {
        tx.note_throttle(from, super::guard::AUTH_FAILURE, ctx.now)?;
        return Ok(Err(super::refused(format!(
            "confirmation of {}'s request came from {from}",
            row.address
        ))));
    }
    tx.delete_request(row.id)?;
    let text = format!("confirm {}", row.kind.to_ascii_uppercase());
    if row.expires_at <= ctx.now {
        s.lines.push(Line::no(
            &text,
            "this request has expired: send it again to start over",
        ));
        return Ok(Ok(()));
    }
    match serde_json::from_str::<Request>(&row.payload)? {
        Request::New {
            game,
            options,
            robot,
        } => {
            let robot = robot.as_deref().and_then(crate::robot::Level::parse);
            create(ctx, s, &text, from, (&game, options, robot), gm)?
        }
        Request::Join { game, seat } => join(s, &text, from, game, seat, gm)?,
    }
    Ok(Ok(()))
}

/// A confirmed NEW: the game exists, its first seat taken by the address that asked.
fn create(
    ctx: &Ctx,
    s: &mut Session,
    text: &str,
    from: &str,
    (game, options, robot): (&str, Options, Option<crate::robot::Level>),
    gm: &mut Gm,
) -> anyhow::Result<()> {
    let seated = match gm::open_new(gm, game, options, from, ctx.cfg.move_secs, robot)? {
        Ok(seated) => seated,
        Err(why) => {
            s.lines.push(Line::no(text, why.to_string()));
            return Ok(());
        }
    };
    let id = seated.game;
    s.game = Some(id);
    s.lines.push(Line::ok(
        text,
        Some(format!("game #{id} created; you play {}", seated.seat_name)),
    ));
    s.extra.push(match robot {
        Some(level) => format!(
            "Your opponent is the robot ({}): the game has begun, and your welcome mail with \
             your secret reply address follows.",
            level.name()
        ),
        None => format!(
            "Game #{id} waits for players: they send JOIN {id}. Everybody gets a welcome mail \
             with their secret reply address when the seats are full."
        ),
    });
    Ok(())
}

/// A confirmed JOIN: the seat is taken if it is still open.
fn join(
    s: &mut Session,
    text: &str,
    from: &str,
    game: i64,
    seat: Option<String>,
    gm: &mut Gm,
) -> anyhow::Result<()> {
    let seated = match gm::join(gm, game, seat.as_deref(), from)? {
        Ok(seated) => seated,
        Err(why) => {
            s.lines.push(Line::no(text, why.to_string()));
            return Ok(());
        }
    };
    s.game = Some(game);
    s.lines.push(Line::ok(
        text,
        Some(format!("you play {} in game #{game}", seated.seat_name)),
    ));
    Ok(())
}

/// The mail that carries the code: its Reply-To is the confirmation address, so replying to
/// it is all the player does. `None` when the reply itself carries it (see `mailroom::reply`).
pub(super) fn confirmation_draft(ctx: &Ctx, to: &str, code: &str, body: String) -> OutboxRow {
    OutboxRow {
        kind: "confirm".into(),
        to_addr: to.to_string(),
        reply_to: Some(ctx.cfg.seat_address(&format!("{PREFIX}{code}"))),
        subject: "[pbem] please confirm your request".into(),
        body,
        html: HtmlPart::Words,
        ..Default::default()
    }
}

/// Queues the confirmation mail on its own (when the reply to the mail goes to a seat's
/// thread and keeps that seat's Reply-To).
pub(super) fn send_confirmation(
    tx: &Tx,
    ctx: &Ctx,
    to: &str,
    code: &str,
    body: String,
) -> anyhow::Result<()> {
    let draft = confirmation_draft(ctx, to, code, body);
    compose::enqueue(tx, ctx, draft, compose::Limit::Applies)
}
