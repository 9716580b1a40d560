//! A player's page: their games and results, and their rating in each game they played.

use super::files::Files;
use super::html::{esc, page};
use super::index::game_item;
use super::people::People;
use crate::games::{GameKind, Outcome};
use crate::gm::ratings;
use crate::gm::stats::GameFacts;

/// How one game went for the player: won, lost, drawn, or where it stands.
fn their_result(f: &GameFacts, player: &str) -> &'static str {
    let mine: Vec<usize> = (0..f.players.len())
        .filter(|s| f.players[*s].as_deref() == Some(player))
        .collect();
    match &f.outcome {
        Some(Outcome::Win { seat, .. }) if mine.contains(seat) => "won",
        Some(Outcome::Draw { seats, .. }) if mine.iter().any(|s| seats.contains(s)) => "drew",
        Some(_) => "lost",
        None => match f.standing {
            crate::gm::stats::Standing::Cancelled => "cancelled",
            _ => "in play",
        },
    }
}

/// Every player's page.
pub(super) fn write(files: &mut Files, games: &[GameFacts], people: &People) -> anyhow::Result<()> {
    let rated: Vec<(GameKind, Vec<ratings::Rated>)> = GameKind::ALL
        .iter()
        .map(|k| (*k, ratings::ratings(games, *k)))
        .collect();
    for (player, p) in &people.by_player {
        let theirs: Vec<&GameFacts> = games
            .iter()
            .rev()
            .filter(|f| f.players.iter().flatten().any(|q| q == player))
            .collect();
        let count = |r: &str| {
            theirs
                .iter()
                .filter(|f| their_result(f, player) == r)
                .count()
        };
        let mut body = format!(
            "<h1>{}</h1>\n<p>{} games: {} won, {} drawn, {} lost, {} in play.</p>\n",
            esc(&p.name),
            theirs.len(),
            count("won"),
            count("drew"),
            count("lost"),
            count("in play")
        );
        let lines: Vec<String> = rated
            .iter()
            .filter_map(|(k, table)| {
                let (i, r) = table
                    .iter()
                    .enumerate()
                    .find(|(_, r)| &r.player == player)?;
                Some(format!(
                    "<li>{}: {:.0} (±{:.0}), {} of {} rated, after {} rated games</li>",
                    esc(k.title()),
                    r.rating,
                    2.0 * r.deviation,
                    ordinal(i + 1),
                    table.len(),
                    r.games
                ))
            })
            .collect();
        body.push_str("<h2>Ratings (Glicko-2)</h2>\n");
        body.push_str(&match lines.is_empty() {
            true => "<p class=\"muted\">Not rated yet: no finished game.</p>\n".into(),
            false => format!("<ul>{}</ul>\n", lines.join("\n")),
        });
        body.push_str("<h2>Games</h2>\n<ul class=\"games\">\n");
        for f in &theirs {
            let item = game_item("../", f);
            let tagged = item.replacen("<li>", &format!("<li>({}) ", their_result(f, player)), 1);
            body.push_str(&tagged);
            body.push('\n');
        }
        body.push_str("</ul>\n");
        files.put(
            &format!("players/{}", p.file),
            page("../", &p.name, &body).as_bytes(),
        )?;
    }
    Ok(())
}

/// "1st", "2nd", "3rd", "11th".
fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}
