//! The loop, junk and throttle guards a mail meets before anything in it is read.

use super::{auth, bounced, guard, ignored, refused, Handled};
use crate::compose::Ctx;
use crate::gm::Gm;
use crate::mail::inbound::{self, Inbound};
use crate::store::Tx;

/// The loop, junk and throttle guards: the sender's address, or how the mail ends unanswered.
pub(super) fn screen(
    tx: &Tx,
    ctx: &Ctx,
    inb: &Inbound,
    gm: &Gm,
) -> anyhow::Result<Result<String, Handled>> {
    let ours = vec![ctx.cfg.address.clone()];
    let refusal = inbound::refusal(inb, &ours, ctx.cfg.max_message_bytes);
    // A subject alone is a weak sign: a player may head a real move "Vacation notice". Mail
    // that proves its seat is read; an auto-reply loop through it is bounded by the repeats.
    let refusal = match refusal {
        Some(r) if r.code == "auto-reply-subject" && auth::proves_a_seat(tx, ctx, inb)? => None,
        other => other,
    };
    if let Some(r) = refusal {
        if r.code == "too-large" {
            if let Some(from) = &inb.from {
                guard::answer_too_large(tx, ctx, inb, from)?;
            }
        }
        let mut why = format!("{}: {}", r.code, r.reason);
        if r.code == "bounce" {
            // Never answered; read for the mail it returns (the GM decides what follows).
            why = format!("{why}: {}", bounced::take(tx, ctx, inb, gm)?);
        }
        // An oversized mail may be a player's (and is answered to a seat); the rest is no
        // person's mail, or our own come back.
        return Ok(Err(match r.code {
            "too-large" => refused(why),
            _ => ignored(why),
        }));
    }
    let Some(from) = inb.from.clone() else {
        return Ok(Err(ignored("no usable From address")));
    };
    if ctx.cfg.is_ours(&from) {
        return Ok(Err(ignored("loop: mail from our own address")));
    }
    Ok(Ok(from))
}
