//! What of a game the archive may show: players by name, the record without addresses or secrets, the result in words.

use crate::gamelog::Loaded;
use crate::games::Outcome;
use crate::gm::{self, stats::GameFacts, stats::Standing};
use crate::store::GameStatus;

/// Each seat's player by name, `(open seat)` for one nobody took.
pub(super) fn seat_players(f: &GameFacts) -> Vec<String> {
    f.shown
        .iter()
        .map(|p| p.clone().unwrap_or_else(|| "(open seat)".into()))
        .collect()
}

/// "A (ann) v B (bob)".
pub(super) fn pairing(f: &GameFacts) -> String {
    let names = seat_players(f);
    f.seat_names
        .iter()
        .zip(&names)
        .map(|(s, n)| format!("{s} ({n})"))
        .collect::<Vec<_>>()
        .join(" v ")
}

/// The result in words: who won and why, a draw and why, cancelled, in play.
pub(super) fn result(f: &GameFacts) -> String {
    let seat = |s: usize| f.seat_names.get(s).cloned().unwrap_or_default();
    scrub(&match (&f.outcome, &f.standing) {
        (Some(Outcome::Win { seat: s, reason }), _) => format!("{} won: {reason}", seat(*s)),
        (Some(Outcome::Draw { reason, .. }), _) => format!("drawn: {reason}"),
        (None, Standing::Cancelled) => "cancelled".into(),
        (None, _) => "in play".into(),
    })
}

/// A word with an `@` in it cut to what comes before it (an address becomes its local
/// part): the last guard for text a player or a GM wrote (comments, an event's name).
pub(super) fn scrub(text: &str) -> String {
    if !text.contains('@') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        out.push_str(word.split('@').next().unwrap_or_default());
        word.clear();
    };
    for c in text.chars() {
        if c.is_whitespace() || "\"<>(){}[],;".contains(c) {
            flush(&mut word, &mut out);
            out.push(c);
        } else {
            word.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

/// The game's record as the archive publishes it: the export (its players by name, as
/// `gm::names` shows them: a name never holds `@`), the salts only once they are fixed, the
/// dice seed only of a finished game (and only when the record reveals it anyway), and any
/// address a GM or player wrote in a tag (an event's name) or a comment cut (a move's own
/// text is left alone: d4d6 writes `S@b7`).
pub(super) fn record(g: &Loaded) -> anyhow::Result<String> {
    let text = gm::export(g)?;
    let mut out = String::with_capacity(text.len());
    let mut depth = 0usize;
    for line in text.lines() {
        if depth == 0 && line.starts_with('[') {
            let secret_salt = line.starts_with("[DiceSalt") && !g.row.salts_fixed;
            let secret_seed = line.starts_with("[DiceSeed") && g.row.status != GameStatus::Finished;
            if secret_salt || secret_seed {
                continue;
            }
            out.push_str(&scrub(line));
        } else {
            out.push_str(&scrub_comments(line, &mut depth));
        }
        out.push('\n');
    }
    Ok(out)
}

/// A line of moves with the words inside `{...}` comments scrubbed; `depth` carries an open
/// comment to the next line.
fn scrub_comments(line: &str, depth: &mut usize) -> String {
    let mut out = String::with_capacity(line.len());
    let mut comment = String::new();
    for c in line.chars() {
        match c {
            '{' => {
                *depth += 1;
                out.push(c);
            }
            '}' if *depth > 0 => {
                out.push_str(&scrub(&std::mem::take(&mut comment)));
                *depth -= 1;
                out.push(c);
            }
            c if *depth > 0 => comment.push(c),
            c => out.push(c),
        }
    }
    out.push_str(&scrub(&comment));
    out
}

/// The game as JSON beside its record: the players by name, each ply with its comment, the
/// published record.
pub(super) fn json(g: &Loaded, f: &GameFacts, record: &str) -> serde_json::Value {
    let players: serde_json::Map<String, serde_json::Value> = f
        .seat_names
        .iter()
        .zip(seat_players(f))
        .map(|(s, n)| (s.clone(), serde_json::json!(n)))
        .collect();
    let plies: Vec<serde_json::Value> = g
        .moves
        .iter()
        .map(|m| {
            serde_json::json!({
                "ply": m.ply,
                "actor": m.actor,
                "text": m.text,
                "comment": m.comment.as_deref().map(scrub),
                "robot": m.robot,
                "at": crate::store::ts(m.at),
            })
        })
        .collect();
    serde_json::json!({
        "id": f.id,
        "game": f.kind.name(),
        "title": f.kind.title(),
        "variant": f.variant,
        "status": g.row.status,
        "result": result(f),
        "players": players,
        "plies": plies,
        "record": record,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_in_free_text_is_cut_to_its_local_part() {
        assert_eq!(
            scrub("ask ann@example.org (or bob@x.y)"),
            "ask ann (or bob)"
        );
        assert_eq!(scrub("no address"), "no address");
    }

    #[test]
    fn only_comments_are_scrubbed_in_moves() {
        let mut depth = 0;
        let line = scrub_comments("e5xd7/S@b7 {ann@x.org says} a1-a2 {open", &mut depth);
        assert_eq!(line, "e5xd7/S@b7 {ann says} a1-a2 {open");
        assert_eq!(depth, 1);
        assert_eq!(scrub_comments("bob@y.z} b1", &mut depth), "bob} b1");
    }
}
