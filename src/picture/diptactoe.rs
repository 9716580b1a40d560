//! Dip-Tac-Toe's picture: the cube's four levels in a 2x2 grid (legible on a phone), units in their owners' colours, the last turn's moves, placements and dislodged units, and the winning line of a game won.

use crate::games::diptactoe::adjudicate::Verdict;
use crate::games::diptactoe::lines::find_line;
use crate::games::diptactoe::order::Order;
use crate::games::diptactoe::space::{Space, FILES, LEVELS};
use crate::games::diptactoe::{DipTacToe, LastTurn, SEATS};
use crate::games::{Outcome, Rules};

use super::legend::{self, Legend};
use super::palette::{ink_on, Rgb, DIPTACTOE, FAINT, INK, LAST_MOVE, PAPER};
use super::svg::{Stroke, Svg};

const PAD: f32 = 10.0;
const CELL: f32 = 36.0;
/// The column of row numbers left of each level.
const LABELS: f32 = 16.0;
const GAP: f32 = 14.0;
const TITLE: f32 = 22.0;
const LETTERS: f32 = 18.0;
const UNIT: f32 = 13.0;

const LEVEL: f32 = 4.0 * CELL;
const BLOCK: f32 = LABELS + LEVEL;
/// A level's height with its title and file letters.
const BLOCK_H: f32 = TITLE + LETTERS + LEVEL;
const LEGEND_TOP: f32 = PAD + 2.0 * BLOCK_H + GAP + 6.0;
/// Legend lines: the reserves on two, the last turn's marks on two (always room for them,
/// so every position has the same size).
const LEGEND_LINES: f32 = 4.0;
/// Two levels a row, two rows: about 350 pixels wide, so a phone (400 pixels, less the
/// mail's margins) shows it at its own size; four in a row were shrunk to a strip.
pub(super) const SIZE: (u32, u32) = (
    (2.0 * PAD + 2.0 * BLOCK + GAP) as u32,
    (LEGEND_TOP + LEGEND_LINES * legend::HEIGHT + 4.0) as u32,
);

/// Pale squares, so the four colours of the units stand out.
const SQUARES: [Rgb; 2] = [Rgb(238, 236, 230), Rgb(214, 210, 200)];

pub(super) fn svg(game: &DipTacToe) -> Svg {
    let pos = game.position();
    let mut svg = Svg::new(SIZE.0, SIZE.1, PAPER);
    for level in 0..4u8 {
        draw_level(&mut svg, level);
    }
    let mut key = Legend::new(PAD, LEGEND_TOP + legend::HEIGHT / 2.0);
    key.text(&mut svg, "In reserve:");
    // The levels and the legend's first words above; the units and the marks over them.
    svg.end_of_fixed();
    if let Some(last) = game.last_turn() {
        mark_last_turn(&mut svg, last);
    }
    let won = winning_lines(game);
    for line in &won {
        mark_line(&mut svg, line);
    }
    for (&space, &owner) in &pos.units {
        let (cx, cy) = centre(space);
        svg.circle(
            cx,
            cy,
            UNIT,
            Some(DIPTACTOE[owner]),
            Some(Stroke::solid(INK, 1.5)),
        );
    }
    for &(space, owner) in game.last_turn().map_or(&[][..], |l| &l.dislodged) {
        let (x, y) = corner(space);
        dislodged(&mut svg, x + CELL - 6.0, y + 6.0, owner);
    }
    reserves(&mut svg, game, key);
    let mut key = Legend::new(PAD, LEGEND_TOP + 2.5 * legend::HEIGHT);
    if let Some(last) = game.last_turn() {
        if last.orders.iter().any(|o| moved(&o.1, o.2).is_some()) {
            key.last_move(&mut svg, "last turn (dashed: moved from)");
        }
    }
    let mut key = Legend::new(PAD, LEGEND_TOP + 3.5 * legend::HEIGHT);
    if let Some(&(_, owner)) = game.last_turn().and_then(|l| l.dislodged.first()) {
        let (x, y) = key.skip(18.0);
        dislodged(&mut svg, x + 9.0, y, owner);
        key.text(&mut svg, "dislodged");
    }
    if !won.is_empty() {
        let (x, y) = key.skip(18.0);
        ring(&mut svg, x + 9.0, y, 8.0);
        key.text(&mut svg, "winning line");
    }
    svg
}

/// Each seat's reserve, two seats a line (four do not fit a phone's width on one), after
/// the words that name them (`key`).
fn reserves(svg: &mut Svg, game: &DipTacToe, mut key: Legend) {
    let pos = game.position();
    let indent = key.skip(0.0).0 - 6.0;
    for (seat, name) in SEATS.iter().enumerate() {
        if seat == 2 {
            key = Legend::new(indent, LEGEND_TOP + 1.5 * legend::HEIGHT);
        }
        let label = format!("{name} {}", pos.reserves[seat]);
        key.swatch(svg, DIPTACTOE[seat], &label);
    }
}

/// The lines that won the game: the winner's (or, in a draw of valid claims, each drawn
/// seat's) four in a row as the board stands. A game won otherwise (every other seat
/// resigned) has none.
fn winning_lines(game: &DipTacToe) -> Vec<[Space; 4]> {
    let seats = match game.outcome() {
        Some(Outcome::Win { seat, .. }) => vec![seat],
        Some(Outcome::Draw { seats, .. }) => seats,
        None => Vec::new(),
    };
    let units = &game.position().units;
    seats
        .into_iter()
        .filter_map(|seat| find_line(|s| units.get(&s) == Some(&seat)))
        .collect()
}

/// A winning line: a ring around each of its units, and a line through them where they
/// share a level (a line across levels is told by its rings alone).
fn mark_line(svg: &mut Svg, line: &[Space; 4]) {
    if line.iter().all(|s| s.level == line[0].level) {
        let ends = [centre(line[0]), centre(line[3])];
        svg.polyline(&ends, Stroke::solid(INK, 4.0));
    }
    for &space in line {
        let (cx, cy) = centre(space);
        ring(svg, cx, cy, UNIT + 3.5);
    }
}

/// The ring that marks a unit of the winning line.
fn ring(svg: &mut Svg, cx: f32, cy: f32, r: f32) {
    svg.circle(cx, cy, r, None, Some(Stroke::solid(INK, 3.0)));
}

/// The top-left corner of a level's grid: levels I and II on top, III and IV under them.
fn origin(level: u8) -> (f32, f32) {
    let (col, row) = (f32::from(level % 2), f32::from(level / 2));
    (
        PAD + col * (BLOCK + GAP) + LABELS,
        PAD + row * (BLOCK_H + GAP) + TITLE + LETTERS,
    )
}

/// A space's top-left corner: files left to right, row 1 at the top (as the text board).
fn corner(space: Space) -> (f32, f32) {
    let (x, y) = origin(space.level);
    (
        x + f32::from(space.file) * CELL,
        y + f32::from(space.row) * CELL,
    )
}

fn centre(space: Space) -> (f32, f32) {
    let (x, y) = corner(space);
    (x + CELL / 2.0, y + CELL / 2.0)
}

/// A level's squares, its title, its file letters and its row numbers.
fn draw_level(svg: &mut Svg, level: u8) {
    let (x, y) = origin(level);
    for file in 0..4u8 {
        for row in 0..4u8 {
            let (sx, sy) = corner(Space::new(level, file, row));
            let shade = usize::from((file + row) % 2 == 1);
            svg.rect((sx, sy), (CELL, CELL), 0.0, Some(SQUARES[shade]), None);
        }
        let letter = FILES[usize::from(level)][usize::from(file)].to_string();
        let cx = x + (f32::from(file) + 0.5) * CELL;
        svg.label(cx, y - LETTERS / 2.0, 13.0, INK, &letter);
    }
    for row in 0..4u8 {
        let cy = y + (f32::from(row) + 0.5) * CELL;
        svg.label(x - LABELS / 2.0, cy, 12.0, FAINT, &(row + 1).to_string());
    }
    svg.rect(
        (x, y),
        (LEVEL, LEVEL),
        0.0,
        None,
        Some(Stroke::solid(INK, 1.5)),
    );
    let title = format!("Level {}", LEVELS[usize::from(level)]);
    svg.label(
        x + LEVEL / 2.0,
        y - LETTERS - TITLE / 2.0,
        15.0,
        INK,
        &title,
    );
}

/// Outlines a space just inside its edge.
fn outline(svg: &mut Svg, space: Space, stroke: Stroke) {
    let (x, y) = corner(space);
    let inset = stroke.width / 2.0 + 0.5;
    let side = CELL - 2.0 * inset;
    svg.rect(
        (x + inset, y + inset),
        (side, side),
        0.0,
        None,
        Some(stroke),
    );
}

/// The last turn: where units moved or were placed (solid) and moved from (dashed). Orders
/// that failed change nothing on the board and are left to the written report.
fn mark_last_turn(svg: &mut Svg, last: &LastTurn) {
    for (_, order, verdict) in &last.orders {
        if let Some((from, to)) = moved(order, *verdict) {
            if let Some(from) = from {
                outline(svg, from, Stroke::dashed(LAST_MOVE, 3.0, 4.0));
            }
            outline(svg, to, Stroke::solid(LAST_MOVE, 4.0));
        }
    }
}

/// Where an order that succeeded put a unit (and where from, for a move): supports and
/// failed orders moved nothing.
fn moved(order: &Order, verdict: Verdict) -> Option<(Option<Space>, Space)> {
    match (order, verdict) {
        (Order::Move { from, to }, Verdict::Succeeds) => Some((Some(*from), *to)),
        (Order::Place { to }, Verdict::Succeeds) => Some((None, *to)),
        _ => None,
    }
}

/// A crossed-out unit of the owner's colour: where a unit was dislodged (drawn over the unit
/// that took its place, at its corner).
fn dislodged(svg: &mut Svg, x: f32, y: f32, owner: usize) {
    let colour = DIPTACTOE[owner];
    svg.circle(x, y, 7.0, Some(colour), Some(Stroke::solid(INK, 1.0)));
    let (a, ink) = (3.2, ink_on(colour));
    svg.polyline(&[(x - a, y - a), (x + a, y + a)], Stroke::solid(ink, 2.0));
    svg.polyline(&[(x + a, y - a), (x - a, y + a)], Stroke::solid(ink, 2.0));
}
