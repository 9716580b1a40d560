//! A legend line under a board: each seat's colour with its name, and the last move's mark.

use super::die::die;
use super::palette::{Rgb, INK, LAST_MOVE};
use super::svg::{text_width, Anchor, Stroke, Svg};

/// The legend's text size.
pub(super) const SIZE: f32 = 14.0;
/// Room a legend line takes, top to bottom.
pub(super) const HEIGHT: f32 = 28.0;

/// A line of legend items laid left to right from `x`, centred on `y`.
pub(super) struct Legend {
    x: f32,
    y: f32,
}

impl Legend {
    pub(super) fn new(x: f32, y: f32) -> Legend {
        Legend { x, y }
    }

    /// A square of `colour` and its label.
    pub(super) fn swatch(&mut self, svg: &mut Svg, colour: Rgb, label: &str) {
        svg.rect(
            (self.x, self.y - 8.0),
            (16.0, 16.0),
            3.0,
            Some(colour),
            Some(Stroke::solid(INK, 1.5)),
        );
        self.x += 22.0;
        self.text(svg, label);
    }

    /// The last move's mark (drawn only when there was one: a test looks for its colour).
    pub(super) fn last_move(&mut self, svg: &mut Svg, label: &str) {
        svg.rect(
            (self.x + 2.0, self.y - 7.0),
            (14.0, 14.0),
            0.0,
            None,
            Some(Stroke::solid(LAST_MOVE, 4.0)),
        );
        self.x += 24.0;
        self.text(svg, label);
    }

    /// A small die showing `number`.
    pub(super) fn die(&mut self, svg: &mut Svg, number: u8, body: Rgb) {
        die(svg, self.x + 11.0, self.y, 22.0, number, body);
        self.x += 36.0;
    }

    /// Leaves `width` pixels for a mark the caller draws; returns where they start (x) and
    /// the line's middle (y).
    pub(super) fn skip(&mut self, width: f32) -> (f32, f32) {
        let at = (self.x, self.y);
        self.x += width + 6.0;
        at
    }

    /// Plain text, then a gap.
    pub(super) fn text(&mut self, svg: &mut Svg, label: &str) {
        svg.text(
            self.x,
            self.y + SIZE * 0.36,
            SIZE,
            INK,
            Anchor::Start,
            label,
        );
        self.x += text_width(label, SIZE) + 14.0;
    }
}
