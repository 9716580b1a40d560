//! The archive's indexes: every game by date (the front page), by game kind and by player, each a plain page so no script is needed to sort.

use std::collections::BTreeMap;

use super::files::Files;
use super::html::{esc, link, page};
use super::people::People;
use super::public;
use crate::gm::stats::GameFacts;

/// One game's line in a list, its links relative to `root` (the way to the archive's top).
pub(super) fn game_item(root: &str, f: &GameFacts) -> String {
    let title = match &f.variant {
        Some(v) => format!("{} ({v})", f.kind.title()),
        None => f.kind.title().to_string(),
    };
    let last = f.last.format("%Y-%m-%d");
    let first = (f.last - chrono::Duration::days(f.days)).format("%Y-%m-%d");
    format!(
        "<li>{}: {}, {}; {}; {}</li>",
        link(
            &format!("{root}games/{}/index.html", f.id),
            &format!("Game {}", f.id)
        ),
        esc(&title),
        esc(&public::pairing(f)),
        esc(&public::result(f)),
        match first.to_string() == last.to_string() {
            true => format!("{last}"),
            false => format!("{first} to {last}"),
        }
    )
}

fn list<'a>(root: &str, games: impl Iterator<Item = &'a GameFacts>) -> String {
    let items: Vec<String> = games.map(|f| game_item(root, f)).collect();
    match items.is_empty() {
        true => "<p class=\"muted\">No game is on record yet.</p>\n".into(),
        false => format!("<ul class=\"games\">\n{}\n</ul>\n", items.join("\n")),
    }
}

/// The three indexes. `games` come in the order they were last played.
pub(super) fn write(files: &mut Files, games: &[GameFacts], people: &People) -> anyhow::Result<()> {
    let newest = || games.iter().rev();
    let kinds: Vec<String> = crate::games::GameKind::ALL
        .iter()
        .filter(|k| games.iter().any(|f| f.kind == **k))
        .map(|k| link(&format!("kinds/{}.html", k.name()), k.title()))
        .collect();
    let mut body = format!(
        "<h1>The games on record</h1>\n<p>{} games, the latest first. Statistics and ratings \
         per game: {}.</p>\n",
        games.len(),
        if kinds.is_empty() {
            "none yet".into()
        } else {
            kinds.join(", ")
        }
    );
    body.push_str(&list("", newest()));
    files.put(
        "index.html",
        page("", "The games on record", &body).as_bytes(),
    )?;

    let mut body = String::from("<h1>The games by game</h1>\n");
    for k in crate::games::GameKind::ALL {
        if !games.iter().any(|f| f.kind == *k) {
            continue;
        }
        body.push_str(&format!(
            "<h2>{}</h2>\n<p>{}</p>\n",
            esc(k.title()),
            link(
                &format!("kinds/{}.html", k.name()),
                "statistics, ratings and chart"
            )
        ));
        body.push_str(&list("", newest().filter(|f| f.kind == *k)));
    }
    files.put(
        "by-game.html",
        page("", "The games by game", &body).as_bytes(),
    )?;

    let mut by_name: BTreeMap<(String, String), &str> = BTreeMap::new();
    for (player, p) in &people.by_player {
        by_name.insert((p.name.to_lowercase(), p.file.clone()), player);
    }
    let mut body = String::from("<h1>The games by player</h1>\n");
    for player in by_name.values() {
        let p = &people.by_player[*player];
        body.push_str(&format!(
            "<h2>{}</h2>\n",
            link(&format!("players/{}", p.file), &p.name)
        ));
        let theirs = newest().filter(|f| f.players.iter().flatten().any(|q| q == player));
        body.push_str(&list("", theirs));
    }
    files.put(
        "by-player.html",
        page("", "The games by player", &body).as_bytes(),
    )
}
