//! A game kind's page: the statistics `pbem stats` gives, the ratings, and the chart of results by seat over time.

use super::files::Files;
use super::html::{esc, link, page};
use super::index::game_item;
use super::{chart, people::People, public};
use crate::games::GameKind;
use crate::gm::{ratings, stats};

/// Every kind's page that has a game on record, and its chart beside it.
pub(super) fn write(
    files: &mut Files,
    games: &[stats::GameFacts],
    people: &People,
) -> anyhow::Result<()> {
    for kind in GameKind::ALL {
        let of_kind: Vec<&stats::GameFacts> = games.iter().filter(|f| f.kind == *kind).collect();
        if of_kind.is_empty() {
            continue;
        }
        let name = kind.name();
        files.put(
            &format!("kinds/{name}-chart.svg"),
            chart::svg(&of_kind).as_bytes(),
        )?;
        let mut body = format!(
            "<h1>{}</h1>\n<h2>Statistics</h2>\n<pre>{}</pre>\n",
            esc(kind.title()),
            esc(&public::scrub(&stats::report(games, Some(*kind))))
        );
        body.push_str(&format!(
            "<h2>Results by seat over time</h2>\n<figure><img src=\"{name}-chart.svg\" \
             alt=\"Each seat's wins and the draws, counted over the finished games in the order \
             they ended\"></figure>\n"
        ));
        body.push_str("<h2>Ratings (Glicko-2)</h2>\n");
        let table = ratings::ratings(games, *kind);
        if table.is_empty() {
            body.push_str("<p class=\"muted\">Nobody is rated yet: no finished game.</p>\n");
        } else {
            body.push_str("<ol>\n");
            for r in &table {
                let who = match people.by_player.get(&r.player) {
                    Some(p) => link(&format!("../players/{}", p.file), &p.name),
                    None => esc(&r.shown),
                };
                body.push_str(&format!(
                    "<li>{who}: {:.0} (±{:.0}), {} {}</li>\n",
                    r.rating,
                    2.0 * r.deviation,
                    r.games,
                    if r.games == 1 { "game" } else { "games" }
                ));
            }
            body.push_str("</ol>\n");
        }
        body.push_str("<h2>Games</h2>\n<ul class=\"games\">\n");
        for f in of_kind.iter().rev() {
            body.push_str(&game_item("../", f));
            body.push('\n');
        }
        body.push_str("</ul>\n");
        files.put(
            &format!("kinds/{name}.html"),
            page("../", kind.title(), &body).as_bytes(),
        )?;
    }
    Ok(())
}
