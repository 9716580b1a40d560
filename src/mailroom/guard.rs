//! What an address may cost per hour: failed authentications, answers to mail that proves no seat (per address, and for all strangers together), refusal notices to a seat's owner.
//!
//! Limits apply to what pbem sends and to unproven mail, never to a player's mail from a
//! seat's secret address: forged mail "from" a player spends only the forged-mail
//! allowances. A right password keeps working past forged failures, until the hour's
//! checks past the throttle are spent (`guesses_spent`), so guessing stays bounded.

use chrono::Duration;

use crate::compose::{self, Ctx};
use crate::gamelog::Loaded;
use crate::mail::inbound::Inbound;
use crate::store::{HtmlPart, OutboxRow, Tx};

/// A failed token, password or confirmation from an address.
pub(super) const AUTH_FAILURE: &str = "auth_failure";
/// An answer to mail that proved no seat.
const UNAUTH_REPLY: &str = "unauth_reply";
/// A password checked past the throttle (`auth_throttled`).
const GUESS_PAST_THROTTLE: &str = "guess_past_throttle";
/// How many times `max_auth_failures` an address may still have its passwords checked in an
/// hour once it is throttled: a right password keeps working past forged failures, and
/// guessing stays bounded (`mailroom::auth`).
const GUESSES_PAST_THROTTLE: i64 = 2;
/// A refusal notice to a seat's owner (at most one an hour, however many forgeries).
const REFUSAL_NOTICE: &str = "refusal_notice";
/// The `throttle` address the answers to all strangers together are counted under (no mail
/// address lacks an `@`).
const ALL_STRANGERS: &str = "*strangers";
/// An answer to unproven mail from an address with no seat.
const STRANGER_REPLY: &str = "stranger_reply";
/// The GM's notice that the strangers' hour is spent (at most one an hour).
const STRANGER_CAP_NOTICE: &str = "stranger_cap_notice";

/// Whether an address has failed authentication `max_auth_failures` times in the last hour;
/// its mail is then stored and not answered.
pub(super) fn auth_throttled(tx: &Tx, ctx: &Ctx, from: &str) -> anyhow::Result<bool> {
    let hour_ago = ctx.now - Duration::hours(1);
    Ok(tx.throttle_count(from, AUTH_FAILURE, hour_ago)? >= ctx.cfg.max_auth_failures)
}

/// Counts a password about to be checked past the throttle; whether the hour's checks past
/// it are spent (then none is checked, right or wrong, for the rest of the hour).
pub(super) fn guesses_spent(tx: &Tx, ctx: &Ctx, from: &str) -> anyhow::Result<bool> {
    let hour_ago = ctx.now - Duration::hours(1);
    let cap = GUESSES_PAST_THROTTLE * ctx.cfg.max_auth_failures;
    if tx.throttle_count(from, GUESS_PAST_THROTTLE, hour_ago)? >= cap {
        return Ok(true);
    }
    tx.note_throttle(from, GUESS_PAST_THROTTLE, ctx.now)?;
    Ok(false)
}

/// Counts a failed authentication; the GM is told when the address reaches the limit.
pub(super) fn auth_failed(tx: &Tx, ctx: &Ctx, from: &str, what: &str) -> anyhow::Result<()> {
    tx.note_throttle(from, AUTH_FAILURE, ctx.now)?;
    let hour_ago = ctx.now - Duration::hours(1);
    let n = tx.throttle_count(from, AUTH_FAILURE, hour_ago)?;
    tx.log_event(
        None,
        ctx.now,
        &format!("failed authentication from {from}: {what}"),
    )?;
    if n == ctx.cfg.max_auth_failures {
        compose::to_gm(
            tx,
            ctx,
            None,
            &format!(
                "{from} failed authentication {n} times in the last hour (last: {what}); \
                 its mail is stored but not answered for the rest of the hour"
            ),
        )?;
    }
    Ok(())
}

/// Whether an address has had its hour's answers to mail that proves no seat.
pub(super) fn unauth_budget_spent(tx: &Tx, ctx: &Ctx, from: &str) -> anyhow::Result<bool> {
    let hour_ago = ctx.now - Duration::hours(1);
    Ok(tx.throttle_count(from, UNAUTH_REPLY, hour_ago)? >= ctx.cfg.unauth_replies_per_hour)
}

/// Whether the hour's answers to strangers (addresses with no seat), all of them together, are
/// spent: 300 forged senders each within their own hourly allowance would otherwise get 300
/// answers. The GM is told once an hour.
pub(super) fn strangers_capped(tx: &Tx, ctx: &Ctx) -> anyhow::Result<bool> {
    let hour_ago = ctx.now - Duration::hours(1);
    let n = tx.throttle_count(ALL_STRANGERS, STRANGER_REPLY, hour_ago)?;
    if n < ctx.cfg.stranger_replies_per_hour {
        return Ok(false);
    }
    if tx.throttle_count(ALL_STRANGERS, STRANGER_CAP_NOTICE, hour_ago)? == 0 {
        tx.note_throttle(ALL_STRANGERS, STRANGER_CAP_NOTICE, ctx.now)?;
        compose::to_gm(
            tx,
            ctx,
            None,
            &format!(
                "{n} answers to mail from addresses with no seat in the last hour (at most \
                 stranger_replies_per_hour = {}): more such mail is stored but not answered \
                 until the hour allows it (pbem inbox lists it); players' mail is not affected",
                ctx.cfg.stranger_replies_per_hour
            ),
        )?;
    }
    Ok(true)
}

/// Counts an answer to unproven mail: against its address, and, when that address has no
/// seat, against all strangers' hour.
pub(super) fn answered_unproven(
    tx: &Tx,
    ctx: &Ctx,
    from: &str,
    stranger: bool,
) -> anyhow::Result<()> {
    tx.note_throttle(from, UNAUTH_REPLY, ctx.now)?;
    if stranger {
        tx.note_throttle(ALL_STRANGERS, STRANGER_REPLY, ctx.now)?;
    }
    Ok(())
}

/// A failed authentication against a seat: the address on record is told (never the sender),
/// with the receiving server's `verdict` when that is why (the rule it names),
/// at most once an hour; the sender is named only if it is a plain address, and nothing else
/// of the stranger's mail (its subject, its text) is quoted in a mail signed by the GM.
pub(super) fn tell_owner(
    tx: &Tx,
    ctx: &Ctx,
    g: &Loaded,
    on_record: Option<&str>,
    sender: &str,
    verdict: Option<&str>,
) -> anyhow::Result<()> {
    tx.log_event(
        Some(g.row.id),
        ctx.now,
        &format!("refused mail from {sender} (failed authentication)"),
    )?;
    let Some(to) = on_record else { return Ok(()) };
    if tx.throttle_count(to, REFUSAL_NOTICE, ctx.now - Duration::hours(1))? > 0 {
        return Ok(());
    }
    tx.note_throttle(to, REFUSAL_NOTICE, ctx.now)?;
    let body = compose::render(
        ctx,
        &compose::AuthRefusal {
            game_id: g.row.id,
            sender: plain_address(sender).map(str::to_string),
            verdict: verdict.map(|v| v.trim_start_matches("forged: ").to_string()),
        },
    )?;
    compose::enqueue(
        tx,
        ctx,
        OutboxRow {
            kind: "auth_refusal".into(),
            game_id: Some(g.row.id),
            to_addr: to.to_string(),
            subject: format!("{}: a mail was refused", compose::game_subject(g)),
            body,
            refs: Some(compose::thread_root(ctx.cfg, g.row.id)),
            html: HtmlPart::Words,
            ..Default::default()
        },
        compose::Limit::Applies,
    )
}

/// An address shown to a player only when it is a plain `name@domain` of ordinary characters.
fn plain_address(addr: &str) -> Option<&str> {
    let ok = addr.len() <= 80
        && addr.split_once('@').is_some_and(|(l, d)| {
            !l.is_empty()
                && d.contains('.')
                && l.chars()
                    .all(|c| c.is_ascii_alphanumeric() || "._%+-".contains(c))
                && d.chars()
                    .all(|c| c.is_ascii_alphanumeric() || ".-".contains(c))
        });
    ok.then_some(addr)
}

/// A mail over the size limit: its sender is told only when it came to a seat's secret
/// address from that seat's registered address (a stranger's is only recorded).
pub(super) fn answer_too_large(
    tx: &Tx,
    ctx: &Ctx,
    inb: &Inbound,
    from: &str,
) -> anyhow::Result<()> {
    let Some(token) = inb.recipients().iter().find_map(|a| ctx.cfg.token_in(a)) else {
        return Ok(());
    };
    let Some((game, seat)) = tx.seat_by_token(&token)? else {
        return Ok(());
    };
    if tx.seat_email(game, seat)?.as_deref() != Some(from) {
        return Ok(());
    }
    let g = crate::gamelog::load(tx, game)?;
    let text = format!(
        "Your mail was not read: it had {} bytes, and the game master reads mails of up to {} \
         bytes. Please send your move as plain text, without attachments or long quotes.",
        inb.size, ctx.cfg.max_message_bytes
    );
    compose::to_seat(
        tx,
        ctx,
        &g,
        seat,
        &compose::Reply {
            refused_only: true,
            headline: None,
            lines: vec![],
            reports: vec![],
            extra: text,
        },
        None,
    )
}
