//! Reads one incoming mail (raw bytes, possibly hostile) into an `Inbound`, classifies robot mail (bounces, auto-replies, lists, abuse reports), and says when it must not be answered.
//!
//! Pure: bytes in, values out. mail-parser does the MIME work (transfer encodings, charsets,
//! encoded words); this module picks the body the player typed (text/plain preferred, HTML-only
//! mail through html2text so blockquotes become `> ` lines), undoes format=flowed, which
//! mail-parser leaves alone, and looks at the headers robots set.

use std::collections::HashSet;
use std::panic::{catch_unwind, AssertUnwindSafe};

use chrono::{DateTime, FixedOffset};
use mail_parser::MessageParser;
use sha2::{Digest, Sha256};

mod address;
mod authentication;
mod autoreply;
mod body;
pub mod bounce;
mod classify;
mod html;
mod oversize;
mod read;
#[cfg(test)]
mod tests;

use classify::{is_robot_sender, is_usable_address, same_mailbox};
use read::{from_bare_headers, from_message};

pub use address::MAX_ADDRESSES;
pub use authentication::{AuthResults, MethodResult};
pub use body::unflow;
pub use bounce::{Bounce, Failure, Severity};
pub use oversize::{oversize_stub, OVERSIZE_HEADER};

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
    /// The first `Authentication-Results` fields (RFC 8601), read but not yet believed: the
    /// mailroom trusts only those its config names (`mailroom::sender_check`).
    pub authentication: Vec<AuthResults>,
    /// What a delivery report says, read when `kind` is `Bounce` (else `None`).
    pub bounce: Option<Bounce>,
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
