//! A linear scan that guesses from above what html5ever would build of some HTML, and what parsing it would cost, before anything is parsed.
//!
//! A stack models html5ever's open elements: the self-closing flag counts for nothing (html5ever
//! ignores it on non-void elements); an end tag pops only an element that is open, and only
//! where html5ever would (a block's end tag down to its element, any other only its element at
//! the top); implied ends (`<p>` after `<p>`, `<li>` after `<li>`, a cell after a cell) pop only
//! the top element. Whatever it cannot be sure of, it leaves open, so its depth is never less
//! than the parser's. Formatting elements are counted apart: html5ever reopens each of them
//! after a block closed it, so every later node may bring all of them back.

/// Elements that never have content, so they do not nest.
const VOID: [&str; 16] = [
    "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param", "source",
    "track", "wbr", "basefont", "keygen",
];

/// html5ever's formatting elements: kept in its list of active formatting elements and
/// rebuilt (reconstructed) wherever they were closed by something else.
const FORMATTING: [&str; 14] = [
    "a", "b", "big", "code", "em", "font", "i", "nobr", "s", "small", "strike", "strong", "tt", "u",
];

/// Elements whose content the tokenizer reads as text up to their own end tag.
const RAW_TEXT: [&str; 8] = [
    "script", "style", "xmp", "iframe", "noembed", "noframes", "textarea", "title",
];

/// End tags that html5ever matches against elements in scope: it pops down to the element.
const SCOPED_END: [&str; 38] = [
    "address",
    "article",
    "aside",
    "blockquote",
    "button",
    "center",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "header",
    "hgroup",
    "listing",
    "main",
    "menu",
    "nav",
    "ol",
    "pre",
    "section",
    "summary",
    "ul",
    "p",
    "li",
    "dd",
    "dt",
    "table",
    "tbody",
    "thead",
    "tfoot",
    "tr",
    "td",
    "th",
    "caption",
];

/// Where a search for an open element stops (html5ever's scope boundaries).
const SCOPE_BOUNDARY: [&str; 11] = [
    "applet", "caption", "html", "table", "td", "th", "marquee", "object", "template", "svg",
    "math",
];

/// Start tags that close an open `<p>` at the top of the stack (not `<table>`: in quirks
/// mode, which mail without a doctype is in, it does not).
const CLOSES_P: [&str; 30] = [
    "address",
    "article",
    "aside",
    "blockquote",
    "center",
    "details",
    "dialog",
    "dir",
    "div",
    "dl",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "header",
    "hgroup",
    "main",
    "menu",
    "nav",
    "ol",
    "p",
    "section",
    "summary",
    "ul",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "pre",
];

/// Nodes an end tag of a formatting element may create (the adoption agency's clones: at
/// most eight rounds of a few each).
const ADOPTION_NODES: u64 = 32;

/// The scan's guess: nodes the parser may build and the work of building them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(super) struct Estimate {
    pub nodes: u64,
    pub work: u64,
    /// The deepest nesting the parser may build.
    pub depth: usize,
}

/// The open elements as the scan models them.
#[derive(Default)]
struct Model {
    open: Vec<String>,
    /// Formatting elements opened and not yet ended, by name (index in `FORMATTING`).
    formatting: [u64; FORMATTING.len()],
    formatting_open: u64,
    guess: Estimate,
}

impl Model {
    /// One node inserted at the current depth, with every formatting element reopened above
    /// it; its bytes are tokenized once and (if text) laid out once per enclosing element.
    fn insert(&mut self, bytes: usize, text: bool) {
        let depth = self.open.len() as u64 + self.formatting_open;
        let bytes = bytes as u64;
        self.guess.nodes += 1 + self.formatting_open;
        self.guess.work += self.formatting_open
            + if text {
                (bytes + 1) * (depth + 1)
            } else {
                bytes + depth + 1
            };
        self.guess.depth = self.guess.depth.max(depth as usize + 1);
    }

    fn start(&mut self, name: String, bytes: usize) {
        self.insert(bytes, false);
        if VOID.contains(&name.as_str()) {
            return;
        }
        if let Some(i) = FORMATTING.iter().position(|f| *f == name) {
            self.formatting[i] += 1;
            self.formatting_open += 1;
            return;
        }
        let top = self.open.last().map(String::as_str);
        let implied = match name.as_str() {
            "li" => top == Some("li"),
            "dt" | "dd" => matches!(top, Some("dt" | "dd")),
            "td" | "th" => matches!(top, Some("td" | "th")),
            "tr" => matches!(top, Some("tr" | "td" | "th")),
            "option" => top == Some("option"),
            name => top == Some("p") && CLOSES_P.contains(&name),
        };
        if implied {
            self.open.pop();
        }
        self.open.push(name);
    }

    fn end(&mut self, name: &str, bytes: usize) {
        self.guess.work += bytes as u64;
        if let Some(i) = FORMATTING.iter().position(|f| *f == name) {
            // The adoption agency: clones and a walk of the stack per round.
            let depth = self.open.len() as u64 + self.formatting_open;
            self.guess.nodes += ADOPTION_NODES;
            self.guess.work += 8 * (depth + 1) + ADOPTION_NODES;
            if self.formatting[i] > 0 {
                self.formatting[i] -= 1;
                self.formatting_open -= 1;
            }
            return;
        }
        self.guess.work += self.open.len() as u64 + 1;
        if SCOPED_END.contains(&name) {
            let found = self.open.iter().rposition(|open| open == name);
            let boundary = self
                .open
                .iter()
                .rposition(|open| open != name && is_boundary(name, open));
            match (found, boundary) {
                (Some(at), Some(stop)) if stop > at => {}
                (Some(at), _) => self.open.truncate(at),
                // `</p>` with no `<p>` open makes an empty one.
                (None, _) if name == "p" => self.insert(0, false),
                (None, _) => {}
            }
        } else if self.open.last().is_some_and(|top| top == name) {
            self.open.pop();
        }
    }
}

/// Whether an open element hides those below it from `name`'s end tag (p's button scope and
/// li's list item scope add their own; a table's parts have the table scope).
fn is_boundary(name: &str, open: &str) -> bool {
    if matches!(
        name,
        "table" | "tbody" | "thead" | "tfoot" | "tr" | "td" | "th" | "caption"
    ) {
        // Table scope: a table's parts are found down to the table.
        return matches!(open, "html" | "template" | "table");
    }
    SCOPE_BOUNDARY.contains(&open)
        || (name == "p" && open == "button")
        || (name == "li" && matches!(open, "ol" | "ul"))
}

/// Guesses, from above, what html5ever builds of `html` and what it costs; `None` as soon as
/// that is more than `limit` (nodes, work). The scan's own work is linear in the length of
/// `html` plus the work it counts, so stopping at the limit bounds it too.
pub(super) fn estimate(html: &str, limit: Estimate) -> Option<Estimate> {
    let bytes = html.as_bytes();
    let mut model = Model::default();
    let mut at = 0;
    while at < bytes.len() {
        if model.guess.nodes > limit.nodes || model.guess.work > limit.work {
            return None;
        }
        let lt = find_byte(bytes, at, b'<').unwrap_or(bytes.len());
        if lt > at {
            model.insert(lt - at, true);
        }
        if lt >= bytes.len() {
            break;
        }
        let rest = &bytes[lt..];
        let next = rest.get(1).copied().unwrap_or(0);
        at = if rest.starts_with(b"<!--") {
            model.insert(0, false);
            comment_end(bytes, lt + 4)
        } else if next == b'!' || next == b'?' {
            model.insert(0, false);
            after_byte(bytes, lt + 2, b'>')
        } else if next == b'/' {
            let name_at = lt + 2;
            if bytes.get(name_at).is_some_and(u8::is_ascii_alphabetic) {
                let name = tag_name(bytes, name_at);
                let end = tag_end(bytes, name_at);
                model.end(&name, end - lt);
                end
            } else {
                after_byte(bytes, name_at, b'>')
            }
        } else if next.is_ascii_alphabetic() {
            let name = tag_name(bytes, lt + 1);
            let end = tag_end(bytes, lt + 1);
            let raw = RAW_TEXT.contains(&name.as_str());
            let plaintext = name == "plaintext";
            model.start(name.clone(), end - lt);
            if plaintext {
                // Everything after `<plaintext>` is text.
                model.insert(bytes.len() - end, true);
                break;
            }
            if raw {
                let close = raw_text_end(bytes, end, &name);
                model.insert(close - end, true);
                close
            } else {
                end
            }
        } else {
            model.insert(1, true);
            lt + 1
        };
    }
    let guess = model.guess;
    (guess.nodes <= limit.nodes && guess.work <= limit.work).then_some(guess)
}

fn find_byte(bytes: &[u8], from: usize, byte: u8) -> Option<usize> {
    bytes[from.min(bytes.len())..]
        .iter()
        .position(|b| *b == byte)
        .map(|i| from + i)
}

/// Just after the next `byte` from `from`, or the end.
fn after_byte(bytes: &[u8], from: usize, byte: u8) -> usize {
    find_byte(bytes, from, byte).map_or(bytes.len(), |i| i + 1)
}

/// A tag name, lowercased, as the tokenizer reads it: up to a space, `/` or `>`.
fn tag_name(bytes: &[u8], from: usize) -> String {
    let name: Vec<u8> = bytes[from..]
        .iter()
        .take_while(|b| !b.is_ascii_whitespace() && **b != b'/' && **b != b'>')
        .map(u8::to_ascii_lowercase)
        .collect();
    String::from_utf8_lossy(&name).into_owned()
}

/// Just after the `>` that ends a tag: a quote opens a value only after `=` (and spaces), and
/// a `>` inside a quoted value does not end the tag.
fn tag_end(bytes: &[u8], from: usize) -> usize {
    let mut i = from;
    let mut after_equals = false;
    while i < bytes.len() {
        match bytes[i] {
            b'>' => return i + 1,
            b'=' => after_equals = true,
            quote @ (b'"' | b'\'') if after_equals => {
                i = find_byte(bytes, i + 1, quote).unwrap_or(bytes.len());
                after_equals = false;
            }
            b if b.is_ascii_whitespace() => {}
            _ => after_equals = false,
        }
        i += 1;
    }
    bytes.len()
}

/// Just after a comment whose text starts at `from`: `<!-->` and `<!--->` end at once, else
/// the first `-->` or `--!>`.
fn comment_end(bytes: &[u8], from: usize) -> usize {
    let rest = &bytes[from.min(bytes.len())..];
    if rest.starts_with(b">") {
        return from + 1;
    }
    if rest.starts_with(b"->") {
        return from + 2;
    }
    let mut i = from;
    while let Some(dash) = find_byte(bytes, i, b'-') {
        let tail = &bytes[dash..];
        if tail.starts_with(b"-->") {
            return dash + 3;
        }
        if tail.starts_with(b"--!>") {
            return dash + 4;
        }
        i = dash + 1;
    }
    bytes.len()
}

/// Where the text of a raw text element ends: at `</name` (any case), or the end.
fn raw_text_end(bytes: &[u8], from: usize, name: &str) -> usize {
    let mut i = from;
    while let Some(lt) = find_byte(bytes, i, b'<') {
        let tail = &bytes[lt..];
        if tail.get(1) == Some(&b'/')
            && tail.len() >= 2 + name.len()
            && tail[2..2 + name.len()].eq_ignore_ascii_case(name.as_bytes())
        {
            return lt;
        }
        i = lt + 1;
    }
    bytes.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimate(html: &str) -> Estimate {
        let unlimited = Estimate {
            nodes: u64::MAX,
            work: u64::MAX,
            depth: 0,
        };
        super::estimate(html, unlimited).unwrap()
    }

    #[test]
    fn the_scan_stops_at_its_limit() {
        // Open elements that fit the limit, then end tags that each search the whole stack
        // (2,000 deep): quadratic work, cut off at the limit by the end tags alone.
        let opened = "<h1><h2>".repeat(1_000);
        let limit = Estimate {
            nodes: 1_000_000,
            work: 10_000_000,
            depth: 0,
        };
        assert!(
            super::estimate(&opened, limit).is_some(),
            "the start tags fit"
        );
        let html = format!("{opened}{}", "</div>".repeat(50_000));
        assert_eq!(super::estimate(&html, limit), None);
    }

    #[test]
    fn the_self_closing_flag_does_not_close_a_blockquote() {
        let guess = estimate(&"<blockquote/>x ".repeat(100));
        assert!(guess.depth >= 100, "{guess:?}");
    }

    #[test]
    fn an_end_tag_that_closes_nothing_lowers_nothing() {
        let html = format!("{}{}x", "<div>".repeat(50), "</span></p></li>".repeat(50));
        assert!(estimate(&html).depth >= 50);
        // `</div>` in a comment, an attribute or a style sheet closes nothing either.
        let hidden = format!(
            "{}<!-- </div> --><a title='</div>'></a><style></div></style>x",
            "<div>".repeat(3)
        );
        assert!(estimate(&hidden).depth >= 3);
    }

    #[test]
    fn ordinary_markup_is_shallow() {
        let html = "<p>a<br>b<img src=x/></p><div><p>one<p>two</div><ul><li>x<li>y</ul>";
        assert!(estimate(html).depth <= 3, "{:?}", estimate(html));
        let table = "<table><tr><td>a<td>b<tr><td>c</table>".repeat(100);
        assert!(estimate(&table).depth <= 5, "{:?}", estimate(&table));
    }

    #[test]
    fn reopened_formatting_elements_count_for_every_later_node() {
        let tags: String = (0..100).map(|n| format!("<b id={n}>")).collect();
        let html = format!("<p>{tags}</p>{}", "x<p></p>".repeat(100));
        assert!(estimate(&html).nodes >= 100 * 100);
    }
}
