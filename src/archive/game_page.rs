//! A game's own page: its players, result and dates, its record to download, every comment, its moves with a link to each ply's board.

use super::files::Files;
use super::html::{esc, link, page};
use super::manifest::{self, GameEntry};
use super::people::Person;
use super::{plies, public};
use crate::gamelog::Loaded;
use crate::gm::stats::GameFacts;
use crate::store::{GameRow, MoveRow};

/// One game as the archive draws it.
pub(super) struct Archived<'a> {
    pub(super) g: &'a Loaded,
    pub(super) f: &'a GameFacts,
    pub(super) seats: Vec<Option<&'a Person>>,
}

impl Archived<'_> {
    /// The game's folder under the archive.
    pub(super) fn dir(&self) -> String {
        format!("games/{}", self.f.id)
    }

    /// "Dice Rink" or "Siberian Dice (short)".
    pub(super) fn title(&self) -> String {
        match &self.f.variant {
            Some(v) => format!("{} ({v})", self.f.kind.title()),
            None => self.f.kind.title().to_string(),
        }
    }

    /// The players by name with a link to each one's page (from a game's folder).
    pub(super) fn players_html(&self) -> String {
        let items: Vec<String> = self
            .f
            .seat_names
            .iter()
            .zip(&self.seats)
            .map(|(seat, p)| match p {
                Some(p) => format!(
                    "<li>{}: {}</li>",
                    esc(seat),
                    link(&format!("../../players/{}", p.file), &p.name)
                ),
                None => format!("<li>{}: (open seat)</li>", esc(seat)),
            })
            .collect();
        format!("<ul>{}</ul>\n", items.join(""))
    }
}

/// The names and pages of a game's players, for its fingerprint (a renamed player redraws).
pub(super) fn people_key(seats: &[Option<&Person>]) -> Vec<String> {
    seats
        .iter()
        .map(|p| p.map_or_else(String::new, |p| format!("{} {}", p.name, p.file)))
        .collect()
}

/// The game's fingerprint, and whether the last run left its pages as they must be (the
/// same fingerprint, the page there): then it is neither replayed nor drawn again.
pub(super) fn unchanged(
    files: &mut Files,
    rows: (&GameRow, &[MoveRow]),
    people_key: &[String],
    old: Option<&GameEntry>,
) -> (String, bool) {
    let fingerprint = manifest::fingerprint(rows.0, rows.1, people_key);
    let dir = format!("games/{}", rows.0.id);
    let same = old.is_some_and(|o| o.fingerprint == fingerprint)
        && files.exists(&format!("{dir}/index.html"));
    if same {
        plies::keep(files, &dir, rows.1.len());
    }
    (fingerprint, same)
}

/// Writes the game's files (its fingerprint changed); returns what the manifest keeps of it.
pub(super) fn write(
    files: &mut Files,
    a: &Archived,
    fingerprint: String,
    old: Option<&GameEntry>,
) -> anyhow::Result<GameEntry> {
    let positions = manifest::positions(a.g);
    let dir = a.dir();
    let record = public::record(a.g)?;
    let stem = format!("game-{}", a.f.id);
    files.put(&format!("{dir}/{stem}.pgn"), record.as_bytes())?;
    let json = public::json(a.g, a.f, &record);
    files.put(
        &format!("{dir}/{stem}.json"),
        &serde_json::to_vec_pretty(&json)?,
    )?;
    files.put(&format!("{dir}/index.html"), overview(a, &stem).as_bytes())?;
    let old_positions = old.map_or(&[][..], |o| &o.positions[..]);
    plies::write(files, a, &positions, old_positions)?;
    files.prune(&dir)?;
    Ok(GameEntry {
        fingerprint,
        positions,
    })
}

/// The game's page.
fn overview(a: &Archived, stem: &str) -> String {
    let (f, g) = (a.f, a.g);
    let n = g.moves.len();
    let mut body = format!("<h1>Game {}: {}</h1>\n", f.id, esc(&a.title()));
    body.push_str(&a.players_html());
    body.push_str(&format!(
        "<p><strong>Result:</strong> {}</p>\n<p>Started {}, last played {}; {} plies.</p>\n",
        esc(&public::result(f)),
        g.row.created_at.format("%Y-%m-%d"),
        f.last.format("%Y-%m-%d"),
        n
    ));
    body.push_str(&format!(
        "<p>The record: {} (the record format, for <code>pbem replay</code>) and {}.</p>\n",
        link(&format!("{stem}.pgn"), &format!("{stem}.pgn")),
        link(&format!("{stem}.json"), "as JSON")
    ));
    body.push_str(&format!(
        "<figure><a href=\"ply-{n}.html\"><img src=\"ply-{n}.png\" alt=\"The board {}\"></a>\
         <figcaption>{} {}</figcaption></figure>\n",
        if n == 0 { "at the start" } else { "now" },
        link("ply-0.html", "Step through from the start"),
        if n > 0 {
            format!("or {}", link(&format!("ply-{n}.html"), "see the last ply"))
        } else {
            String::new()
        }
    ));
    let comments: Vec<String> = g
        .moves
        .iter()
        .enumerate()
        .filter_map(|(i, m)| {
            let c = m.comment.as_deref()?;
            Some(format!(
                "<li>{}: <span class=\"comment\">{}</span></li>",
                link(&format!("ply-{}.html", i + 1), &plies::label(i + 1, m)),
                esc(&public::scrub(c))
            ))
        })
        .collect();
    if !comments.is_empty() {
        body.push_str(&format!(
            "<h2>Comments</h2>\n<ul>{}</ul>\n",
            comments.join("\n")
        ));
    }
    body.push_str("<h2>Moves</h2>\n");
    body.push_str(&plies::list(g, None));
    page(
        "../../",
        &format!("Game {}: {}, {}", f.id, a.title(), public::pairing(f)),
        &body,
    )
}
