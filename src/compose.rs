//! Builds outgoing mails about games (subjects, threading, each seat's secret Reply-To, bodies) and queues them finished.

mod gather;
pub use gather::HeldNews;
pub mod html;
pub mod illustrate;
pub mod letters;
mod news;
pub mod outgoing;

pub use letters::{
    AuthRefusal, Confirm, DiceRevealed, Digest, DigestGame, GameOver, GameVars, GmNotice, Held,
    Help, Letter, LineStatus, LineVars, PlayerVars, PlyVars, Press, Reminder, Reply, SeatMail,
    TurnReport, Welcome,
};

pub use outgoing::{enqueue, is_msg_id, resent, Limit};

use std::cell::{Cell, RefCell};

use chrono::{DateTime, Duration, Utc};

use crate::config::Config;
use crate::gamelog::Loaded;
use crate::store::{HtmlPart, OutboxRow, Tx};
use crate::template::Templates;

/// What composing needs besides the store: the config, the templates and the time, and the
/// budget of mails the inbound mail being processed may still queue.
pub struct Ctx<'a> {
    pub cfg: &'a Config,
    pub templates: &'a Templates,
    pub now: DateTime<Utc>,
    pub budget: MailBudget,
    /// The news held back while an action runs (`Ctx::gathering`): one mail per seat.
    gathered: RefCell<Option<gather::Gathered>>,
    /// What the mails queued with this context are written for, as the GM reads it in
    /// `outbox list` and serve's log (`pbem game pause 3`); `None`: their kind says enough.
    pub cause: Option<String>,
}

impl<'a> Ctx<'a> {
    pub fn new(cfg: &'a Config, templates: &'a Templates, now: DateTime<Utc>) -> Ctx<'a> {
        Ctx {
            cfg,
            templates,
            now,
            budget: MailBudget::default(),
            gathered: RefCell::new(None),
            cause: None,
        }
    }
}

/// How many more mails may be queued while one inbound mail is processed (none: no bound, as
/// for the timers). One mail can cause at most `limits.max_mails_per_message` mails, whatever
/// it says; the reply to its sender is always among them.
#[derive(Debug, Default)]
pub struct MailBudget {
    left: Cell<Option<usize>>,
    refused: Cell<usize>,
}

impl MailBudget {
    /// Starts counting for one inbound mail: `limit` mails in all, one kept for the reply.
    pub fn start(&self, limit: usize) {
        self.left.set(Some(limit.saturating_sub(1)));
        self.refused.set(0);
    }

    /// The reply to the sender: it may use the mail kept for it.
    pub fn release_for_reply(&self) {
        if let Some(n) = self.left.get() {
            self.left.set(Some(n + 1));
        }
    }

    /// Stops counting (the mail is done).
    pub fn stop(&self) {
        self.left.set(None);
    }

    /// Takes one mail from the budget; false when it is spent.
    fn take(&self) -> bool {
        match self.left.get() {
            None => true,
            Some(0) => {
                self.refused.set(self.refused.get() + 1);
                false
            }
            Some(n) => {
                self.left.set(Some(n - 1));
                true
            }
        }
    }

    /// Mails not queued because the budget was spent.
    pub fn refused(&self) -> usize {
        self.refused.get()
    }
}

/// The subject every mail of a game carries, so mail clients keep the game in one thread.
pub fn game_subject(g: &Loaded) -> String {
    format!("[pbem #{}] {}", g.row.id, g.kind().title())
}

/// The id of a game's thread root: every mail of the game references it.
pub fn thread_root(cfg: &Config, game: i64) -> String {
    format!("<pbem.game{game}@{}>", cfg.address_parts().1)
}

/// A mail about a game to one seat: its subject, thread and secret Reply-To.
pub fn to_seat(
    tx: &Tx,
    ctx: &Ctx,
    g: &Loaded,
    seat: usize,
    letter: &impl Letter,
    in_reply_to: Option<String>,
) -> anyhow::Result<()> {
    let kind = letter.kind();
    let Some(row) = g.seat(seat) else {
        return Ok(());
    };
    let Some(email) = row.email.clone() else {
        return Ok(());
    };
    if letter.may_wait() && row.digest && !urgent(g, ctx) {
        if let Some(player) = row.player_id {
            // The news waits for the player's daily digest (which shows the game as it then
            // stands and the plies played since).
            return tx.wait_for_digest(player, ctx.now);
        }
    }
    let board = letters::board_for(g, letter);
    let vars = SeatMail {
        game: GameVars::of(g),
        seat: g.game.seat_name(seat),
        headline: letter
            .headline()
            .unwrap_or_else(|| letters::headline(g, seat)),
        board: &board,
        letter,
    };
    let mut keep = letter.verbatim();
    keep.push(vars.board);
    let body = crate::template::wrap(&ctx.templates.render(letter.template(), &vars)?, &keep);
    let subject = match (&in_reply_to, kind) {
        (Some(_), _) => format!("Re: {}", game_subject(g)),
        (None, "reminder") => format!("{}: reminder", game_subject(g)),
        (None, "game_over") => format!("{}: game over", game_subject(g)),
        (None, _) => game_subject(g),
    };
    // A mail in answer to the seat's own (`in_reply_to`) is one they wait for.
    let limit = match letter.awaited() || in_reply_to.is_some() {
        true => Limit::Exempt,
        false => Limit::Applies,
    };
    enqueue(
        tx,
        ctx,
        OutboxRow {
            kind: kind.into(),
            game_id: Some(g.row.id),
            to_addr: email,
            reply_to: row.token.as_deref().map(|t| ctx.cfg.seat_address(t)),
            subject,
            body,
            in_reply_to,
            refs: Some(thread_root(ctx.cfg, g.row.id)),
            html: HtmlPart::Board {
                game: g.row.id,
                plies: g.moves.len(),
            },
            ..Default::default()
        },
        limit,
    )
}

/// A deadline within the day: news of the game goes at once, digest or not.
fn urgent(g: &Loaded, ctx: &Ctx) -> bool {
    g.row
        .deadline
        .is_some_and(|d| d - ctx.now <= Duration::days(1))
}

/// A player's daily digest: every game where it is their turn, in one mail.
pub fn digest(tx: &Tx, ctx: &Ctx, to: &str, games: Vec<DigestGame>) -> anyhow::Result<()> {
    let subject = match games.len() {
        0 => "[pbem] your daily digest: nothing to do".to_string(),
        1 => format!(
            "[pbem] your daily digest: your turn in game #{}",
            games[0].id
        ),
        n => format!("[pbem] your daily digest: your turn in {n} games"),
    };
    // One game: replying to the digest plays in it, from the seat's secret address.
    let (reply_to, refs) = match games.as_slice() {
        [one] => (
            Some(one.reply_to.clone()),
            Some(thread_root(ctx.cfg, one.id)),
        ),
        _ => (None, None),
    };
    let body = render(ctx, &Digest { games })?;
    outgoing::queue(
        tx,
        ctx,
        OutboxRow {
            kind: "digest".into(),
            to_addr: to.to_string(),
            reply_to,
            subject,
            body,
            refs,
            html: HtmlPart::Words,
            ..Default::default()
        },
        None,
    )
}

/// A notice to the GM (timeouts, refusals worth a look, players to replace): always in the
/// event log (`pbem inbox`, the daemon's log), and mailed to `admin_address` when there is one.
/// Never to pbem's own address: such a mail would come back in and be refused as a loop.
pub fn to_gm(tx: &Tx, ctx: &Ctx, g: Option<&Loaded>, text: &str) -> anyhow::Result<()> {
    tx.log_event(g.map(|g| g.row.id), ctx.now, text)?;
    tracing::warn!(game = g.map(|g| g.row.id), "GM notice: {text}");
    let Some(admin) = ctx
        .cfg
        .admin_address
        .clone()
        .filter(|a| !ctx.cfg.is_ours(a))
    else {
        return Ok(());
    };
    let body = render(
        ctx,
        &GmNotice {
            game: g.map(GameVars::of),
            text,
        },
    )?;
    // GM notices do not count against the inbound mail that caused them.
    outgoing::queue(
        tx,
        ctx,
        OutboxRow {
            kind: "gm_notice".into(),
            game_id: g.map(|g| g.row.id),
            to_addr: admin,
            subject: match g {
                Some(g) => format!("{}: GM notice", game_subject(g)),
                None => "[pbem] GM notice".into(),
            },
            body,
            refs: g.map(|g| thread_root(ctx.cfg, g.row.id)),
            html: HtmlPart::None,
            ..Default::default()
        },
        None,
    )
}

/// A line of news to each of these seats, in the game's thread (a draw offered or declined).
fn tell_seats(
    tx: &Tx,
    ctx: &Ctx,
    g: &Loaded,
    seats: impl IntoIterator<Item = usize>,
    news: &str,
) -> anyhow::Result<()> {
    for seat in seats {
        to_seat(
            tx,
            ctx,
            g,
            seat,
            &TurnReport {
                plies: vec![],
                reports: vec![news.to_string()],
                your_turn: false,
                orders: false,
                headline: None,
                urgent: false,
            },
            None,
        )?;
    }
    Ok(())
}

/// The other players hear of a draw offer (the seats that have not offered yet) or of a
/// decline (every other seat), in one wording for the mail path and the command line.
fn draw_news(
    tx: &Tx,
    ctx: &Ctx,
    g: &Loaded,
    seat: usize,
    offer: Option<&[usize]>,
) -> anyhow::Result<()> {
    let (seats, line) = draw_line(g, seat, offer);
    tell_seats(tx, ctx, g, seats, &line)
}

/// Who hears of a draw offer or decline, and the line they read.
fn draw_line(g: &Loaded, seat: usize, offer: Option<&[usize]>) -> (Vec<usize>, String) {
    let name = g.game.seat_name(seat);
    match offer {
        Some(waiting) => (
            waiting.to_vec(),
            format!("{name} offers a draw: reply DRAW ACCEPT or DRAW DECLINE."),
        ),
        None => (
            g.seats
                .iter()
                .map(|x| x.seat)
                .filter(|x| *x != seat)
                .collect(),
            format!("{name} declines the draw."),
        ),
    }
}

/// A press message from `seat` to each of `targets`, named or anonymous as the game's
/// `press` option says; its sender's name and address too unless either is anonymous.
fn press(
    tx: &Tx,
    ctx: &Ctx,
    g: &Loaded,
    seat: usize,
    targets: &[usize],
    to_all: bool,
    body: &str,
) -> anyhow::Result<()> {
    let names = g.game.seat_names();
    let anonymous = g.game.press() == Some(crate::games::Press::Anonymous);
    let to_text: Vec<&str> = targets.iter().map(|x| names[*x]).collect();
    // One player's words on another's screen: no bidi override may reorder them, no control
    // character act on a terminal or mail client (crate::invisible).
    let body = crate::invisible::visible(body);
    let body = body.as_str();
    for x in targets {
        to_seat(
            tx,
            ctx,
            g,
            *x,
            &Press {
                from: if anonymous { None } else { Some(names[seat]) },
                from_who: match (anonymous, crate::gm::names::in_mail(g)) {
                    (true, _) | (_, crate::gm::names::Reveal::Seats) => None,
                    (false, reveal) => g
                        .seat(seat)
                        .and_then(|s| crate::gm::names::seat_holder(s, reveal)),
                },
                to: if to_all {
                    "all".to_string()
                } else {
                    to_text.join(", ")
                },
                text: body,
                // The others who read press: a robot seat reads none.
                others: names
                    .iter()
                    .enumerate()
                    .filter(|(s, _)| s != x && *s != seat)
                    .filter(|(s, _)| g.seat(*s).is_none_or(|r| r.robot.is_none()))
                    .map(|(_, n)| *n)
                    .collect::<Vec<_>>()
                    .join(", "),
            },
            None,
        )?;
    }
    Ok(())
}

/// After plies were played: every other seat gets a turn report; when the game ended, every
/// seat gets the game-over mail with the record (and the revealed dice seed). `news_for` gives
/// a seat's other news of the same action (a draw offer), told first in its report.
fn announce(
    tx: &Tx,
    ctx: &Ctx,
    g: &Loaded,
    played: &crate::gm::Played,
    except: Option<usize>,
    news_for: &mut dyn FnMut(usize) -> Vec<String>,
) -> anyhow::Result<()> {
    let plies = PlyVars::list(g, &played.plies);
    // The seat's news, the reports every seat reads, then what only this seat may (its own
    // plan's fate).
    let mut reports_for = |seat: usize| -> (Vec<String>, bool) {
        let private = played.private.iter().filter(|(s, _)| *s == seat);
        let news = news_for(seat);
        let urgent = !news.is_empty();
        let reports = news
            .into_iter()
            .chain(played.reports.iter().cloned())
            .chain(private.map(|(_, t)| t.clone()))
            .collect();
        (reports, urgent)
    };
    if played.finished {
        let record = crate::gm::export_as(g, crate::gm::names::in_mail(g))?;
        // A game without a result (cancelled) rates nobody, yet moves the kept ratings on
        // to count it: skipped, the next game's end would rebuild them from every game.
        let ratings = crate::gm::ratings::change_at_end(tx, g)?;
        for s in &g.seats {
            let rating = s
                .email
                .as_ref()
                .and_then(|e| ratings.get(&e.to_ascii_lowercase()))
                .map(|(before, after)| crate::gm::ratings::change_line(g.kind(), *before, *after));
            let over = GameOver {
                plies: plies.clone(),
                reports: reports_for(s.seat).0,
                record: record.clone(),
                rating,
            };
            to_seat(tx, ctx, g, s.seat, &over, None)?;
        }
        return Ok(());
    }
    let to_act = g.game.to_act();
    // A paused game waits for nobody.
    let live = g.row.status == crate::store::GameStatus::Active;
    for s in &g.seats {
        if Some(s.seat) == except {
            continue;
        }
        let (your_turn, orders) = match &to_act {
            crate::games::ToAct::Seat(x) => (*x == s.seat, false),
            crate::games::ToAct::Orders(xs) => (xs.contains(&s.seat), true),
            _ => (false, false),
        };
        let (reports, urgent) = reports_for(s.seat);
        let report = TurnReport {
            plies: plies.clone(),
            reports,
            your_turn: live && your_turn,
            orders,
            headline: None,
            urgent,
        };
        to_seat(tx, ctx, g, s.seat, &report, None)?;
    }
    Ok(())
}

/// The welcome mail to every seat: rules summary, players, board, the seat's Reply-To.
fn welcome_all(tx: &Tx, ctx: &Ctx, g: &Loaded) -> anyhow::Result<()> {
    welcome(tx, ctx, g, g.seats.iter().map(|s| s.seat))
}

/// The welcome mail to these seats (a whole game's, or a player who takes over a seat); each
/// reader sees the players as the game allows (`names::in_mail`: in an anonymous game, the
/// other seats without a name or address).
fn welcome(
    tx: &Tx,
    ctx: &Ctx,
    g: &Loaded,
    seats: impl IntoIterator<Item = usize>,
) -> anyhow::Result<()> {
    let reveal = crate::gm::names::in_mail(g);
    let rules = crate::help::summary(g.kind()).to_string();
    let settings = letters::settings(ctx.cfg, g);
    for reader in seats {
        let welcome = Welcome {
            players: g
                .seats
                .iter()
                .map(|s| PlayerVars {
                    seat: g.game.seat_name(s.seat),
                    who: match (reveal, s.seat == reader) {
                        (crate::gm::names::Reveal::Seats, true) => Some("you".into()),
                        _ => crate::gm::names::seat_holder(s, reveal),
                    },
                })
                .collect(),
            rules: rules.clone(),
            settings: settings.clone(),
        };
        to_seat(tx, ctx, g, reader, &welcome, None)?;
    }
    Ok(())
}

/// A letter's body from its template (mails that are not about one seat's game), its long
/// lines refilled (`template::wrap`).
pub fn render(ctx: &Ctx, letter: &impl Letter) -> anyhow::Result<String> {
    let body = ctx.templates.render(letter.template(), letter)?;
    Ok(crate::template::wrap(&body, &letter.verbatim()))
}
