//! Addresses and message ids read from header values, lowercased, without brackets, each list capped.

use std::borrow::Cow;

use mail_parser::{Address, HeaderValue, Message};

pub(super) fn normalize_address(address: &str) -> String {
    address
        .trim()
        .trim_matches(['<', '>'])
        .trim()
        .to_lowercase()
}

pub(super) fn strip_angles(id: &str) -> String {
    id.trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .trim()
        .to_string()
}

/// At most this many addresses are read from each of To, Cc and the envelope recipients: the
/// GM's address is among the first of any real mail, and a hostile list of 125,000 must cost
/// no more than a short one.
pub const MAX_ADDRESSES: usize = 100;

pub(super) fn addresses(address: Option<&Address<'_>>) -> Vec<String> {
    address
        .map(|address| {
            address
                .iter()
                .filter_map(|addr| addr.address())
                .map(normalize_address)
                .filter(|addr| !addr.is_empty())
                .take(MAX_ADDRESSES)
                .collect()
        })
        .unwrap_or_default()
}

/// `Delivered-To`, `X-Original-To` and `Envelope-To`, every occurrence (the MTA may add several).
pub(super) fn delivered_to(message: &Message<'_>) -> Vec<String> {
    let mut found = Vec::new();
    for (name, value) in message.headers_raw() {
        let name = name.trim();
        if name.eq_ignore_ascii_case("Delivered-To")
            || name.eq_ignore_ascii_case("X-Original-To")
            || name.eq_ignore_ascii_case("Envelope-To")
        {
            for address in addresses_in_text(value) {
                if found.len() == MAX_ADDRESSES {
                    return found;
                }
                if !found.contains(&address) {
                    found.push(address);
                }
            }
        }
    }
    found
}

/// Addresses in free header text: `<a@b>` forms if any, else bare `a@b` words; lowercased.
pub(super) fn addresses_in_text(text: &str) -> Vec<String> {
    let bracketed: Vec<String> = text
        .split('<')
        .skip(1)
        .filter_map(|rest| rest.split_once('>').map(|(inside, _)| inside))
        .filter(|inside| inside.contains('@'))
        .map(normalize_address)
        .collect();
    if !bracketed.is_empty() {
        return bracketed;
    }
    text.split(|c: char| c.is_whitespace() || c == ',' || c == ';')
        .map(|word| word.trim_matches(|c: char| matches!(c, '"' | '\'' | '(' | ')' | '<' | '>')))
        .filter(|word| word.contains('@'))
        .map(normalize_address)
        .collect()
}

/// Message ids from a parsed `In-Reply-To`/`References` header.
pub(super) fn message_ids(value: &HeaderValue<'_>) -> Vec<String> {
    let ids: Vec<Cow<'_, str>> = match value {
        HeaderValue::Text(text) => vec![text.clone()],
        HeaderValue::TextList(list) => list.clone(),
        _ => Vec::new(),
    };
    ids.iter().flat_map(|id| ids_in_text(id)).collect()
}

/// `<id>` tokens in text (or the whole text when it has no brackets), without brackets.
pub(super) fn ids_in_text(text: &str) -> Vec<String> {
    let bracketed: Vec<String> = text
        .split('<')
        .skip(1)
        .filter_map(|rest| {
            rest.split_once('>')
                .map(|(inside, _)| inside.trim().to_string())
        })
        .filter(|id| !id.is_empty())
        .collect();
    if !bracketed.is_empty() || text.contains('<') {
        return bracketed;
    }
    text.split_whitespace().map(str::to_string).collect()
}
