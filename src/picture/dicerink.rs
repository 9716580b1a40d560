//! Dice Rink's picture: the 4x4 board, each die's top as pips and its front face as a number on the side it faces, the last move's squares marked.

use crate::games::dicerink::position::{Die, Square, SEAT_NAMES, SIZE as FILES};
use crate::games::dicerink::DiceRink;

use super::die::die;
use super::grid::Grid;
use super::legend::{self, Legend};
use super::palette::{ink_on, DICERINK, INK, LAST_MOVE, PAPER};
use super::svg::{Stroke, Svg};

const CELL: f32 = 100.0;
const MARGIN: f32 = 28.0;
const DIE: f32 = 60.0;
/// How far a die sits from its square's centre, away from its front: room for the front face.
const SHIFT: f32 = 6.0;

const BOARD: f32 = CELL * FILES as f32;
pub(super) const SIZE: (u32, u32) = (
    (2.0 * MARGIN + BOARD) as u32,
    (2.0 * MARGIN + BOARD + 2.0 * legend::HEIGHT + 4.0) as u32,
);

const GRID: Grid = Grid {
    x: MARGIN,
    y: MARGIN,
    cell: CELL,
    files: FILES,
    ranks: FILES,
};

pub(super) fn svg(game: &DiceRink) -> Svg {
    let pos = game.position();
    let mut svg = Svg::new(SIZE.0, SIZE.1, PAPER);
    GRID.squares(&mut svg, |_, _, light| Grid::chequer(light));
    GRID.coordinates(&mut svg, MARGIN, 15.0);
    let mut key = Legend::new(MARGIN, MARGIN * 2.0 + BOARD + legend::HEIGHT / 2.0);
    for (seat, name) in SEAT_NAMES.iter().enumerate() {
        key.swatch(&mut svg, DICERINK[seat], name);
    }
    let mut second = Legend::new(MARGIN, MARGIN * 2.0 + BOARD + legend::HEIGHT * 1.5);
    second.text(&mut svg, "tab: the front face (toward the opponent)");
    // The board and the legend's fixed words above; the dice and the marks over them.
    svg.end_of_fixed();
    for sq in game.last_squares() {
        GRID.outline(
            &mut svg,
            sq.file(),
            sq.rank(),
            Stroke::solid(LAST_MOVE, 5.0),
        );
    }
    for d in pos.dice() {
        draw_die(&mut svg, d, game.must_move() == Some(d.square));
    }
    if !game.last_squares().is_empty() {
        key.last_move(&mut svg, "last move");
    }
    if game.must_move().is_some() {
        key.text(&mut svg, "! must move");
    }
    svg
}

/// One die: its top as pips; its front face as a number on a tab on the side toward the
/// opponent (north for A, up the picture; south for B), as a player looking at the die sees
/// that face; `!` when it must move.
fn draw_die(svg: &mut Svg, d: &Die, forced: bool) {
    let (cx, cy) = centre(d.square);
    // +1 down the picture for A (whose front is up), -1 for B.
    let back = if d.owner == 0 { 1.0 } else { -1.0 };
    let cy = cy + back * SHIFT;
    let body = DICERINK[d.owner];
    let edge = cy - back * DIE / 2.0;
    let far = edge - back * 17.0;
    let half = DIE / 2.0;
    svg.polygon(
        &[
            (cx - half + 2.0, edge),
            (cx + half - 2.0, edge),
            (cx + half - 10.0, far),
            (cx - half + 10.0, far),
        ],
        Some(body),
        Some(Stroke::solid(INK, 1.5)),
    );
    svg.label(
        cx,
        (edge + far) / 2.0,
        12.0,
        ink_on(body),
        &d.front().to_string(),
    );
    die(svg, cx, cy, DIE, d.top(), body);
    if forced {
        let (bx, by) = (cx + half - 2.0, cy + back * (half - 2.0));
        svg.circle(bx, by, 11.0, Some(INK), Some(Stroke::solid(PAPER, 2.0)));
        svg.label(bx, by, 15.0, PAPER, "!");
    }
}

fn centre(sq: Square) -> (f32, f32) {
    GRID.centre(sq.file(), sq.rank())
}
