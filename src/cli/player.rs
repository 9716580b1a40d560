//! `pbem player games|show|name|digest|vacation|password`: a player's record and own settings, set by the GM.

use std::path::Path;

use super::{refuse, say, seat_turns, Exit, PlayerCmd};
use crate::games::GameKind;
use crate::gm::stats::{self, Standing};
use crate::store::{Store, Tx};
use crate::{edge, gm};

pub(super) fn run(db: &Path, cmd: PlayerCmd) -> anyhow::Result<Exit> {
    match cmd {
        PlayerCmd::Games { email } => {
            let mut store = Store::open(db, false)?;
            seat_turns::games_of(&mut store, &email)
        }
        PlayerCmd::Show { email } => {
            let mut store = Store::open(db, false)?;
            let shown = store.read(|tx| show(tx, &email))?;
            print!(
                "{}",
                shown.ok_or_else(|| refuse(format_args!("{email} plays in no game")))?
            );
            Ok(0)
        }
        PlayerCmd::Digest { email, state } => {
            let mut store = Store::open(db, false)?;
            let on = state == "on";
            let email = email.trim().to_ascii_lowercase();
            match store.tx(|tx| gm::set_digest(tx, &email, on, edge::now()))? {
                Ok(()) => {
                    println!("{email}: daily digest {state}");
                    Ok(0)
                }
                Err(why) => {
                    say(&format!("refused: {why}"));
                    Ok(1)
                }
            }
        }
        PlayerCmd::Vacation { email, days, off } => {
            if days.is_none() && !off {
                anyhow::bail!("say --days N (1 to 60) or --off");
            }
            let mut store = Store::open(db, false)?;
            let email = email.trim().to_ascii_lowercase();
            let until = store.tx(|tx| gm::set_vacation(tx, &email, days, edge::now()))?;
            match until {
                Some(u) => println!("{email}: clocks paused until {}", crate::template::date(u)),
                None => println!("{email}: clocks run again"),
            }
            Ok(0)
        }
        PlayerCmd::Name { email, name, clear } => {
            let Some(email) = crate::mail::address(&email) else {
                return Err(super::refuse(format_args!("'{email}' is not an address")));
            };
            let mut store = Store::open(db, false)?;
            let email = email.to_ascii_lowercase();
            let name = if clear { None } else { name };
            match store.tx(|tx| gm::names::set_name(tx, &email, name.as_deref()))? {
                Ok(Some(name)) => println!("{email}: named {name}"),
                Ok(None) => println!(
                    "{email}: no name (shown as {})",
                    gm::names::fallback(&email)
                ),
                Err(why) => return Err(super::refuse(why)),
            }
            Ok(0)
        }
        PlayerCmd::Password { email, clear } => {
            let mut store = Store::open(db, false)?;
            let hash = if clear {
                None
            } else {
                let mut pw = String::new();
                std::io::stdin().read_line(&mut pw)?;
                let pw = pw.trim();
                if pw.len() < 6 {
                    return Err(super::refuse("a password needs at least 6 characters"));
                }
                Some(crate::password::hash(pw, &edge::new_salt()?)?)
            };
            store.tx(|tx| tx.set_password_hash(&email, hash.as_deref()))?;
            println!(
                "password {} for {email}",
                if clear { "removed" } else { "set" }
            );
            Ok(0)
        }
    }
}

/// `pbem player show`: the player's address, their name column as it is, their games, their
/// reliability and their rating in each game kind they played; `None` for an address the
/// store has never seen.
/// "Mail to this address bounces since ...", and whether its mail is held.
fn bounce_line(u: &crate::store::Unreachable) -> String {
    let held = match u.probe_at {
        Some(t) => format!(
            "; its mail is held but for one probe a day (next {})",
            t.format("%Y-%m-%d %H:%M UTC")
        ),
        None => String::new(),
    };
    format!(
        "Mail to this address bounces since {} ({} for good, {} for now; last: {}){held}\n",
        u.since.format("%Y-%m-%d %H:%M UTC"),
        u.permanent,
        u.transient,
        u.reason
    )
}

fn show(tx: &Tx, email: &str) -> anyhow::Result<Option<String>> {
    let Some((address, name, reliability)) = gm::reliability::of(tx, email)? else {
        return Ok(None);
    };
    let mut out = format!(
        "Player: {address}\nName: {}\nReliability: {}\n",
        name.as_deref().unwrap_or("(none)"),
        reliability.words()
    );
    if let Some(u) = tx.unreachable(&address)? {
        out.push_str(&bounce_line(&u));
    }
    let games: Vec<stats::GameFacts> = stats::games_on_record(tx, None)?
        .into_iter()
        .filter(|f| f.players.iter().flatten().any(|p| *p == address))
        .collect();
    out.push_str(&format!("Games: {}\n", games.len()));
    for f in &games {
        let seats: Vec<usize> = (0..f.players.len())
            .filter(|&s| f.players[s].as_deref() == Some(address.as_str()))
            .collect();
        let named: Vec<&str> = seats.iter().map(|&s| f.seat_names[s].as_str()).collect();
        let result = match &f.standing {
            Standing::InPlay => "in play",
            Standing::Cancelled => "cancelled",
            Standing::Drawn { .. } => "drawn",
            Standing::Won { seat, .. } if seats.contains(seat) => "won",
            Standing::Won { .. } => "lost",
        };
        out.push_str(&format!(
            "  #{} {} ({}): {result}\n",
            f.id,
            f.kind.title(),
            named.join(", ")
        ));
    }
    let mut rated = Vec::new();
    for &kind in GameKind::ALL {
        if !games.iter().any(|f| f.kind == kind) {
            continue;
        }
        if let Some(r) = gm::ratings::standings(tx, kind)?
            .rated
            .into_iter()
            .find(|r| r.player == address)
        {
            rated.push(format!(
                "  {}: {:.0} (±{:.0}), {} rated {}\n",
                kind.title(),
                r.rating,
                2.0 * r.deviation,
                r.games,
                if r.games == 1 { "game" } else { "games" }
            ));
        }
    }
    match rated.is_empty() {
        true => out.push_str("Ratings: none yet (no finished game)\n"),
        false => out.push_str(&format!("Ratings:\n{}", rated.concat())),
    }
    Ok(Some(out))
}
