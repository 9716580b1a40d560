//! A board of squares: where each square is, its chequered colours, its edge coordinates and the outline that marks a square.

use super::palette::{Rgb, INK, SQUARE_DARK, SQUARE_LIGHT};
use super::svg::{Stroke, Svg};

/// `files` x `ranks` squares of `cell` pixels, the top-left corner at (`x`, `y`); rank 0 is
/// the bottom row, as players see a board from the first seat's side.
#[derive(Debug, Clone, Copy)]
pub(super) struct Grid {
    pub x: f32,
    pub y: f32,
    pub cell: f32,
    pub files: u8,
    pub ranks: u8,
}

/// The 8x8 board of d4 d6 chess and Dicess: 56-pixel squares inside a 26-pixel margin (room
/// for the coordinates), the legend under it.
pub(super) const CHESSBOARD: Grid = Grid {
    x: 26.0,
    y: 26.0,
    cell: 56.0,
    files: 8,
    ranks: 8,
};

/// The picture size of `CHESSBOARD` with its margins and the legend under it.
pub(super) const CHESSBOARD_SIZE: (u32, u32) = (
    (2.0 * CHESSBOARD.x + 8.0 * CHESSBOARD.cell) as u32,
    (2.0 * CHESSBOARD.y + 8.0 * CHESSBOARD.cell + super::legend::HEIGHT + 6.0) as u32,
);

impl Grid {
    /// The top-left corner of a square.
    pub(super) fn corner(&self, file: u8, rank: u8) -> (f32, f32) {
        (
            self.x + f32::from(file) * self.cell,
            self.y + f32::from(self.ranks - 1 - rank) * self.cell,
        )
    }

    pub(super) fn centre(&self, file: u8, rank: u8) -> (f32, f32) {
        let (x, y) = self.corner(file, rank);
        (x + self.cell / 2.0, y + self.cell / 2.0)
    }

    pub(super) fn width(&self) -> f32 {
        f32::from(self.files) * self.cell
    }

    pub(super) fn height(&self) -> f32 {
        f32::from(self.ranks) * self.cell
    }

    /// Every square in the colour `colour(file, rank, light)` gives it (`light`: the
    /// chessboard's colouring, a1 dark), and a frame around them.
    pub(super) fn squares(&self, svg: &mut Svg, colour: impl Fn(u8, u8, bool) -> Rgb) {
        for file in 0..self.files {
            for rank in 0..self.ranks {
                let (x, y) = self.corner(file, rank);
                let light = (file + rank) % 2 == 1;
                svg.rect(
                    (x, y),
                    (self.cell, self.cell),
                    0.0,
                    Some(colour(file, rank, light)),
                    None,
                );
            }
        }
        svg.rect(
            (self.x, self.y),
            (self.width(), self.height()),
            0.0,
            None,
            Some(Stroke::solid(INK, 2.0)),
        );
    }

    /// The usual chequer: light and dark squares.
    pub(super) fn chequer(light: bool) -> Rgb {
        if light {
            SQUARE_LIGHT
        } else {
            SQUARE_DARK
        }
    }

    /// File letters (a, b, ...) above and below the board, rank numbers (1, 2, ...) on its
    /// left and right, `margin` pixels wide.
    pub(super) fn coordinates(&self, svg: &mut Svg, margin: f32, size: f32) {
        for file in 0..self.files {
            let (cx, _) = self.centre(file, 0);
            let letter = char::from(b'a' + file).to_string();
            svg.label(cx, self.y - margin / 2.0, size, INK, &letter);
            svg.label(
                cx,
                self.y + self.height() + margin / 2.0,
                size,
                INK,
                &letter,
            );
        }
        for rank in 0..self.ranks {
            let (_, cy) = self.centre(0, rank);
            let number = (rank + 1).to_string();
            svg.label(self.x - margin / 2.0, cy, size, INK, &number);
            svg.label(self.x + self.width() + margin / 2.0, cy, size, INK, &number);
        }
    }

    /// An outline just inside a square's edge.
    pub(super) fn outline(&self, svg: &mut Svg, file: u8, rank: u8, stroke: Stroke) {
        let (x, y) = self.corner(file, rank);
        let inset = stroke.width / 2.0 + 1.0;
        svg.rect(
            (x + inset, y + inset),
            (self.cell - 2.0 * inset, self.cell - 2.0 * inset),
            0.0,
            None,
            Some(stroke),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::Grid;

    #[test]
    fn rank_one_is_the_bottom_row() {
        let g = Grid {
            x: 10.0,
            y: 20.0,
            cell: 50.0,
            files: 8,
            ranks: 8,
        };
        assert_eq!(g.corner(0, 7), (10.0, 20.0));
        assert_eq!(g.corner(0, 0), (10.0, 370.0));
        assert_eq!(g.centre(7, 0), (385.0, 395.0));
    }
}
