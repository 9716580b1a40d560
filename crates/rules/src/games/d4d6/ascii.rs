//! The board as plain text for mail: 8x8, waiting area marked, pieces by letters and colour,
//! facings, the last move's squares; at most 72 columns.

use super::board::Sq;
use super::pieces::{Color, Kind, Piece};
use super::position::Position;

/// A piece's cell text: White in capitals (`FO`), Black in small letters (`fo`), then the
/// facing of a Cavalo or Rinoceronte (`CAN`, `caS`, `RINE`).
fn code(p: Piece) -> String {
    let letters = p.kind.letters();
    let mut s = match p.color {
        Color::White => letters.to_ascii_uppercase(),
        Color::Black => letters.to_ascii_lowercase(),
    };
    match p.facing {
        Some(f) => s.push_str(f.name()),
        // A Rinoceronte before the GM's opening roll: its facing is not known yet.
        None if p.kind == Kind::Rinoceronte => s.push('?'),
        None => {}
    }
    s
}

/// Renders the board; `marked` squares (the last move's start and end) get a `*`; `notes`
/// are printed under it.
pub fn render(pos: &Position, marked: &[Sq], notes: &[String]) -> String {
    let mut out = String::new();
    let files = "     a     b     c     d     e     f     g     h\n";
    out.push_str(files);
    for rank in (0..8).rev() {
        out.push_str(&format!("{} ", rank + 1));
        for file in 0..8 {
            let sq = Sq::new(file, rank).expect("square");
            let mark = if marked.contains(&sq) { '*' } else { ' ' };
            let cell = match (pos.at(sq), sq.is_waiting()) {
                (Some(p), false) => format!("{mark}{:<4} ", code(p)),
                (None, false) => format!("{mark} .   "),
                (Some(p), true) => format!("{mark}{:~<4}~", code(p)),
                (None, true) if sq.is_teleportation() => format!("{mark}~~@~~"),
                (None, true) => format!("{mark}~~~~~"),
            };
            out.push_str(&cell);
        }
        out.push_str(&format!(" {}\n", rank + 1));
    }
    out.push_str(files);
    out.push_str("WHITE in capitals, black in small letters; ~ waiting area, @ teleport\n");
    out.push_str(&key(pos));
    for n in notes {
        out.push_str(n);
        out.push('\n');
    }
    out
}

/// The pieces' letters and what follows them: a Rinoceronte (and its facing roll) only
/// where one is on the board, so a standard game's key names none.
fn key(pos: &Position) -> String {
    let pieces = Sq::all().filter_map(|sq| pos.at(sq));
    let (mut rino, mut unrolled) = (false, false);
    for p in pieces.filter(|p| p.kind == Kind::Rinoceronte) {
        rino = true;
        unrolled |= p.facing.is_none();
    }
    format!(
        "Ra Rato Ca Cavalo Fo Formiga Ga Gata Go Gato Gu Guarda{}\n\
         N E S W: facing{}; * last move\n",
        if rino { " Ri Rinoceronte" } else { "" },
        if unrolled { " (? not rolled yet)" } else { "" },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::d4d6::board::Dir;

    #[test]
    fn the_key_names_a_rinoceronte_only_where_one_stands() {
        let standard = render(&Position::start(None), &[], &[]);
        assert!(
            !standard.contains("Ri") && !standard.contains("rolled"),
            "{standard}"
        );
        assert!(standard.contains("Gu Guarda\nN E S W: facing; * last move\n"));
        let variant = render(&Position::start(Some((Dir::NE, Dir::SW))), &[], &[]);
        assert!(
            variant.contains("Gu Guarda Ri Rinoceronte\nN E S W: facing; *"),
            "{variant}"
        );
    }
}
