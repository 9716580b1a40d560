//! Siberian Dice's picture: the 37 hexes lettered on the edges, dice in their owners' colours with pips, perfect dice on gold, the last placement; each seat's hand and count, and what the marks mean, under the board (so a phone does not shrink the board to make room beside it).

use crate::games::siberian::board::SEATS;
use crate::games::siberian::hex::{Hex, COLUMN_LENGTHS};
use crate::games::siberian::perfection::perfect_hexes;
use crate::games::siberian::position::Source;
use crate::games::siberian::variant::Variant;
use crate::games::siberian::{Phase, Siberian};
use crate::games::Rules;

use super::die::die;
use super::palette::{Rgb, FAINT, INK, LAST_MOVE, PAPER, SIBERIAN};
use super::svg::{Anchor, Stroke, Svg};

/// A hex's radius (centre to corner); its half height is `R * sqrt(3) / 2`.
const R: f32 = 34.0;
const HALF: f32 = R * 0.866_025_4;
const PAD: f32 = 10.0;
/// Room for the column letters above and below the board.
const LETTERS: f32 = 20.0;
const DIE: f32 = 34.0;
const BOARD_W: f32 = 6.0 * 1.5 * R + 2.0 * R;
const BOARD_H: f32 = 14.0 * HALF;
const TOP: f32 = PAD + LETTERS;
/// Where the panel of seats starts: under the board and its letters.
const PANEL: f32 = TOP + BOARD_H + LETTERS + 8.0;
/// The panel's two columns: seats side by side, then the marks.
const COLUMN: f32 = (BOARD_W + 2.0 * PAD) / 2.0;
/// A seat's rows: name, hand and count, its variant's dice off the board.
const SEAT_H: f32 = 58.0;
const MARK_H: f32 = 28.0;
const PURITY_H: f32 = 44.0;
/// About 400 pixels wide, so a phone shows the board near its own size; at most as tall as
/// the fullest panel (three seats on two rows, PURITY's numbers, four marks on two rows).
pub(super) const SIZE: (u32, u32) = (
    (BOARD_W + 2.0 * PAD) as u32,
    picture_height(SEATS.len(), true),
);

/// As tall as the panel can be for `players` seats (their rows, PURITY's numbers when
/// `purity`, room for every mark).
const fn picture_height(players: usize, purity: bool) -> u32 {
    let seats = players.div_ceil(2) as f32 * SEAT_H;
    let purity = if purity { PURITY_H } else { 0.0 };
    (PANEL + seats + purity + 2.0 * MARK_H + PAD) as u32
}

/// A game's pictures' size, the same for each of its positions.
fn size(game: &Siberian) -> (u32, u32) {
    let cfg = game.config();
    (
        SIZE.0,
        picture_height(cfg.players, cfg.variant == Variant::Purity),
    )
}

const HEX_FILL: Rgb = Rgb(232, 224, 206);
const PERFECT_FILL: Rgb = Rgb(247, 205, 70);

pub(super) fn svg(game: &Siberian) -> Svg {
    let board = &game.position().board;
    let perfect = perfect_hexes(board);
    let (width, height) = size(game);
    let mut svg = Svg::new(width, height, PAPER);
    for h in Hex::all() {
        hex(&mut svg, h, HEX_FILL);
    }
    column_letters(&mut svg);
    panel_marks(&mut svg, game);
    // The plain hexes, the letters and the seats' swatches are the same in every position
    // of a game; a perfect die's gold hex, drawn over its plain one, and the dice and the
    // marks over them change.
    svg.end_of_fixed();
    perfect_mark(&mut svg, game);
    for &h in &perfect {
        hex(&mut svg, h, PERFECT_FILL);
    }
    for h in Hex::all() {
        let (cx, cy) = centre(h);
        match board.at(h) {
            Some(d) => die(&mut svg, cx, cy, DIE, d.pips, SIBERIAN[d.seat]),
            None => svg.label(cx, cy, 12.0, FAINT, &h.to_string()),
        }
    }
    mark_moves(&mut svg, game);
    panel(&mut svg, game);
    svg
}

/// A hex of the board, filled.
fn hex(svg: &mut Svg, h: Hex, fill: Rgb) {
    let (cx, cy) = centre(h);
    svg.polygon(
        &hexagon(cx, cy, R - 1.0),
        Some(fill),
        Some(Stroke::solid(FAINT, 2.0)),
    );
}

/// Half-hex steps up from the board's bottom to a hex's centre: neighbouring columns are
/// offset by half a hex, the middle column (7 hexes) reaching lowest and highest.
fn height(h: Hex) -> f32 {
    let len = COLUMN_LENGTHS[usize::from(h.col())];
    f32::from(2 * h.row() + 7 - len)
}

fn centre(h: Hex) -> (f32, f32) {
    (
        PAD + R + f32::from(h.col()) * 1.5 * R,
        TOP + (15.0 - height(h)) * HALF,
    )
}

/// A flat-topped hexagon's corners.
fn hexagon(cx: f32, cy: f32, r: f32) -> Vec<(f32, f32)> {
    (0..6u8)
        .map(|i| {
            let angle = std::f32::consts::PI / 3.0 * f32::from(i);
            (cx + r * angle.cos(), cy + r * angle.sin())
        })
        .collect()
}

/// Each column's letter above its top hex and below its bottom one.
fn column_letters(svg: &mut Svg) {
    for col in 0..7u8 {
        let len = COLUMN_LENGTHS[usize::from(col)];
        let ends = [Hex::new(col.into(), len.into()), Hex::new(col.into(), 1)];
        let [Some(top), Some(bottom)] = ends else {
            continue;
        };
        let letter = char::from(b'a' + col).to_string();
        let (x, y) = centre(top);
        svg.label(x, y - HALF - LETTERS / 2.0, 15.0, INK, &letter);
        let (x, y) = centre(bottom);
        svg.label(x, y + HALF + LETTERS / 2.0, 15.0, INK, &letter);
    }
}

/// The last placement (solid) and the hex its die was lifted from (dashed), and the die being
/// lifted in the move under way (dashed, in ink).
fn mark_moves(svg: &mut Svg, game: &Siberian) {
    if let Some(last) = game.last() {
        if let Source::Lift(from) = last.source {
            if from != last.target {
                let (cx, cy) = centre(from);
                let stroke = Stroke::dashed(LAST_MOVE, 3.0, 5.0);
                svg.polygon(&hexagon(cx, cy, R - 4.0), None, Some(stroke));
            }
        }
        let (cx, cy) = centre(last.target);
        let stroke = Stroke::solid(LAST_MOVE, 5.0);
        svg.polygon(&hexagon(cx, cy, R - 4.0), None, Some(stroke));
    }
    if let Some(h) = lifting(game) {
        let (cx, cy) = centre(h);
        let stroke = Stroke::dashed(INK, 3.0, 5.0);
        svg.polygon(&hexagon(cx, cy, R - 4.0), None, Some(stroke));
    }
}

/// Under the board: each seat's colour, name, hand and perfect dice (and its variant's
/// dice off the board), two seats a row; PURITY's numbers; then what the marks mean.
fn panel(svg: &mut Svg, game: &Siberian) {
    let cfg = game.config();
    let pos = game.position();
    let counts = game.perfect_counts();
    let over = game.outcome().is_some();
    for seat in 0..cfg.players {
        let (x, y) = seat_at(seat);
        let state = match (pos.retired[seat], seat == pos.to_move && !over) {
            (true, _) => " (left)",
            (false, true) => " to move",
            (false, false) => "",
        };
        let name = format!("{}{state}", SEATS[seat]);
        svg.text(x + 24.0, y + 5.0, 15.0, INK, Anchor::Start, &name);
        let hand = pos.hand(cfg, seat);
        let line = format!("hand {hand}, perfect {}/{}", counts[seat], cfg.target);
        // The numbers change from move to move, the words not: drawn in pieces.
        svg.text_pieces(x + 24.0, y + 23.0, 12.0, INK, &line);
        if let Some(extra) = off_board(game, seat) {
            svg.text_pieces(x + 24.0, y + 39.0, 12.0, INK, &extra);
        }
    }
    if let Some(p) = &pos.purity {
        let y = seats_bottom(game);
        // The panel holds the next few of up to 9999; the count and the "..." say the list
        // goes on (the text board lists it all).
        let count = format!("numbers to come: {}", p.len());
        svg.text_pieces(PAD, y + 10.0, 13.0, INK, &count);
        svg.text_pieces(PAD, y + 28.0, 13.0, INK, &purity_next(p));
    }
    marks(svg, game, marks_top(game));
}

/// Where the seats' rows end (two seats a row): PURITY's numbers start there.
fn seats_bottom(game: &Siberian) -> f32 {
    PANEL + game.config().players.div_ceil(2) as f32 * SEAT_H
}

/// Where the marks' rows start: under the seats and PURITY's numbers.
fn marks_top(game: &Siberian) -> f32 {
    let purity = if game.position().purity.is_some() {
        PURITY_H
    } else {
        0.0
    };
    seats_bottom(game) + purity
}

/// The panel's marks that every position of the game has in one place: each seat's swatch.
fn panel_marks(svg: &mut Svg, game: &Siberian) {
    let seats = SIBERIAN.iter().enumerate().take(game.config().players);
    for (seat, &colour) in seats {
        let (x, y) = seat_at(seat);
        let swatch = Some(Stroke::solid(INK, 1.5));
        svg.rect((x, y - 8.0), (16.0, 16.0), 3.0, Some(colour), swatch);
    }
}

/// The perfect die's gold, the first of the marks: every position has it, but under
/// PURITY's numbers only once there are any (`marks_top`), so it is not in the fixed layer.
fn perfect_mark(svg: &mut Svg, game: &Siberian) {
    let (x, y) = mark_at(marks_top(game), 0);
    let edge = Some(Stroke::solid(FAINT, 2.0));
    svg.polygon(&hexagon(x + 10.0, y, 11.0), Some(PERFECT_FILL), edge);
    svg.text(x + 28.0, y + 5.0, 13.0, INK, Anchor::Start, "perfect die");
}

/// Where a seat's swatch is (its left, its middle).
fn seat_at(seat: usize) -> (f32, f32) {
    (
        PAD + (seat % 2) as f32 * COLUMN,
        PANEL + 10.0 + (seat / 2) as f32 * SEAT_H,
    )
}

/// Where the `i`th mark is (its left, its middle), two a row from `top`.
fn mark_at(top: f32, i: usize) -> (f32, f32) {
    (
        PAD + (i % 2) as f32 * COLUMN,
        top + MARK_H / 2.0 + (i / 2) as f32 * MARK_H,
    )
}

/// What the marks mean, two a row from `top`: the perfect die's gold, and each mark the
/// board shows now.
fn marks(svg: &mut Svg, game: &Siberian, top: f32) {
    let lifted = game
        .last()
        .and_then(|l| l.source.lifted().filter(|&h| h != l.target));
    let marks = [
        (
            game.last().is_some(),
            Stroke::solid(LAST_MOVE, 4.0),
            "last placed",
        ),
        (
            lifted.is_some(),
            Stroke::dashed(LAST_MOVE, 3.0, 4.0),
            "... lifted from",
        ),
        (
            lifting(game).is_some(),
            Stroke::dashed(INK, 3.0, 4.0),
            "being lifted",
        ),
    ];
    let shown = marks.into_iter().filter(|m| m.0);
    for (i, (_, stroke, label)) in shown.enumerate() {
        let (x, y) = mark_at(top, i + 1);
        svg.polygon(&hexagon(x + 10.0, y, 10.0), None, Some(stroke));
        svg.text(x + 28.0, y + 5.0, 13.0, INK, Anchor::Start, label);
    }
}

/// The hex of the die lifted in the move under way, if one is.
fn lifting(game: &Siberian) -> Option<Hex> {
    match game.phase() {
        Phase::Roll(source) | Phase::Place { source, .. } => source.lifted(),
        Phase::Opening | Phase::Declare => None,
    }
}

/// The most digits a panel line holds after its words (kept from the panel beside the
/// board: the text board lists them all).
const PANEL_DIGITS: usize = 13;

/// PURITY's next numbers as digits (as the text board writes them), "..." when more follow.
fn purity_next(numbers: &std::collections::VecDeque<u8>) -> String {
    let next: String = numbers
        .iter()
        .take(PANEL_DIGITS)
        .map(u8::to_string)
        .collect();
    let more = if numbers.len() > PANEL_DIGITS {
        " ..."
    } else {
        ""
    };
    format!("next {next}{more}")
}

/// A seat's dice off the board that its variant shows: STRATEGIC's indicator,
/// GROSSMEISTER's whole sequence, head first, as digits as the text board writes it (at most
/// 13, a seat's dice).
fn off_board(game: &Siberian, seat: usize) -> Option<String> {
    let pos = game.position();
    if let Some(ind) = &pos.indicators {
        return Some(format!("indicator {}", ind[seat]));
    }
    let seqs = pos.sequences.as_ref()?;
    let next: String = seqs[seat].iter().map(u8::to_string).collect();
    Some(format!(
        "next {}",
        if next.is_empty() { "-" } else { &next }
    ))
}
