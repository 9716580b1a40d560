//! d4 d6 chess's picture: the 8x8 board with its areas tinted, pieces as discs of their side's colour with letters and facing, the last move, the declared piece and its roll; the legend says what the tinted squares, the corner rings and the noses mean.

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
/// The chessboard's picture and two more legend lines: the special squares, the facings.
pub(super) const SIZE: (u32, u32) = (
    grid::CHESSBOARD_SIZE.0,
    grid::CHESSBOARD_SIZE.1 + 2 * legend::HEIGHT as u32,
);
/// The first legend line's middle.
const LEGEND_Y: f32 = MARGIN * 2.0 + BOARD + legend::HEIGHT / 2.0;

/// The waiting area (reddish) and the promotion area (yellowish), as the seed's diagram
/// colours them, light and dark squares each.
const WAITING: [Rgb; 2] = [Rgb(226, 168, 156), Rgb(196, 128, 116)];
const PROMOTION: [Rgb; 2] = [Rgb(246, 226, 140), Rgb(214, 186, 90)];
/// A piece's outline on each side's disc.
const DISC_EDGE: [Rgb; 2] = [INK, Rgb(200, 200, 200)];

pub(super) fn svg(game: &D4d6) -> Svg {
    let pos = game.shown_position();
    let mut svg = Svg::new(SIZE.0, SIZE.1, PAPER);
    GRID.squares(&mut svg, |file, rank, light| {
        square_colour(Sq::new(file as i8, rank as i8), light)
    });
    GRID.coordinates(&mut svg, MARGIN, 14.0);
    for sq in Sq::all().filter(|s| s.is_teleportation()) {
        let (x, y) = GRID.corner(sq.file() as u8, sq.rank() as u8);
        teleport_ring(&mut svg, x + CELL - 9.0, y + CELL - 9.0);
    }
    let mut key = Legend::new(MARGIN, LEGEND_Y);
    for colour in [Color::White, Color::Black] {
        key.swatch(&mut svg, D4D6[colour.index()], colour.name());
    }
    squares_key(&mut svg);
    let mut facings = facings_key(&mut svg);
    // The board, its special squares and the legend's fixed words above; the pieces and the
    // marks over them.
    svg.end_of_fixed();
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
    let unrolled = Sq::all()
        .filter_map(|sq| pos.at(sq))
        .any(|p| p.kind == Kind::Rinoceronte && p.facing.is_none());
    if unrolled {
        facings.text(&mut svg, "?: facing not rolled yet");
    }
    svg
}

/// The special squares, as the seed names them: the waiting area (red), the promotion area
/// (yellow) and the teleportation corners (a ring).
fn squares_key(svg: &mut Svg) {
    let mut key = Legend::new(MARGIN, LEGEND_Y + legend::HEIGHT);
    key.swatch(svg, WAITING[0], "waiting area");
    key.swatch(svg, PROMOTION[0], "promotion");
    let (x, y) = key.skip(16.0);
    svg.rect(
        (x, y - 8.0),
        (16.0, 16.0),
        3.0,
        Some(WAITING[0]),
        Some(Stroke::solid(INK, 1.5)),
    );
    teleport_ring(svg, x + 8.0, y);
    key.text(svg, "teleport corner");
}

/// What a nose means; the line goes on (the `Legend` returned) with a Rinoceronte's `?`,
/// only while one waits for its facing (a standard game has no Rinoceronte, so its legend
/// does not mention one).
fn facings_key(svg: &mut Svg) -> Legend {
    let mut key = Legend::new(MARGIN, LEGEND_Y + 2.0 * legend::HEIGHT);
    let (x, y) = key.skip(26.0);
    let (cx, cy) = (x + 11.0, y + 3.0);
    let small = 0.45;
    svg.circle(
        cx,
        cy,
        DISC * small,
        Some(D4D6[0]),
        Some(Stroke::solid(INK, 1.5)),
    );
    let tip = nose(cx, cy, Dir::N).map(|(px, py)| (cx + (px - cx) * small, cy + (py - cy) * small));
    svg.polygon(&tip, Some(INK), None);
    key.text(svg, "nose: the way a piece faces");
    key
}

/// The ring that marks a teleportation corner.
fn teleport_ring(svg: &mut Svg, cx: f32, cy: f32) {
    svg.circle(cx, cy, 5.0, None, Some(Stroke::solid(INK, 2.0)));
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
