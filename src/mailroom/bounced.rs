//! A delivery report that reached pbem: tied to the outbox row it returns (the bounce address it came to, else the Message-ID it quotes) and believed only for a mail pbem sent to the recipient it names; the GM (`gm::reachability`) decides what follows.

use crate::compose::Ctx;
use crate::gm::reachability::{self, Failed};
use crate::gm::Gm;
use crate::mail::inbound::{Bounce, Inbound, Severity};
use crate::store::{OutboxRow, OutboxStatus, Tx};

/// Quoted Message-IDs looked up at most: a report quotes one mail.
const IDS_LOOKED_UP: usize = 4;

/// Reads a delivery report in: what it was found to say, for the mail's note.
pub(super) fn take(tx: &Tx, ctx: &Ctx, inb: &Inbound, gm: &Gm) -> anyhow::Result<String> {
    let Some(report) = &inb.bounce else {
        return Ok("names no mail pbem sent".into());
    };
    let Some(row) = tied_row(tx, ctx, inb, report)? else {
        return Ok("names no mail pbem sent".into());
    };
    if row.status != OutboxStatus::Sent {
        return Ok(format!("names mail {}, which pbem has not sent", row.id));
    }
    // Believed only for the recipient pbem sent that mail to: a report of another address
    // (a forward's, a stranger's) changes nothing.
    let Some(f) = report
        .failures
        .iter()
        .find(|f| f.recipient.eq_ignore_ascii_case(&row.to_addr))
    else {
        return Ok(format!(
            "about mail {}, but not about {}, its recipient",
            row.id, row.to_addr
        ));
    };
    let reason = match &f.status {
        Some(code) if !f.reason.contains(code.as_str()) => format!("{code} {}", f.reason),
        _ => f.reason.clone(),
    };
    if f.severity == Severity::Delayed {
        tx.log_event(
            row.game_id,
            ctx.now,
            &format!(
                "mail {} to {} is delayed (noted, not a failure): {reason}",
                row.id, row.to_addr
            ),
        )?;
        return Ok(format!("delay of mail {} to {} noted", row.id, row.to_addr));
    }
    if row.bounced_at.is_some() {
        return Ok(format!(
            "mail {} to {} bounced already",
            row.id, row.to_addr
        ));
    }
    let permanent = f.severity == Severity::Permanent;
    reachability::bounced(
        gm,
        &ctx.cfg.bounces,
        &Failed {
            addr: &row.to_addr,
            row: row.id,
            subject: &row.subject,
            permanent,
            reason: &reason,
        },
    )?;
    Ok(format!(
        "mail {} to {} bounced ({}): {reason}",
        row.id,
        row.to_addr,
        if permanent { "for good" } else { "for now" }
    ))
}

/// The outbox row a report returns: named by the bounce address it came to (its MAC right),
/// else by the Message-ID it quotes.
fn tied_row(
    tx: &Tx,
    ctx: &Ctx,
    inb: &Inbound,
    report: &Bounce,
) -> anyhow::Result<Option<OutboxRow>> {
    let (local, domain) = ctx.cfg.address_parts();
    let key = tx.key("verp", crate::edge::new_key)?;
    let by_address = inb
        .recipients()
        .iter()
        .find_map(|a| crate::mail::verp::row_of(local, domain, &key, a));
    if let Some(id) = by_address {
        return tx.outbox_mail(id);
    }
    for id in report.original_ids.iter().take(IDS_LOOKED_UP) {
        if let Some(row) = tx.outbox_by_message_id(id)? {
            return Ok(Some(row));
        }
    }
    Ok(None)
}
