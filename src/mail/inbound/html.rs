//! HTML bodies to text within one budget per mail: html5ever and html2text for what a person writes, a linear tag-stripping path for anything larger or deeper.
//!
//! html5ever ignores the self-closing flag on non-void elements, reopens formatting elements
//! (`<b>`, `<font>` ...) after each block that closed them, and html2text lays out every level
//! of nesting again: a few kilobytes of markup can cost seconds and hundreds of megabytes.
//! So every HTML part of a mail draws on one `HtmlBudget`: a linear scan first guesses (from
//! above) what the parser would build, then what it did build is measured before it is laid
//! out. Whatever does not fit is read by `strip_tags`, whose work is linear in its input.

use std::panic::{catch_unwind, AssertUnwindSafe};

use html2text::{Handle, RcDom};

mod scan;

/// Nodes the parser may build for all the HTML parts of one mail: a long quoted Outlook
/// thread has a few thousand; each costs a few hundred bytes in the DOM and render tree.
/// The parse itself is quadratic in the nodes a table fosters out (html5ever searches their
/// siblings for each): 58,000 of them (`<table>` then `<img>` after `<img>`) took 0.8 s of
/// CPU in a release build, 30,000 take a quarter of that.
const MAIL_NODES: u64 = 30_000;

/// Work units for one mail: each node, and each byte of text, weighted by the depth at which
/// it is parsed and laid out (html2text copies a block's lines once per
/// enclosing block). Ordinary mail of a megabyte needs well under half of it.
const MAIL_WORK: u64 = 24_000_000;

/// Deeper nesting than any real mail has, measured in what the parser built; html2text's
/// time grows with the square of the depth.
const MAX_DEPTH: usize = 250;

/// What the HTML parts of one mail may still cost before the rest are stripped linearly.
pub(crate) struct HtmlBudget {
    nodes: u64,
    work: u64,
}

/// What a parse built: nodes, the deepest nesting, and the work of laying it out.
struct Built {
    nodes: u64,
    depth: usize,
    work: u64,
}

impl HtmlBudget {
    pub(crate) fn per_mail() -> HtmlBudget {
        HtmlBudget {
            nodes: MAIL_NODES,
            work: MAIL_WORK,
        }
    }

    /// HTML converted to plain text; blockquotes come out as `> ` lines. What is over the
    /// budget is stripped of its tags; HTML that makes the converter fail (or panic) yields
    /// no text rather than an error.
    pub(crate) fn convert(&mut self, html: &str) -> String {
        let limit = scan::Estimate {
            nodes: self.nodes,
            work: self.work,
            depth: 0,
        };
        let Some(guess) = scan::estimate(html, limit) else {
            // The scan spent the budget finding that out: the mail's other parts go the
            // linear way too.
            self.nodes = 0;
            self.work = 0;
            return strip_tags(html);
        };
        self.work -= guess.work;
        let config = html2text::config::plain_no_decorate()
            .raw_mode(true)
            .allow_width_overflow();
        let converted = catch_unwind(AssertUnwindSafe(|| {
            let dom = config.parse_html(html.as_bytes()).ok()?;
            let built = measure(&dom);
            if built.depth > MAX_DEPTH || built.nodes > self.nodes || built.work > self.work {
                return Some(None);
            }
            self.nodes -= built.nodes;
            self.work -= built.work;
            let tree = config.dom_to_render_tree(&dom).ok()?;
            config.render_to_string(tree, 1000).ok().map(Some)
        }));
        match converted {
            Ok(Some(Some(text))) => super::body::normalize_line_ends(&text),
            Ok(Some(None)) => strip_tags(html),
            _ => String::new(),
        }
    }
}

/// Walks what the parser built (without recursion: it may be thousands deep).
fn measure(dom: &RcDom) -> Built {
    let mut built = Built {
        nodes: 0,
        depth: 0,
        work: 0,
    };
    let mut todo: Vec<(Handle, usize)> = vec![(dom.document.clone(), 0)];
    while let Some((node, depth)) = todo.pop() {
        built.nodes += 1;
        built.depth = built.depth.max(depth);
        // Text is weighed by the scan (html2text does not let a text node's length be read).
        built.work += depth as u64 + 1;
        let children = node.children.borrow();
        todo.extend(children.iter().map(|child| (child.clone(), depth + 1)));
    }
    built
}

/// Crude HTML to text for input html2text cannot be trusted with: tags dropped, block tags
/// and `<br>` turned into line breaks, the commonest entities decoded.
pub(super) fn strip_tags(html: &str) -> String {
    let mut text = String::with_capacity(html.len() / 2);
    let mut pieces = html.split('<');
    text.push_str(pieces.next().unwrap_or_default());
    for piece in pieces {
        let (tag, after) = piece.split_once('>').unwrap_or((piece, ""));
        let name: String = tag
            .trim_start_matches('/')
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        if matches!(
            name.as_str(),
            "br" | "p" | "div" | "tr" | "li" | "blockquote" | "h1" | "h2" | "h3" | "hr" | "table"
        ) {
            text.push('\n');
        }
        text.push_str(after);
    }
    text.replace("&nbsp;", " ")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&amp;", "&")
}
