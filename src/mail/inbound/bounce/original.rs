//! The Message-IDs of the mail a report returns: its attached message or header part, else a header block quoted in its text.

use mail_parser::{Message, MimeHeaders, PartType};

use super::super::address::strip_angles;
use super::{capped, MAX_IDS, MAX_PARTS};

pub(super) fn ids(message: &Message<'_>) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for part in message.parts.iter().take(MAX_PARTS) {
        let id = match &part.body {
            // The root part is the report itself: its own Message-ID is never an original's.
            PartType::Message(inner) => inner.message_id().map(strip_angles),
            _ if is_headers_part(part) => {
                let text = String::from_utf8_lossy(part.contents());
                quoted_id(capped(&text))
            }
            _ => None,
        };
        push(&mut found, id);
    }
    if found.is_empty() {
        if let Some(body) = message.body_text(0) {
            push(&mut found, quoted_id(capped(&body)));
        }
    }
    found
}

fn push(found: &mut Vec<String>, id: Option<String>) {
    if let Some(id) = id.filter(|id| !id.is_empty() && id.len() <= 998) {
        if found.len() < MAX_IDS && !found.contains(&id) {
            found.push(id);
        }
    }
}

/// text/rfc822-headers (RFC 6522) or message/global-headers (RFC 6533).
fn is_headers_part(part: &mail_parser::MessagePart<'_>) -> bool {
    part.content_type().is_some_and(|ct| {
        let sub = ct.subtype().unwrap_or_default();
        (ct.ctype().eq_ignore_ascii_case("text") && sub.eq_ignore_ascii_case("rfc822-headers"))
            || (ct.ctype().eq_ignore_ascii_case("message")
                && sub.eq_ignore_ascii_case("global-headers"))
    })
}

/// The first `Message-ID: <...>` header line in a text (a folded value on the next line too).
fn quoted_id(text: &str) -> Option<String> {
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        if !name.eq_ignore_ascii_case("message-id") {
            continue;
        }
        let value = if value.trim().is_empty() {
            lines.next().unwrap_or_default()
        } else {
            value
        };
        let inside = value
            .split_once('<')
            .and_then(|(_, rest)| rest.split_once('>'))
            .map(|(inside, _)| inside.trim());
        if let Some(id) = inside.filter(|id| !id.is_empty() && !id.contains(char::is_whitespace)) {
            return Some(id.to_string());
        }
    }
    None
}
