//! Who sent a mail: a person, or a robot (a bounce, an auto-reply, a list, an abuse report); and which senders can be answered at all.

use std::sync::OnceLock;

use mail_parser::{HeaderValue, Message, MimeHeaders};
// regex-lite compiles these per process ten times faster than regex; its case folding is
// ASCII only, so subjects are lowercased first.
use regex_lite::Regex;

use super::address::addresses_in_text;
use super::autoreply::{is_auto_reply, is_auto_reply_subject};
use super::{Inbound, MailKind};

pub(super) fn classify(message: &Message<'_>, inbound: &Inbound) -> MailKind {
    let report_type = report_types(message);
    if report_type.iter().any(|t| t == "feedback-report")
        || has_part_type(message, "message", "feedback-report")
    {
        return MailKind::Feedback;
    }
    if is_bounce(message, inbound, &report_type) {
        return MailKind::Bounce;
    }
    if is_auto_reply(message, &report_type) {
        return MailKind::AutoReply;
    }
    if is_bulk(message) {
        return MailKind::Bulk;
    }
    if is_auto_reply_subject(&inbound.subject) {
        return MailKind::AutoReplyBySubject;
    }
    MailKind::Normal
}

/// The `report-type` of every multipart/report part, lowercased.
pub(super) fn report_types(message: &Message<'_>) -> Vec<String> {
    message
        .parts
        .iter()
        .filter_map(|part| part.content_type())
        .filter(|ct| {
            ct.ctype().eq_ignore_ascii_case("multipart")
                && ct
                    .subtype()
                    .is_some_and(|sub| sub.eq_ignore_ascii_case("report"))
        })
        .map(|ct| {
            ct.attribute("report-type")
                .unwrap_or_default()
                .trim()
                .to_ascii_lowercase()
        })
        .collect()
}

pub(super) fn has_part_type(message: &Message<'_>, ctype: &str, subtype: &str) -> bool {
    message
        .parts
        .iter()
        .filter_map(|part| part.content_type())
        .any(|ct| {
            ct.ctype().eq_ignore_ascii_case(ctype)
                && ct
                    .subtype()
                    .is_some_and(|sub| sub.eq_ignore_ascii_case(subtype))
        })
}

pub(super) fn is_bounce(message: &Message<'_>, inbound: &Inbound, report_type: &[String]) -> bool {
    if report_type
        .iter()
        .any(|t| t == "delivery-status" || t == "global-delivery-status")
        || has_part_type(message, "message", "delivery-status")
        || has_part_type(message, "message", "global-delivery-status")
        || message.header("X-Failed-Recipients").is_some()
    {
        return true;
    }
    let from_daemon = inbound.from.as_deref().is_some_and(is_delivery_system)
        || message.header_raw("Sender").is_some_and(|sender| {
            addresses_in_text(sender)
                .iter()
                .any(|a| is_delivery_system(a))
        });
    if from_daemon {
        return true;
    }
    // A free-text notice from a system that does not call itself MAILER-DAEMON: the subject
    // says so and the mail is machine-sent or carries the returned message.
    let machine_sent = inbound.return_path.as_deref() == Some("")
        || auto_submitted(message).is_some()
        || has_part_type(message, "message", "rfc822")
        || has_part_type(message, "text", "rfc822-headers");
    machine_sent && is_ndr_subject(&inbound.subject)
}

pub(super) fn is_bulk(message: &Message<'_>) -> bool {
    let precedence = header_text(message, "Precedence")
        .unwrap_or_default()
        .to_ascii_lowercase();
    matches!(precedence.as_str(), "bulk" | "junk" | "list")
        || message.header("List-Id").is_some()
        || message.header("List-Unsubscribe").is_some()
}

/// The `Auto-Submitted` keyword (lowercased, without comments), if the header is present.
pub(super) fn auto_submitted(message: &Message<'_>) -> Option<String> {
    let value = header_text(message, "Auto-Submitted")?;
    let keyword = value
        .split(|c: char| c == '(' || c == ';' || c.is_whitespace())
        .find(|word| !word.is_empty())
        .unwrap_or_default()
        .to_ascii_lowercase();
    Some(keyword)
}

/// An unstructured header's value as text, trimmed; `None` when missing.
pub(super) fn header_text(message: &Message<'_>, name: &str) -> Option<String> {
    let value = message.header(name)?;
    let text = match value {
        HeaderValue::Text(text) => text.to_string(),
        HeaderValue::TextList(list) => list.join(" "),
        _ => message.header_raw(name).unwrap_or_default().to_string(),
    };
    Some(text.trim().to_string())
}

pub(super) fn is_ndr_subject(subject: &str) -> bool {
    static NDR: OnceLock<Regex> = OnceLock::new();
    let ndr = NDR.get_or_init(|| {
        Regex::new(
            r"(undeliver|undelivered|non[- ]?deliver|delivery (status notification|failure|has failed|failed|notification|problem)|mail delivery failed|returned mail|failure notice|could not be delivered|not delivered|delivery failure|mail system error|bounce|delayed mail|warning: could not send|unzustellbar|nicht zustellbar|non remis|non distribuibile|не доставлено|недоставлен|mail failure|メールエラー|配信エラー|不達|配送エラー)",
        )
        .expect("valid regex")
    });
    ndr.is_match(&subject.to_lowercase())
}

/// The local part of an address, lowercased.
pub(super) fn local_part(address: &str) -> String {
    address
        .rsplit_once('@')
        .map_or(address, |(local, _)| local)
        .to_ascii_lowercase()
}

/// MAILER-DAEMON, postmaster and the like: the mail system itself.
pub(super) fn is_delivery_system(address: &str) -> bool {
    let local = local_part(address);
    local == "mailer-daemon" || local == "postmaster" || local == "mail-daemon"
}

/// Mailboxes that never read answers: delivery systems and no-reply senders.
pub(super) fn is_robot_sender(address: &str) -> bool {
    let local = local_part(address);
    let compact: String = local
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    is_delivery_system(address)
        || compact == "noreply"
        || compact == "donotreply"
        || compact.starts_with("noreply")
        || compact.starts_with("donotreply")
        || compact.ends_with("noreply")
}

/// An address we can answer: `local@domain`, printable, no spaces.
pub(super) fn is_usable_address(address: &str) -> bool {
    match address.rsplit_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                // A dotless domain is only usable for the local machine (test stacks, LANs).
                && (domain.contains('.') || domain.eq_ignore_ascii_case("localhost"))
                && !domain.starts_with('.')
                && !domain.ends_with('.')
                && address
                    .chars()
                    .all(|c| c.is_ascii_graphic() || !c.is_ascii())
                && !address.contains(['<', '>', ',', ';', '"'])
        }
        None => false,
    }
}

/// Same mailbox, ignoring case and a `+detail` suffix (our reply address may carry a token).
pub(super) fn same_mailbox(ours: &str, theirs: &str) -> bool {
    let strip_detail = |address: &str| -> String {
        let address = address.trim().to_lowercase();
        match address.rsplit_once('@') {
            Some((local, domain)) => {
                let local = local.split_once('+').map_or(local, |(base, _)| base);
                format!("{local}@{domain}")
            }
            None => address,
        }
    };
    strip_detail(ours) == strip_detail(theirs)
}
