//! `pbem game new|list|moves|play|start|replace|reveal|rotate-token|unquarantine|status|adjudicate`: a game's making and the GM's own plays, through the GM's operations.

use std::path::Path;

use anyhow::anyhow;

use super::record_desk::record_text;
use super::{
    desk, print_played, refuse, say, seat_of, seat_ops, seat_turns, send_now, show, Exit, GameCmd,
    NewArgs,
};
use crate::compose::Ctx;
use crate::config::Config;
use crate::games::{Actor, GameKind};
use crate::gm::{self, GameSpec, Secrets};
use crate::store::{GameStatus, Store};
use crate::template::Templates;
use crate::{edge, gamelog};

pub(super) fn run(db: &Path, cmd: GameCmd, cfg: Config) -> anyhow::Result<Exit> {
    let mut store = Store::open(db, false)?;
    if let Some(id) = cmd.game_id() {
        super::game_exists(&mut store, id)?;
    }
    let now = edge::now();
    let templates = Templates::load(cfg.templates_dir.as_deref())?;
    let mut ctx = Ctx::new(&cfg, &templates, now);
    ctx.cause = Some(cmd.cause());
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
        GameCmd::Eject {
            id,
            seat,
            robot: Some(level),
            ..
        } => desk::to_robot(&mut store, &ctx, id, &seat, &format!("robot:{level}")),
        GameCmd::Eject {
            id, seat, replace, ..
        } => desk::eject(&mut store, &ctx, id, &seat, replace.as_deref()),
        GameCmd::Message { id, text } => desk::message(&mut store, &ctx, id, &text),
        GameCmd::Resend { id, seat } => desk::resend(&mut store, &ctx, id, &seat),
    }
}

/// `game new`: creates the game (mailing each seat its welcome) and prints its id.
pub(super) fn game_new(store: &mut Store, ctx: &Ctx, args: &NewArgs) -> anyhow::Result<Exit> {
    let mut spec = spec_from_args(args)?;
    let kind = spec.kind.expect("set by spec_from_args");
    let plies = match &args.from_record {
        Some(file) => match super::collection::brought_in(file, &mut spec)? {
            Ok(plies) => plies,
            Err(why) => {
                say(&why);
                return Ok(1);
            }
        },
        None => Vec::new(),
    };
    check_spec(&spec)?;
    let seats = crate::games::AnyGame::new(kind, &spec.options)
        .map(|g| g.seat_names().len())
        .unwrap_or(8);
    let secrets = Secrets::generate(seats)?;
    if spec.move_secs.is_none() {
        spec.move_secs = ctx.cfg.move_secs;
    }
    if let Some(why) = gm::refused_player(&spec, ctx.cfg) {
        say(&format!("refused: {why}"));
        return Ok(1);
    }
    let id = store.tx(|tx| gm::create_game_from(&mut ctx.gm(tx), &spec, &secrets, &plies))?;
    println!("{id}");
    send_now(store, ctx.cfg);
    open_seats(store, ctx, id)?;
    Ok(0)
}

/// What `gm::create_game` would refuse in the GM's arguments (options, seats, addresses),
/// refused before it runs: a wrong argument exits 1 like every refusal, while an error
/// from `create_game` itself (the database) stays an error, 2.
fn check_spec(spec: &GameSpec) -> anyhow::Result<()> {
    let kind = spec.kind.expect("set by spec_from_args");
    gm::options::check(&spec.options).map_err(refuse)?;
    let game = match &spec.position {
        Some(p) => crate::games::AnyGame::from_position(kind, &spec.options, p),
        None => crate::games::AnyGame::new(kind, &spec.options),
    }
    .map_err(refuse)?;
    let mut seen = Vec::new();
    for (seat, email) in &spec.players {
        let s = game.seat_by_name(seat).ok_or_else(|| {
            let seats = game.seat_names().join(", ");
            refuse(format_args!(
                "{} has no seat '{seat}' (seats: {seats})",
                kind.title()
            ))
        })?;
        if seen.contains(&s) {
            return Err(refuse(format_args!(
                "seat {} is given twice",
                game.seat_name(s)
            )));
        }
        seen.push(s);
        if let Some(robot) = gm::robots::robot_named(email) {
            robot.map_err(refuse)?;
        } else if crate::mail::address(email).is_none() {
            return Err(refuse(format_args!("'{email}' is not a mail address")));
        }
    }
    Ok(())
}

/// A game made with seats left open says so (on standard error: standard output is the id
/// alone), and how they fill.
fn open_seats(store: &mut Store, ctx: &Ctx, id: i64) -> anyhow::Result<()> {
    let g = store.tx(|tx| gamelog::load(tx, id))?;
    let open: Vec<&str> = g
        .seats
        .iter()
        .filter(|s| s.is_open())
        .map(|s| g.game.seat_name(s.seat))
        .collect();
    let Some(first) = open.first() else {
        return Ok(());
    };
    say(&format!(
        "game {id} waits for players: {} still open. A player takes one by mailing \
         `JOIN {id} {first}` to {}, or you seat one with `pbem game join {id} ADDRESS --seat \
         {first}`; the game begins when every seat is taken.",
        match open.len() {
            1 => format!("seat {first} is"),
            _ => format!("seats {} are", open.join(", ")),
        },
        ctx.cfg.address
    ));
    Ok(())
}

/// `game list`: one line per game.
pub(super) fn game_list(store: &mut Store, status: Option<GameStatus>) -> anyhow::Result<Exit> {
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
                    match (&s.email, &s.robot) {
                        (Some(email), _) => email.clone(),
                        (None, Some(level)) => format!("robot:{level}"),
                        (None, None) => "(open)".into(),
                    }
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
pub(super) fn game_moves(store: &mut Store, id: i64) -> anyhow::Result<Exit> {
    let g = store.tx(|tx| gamelog::load(tx, id))?;
    for m in &g.moves {
        println!(
            "{:>4}  {:<7} {:<24} {}{}",
            m.ply,
            m.actor,
            m.text,
            m.at.format("%Y-%m-%d %H:%M:%S"),
            m.robot
                .as_deref()
                .map(|r| format!("  {{{r}}}"))
                .unwrap_or_default()
        );
    }
    if g.moves.is_empty() {
        println!("no moves yet");
    }
    Ok(0)
}

/// `game play`: a ply for a seat or the GM (exit 1 and the reason if illegal).
pub(super) fn game_play(
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
                let turn = seat_turns::turn(ctx, seat, &lines, gm::Intent::Move);
                let sub = gm::submit(&mut ctx.gm(tx), &mut g, &turn)?;
                match (sub.played, sub.lines.into_iter().next()) {
                    (Some(played), _) => Ok(played),
                    (None, Some(gm::LineOutcome::Refused(why))) => Err(why.reason()),
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
pub(super) fn is_draw(g: &gamelog::Loaded, ply: &str) -> bool {
    let by_name = |n: &str| g.game.seat_by_name(n);
    matches!(
        crate::games::standing::read(Actor::Gm, ply, by_name),
        Some(Ok(crate::games::standing::Shared::Draw))
    )
}

/// `game start`: the salts are fixed now, and the roll that waited is made.
pub(super) fn game_start(store: &mut Store, ctx: &Ctx, id: i64) -> anyhow::Result<Exit> {
    let (played, g) = store.tx(|tx| {
        let mut g = gamelog::load(tx, id)?;
        // What start_now would refuse is the game's state, not an error: exit 1.
        if g.row.status != GameStatus::Active {
            return Err(refuse(format_args!(
                "game {id} is {}: nothing to start",
                g.row.status
            )));
        }
        if g.row.salts_fixed {
            return Err(refuse(format_args!(
                "game {id}: the salts are already fixed"
            )));
        }
        let played = gm::start_now(&mut ctx.gm(tx), &mut g)?;
        tx.log_event(Some(id), ctx.now, "salts fixed by the GM")?;
        Ok((played, g))
    })?;
    send_now(store, ctx.cfg);
    print_played(&g, &played);
    Ok(0)
}

/// `game replace`: a seat is given to another address, which gets a welcome.
pub(super) fn game_replace(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    seat: &str,
    email: &str,
) -> anyhow::Result<Exit> {
    if gm::robots::robot_named(email).is_some() {
        return super::desk::to_robot(store, ctx, id, seat, email);
    }
    let email = crate::mail::address(email)
        .ok_or_else(|| refuse(format_args!("'{email}' is not a mail address")))?;
    let email = email.as_str();
    if let Some(why) = gm::refused_address(email, &format!("seat {seat}"), ctx.cfg) {
        say(&format!("refused: {why}"));
        return Ok(1);
    }
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
pub(super) fn game_reveal(store: &mut Store, ctx: &Ctx, id: i64) -> anyhow::Result<Exit> {
    let seed = store.tx(|tx| {
        let mut g = gamelog::load(tx, id)?;
        gm::life::reveal(&ctx.gm(tx), &mut g)
    })?;
    let seed = match seed {
        Ok(seed) => seed,
        Err(why) => return Err(refuse(why)),
    };
    send_now(store, ctx.cfg);
    println!("game {id}: dice seed {seed} (in the record from now on; `pbem verify` checks it)");
    Ok(0)
}

/// `game rotate-token`: a seat gets a new secret reply address.
pub(super) fn game_rotate_token(
    store: &mut Store,
    ctx: &Ctx,
    id: i64,
    seat: &str,
) -> anyhow::Result<Exit> {
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

/// `pbem game unquarantine`: the GM fixed what made the game's timer fail; its timers run
/// again from the next pass.
pub(super) fn unquarantine(
    store: &mut Store,
    id: i64,
    now: chrono::DateTime<chrono::Utc>,
) -> anyhow::Result<Exit> {
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
pub(super) fn spec_from_args(args: &NewArgs) -> anyhow::Result<GameSpec> {
    let kind = GameKind::parse(&args.kind).ok_or_else(|| {
        let names: Vec<&str> = GameKind::ALL.iter().map(|k| k.name()).collect();
        refuse(format_args!(
            "unknown game '{}' (games: {})",
            args.kind,
            names.join(", ")
        ))
    })?;
    let mut options = crate::games::Options::new();
    for o in &args.options {
        let (k, v) = o
            .split_once('=')
            .ok_or_else(|| refuse(format_args!("--option {o}: write NAME=VALUE")))?;
        options.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
    }
    let players = args
        .players
        .iter()
        .map(|p| {
            p.split_once('=')
                .map(|(s, e)| (s.trim().to_string(), e.trim().to_string()))
                .ok_or_else(|| refuse(format_args!("--player {p}: write SEAT=ADDRESS")))
        })
        .collect::<anyhow::Result<_>>()?;
    let move_secs = args
        .move_time
        .as_deref()
        .map(|t| {
            crate::duration::parse(t, crate::duration::Range::MOVE_TIME)
                .map_err(|e| refuse(format_args!("--move-time {t}: {e}")))
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

/// `adjudicate diptactoe FILE`: a what-if adjudication of one turn.
pub(super) fn adjudicate(game: &str, file: &Path, json: bool) -> anyhow::Result<Exit> {
    if GameKind::parse(game) != Some(GameKind::DipTacToe) {
        return Err(refuse(
            "adjudicate knows diptactoe only (the game with simultaneous orders)",
        ));
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
