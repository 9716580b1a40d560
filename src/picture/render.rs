//! SVG to pixels with resvg, at one pixel per SVG unit, with the embedded font and nothing else.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use resvg::tiny_skia::{Pixmap, Transform};
use resvg::usvg::{self, fontdb, ImageHrefResolver};
use rustc_hash::FxBuildHasher;

use super::svg::Layers;
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
#[cfg(test)]
pub(super) fn png(svg: &str) -> Result<Vec<u8>, PictureError> {
    encode::png(&pixels(svg)?)
}

/// An SVG document's pixels, at the size it states.
fn pixels(svg: &str) -> Result<Pixmap, PictureError> {
    let tree = usvg::Tree::from_str(svg, &options())?;
    let size = tree.size().to_int_size();
    let mut pixmap = Pixmap::new(size.width(), size.height())
        .ok_or(PictureError::Size(size.width(), size.height()))?;
    resvg::render(&tree, Transform::identity(), &mut pixmap.as_mut());
    Ok(pixmap)
}

/// The fixed layers kept, each with its document (`fixed_layer`).
static LAYERS: Mutex<Vec<(String, Arc<Pixmap>)>> = Mutex::new(Vec::new());

/// The parsed elements kept by their documents, newer and older (`element_tree`).
type Kept = HashMap<String, Arc<usvg::Tree>, FxBuildHasher>;
const EMPTY: Kept = HashMap::with_hasher(FxBuildHasher);
static KEPT: Mutex<(Kept, Kept)> = Mutex::new((EMPTY, EMPTY));

/// Forgets every kept layer and element.
pub(super) fn forget_kept() {
    LAYERS.lock().unwrap_or_else(|e| e.into_inner()).clear();
    *KEPT.lock().unwrap_or_else(|e| e.into_inner()) = (EMPTY, EMPTY);
}

/// How many fixed layers are kept: one per game, variant and size, and Siberian Dice's boards
/// by their perfect hexes (a few per game under way); past this the least recently used goes.
const LAYERS_KEPT: usize = 32;

/// The fixed layer's pixels, drawn once per process for each distinct document: keyed by the
/// document itself, so a layer is reused exactly when it would be drawn the same.
fn fixed_layer(svg: &str) -> Result<Arc<Pixmap>, PictureError> {
    {
        let mut layers = LAYERS.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(i) = layers.iter().position(|(doc, _)| doc == svg) {
            // The most recently used last: the first is the one to go.
            let hit = layers.remove(i);
            let pixmap = hit.1.clone();
            layers.push(hit);
            return Ok(pixmap);
        }
    }
    // Drawn outside the lock: another thread drawing the same layer meanwhile costs only time.
    let drawn = Arc::new(pixels(svg)?);
    let mut layers = LAYERS.lock().unwrap_or_else(|e| e.into_inner());
    if layers.len() >= LAYERS_KEPT {
        layers.remove(0);
    }
    layers.push((svg.to_string(), drawn.clone()));
    Ok(drawn)
}

/// Renders a picture's layers to PNG bytes: the fixed layer (drawn once, see `fixed_layer`)
/// copied, then each element that moved drawn over it in order (parsed once, see
/// `element_tree`). The pixels are the whole document's: each shape is blended over the same
/// pixels as when the document is drawn at once.
pub(super) fn layered_png(layers: &Layers) -> Result<Vec<u8>, PictureError> {
    let mut pixmap = Pixmap::clone(&*fixed_layer(&layers.fixed)?);
    for element in &layers.moving {
        let tree = element_tree(element)?;
        resvg::render(&tree, Transform::identity(), &mut pixmap.as_mut());
    }
    encode::png(&pixmap)
}

/// How many parsed elements each of the two generations of `element_tree` keeps: some
/// thousand distinct pieces, dice and labels on their squares, a few kilobytes each.
const ELEMENTS_KEPT: usize = 2048;

/// The parsed tree of one element's document (its text shaped into outlines), kept for the
/// next picture that has the same element: a piece that did not move, a die's face on a hex.
/// Two generations: when the newer is full it becomes the older and the older is dropped,
/// so what is in use stays and the memory is bounded.
fn element_tree(doc: &str) -> Result<Arc<usvg::Tree>, PictureError> {
    {
        let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
        let (newer, older) = &mut *kept;
        if let Some(tree) = newer.get(doc) {
            return Ok(tree.clone());
        }
        if let Some(tree) = older.remove(doc) {
            newer.insert(doc.to_string(), tree.clone());
            return Ok(tree);
        }
    }
    let tree = Arc::new(usvg::Tree::from_str(doc, &options())?);
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    let (newer, older) = &mut *kept;
    if newer.len() >= ELEMENTS_KEPT {
        *older = std::mem::take(newer);
    }
    newer.insert(doc.to_string(), tree.clone());
    Ok(tree)
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
