//! The per-recipient fields of RFC 3464 message/delivery-status parts (and RFC 6533's global-delivery-status).

use std::borrow::Cow;

use mail_parser::{Message, MimeHeaders};

use super::status::{class_of, infer, severity, valid_status};
use super::{bare_address, capped, one_line, Failure, MAX_FAILURES, MAX_PARTS};

/// The failures of every delivery-status part, in order.
pub(super) fn failures(message: &Message<'_>) -> Vec<Failure> {
    let mut out = Vec::new();
    for part in message.parts.iter().take(MAX_PARTS) {
        let is_status = part.content_type().is_some_and(|ct| {
            ct.ctype().eq_ignore_ascii_case("message")
                && ct.subtype().is_some_and(|sub| {
                    sub.eq_ignore_ascii_case("delivery-status")
                        || sub.eq_ignore_ascii_case("global-delivery-status")
                })
        });
        if !is_status {
            continue;
        }
        let text = String::from_utf8_lossy(part.contents());
        read_fields(capped(&text), &mut out);
        if out.len() >= MAX_FAILURES {
            break;
        }
    }
    out.truncate(MAX_FAILURES);
    out
}

/// The fields of one recipient block that matter here.
#[derive(Default)]
struct Block<'a> {
    final_recipient: Option<Cow<'a, str>>,
    original_recipient: Option<Cow<'a, str>>,
    action: Option<Cow<'a, str>>,
    status: Option<Cow<'a, str>>,
    diagnostic: Option<Cow<'a, str>>,
}

/// Reads the blocks (separated by blank lines) of a delivery-status body; continuation
/// lines are joined to their field.
fn read_fields(text: &str, out: &mut Vec<Failure>) {
    let mut block = Block::default();
    // The field a continuation line belongs to: only the diagnostic is ever long.
    let mut last: Option<&'static str> = None;
    for line in text.lines().chain(std::iter::once("")) {
        if out.len() >= MAX_FAILURES {
            return;
        }
        if line.trim().is_empty() {
            if let Some(failure) = failure_of(&block) {
                out.push(failure);
            }
            block = Block::default();
            last = None;
            continue;
        }
        if line.starts_with([' ', '\t']) {
            if last == Some("diagnostic-code") {
                if let Some(diagnostic) = block.diagnostic.as_mut() {
                    let joined = diagnostic.to_mut();
                    if joined.len() < 4 * super::MAX_REASON {
                        joined.push(' ');
                        joined.push_str(line.trim());
                    }
                }
            }
            continue;
        }
        let Some((name, value)) = line.split_once(':') else {
            last = None;
            continue;
        };
        let value = Cow::Borrowed(value.trim());
        let name = name.trim().to_ascii_lowercase();
        last = match name.as_str() {
            "final-recipient" => set(&mut block.final_recipient, value, "final-recipient"),
            "original-recipient" => set(&mut block.original_recipient, value, "original-recipient"),
            "action" => set(&mut block.action, value, "action"),
            "status" => set(&mut block.status, value, "status"),
            "diagnostic-code" => set(&mut block.diagnostic, value, "diagnostic-code"),
            _ => None,
        };
    }
}

/// Keeps a field's first occurrence (a repeated field is a forger's or a broken MTA's).
fn set<'a>(
    slot: &mut Option<Cow<'a, str>>,
    value: Cow<'a, str>,
    name: &'static str,
) -> Option<&'static str> {
    if slot.is_none() {
        *slot = Some(value);
    }
    Some(name)
}

/// A failure when the block names a recipient that failed or is delayed.
fn failure_of(block: &Block<'_>) -> Option<Failure> {
    // The Original-Recipient is the address the sender gave (the one pbem knows); the final
    // one may be an alias's expansion.
    let recipient = block
        .original_recipient
        .as_deref()
        .and_then(address_field)
        .or_else(|| block.final_recipient.as_deref().and_then(address_field))?;
    let action = block
        .action
        .as_deref()
        .map(|a| a.trim().to_ascii_lowercase());
    let diagnostic = block.diagnostic.as_deref().map(strip_type).unwrap_or("");
    let delayed = action.as_deref() == Some("delayed");
    let status = block
        .status
        .as_deref()
        .and_then(|s| s.split_whitespace().next())
        .filter(|s| valid_status(s))
        .map(str::to_string)
        .or_else(|| infer(diagnostic, if delayed { '4' } else { '5' }));
    match action.as_deref() {
        Some("failed" | "delayed") => {}
        // Without an Action, only a failing status says the recipient failed.
        None if status.as_deref().and_then(class_of).is_some() => {}
        _ => return None,
    }
    Some(Failure {
        recipient,
        severity: severity(delayed, status.as_deref()),
        status,
        reason: one_line(diagnostic),
    })
}

/// `rfc822; <a@b>` to `a@b`.
fn address_field(value: &str) -> Option<String> {
    let address = value.split_once(';').map_or(value, |(_, rest)| rest);
    bare_address(address)
}

/// A Diagnostic-Code without its type (`smtp; 550 ...` to `550 ...`).
fn strip_type(value: &str) -> &str {
    match value.split_once(';') {
        Some((kind, rest)) if kind.len() <= 12 && !kind.trim().contains(' ') => rest.trim(),
        _ => value.trim(),
    }
}
