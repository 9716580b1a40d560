//! d4 d6 chess's picture: the 8x8 board with its areas tinted, pieces as discs of their side's colour with letters and facing, the last move, the declared piece and its roll.

use crate::games::d4d6::board::{Dir, Sq};
use crate::games::d4d6::pieces::{Color, Kind, Piece};
use crate::games::d4d6::D4d6;

use super::grid::{self, Grid};
use super::legend::{self, Legend};
use super::palette::{ink_on, Rgb, D4D6, INK, LAST_MOVE, PAPER};
use super::svg::{Stroke, Svg};

const GRID: Grid = grid::CHESSBOARD;
const CELL: f32 = GRID.cell;
const MARGIN: f32 = GRID.x;
const DISC: f32 = 21.0;

const BOARD: f32 = CELL * 8.0;
pub(super) const SIZE: (u32, u32) = grid::CHESSBOARD_SIZE;

/// The waiting area (reddish) and the promotion area (yellowish), as the seed's diagram
/// colours them, light and dark squares each.
const WAITING: [Rgb; 2] = [Rgb(226, 168, 156), Rgb(196, 128, 116)];
const PROMOTION: [Rgb; 2] = [Rgb(246, 226, 140), Rgb(214, 186, 90)];
/// A piece's outline on each side's disc.
const DISC_EDGE: [Rgb; 2] = [INK, Rgb(200, 200, 200)];

pub(super) fn svg(game: &D4d6) -> String {
    let pos = game.shown_position();
    let mut svg = Svg::new(SIZE.0, SIZE.1, PAPER);
    GRID.squares(&mut svg, |file, rank, light| {
        square_colour(Sq::new(file as i8, rank as i8), light)
    });
    GRID.coordinates(&mut svg, MARGIN, 14.0);
    for sq in Sq::all().filter(|s| s.is_teleportation()) {
        let (x, y) = GRID.corner(sq.file() as u8, sq.rank() as u8);
        svg.circle(
            x + CELL - 9.0,
            y + CELL - 9.0,
            5.0,
            None,
            Some(Stroke::solid(INK, 2.0)),
        );
    }
    for &sq in game.last_squares() {
        outline(&mut svg, sq, Stroke::solid(LAST_MOVE, 5.0));
    }
    let gamble = game.gamble();
    if let Some((from, _)) = gamble {
        outline(&mut svg, from, Stroke::dashed(INK, 3.0, 6.0));
    }
    for sq in Sq::all() {
        if let Some(piece) = pos.at(sq) {
            draw_piece(&mut svg, sq, piece);
        }
    }
    let mut key = Legend::new(MARGIN, MARGIN * 2.0 + BOARD + legend::HEIGHT / 2.0);
    for colour in [Color::White, Color::Black] {
        key.swatch(&mut svg, D4D6[colour.index()], colour.name());
    }
    if !game.last_squares().is_empty() {
        key.last_move(&mut svg, "last move");
    }
    match gamble {
        Some((from, Some(roll))) => {
            key.text(&mut svg, &format!("{from} rolled"));
            key.die(&mut svg, roll.min(6) as u8, PAPER);
        }
        Some((from, None)) => key.text(&mut svg, &format!("{from} declared")),
        None => {}
    }
    svg.finish()
}

fn square_colour(sq: Option<Sq>, light: bool) -> Rgb {
    let shade = usize::from(!light);
    match sq {
        Some(s) if s.is_promotion() => PROMOTION[shade],
        Some(s) if s.is_waiting() => WAITING[shade],
        _ => Grid::chequer(light),
    }
}

fn outline(svg: &mut Svg, sq: Sq, stroke: Stroke) {
    GRID.outline(svg, sq.file() as u8, sq.rank() as u8, stroke);
}

/// A disc in the side's colour with the piece's letters; a Cavalo or Rinoceronte has a nose
/// pointing where it faces (`?` after its letters while its facing is not rolled yet).
fn draw_piece(svg: &mut Svg, sq: Sq, piece: Piece) {
    let (cx, cy) = GRID.centre(sq.file() as u8, sq.rank() as u8);
    let side = piece.color.index();
    let (fill, edge) = (D4D6[side], DISC_EDGE[side]);
    svg.circle(cx, cy, DISC, Some(fill), Some(Stroke::solid(edge, 2.0)));
    if let Some(dir) = piece.facing {
        // Over the disc's rim, in the outline's colour: it reads on the disc and the square.
        svg.polygon(&nose(cx, cy, dir), Some(edge), None);
    }
    let mut letters = piece.kind.letters().to_string();
    if piece.facing.is_none() && piece.kind == Kind::Rinoceronte {
        letters.push('?');
    }
    svg.label(cx, cy, 17.0, ink_on(fill), &letters);
}

/// A triangle from inside the disc's rim out to near the square's edge, toward `dir` (north
/// is up).
fn nose(cx: f32, cy: f32, dir: Dir) -> [(f32, f32); 3] {
    let (df, dr) = dir.delta();
    let len = f32::from(df * df + dr * dr).sqrt();
    let (ux, uy) = (f32::from(df) / len, -f32::from(dr) / len);
    let (px, py) = (-uy, ux);
    let tip = if dir.is_orthogonal() { 28.0 } else { 34.0 };
    let (base, half) = (DISC - 5.0, 7.0);
    [
        (cx + ux * tip, cy + uy * tip),
        (cx + ux * base + px * half, cy + uy * base + py * half),
        (cx + ux * base - px * half, cy + uy * base - py * half),
    ]
}
