//! The delivery system's own words (the report's first text, up to the returned mail): who failed, the line about it, and whether it is only a warning.

use mail_parser::{Address, Message, PartType};

use super::super::address::addresses_in_text;
use super::super::classify::is_delivery_system;
use super::status::{infer, reply_code, severity};
use super::{bare_address, capped, one_line, Failure, MAX_FAILURES, MAX_PARTS};

/// The notice text, cut where the returned mail begins.
pub(super) struct Notice {
    lines: Vec<String>,
    /// What follows the cut: the returned mail quoted as text, if it is.
    quoted: String,
    warning: bool,
}

impl Notice {
    pub(super) fn of(message: &Message<'_>) -> Notice {
        let body = message.body_text(0).unwrap_or_default();
        let body = capped(&body);
        let mut lines = Vec::new();
        let mut quoted = String::new();
        let mut rest = body.lines();
        for line in rest.by_ref() {
            if is_returned_marker(line) {
                break;
            }
            lines.push(line.trim_end().to_string());
        }
        for line in rest.take(200) {
            quoted.push_str(line);
            quoted.push('\n');
        }
        let subject = message.subject().unwrap_or_default().to_lowercase();
        let text = lines.join("\n").to_lowercase();
        let warning = subject.contains("delay")
            || subject.starts_with("warning")
            || [
                "this is a warning",
                "warning only",
                "will be retried",
                "still being retried",
                "will retry",
                "will continue to try",
                "delivery is delayed",
                "has been delayed",
            ]
            .iter()
            .any(|words| text.contains(words));
        Notice {
            lines,
            quoted,
            warning,
        }
    }

    /// The recipients a report without a delivery-status part names: X-Failed-Recipients,
    /// else the addresses its notice lists, else the returned mail's one To.
    pub(super) fn failures(&self, message: &Message<'_>) -> Vec<Failure> {
        let mut recipients = failed_recipients_header(message);
        if recipients.is_empty() {
            recipients = self.listed(&not_recipients(message));
        }
        if recipients.is_empty() {
            // The report's own To is normally the sender greeted ("a@b 様"), but a notice that
            // lists no other address means it (an anonymised corpus file has both the same).
            recipients = self.listed(&[]);
        }
        if recipients.is_empty() {
            recipients = returned_to(message, &self.quoted).into_iter().collect();
        }
        let single = recipients.len() == 1;
        recipients
            .into_iter()
            .take(MAX_FAILURES)
            .map(|recipient| self.failure(recipient, single))
            .collect()
    }

    fn failure(&self, recipient: String, single: bool) -> Failure {
        let paragraph = self.paragraph(&recipient).unwrap_or_default();
        let default_class = if self.warning { '4' } else { '5' };
        let status = infer(&paragraph, default_class).or_else(|| {
            // A lone recipient: the notice's code is about it, wherever it stands.
            single
                .then(|| infer(&self.lines.join("\n"), default_class))
                .flatten()
        });
        Failure {
            severity: severity(self.warning, status.as_deref()),
            status,
            reason: self.reason_for(&recipient, single),
            recipient,
        }
    }

    /// The notice's words about a recipient: its paragraph without the address; when that
    /// says nothing, a lone recipient's SMTP reply line, else the paragraphs after it.
    pub(super) fn reason_for(&self, recipient: &str, single: bool) -> String {
        let paragraph = self.paragraph(recipient).unwrap_or_default();
        let own = one_line(&without_address(&paragraph, recipient));
        if own.is_empty() || reply_code(&own).is_none() {
            if let Some(line) = single.then(|| self.reply_paragraph()).flatten() {
                return one_line(&line);
            }
        }
        if !own.is_empty() {
            return own;
        }
        let Some(start) = self.line_of(recipient) else {
            // A lone recipient the notice does not name (Google's notices): its words are
            // about it all the same.
            return if single {
                one_line(&self.lines.join(" "))
            } else {
                String::new()
            };
        };
        let after: Vec<&str> = self.lines[start + 1..]
            .iter()
            .map(String::as_str)
            .filter(|l| !l.trim().is_empty())
            .take(4)
            .collect();
        one_line(&after.join(" "))
    }

    /// The first paragraph of the notice holding an SMTP reply code.
    fn reply_paragraph(&self) -> Option<String> {
        let at = self.lines.iter().position(|l| reply_code(l).is_some())?;
        Some(self.paragraph_at(at))
    }

    fn line_of(&self, recipient: &str) -> Option<usize> {
        self.lines
            .iter()
            .position(|line| line.to_lowercase().contains(recipient))
    }

    /// The paragraph (lines between blank lines) naming the recipient, from its start: a
    /// label may stand above the address ("reject reason: ...", then "target address: ...").
    fn paragraph(&self, recipient: &str) -> Option<String> {
        let at = self.line_of(recipient)?;
        let start = self.lines[..at]
            .iter()
            .rposition(|line| line.trim().is_empty())
            .map_or(0, |blank| blank + 1)
            .max(at.saturating_sub(20));
        Some(self.paragraph_at(start))
    }

    fn paragraph_at(&self, at: usize) -> String {
        self.lines[at..]
            .iter()
            .take_while(|line| !line.trim().is_empty())
            .take(20)
            .map(String::as_str)
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// Addresses the notice lists as failed: one that begins a line (`<a@b>:`, `a@b on ...`,
    /// `Name<mailto:a@b>`), or follows the colon of a line about delivery ("Could not be
    /// delivered to: <a@b>", "target mail address: a@b").
    fn listed(&self, not_these: &[String]) -> Vec<String> {
        let mut found: Vec<String> = Vec::new();
        for line in &self.lines {
            if found.len() >= MAX_FAILURES {
                break;
            }
            let Some(address) = leading_address(line).or_else(|| after_colon(line)) else {
                continue;
            };
            if !not_these.contains(&address)
                && !is_delivery_system(&address)
                && !found.contains(&address)
            {
                found.push(address);
            }
        }
        found
    }
}

/// A line where the returned mail (or its headers) begins: a separator naming it, or a line
/// announcing it with a colon ("Original message headers:", "bounced E-Mail:").
fn is_returned_marker(line: &str) -> bool {
    let lower = line.trim().to_lowercase();
    let names_it = [
        "original message",
        "copy of the message",
        "copy of the original",
        "copy of your message",
        "unsent message",
        "below this line",
        "bounced e-mail",
        "message headers",
        "header of the original message",
        "returned message",
        "undelivered message",
    ]
    .iter()
    .any(|words| lower.contains(words));
    names_it && (lower.contains("--") || lower.ends_with(':') || lower.ends_with("follows."))
}

fn leading_address(line: &str) -> Option<String> {
    let first = line.split_whitespace().next()?;
    if let Some((_, inside)) = first.split_once("<mailto:") {
        return bare_address(inside.split('>').next().unwrap_or_default());
    }
    let first = first.strip_prefix('<').unwrap_or(first);
    bare_address(first.split(['<', '>']).next().unwrap_or_default())
}

fn after_colon(line: &str) -> Option<String> {
    let (before, after) = line.rsplit_once(": ")?;
    let before = before.to_lowercase();
    let about_delivery = ["deliver", "address", "recipient", "failed", "attempt"]
        .iter()
        .any(|words| before.contains(words));
    if !about_delivery {
        return None;
    }
    bare_address(after.split_whitespace().next()?)
}

/// Every address of every `X-Failed-Recipients` header (Exim, Gmail, mail.ru).
fn failed_recipients_header(message: &Message<'_>) -> Vec<String> {
    let mut found: Vec<String> = Vec::new();
    for (name, value) in message.headers_raw() {
        if !name.trim().eq_ignore_ascii_case("X-Failed-Recipients") {
            continue;
        }
        for address in addresses_in_text(value) {
            let Some(address) = bare_address(&address) else {
                continue;
            };
            if found.len() >= MAX_FAILURES {
                return found;
            }
            if !found.contains(&address) {
                found.push(address);
            }
        }
    }
    found
}

/// The report's own parties (its To is the sender of the returned mail), never a failure.
fn not_recipients(message: &Message<'_>) -> Vec<String> {
    [message.to(), message.from(), message.cc()]
        .into_iter()
        .flatten()
        .flat_map(Address::iter)
        .filter_map(|addr| addr.address())
        .filter_map(bare_address)
        .take(MAX_FAILURES)
        .collect()
}

/// The returned mail's To, when it names exactly one address: an old notice (Sendmail v5)
/// may name no recipient in its own words.
fn returned_to(message: &Message<'_>, quoted: &str) -> Option<String> {
    let from_part = message.parts.iter().take(MAX_PARTS).find_map(|part| {
        let PartType::Message(inner) = &part.body else {
            return None;
        };
        inner.to().map(|to| {
            to.iter()
                .filter_map(|a| a.address())
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
    });
    let addresses = from_part.unwrap_or_else(|| {
        quoted
            .lines()
            .skip_while(|line| line.trim().is_empty())
            .take_while(|line| !line.trim().is_empty())
            .find(|line| line.to_ascii_lowercase().starts_with("to:"))
            .map(|line| addresses_in_text(&line[3..]))
            .unwrap_or_default()
    });
    match addresses.as_slice() {
        [one] => bare_address(one),
        _ => None,
    }
}

fn without_address(paragraph: &str, address: &str) -> String {
    let lower = paragraph.to_lowercase();
    let Some(at) = lower.find(address) else {
        return paragraph.to_string();
    };
    // The same bytes in both: lowercasing may change lengths only outside ASCII, so fall
    // back to the whole paragraph when the cut would not land on boundaries.
    let end = at + address.len();
    if lower.len() != paragraph.len()
        || !paragraph.is_char_boundary(at)
        || !paragraph.is_char_boundary(end)
    {
        return paragraph.to_string();
    }
    let after = paragraph[end..].trim_start_matches(['>', ':', ' ', ')']);
    let before = paragraph[..at].trim_end_matches(['<', ' ', '(']);
    format!("{before} {after}")
}
