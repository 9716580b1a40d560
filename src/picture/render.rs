//! SVG to pixels with resvg, at one pixel per SVG unit, with the embedded font and nothing else.

use std::sync::{Arc, OnceLock};

use resvg::tiny_skia::{Pixmap, Transform};
use resvg::usvg::{self, fontdb, ImageHrefResolver};

use super::{encode, PictureError};

/// The one font the pictures use (DejaVu Sans Bold; `assets/fonts/LICENSE-DejaVu.txt`).
/// Embedded because no system font can be counted on where pbem runs.
static FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-Bold.ttf");

/// The family name the SVGs ask for; it is the embedded font's.
pub(super) const FAMILY: &str = "DejaVu Sans";

/// The font database, built once: it holds the embedded font only (read in place, not copied).
fn fonts() -> Arc<fontdb::Database> {
    static FONTS: OnceLock<Arc<fontdb::Database>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            let mut db = fontdb::Database::new();
            db.load_font_source(fontdb::Source::Binary(Arc::new(FONT)));
            db.set_sans_serif_family(FAMILY);
            Arc::new(db)
        })
        .clone()
}

/// Parsing options that read no file: the SVGs are pbem's own and name no image, but an
/// `<image>` referring to a path must never make usvg open it.
fn options() -> usvg::Options<'static> {
    usvg::Options {
        font_family: FAMILY.to_string(),
        fontdb: fonts(),
        image_href_resolver: ImageHrefResolver {
            resolve_data: Box::new(|_, _, _| None),
            resolve_string: Box::new(|_, _| None),
        },
        ..usvg::Options::default()
    }
}

/// Renders an SVG document to PNG bytes, at the size the document states.
pub(super) fn png(svg: &str) -> Result<Vec<u8>, PictureError> {
    let tree = usvg::Tree::from_str(svg, &options())?;
    let size = tree.size().to_int_size();
    let mut pixmap = Pixmap::new(size.width(), size.height())
        .ok_or(PictureError::Size(size.width(), size.height()))?;
    resvg::render(&tree, Transform::identity(), &mut pixmap.as_mut());
    encode::png(&pixmap)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_is_drawn_with_the_embedded_font() {
        let with_text = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"60\" height=\"30\">\
            <rect width=\"60\" height=\"30\" fill=\"#ffffff\"/>\
            <text x=\"5\" y=\"22\" font-size=\"20\" font-family=\"DejaVu Sans\">Ab</text></svg>";
        let png = png(with_text).unwrap();
        let pixmap = Pixmap::decode_png(&png).unwrap();
        assert_eq!((pixmap.width(), pixmap.height()), (60, 30));
        let dark = pixmap
            .pixels()
            .iter()
            .filter(|p| p.red() < 100 && p.alpha() == 255)
            .count();
        assert!(dark > 20, "the text left {dark} dark pixels");
    }

    #[test]
    fn a_broken_document_is_an_error() {
        assert!(matches!(png("<svg"), Err(PictureError::Svg(_))));
    }
}
