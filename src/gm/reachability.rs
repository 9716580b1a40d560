//! Players whose mail does not arrive: a report of a failure believed marks the address, the GM is told once a day, and past the limit its mail is held but for a daily probe and no deadline runs against its seats; a mail the player proves clears it all.

use chrono::{DateTime, Duration, Utc};

use super::{life, options, Gm, News};
use crate::config::{BounceRules, WhenUnreachable};
use crate::gamelog;
use crate::store::{GameStatus, Unreachable};

/// What a game is paused with when a seat's player cannot be reached: a game paused so
/// resumes by itself when the player writes again (and one the GM paused does not).
const PAUSE_REASON: &str = "mail to a player bounces";

/// How often a held address is probed with one of its mails.
pub const PROBE_EVERY: Duration = Duration::days(1);

/// A failure report believed: for the mail `row` (`subject`) pbem sent to `addr`.
pub struct Failed<'a> {
    pub addr: &'a str,
    pub row: i64,
    pub subject: &'a str,
    /// For good (5.x.x), or for now (a 4.x.x the remote server gave up on).
    pub permanent: bool,
    /// The remote server's words.
    pub reason: &'a str,
}

/// Notes a failure: the outbox row, the address's count, the GM told (once a day per address,
/// and when its mail starts being held), and past `rules.limit` failures for good its mail
/// held and its games handled as `rules.unreachable` says.
pub fn bounced(gm: &Gm, rules: &BounceRules, f: &Failed) -> anyhow::Result<()> {
    let (tx, now) = (gm.tx, gm.now);
    tx.mark_bounced(f.row, now, f.reason)?;
    let mut u = tx.unreachable(f.addr)?.unwrap_or_else(|| Unreachable {
        addr: f.addr.to_string(),
        since: now,
        last_at: now,
        permanent: 0,
        transient: 0,
        reason: String::new(),
        told_on: None,
        probe_at: None,
    });
    u.last_at = now;
    u.reason = f.reason.to_string();
    if f.permanent {
        u.permanent += 1;
    } else {
        u.transient += 1;
    }
    let newly_held = u.probe_at.is_none() && u.permanent >= rules.limit;
    if newly_held {
        u.probe_at = Some(now + PROBE_EVERY);
    }
    let today = day(now);
    let tell = newly_held || u.told_on.as_deref() != Some(today.as_str());
    if tell {
        u.told_on = Some(today);
    }
    tx.set_unreachable(&u)?;
    let what = format!(
        "mail {} to {} (\"{}\") came back {}: {}",
        f.row,
        f.addr,
        f.subject,
        if f.permanent { "for good" } else { "for now" },
        f.reason
    );
    if !tell {
        tx.log_event(None, now, &what)?;
        return Ok(());
    }
    let mut text = format!(
        "Mail to {} bounces since {}: {what}. ({} for good, {} for now.)",
        f.addr,
        u.since.format("%Y-%m-%d %H:%M UTC"),
        u.permanent,
        u.transient
    );
    if newly_held {
        text.push_str(&format!(
            " After {} failures for good its mail is held, but for one probe a day; a mail \
             the player proves (to a seat's reply address) clears this. `pbem player show {}` says more.",
            u.permanent, f.addr
        ));
    } else if u.probe_at.is_none() {
        text.push_str(&format!(
            " Nothing changes yet: after {} failures for good its mail is held, but for one \
             probe a day, and no deadline runs against its seats. A mail the player \
             proves (to a seat's reply address) clears this.",
            rules.limit
        ));
    }
    gm.tell(News::ToGm {
        g: None,
        text: &text,
    })?;
    if newly_held {
        hold_games(gm, rules, f.addr)?;
    }
    Ok(())
}

/// The day of `t` as `unreachable.told_on` keeps it.
fn day(t: DateTime<Utc>) -> String {
    t.format("%Y-%m-%d").to_string()
}

/// The active games where `addr` holds a seat: each pauses and the GM is asked, unless the
/// rules say play on or the game has the robot move for a late seat.
fn hold_games(gm: &Gm, rules: &BounceRules, addr: &str) -> anyhow::Result<()> {
    if rules.unreachable == WhenUnreachable::PlayOn {
        return Ok(());
    }
    let mut seats = gm.tx.seats_of(addr)?;
    seats.dedup_by_key(|(g, _)| *g);
    for (id, seat) in seats {
        let mut g = gamelog::load(gm.tx, id)?;
        if g.row.status != GameStatus::Active {
            continue;
        }
        let seat = g.game.seat_name(seat).to_string();
        if options::of(&g).timeout == options::TimeoutAction::Robot {
            gm.tell(News::ToGm {
                g: Some(&g),
                text: &format!(
                    "Mail to {addr} is held (it bounces); the game plays on: with \
                     timeout=robot the robot moves for their seat at its deadline."
                ),
            })?;
            continue;
        }
        if life::pause(gm, &mut g, PAUSE_REASON)?.is_ok() {
            gm.tell(News::ToGm {
                g: Some(&g),
                text: &format!(
                    "Game {id} is paused: mail to {addr} ({seat}) is held (it bounces), so \
                     no deadline runs against them. It resumes by itself when they write \
                     again. Or give the seat to another player (`pbem game replace {id} \
                     --seat {seat} ADDRESS`) or to the robot (`pbem game replace {id} --seat \
                     {seat} robot`), then `pbem game resume {id}`."
                ),
            })?;
        }
    }
    Ok(())
}

/// A mail came from `addr`: it is reachable again. Its mark goes, and the games paused because
/// it bounced resume (unless another of their players still cannot be reached).
pub fn heard_from(gm: &Gm, addr: &str) -> anyhow::Result<()> {
    let Some(was) = gm.tx.clear_unreachable(addr)? else {
        return Ok(());
    };
    gm.tx.log_event(
        None,
        gm.now,
        &format!(
            "mail from {addr}: no longer marked as bouncing (it had since {})",
            was.since.format("%Y-%m-%d %H:%M UTC")
        ),
    )?;
    let Some(probe_at) = was.probe_at else {
        return Ok(());
    };
    // Its held mail (each waiting for the next probe) goes now.
    gm.tx.release_held(addr, probe_at, gm.now)?;
    let mut games: Vec<i64> = gm.tx.seats_of(addr)?.into_iter().map(|(g, _)| g).collect();
    games.dedup();
    for id in games {
        let mut g = gamelog::load(gm.tx, id)?;
        if g.row.status != GameStatus::Paused || g.row.pause_reason.as_deref() != Some(PAUSE_REASON)
        {
            continue;
        }
        if still_held(gm, &g)? {
            continue;
        }
        life::resume(gm, &mut g)?.ok();
    }
    Ok(())
}

/// Whether another player of the game still has their mail held.
fn still_held(gm: &Gm, g: &gamelog::Loaded) -> anyhow::Result<bool> {
    for s in &g.seats {
        if let Some(email) = s.email.as_deref() {
            if gm
                .tx
                .unreachable(email)?
                .is_some_and(|u| u.probe_at.is_some())
            {
                return Ok(true);
            }
        }
    }
    Ok(false)
}
