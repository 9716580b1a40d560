//! Builds outgoing mails about games (subjects, threading, each seat's secret Reply-To, bodies) and queues them finished.

pub mod html;
pub mod illustrate;
pub mod letters;
mod news;

pub use letters::{
    AuthRefusal, Confirm, DiceRevealed, Digest, DigestGame, GameOver, GameVars, GmNotice, Held,
    Help, Letter, LineStatus, LineVars, PlayerVars, PlyVars, Press, Reminder, Reply, SeatMail,
    TurnReport, Welcome,
};

use std::cell::Cell;

use chrono::{DateTime, Duration, Utc};

use crate::config::Config;
use crate::gamelog::Loaded;
use crate::mail::outbound::{self, BuildError, Html, OutMail};
use crate::store::{OutboxRow, OutboxStatus, Tx};
use crate::template::Templates;

/// What composing needs besides the store: the config, the templates and the time, and the
/// budget of mails the inbound mail being processed may still queue.
pub struct Ctx<'a> {
    pub cfg: &'a Config,
    pub templates: &'a Templates,
    pub now: DateTime<Utc>,
    pub budget: MailBudget,
}

impl<'a> Ctx<'a> {
    pub fn new(cfg: &'a Config, templates: &'a Templates, now: DateTime<Utc>) -> Ctx<'a> {
        Ctx {
            cfg,
            templates,
            now,
            budget: MailBudget::default(),
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

/// A mail ready for the outbox: its text, and optionally an HTML alternative with inline
/// pictures (queued as `multipart/alternative`; without one, a plain text mail).
pub struct Draft {
    pub kind: &'static str,
    pub game: Option<i64>,
    pub to: String,
    pub reply_to: Option<String>,
    pub subject: String,
    pub body: String,
    pub in_reply_to: Option<String>,
    pub refs: Vec<String>,
    /// Dropped when it and its pictures exceed `max_reply_bytes` (the text says it all).
    pub html: Option<Html>,
    /// An HTML part to make after the commit (`compose::illustrate`): the position whose
    /// board it shows as a picture (`{"game": 3, "plies": 12}`), or `{}` for none.
    pub picture: Option<illustrate::Wanted>,
}

/// Queues a draft in this transaction (it is sent only after commit). Nothing is dropped for
/// the rate limit: a recipient who was already sent `replies_per_hour` mails in the last hour
/// gets this one an hour later, and is told so once. Past the inbound mail's budget of mails,
/// the draft is not queued at all (and the GM's log says so).
pub fn enqueue(tx: &Tx, ctx: &Ctx, d: Draft) -> anyhow::Result<()> {
    if !ctx.budget.take() {
        tx.log_event(
            d.game,
            ctx.now,
            &format!(
                "a {} mail to {} was not queued: one inbound mail may cause at most {} mails",
                d.kind, d.to, ctx.cfg.max_mails_per_message
            ),
        )?;
        return Ok(());
    }
    let due = hold_until(tx, ctx, &d.to)?;
    queue(tx, ctx, d, due)
}

/// When the rate limit holds mail to `to`: `None` (send now) or an hour from now; the first
/// time in an hour, the recipient is told why their mail comes late.
fn hold_until(tx: &Tx, ctx: &Ctx, to: &str) -> anyhow::Result<Option<DateTime<Utc>>> {
    let hour_ago = ctx.now - Duration::hours(1);
    if tx.replies_since(to, hour_ago)? < ctx.cfg.replies_per_hour {
        return Ok(None);
    }
    let until = ctx.now + Duration::hours(1);
    if tx.throttle_count(to, "held_notice", hour_ago)? == 0 {
        tx.note_throttle(to, "held_notice", ctx.now)?;
        tx.log_event(None, ctx.now, &format!("rate limit: mail to {to} is held"))?;
        let body = render(
            ctx,
            &Held {
                limit: ctx.cfg.replies_per_hour,
                until: crate::template::date(until),
            },
        )?;
        let notice = Draft {
            kind: "held",
            game: None,
            to: to.to_string(),
            reply_to: None,
            subject: "[pbem] your mail is delayed".into(),
            body,
            in_reply_to: None,
            refs: vec![],
            html: None,
            picture: illustrate::wanted(None),
        };
        queue(tx, ctx, notice, None)?;
    }
    Ok(Some(until))
}

/// Writes a draft into the outbox, due at `due` (or at once), as the finished message the
/// sender will send. A draft that cannot be built (a bad address or header) is stored as
/// failed with the reason, and the GM's log says so: it must not fail the inbound mail.
fn queue(tx: &Tx, ctx: &Ctx, d: Draft, due: Option<DateTime<Utc>>) -> anyhow::Result<()> {
    let seq = tx.next_outbox_id()?;
    let message_id = format!(
        "<pbem.{seq}.{}@{}>",
        ctx.now.timestamp_millis(),
        ctx.cfg.address_parts().1
    );
    // Only well-formed ids go into In-Reply-To and References: a sender's malformed
    // Message-ID must not make our reply unsendable.
    let in_reply_to = d.in_reply_to.filter(|m| is_msg_id(m));
    let mut refs: Vec<String> = d.refs.into_iter().filter(|m| is_msg_id(m)).collect();
    if let Some(irt) = &in_reply_to {
        if !refs.contains(irt) {
            refs.push(irt.clone());
        }
    }
    let body = within(d.body, ctx.cfg.max_reply_bytes);
    let mut row = OutboxRow {
        message_id,
        kind: d.kind.to_string(),
        game_id: d.game,
        from_addr: format!("{} <{}>", ctx.cfg.name, ctx.cfg.address),
        to_addr: d.to,
        reply_to: d.reply_to,
        subject: d.subject,
        body,
        in_reply_to,
        refs: (!refs.is_empty()).then(|| refs.join(" ")),
        next_try_at: due,
        // Stored as the `picture` column's JSON (`{"game": 3, "plies": 12}`).
        picture: d.picture.and_then(|w| serde_json::to_string(&w).ok()),
        ..Default::default()
    };
    let html = html_within(tx, ctx, &row, d.html)?;
    match finished(&row, ctx.now, html) {
        Ok(raw) => row.raw = Some(raw),
        Err(e) => {
            let why = format!("cannot build the mail: {e}");
            tracing::error!(to = %row.to_addr, kind = %row.kind, "{why}");
            tx.log_event(
                row.game_id,
                ctx.now,
                &format!("a {} mail to {} was not sent: {why}", row.kind, row.to_addr),
            )?;
            row.status = OutboxStatus::Failed;
            row.last_error = Some(why);
        }
    }
    tx.enqueue(&row, ctx.now)?;
    Ok(())
}

/// The draft's HTML part when it fits in `max_reply_bytes` with its pictures; else none
/// (logged), as the text carries the whole mail.
fn html_within(
    tx: &Tx,
    ctx: &Ctx,
    row: &OutboxRow,
    html: Option<Html>,
) -> anyhow::Result<Option<Html>> {
    let Some(html) = html else { return Ok(None) };
    if html.len() <= ctx.cfg.max_reply_bytes {
        return Ok(Some(html));
    }
    tx.log_event(
        row.game_id,
        ctx.now,
        &format!(
            "a {} mail to {} goes as text only: its HTML part has {} bytes",
            row.kind,
            row.to_addr,
            html.len()
        ),
    )?;
    Ok(None)
}

/// An earlier mail again, as the GM resends it (`pbem game resend`): its words and thread,
/// a new Message-ID.
pub fn resent(row: &OutboxRow) -> Draft {
    Draft {
        kind: "resent",
        game: row.game_id,
        to: row.to_addr.clone(),
        reply_to: row.reply_to.clone(),
        subject: row.subject.clone(),
        body: row.body.clone(),
        in_reply_to: None,
        refs: row
            .refs
            .as_deref()
            .unwrap_or_default()
            .split_whitespace()
            .map(str::to_string)
            .collect(),
        html: None,
        picture: illustrate::wanted(None),
    }
}

/// The mail an outbox row describes, without its date and HTML (see `finished`).
pub fn out_mail(row: &OutboxRow) -> OutMail {
    OutMail {
        from: row.from_addr.clone(),
        to: vec![row.to_addr.clone()],
        reply_to: row.reply_to.clone(),
        subject: row.subject.clone(),
        body: row.body.clone(),
        message_id: row.message_id.clone(),
        in_reply_to: row.in_reply_to.clone(),
        references: row
            .refs
            .as_deref()
            .map(|r| r.split_whitespace().map(str::to_string).collect())
            .unwrap_or_default(),
        auto_submitted: Some("auto-replied".into()),
        extra_headers: row
            .game_id
            .map(|g| vec![("X-Pbem-Game".to_string(), g.to_string())])
            .unwrap_or_default(),
        date: None,
        html: None,
    }
}

/// The finished message of an outbox row (RFC 5322 bytes), dated `date`.
pub fn finished(
    row: &OutboxRow,
    date: DateTime<Utc>,
    html: Option<Html>,
) -> Result<Vec<u8>, BuildError> {
    let mail = OutMail {
        date: Some(date),
        html,
        ..out_mail(row)
    };
    Ok(outbound::build(&mail)?.formatted())
}

/// A mail body cut to at most `max` bytes at a line's end, the rest summarised in one line.
pub fn within(body: String, max: usize) -> String {
    if body.len() <= max {
        return body;
    }
    let mut cut = max.saturating_sub(100);
    while !body.is_char_boundary(cut) {
        cut -= 1;
    }
    let cut = body[..cut].rfind('\n').map_or(cut, |i| i + 1);
    let rest = body[cut..].lines().count();
    format!(
        "{}\n[{rest} more lines not shown: this mail would have been too long]\n",
        &body[..cut]
    )
}

/// `<left@right>` in the printable ASCII a header allows, without spaces, of a sane length.
pub fn is_msg_id(id: &str) -> bool {
    let Some(inner) = id.strip_prefix('<').and_then(|i| i.strip_suffix('>')) else {
        return false;
    };
    id.len() <= 250
        && inner.contains('@')
        && inner
            .bytes()
            .all(|b| b.is_ascii_graphic() && !matches!(b, b'<' | b'>' | b'"' | b'\\'))
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
    let vars = SeatMail {
        game: GameVars::of(g),
        seat: g.game.seat_name(seat),
        headline: letters::headline(g, seat),
        board: g.board(),
        letter,
    };
    let mut keep = letter.verbatim();
    keep.push(vars.board);
    let body = crate::template::wrap(&ctx.templates.render(kind, &vars)?, &keep);
    let subject = match (&in_reply_to, kind) {
        (Some(_), _) => format!("Re: {}", game_subject(g)),
        (None, "reminder") => format!("{}: reminder", game_subject(g)),
        (None, "game_over") => format!("{}: game over", game_subject(g)),
        (None, _) => game_subject(g),
    };
    enqueue(
        tx,
        ctx,
        Draft {
            kind,
            game: Some(g.row.id),
            to: email,
            reply_to: row.token.as_deref().map(|t| ctx.cfg.seat_address(t)),
            subject,
            body,
            in_reply_to,
            refs: vec![thread_root(ctx.cfg, g.row.id)],
            html: None,
            picture: illustrate::wanted(Some(g)),
        },
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
            vec![thread_root(ctx.cfg, one.id)],
        ),
        _ => (None, vec![]),
    };
    let body = render(ctx, &Digest { games })?;
    queue(
        tx,
        ctx,
        Draft {
            kind: "digest",
            game: None,
            to: to.to_string(),
            reply_to,
            subject,
            body,
            in_reply_to: None,
            refs,
            html: None,
            picture: illustrate::wanted(None),
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
    queue(
        tx,
        ctx,
        Draft {
            kind: "gm_notice",
            game: g.map(|g| g.row.id),
            to: admin,
            reply_to: None,
            subject: match g {
                Some(g) => format!("{}: GM notice", game_subject(g)),
                None => "[pbem] GM notice".into(),
            },
            body,
            in_reply_to: None,
            refs: g
                .map(|g| vec![thread_root(ctx.cfg, g.row.id)])
                .unwrap_or_default(),
            html: None,
            picture: None,
        },
        None,
    )
}

/// A line of news to each of these seats, in the game's thread (a draw offered or declined).
pub fn tell_seats(
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
            },
            None,
        )?;
    }
    Ok(())
}

/// The other players hear of a draw offer (the seats that have not offered yet) or of a
/// decline (every other seat), in one wording for the mail path and the command line.
pub fn draw_news(
    tx: &Tx,
    ctx: &Ctx,
    g: &Loaded,
    seat: usize,
    offer: Option<&[usize]>,
) -> anyhow::Result<()> {
    let name = g.game.seat_name(seat);
    match offer {
        Some(waiting) => {
            let news = format!("{name} offers a draw: reply DRAW ACCEPT or DRAW DECLINE.");
            tell_seats(tx, ctx, g, waiting.iter().copied(), &news)
        }
        None => {
            let others = g.seats.iter().map(|x| x.seat).filter(|x| *x != seat);
            tell_seats(tx, ctx, g, others, &format!("{name} declines the draw."))
        }
    }
}

/// A press message from `seat` to each of `targets`, named or anonymous as the game's
/// `press` option says.
pub fn press(
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
                to: if to_all {
                    "all".to_string()
                } else {
                    to_text.join(", ")
                },
                text: body,
            },
            None,
        )?;
    }
    Ok(())
}

/// After plies were played: every other seat gets a turn report; when the game ended, every
/// seat gets the game-over mail with the record (and the revealed dice seed).
pub fn announce(
    tx: &Tx,
    ctx: &Ctx,
    g: &Loaded,
    played: &crate::gm::Played,
    except: Option<usize>,
) -> anyhow::Result<()> {
    let plies = PlyVars::list(g, &played.plies);
    if played.finished {
        let over = GameOver {
            plies,
            reports: played.reports.clone(),
            record: crate::gm::export(g)?,
        };
        for s in &g.seats {
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
        let report = TurnReport {
            plies: plies.clone(),
            reports: played.reports.clone(),
            your_turn: live && your_turn,
            orders,
        };
        to_seat(tx, ctx, g, s.seat, &report, None)?;
    }
    Ok(())
}

/// The welcome mail to every seat: rules summary, players, board, the seat's Reply-To.
pub fn welcome_all(tx: &Tx, ctx: &Ctx, g: &Loaded) -> anyhow::Result<()> {
    welcome(tx, ctx, g, g.seats.iter().map(|s| s.seat))
}

/// The welcome mail to these seats (a whole game's, or a player who takes over a seat).
pub fn welcome(
    tx: &Tx,
    ctx: &Ctx,
    g: &Loaded,
    seats: impl IntoIterator<Item = usize>,
) -> anyhow::Result<()> {
    let welcome = Welcome {
        players: g
            .seats
            .iter()
            .map(|s| PlayerVars {
                seat: g.game.seat_name(s.seat),
                email: s.email.clone(),
            })
            .collect(),
        rules: crate::help::summary(g.kind()).to_string(),
        settings: settings(g),
    };
    for s in seats {
        to_seat(tx, ctx, g, s, &welcome, None)?;
    }
    Ok(())
}

/// The game's settings in words: the move time, then each of the game's own options and the
/// clock's, with what its value means (from the option's help, `value: meaning; ...`).
pub fn settings(g: &Loaded) -> Vec<String> {
    let given = crate::gamelog::options_of(&g.row).unwrap_or_default();
    let mut out = vec![match g.row.move_secs {
        Some(s) => format!("time per move: {}", crate::duration::format_secs(s)),
        None => "time per move: no limit".into(),
    }];
    let common = crate::games::COMMON_OPTIONS
        .iter()
        .filter(|o| matches!(o.name, "timeout" | "grace"));
    for spec in g.kind().facts().options.iter().chain(common) {
        let value = given.get(spec.name).map_or(spec.default, String::as_str);
        let meaning = spec
            .help
            .split("; ")
            .find_map(|part| part.strip_prefix(&format!("{value}: ")))
            .unwrap_or(spec.help);
        let line = format!("{} = {value}: {meaning}", spec.name);
        let wrap = textwrap::Options::new(72).subsequent_indent("    ");
        out.push(textwrap::fill(&line, wrap));
    }
    out
}

/// A letter's body from its template (mails that are not about one seat's game), its long
/// lines refilled (`template::wrap`).
pub fn render(ctx: &Ctx, letter: &impl Letter) -> anyhow::Result<String> {
    let body = ctx.templates.render(letter.kind(), letter)?;
    Ok(crate::template::wrap(&body, &letter.verbatim()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::outbound::Picture;
    use crate::store::Store;
    use chrono::TimeZone;
    use mail_parser::{MessageParser, MimeHeaders};

    fn setup() -> (Store, Config, Templates, DateTime<Utc>) {
        let (mut cfg, _) = crate::config::load(None, &|_| None).unwrap();
        cfg.address = "gm@pbem.example".into();
        let now = Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap();
        (
            Store::memory().unwrap(),
            cfg,
            Templates::load(None).unwrap(),
            now,
        )
    }

    fn draft(to: &str) -> Draft {
        Draft {
            kind: "turn_report",
            game: Some(12),
            to: to.into(),
            reply_to: Some("gm+tok1g12@pbem.example".into()),
            subject: "[pbem #12] Dice Rink".into(),
            body: "Your move.\n  a b c\n1 . \u{265e} .\n".into(),
            in_reply_to: Some("<move-7@player.example>".into()),
            refs: vec!["<pbem.game12@pbem.example>".into()],
            html: None,
            picture: None,
        }
    }

    /// Queues `d` and returns its row with the raw bytes stored for it.
    fn queued(store: &mut Store, ctx: &Ctx, d: Draft) -> OutboxRow {
        store
            .tx(|tx| {
                enqueue(tx, ctx, d)?;
                let mut row = tx.outbox(None, 1)?.remove(0);
                row.raw = tx.outbox_raw(row.id)?;
                Ok(row)
            })
            .unwrap()
    }

    #[test]
    fn a_queued_draft_is_stored_as_the_mail_it_was() {
        let (mut store, cfg, templates, now) = setup();
        let ctx = Ctx::new(&cfg, &templates, now);
        let row = queued(&mut store, &ctx, draft("alice@example.org"));
        assert_eq!(row.status, OutboxStatus::Pending);
        let raw = row.raw.as_deref().expect("the finished message is stored");
        let msg = MessageParser::default().parse(raw).expect("parses");
        let from = msg.from().and_then(|a| a.first()).unwrap();
        assert_eq!(
            (from.name(), from.address()),
            (Some(cfg.name.as_str()), Some("gm@pbem.example"))
        );
        let to = msg.to().and_then(|a| a.first()).and_then(|a| a.address());
        assert_eq!(to, Some("alice@example.org"));
        let reply_to = msg
            .reply_to()
            .and_then(|a| a.first())
            .and_then(|a| a.address());
        assert_eq!(reply_to, Some("gm+tok1g12@pbem.example"));
        assert_eq!(msg.subject(), Some("[pbem #12] Dice Rink"));
        assert_eq!(
            msg.message_id(),
            row.message_id
                .strip_prefix('<')
                .and_then(|m| m.strip_suffix('>'))
        );
        assert_eq!(msg.in_reply_to().as_text(), Some("move-7@player.example"));
        let refs: Vec<&str> = msg
            .references()
            .as_text_list()
            .unwrap()
            .iter()
            .map(|r| r.as_ref())
            .collect();
        assert_eq!(refs, ["pbem.game12@pbem.example", "move-7@player.example"]);
        assert_eq!(
            row.refs.as_deref(),
            Some("<pbem.game12@pbem.example> <move-7@player.example>")
        );
        let header = |name: &'static str| msg.header_raw(name).map(str::trim);
        assert_eq!(header("Auto-Submitted"), Some("auto-replied"));
        assert_eq!(header("X-Auto-Response-Suppress"), Some("All"));
        assert_eq!(header("X-Pbem-Game"), Some("12"));
        // Dated when it was queued, by the clock passed in.
        assert_eq!(msg.date().unwrap().to_timestamp(), now.timestamp());
        let ctype = msg.content_type().unwrap();
        assert_eq!((ctype.ctype(), ctype.subtype()), ("text", Some("plain")));
        assert_eq!(msg.body_text(0).unwrap().replace("\r\n", "\n"), row.body);
        assert!(!String::from_utf8_lossy(raw).contains("multipart"));
        // The same bytes as the sender built from the row before the outbox kept them.
        assert_eq!(raw, finished(&row, now, None).unwrap());
    }

    #[test]
    fn a_draft_with_html_and_a_picture_is_queued_as_alternative_and_related() {
        let (mut store, cfg, templates, now) = setup();
        let ctx = Ctx::new(&cfg, &templates, now);
        let mut d = draft("alice@example.org");
        d.html = Some(Html {
            body: "<p>Your move.</p><img src=\"cid:board.12@pbem.example\">".into(),
            pictures: vec![Picture {
                content_id: "board.12@pbem.example".into(),
                mime: "image/png".into(),
                bytes: b"\x89PNG\r\n\x1a\n\0\xff".to_vec(),
            }],
        });
        let row = queued(&mut store, &ctx, d);
        let raw = row.raw.unwrap();
        let msg = MessageParser::default().parse(&raw).unwrap();
        let ctype = msg.content_type().unwrap();
        assert_eq!(
            (ctype.ctype(), ctype.subtype()),
            ("multipart", Some("alternative"))
        );
        assert_eq!(msg.body_text(0).unwrap().replace("\r\n", "\n"), row.body);
        assert!(msg
            .body_html(0)
            .unwrap()
            .contains("cid:board.12@pbem.example"));
        let picture = msg
            .parts
            .iter()
            .find(|p| p.content_id() == Some("board.12@pbem.example"))
            .expect("the picture with its Content-ID");
        assert_eq!(picture.contents(), b"\x89PNG\r\n\x1a\n\0\xff");
        assert_eq!(picture.content_type().unwrap().ctype(), "image");
    }

    #[test]
    fn an_html_part_over_the_size_cap_is_dropped_and_the_text_goes() {
        let (mut store, mut cfg, templates, now) = setup();
        cfg.max_reply_bytes = 1000;
        let ctx = Ctx::new(&cfg, &templates, now);
        let mut d = draft("alice@example.org");
        d.html = Some(Html {
            body: "<p>x</p>".repeat(200),
            pictures: vec![],
        });
        let row = queued(&mut store, &ctx, d);
        let raw = String::from_utf8(row.raw.unwrap()).unwrap();
        assert!(raw.contains("Content-Type: text/plain"), "{raw}");
        assert!(!raw.contains("text/html"), "{raw}");
        let events = store.read(|tx| tx.events(Some(12))).unwrap();
        assert!(
            events.iter().any(|(_, e)| e.contains("text only")),
            "{events:?}"
        );
    }

    /// A draft that cannot be built does not fail the inbound mail: it is stored failed, with
    /// the reason, and the GM's log says so.
    #[test]
    fn an_unbuildable_draft_is_stored_failed_with_the_reason() {
        let (mut store, cfg, templates, now) = setup();
        let ctx = Ctx::new(&cfg, &templates, now);
        let row = queued(&mut store, &ctx, draft("not an address"));
        assert_eq!(row.status, OutboxStatus::Failed);
        assert_eq!(row.raw, None);
        let error = row.last_error.unwrap();
        assert!(error.contains("bad To address"), "{error}");
        let events = store.read(|tx| tx.events(Some(12))).unwrap();
        assert!(
            events
                .iter()
                .any(|(_, e)| e.contains("not an address") && e.contains("not sent")),
            "{events:?}"
        );
        assert!(store.read(|tx| tx.outbox_due(now, 10)).unwrap().is_empty());
    }
}
