//! The archive's players: each one's name and the file name of their page (never their address).

use std::collections::{BTreeMap, BTreeSet};

use crate::gm::stats::GameFacts;

/// Every player of the archived games: the player (an address or `robot:LEVEL`, known only
/// here) to their name and their page's file name under `players/`.
#[derive(Debug, Default)]
pub(super) struct People {
    pub(super) by_player: BTreeMap<String, Person>,
}

#[derive(Debug, Clone)]
pub(super) struct Person {
    pub(super) name: String,
    /// `ann.html`; `ann-2.html` for a second player of the same name.
    pub(super) file: String,
}

/// A name as a file name: lowercase letters and digits, a dash for the rest.
fn slug(name: &str) -> String {
    let mut out = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    let out = out.trim_matches('-').to_string();
    match out.is_empty() {
        true => "player".into(),
        false => out,
    }
}

impl People {
    /// The players of `games`, in the order of their first game, so that a later player
    /// who shares a name takes the numbered file and an earlier one's page stays where it was.
    pub(super) fn of(games: &[GameFacts]) -> People {
        let mut first: Vec<(i64, &str, &str)> = Vec::new();
        let mut seen = BTreeSet::new();
        let mut by_id: Vec<&GameFacts> = games.iter().collect();
        by_id.sort_by_key(|f| f.id);
        for f in by_id {
            for (p, shown) in f.players.iter().zip(&f.shown) {
                if let (Some(p), Some(shown)) = (p, shown) {
                    if seen.insert(p.as_str()) {
                        first.push((f.id, p, shown));
                    }
                }
            }
        }
        let mut taken = BTreeSet::new();
        let mut people = People::default();
        for (_, player, shown) in first {
            let name = shown.to_string();
            let base = slug(&name);
            let mut file = format!("{base}.html");
            let mut n = 1;
            while !taken.insert(file.clone()) {
                n += 1;
                file = format!("{base}-{n}.html");
            }
            people
                .by_player
                .insert(player.to_string(), Person { name, file });
        }
        people
    }

    /// Each seat's player of a game: name and page, None for an open seat.
    pub(super) fn seats(&self, f: &GameFacts) -> Vec<Option<&Person>> {
        f.players
            .iter()
            .map(|p| p.as_ref().and_then(|p| self.by_player.get(p)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_plain_file_names() {
        assert_eq!(slug("Ann Smith"), "ann-smith");
        assert_eq!(slug("robot (strong)"), "robot-strong");
        assert_eq!(slug("!!"), "player");
    }
}
