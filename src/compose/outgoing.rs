//! One outgoing mail from compose to the sender: compose fills an `OutboxRow`, `enqueue` gives it its Message-ID (and, when it waits for no HTML part, its finished bytes) in the inbound mail's transaction, and the sender sends the bytes as they are.
//!
//! The row's bytes are made in one place, `bytes` (the row -> `mail::outbound`'s builder):
//! when it is queued (text only, for a mail that waits for no HTML part) and, after the
//! commit, with its HTML part (or as its text alone, when the part fails) by
//! `compose::illustrate`, or by `build_missing` for a mail that has none when it is due.
//! Nothing else builds a mail.

use chrono::{DateTime, Duration, Utc};

use super::{render, Ctx, Held};
use crate::mail::outbound::{self, BuildError, Html, OutMail};
use crate::store::{HtmlPart, OutboxRow, OutboxStatus, Store, Tx};

/// Whether the hourly limit per recipient may hold a mail (`enqueue`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Limit {
    /// News, notices, a resend: past `replies_per_hour`, it goes an hour later.
    Applies,
    /// An answer its reader waits for (the reply to their own proven mail, a report that asks
    /// them to act, the game's end): never held, however brisk the game.
    Exempt,
}

/// Queues a mail in this transaction (it is sent only after commit). Nothing is dropped for
/// the rate limit: where the `limit` applies, a recipient who was already sent
/// `replies_per_hour` mails in the last hour gets this one an hour later, and is told so once.
/// Past the inbound mail's budget of mails, the mail is not queued at all (and the GM's log
/// says so).
pub fn enqueue(tx: &Tx, ctx: &Ctx, mail: OutboxRow, limit: Limit) -> anyhow::Result<()> {
    if !ctx.budget.take() {
        tx.log_event(
            mail.game_id,
            ctx.now,
            &format!(
                "a {} mail to {} was not queued: one inbound mail may cause at most {} mails",
                mail.kind, mail.to_addr, ctx.cfg.max_mails_per_message
            ),
        )?;
        return Ok(());
    }
    let due = match limit {
        Limit::Exempt => None,
        Limit::Applies => hold_until(tx, ctx, &mail.to_addr)?,
    };
    if let HtmlPart::Board { game, plies } = mail.html {
        // A held report or reminder of an earlier position is no longer true: this mail
        // shows the game as it now stands and replaces it.
        let replaced = tx.drop_stale_held(game, &mail.to_addr, plies, ctx.now)?;
        if replaced > 0 {
            let text = format!(
                "{replaced} held mail(s) about game {game} to {} dropped: the game moved on, \
                 and a newer mail says where it stands",
                mail.to_addr
            );
            tx.log_event(Some(game), ctx.now, &text)?;
        }
    }
    queue(tx, ctx, mail, due)
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
        let notice = OutboxRow {
            kind: "held".into(),
            to_addr: to.to_string(),
            subject: "[pbem] your mail is delayed".into(),
            body,
            html: HtmlPart::Words,
            cause: Some(format!(
                "the hourly limit per recipient ({} an hour)",
                ctx.cfg.replies_per_hour
            )),
            ..Default::default()
        };
        queue(tx, ctx, notice, None)?;
    }
    Ok(Some(until))
}

/// Writes a mail into the outbox, due at `due` (or at once); one that waits for no HTML
/// part with the finished text-only bytes the sender will send (the others get theirs with
/// the part). A mail that cannot be built (a bad address or header) is stored as failed with
/// the reason, and the GM's log says so: it must not fail the inbound mail.
pub(super) fn queue(
    tx: &Tx,
    ctx: &Ctx,
    mut row: OutboxRow,
    due: Option<DateTime<Utc>>,
) -> anyhow::Result<()> {
    let seq = tx.next_outbox_id()?;
    let millis = ctx.now.timestamp_millis();
    let tag = crate::mail::verp::id_tag(&tx.key("verp", crate::edge::new_key)?, seq, millis);
    row.message_id = format!("<pbem.{seq}.{millis}.{tag}@{}>", ctx.cfg.address_parts().1);
    row.from_addr = format!("{} <{}>", ctx.cfg.name, ctx.cfg.address);
    // Only well-formed ids go into In-Reply-To and References: a sender's malformed
    // Message-ID must not make our reply unsendable.
    row.in_reply_to = row.in_reply_to.filter(|m| is_msg_id(m));
    let mut refs: Vec<String> = references(&row).filter(|m| is_msg_id(m)).collect();
    if let Some(irt) = &row.in_reply_to {
        if !refs.contains(irt) {
            refs.push(irt.clone());
        }
    }
    row.refs = (!refs.is_empty()).then(|| refs.join(" "));
    row.body = within(std::mem::take(&mut row.body), ctx.cfg.max_reply_bytes);
    row.next_try_at = due;
    row.cause = row.cause.or_else(|| ctx.cause.clone());
    // A mail that waits for its HTML part is made whole after the commit
    // (`compose::illustrate`, as text alone if that fails): making its text-only bytes here
    // too was about a quarter of the daemon path's work, thrown away.
    if row.html == HtmlPart::None {
        match bytes(&row, ctx.now, None) {
            Ok(raw) => row.raw = Some(raw),
            Err(e) => {
                let why = unbuildable(tx, &row, ctx.now, &e)?;
                row.status = OutboxStatus::Failed;
                row.last_error = Some(why);
                row.raw = None;
            }
        }
    }
    tx.enqueue(&row, ctx.now)?;
    Ok(())
}

/// Logs (and tells the GM's log of the game) that a mail cannot be built; the reason, to
/// store as its last error.
pub(super) fn unbuildable(
    tx: &Tx,
    row: &OutboxRow,
    now: DateTime<Utc>,
    e: &BuildError,
) -> anyhow::Result<String> {
    let why = format!("cannot build the mail: {e}");
    tracing::error!(to = %row.to_addr, kind = %row.kind, "{why}");
    tx.log_event(
        row.game_id,
        now,
        &format!("a {} mail to {} was not sent: {why}", row.kind, row.to_addr),
    )?;
    Ok(why)
}

/// The message ids of a row's References, oldest first.
fn references(row: &OutboxRow) -> impl Iterator<Item = String> + '_ {
    row.refs
        .as_deref()
        .unwrap_or_default()
        .split_whitespace()
        .map(str::to_string)
}

/// An earlier mail again, as the GM resends it (`pbem game resend`): its words and thread,
/// the board it showed (the same picture, kept by position), a new Message-ID.
pub fn resent(row: &OutboxRow) -> OutboxRow {
    OutboxRow {
        kind: "resent".into(),
        game_id: row.game_id,
        to_addr: row.to_addr.clone(),
        reply_to: row.reply_to.clone(),
        subject: row.subject.clone(),
        body: row.body.clone(),
        refs: row.refs.clone(),
        html: match row.html {
            HtmlPart::Board { .. } => row.html,
            _ => HtmlPart::Words,
        },
        ..Default::default()
    }
}

/// The finished message (RFC 5322 bytes) of an outbox row, dated `date`, with `html` as
/// the alternative to its text: the one way from the record to the bytes the sender sends.
pub(super) fn bytes(
    row: &OutboxRow,
    date: DateTime<Utc>,
    html: Option<Html>,
) -> Result<Vec<u8>, BuildError> {
    let mail = OutMail {
        from: row.from_addr.clone(),
        to: vec![row.to_addr.clone()],
        reply_to: row.reply_to.clone(),
        subject: row.subject.clone(),
        body: row.body.clone(),
        message_id: row.message_id.clone(),
        in_reply_to: row.in_reply_to.clone(),
        references: references(row).collect(),
        // RFC 3834: the answer to a mail (it has In-Reply-To: only the sender's own mail's
        // answer does) is auto-replied; news, reminders and digests that answer no mail of
        // their reader are auto-generated.
        auto_submitted: Some(
            match row.in_reply_to {
                Some(_) => "auto-replied",
                None => "auto-generated",
            }
            .into(),
        ),
        extra_headers: row
            .game_id
            .map(|g| vec![("X-Pbem-Game".to_string(), g.to_string())])
            .unwrap_or_default(),
        date: Some(date),
        html,
    };
    Ok(outbound::build(&mail)?.formatted())
}

/// Makes the bytes of the due mails that have none: queued before schema 7 (which stored
/// none), or whose HTML part was given up before it was made; dated `now`, when they go out.
/// One that cannot be built fails for good. Returns how many failed. The sender runs it
/// before it sends, so it sends stored bytes only.
pub fn build_missing(store: &mut Store, now: DateTime<Utc>) -> anyhow::Result<usize> {
    let rows = store.read(|tx| tx.outbox_unbuilt(now))?;
    if rows.is_empty() {
        return Ok(0);
    }
    let mut failed = 0;
    store.tx_lazy(|tx| {
        failed = 0;
        for row in &rows {
            match bytes(row, now, None) {
                Ok(raw) => tx.set_outbox_raw(row.id, &raw)?,
                Err(e) => {
                    tracing::error!(id = row.id, error = %e, "send failed for good");
                    tx.mark_attempt_failed(row.id, &e.to_string(), None)?;
                    failed += 1;
                }
            }
        }
        Ok(())
    })?;
    Ok(failed)
}

/// A mail body cut to at most `max` bytes at a line's end, the rest summarised in one line.
fn within(body: String, max: usize) -> String {
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

#[cfg(test)]
mod tests;
