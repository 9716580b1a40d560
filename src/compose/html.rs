//! A mail's HTML part, made from its text: the same words as paragraphs, the board as a picture (by `cid:`) and as the same ASCII in a monospace `<pre>`, inline CSS only, at most 600 px wide.

use crate::mail::outbound::{Html, Picture};

/// Inline styles only: Gmail and Outlook drop `<style>` blocks and external sheets.
const PAGE: &str = "margin:0 auto;max-width:600px;padding:12px;\
     font-family:Helvetica,Arial,sans-serif;font-size:15px;line-height:1.45;color:#1d1d1f";
/// The board's text: its columns must line up, so it never wraps (it scrolls inside its box).
const PRE: &str = "font-family:Menlo,Consolas,'DejaVu Sans Mono','Courier New',monospace;\
     font-size:13px;line-height:1.25;white-space:pre;overflow-x:auto;background:#f6f6f4;\
     border:1px solid #ddd;border-radius:4px;padding:8px;margin:12px 0";
/// Other indented text (a list, the settings, a record): monospace, its lines kept, but a
/// line wider than a phone wraps rather than hiding its end.
const LIST: &str = "font-family:Menlo,Consolas,'DejaVu Sans Mono','Courier New',monospace;\
     font-size:13px;line-height:1.25;white-space:pre-wrap;overflow-wrap:anywhere;\
     background:#f6f6f4;border:1px solid #ddd;border-radius:4px;padding:8px;margin:12px 0";
const IMG: &str = "display:block;max-width:100%;height:auto;border:0;margin:12px 0";
/// A long token on a line of its own (a 64-digit seed or commitment): monospace, and free to
/// wrap between any two digits, so it never makes a phone's page wider than the screen.
const TOKEN: &str = "font-family:Menlo,Consolas,'DejaVu Sans Mono','Courier New',monospace;\
     font-size:13px;overflow-wrap:anywhere;word-break:break-all";
/// The shortest indented word read as a token (a hash), not as a column of a table.
const TOKEN_CHARS: usize = 32;

/// The HTML alternative of a mail whose text is `text`. Where `board` (the ASCII board, as the
/// text carries it) appears, the HTML shows `picture` (when there is one) and then the board
/// in a `<pre>`, so that a client that blocks images still shows it aligned.
pub fn letter(text: &str, board: Option<&str>, picture: Option<Picture>) -> Html {
    let mut body = String::with_capacity(text.len() * 2 + 512);
    body.push_str("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\">");
    body.push_str("<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">");
    body.push_str("</head>\n<body style=\"margin:0;padding:0;background:#ffffff\">\n");
    body.push_str(&format!("<div style=\"{PAGE}\">\n"));
    let (before, after) = match board.filter(|b| !b.trim().is_empty()) {
        Some(b) => match text.find(b.trim_end()) {
            Some(at) => (
                &text[..at],
                Some((b.trim_end(), &text[at + b.trim_end().len()..])),
            ),
            None => (text, None),
        },
        None => (text, None),
    };
    paragraphs(&mut body, before);
    let mut pictures = Vec::new();
    if let Some((board, rest)) = after {
        if let Some(p) = picture {
            body.push_str(&format!(
                "<img src=\"cid:{}\" alt=\"The board\" style=\"{IMG}\">\n",
                escape(&p.content_id)
            ));
            pictures.push(p);
        }
        body.push_str(&format!("<pre style=\"{PRE}\">{}</pre>\n", escape(board)));
        paragraphs(&mut body, rest);
    }
    body.push_str("</div>\n</body></html>\n");
    Html { body, pictures }
}

/// Text as paragraphs (blank lines between them), their words reflowing (`reflowed`), and a
/// paragraph of indented or column-aligned lines (a list, a record) stays monospace; a
/// paragraph whose only indented lines are each one long token (the dice's seed and its
/// commitment) is words, the token on a line of its own that may wrap.
fn paragraphs(out: &mut String, text: &str) {
    for para in text.split("\n\n").map(|p| p.trim_matches('\n')) {
        if para.trim().is_empty() {
            continue;
        }
        if looks_preformatted(para) && !only_tokens_indented(para) {
            out.push_str(&format!("<pre style=\"{LIST}\">{}</pre>\n", escape(para)));
            continue;
        }
        out.push_str(&format!(
            "<p style=\"margin:0 0 12px 0\">{}</p>\n",
            reflowed(para)
        ));
    }
}

/// A paragraph's lines for a browser: a line the text was refilled at (it ran close to the
/// text's width) flows into the next, so the words reflow at any screen width; a short line
/// was ended on purpose (a list of lines, a signature) and keeps its break; a token's line
/// (`is_token`) stands alone, in a span that wraps anywhere.
fn reflowed(para: &str) -> String {
    // Refilled: close to the width, or the next line's first unit (a word, or a date with
    // its time, which wrapping keeps whole) would not have fitted after it.
    let filled = |l: &str, next: &str| {
        let len = l.chars().count();
        len > crate::template::WIDTH - 16 || len + 1 + first_unit(next) > crate::template::WIDTH
    };
    let lines: Vec<&str> = para.lines().collect();
    let mut out = String::with_capacity(para.len() + 32);
    for (i, line) in lines.iter().enumerate() {
        let token = is_token(line);
        if token {
            out.push_str(&format!(
                "<span style=\"{TOKEN}\">{}</span>",
                escape(line.trim())
            ));
        } else {
            out.push_str(&escape(line));
        }
        if let Some(next) = lines.get(i + 1) {
            let joins = !token && !is_token(next) && filled(line, next);
            out.push_str(if joins { " " } else { "<br>\n" });
        }
    }
    out
}

/// The width of what wrapping moves to a line's start as one: its first word, or a date with
/// its time and zone (`2026-03-05 12:00 UTC`).
fn first_unit(line: &str) -> usize {
    let words: Vec<&str> = line.split_whitespace().take(3).collect();
    let Some(first) = words.first() else {
        return 0;
    };
    let is_date = first.len() == 10 && first.chars().all(|c| c.is_ascii_digit() || c == '-');
    match is_date {
        true => words.join(" ").chars().count(),
        false => first.chars().count(),
    }
}

/// An indented line holding one long word and nothing else: a hash, a seed.
fn is_token(line: &str) -> bool {
    let word = line.trim();
    line.starts_with("  ")
        && word.chars().count() >= TOKEN_CHARS
        && !word.contains(char::is_whitespace)
}

/// Every indented line is a token and no line is laid out in columns: the paragraph is
/// words around a hash, not a table.
fn only_tokens_indented(para: &str) -> bool {
    para.lines()
        .all(|l| !l.trim().contains("   ") && (!l.starts_with("  ") || is_token(l)))
}

/// Lines indented by two or more spaces or holding runs of spaces are laid out in columns:
/// a proportional font would break them.
fn looks_preformatted(para: &str) -> bool {
    para.lines()
        .any(|l| l.starts_with("  ") || l.trim().contains("   "))
}

/// Escapes text for HTML element content and attribute values.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {

    /// Words refilled at 76 columns flow as one paragraph in a browser (no hard break at a
    /// phone's width); a short line ended on purpose keeps its break.
    #[test]
    fn a_line_wrapped_before_a_date_reflows() {
        // Wrapped at 55 columns: the date and its time (22) would not have fitted.
        let text = "orders awaited from BLUE, RED, GREEN, YELLOW (deadline\n2026-03-05 12:00 UTC).";
        let html = reflowed(text);
        assert!(!html.contains("<br>"), "{html}");
        assert!(reflowed("Players:\n  A: ann").contains("<br>"));
    }

    #[test]
    fn refilled_lines_reflow_and_short_lines_keep_their_breaks() {
        let long = "word ".repeat(14);
        let text = format!(
            "{}\nand the rest.\n\nok: b6\nignored: Cheers,",
            long.trim_end()
        );
        let html = letter(&text, None, None);
        assert!(
            html.body.contains("word word and the rest."),
            "{}",
            html.body
        );
        assert!(
            html.body.contains("ok: b6<br>\nignored: Cheers,"),
            "{}",
            html.body
        );
    }

    use super::*;

    fn png() -> Picture {
        Picture {
            content_id: "board.3.12@pbem.example".into(),
            mime: "image/png".into(),
            bytes: vec![0x89, b'P', b'N', b'G'],
        }
    }

    /// The seed's paragraph of a welcome is words, its 64-digit commitment on its own line
    /// in a span that may wrap between digits (a phone's page is not widened by it); a
    /// paragraph of columns stays a `<pre>`.
    #[test]
    fn a_hash_on_its_own_line_wraps_and_its_paragraph_reflows() {
        let hash = "4bb06f8e4e3a7715d201d573d0aa423762e55dabd61a2c02278fa56cc6d294e0";
        let text = format!(
            "Dice: the GM's secret seed for this game has SHA-256 commitment\n  {hash}\n\
             It is revealed when the game ends, so that anybody can check every\n\
             roll: the rolls follow from the seed.\n\nPlayers:\n  WHITE: w@example.org\n"
        );
        let html = letter(&text, None, None).body;
        assert!(
            html.contains(&format!(
                "commitment<br>\n<span style=\"{TOKEN}\">{hash}</span><br>\nIt is revealed"
            )),
            "{html}"
        );
        assert!(html.contains("every roll: the rolls"), "{html}");
        assert!(TOKEN.contains("overflow-wrap:anywhere"));
        assert!(
            html.contains(">Players:\n  WHITE: w@example.org</pre>"),
            "{html}"
        );
    }

    #[test]
    fn the_board_is_a_picture_and_an_aligned_pre_between_the_words() {
        let board = "  a b\n1 X .\n2 . O\n";
        let text = format!("Your move, <Alice> & co.\n\n{board}\nBLUE to move.\n");
        let html = letter(&text, Some(board), Some(png()));
        let b = &html.body;
        assert_eq!(html.pictures.len(), 1);
        let img = b.find("<img src=\"cid:board.3.12@pbem.example\"").unwrap();
        let pre = b.find("<pre").unwrap();
        assert!(b.find("Your move, &lt;Alice&gt; &amp; co.").unwrap() < img);
        assert!(img < pre && pre < b.find("BLUE to move.").unwrap());
        assert!(b.contains("  a b\n1 X .\n2 . O</pre>"), "{b}");
        assert!(!b.contains("<script") && !b.contains("data:") && !b.contains("http"));
        assert!(b.contains("max-width:600px"));
    }

    #[test]
    fn without_a_board_there_is_no_picture_and_columns_stay_monospace() {
        let text = "Hello.\n\n  1. e4 e5\n  2. Nf3\n\nBye.\n";
        let html = letter(text, None, Some(png()));
        assert!(html.pictures.is_empty());
        assert!(html.body.contains("<pre"), "{}", html.body);
        assert!(html
            .body
            .contains("<p style=\"margin:0 0 12px 0\">Bye.</p>"));
    }
}
