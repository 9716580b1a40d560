//! The walk of one mail through the rooms: screen, authenticate, read its lines, run them, answer, note its fate.

use super::{
    auth::authenticate, auth::Auth, dispatch::help_text, dispatch::run_lines, done, guard, ignored,
    redact::read_lines, redact::redacted, refused, repeats, reply::reply, requests, screen::screen,
    session::Session, stranger, Handled,
};
use crate::commands;
use crate::compose::Ctx;
use crate::gm::Gm;
use crate::mail::inbound::Inbound;
use crate::store::Tx;

/// One mail's handling, its budget of mails started and stopped around it.
pub(super) fn handle(
    tx: &Tx,
    ctx: &Ctx,
    msg_id: i64,
    inb: &Inbound,
    gm: &mut Gm,
) -> anyhow::Result<(Handled, Option<i64>)> {
    ctx.budget.start(ctx.cfg.max_mails_per_message);
    // One mail per seat for all this mail did (a decline and a move: one turn report).
    let result = ctx.gathering(tx, || handle_mail(tx, ctx, msg_id, inb, gm));
    ctx.budget.stop();
    let (mut h, game) = result?;
    if ctx.budget.refused() > 0 {
        // Said in the stored note too: the GM's listing shows the summary.
        let more = format!(
            "; {} mails not queued (at most {} per mail)",
            ctx.budget.refused(),
            ctx.cfg.max_mails_per_message
        );
        h.detail.summary.push_str(&more);
        h.note.push_str(&more);
    }
    Ok((h, game))
}

/// The guards, then authentication, then the mail's commands and the reply.
pub(super) fn handle_mail(
    tx: &Tx,
    ctx: &Ctx,
    msg_id: i64,
    inb: &Inbound,
    gm: &mut Gm,
) -> anyhow::Result<(Handled, Option<i64>)> {
    let from = match screen(tx, ctx, inb, gm)? {
        Ok(from) => from,
        Err(h) => return Ok((h, None)),
    };
    let mut session = Session::new(inb);
    if let Some(code) = inb
        .recipients()
        .iter()
        .find_map(|a| requests::code_in(ctx, a))
    {
        // A player new with this confirmation is named by their From at first (`gm::names`),
        // before the game it makes is told to anyone: the welcome lists them by that name.
        if !tx.player_exists(&from)? {
            tx.player_id(&from)?;
            crate::gm::names::take_from_header(tx, &from, inb.from_name.as_deref())?;
        }
        if let Err(h) = requests::confirm(tx, ctx, &mut session, &from, &code, gm)? {
            return Ok((h, None));
        }
        reply(tx, ctx, &mut session, None, &from)?;
        return Ok((done("request confirmed"), session.game));
    }
    let (lines, unread_lines, text) = read_lines(inb, ctx.cfg.max_lines);
    let mut cmds = commands::parse(&lines);
    let unread_cmds = cmds.len().saturating_sub(ctx.cfg.max_commands);
    cmds.truncate(ctx.cfg.max_commands);
    let redact = lines
        .iter()
        .any(|l| commands::password_attempt(l).is_some());
    let auth = match authenticate(tx, ctx, inb, &from, &cmds)? {
        Ok(a) => a,
        Err(h) => return finish(tx, msg_id, inb, redact, (h, None)),
    };
    // Mail from an address that bounced: it is reachable again. Only a mail that proves its
    // sender counts: a From anyone can write must not resume a game paused for it.
    if !matches!(auth, Auth::None) {
        crate::gm::reachability::heard_from(gm, &from)?;
    }
    let stranger = matches!(auth, Auth::None) && tx.seats_of(&from)?.is_empty();
    if matches!(auth, Auth::None) {
        if let Some(h) = unproven_limits(tx, ctx, &from, stranger)? {
            return finish(tx, msg_id, inb, redact, (h, None));
        }
        // Its answer repeats nothing of its lines or subject (`stranger`). Its Message-ID,
        // which its client made and no reader sees, is still answered to, for threading.
        session.unproven = Some(stranger::Words::of(&lines, &inb.subject));
    }
    let outcome = run_lines(tx, ctx, &mut session, msg_id, &cmds, &from, &auth, gm)?;
    if let Some(h) = outcome {
        return finish(tx, msg_id, inb, redact, (h, None));
    }
    session.note_unread(
        unread_lines,
        unread_cmds,
        ctx.cfg.max_lines,
        ctx.cfg.max_commands,
    );
    // An empty mail (or all quoted text): say how to play rather than stay silent.
    if cmds.is_empty() && session.extra.is_empty() && session.help.is_none() {
        session.help = Some(help_text(ctx, None)?);
    }
    let game = session.touched.or(session.game);
    let mark = match session.acted() {
        true => None,
        false => match repeats::check(tx, ctx, &from, &text, &session, asks(&cmds))? {
            Ok(mark) => Some(mark),
            Err(why) => return finish(tx, msg_id, inb, redact, (ignored(why), game)),
        },
    };
    let current = session.current;
    reply(tx, ctx, &mut session, current, &from)?;
    if let Some(mark) = mark {
        mark.note(tx, ctx, &from)?;
    }
    if matches!(auth, Auth::None) {
        guard::answered_unproven(tx, ctx, &from, stranger)?;
    }
    finish(tx, msg_id, inb, redact, (session.handled(), game))
}

/// Unproven mail past its address's hourly answers, or from an address with no seat past
/// all strangers' hourly answers: stored, not run, not answered (`None`: go on).
pub(super) fn unproven_limits(
    tx: &Tx,
    ctx: &Ctx,
    from: &str,
    stranger: bool,
) -> anyhow::Result<Option<Handled>> {
    if guard::unauth_budget_spent(tx, ctx, from)? {
        tx.log_event(
            None,
            ctx.now,
            &format!("rate limit: unproven mail from {from} not answered"),
        )?;
        return Ok(Some(refused(
            "rate limit: too many answers to mail from this address that proves no seat",
        )));
    }
    // Checked before the mail runs: a NEW past the cap would wait for a confirmation that
    // is never sent.
    if stranger && guard::strangers_capped(tx, ctx)? {
        return Ok(Some(refused(
            "rate limit: the hour's answers to addresses with no seat are spent \
             (stranger_replies_per_hour)",
        )));
    }
    Ok(None)
}

/// The mail as handled; a mail that held a password attempt is stored from now on without it.
pub(super) fn finish(
    tx: &Tx,
    msg_id: i64,
    inb: &Inbound,
    redact: bool,
    result: (Handled, Option<i64>),
) -> anyhow::Result<(Handled, Option<i64>)> {
    if redact {
        tx.replace_raw(msg_id, &redacted(inb))?;
    }
    Ok(result)
}

/// Whether a mail asks pbem for something (a command other than game text): such a mail is
/// a person's question, never taken for a robot's repeated prose (`repeats::check`).
fn asks(cmds: &[commands::Command]) -> bool {
    use commands::Command::{Bad, Game, Guard};
    cmds.iter()
        .any(|c| !matches!(c, Game(_) | Bad { .. } | Guard(_)))
}
