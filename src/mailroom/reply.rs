//! The answer to the sender, and the seat a mail is about when it names none.

use super::note::Fate;
use super::{requests, session::Session, stranger, Line};
use crate::compose::{Ctx, Letter, LineStatus, LineVars, Reply};
use crate::gamelog::Loaded;
use crate::store::{GameStatus, HtmlPart, OutboxRow, Tx};
use crate::{compose, gamelog};

/// Answers the sender (at the address on record: the From of an accepted mail). A NEW or
/// JOIN waiting for confirmation rides on this reply when it goes outside any game's thread
/// (its Reply-To is then the confirmation address), else it gets a mail of its own.
pub(super) fn reply(
    tx: &Tx,
    ctx: &Ctx,
    s: &mut Session,
    current: Option<(i64, usize)>,
    from: &str,
) -> anyhow::Result<()> {
    ctx.budget.release_for_reply();
    // The move that ended the game is answered by the game-over mail alone, unless the
    // mail held something else to answer (a refusal, help, a request).
    let nothing_else = s
        .lines
        .iter()
        .all(|l| matches!(l.fate.reply_status(), LineStatus::Ok | LineStatus::Ignored))
        && s.help.is_none()
        && s.confirm.is_none();
    if s.ended && nothing_else {
        return Ok(());
    }
    let refused_only = Fate::nothing_done(s.lines.iter().map(|l| l.fate));
    let mut extra = s.extra.clone();
    if let Some(h) = &s.help {
        extra.push(h.clone());
    }
    let confirm = s.confirm.take();
    if let (Some((_, text)), None) = (&confirm, current) {
        extra.push(text.clone());
    }
    let mut lines: Vec<LineVars> = s.lines.iter().map(said_as_answer).collect();
    if let Some(words) = &s.unproven {
        lines = stranger::scrub(lines, words);
    }
    let letter = Reply {
        refused_only,
        headline: s.headline.clone(),
        lines,
        reports: vec![],
        extra: extra.join("\n"),
    };
    let in_reply_to = s.in_reply_to.clone();
    match current {
        Some((gid, seat)) => {
            let g = match s.fresh.take() {
                Some(g) if g.row.id == gid => g,
                _ => gamelog::load(tx, gid)?,
            };
            if g.seat(seat).and_then(|x| x.email.as_deref()) == Some(from) {
                compose::to_seat(tx, ctx, &g, seat, &letter, in_reply_to)?;
            }
            if let Some((code, text)) = confirm {
                requests::send_confirmation(tx, ctx, from, &code, text)?;
            }
            Ok(())
        }
        None => reply_outside_a_game(tx, ctx, s, letter, confirm, from, in_reply_to),
    }
}

/// The answer to mail about no game of its sender's (or from no seat): from the plain
/// address, or from the seat's secret address when a seated player wrote to the plain one,
/// or carrying a NEW or JOIN's confirmation address.
fn reply_outside_a_game(
    tx: &Tx,
    ctx: &Ctx,
    s: &Session,
    letter: Reply,
    confirm: Option<(String, String)>,
    from: &str,
    in_reply_to: Option<String>,
) -> anyhow::Result<()> {
    // A seated player who wrote to the plain address is answered from their seat's
    // secret address (it goes only to the address on record): replying plays.
    let home = match confirm {
        None => home_seat(tx, from, s.subject_game)?,
        Some(_) => None,
    };
    let mut letter = letter;
    if let Some((g, _)) = &home {
        // Anyone can forge a player's From: this answer, in the game's thread with a
        // Reply-To that plays, quotes no line it did not run.
        let before = letter.lines.len();
        letter.lines.retain(|l| l.status == LineStatus::Ok);
        let n = before - letter.lines.len();
        let said = match n {
            0 => String::new(),
            n => format!(
                "{n} line(s) of your mail were not played: mail about a game must \
                     come from its secret reply address. "
            ),
        };
        letter.extra.push_str(&format!(
            "\n\n{said}To play in game #{}, reply to this mail: its reply address is \
                 your secret address for that game.",
            g.row.id
        ));
    }
    let body = compose::render(ctx, &letter)?;
    let mut draft = OutboxRow {
        kind: letter.kind().into(),
        game_id: s.game,
        to_addr: from.to_string(),
        subject: "Re: [pbem] your mail".into(),
        body,
        in_reply_to,
        html: HtmlPart::Words,
        ..Default::default()
    };
    // The answer to a mail that proves its seat (or a request's code): its sender waits for
    // it, however brisk the game, so the hourly limit never holds it. Loops are stopped
    // before (auto-replies, the same text answered once a day); unproven mail has its own
    // limits.
    let limit = match s.unproven {
        None => compose::Limit::Exempt,
        Some(_) => compose::Limit::Applies,
    };
    if let Some((code, _)) = confirm {
        let c = requests::confirmation_draft(ctx, from, &code, String::new());
        draft.reply_to = c.reply_to;
        draft.subject = c.subject;
    }
    if let Some((g, token)) = home {
        draft.reply_to = Some(ctx.cfg.seat_address(&token));
        draft.subject = format!("Re: {}", compose::game_subject(&g));
        draft.game_id = Some(g.row.id);
        draft.refs = Some(compose::thread_root(ctx.cfg, g.row.id));
    }
    compose::enqueue(tx, ctx, draft, limit)
}

/// The game (and the seat's secret token) a seated player's unauthenticated mail is about:
/// the game its subject names, else their only game still on.
pub(super) fn home_seat(
    tx: &Tx,
    from: &str,
    subject_game: Option<i64>,
) -> anyhow::Result<Option<(Loaded, String)>> {
    let mut live = Vec::new();
    for (game, seat) in tx.seats_of(from)? {
        if tx
            .game(game)?
            .is_some_and(|r| r.status != GameStatus::Finished)
        {
            live.push((game, seat));
        }
    }
    let pick = match subject_game {
        Some(n) => live.iter().find(|(g, _)| *g == n).copied(),
        None if live.len() == 1 => live.first().copied(),
        None => None,
    };
    let Some((game, seat)) = pick else {
        return Ok(None);
    };
    let g = gamelog::load(tx, game)?;
    let token = g.seat(seat).and_then(|s| s.token.clone());
    Ok(token.map(|t| (g, t)))
}

/// A line as the reply says it. A command's answer is a sentence ("draw offered; ..."): it goes
/// on the line below, as the answer, never as how the line was "read as".
fn said_as_answer(l: &Line) -> LineVars {
    let mut v = l.vars();
    if l.fate == Fate::Done && v.reason.is_none() {
        v.reason = v.canonical.take();
    }
    v
}
