//! Board pictures for the HTML part of mails: any game's position drawn as SVG, rendered to PNG.
//!
//! Each game has its file (`picture/<game>.rs`) that reads the game's own value
//! (`AnyGame::game`) and writes an SVG document of a fixed size; `render.rs` turns it into a
//! PNG with resvg and the one embedded font. Pictures use flat colours (`palette.rs`), so each
//! stays a few tens of kilobytes, and mark the last move in one colour of their own
//! (`palette::LAST_MOVE`). This module is a leaf: it knows the rules crate and nothing else.

mod d4d6;
mod dicerink;
mod dicess;
mod die;
mod diptactoe;
mod encode;
mod grid;
mod legend;
mod metrics;
pub mod palette;
mod render;
mod siberian;
mod svg;

use crate::games::{AnyGame, GameKind, GameRef};

/// Why a picture could not be made (none of these happens to a picture pbem draws, short of a
/// bug or no memory: the caller sends the mail without its picture).
#[derive(Debug, thiserror::Error)]
pub enum PictureError {
    #[error("the board's SVG does not read: {0}")]
    Svg(#[from] resvg::usvg::Error),
    #[error("no picture of {0}x{1} pixels can be made")]
    Size(u32, u32),
    #[error("the PNG could not be written: {0}")]
    Png(String),
}

/// The board of the game's position as a PNG picture.
pub fn board_png(game: &AnyGame) -> Result<Vec<u8>, PictureError> {
    render::layered_png(&drawing(game).layers())
}

/// Forgets every kept layer and element, as a process just started: the bench draws a
/// game's pictures from cold.
pub(crate) fn forget_kept() {
    render::forget_kept();
}

/// The board drawn in one pass, without the kept fixed layer: what `board_png` must equal.
#[cfg(test)]
pub(crate) fn board_png_in_one_pass(game: &AnyGame) -> Result<Vec<u8>, PictureError> {
    render::png(&board_svg(game))
}

/// The fixed layer's document of the game's position's picture (drawn once per process).
#[cfg(test)]
pub(crate) fn fixed_layer(game: &AnyGame) -> String {
    drawing(game).layers().fixed
}

/// The board of the game's position as an SVG document (what `board_png` renders).
pub fn board_svg(game: &AnyGame) -> String {
    drawing(game).finish()
}

/// The board's document, its fixed layer marked.
fn drawing(game: &AnyGame) -> svg::Svg {
    match game.game() {
        GameRef::DiceRink(g) => dicerink::svg(g),
        GameRef::D4D6(g) => d4d6::svg(g),
        GameRef::DipTacToe(g) => diptactoe::svg(g),
        GameRef::Siberian(g) => siberian::svg(g),
        GameRef::Dicess(g) => dicess::svg(g),
    }
}

/// A game's pictures' largest size in pixels (width, height): a game's pictures all have
/// one size, this one but for Siberian Dice's height, which follows its players and variant.
pub fn size(kind: GameKind) -> (u32, u32) {
    match kind {
        GameKind::DiceRink => dicerink::SIZE,
        GameKind::D4D6 => d4d6::SIZE,
        GameKind::DipTacToe => diptactoe::SIZE,
        GameKind::Siberian => siberian::SIZE,
        GameKind::Dicess => dicess::SIZE,
    }
}
