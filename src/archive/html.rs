//! The archive's pages: one skeleton, one small style sheet, text escaped.

/// The one style sheet: a single column that narrows to a phone's width (nothing is wider
/// than the screen: pictures shrink, long words break, lists wrap).
pub(super) const CSS: &str = "\
html { -webkit-text-size-adjust: 100%; }
body { font-family: Georgia, 'DejaVu Serif', serif; line-height: 1.45; margin: 0 auto;
  max-width: 46rem; padding: 0.75rem; color: #222; background: #fdfcf8;
  overflow-wrap: anywhere; }
a { color: #1f4f8a; }
nav { margin: 0.5rem 0; }
nav a, nav span { margin-right: 0.75rem; white-space: nowrap; display: inline-block; }
h1 { font-size: 1.5rem; margin: 0.5rem 0; }
h2 { font-size: 1.2rem; margin: 1.2rem 0 0.4rem; }
img { max-width: 100%; height: auto; }
pre { white-space: pre-wrap; font-size: 0.9rem; }
ul.games li, ol.plies li { margin: 0.2rem 0; }
ol.plies { columns: 12rem; }
.here { font-weight: bold; }
.comment { font-style: italic; color: #555; }
.muted { color: #666; }
figure { margin: 0.5rem 0; }
";

/// Text made safe inside HTML (element content and quoted attributes alike).
pub(super) fn esc(text: &str) -> String {
    crate::compose::html::escape(text)
}

/// A whole page: `root` is the way back to the archive's top (`""`, `"../"`, `"../../"`),
/// for the style sheet and the indexes' links on every page.
pub(super) fn page(root: &str, title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<link rel=\"stylesheet\" href=\"{root}style.css\">\n\
         </head>\n<body>\n<nav><a href=\"{root}index.html\">Games by date</a>\
         <a href=\"{root}by-game.html\">by game</a><a href=\"{root}by-player.html\">by player</a>\
         </nav>\n{body}</body>\n</html>\n",
        title = esc(title)
    )
}

/// A link, its text escaped.
pub(super) fn link(href: &str, text: &str) -> String {
    format!("<a href=\"{}\">{}</a>", esc(href), esc(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_in_text_is_shown_not_read() {
        assert_eq!(
            esc("<b>\"x\" & 'y'"),
            "&lt;b&gt;&quot;x&quot; &amp; &#39;y&#39;"
        );
    }
}
