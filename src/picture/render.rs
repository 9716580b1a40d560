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
pub(super) static FONT: &[u8] = include_bytes!("../../assets/fonts/DejaVuSans-Bold.ttf");

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

/// The elements kept by their documents, newer and older (`element`).
struct Kept {
    elements: HashMap<String, Arc<Element>, FxBuildHasher>,
    /// The bytes their pixels (`Patch`) take once drawn.
    bytes: usize,
}
const EMPTY: Kept = Kept {
    elements: HashMap::with_hasher(FxBuildHasher),
    bytes: 0,
};
static KEPT: Mutex<(Kept, Kept)> = Mutex::new((EMPTY, EMPTY));

/// Forgets every kept layer and element.
pub(super) fn forget_kept() {
    CANVAS.take();
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
/// under each element that moved, drawn over it in order (parsed once, see `element`; its
/// pixels copied when it lands on what it was last drawn on, see `draw`), on this thread's
/// canvas (`Canvas`). The pixels are the whole document's: each shape is blended over the
/// same pixels as when the document is drawn at once.
pub(super) fn layered_png(layers: &Layers) -> Result<Vec<u8>, PictureError> {
    let fixed = fixed_layer(&layers.fixed)?;
    // Taken out while drawing: a failed element leaves no canvas half drawn.
    let mut canvas = match CANVAS.take() {
        Some(canvas) if Arc::ptr_eq(&canvas.fixed, &fixed) => canvas.cleared(),
        _ => Canvas::new(fixed),
    };
    for doc in &layers.moving {
        let element = element(doc)?;
        draw(&element, &mut canvas.pixmap);
        match (&mut canvas.drawn, element.rect) {
            (Some(drawn), Some(rect)) => drawn.push(rect),
            (drawn, _) => *drawn = None,
        }
    }
    let png = encode::png(&canvas.pixmap);
    CANVAS.set(Some(canvas));
    png
}

thread_local! {
    /// This thread's last picture, to be cleared for its next.
    static CANVAS: std::cell::Cell<Option<Canvas>> = const { std::cell::Cell::new(None) };
}

/// A picture's pixels kept for the next picture drawn on the same thread over the same fixed
/// layer: where its elements drew is put back from the layer, not the whole layer copied
/// (a megabyte a picture, a few percent of the drawing; the pictures of a send round mostly
/// share a layer, one per game and size).
struct Canvas {
    fixed: Arc<Pixmap>,
    pixmap: Pixmap,
    /// The rectangles drawn over since the layer was copied (`None`: an element drawn without
    /// a rectangle, which may have touched any pixel).
    drawn: Option<Vec<Rect>>,
}

impl Canvas {
    fn new(fixed: Arc<Pixmap>) -> Canvas {
        Canvas {
            pixmap: Pixmap::clone(&fixed),
            fixed,
            drawn: Some(Vec::new()),
        }
    }

    /// The canvas as the fixed layer again: each rectangle drawn over put back (an element
    /// changes no pixel outside its rectangle: `draw` checks it in debug builds).
    fn cleared(mut self) -> Canvas {
        match self.drawn.take() {
            Some(rects) => {
                for rect in rects {
                    copy_region(&self.fixed, &mut self.pixmap, rect);
                }
            }
            None => self.pixmap.data_mut().copy_from_slice(self.fixed.data()),
        }
        debug_assert!(self.pixmap == *self.fixed, "a canvas cleared wrong");
        self.drawn = Some(Vec::new());
        self
    }
}

/// A moving element, parsed (its text shaped into outlines), with the rectangle of pixels
/// drawing it can change and, once drawn, that rectangle's pixels before and after.
struct Element {
    tree: usvg::Tree,
    rect: Option<Rect>,
    patch: Mutex<Option<Patch>>,
}

/// A rectangle of whole pixels inside the picture: left, top, width, height.
#[derive(Clone, Copy)]
struct Rect(usize, usize, usize, usize);

/// An element's rectangle as it was before and after the element was last drawn, and which
/// of its pixels the element can change (`Coverage`), found the first time the pixels under
/// it differ.
struct Patch {
    before: Vec<u8>,
    after: Vec<u8>,
    covered: Option<Coverage>,
}

/// The pixels of an element's rectangle that its drawing touches, one flag a pixel, row
/// after row: a pixel it leaves alone stays what it was, whatever lies there. A rectangle's
/// margin, and the inside of a hex's outline, are not covered: a neighbour's new digit or a
/// new die under a last-move mark changes no pixel the element touches.
struct Coverage(Vec<bool>);

/// Beyond its outline (stroke included) drawing touches at most the pixel an edge crosses:
/// two more on each side is certain.
const EDGE: f32 = 2.0;

/// Draws an element over the pixmap. When the pixels under its rectangle are those it was
/// last drawn over, the result is those it made then (drawing is a function of the element
/// and the pixels it touches, all inside its rectangle): they are copied, exactly, and
/// nothing is rasterized. A die that did not move, on the square it stood on, costs a copy.
/// When only pixels it does not touch differ (`Coverage`), its own pixels are copied alone.
fn draw(element: &Element, pixmap: &mut Pixmap) {
    let Some(rect) = element.rect else {
        resvg::render(&element.tree, Transform::identity(), &mut pixmap.as_mut());
        return;
    };
    let mut patch = element.patch.lock().unwrap_or_else(|e| e.into_inner());
    let mut covered = None;
    if let Some(p) = &mut *patch {
        if region_is(pixmap, rect, &p.before) {
            put_region(pixmap, rect, &p.after);
            return;
        }
        let c = p
            .covered
            .get_or_insert_with(|| coverage(&element.tree, rect));
        if c.same_under(pixmap, rect, &p.before) {
            #[cfg(debug_assertions)]
            let drawn = {
                let mut drawn = pixmap.clone();
                resvg::render(&element.tree, Transform::identity(), &mut drawn.as_mut());
                drawn
            };
            c.put(pixmap, rect, &p.after);
            #[cfg(debug_assertions)]
            debug_assert!(*pixmap == drawn, "an element's covered pixels copied wrong");
            return;
        }
        covered = p.covered.take();
    }
    let before = region(pixmap, rect);
    #[cfg(debug_assertions)]
    let whole = pixmap.clone();
    resvg::render(&element.tree, Transform::identity(), &mut pixmap.as_mut());
    let after = region(pixmap, rect);
    #[cfg(debug_assertions)]
    {
        // What drawing changed outside the rectangle would be lost by a copy of it.
        let mut check = pixmap.clone();
        copy_region(&whole, &mut check, rect);
        debug_assert!(check == whole, "an element drew outside its rectangle");
    }
    *patch = Some(Patch {
        before,
        after,
        covered,
    });
}

/// The pixels of `rect` that drawing the element touches: drawn alone on a transparent
/// rectangle (moved by whole pixels, so each pixel's coverage is the same), every pixel
/// it gave any alpha, and each pixel next to one (a margin against any rounding).
fn coverage(tree: &usvg::Tree, Rect(x, y, w, h): Rect) -> Coverage {
    let Some(mut alone) = Pixmap::new(w as u32, h as u32) else {
        return Coverage(vec![true; w * h]);
    };
    let to_rect = Transform::from_translate(-(x as f32), -(y as f32));
    resvg::render(tree, to_rect, &mut alone.as_mut());
    let inked: Vec<bool> = alone.pixels().iter().map(|p| p.alpha() > 0).collect();
    // Widened a pixel along each row, then along each column: every pixel within one of an
    // inked one, diagonals included.
    let across = widened(&inked, |i| i % w, 1, w);
    Coverage(widened(&across, |i| i / w, w, h))
}

/// Each flag set where it or a neighbour `step` away (at `at(i)` 0 to `len - 1` along that
/// line) is set.
fn widened(flags: &[bool], at: impl Fn(usize) -> usize, step: usize, len: usize) -> Vec<bool> {
    (0..flags.len())
        .map(|i| {
            let k = at(i);
            flags[i] || (k > 0 && flags[i - step]) || (k + 1 < len && flags[i + step])
        })
        .collect()
}

impl Coverage {
    /// Whether every covered pixel of `rect` is as in `pixels` (as `region` reads them).
    fn same_under(&self, pixmap: &Pixmap, Rect(x, y, w, h): Rect, pixels: &[u8]) -> bool {
        let stride = pixmap.width() as usize * 4;
        (0..h).all(|i| {
            let now = &pixmap.data()[(y + i) * stride + x * 4..][..w * 4];
            let then = &pixels[i * w * 4..][..w * 4];
            let flags = &self.0[i * w..][..w];
            now.chunks_exact(4)
                .zip(then.chunks_exact(4))
                .zip(flags)
                .all(|((a, b), &covered)| !covered || a == b)
        })
    }

    /// Writes the covered pixels of `rect` from `pixels`; the others stay.
    fn put(&self, pixmap: &mut Pixmap, Rect(x, y, w, h): Rect, pixels: &[u8]) {
        let stride = pixmap.width() as usize * 4;
        for i in 0..h {
            let row = &mut pixmap.data_mut()[(y + i) * stride + x * 4..][..w * 4];
            let from = &pixels[i * w * 4..][..w * 4];
            let flags = &self.0[i * w..][..w];
            for ((to, from), &covered) in
                row.chunks_exact_mut(4).zip(from.chunks_exact(4)).zip(flags)
            {
                if covered {
                    to.copy_from_slice(from);
                }
            }
        }
    }
}

/// The rectangle of pixels an element's drawing can change, inside a picture this size.
fn rect_of(tree: &usvg::Tree) -> Option<Rect> {
    if !tree.root().has_children() {
        return None;
    }
    let b = tree.root().abs_layer_bounding_box();
    let size = tree.size().to_int_size();
    let (w, h) = (size.width() as f32, size.height() as f32);
    let left = (b.left() - EDGE).floor().clamp(0.0, w);
    let top = (b.top() - EDGE).floor().clamp(0.0, h);
    let right = (b.right() + EDGE).ceil().clamp(0.0, w);
    let bottom = (b.bottom() + EDGE).ceil().clamp(0.0, h);
    let rect = Rect(
        left as usize,
        top as usize,
        (right - left) as usize,
        (bottom - top) as usize,
    );
    (right > left && bottom > top).then_some(rect)
}

/// The rectangle's pixels, row after row.
fn region(pixmap: &Pixmap, Rect(x, y, w, h): Rect) -> Vec<u8> {
    let stride = pixmap.width() as usize * 4;
    let mut out = Vec::with_capacity(w * h * 4);
    for row in y..y + h {
        out.extend_from_slice(&pixmap.data()[row * stride + x * 4..][..w * 4]);
    }
    out
}

/// Whether the rectangle's pixels are these (as `region` reads them).
fn region_is(pixmap: &Pixmap, Rect(x, y, w, h): Rect, pixels: &[u8]) -> bool {
    let stride = pixmap.width() as usize * 4;
    (y..y + h).enumerate().all(|(i, row)| {
        pixmap.data()[row * stride + x * 4..][..w * 4] == pixels[i * w * 4..][..w * 4]
    })
}

/// Writes the rectangle's pixels back, as `region` read them.
fn put_region(pixmap: &mut Pixmap, Rect(x, y, w, h): Rect, pixels: &[u8]) {
    let stride = pixmap.width() as usize * 4;
    for (i, row) in (y..y + h).enumerate() {
        pixmap.data_mut()[row * stride + x * 4..][..w * 4]
            .copy_from_slice(&pixels[i * w * 4..][..w * 4]);
    }
}

/// Copies the rectangle's pixels from one pixmap to another of the same size.
fn copy_region(from: &Pixmap, to: &mut Pixmap, Rect(x, y, w, h): Rect) {
    let stride = from.width() as usize * 4;
    for row in y..y + h {
        let at = row * stride + x * 4..row * stride + (x + w) * 4;
        to.data_mut()[at.clone()].copy_from_slice(&from.data()[at]);
    }
}

/// How many elements each of the two generations of `element` keeps (some thousand distinct
/// pieces, dice and labels on their squares), and how many bytes of their pixels: the most
/// the kept elements take is twice these, whatever the pictures are.
const ELEMENTS_KEPT: usize = 2048;
const PATCH_BYTES_KEPT: usize = 16 << 20;

/// An element larger than this many pixels (a line across the board) is drawn each time:
/// its pixels would cost more to keep than to draw.
const PATCH_PIXELS: usize = 16 * 1024;

/// The element of one element's document, kept for the next picture that has the same
/// element: a piece that did not move, a die's face on a hex. Two generations: when the newer
/// is full it becomes the older and the older is dropped, so what is in use stays and the
/// memory is bounded.
fn element(doc: &str) -> Result<Arc<Element>, PictureError> {
    {
        let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
        let (newer, older) = &mut *kept;
        if let Some(element) = newer.elements.get(doc) {
            return Ok(element.clone());
        }
        if let Some(element) = older.elements.remove(doc) {
            keep(newer, doc, &element);
            return Ok(element);
        }
    }
    let tree = usvg::Tree::from_str(doc, &options())?;
    let rect = rect_of(&tree).filter(|r| r.2 * r.3 <= PATCH_PIXELS);
    let element = Arc::new(Element {
        rect,
        tree,
        patch: Mutex::new(None),
    });
    let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
    let (newer, older) = &mut *kept;
    if newer.elements.len() >= ELEMENTS_KEPT || newer.bytes >= PATCH_BYTES_KEPT {
        *older = std::mem::replace(newer, EMPTY);
    }
    keep(newer, doc, &element);
    Ok(element)
}

/// Adds an element to a generation, counting the bytes its pixels will take.
fn keep(generation: &mut Kept, doc: &str, element: &Arc<Element>) {
    // Before and after, four bytes a pixel, and a coverage flag a pixel.
    generation.bytes += element.rect.map_or(0, |r| r.2 * r.3 * 9);
    generation.elements.insert(doc.to_string(), element.clone());
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

    /// An element kept with its pixels is drawn again, not copied, where what lies under it
    /// differs from what lay under it before; and copied where it is the same.
    #[test]
    fn a_kept_element_is_copied_only_over_the_pixels_it_was_drawn_over() {
        let head = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"40\" height=\"30\">";
        let circle = "<circle cx=\"20\" cy=\"15\" r=\"7.3\" fill=\"#c00000\" \
                      stroke=\"#000000\" stroke-width=\"1.5\"/>";
        let under =
            |fill: &str| format!("{head}<rect width=\"40\" height=\"30\" fill=\"{fill}\"/>");
        for fill in ["#ffffff", "#2040ff", "#ffffff", "#2040ff"] {
            let layers = Layers {
                fixed: format!("{}</svg>", under(fill)),
                moving: vec![format!("{head}{circle}</svg>")],
            };
            let whole = png(&format!("{}{circle}</svg>", under(fill))).unwrap();
            assert!(layered_png(&layers).unwrap() == whole, "over {fill}");
        }
    }

    /// One inked pixel covers itself and its eight neighbours, and nothing past them.
    #[test]
    fn coverage_reaches_a_pixel_around_the_ink() {
        let (w, h) = (4, 4);
        let mut inked = vec![false; w * h];
        inked[w + 1] = true;
        let across = widened(&inked, |i| i % w, 1, w);
        let covered = widened(&across, |i| i / w, w, h);
        let expect: Vec<bool> = (0..w * h).map(|i| i % w <= 2 && i / w <= 2).collect();
        assert_eq!(covered, expect);
    }

    #[test]
    fn a_broken_document_is_an_error() {
        assert!(matches!(png("<svg"), Err(PictureError::Svg(_))));
    }
}
