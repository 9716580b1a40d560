//! Each ply's page: the board after it as a picture drawn once and kept, the move list, and plain links to step through (first, previous, next, last).

use anyhow::anyhow;

use super::files::Files;
use super::game_page::Archived;
use super::html::{esc, link, page};
use super::public;
use crate::gamelog::Loaded;
use crate::picture;
use crate::records;
use crate::store::MoveRow;

/// "3. A: 5W6".
pub(super) fn label(k: usize, m: &MoveRow) -> String {
    format!("{k}. {}: {}", m.actor, m.text)
}

/// A ply's comment after it, in parentheses (nothing when it has none).
fn comment(m: &MoveRow) -> String {
    m.comment
        .as_deref()
        .map(|c| {
            format!(
                " <span class=\"comment\">({})</span>",
                esc(&public::scrub(c))
            )
        })
        .unwrap_or_default()
}

/// How many plies a ply's page lists before and after its own: the whole list is the game's
/// page's, so that a game of many plies does not repeat all of them on each ply's page.
const AROUND: usize = 20;

/// The game's plies as a list, each a link to its page: all of them (the game's page), or,
/// with `current` marked, those within `AROUND` of it (a ply's page).
pub(super) fn list(g: &Loaded, current: Option<usize>) -> String {
    if g.moves.is_empty() {
        return "<p class=\"muted\">No move yet.</p>\n".into();
    }
    let (from, to) = match current {
        Some(k) => (k.saturating_sub(AROUND).max(1), k + AROUND),
        None => (1, g.moves.len()),
    };
    let items: Vec<String> = g
        .moves
        .iter()
        .enumerate()
        .skip(from - 1)
        .take(to + 1 - from)
        .map(|(i, m)| {
            let k = i + 1;
            let text = format!("{}: {}", m.actor, m.text);
            let entry = match current == Some(k) {
                true => format!(
                    "<span class=\"here\" aria-current=\"page\">{}</span>",
                    esc(&text)
                ),
                false => link(&format!("ply-{k}.html"), &text),
            };
            format!("<li>{entry}{}</li>", comment(m))
        })
        .collect();
    let cut = from > 1 || to < g.moves.len();
    let whole = match cut {
        true => format!(
            "<p>{}</p>\n",
            link("index.html", "Every ply on the game's page")
        ),
        false => String::new(),
    };
    format!(
        "<ol class=\"plies\" start=\"{from}\">\n{}\n</ol>\n{whole}",
        items.join("\n")
    )
}

/// Marks a skipped game's ply files as still right.
pub(super) fn keep(files: &mut Files, dir: &str, plies: usize) {
    for k in 0..=plies {
        files.keep(&format!("{dir}/ply-{k}.html"));
        files.keep(&format!("{dir}/ply-{k}.png"));
    }
}

/// Every ply's page, and its picture where the position is new since the last run (or its
/// file is gone): a picture of a position already drawn is kept as it is.
pub(super) fn write(
    files: &mut Files,
    a: &Archived,
    positions: &[String],
    old_positions: &[String],
) -> anyhow::Result<()> {
    let g = a.g;
    let dir = a.dir();
    let n = g.moves.len();
    let mut game = g.start.clone();
    for k in 0..=n {
        if k > 0 {
            let m = &g.moves[k - 1];
            let actor = records::actor_by_name(&game, &m.actor)
                .ok_or_else(|| anyhow!("game {} ply {k}: unknown actor {}", a.f.id, m.actor))?;
            game.play(actor, &m.text)
                .map_err(|e| anyhow!("game {} ply {k} does not replay: {e}", a.f.id))?;
        }
        let png = format!("{dir}/ply-{k}.png");
        if old_positions.get(k) == positions.get(k) && files.exists(&png) {
            files.keep(&png);
        } else {
            let bytes =
                picture::board_png(&game).map_err(|e| anyhow!("game {} ply {k}: {e}", a.f.id))?;
            files.put(&png, &bytes)?;
        }
        files.put(&format!("{dir}/ply-{k}.html"), ply_page(a, k).as_bytes())?;
    }
    Ok(())
}

/// The page of the position after ply `k` (0: the start).
fn ply_page(a: &Archived, k: usize) -> String {
    let (g, f) = (a.g, a.f);
    let n = g.moves.len();
    let step = |to: usize, text: &str, enabled: bool| match enabled {
        true => link(&format!("ply-{to}.html"), text),
        false => format!("<span class=\"muted\">{text}</span>"),
    };
    let nav = format!(
        "<nav>{}{}{}{}{}</nav>\n",
        step(0, "« first", k > 0),
        step(k.saturating_sub(1), "‹ previous", k > 0),
        step(k + 1, "next ›", k < n),
        step(n, "last »", k < n),
        link("index.html", "the game")
    );
    let (what, alt) = match k {
        0 => (
            "The start".to_string(),
            "The board at the start".to_string(),
        ),
        _ => {
            let m = &g.moves[k - 1];
            (
                format!("{}{}", esc(&label(k, m)), comment(m)),
                format!("The board after {}", label(k, m)),
            )
        }
    };
    let mut body = format!(
        "<h1>Game {}: {}</h1>\n<p>{}</p>\n{nav}",
        f.id,
        esc(&a.title()),
        esc(&public::pairing(f))
    );
    body.push_str(&format!(
        "<p>Ply {k} of {n}: {what}</p>\n<figure><img src=\"ply-{k}.png\" alt=\"{}\"></figure>\n",
        esc(&alt)
    ));
    if k == n {
        body.push_str(&format!(
            "<p><strong>Result:</strong> {}</p>\n",
            esc(&public::result(f))
        ));
    }
    body.push_str(&nav);
    body.push_str("<h2>Moves</h2>\n");
    body.push_str(&list(g, Some(k)));
    page(
        "../../",
        &format!("Game {}, ply {k} of {n}: {}", f.id, a.title()),
        &body,
    )
}
