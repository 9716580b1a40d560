//! Who a mail is from as far as a game goes: its secret reply address with the registered sender, or a password.

use super::{guard, refused, sender_check, Handled};
use crate::commands::Command;
use crate::compose::Ctx;
use crate::mail::inbound::Inbound;
use crate::store::{GameStatus, Tx};
use crate::{edge, gamelog, password};

/// Who the mail is from, as far as authentication goes.
pub(super) enum Auth {
    /// The seat's secret address and its registered sender: (game, seat).
    Seat(i64, usize),
    /// A correct `PASSWORD` line from a registered address: any of its games.
    Password,
    /// No proof; only public commands (HELP, LIST, NEW, JOIN) run.
    None,
}

/// The secret reply address with the registered sender, or a password, unless the receiving
/// server's trusted word says the From is forged (`sender_check`); a failed attempt is
/// counted against the sender and told to the seat's owner.
pub(super) fn authenticate(
    tx: &Tx,
    ctx: &Ctx,
    inb: &Inbound,
    from: &str,
    cmds: &[Command],
) -> anyhow::Result<Result<Auth, Handled>> {
    let auth = match prove(tx, ctx, inb, from, cmds)? {
        Ok(auth) => auth,
        refused => return Ok(refused),
    };
    let game = match auth {
        Auth::Seat(game, _) => Some(game),
        Auth::Password => tx.seats_of(from)?.first().map(|(game, _)| *game),
        Auth::None => return Ok(Ok(auth)),
    };
    let Some(why) = sender_check::forged(inb, &ctx.cfg.trusted_authserv_ids) else {
        return Ok(Ok(auth));
    };
    // As a forged mail to a seat's address: counted, and the owner told (once an hour).
    guard::auth_failed(tx, ctx, from, &why)?;
    if let Some(game) = game {
        guard::tell_owner(
            tx,
            ctx,
            &gamelog::load(tx, game)?,
            Some(from),
            from,
            Some(&why),
        )?;
    }
    Ok(Err(refused(why)))
}

/// What the mail itself proves: the secret reply address with the registered sender, or a
/// password.
fn prove(
    tx: &Tx,
    ctx: &Ctx,
    inb: &Inbound,
    from: &str,
    cmds: &[Command],
) -> anyhow::Result<Result<Auth, Handled>> {
    let mut auth = Auth::None;
    let token = inb.recipients().iter().find_map(|a| ctx.cfg.token_in(a));
    if let Some(token) = &token {
        match tx.seat_by_token(token)? {
            Some((game, seat)) => {
                let on_record = tx.seat_email(game, seat)?;
                if on_record.as_deref() == Some(from) {
                    auth = Auth::Seat(game, seat);
                } else if guard::auth_throttled(tx, ctx, from)? {
                    return Ok(Err(throttled_refusal()));
                } else {
                    let g = gamelog::load(tx, game)?;
                    let what = format!(
                        "wrote to the reply address of seat {} of game {game}",
                        g.game.seat_name(seat)
                    );
                    guard::auth_failed(tx, ctx, from, &what)?;
                    guard::tell_owner(tx, ctx, &g, on_record.as_deref(), from, None)?;
                    return Ok(Err(refused(format!("spoofed: {from} {what}"))));
                }
            }
            None => tx.log_event(
                None,
                ctx.now,
                &format!("mail from {from} to an unknown reply address"),
            )?,
        }
    }
    let password = cmds.iter().find_map(|c| match c {
        Command::Password(p) => Some(p.as_str()),
        _ => None,
    });
    // A mail from a seat's secret address is proven already: a password in it is not needed,
    // and a wrong one must not cost the player the moves in that mail. Nor does a throttle:
    // failures forged in a player's name must not lock the player out.
    if matches!(auth, Auth::Seat(..)) {
        return Ok(Ok(auth));
    }
    // The throttle is for failures, never for the owner: past it a right password is still
    // checked and works, however many wrong ones were forged "from" its address (they were
    // counted against the address, and the owner cannot tell them from hers). Past it a
    // wrong password is neither answered nor counted. But a guesser who forges the owner's
    // From could then guess without end (and an opponent sees a guess that worked in the
    // game): so past the throttle only twice the limit more
    // passwords are checked in the hour, and then none, right or wrong. Forgers must send
    // three times the limit in an hour to close the password way for the hour; the seat's
    // secret address is never closed.
    let throttled = guard::auth_throttled(tx, ctx, from)?;
    let Some(pw) = password else {
        if throttled {
            return Ok(Err(throttled_refusal()));
        }
        return Ok(Ok(auth));
    };
    if throttled && guard::guesses_spent(tx, ctx, from)? {
        return Ok(Err(throttled_refusal()));
    }
    match tx.password_hash(from)? {
        Some(h) if password::verify(pw, &h) => {
            if password::needs_rehash(&h) {
                let fresh = password::hash(pw, &edge::new_salt()?)?;
                tx.set_password_hash(from, Some(&fresh))?;
            }
            Ok(Ok(Auth::Password))
        }
        _ if throttled => Ok(Err(throttled_refusal())),
        _ => {
            guard::auth_failed(tx, ctx, from, "a wrong password")?;
            if let Some((game, _)) = tx.seats_of(from)?.first() {
                let g = gamelog::load(tx, *game)?;
                guard::tell_owner(tx, ctx, &g, Some(from), from, None)?;
            }
            Ok(Err(refused(format!("wrong password from {from}"))))
        }
    }
}

/// A mail from an address past its failed authentications: stored, not answered.
pub(super) fn throttled_refusal() -> Handled {
    refused("throttled: too many failed authentications from this address in the last hour")
}

/// The game a password-authenticated mail is about: the one named, else the only active one.
pub(super) fn pick_seat(
    tx: &Tx,
    from: &str,
    wanted: Option<i64>,
) -> anyhow::Result<Option<(i64, usize)>> {
    let seats = tx.seats_of(from)?;
    Ok(match wanted {
        Some(w) => seats.into_iter().find(|(g, _)| *g == w),
        None => {
            let mut active = Vec::new();
            for (g, seat) in seats {
                if tx.game(g)?.is_some_and(|r| r.status == GameStatus::Active) {
                    active.push((g, seat));
                }
            }
            (active.len() == 1).then(|| active[0])
        }
    })
}

/// Whether a mail comes to a seat's secret address from the address on record for that seat.
pub(super) fn proves_a_seat(tx: &Tx, ctx: &Ctx, inb: &Inbound) -> anyhow::Result<bool> {
    let Some(from) = inb.from.as_deref() else {
        return Ok(false);
    };
    let token = inb
        .recipients()
        .into_iter()
        .find_map(|a| ctx.cfg.token_in(&a));
    let Some((game, seat)) = token.map(|t| tx.seat_by_token(&t)).transpose()?.flatten() else {
        return Ok(false);
    };
    Ok(tx.seat_email(game, seat)?.as_deref() == Some(from))
}
