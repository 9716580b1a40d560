//! Reads a delivery report (an RFC 3464 DSN or a free-text notice) for the recipients it says failed, their status codes, and the Message-IDs of the mail it returns.
//!
//! Pure and bounded: a report is hostile bytes like any mail, so at most `MAX_FAILURES`
//! recipients, `MAX_PARTS` parts and `MAX_SCAN` bytes of any one part are looked at, whatever
//! the report lists.

use mail_parser::Message;

use super::classify::{has_part_type, report_types};

mod dsn;
mod notice;
mod original;
mod status;
#[cfg(test)]
mod tests;

use notice::Notice;

/// At most this many recipients are read from one report.
const MAX_FAILURES: usize = 50;
/// A reason is one line of at most this many characters.
const MAX_REASON: usize = 200;
/// At most this many MIME parts of a report are looked at.
const MAX_PARTS: usize = 64;
/// At most this many bytes of any one part (or of the notice text) are scanned.
const MAX_SCAN: usize = 256 * 1024;
/// At most this many original Message-IDs are kept.
const MAX_IDS: usize = 10;

/// What a delivery report says about the mail it returns.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Bounce {
    /// Each recipient the report is about, in the report's order (at most 50).
    pub failures: Vec<Failure>,
    /// The Message-IDs of the returned mail, bare (no angle brackets), as the report quotes
    /// them: its message/rfc822 or text/rfc822-headers part, or a quoted header block in the
    /// text ("Message-ID: <...>"). Never the report's own Message-ID, nor its In-Reply-To/References.
    pub original_ids: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Failure {
    /// The failed recipient, lowercased bare address (Final-Recipient / Original-Recipient
    /// of RFC 3464, X-Failed-Recipients, or what a free-text notice names).
    pub recipient: String,
    /// The enhanced status code (RFC 3463) when the report gives or implies one: "5.1.1".
    pub status: Option<String>,
    pub severity: Severity,
    /// The remote server's words (Diagnostic-Code, or the notice's line about it), one line,
    /// whitespace collapsed, at most 200 chars.
    pub reason: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// 5.x.x, Action: failed: the address does not take mail.
    Permanent,
    /// A failure the server calls temporary (4.x.x with Action: failed, a full mailbox
    /// given up on): counted, but not as permanent.
    Transient,
    /// Action: delayed / "delivery delayed" warnings (4.x.x, still trying): noted only.
    Delayed,
}

/// Reads a delivery report. Never panics; what cannot be read is left out.
pub fn read(message: &Message<'_>) -> Bounce {
    // An abuse report (ARF) quotes a mail someone complained about: no recipient failed.
    if report_types(message).iter().any(|t| t == "feedback-report")
        || has_part_type(message, "message", "feedback-report")
    {
        return Bounce::default();
    }
    let notice = Notice::of(message);
    let mut failures = dsn::failures(message);
    if failures.is_empty() {
        failures = notice.failures(message);
    } else {
        // Some MTAs (OpenSMTPD) give no Diagnostic-Code: the notice has the server's words.
        for failure in failures.iter_mut().filter(|f| f.reason.is_empty()) {
            failure.reason = notice.reason_for(&failure.recipient, false);
        }
    }
    failures.truncate(MAX_FAILURES);
    Bounce {
        failures,
        original_ids: original::ids(message),
    }
}

/// Whitespace collapsed to single spaces, cut to `MAX_REASON` characters.
fn one_line(text: &str) -> String {
    let mut out = String::new();
    for word in text.split_whitespace() {
        if out.chars().count() >= MAX_REASON {
            break;
        }
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out.chars().take(MAX_REASON).collect()
}

/// The first `MAX_SCAN` bytes of a text, cut at a character boundary.
fn capped(text: &str) -> &str {
    if text.len() <= MAX_SCAN {
        return text;
    }
    let mut end = MAX_SCAN;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

/// A bare address from a field or a word: brackets, quotes and a trailing colon gone,
/// lowercased; `None` unless it looks like `local@domain.tld`.
fn bare_address(word: &str) -> Option<String> {
    let word = word
        .trim()
        .trim_matches(|c: char| matches!(c, '<' | '>' | '"' | '\'' | '(' | ')' | ',' | ';' | ':'))
        .trim_end_matches('.');
    let (local, domain) = word.rsplit_once('@')?;
    let plausible = !local.is_empty()
        && word.len() <= 320
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !word.contains(['<', '>', ' ', '\t', ',', ';', '"', '(', ')', '['])
        && !domain.contains([':', '/', '=']);
    plausible.then(|| word.to_lowercase())
}
