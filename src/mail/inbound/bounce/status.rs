//! Enhanced status codes (RFC 3463): read, inferred from an SMTP reply or a full mailbox, and turned into a severity.

use std::sync::OnceLock;

use regex_lite::Regex;

use super::Severity;

/// `4.x.x` or `5.x.x` as RFC 3463 writes it (subject and detail up to three digits).
pub(super) fn valid_status(code: &str) -> bool {
    let mut parts = code.split('.');
    let (Some(class), Some(subject), Some(detail), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    matches!(class, "4" | "5")
        && [subject, detail]
            .iter()
            .all(|p| (1..=3).contains(&p.len()) && p.bytes().all(|b| b.is_ascii_digit()))
}

/// The class digit of a valid failing status.
pub(super) fn class_of(code: &str) -> Option<char> {
    valid_status(code).then(|| code.chars().next()).flatten()
}

/// The first enhanced status code in a text: `550 5.1.1 ...`, qmail's `(#5.5.0)`.
pub(super) fn enhanced_code(text: &str) -> Option<String> {
    static CODE: OnceLock<Regex> = OnceLock::new();
    // Not part of a longer dotted number or word (an IP address, a version): neither a letter,
    // a digit nor a dot next to it, except a full stop ending a sentence.
    let code = CODE.get_or_init(|| {
        Regex::new(
            r"(?:^|[^0-9A-Za-z.])([45]\.[0-9]{1,3}\.[0-9]{1,3})(?:$|[^0-9A-Za-z.]|\.(?:$|[^0-9]))",
        )
        .expect("valid regex")
    });
    code.captures(text)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str().to_string())
}

/// The first SMTP reply code of a failure (4yz or 5yz) in a text.
pub(super) fn reply_code(text: &str) -> Option<&str> {
    static REPLY: OnceLock<Regex> = OnceLock::new();
    let reply = REPLY.get_or_init(|| {
        Regex::new(r#"(?:^|[\s:'"(\[#])([45][0-5][0-9])(?:$|[\s-])"#).expect("valid regex")
    });
    reply
        .captures(text)
        .and_then(|c| c.get(1))
        .map(|m| m.as_str())
}

/// The text says the mailbox is full or over its quota.
pub(super) fn mailbox_full(text: &str) -> bool {
    let lower = text.to_lowercase();
    [
        "mailbox full",
        "mailbox is full",
        "mailbox has exceeded",
        "over quota",
        "quota exceeded",
        "exceeded storage",
        "insufficient storage",
        "mailbox exceeds",
        "メールボックスが一杯",
        "переполнен",
    ]
    .iter()
    .any(|words| lower.contains(words))
}

/// The status a text gives or implies: its enhanced code, else the class of its SMTP reply
/// (`550` 5.0.0, `421` 4.0.0; x.2.2 when it speaks of a full mailbox), else x.2.2 for a full
/// mailbox alone, with `default_class` (4 for a warning, 5 for a failure).
pub(super) fn infer(text: &str, default_class: char) -> Option<String> {
    if let Some(code) = enhanced_code(text) {
        return Some(code);
    }
    let full = mailbox_full(text);
    let detail = if full { "2.2" } else { "0.0" };
    if let Some(reply) = reply_code(text) {
        let class = reply.chars().next().unwrap_or(default_class);
        return Some(format!("{class}.{detail}"));
    }
    full.then(|| format!("{default_class}.2.2"))
}

/// How bad a failure is: a delay is noted only; a temporary code, or a full mailbox (the
/// player may empty it), is transient; anything else that failed is permanent.
pub(super) fn severity(delayed: bool, status: Option<&str>) -> Severity {
    if delayed {
        return Severity::Delayed;
    }
    match status {
        Some(code) if code.starts_with('4') => Severity::Transient,
        Some(code) if code.ends_with(".2.2") => Severity::Transient,
        _ => Severity::Permanent,
    }
}
