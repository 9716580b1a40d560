//! What a player is called wherever pbem shows them: their name (`pbem player name`, `NAME` by mail, at first their From's display name), else their address's local part, a robot in words; and how much of a player each reader may see (`Reveal`).

use std::collections::BTreeMap;

use crate::gamelog::Loaded;
use crate::store::{SeatRow, Tx};

/// The longest name, in characters: it fits a ratings table's column and a mail's line.
pub const MAX_NAME_CHARS: usize = 40;

/// How much of a player a text shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reveal {
    /// The name (else the address's local part): records, statistics, ratings, the archive.
    Names,
    /// The name with the address, "Ann Smith <ann@example.org>" (the address alone when the
    /// player has no name): the GM's own listings, and the mails of a game that is not
    /// anonymous, where the players write to each other as they like.
    Addresses,
    /// Neither: the seat alone (an anonymous game's mails to its players, for gunboat play).
    Seats,
}

/// How much the mails to a game's players show of the other players: everything as before,
/// or nothing but the seats when the game is `anonymous`.
pub fn in_mail(g: &Loaded) -> Reveal {
    if super::options::of(g).anonymous {
        Reveal::Seats
    } else {
        Reveal::Addresses
    }
}

/// A name as a player or the GM wrote it, trimmed, or why it cannot be one (in words). A
/// name is shown to other players and in every record, so it may not pass for an address or
/// a robot, nor carry what acts on a reader's screen.
pub fn checked(raw: &str) -> Result<String, String> {
    let name = raw.trim();
    let chars = name.chars().count();
    if chars == 0 {
        return Err("a name needs at least one character".into());
    }
    if chars > MAX_NAME_CHARS {
        return Err(format!(
            "a name has at most {MAX_NAME_CHARS} characters (this one has {chars})"
        ));
    }
    if name.contains('@') {
        return Err("a name may not hold '@': it would read as an address".into());
    }
    if name
        .chars()
        .any(|c| c.is_control() || crate::invisible::is_invisible(c))
    {
        return Err("a name may hold only printable characters".into());
    }
    let lower = name.to_lowercase();
    if lower == "robot" || lower.starts_with("robot (") || lower.starts_with("robot:") {
        return Err("that is how the robots are named: choose another name".into());
    }
    Ok(name.to_string())
}

/// The name shown for a player without one: the address's local part (`ann` for
/// `ann@example.org`), a robot (`robot:LEVEL`) as `robot (strong)`.
pub fn fallback(player: &str) -> String {
    if let Some(level) = player.strip_prefix("robot:") {
        return super::robots::robot_words(level);
    }
    player.split('@').next().unwrap_or(player).to_string()
}

/// The one answer to "what is this player called": their name, else `fallback`. `player` is
/// an address or `robot:LEVEL`.
pub fn shown(tx: &Tx, player: &str) -> anyhow::Result<String> {
    if player.starts_with("robot:") {
        return Ok(fallback(player));
    }
    Ok(tx.player_name(player)?.unwrap_or_else(|| fallback(player)))
}

/// Every player's shown name, loaded once for a listing of many.
#[derive(Debug, Clone, Default)]
pub struct Names(BTreeMap<String, String>);

impl Names {
    pub fn load(tx: &Tx) -> anyhow::Result<Names> {
        Ok(Names(
            tx.player_names()?
                .into_iter()
                .map(|(email, name)| (email.to_ascii_lowercase(), name))
                .collect(),
        ))
    }

    /// As `shown`, from the loaded names.
    pub fn of(&self, player: &str) -> String {
        self.0
            .get(&player.to_ascii_lowercase())
            .cloned()
            .unwrap_or_else(|| fallback(player))
    }
}

/// Who sits in a seat, shown as `reveal` allows: None for an open seat. A robot is a robot
/// at every level of reveal (its plies are marked in the record anyway); a player of an
/// anonymous game is "anonymous".
pub fn seat_holder(s: &SeatRow, reveal: Reveal) -> Option<String> {
    let Some(email) = &s.email else {
        return s.robot.as_deref().map(super::robots::robot_words);
    };
    Some(match (reveal, &s.name) {
        (Reveal::Seats, _) => "anonymous".into(),
        (Reveal::Names, Some(name)) => name.clone(),
        (Reveal::Names, None) => fallback(email),
        (Reveal::Addresses, Some(name)) => format!("{name} <{email}>"),
        (Reveal::Addresses, None) => email.clone(),
    })
}

/// Sets (a checked name) or removes (None) a player's name; the name kept, or why not. A
/// name another player already has is refused: the ratings and records would not tell
/// them apart.
pub fn set_name(
    tx: &Tx,
    email: &str,
    name: Option<&str>,
) -> anyhow::Result<Result<Option<String>, String>> {
    let name = match name.map(checked).transpose() {
        Ok(name) => name,
        Err(why) => return Ok(Err(why)),
    };
    if let Some(n) = &name {
        if let Some(other) = tx.player_named(n)? {
            if !other.eq_ignore_ascii_case(email.trim()) {
                return Ok(Err("another player already has that name".into()));
            }
        }
    }
    tx.set_player_name(email, name.as_deref())?;
    Ok(Ok(name))
}

/// A player new from this mail takes its From's display name, when it is one a player
/// could choose (else they stay nameless, shown by their address's local part).
pub fn take_from_header(tx: &Tx, email: &str, display: Option<&str>) -> anyhow::Result<()> {
    if let Some(display) = display {
        if tx.player_exists(email)? && tx.player_name(email)?.is_none() {
            // A name that does not pass is simply not taken: nobody asked for it.
            let _ = set_name(tx, email, Some(display))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_a_name_the_local_part_or_the_robot() {
        assert_eq!(fallback("ann@example.org"), "ann");
        assert_eq!(fallback("robot:strong"), "robot (strong)");
    }

    #[test]
    fn a_name_is_trimmed_and_checked_in_words() {
        assert_eq!(checked("  Ann Smith ").unwrap(), "Ann Smith");
        assert_eq!(checked("Gréta Hall").unwrap(), "Gréta Hall");
        assert!(checked("   ").unwrap_err().contains("at least one"));
        assert!(checked(&"x".repeat(41)).unwrap_err().contains("at most 40"));
        assert!(checked(&"é".repeat(40)).is_ok());
        assert!(checked("ann@example.org").unwrap_err().contains("'@'"));
        assert!(checked("Ann\tSmith").unwrap_err().contains("printable"));
        assert!(checked("Ann\u{202E}htimS")
            .unwrap_err()
            .contains("printable"));
        assert!(checked("Robot (strong)").unwrap_err().contains("robots"));
        assert!(checked("Robota").is_ok());
    }
}
