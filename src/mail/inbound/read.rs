//! An `Inbound` from mail-parser's message, or, when it gives up, from the bare header lines.

use chrono::DateTime;
use mail_parser::{Address, Message};

use super::address::{
    addresses, addresses_in_text, delivered_to, ids_in_text, message_ids, normalize_address,
    strip_angles, MAX_ADDRESSES,
};
use super::authentication::parse_all;
use super::body::body_text;
use super::bounce;
use super::classify::classify;
use super::oversize::{declared_size, OVERSIZE_HEADER};
use super::{Inbound, MailKind};

/// The field RFC 8601 defines.
const AUTHENTICATION_RESULTS: &str = "Authentication-Results";

pub(super) fn from_message(message: &Message<'_>, raw: &[u8], content_hash: String) -> Inbound {
    let from = message.from().and_then(Address::first);
    let body = body_text(message);
    let mut inbound = Inbound {
        message_id: message
            .message_id()
            .map(strip_angles)
            .filter(|id| !id.is_empty()),
        content_hash,
        from: from.and_then(|addr| addr.address()).map(normalize_address),
        from_name: from
            .and_then(|addr| addr.name())
            .map(|name| name.trim().to_string())
            .filter(|name| !name.is_empty()),
        reply_to: message
            .reply_to()
            .and_then(Address::first)
            .and_then(|addr| addr.address())
            .map(normalize_address),
        to: addresses(message.to()),
        cc: addresses(message.cc()),
        delivered_to: delivered_to(message),
        return_path: message
            .header_raw("Return-Path")
            .map(|raw| strip_angles(raw.trim())),
        subject: message.subject().unwrap_or_default().trim().to_string(),
        in_reply_to: message_ids(message.in_reply_to()),
        references: message_ids(message.references()),
        date: message
            .date()
            .and_then(|date| DateTime::parse_from_rfc3339(&date.to_rfc3339()).ok()),
        size: declared_size(message.header_raw(OVERSIZE_HEADER), raw.len()),
        body,
        kind: MailKind::Normal,
        authentication: parse_all(
            message
                .headers()
                .iter()
                .filter(|h| h.name.as_str().eq_ignore_ascii_case(AUTHENTICATION_RESULTS))
                .filter_map(|h| raw.get(h.offset_start as usize..h.offset_end as usize)),
        ),
        bounce: None,
    };
    inbound.kind = classify(message, &inbound);
    if inbound.kind == MailKind::Bounce {
        inbound.bounce = Some(bounce::read(message));
    }
    inbound
}

/// What can be read when mail-parser gives up: the header lines before the first blank line.
pub(super) fn from_bare_headers(raw: &[u8], content_hash: String) -> Inbound {
    let text = String::from_utf8_lossy(raw);
    let header_text = text.split("\n\n").next().unwrap_or_default();
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in header_text.lines() {
        if line.starts_with([' ', '\t']) {
            if let Some((_, value)) = headers.last_mut() {
                value.push(' ');
                value.push_str(line.trim());
            }
        } else if let Some((name, value)) = line.split_once(':') {
            headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
        }
    }
    let first = |name: &str| {
        headers
            .iter()
            .find(|(header, _)| header == name)
            .map(|(_, value)| value.clone())
    };
    let all = |name: &str| -> Vec<String> {
        headers
            .iter()
            .filter(|(header, _)| header == name)
            .flat_map(|(_, value)| addresses_in_text(value))
            .take(MAX_ADDRESSES)
            .collect()
    };
    let from = first("from").and_then(|value| addresses_in_text(&value).into_iter().next());
    Inbound {
        message_id: first("message-id")
            .map(|id| strip_angles(&id))
            .filter(|id| !id.is_empty()),
        content_hash,
        from,
        from_name: None,
        reply_to: first("reply-to").and_then(|value| addresses_in_text(&value).into_iter().next()),
        to: all("to"),
        cc: all("cc"),
        delivered_to: ["delivered-to", "x-original-to", "envelope-to"]
            .iter()
            .flat_map(|name| all(name))
            .take(MAX_ADDRESSES)
            .collect(),
        return_path: first("return-path").map(|value| strip_angles(&value)),
        subject: first("subject").unwrap_or_default(),
        in_reply_to: first("in-reply-to")
            .map(|v| ids_in_text(&v))
            .unwrap_or_default(),
        references: first("references")
            .map(|v| ids_in_text(&v))
            .unwrap_or_default(),
        date: None,
        size: declared_size(
            first(&OVERSIZE_HEADER.to_ascii_lowercase()).as_deref(),
            raw.len(),
        ),
        body: String::new(),
        kind: MailKind::Normal,
        authentication: parse_all(
            headers
                .iter()
                .filter(|(name, _)| name.eq_ignore_ascii_case(AUTHENTICATION_RESULTS))
                .map(|(_, value)| value.as_bytes()),
        ),
        bounce: None,
    }
}
