//! Dicess's picture: the 8x8 board from LIGHT's side, dice in their side's colour with pips, each side's two star squares, the last turn's paths.

use crate::games::dicess::position::{Square, DARK, LIGHT, SEAT_NAMES};
use crate::games::dicess::Dicess;

use super::die::die;
use super::grid::{self, Grid};
use super::legend::{self, Legend};
use super::palette::{Rgb, DICESS, INK, LAST_MOVE, PAPER};
use super::svg::{Stroke, Svg};

const GRID: Grid = grid::CHESSBOARD;
const CELL: f32 = GRID.cell;
const MARGIN: f32 = GRID.x;
const DIE: f32 = 42.0;

const BOARD: f32 = CELL * 8.0;
/// The star squares' own colour, which shows around a die standing on one.
const STAR_SQUARE: Rgb = Rgb(150, 190, 200);
pub(super) const SIZE: (u32, u32) = grid::CHESSBOARD_SIZE;

pub(super) fn svg(game: &Dicess) -> Svg {
    let board = game.position();
    let mut svg = Svg::new(SIZE.0, SIZE.1, PAPER);
    GRID.squares(&mut svg, |file, rank, light| {
        let star = Square::new(file, rank).is_some_and(Square::is_star);
        if star {
            STAR_SQUARE
        } else {
            Grid::chequer(light)
        }
    });
    GRID.coordinates(&mut svg, MARGIN, 14.0);
    for sq in Square::all().filter(|s| s.is_star()) {
        // A star square belongs to the side whose back rank it is on (the other side's goal).
        let side = if sq.rank() == 0 { LIGHT } else { DARK };
        star(&mut svg, sq, side);
    }
    let mut key = Legend::new(MARGIN, MARGIN * 2.0 + BOARD + legend::HEIGHT / 2.0);
    for (side, name) in SEAT_NAMES.iter().enumerate() {
        key.swatch(&mut svg, DICESS[side], name);
    }
    key.swatch(&mut svg, STAR_SQUARE, "star squares");
    // The board, its stars and the legend's fixed words above; the dice and paths over them.
    svg.end_of_fixed();
    let paths = game.last_paths();
    for path in paths {
        draw_path(&mut svg, path);
    }
    for (sq, d) in board.dice() {
        let (cx, cy) = centre(sq);
        die(&mut svg, cx, cy, DIE, d.number, DICESS[d.side]);
    }
    for sq in paths.iter().flatten() {
        GRID.outline(
            &mut svg,
            sq.file(),
            sq.rank(),
            Stroke::solid(LAST_MOVE, 3.0),
        );
    }
    if !paths.is_empty() {
        key.last_move(&mut svg, "last turn");
    }
    svg
}

fn centre(sq: Square) -> (f32, f32) {
    GRID.centre(sq.file(), sq.rank())
}

/// A five-pointed star filling the square, in its side's colour: a die standing on the square
/// hides it, and the square's own colour still tells it.
fn star(svg: &mut Svg, sq: Square, side: usize) {
    let (cx, cy) = centre(sq);
    let points: Vec<(f32, f32)> = (0..10u8)
        .map(|i| {
            let r = if i % 2 == 0 { 20.0 } else { 8.5 };
            let angle = std::f32::consts::PI * (f32::from(i) / 5.0 - 0.5);
            (cx + r * angle.cos(), cy + 1.5 + r * angle.sin())
        })
        .collect();
    svg.polygon(&points, Some(DICESS[side]), Some(Stroke::solid(INK, 1.5)));
}

/// A path as a line from square centre to square centre, under the dice: it shows in the
/// squares the dice left and between them.
fn draw_path(svg: &mut Svg, path: &[Square]) {
    let points: Vec<(f32, f32)> = path.iter().map(|&s| centre(s)).collect();
    svg.polyline(&points, Stroke::solid(LAST_MOVE, 6.0));
    if let Some(&(x, y)) = points.first() {
        svg.circle(x, y, 7.0, Some(LAST_MOVE), None);
    }
}
