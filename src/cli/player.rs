//! `pbem player games|digest|vacation|password|name`: a player's own settings, set by the GM.

use std::path::Path;

use super::{say, seat_turns, Exit, PlayerCmd};
use crate::store::Store;
use crate::{edge, gm};

pub(super) fn run(db: &Path, cmd: PlayerCmd) -> anyhow::Result<Exit> {
    match cmd {
        PlayerCmd::Games { email } => {
            let mut store = Store::open(db, false)?;
            seat_turns::games_of(&mut store, &email)
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
