//! The text the sender typed: text/plain preferred, HTML through html2text, format=flowed undone, `\n` line ends.

use mail_parser::{Message, MessagePart, MessagePartId, MimeHeaders, PartType};

use super::html::HtmlBudget;

/// The text the sender typed: the inline text parts of the message in order, text/plain
/// preferred (mail-parser's `text_body`), HTML converted to text. Of the alternatives of one
/// multipart/alternative only the first that has text counts; when no plain text part has any
/// text (Thunderbird sends an empty one with HTML-only content), the HTML parts are used.
///
/// All the HTML parts of the mail share one `HtmlBudget`: the work of one mail is bounded,
/// however many parts it has.
pub(super) fn body_text(message: &Message<'_>) -> String {
    let mut budget = HtmlBudget::per_mail();
    let from_text = joined_parts(message, &message.text_body, &mut budget);
    if !from_text.trim().is_empty() {
        return from_text;
    }
    joined_parts(message, &message.html_body, &mut budget)
}

pub(super) fn joined_parts(
    message: &Message<'_>,
    part_ids: &[MessagePartId],
    budget: &mut HtmlBudget,
) -> String {
    let parents = parent_map(message);
    let mut used_alternatives: Vec<usize> = Vec::new();
    let mut pieces: Vec<String> = Vec::new();
    for part_id in part_ids {
        let index = *part_id as usize;
        let Some(part) = message.parts.get(index) else {
            continue;
        };
        let alternative = nearest_alternative(message, &parents, index);
        if alternative.is_some_and(|group| used_alternatives.contains(&group)) {
            continue;
        }
        let text = match &part.body {
            PartType::Text(text) => plain_text(part, text),
            PartType::Html(html) => budget.convert(html),
            _ => continue,
        };
        if !text.trim().is_empty() {
            pieces.push(text);
            used_alternatives.extend(alternative);
        }
    }
    pieces.join("\n")
}

/// For each part index, the index of the multipart that contains it.
pub(super) fn parent_map(message: &Message<'_>) -> Vec<Option<usize>> {
    let mut parents = vec![None; message.parts.len()];
    for (index, part) in message.parts.iter().enumerate() {
        if let PartType::Multipart(children) = &part.body {
            for child in children {
                if let Some(slot) = parents.get_mut(*child as usize) {
                    // The first claim wins, so a malformed tree cannot form a cycle.
                    if slot.is_none() && *child as usize != index {
                        *slot = Some(index);
                    }
                }
            }
        }
    }
    parents
}

/// The closest enclosing multipart/alternative of a part, if any.
pub(super) fn nearest_alternative(
    message: &Message<'_>,
    parents: &[Option<usize>],
    index: usize,
) -> Option<usize> {
    let mut current = index;
    // A bounded walk: hostile input cannot make it loop.
    for _ in 0..parents.len() {
        let parent = parents.get(current).copied().flatten()?;
        let is_alternative = message
            .parts
            .get(parent)
            .and_then(|p| p.content_type())
            .is_some_and(|ct| {
                ct.ctype().eq_ignore_ascii_case("multipart")
                    && ct
                        .subtype()
                        .is_some_and(|sub| sub.eq_ignore_ascii_case("alternative"))
            });
        if is_alternative {
            return Some(parent);
        }
        current = parent;
    }
    None
}

/// A text/plain part with `\n` line ends and format=flowed undone.
pub(super) fn plain_text(part: &MessagePart<'_>, text: &str) -> String {
    let text = normalize_line_ends(text);
    let content_type = part.content_type();
    let attribute = |name| {
        content_type
            .and_then(|ct| ct.attribute(name))
            .map(|value| value.trim().to_ascii_lowercase())
    };
    if attribute("format").as_deref() == Some("flowed") {
        unflow(&text, attribute("delsp").as_deref() == Some("yes"))
    } else {
        text
    }
}

/// Decodes RFC 3676 format=flowed text: a line ending in a space continues on the next line
/// (with the same quote depth); space-stuffing is removed; with DelSp=yes the soft-break space
/// itself is deleted too.
pub fn unflow(text: &str, delsp: bool) -> String {
    let mut out: Vec<String> = Vec::new();
    // The paragraph being joined: its quote depth and text so far.
    let mut open: Option<(usize, String)> = None;
    for line in text.split('\n') {
        let depth = line.chars().take_while(|c| *c == '>').count();
        let mut content = &line[depth..];
        // Space-stuffing: one leading space was added by the sender to protect the line.
        if let Some(unstuffed) = content.strip_prefix(' ') {
            content = unstuffed;
        }
        let is_signature = content == "-- ";
        let is_soft = content.ends_with(' ') && !is_signature;
        let content = if is_soft && delsp {
            &content[..content.len() - 1]
        } else {
            content
        };
        match open.take() {
            Some((open_depth, mut joined)) if open_depth == depth && !is_signature => {
                joined.push_str(content);
                if is_soft {
                    open = Some((depth, joined));
                } else {
                    out.push(with_quote(depth, &joined));
                }
            }
            previous => {
                if let Some((open_depth, joined)) = previous {
                    out.push(with_quote(open_depth, &joined));
                }
                if is_soft {
                    open = Some((depth, content.to_string()));
                } else {
                    out.push(with_quote(depth, content));
                }
            }
        }
    }
    if let Some((depth, joined)) = open {
        out.push(with_quote(depth, &joined));
    }
    out.join("\n")
}

pub(super) fn with_quote(depth: usize, text: &str) -> String {
    if depth == 0 {
        text.to_string()
    } else {
        format!("{} {text}", ">".repeat(depth))
    }
}

pub(super) fn normalize_line_ends(text: &str) -> String {
    if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text.to_string()
    }
}
