//! The pictures' colours: flat ones only (a PNG of few colours stays small), each seat's own.

use std::fmt;

use crate::games::GameKind;

/// An opaque colour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rgb(pub u8, pub u8, pub u8);

impl Rgb {
    /// The colour as SVG writes it, `#rrggbb`.
    fn hex(self) -> [u8; 7] {
        let mut text = *b"#000000";
        // Three bytes are the six digits exactly: this cannot fail.
        let _ = hex::encode_to_slice([self.0, self.1, self.2], &mut text[1..]);
        text
    }

    /// Appends the colour as SVG writes it (the pictures' documents write many: no `fmt`).
    pub(super) fn push_to(self, out: &mut String) {
        out.push_str(std::str::from_utf8(&self.hex()).unwrap_or_default());
    }
}

impl fmt::Display for Rgb {
    /// As SVG writes it: `#rrggbb`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(std::str::from_utf8(&self.hex()).map_err(|_| fmt::Error)?)
    }
}

/// The last move's mark. No other colour of the pictures has its red and blue both high and
/// its green low, and no blend of two of them can make it: a test finds the last move by it.
pub const LAST_MOVE: Rgb = Rgb(232, 0, 200);

/// The background around the boards.
pub const PAPER: Rgb = Rgb(255, 255, 255);
/// Coordinates, labels, outlines.
pub const INK: Rgb = Rgb(40, 40, 40);
/// What is there but says little: a vacant hex's name, a grid's lines.
pub const FAINT: Rgb = Rgb(150, 142, 128);

/// Squares of the chequered boards (Dice Rink, d4 d6 chess, Dicess, Dip-Tac-Toe's levels).
pub const SQUARE_LIGHT: Rgb = Rgb(240, 217, 181);
pub const SQUARE_DARK: Rgb = Rgb(190, 150, 105);

/// Dice Rink: A's dice are white, B's coloured (the seed's two pairs).
pub const DICERINK: [Rgb; 2] = [Rgb(250, 248, 240), Rgb(200, 40, 40)];
/// d4 d6 chess: WHITE's and BLACK's pieces.
pub const D4D6: [Rgb; 2] = [Rgb(252, 252, 252), Rgb(30, 30, 30)];
/// Dip-Tac-Toe: BLUE, RED, GREEN, YELLOW.
pub const DIPTACTOE: [Rgb; 4] = [
    Rgb(40, 100, 220),
    Rgb(210, 40, 40),
    Rgb(30, 150, 70),
    Rgb(245, 200, 20),
];
/// Dicess: LIGHT's and DARK's dice.
pub const DICESS: [Rgb; 2] = [Rgb(250, 246, 228), Rgb(70, 50, 45)];
/// Siberian Dice: BLUE, RED, GREEN.
pub const SIBERIAN: [Rgb; 3] = [Rgb(40, 100, 220), Rgb(210, 40, 40), Rgb(30, 150, 70)];

/// Each seat's colour, in seat order.
pub fn seat_colours(kind: GameKind) -> &'static [Rgb] {
    match kind {
        GameKind::DiceRink => &DICERINK,
        GameKind::D4D6 => &D4D6,
        GameKind::DipTacToe => &DIPTACTOE,
        GameKind::Dicess => &DICESS,
        GameKind::Siberian => &SIBERIAN,
    }
}

/// What to draw on a seat's colour so it reads: dark on the light ones, white on the others.
pub fn ink_on(background: Rgb) -> Rgb {
    let Rgb(r, g, b) = background;
    let luma = 299 * u32::from(r) + 587 * u32::from(g) + 114 * u32::from(b);
    if luma > 150_000 {
        INK
    } else {
        PAPER
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// Any colour is written `#rrggbb`, in lowercase digits, alike by `Display` and into
        /// a document.
        #[test]
        fn a_colour_is_written_as_svg_reads_it(r: u8, g: u8, b: u8) {
            let expect = format!("#{r:02x}{g:02x}{b:02x}");
            let mut pushed = String::from("fill=");
            Rgb(r, g, b).push_to(&mut pushed);
            proptest::prop_assert_eq!(Rgb(r, g, b).to_string(), expect.clone());
            proptest::prop_assert_eq!(pushed, format!("fill={expect}"));
        }
    }
}
