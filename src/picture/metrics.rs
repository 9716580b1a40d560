//! How far text of the embedded font advances: each character's glyph advance, read from the font once, so that a legend's changing numbers can be drawn digit by digit where the whole line would have put them.

use std::collections::HashMap;
use std::sync::OnceLock;

use skrifa::instance::{LocationRef, Size};
use skrifa::MetadataProvider as _;

use super::render::FONT;

/// Each printable ASCII character's advance at a size of 1 (in ems), read from the font once.
fn advances() -> &'static HashMap<char, f32> {
    static ADVANCES: OnceLock<HashMap<char, f32>> = OnceLock::new();
    ADVANCES.get_or_init(|| {
        let Ok(font) = skrifa::FontRef::new(FONT) else {
            return HashMap::new();
        };
        let (charmap, metrics) = (
            font.charmap(),
            // At one pixel to the em, an advance in pixels is one in ems.
            font.glyph_metrics(Size::new(1.0), LocationRef::default()),
        );
        (' '..='~')
            .filter_map(|c| Some((c, metrics.advance_width(charmap.map(c)?)?)))
            .collect()
    })
}

/// How far `text` at `size` pixels advances, kerning aside (the pieces `Svg::text_pieces`
/// cuts a line into meet at a space or a digit, where this font does not kern). A character
/// outside printable ASCII counts as the font's average, 0.6 em.
pub(super) fn advance(text: &str, size: f32) -> f32 {
    let table = advances();
    text.chars()
        .map(|c| table.get(&c).copied().unwrap_or(0.6))
        .sum::<f32>()
        * size
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_fonts_digits_all_advance_alike_and_a_space_less() {
        let digit = advance("0", 10.0);
        assert!(digit > 5.0 && digit < 8.0, "{digit}");
        for d in '1'..='9' {
            assert_eq!(advance(&d.to_string(), 10.0), digit, "{d}");
        }
        assert!(advance(" ", 10.0) < digit);
        assert_eq!(advance("12", 10.0), 2.0 * digit);
        assert_eq!(advance("12", 20.0), 2.0 * advance("12", 10.0));
    }
}
