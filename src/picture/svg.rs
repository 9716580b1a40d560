//! A small SVG writer: the few shapes the boards need, with flat fills and strokes.

use std::fmt::Write as _;

use super::palette::Rgb;

/// A stroke: colour and width, optionally dashed (dash and gap of `dash` pixels).
#[derive(Debug, Clone, Copy)]
pub(super) struct Stroke {
    pub colour: Rgb,
    pub width: f32,
    pub dash: Option<f32>,
}

impl Stroke {
    pub(super) fn solid(colour: Rgb, width: f32) -> Stroke {
        Stroke {
            colour,
            width,
            dash: None,
        }
    }

    pub(super) fn dashed(colour: Rgb, width: f32, dash: f32) -> Stroke {
        Stroke {
            colour,
            width,
            dash: Some(dash),
        }
    }
}

/// Where a text's `x` is: its start or its middle.
#[derive(Debug, Clone, Copy)]
pub(super) enum Anchor {
    Start,
    Middle,
}

/// The document being written; `finish` closes it. What is drawn before `end_of_fixed` is
/// the fixed layer: `layers` gives it apart from the rest, so it can be drawn once.
pub(super) struct Svg {
    out: String,
    /// Where the background starts: what comes before is the root element's opening tag.
    head: usize,
    /// Where the fixed layer ends (the whole document while `end_of_fixed` is not called).
    fixed: Option<usize>,
    /// Where each element starts: every shape is one element, with no child but its text.
    starts: Vec<usize>,
}

/// A picture as the fixed layer (the background, the board's squares, its coordinates and
/// legend: what is the same in many positions), a document of its own, and what is drawn over
/// it, each element a document of its own (the root's opening tag, the element, the end):
/// drawn in order one over the other, they are the whole document. An element alone is the
/// same document in every position that has it (a die's face, a piece on its square), so its
/// parsing, the text's shaping most of all, is done once for all of them.
pub(super) struct Layers {
    pub fixed: String,
    pub moving: Vec<String>,
}

/// Appends `x` as the shortest text that reads back as the same number (zmij: the standard
/// library's float formatting was a twentieth of a Siberian Dice picture's drawing).
fn num(out: &mut String, x: f32) {
    out.push_str(zmij::Buffer::new().format(x));
}

/// Appends ` name="x"`.
fn attr(out: &mut String, name: &str, x: f32) {
    out.push(' ');
    out.push_str(name);
    out.push_str("=\"");
    num(out, x);
    out.push('"');
}

/// Appends the fill and stroke attributes of a shape (no fill: `none`).
fn paint(out: &mut String, fill: Option<Rgb>, stroke: Option<Stroke>) {
    out.push_str(" fill=\"");
    match fill {
        Some(c) => c.push_to(out),
        None => out.push_str("none"),
    }
    out.push('"');
    if let Some(st) = stroke {
        out.push_str(" stroke=\"");
        st.colour.push_to(out);
        out.push('"');
        attr(out, "stroke-width", st.width);
        out.push_str(" stroke-linejoin=\"round\" stroke-linecap=\"round\"");
        if let Some(d) = st.dash {
            out.push_str(" stroke-dasharray=\"");
            num(out, d);
            out.push(' ');
            num(out, d);
            out.push('"');
        }
    }
}

/// Text as XML content: the three characters XML gives a meaning.
fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

impl Svg {
    /// A `width` x `height` picture on a plain background.
    pub(super) fn new(width: u32, height: u32, background: Rgb) -> Svg {
        let mut out = format!(
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
             viewBox=\"0 0 {width} {height}\" font-family=\"DejaVu Sans\" font-weight=\"bold\">"
        );
        let head = out.len();
        let _ = write!(
            out,
            "<rect width=\"{width}\" height=\"{height}\" fill=\"{background}\"/>"
        );
        Svg {
            out,
            head,
            fixed: None,
            starts: Vec::new(),
        }
    }

    /// Marks the start of the element about to be written (every shape calls it first).
    fn element(&mut self) -> &mut String {
        self.starts.push(self.out.len());
        &mut self.out
    }

    /// Ends the fixed layer: what was drawn so far must not overlap (or be overlapped by)
    /// anything drawn later that it was not drawn under in the whole document.
    pub(super) fn end_of_fixed(&mut self) {
        self.fixed = Some(self.out.len());
    }

    /// A rectangle from its top-left corner `at`, its corners rounded by `radius`. Square,
    /// unstroked ones are drawn on whole pixels (`crispEdges`): sharp edges, and no blended
    /// colours to enlarge the PNG.
    pub(super) fn rect(
        &mut self,
        (x, y): (f32, f32),
        (w, h): (f32, f32),
        radius: f32,
        fill: Option<Rgb>,
        stroke: Option<Stroke>,
    ) {
        let crisp = if radius == 0.0 && stroke.is_none() {
            " shape-rendering=\"crispEdges\""
        } else {
            ""
        };
        let out = self.element();
        out.push_str("<rect");
        attr(out, "x", x);
        attr(out, "y", y);
        attr(out, "width", w);
        attr(out, "height", h);
        attr(out, "rx", radius);
        paint(out, fill, stroke);
        out.push_str(crisp);
        out.push_str("/>");
    }

    pub(super) fn circle(
        &mut self,
        cx: f32,
        cy: f32,
        r: f32,
        fill: Option<Rgb>,
        stroke: Option<Stroke>,
    ) {
        let out = self.element();
        out.push_str("<circle");
        attr(out, "cx", cx);
        attr(out, "cy", cy);
        attr(out, "r", r);
        paint(out, fill, stroke);
        out.push_str("/>");
    }

    /// A closed shape through these points.
    pub(super) fn polygon(
        &mut self,
        points: &[(f32, f32)],
        fill: Option<Rgb>,
        stroke: Option<Stroke>,
    ) {
        let out = self.element();
        out.push_str("<polygon points=\"");
        point_list(out, points);
        out.push('"');
        paint(out, fill, stroke);
        out.push_str("/>");
    }

    /// An open line through these points.
    pub(super) fn polyline(&mut self, points: &[(f32, f32)], stroke: Stroke) {
        let out = self.element();
        out.push_str("<polyline points=\"");
        point_list(out, points);
        out.push('"');
        paint(out, None, Some(stroke));
        out.push_str("/>");
    }

    /// One line of text, `y` its baseline.
    pub(super) fn text(
        &mut self,
        x: f32,
        y: f32,
        size: f32,
        colour: Rgb,
        anchor: Anchor,
        text: &str,
    ) {
        let anchor = match anchor {
            Anchor::Start => "start",
            Anchor::Middle => "middle",
        };
        let out = self.element();
        out.push_str("<text");
        attr(out, "x", x);
        attr(out, "y", y);
        attr(out, "font-size", size);
        out.push_str(" fill=\"");
        colour.push_to(out);
        out.push_str("\" text-anchor=\"");
        out.push_str(anchor);
        out.push_str("\">");
        out.push_str(&escape(text));
        out.push_str("</text>");
    }

    /// One line of text from `x` (`y` its baseline), drawn as pieces: each digit alone and
    /// the words between the numbers as one piece, each where the whole line puts it. A
    /// legend's numbers change from position to position while its words stay: each piece
    /// is then an element some earlier picture drew (`render::element`), and the line costs
    /// no text shaping; as one element, every new number made it a new text to shape.
    pub(super) fn text_pieces(&mut self, x: f32, y: f32, size: f32, colour: Rgb, text: &str) {
        let mut at = x;
        for piece in pieces(text) {
            // Leading spaces are not drawn (SVG drops them): the piece starts after them.
            let words = piece.trim_start();
            let lead = super::metrics::advance(&piece[..piece.len() - words.len()], size);
            if !words.trim_end().is_empty() {
                self.text(at + lead, y, size, colour, Anchor::Start, words.trim_end());
            }
            at += super::metrics::advance(piece, size);
        }
    }

    /// Text centred on a point (its middle a third of the size below the baseline's top).
    pub(super) fn label(&mut self, cx: f32, cy: f32, size: f32, colour: Rgb, text: &str) {
        self.text(cx, cy + size * 0.36, size, colour, Anchor::Middle, text);
    }

    pub(super) fn finish(mut self) -> String {
        self.out.push_str("</svg>");
        self.out
    }

    /// The fixed layer, a whole document, and each element drawn over it as a whole document.
    pub(super) fn layers(self) -> Layers {
        let end = self.fixed.unwrap_or(self.out.len());
        let fixed = format!("{}</svg>", &self.out[..end]);
        let head = &self.out[..self.head];
        let mut bounds: Vec<usize> = self.starts.iter().copied().filter(|&s| s >= end).collect();
        bounds.push(self.out.len());
        let moving = bounds
            .windows(2)
            .map(|w| format!("{head}{}</svg>", &self.out[w[0]..w[1]]))
            .collect();
        Layers { fixed, moving }
    }
}

/// A line cut before and after each digit: every digit a piece, and what lies between
/// digits one piece.
fn pieces(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for (i, c) in text.char_indices() {
        if c.is_ascii_digit() {
            if start < i {
                out.push(&text[start..i]);
            }
            out.push(&text[i..i + 1]);
            start = i + 1;
        }
    }
    if start < text.len() {
        out.push(&text[start..]);
    }
    out
}

/// Appends the points as `x,y x,y ...`.
fn point_list(out: &mut String, points: &[(f32, f32)]) {
    for (i, &(x, y)) in points.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        num(out, x);
        out.push(',');
        num(out, y);
    }
}

/// How wide a text of the embedded bold font is, about (its letters average 0.7 em): enough
/// to lay out a legend without measuring glyphs.
pub(super) fn text_width(text: &str, size: f32) -> f32 {
    text.chars().count() as f32 * size * 0.7
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_is_cut_around_each_digit() {
        assert_eq!(
            pieces("hand 12, perfect 0/6"),
            ["hand ", "1", "2", ", perfect ", "0", "/", "6"]
        );
        assert_eq!(pieces("365"), ["3", "6", "5"]);
        assert_eq!(pieces("next -"), ["next -"]);
        assert!(pieces("").is_empty());
    }

    proptest::proptest! {
        /// Whatever the line, its pieces are the line, each digit alone and no piece empty.
        #[test]
        fn the_pieces_are_the_line(text in "[a-z0-9 ,/.é-]{0,30}") {
            let cut = pieces(&text);
            proptest::prop_assert_eq!(cut.concat(), text.clone());
            for piece in cut {
                proptest::prop_assert!(!piece.is_empty());
                let digits = piece.chars().filter(char::is_ascii_digit).count();
                proptest::prop_assert!(digits == 0 || piece.len() == 1, "{:?}", piece);
            }
        }
    }

    /// The pieces stand where the whole line puts its letters: in this font nothing kerns
    /// across a space or a digit, and no two glyphs share a pixel at these sizes, so the
    /// picture is the whole line's, pixel for pixel.
    #[test]
    fn a_line_drawn_in_pieces_looks_as_drawn_whole() {
        let doc = |body: &dyn Fn(&mut Svg)| {
            let mut svg = Svg::new(260, 30, Rgb(255, 255, 255));
            body(&mut svg);
            super::super::render::png(&svg.finish()).unwrap()
        };
        let ink = Rgb(0, 0, 0);
        for (line, size) in [
            ("hand 12, perfect 3/6", 12.0),
            ("next 5142636514231 ...", 13.0),
            ("numbers to come: 9087", 13.0),
            ("indicator 4", 12.0),
        ] {
            let whole = doc(&|s| s.text(6.0, 20.0, size, ink, Anchor::Start, line));
            let cut = doc(&|s| s.text_pieces(6.0, 20.0, size, ink, line));
            let inked = decode(&whole).iter().filter(|&&p| p < 128).count();
            assert!(inked > 50, "{line}: {inked} dark pixels");
            assert!(
                decode(&whole) == decode(&cut),
                "{line} drawn in pieces differs"
            );
        }
    }

    /// A PNG's pixels as grey levels (its red channel).
    fn decode(png: &[u8]) -> Vec<u8> {
        let pixmap = resvg::tiny_skia::Pixmap::decode_png(png).unwrap();
        pixmap.pixels().iter().map(|p| p.red()).collect()
    }

    #[test]
    fn text_is_escaped_and_the_document_closed() {
        let mut svg = Svg::new(10, 20, Rgb(255, 255, 255));
        svg.text(1.0, 2.0, 12.0, Rgb(0, 0, 0), Anchor::Start, "a<b & c");
        let doc = svg.finish();
        assert!(doc.contains(">a&lt;b &amp; c</text>"), "{doc}");
        assert!(doc.starts_with("<svg ") && doc.ends_with("</svg>"));
        assert!(doc.contains("width=\"10\" height=\"20\""));
    }

    #[test]
    fn each_moving_element_is_a_document_of_its_own() {
        let mut svg = Svg::new(10, 20, Rgb(255, 255, 255));
        svg.end_of_fixed();
        svg.circle(1.0, 2.0, 3.0, Some(Rgb(0, 0, 0)), None);
        svg.label(5.0, 5.0, 8.0, Rgb(0, 0, 0), "a<b");
        svg.polyline(&[(0.0, 0.0), (1.0, 1.0)], Stroke::solid(Rgb(0, 0, 0), 1.0));
        let layers = svg.layers();
        let ends = ["/></svg>", ">a&lt;b</text></svg>", "/></svg>"];
        assert_eq!(layers.moving.len(), 3);
        for (doc, end) in layers.moving.iter().zip(ends) {
            assert!(doc.starts_with("<svg ") && doc.ends_with(end), "{doc}");
            assert_eq!(
                doc.matches('<').count(),
                3 + usize::from(end.contains("text"))
            );
        }
    }

    #[test]
    fn the_layers_are_the_document_split_where_the_fixed_layer_ends() {
        let mut svg = Svg::new(10, 20, Rgb(255, 255, 255));
        svg.circle(1.0, 2.0, 3.0, Some(Rgb(0, 0, 0)), None);
        svg.end_of_fixed();
        svg.text(1.0, 2.0, 12.0, Rgb(0, 0, 0), Anchor::Start, "moved");
        let layers = svg.layers();
        assert!(layers.fixed.contains("<circle") && layers.fixed.contains("<rect"));
        assert!(!layers.fixed.contains("moved") && layers.fixed.ends_with("</svg>"));
        assert_eq!(layers.moving.len(), 1);
        let text = &layers.moving[0];
        assert!(text.starts_with("<svg ") && text.ends_with("\">moved</text></svg>"));
        assert!(!text.contains("<circle") && !text.contains("<rect"));
    }
}
