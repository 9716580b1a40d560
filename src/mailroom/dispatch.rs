//! Each command and game line of a mail to the GM operation that answers it, in order.

use super::{
    auth::pick_seat, auth::Auth, player_settings, refused, requests, session::command_text,
    session::Session, turn::flush, turn::reply_played, Handled, Line,
};
use crate::commands::{Command, HelpTopic};
use crate::compose::{Ctx, Help};
use crate::gamelog::Loaded;
use crate::games::GameKind;
use crate::gm::Gm;

use crate::store::Tx;
use crate::{compose, gamelog, gm, help};

/// Runs the mail's commands and game lines in order. `Some` when the mail ends unanswered
/// (a stranger's game lines).
#[allow(clippy::too_many_arguments)]
pub(super) fn run_lines(
    tx: &Tx,
    ctx: &Ctx,
    session: &mut Session,
    msg_id: i64,
    cmds: &[Command],
    from: &str,
    auth: &Auth,
    gm: &mut Gm,
) -> anyhow::Result<Option<Handled>> {
    session.current = match auth {
        Auth::Seat(g, s) => Some((*g, *s)),
        Auth::Password => pick_seat(tx, from, session.subject_game)?,
        Auth::None => None,
    };
    session.touched = session.current.map(|c| c.0);
    // A `#12` guard anywhere in the mail applies to all of its moves.
    session.guard = cmds.iter().find_map(|c| match c {
        Command::Guard(n) => Some(*n),
        _ => None,
    });
    let mut unauth_game_lines = 0;
    let mut game_lines: Vec<String> = Vec::new();
    // `COMMENT` lines wait for the mail's move, wherever they stand in it.
    let mut comments: Vec<&str> = Vec::new();
    for cmd in cmds {
        if let Command::Comment(text) = cmd {
            comments.push(text);
            continue;
        }
        if let Command::Game(text) = cmd {
            if session.current.is_none() {
                unauth_game_lines += 1;
                let why = format!("not played: {}", no_game_reason(auth));
                session.lines.push(Line::no(text, why));
            } else {
                game_lines.push(text.clone());
            }
            continue;
        }
        let current = session.current;
        flush(ctx, session, &mut game_lines, current, msg_id, gm)?;
        if let Command::UseGame(id) = cmd {
            use_game(tx, session, *id, from, auth)?;
            continue;
        }
        if cmd.needs_game() && session.current.is_none() {
            let text = command_text(cmd);
            session.lines.push(Line::no(&text, no_game_reason(auth)));
            unauth_game_lines += 1;
            continue;
        }
        if let Some(why) = session.repeated(cmd) {
            session.lines.push(Line::no(&command_text(cmd), why));
            continue;
        }
        let current = session.current;
        run_command(tx, ctx, session, cmd, current, from, auth, gm)?;
    }
    let current = session.current;
    flush(ctx, session, &mut game_lines, current, msg_id, gm)?;
    keep_comments(tx, session, &comments, auth)?;
    // Strangers get no answer to game lines: only registered addresses are ever told.
    let registered = !tx.seats_of(from)?.is_empty();
    if matches!(auth, Auth::None)
        && unauth_game_lines > 0
        && !registered
        && session.extra.is_empty()
        && session.help.is_none()
        && session.confirm.is_none()
    {
        return Ok(Some(refused(format!(
            "unauthenticated game lines from unknown address {from}"
        ))));
    }
    Ok(None)
}

/// The mail's `COMMENT` lines go into the record with the move it played, as that ply's
/// comment; without a move of the sender's in the mail, there is nothing to keep them with.
fn keep_comments(
    tx: &Tx,
    session: &mut Session,
    comments: &[&str],
    auth: &Auth,
) -> anyhow::Result<()> {
    for text in comments {
        let line = format!("COMMENT {text}");
        match session.my_ply {
            Some((game, ply)) => {
                gm::comments::keep(tx, game, ply, text)?;
                session.lines.push(Line::ok(&line, None));
            }
            None if session.current.is_none() => {
                session.lines.push(Line::no(&line, no_game_reason(auth)));
            }
            None => session.lines.push(Line::no(
                &line,
                "not kept: a comment goes into the record with your move, and this mail \
                 played none",
            )),
        }
    }
    Ok(())
}

/// `GAME 12`: the lines below are for game 12, if the mail's proof covers it.
pub(super) fn use_game(
    tx: &Tx,
    session: &mut Session,
    id: i64,
    from: &str,
    auth: &Auth,
) -> anyhow::Result<()> {
    let text = format!("GAME {id}");
    if matches!(auth, Auth::None) {
        session.lines.push(Line::no(
            &text,
            "send it from your secret reply address or with your PASSWORD",
        ));
        return Ok(());
    }
    match pick_seat(tx, from, Some(id))? {
        Some(c) if matches!(auth, Auth::Password) || Some(c) == session.current => {
            session.current = Some(c);
            session.touched = Some(c.0);
            session.lines.push(Line::ok(&text, None));
        }
        _ => session
            .lines
            .push(Line::no(&text, format!("you have no seat in game {id}"))),
    }
    Ok(())
}

/// Why a line that needs a game was not run: no proof of identity, or no game named.
pub(super) fn no_game_reason(auth: &Auth) -> &'static str {
    match auth {
        Auth::None => {
            "send it from your secret reply address (reply to a mail from the game master) \
             or with your PASSWORD"
        }
        _ => "which game? write GAME <number> first, or reply to that game's mail",
    }
}

#[allow(clippy::too_many_arguments)]
pub(super) fn run_command(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    cmd: &Command,
    current: Option<(i64, usize)>,
    from: &str,
    auth: &Auth,
    gm: &mut Gm,
) -> anyhow::Result<()> {
    let text = command_text(cmd);
    let reads_only = matches!(
        cmd,
        Command::Board
            | Command::Status
            | Command::History
            | Command::Moves
            | Command::Help(_)
            | Command::List
            | Command::Stats(_)
            | Command::Ratings(_)
            | Command::Guard(_)
            | Command::Password(_)
            | Command::Bad { .. }
    );
    if !reads_only {
        s.fresh = None;
        s.acted = true;
    }
    match cmd {
        Command::Guard(_) => {}
        Command::Password(_) => {}
        Command::Bad { line, reason } => s.lines.push(Line::no(line, reason.clone())),
        Command::Help(topic) => cmd_help(tx, ctx, s, &text, topic, current)?,
        Command::List => cmd_list(tx, s, from)?,
        Command::Stats(game) => cmd_records(tx, s, &text, game.as_deref(), false)?,
        Command::Ratings(game) => cmd_records(tx, s, &text, Some(game), true)?,
        Command::New { game, options } => {
            requests::ask_new(tx, ctx, s, &text, from, game, options)?;
        }
        Command::Join { game, seat } => {
            requests::ask_join(tx, ctx, s, &text, from, *game, seat.as_deref())?;
        }
        Command::Vacation(days) => {
            player_settings::cmd_vacation(tx, ctx, s, &text, days, from, auth)?
        }
        Command::Digest(on) => player_settings::cmd_digest(tx, ctx, s, &text, *on, from, auth)?,
        Command::Name(name) => player_settings::cmd_name(tx, s, &text, name, from, auth)?,
        Command::Salt(salt) => cmd_salt(tx, ctx, s, &text, salt, current)?,
        Command::Start => cmd_start(s, &text, current, gm)?,
        Command::Board => {
            if let Some((g, _)) = load_seat(tx, current)? {
                s.extra.push(g.game.board());
            }
        }
        Command::Status => cmd_status(tx, s, current)?,
        Command::History => {
            if let Some((g, _)) = load_seat(tx, current)? {
                s.extra
                    .push(format!("The game so far:\n{}", gm::view::history(&g)?));
            }
        }
        Command::Moves => cmd_moves(tx, s, current)?,
        Command::Resign => cmd_resign(gm, s, &text, current)?,
        Command::DrawOffer | Command::DrawAccept => cmd_draw_offer(gm, s, &text, current)?,
        Command::DrawDecline => cmd_draw_decline(gm, s, &text, current)?,
        Command::Press { to, text: body } => cmd_press(gm, s, &text, to, body, current)?,
        Command::Game(_) | Command::UseGame(_) | Command::Comment(_) => {
            unreachable!("handled by the caller")
        }
    }
    Ok(())
}

/// The game and seat the mail's commands are for, loaded.
pub(super) fn load_seat(
    tx: &Tx,
    current: Option<(i64, usize)>,
) -> anyhow::Result<Option<(Loaded, usize)>> {
    Ok(match current {
        Some((g, seat)) => Some((gamelog::load(tx, g)?, seat)),
        None => None,
    })
}

/// `LIST`: the sender's games, and games with open seats.
pub(super) fn cmd_list(tx: &Tx, s: &mut Session, from: &str) -> anyhow::Result<()> {
    s.extra.push(gm::view::games_of(tx, from)?.to_string());
    Ok(())
}

/// `STATS [game]` and `RATINGS game`: the games on record counted, or the players rated
/// (public: no seat needed); a game's name pbem does not know is refused with the names.
pub(super) fn cmd_records(
    tx: &Tx,
    s: &mut Session,
    text: &str,
    game: Option<&str>,
    ratings: bool,
) -> anyhow::Result<()> {
    let kind = match game.map(|g| GameKind::parse(g).ok_or(g)).transpose() {
        Ok(kind) => kind,
        Err(g) => {
            let names: Vec<&str> = GameKind::ALL.iter().map(|k| k.name()).collect();
            s.lines.push(Line::no(
                text,
                format!(
                    "no game is called '{}' here (games: {})",
                    crate::quote::shorten(g, 24),
                    names.join(", ")
                ),
            ));
            return Ok(());
        }
    };
    s.extra.push(match (kind, ratings) {
        (Some(k), true) => gm::ratings::report(&gm::ratings::standings(tx, k)?, k),
        _ => gm::stats::report(&gm::stats::games_on_record(tx, kind)?, kind),
    });
    Ok(())
}

/// `SALT text`: a salt for the game's dice, while the salts are open.
pub(super) fn cmd_salt(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    text: &str,
    salt: &str,
    current: Option<(i64, usize)>,
) -> anyhow::Result<()> {
    let Some((g, seat)) = load_seat(tx, current)? else {
        return Ok(());
    };
    let max = ctx.cfg.max_salts_per_game;
    // The reply lists the salts once, below; each line only counts them, so a mail of many
    // SALT lines does not repeat the list for each.
    s.lines
        .push(match gm::add_salt(tx, &g, seat, salt, max, ctx.now)? {
            Ok(n) => Line::ok(text, Some(format!("salt recorded ({n} of at most {max})"))),
            Err(why) => Line::no(text, why.to_string()),
        });
    Ok(())
}

/// `START`: the seat has no more salts to add.
pub(super) fn cmd_start(
    s: &mut Session,
    text: &str,
    current: Option<(i64, usize)>,
    gm: &mut Gm,
) -> anyhow::Result<()> {
    let Some((mut g, seat)) = load_seat(gm.tx, current)? else {
        return Ok(());
    };
    match gm::start(gm, &mut g, seat, true)? {
        Err(why) => s.lines.push(Line::no(text, why.to_string())),
        Ok(started) => {
            let note = if started.all_ready {
                "every player is ready"
            } else {
                "you are ready; the salts are fixed once every player is"
            };
            s.lines.push(Line::ok(text, Some(note.to_string())));
            let played = &started.played;
            if !played.plies.is_empty() || !played.reports.is_empty() {
                reply_played(s, &g, played, seat, 0);
            }
        }
    }
    Ok(())
}

/// `STATUS`: whose turn, the deadline, the players.
pub(super) fn cmd_status(
    tx: &Tx,
    s: &mut Session,
    current: Option<(i64, usize)>,
) -> anyhow::Result<()> {
    if let Some((g, seat)) = load_seat(tx, current)? {
        s.extra.push(gm::view::status(&g, Some(seat)).to_string());
    }
    Ok(())
}

/// `MOVES`: the seat's legal moves now.
pub(super) fn cmd_moves(
    tx: &Tx,
    s: &mut Session,
    current: Option<(i64, usize)>,
) -> anyhow::Result<()> {
    if let Some((g, seat)) = load_seat(tx, current)? {
        s.extra.push(gm::view::moves(&g, seat).to_string());
    }
    Ok(())
}

/// `RESIGN`: the seat gives up the game.
pub(super) fn cmd_resign(
    gm: &Gm,
    s: &mut Session,
    text: &str,
    current: Option<(i64, usize)>,
) -> anyhow::Result<()> {
    let Some((mut g, seat)) = load_seat(gm.tx, current)? else {
        return Ok(());
    };
    match gm::resign(gm, &mut g, seat)? {
        Err(why) => s.lines.push(Line::no(text, why.to_string())),
        Ok(played) => {
            // RESIGN needs no reading: what it did follows.
            s.lines.push(Line::ok(text, None));
            s.note_plies(&g, &played);
            s.ended |= played.finished;
        }
    }
    Ok(())
}

/// `DRAW OFFER` / `DRAW ACCEPT`: the game ends drawn once every seat has offered.
pub(super) fn cmd_draw_offer(
    gm: &Gm,
    s: &mut Session,
    text: &str,
    current: Option<(i64, usize)>,
) -> anyhow::Result<()> {
    let Some((mut g, seat)) = load_seat(gm.tx, current)? else {
        return Ok(());
    };
    match gm::offer_draw(gm, &mut g, seat)? {
        Err(why) => s.lines.push(Line::no(text, why.to_string())),
        Ok(gm::DrawOffer::Agreed(played)) => {
            let note = "draw agreed by all: the game is over";
            s.lines.push(Line::ok(text, Some(note.into())));
            s.note_plies(&g, &played);
            s.ended = true;
        }
        Ok(gm::DrawOffer::Waiting(_)) => {
            let note = "draw offered; the game ends drawn when every player accepts";
            s.lines.push(Line::ok(text, Some(note.into())));
        }
    }
    Ok(())
}

/// `DRAW DECLINE`: every offer is withdrawn.
pub(super) fn cmd_draw_decline(
    gm: &Gm,
    s: &mut Session,
    text: &str,
    current: Option<(i64, usize)>,
) -> anyhow::Result<()> {
    let Some((g, seat)) = load_seat(gm.tx, current)? else {
        return Ok(());
    };
    s.lines.push(Line::ok(
        text,
        Some("draw declined; all offers are withdrawn".into()),
    ));
    gm::decline_draw(gm, &g, seat)
}

/// `PRESS TO ...: text`: a message through the GM, to each seat at most once per mail.
pub(super) fn cmd_press(
    gm: &Gm,
    s: &mut Session,
    text: &str,
    to: &[String],
    body: &str,
    current: Option<(i64, usize)>,
) -> anyhow::Result<()> {
    let Some((g, seat)) = load_seat(gm.tx, current)? else {
        return Ok(());
    };
    let targets: Vec<usize> = match gm::press_targets(&g, seat, to) {
        Ok(t) => t.into_iter().filter(|x| !s.pressed.contains(x)).collect(),
        Err(why) => {
            s.lines.push(Line::no(text, why.to_string()));
            return Ok(());
        }
    };
    if targets.is_empty() {
        s.lines.push(Line::no(
            text,
            "you already sent press to them in this mail: one PRESS per player per mail",
        ));
        return Ok(());
    }
    s.pressed.extend(&targets);
    let to_all = to.iter().any(|t| t.eq_ignore_ascii_case("ALL"));
    gm::send_press(gm, &g, seat, &targets, to_all, body)?;
    let names: Vec<&str> = targets.iter().map(|x| g.game.seat_name(*x)).collect();
    s.lines.push(Line::ok(
        text,
        Some(format!("press sent to {}", names.join(", "))),
    ));
    Ok(())
}

/// `HELP`: the commands; `HELP <game>`: that game's player's guide; `HELP RULES`: the guide
/// to the game this mail is about (the commands, and why, when the mail names no game).
pub(super) fn cmd_help(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    text: &str,
    topic: &HelpTopic,
    current: Option<(i64, usize)>,
) -> anyhow::Result<()> {
    let kind = match topic {
        HelpTopic::Commands => None,
        HelpTopic::Game(name) => {
            let kind = GameKind::parse(name);
            if kind.is_none() {
                s.lines
                    .push(Line::no(text, "no such game; the list is below"));
            }
            kind
        }
        HelpTopic::Rules => {
            let row = match current {
                Some((id, _)) => tx.game(id)?,
                None => None,
            };
            let kind = row.and_then(|g| GameKind::parse(&g.kind));
            if kind.is_none() {
                s.lines.push(Line::no(
                    text,
                    "which game? reply to a mail of that game, or write HELP and the \
                     game's name (the games are listed below)",
                ));
            }
            kind
        }
    };
    s.help = Some(help_text(ctx, kind)?);
    Ok(())
}

pub(super) fn help_text(ctx: &Ctx, kind: Option<GameKind>) -> anyhow::Result<String> {
    let games: Vec<String> = GameKind::ALL
        .iter()
        .map(|k| {
            let (fewest, most) = k.facts().players;
            let players = if fewest == most {
                format!("{most} players")
            } else {
                format!("{fewest} to {most} players")
            };
            format!("  {:<10} {}, {players}", k.name(), k.title())
        })
        .collect();
    compose::render(
        ctx,
        &Help {
            games: games.join("\n"),
            game_help: kind.map(help::guide),
        },
    )
}
