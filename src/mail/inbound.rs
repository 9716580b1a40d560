//! Reads one incoming mail (raw bytes, possibly hostile) into an `Inbound`, classifies robot mail (bounces, auto-replies, lists, abuse reports), and says when it must not be answered.
//!
//! Pure: bytes in, values out. mail-parser does the MIME work (transfer encodings, charsets,
//! encoded words); this module picks the body the player typed (text/plain preferred, HTML-only
//! mail through html2text so blockquotes become `> ` lines), undoes format=flowed, which
//! mail-parser leaves alone, and looks at the headers robots set.

use std::borrow::Cow;
use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use chrono::{DateTime, FixedOffset};
use mail_parser::{
    Address, HeaderValue, Message, MessageParser, MessagePart, MessagePartId, MimeHeaders, PartType,
};
// regex-lite compiles these per process ten times faster than regex; its case folding is
// ASCII only, so subjects are lowercased first.
use regex_lite::Regex;
use sha2::{Digest, Sha256};

mod autoreply;
mod html;

use autoreply::{is_auto_reply, is_auto_reply_subject};
use html::HtmlBudget;

/// What kind of sender a mail comes from, as far as its headers and structure tell.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MailKind {
    /// A person (or at least nothing says otherwise).
    Normal,
    /// A non-delivery report or delay warning: RFC 3464 DSN or a free-text notice.
    Bounce,
    /// A vacation notice or other RFC 3834 automatic response (also read receipts), by a
    /// header or structure only robots set.
    AutoReply,
    /// Only the subject says it is an automatic reply ("Out of office", "Automatic reply:"):
    /// a person may write such a subject over a real move, so mail that proves its seat is
    /// read anyway (`mailroom::screen`), and the repeat policy bounds a loop.
    AutoReplyBySubject,
    /// Mailing-list or bulk mail (`Precedence: bulk/junk/list`, `List-Id`, `List-Unsubscribe`).
    Bulk,
    /// An abuse feedback report (ARF, RFC 5965).
    Feedback,
}

/// One incoming mail, reduced to what the game master needs.
#[derive(Debug, Clone, PartialEq)]
pub struct Inbound {
    /// `Message-ID` without the angle brackets.
    pub message_id: Option<String>,
    /// Hex SHA-256 of the raw bytes, to spot a redelivered message that has no `Message-ID`.
    pub content_hash: String,
    /// The `From` address, lowercased.
    pub from: Option<String>,
    /// The `From` display name, decoded.
    pub from_name: Option<String>,
    /// The first `Reply-To` address, lowercased.
    pub reply_to: Option<String>,
    /// `To` addresses, lowercased.
    pub to: Vec<String>,
    /// `Cc` addresses, lowercased.
    pub cc: Vec<String>,
    /// Envelope recipients the MTA recorded (`Delivered-To`, `X-Original-To`, `Envelope-To`).
    pub delivered_to: Vec<String>,
    /// The topmost `Return-Path` (envelope sender) without brackets; `Some("")` for `<>`.
    pub return_path: Option<String>,
    /// The decoded subject; empty when missing.
    pub subject: String,
    /// Message ids in `In-Reply-To`, without angle brackets.
    pub in_reply_to: Vec<String>,
    /// Message ids in `References`, without angle brackets, oldest first.
    pub references: Vec<String>,
    /// The `Date` header, when it is a valid date.
    pub date: Option<DateTime<FixedOffset>>,
    /// Size of the raw message in bytes.
    pub size: usize,
    /// The text the sender wrote, decoded, with `\n` line ends.
    pub body: String,
    pub kind: MailKind,
}

impl Inbound {
    /// Every recipient address (To, Cc, Delivered-To, X-Original-To), lowercased, without
    /// duplicates, so the caller can find its `gm+TOKEN@domain` address.
    pub fn recipients(&self) -> Vec<String> {
        // A set: a hostile To: must not make this quadratic (each list is capped as well).
        let mut seen: HashSet<&str> = HashSet::new();
        self.to
            .iter()
            .chain(&self.cc)
            .chain(&self.delivered_to)
            .filter(|address| seen.insert(address.as_str()))
            .cloned()
            .collect()
    }
}

/// Why a mail is recorded but not answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// A short machine code for the log and the store (`bounce`, `auto-reply`, `loop` ...).
    pub code: &'static str,
    /// A sentence for a human reading the log.
    pub reason: String,
}

/// Parses raw mail bytes. Never panics; what cannot be read is left empty.
pub fn parse(raw: &[u8]) -> Inbound {
    let content_hash = hex::encode(Sha256::digest(raw));
    // mail-parser has internal assertions; a message that trips one (or any bug below) must not
    // take the daemon down, so it is read as if the parser had given up.
    let parsed = catch_unwind(AssertUnwindSafe(|| {
        MessageParser::default()
            .parse(raw)
            .map(|message| from_message(&message, raw, content_hash.clone()))
    }));
    match parsed {
        Ok(Some(inbound)) => inbound,
        _ => from_bare_headers(raw, content_hash),
    }
}

/// Whether (and why) a parsed mail must be recorded but not answered.
///
/// `our_addresses` are the addresses the game master sends from; mail from them is our own mail
/// coming back (a loop). `max_bytes` is the largest mail we accept.
pub fn refusal(inbound: &Inbound, our_addresses: &[String], max_bytes: usize) -> Option<Refusal> {
    let refuse = |code, reason: String| Some(Refusal { code, reason });
    match inbound.kind {
        MailKind::Bounce => {
            return refuse("bounce", "a delivery failure report (bounce)".to_string());
        }
        MailKind::AutoReply => {
            return refuse(
                "auto-reply",
                "an automatic reply (vacation notice, receipt)".to_string(),
            );
        }
        MailKind::AutoReplyBySubject => {
            return refuse(
                "auto-reply-subject",
                "an automatic reply, by its subject (vacation notice, out of office)".to_string(),
            );
        }
        MailKind::Bulk => return refuse("bulk", "mailing-list or bulk mail".to_string()),
        MailKind::Feedback => return refuse("feedback", "an abuse feedback report".to_string()),
        MailKind::Normal => {}
    }
    let Some(from) = inbound
        .from
        .as_deref()
        .filter(|from| is_usable_address(from))
    else {
        return refuse("no-from", "no usable From address to answer".to_string());
    };
    if is_robot_sender(from) {
        return refuse("robot", format!("sent by an automatic mailbox ({from})"));
    }
    if our_addresses.iter().any(|ours| same_mailbox(ours, from)) {
        return refuse("loop", format!("sent from our own address ({from})"));
    }
    if inbound.size > max_bytes {
        return refuse(
            "too-large",
            format!("{} bytes, over the {max_bytes}-byte limit", inbound.size),
        );
    }
    None
}

fn from_message(message: &Message<'_>, raw: &[u8], content_hash: String) -> Inbound {
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
    };
    inbound.kind = classify(message, &inbound);
    inbound
}

/// What can be read when mail-parser gives up: the header lines before the first blank line.
fn from_bare_headers(raw: &[u8], content_hash: String) -> Inbound {
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
    }
}

/// The header pbem adds to the headers it keeps of a mail over the size limit: the mail's
/// real size in bytes (the body itself was never read into memory or stored).
pub const OVERSIZE_HEADER: &str = "X-Pbem-Oversize";

/// At most this much of a too-large mail's header block is kept.
const MAX_KEPT_HEADERS: usize = 64 * 1024;

/// The size a mail had: its bytes, or more if it is the kept headers of a larger mail.
fn declared_size(oversize: Option<&str>, len: usize) -> usize {
    oversize
        .and_then(|v| v.trim().parse::<usize>().ok())
        .map_or(len, |n| n.max(len))
}

/// What is stored of a mail over the size limit: its header block (at most 64 KiB of it) and
/// `X-Pbem-Oversize` with the real size, so it can be refused, answered and deduplicated
/// like any other mail without its body ever being kept. `head` is the first bytes read.
pub fn oversize_stub(head: &[u8], total: u64) -> Vec<u8> {
    let window = &head[..head.len().min(MAX_KEPT_HEADERS)];
    let end = find(window, b"\r\n\r\n")
        .or_else(|| find(window, b"\n\n"))
        .or_else(|| window.iter().rposition(|b| *b == b'\n'))
        .unwrap_or(0);
    let mut out = window[..end].to_vec();
    if !out.is_empty() && !out.ends_with(b"\n") {
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("{OVERSIZE_HEADER}: {total}\r\n\r\n").as_bytes());
    out
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

// ---------------------------------------------------------------------------------------------
// Body

/// The text the sender typed: the inline text parts of the message in order, text/plain
/// preferred (mail-parser's `text_body`), HTML converted to text. Of the alternatives of one
/// multipart/alternative only the first that has text counts; when no plain text part has any
/// text (Thunderbird sends an empty one with HTML-only content), the HTML parts are used.
///
/// All the HTML parts of the mail share one `HtmlBudget`: the work of one mail is bounded,
/// however many parts it has.
fn body_text(message: &Message<'_>) -> String {
    let mut budget = HtmlBudget::per_mail();
    let from_text = joined_parts(message, &message.text_body, &mut budget);
    if !from_text.trim().is_empty() {
        return from_text;
    }
    joined_parts(message, &message.html_body, &mut budget)
}

fn joined_parts(
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
fn parent_map(message: &Message<'_>) -> Vec<Option<usize>> {
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
fn nearest_alternative(
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
fn plain_text(part: &MessagePart<'_>, text: &str) -> String {
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

fn with_quote(depth: usize, text: &str) -> String {
    if depth == 0 {
        text.to_string()
    } else {
        format!("{} {text}", ">".repeat(depth))
    }
}

pub(crate) fn normalize_line_ends(text: &str) -> String {
    if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n")
    } else {
        text.to_string()
    }
}

// ---------------------------------------------------------------------------------------------
// Classification

fn classify(message: &Message<'_>, inbound: &Inbound) -> MailKind {
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
fn report_types(message: &Message<'_>) -> Vec<String> {
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

fn has_part_type(message: &Message<'_>, ctype: &str, subtype: &str) -> bool {
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

fn is_bounce(message: &Message<'_>, inbound: &Inbound, report_type: &[String]) -> bool {
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

fn is_bulk(message: &Message<'_>) -> bool {
    let precedence = header_text(message, "Precedence")
        .unwrap_or_default()
        .to_ascii_lowercase();
    matches!(precedence.as_str(), "bulk" | "junk" | "list")
        || message.header("List-Id").is_some()
        || message.header("List-Unsubscribe").is_some()
}

/// The `Auto-Submitted` keyword (lowercased, without comments), if the header is present.
pub(crate) fn auto_submitted(message: &Message<'_>) -> Option<String> {
    let value = header_text(message, "Auto-Submitted")?;
    let keyword = value
        .split(|c: char| c == '(' || c == ';' || c.is_whitespace())
        .find(|word| !word.is_empty())
        .unwrap_or_default()
        .to_ascii_lowercase();
    Some(keyword)
}

/// An unstructured header's value as text, trimmed; `None` when missing.
pub(crate) fn header_text(message: &Message<'_>, name: &str) -> Option<String> {
    let value = message.header(name)?;
    let text = match value {
        HeaderValue::Text(text) => text.to_string(),
        HeaderValue::TextList(list) => list.join(" "),
        _ => message.header_raw(name).unwrap_or_default().to_string(),
    };
    Some(text.trim().to_string())
}

fn is_ndr_subject(subject: &str) -> bool {
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
fn local_part(address: &str) -> String {
    address
        .rsplit_once('@')
        .map_or(address, |(local, _)| local)
        .to_ascii_lowercase()
}

/// MAILER-DAEMON, postmaster and the like: the mail system itself.
fn is_delivery_system(address: &str) -> bool {
    let local = local_part(address);
    local == "mailer-daemon" || local == "postmaster" || local == "mail-daemon"
}

/// Mailboxes that never read answers: delivery systems and no-reply senders.
fn is_robot_sender(address: &str) -> bool {
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
fn is_usable_address(address: &str) -> bool {
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
fn same_mailbox(ours: &str, theirs: &str) -> bool {
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

// ---------------------------------------------------------------------------------------------
// Addresses and ids

fn normalize_address(address: &str) -> String {
    address
        .trim()
        .trim_matches(['<', '>'])
        .trim()
        .to_lowercase()
}

fn strip_angles(id: &str) -> String {
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

fn addresses(address: Option<&Address<'_>>) -> Vec<String> {
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
fn delivered_to(message: &Message<'_>) -> Vec<String> {
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
fn addresses_in_text(text: &str) -> Vec<String> {
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
fn message_ids(value: &HeaderValue<'_>) -> Vec<String> {
    let ids: Vec<Cow<'_, str>> = match value {
        HeaderValue::Text(text) => vec![text.clone()],
        HeaderValue::TextList(list) => list.clone(),
        _ => Vec::new(),
    };
    ids.iter().flat_map(|id| ids_in_text(id)).collect()
}

/// `<id>` tokens in text (or the whole text when it has no brackets), without brackets.
fn ids_in_text(text: &str) -> Vec<String> {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unflow_joins_soft_breaks_and_keeps_hard_ones() {
        let text = "b1 5W6 and then a long \nline\n> quoted soft \n> end\n-- \nsig";
        assert_eq!(
            unflow(text, false),
            "b1 5W6 and then a long line\n> quoted soft end\n-- \nsig"
        );
    }

    #[test]
    fn unflow_delsp_removes_the_break_space() {
        assert_eq!(unflow("rot \nate 6(2N)\n", true), "rotate 6(2N)\n");
    }

    #[test]
    fn unflow_removes_space_stuffing() {
        assert_eq!(
            unflow(" From here\n >not a quote", false),
            "From here\n>not a quote"
        );
    }

    #[test]
    fn unparseable_input_still_gives_an_inbound() {
        let inbound = parse(b"");
        assert_eq!(inbound.size, 0);
        assert!(inbound.body.is_empty());
        assert_eq!(inbound.content_hash.len(), 64);
    }

    fn html_to_text(html: &str) -> String {
        HtmlBudget::per_mail().convert(html)
    }

    #[test]
    fn deeply_nested_html_is_stripped_not_rendered() {
        let html = format!("{}5W6{}", "<div>".repeat(5000), "</div>".repeat(5000));
        assert_eq!(html_to_text(&html).trim(), "5W6");
    }

    #[test]
    fn layout_tables_give_one_cell_per_line() {
        let html = "<table><tr><td>5W6</td><td>BOARD</td></tr></table>";
        let text = html_to_text(html);
        let lines: Vec<&str> = text
            .lines()
            .map(str::trim)
            .filter(|l| !l.is_empty())
            .collect();
        assert_eq!(lines, vec!["5W6", "BOARD"]);
    }

    #[test]
    fn blockquotes_become_quoted_lines() {
        let text = html_to_text(
            "<div>5W6</div><blockquote><div>old</div><blockquote>older</blockquote></blockquote>",
        );
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        assert_eq!(lines, vec!["5W6", "> old", "> ", "> > older"]);
    }

    #[test]
    fn bare_headers_are_read_when_the_parser_gives_up() {
        let raw = b"From: Bob <BOB@Example.org>\nSubject: Re: [pbem #4]\n folded\n\
Message-ID: <x1@example.org>\nTo: gm+t@pbem.example, c@example.org\n\nbody";
        let inbound = from_bare_headers(raw, "hash".to_string());
        assert_eq!(inbound.from.as_deref(), Some("bob@example.org"));
        assert_eq!(inbound.subject, "Re: [pbem #4] folded");
        assert_eq!(inbound.message_id.as_deref(), Some("x1@example.org"));
        assert_eq!(inbound.to, vec!["gm+t@pbem.example", "c@example.org"]);
        assert!(inbound.body.is_empty());
    }

    #[test]
    fn same_mailbox_ignores_detail_and_case() {
        assert!(same_mailbox("gm@pbem.example", "GM+abc@Pbem.Example"));
        assert!(!same_mailbox("gm@pbem.example", "bob@pbem.example"));
    }
}
