//! A die as players know it: a rounded square in its owner's colour showing its number as pips.

use super::palette::{ink_on, Rgb, INK};
use super::svg::{Stroke, Svg};

/// Where the pips of each number stand, on a 3x3 grid (-1, 0, 1 across and down).
fn pip_spots(number: u8) -> &'static [(i8, i8)] {
    match number {
        1 => &[(0, 0)],
        2 => &[(1, -1), (-1, 1)],
        3 => &[(1, -1), (0, 0), (-1, 1)],
        4 => &[(-1, -1), (1, -1), (-1, 1), (1, 1)],
        5 => &[(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
        6 => &[(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
        _ => &[],
    }
}

/// Draws a die of side `size` centred on (`cx`, `cy`) in `body` colour, its pips in the colour
/// that reads on it. A number no die shows (0, or above 6) is written as a numeral instead.
pub(super) fn die(svg: &mut Svg, cx: f32, cy: f32, size: f32, number: u8, body: Rgb) {
    let half = size / 2.0;
    // A dark outline keeps a white die visible on a light square.
    svg.rect(
        (cx - half, cy - half),
        (size, size),
        size * 0.18,
        Some(body),
        Some(Stroke::solid(INK, 1.5)),
    );
    let pip = ink_on(body);
    let spots = pip_spots(number);
    if spots.is_empty() {
        svg.label(cx, cy, size * 0.6, pip, &number.to_string());
        return;
    }
    let step = size * 0.27;
    let radius = size * 0.095;
    for &(dx, dy) in spots {
        svg.circle(
            cx + f32::from(dx) * step,
            cy + f32::from(dy) * step,
            radius,
            Some(pip),
            None,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::pip_spots;

    #[test]
    fn each_number_has_as_many_pips_and_the_faces_are_symmetric() {
        for n in 1..=6u8 {
            let spots = pip_spots(n);
            assert_eq!(spots.len(), usize::from(n));
            // A die's face looks the same turned half round.
            for &(x, y) in spots {
                assert!(spots.contains(&(-x, -y)), "{n}: ({x}, {y})");
            }
        }
        assert!(pip_spots(0).is_empty() && pip_spots(7).is_empty());
    }
}
