//! One outgoing mail (`OutMail`) built into its RFC 5322 message: headers, thread, the text and an optional HTML part with inline pictures; `RawMail` its bytes and envelope.

use chrono::{DateTime, Utc};
use lettre::address::Envelope;
use lettre::message::header::{ContentType, HeaderName, HeaderValue, MIME_VERSION_1_0};
use lettre::message::{Attachment, Mailbox, MessageBuilder, MultiPart, SinglePart};
use lettre::Message;

/// One outgoing mail, as the game master wants it sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutMail {
    /// `gm@example.org` or `Game Master <gm@example.org>`.
    pub from: String,
    pub to: Vec<String>,
    pub reply_to: Option<String>,
    pub subject: String,
    /// Plain UTF-8 text; line endings are normalised to CRLF on the wire.
    pub body: String,
    /// Chosen by the caller (so it can be stored before sending), e.g. `<uuid@domain>`;
    /// the angle brackets are added if missing.
    pub message_id: String,
    pub in_reply_to: Option<String>,
    /// The thread so far, oldest first; `in_reply_to` is appended when missing.
    pub references: Vec<String>,
    /// `Auto-Submitted` value such as `auto-replied` (RFC 3834).
    pub auto_submitted: Option<String>,
    /// Further headers such as `("X-Pbem-Game", "g12")`.
    pub extra_headers: Vec<(String, String)>,
    /// The `Date` header. pbem's own mail always sets it (the time it was queued: the clock
    /// is read at the edge only); `None` lets lettre stamp the time of building.
    pub date: Option<DateTime<Utc>>,
    /// An HTML alternative to `body`, with its inline pictures; `None`: plain text only.
    pub html: Option<Html>,
}

/// An HTML alternative to a mail's text, and the pictures it shows inline.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Html {
    /// The whole HTML document, UTF-8; a picture is `<img src="cid:CONTENT-ID">`.
    pub body: String,
    pub pictures: Vec<Picture>,
}

/// A picture carried inside the mail (RFC 2392), shown by the HTML part.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Picture {
    /// `board.12@pbem.example` (angle brackets optional): the HTML refers to it as `cid:...`.
    pub content_id: String,
    /// Its MIME type, such as `image/png`.
    pub mime: String,
    pub bytes: Vec<u8>,
}

impl Html {
    /// Its size on the wire before encoding: the HTML and every picture.
    pub fn len(&self) -> usize {
        self.body.len() + self.pictures.iter().map(|p| p.bytes.len()).sum::<usize>()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// A finished mail as every transport takes it: the envelope and the RFC 5322 bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RawMail {
    pub envelope: Envelope,
    /// Names the file a folder transport writes.
    pub message_id: String,
    pub bytes: Vec<u8>,
}

impl RawMail {
    /// Builds `mail` into its bytes and envelope.
    pub fn of(mail: &OutMail) -> Result<RawMail, BuildError> {
        let message = build(mail)?;
        Ok(RawMail {
            envelope: message.envelope().clone(),
            message_id: mail.message_id.clone(),
            bytes: message.formatted(),
        })
    }
}

/// The envelope of a mail from its `From` and `To` (as `build` reads them), for bytes built
/// before.
pub fn envelope(from: &str, to: &[String]) -> Result<Envelope, BuildError> {
    let to = to
        .iter()
        .map(|t| mailbox("To", t).map(|m| m.email))
        .collect::<Result<Vec<_>, _>>()?;
    Envelope::new(Some(mailbox("From", from)?.email), to).map_err(|_| BuildError::NoRecipient)
}

/// Why an `OutMail` could not become a message. Retrying does not help.
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    #[error("bad {field} address {value:?}: {reason}")]
    Address {
        field: &'static str,
        value: String,
        reason: String,
    },
    #[error("bad header {name:?}: {reason}")]
    Header { name: String, reason: String },
    #[error("the mail has no recipient")]
    NoRecipient,
    #[error("the queued mail has no bytes to send")]
    NoBytes,
    #[error("cannot build the message: {0}")]
    Lettre(#[from] lettre::error::Error),
}

/// Headers that `build` writes itself; an extra header must not duplicate them.
const RESERVED_HEADERS: &[&str] = &[
    "from",
    "sender",
    "to",
    "cc",
    "bcc",
    "reply-to",
    "subject",
    "date",
    "message-id",
    "in-reply-to",
    "references",
    "auto-submitted",
    "x-auto-response-suppress",
    "mime-version",
    "content-type",
    "content-transfer-encoding",
];

/// Builds the RFC 5322 message: RFC 2047 encoded subject, thread headers, and a UTF-8
/// text/plain body, or with an HTML part `multipart/alternative` of the text and
/// `multipart/related` (the HTML, then its pictures).
pub fn build(mail: &OutMail) -> Result<Message, BuildError> {
    let builder = headers(mail)?;
    // CRLF line ends made here in one pass: lettre makes them with one `String::insert` per
    // line, which is quadratic in the body's length (a 46 MB reply took minutes).
    let text = crlf(&mail.body);
    match &mail.html {
        None => Ok(builder.body(text)?),
        Some(html) => Ok(builder.multipart(alternative(text, html)?)?),
    }
}

/// The message's headers, in the order a plain mail always had them.
fn headers(mail: &OutMail) -> Result<MessageBuilder, BuildError> {
    if mail.to.is_empty() {
        return Err(BuildError::NoRecipient);
    }
    let message_id = angle_id("Message-ID", &mail.message_id)?;
    let from = mailbox("From", &mail.from)?;
    let sender = from.email.clone();
    let mut builder = Message::builder()
        .from(from)
        .subject(single_line("Subject", &mail.subject)?)
        .message_id(Some(message_id))
        .header(MIME_VERSION_1_0);
    if mail.html.is_none() {
        // A multipart body sets its own Content-Type.
        builder = builder.header(ContentType::TEXT_PLAIN);
    }
    let mut recipients = Vec::with_capacity(mail.to.len());
    for to in &mail.to {
        let to = mailbox("To", to)?;
        recipients.push(to.email.clone());
        builder = builder.to(to);
    }
    // The envelope the headers make, given: lettre would parse it back out of the headers.
    let envelope = Envelope::new(Some(sender), recipients).map_err(|e| BuildError::Address {
        field: "To",
        value: mail.to.join(", "),
        reason: format!("{e}"),
    })?;
    builder = builder.envelope(envelope);
    if let Some(reply_to) = &mail.reply_to {
        builder = builder.reply_to(mailbox("Reply-To", reply_to)?);
    }
    builder = thread_headers(builder, mail)?;
    if let Some(kind) = &mail.auto_submitted {
        builder = builder.raw_header(HeaderValue::new(
            HeaderName::new_from_ascii_str("Auto-Submitted"),
            single_line("Auto-Submitted", kind)?,
        ));
        // Exchange/Outlook ignore Auto-Submitted; this stops their out-of-office replies,
        // which would otherwise bounce back and forth with us.
        builder = builder.raw_header(HeaderValue::new(
            HeaderName::new_from_ascii_str("X-Auto-Response-Suppress"),
            "All".to_string(),
        ));
    }
    for (name, value) in &mail.extra_headers {
        if RESERVED_HEADERS.contains(&name.to_ascii_lowercase().as_str()) {
            return Err(BuildError::Header {
                name: name.clone(),
                reason: "set by the mail builder itself".into(),
            });
        }
        let header_name =
            HeaderName::new_from_ascii(name.clone()).map_err(|_| BuildError::Header {
                name: name.clone(),
                reason: "not a valid header name".into(),
            })?;
        builder = builder.raw_header(HeaderValue::new(header_name, single_line(name, value)?));
    }
    // Set here, or lettre would read the system clock when it builds.
    if let Some(date) = mail.date {
        builder = builder.date(date.into());
    }
    Ok(builder)
}

/// In-Reply-To and References. Gmail and Outlook thread by them (plus the subject for Gmail);
/// the parent's id must close the References list (RFC 5322 3.6.4).
fn thread_headers(
    mut builder: MessageBuilder,
    mail: &OutMail,
) -> Result<MessageBuilder, BuildError> {
    let mut references = mail
        .references
        .iter()
        .map(|id| angle_id("References", id))
        .collect::<Result<Vec<_>, _>>()?;
    if let Some(parent) = &mail.in_reply_to {
        let parent = angle_id("In-Reply-To", parent)?;
        if !references.contains(&parent) {
            references.push(parent.clone());
        }
        builder = builder.in_reply_to(parent);
    }
    if !references.is_empty() {
        builder = builder.references(references.join(" "));
    }
    Ok(builder)
}

/// The text and the HTML as alternatives; the HTML with its pictures as `multipart/related`
/// (RFC 2387), or alone when it has none.
fn alternative(text: String, html: &Html) -> Result<MultiPart, BuildError> {
    let alternative = MultiPart::alternative().singlepart(SinglePart::plain(text));
    let html_part = SinglePart::html(crlf(&html.body));
    if html.pictures.is_empty() {
        return Ok(alternative.singlepart(html_part));
    }
    let mut related = MultiPart::related().singlepart(html_part);
    for picture in &html.pictures {
        related = related.singlepart(inline_picture(picture)?);
    }
    Ok(alternative.multipart(related))
}

/// One picture as an inline part with its Content-ID.
fn inline_picture(picture: &Picture) -> Result<SinglePart, BuildError> {
    let id = angle_id("Content-ID", &picture.content_id)?;
    let mime = ContentType::parse(&picture.mime).map_err(|e| BuildError::Header {
        name: "Content-Type".into(),
        reason: format!("{:?} for picture {id}: {e}", picture.mime),
    })?;
    // `new_inline` adds the angle brackets.
    let bare = id[1..id.len() - 1].to_string();
    Ok(Attachment::new_inline(bare).body(picture.bytes.clone(), mime))
}

/// `text` with every line ending as CRLF, in one pass.
pub fn crlf(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + text.len() / 32 + 2);
    // A line at a time, not a char at a time: every reply's text and HTML pass here.
    for line in text.split_inclusive('\n') {
        match line.strip_suffix('\n') {
            Some(bare) if !bare.ends_with('\r') => {
                out.push_str(bare);
                out.push_str("\r\n");
            }
            _ => out.push_str(line),
        }
    }
    out
}

pub(super) fn mailbox(field: &'static str, value: &str) -> Result<Mailbox, BuildError> {
    let value = value.trim();
    // A bare address (most are) needs no parser of display names and lists: lettre's, run
    // for each of a reply's three addresses, was a twentieth of a mail's processing. A
    // domain literal (`a@[127.0.0.1]`) goes to that parser, which refuses it.
    if !value.contains(['<', '>', '"', '(', ',', ' ', '\t', '[']) {
        if let Ok(address) = value.parse::<lettre::Address>() {
            return Ok(Mailbox::new(None, address));
        }
    }
    value.parse().map_err(|e| BuildError::Address {
        field,
        value: value.to_string(),
        reason: format!("{e}"),
    })
}

/// Refuses line breaks: in a header they would let a player's text inject headers.
fn single_line(name: &str, value: &str) -> Result<String, BuildError> {
    if value.contains(['\r', '\n']) {
        return Err(BuildError::Header {
            name: name.to_string(),
            reason: "contains a line break".into(),
        });
    }
    Ok(value.to_string())
}

/// `id@domain` or `<id@domain>` -> `<id@domain>`.
fn angle_id(name: &str, id: &str) -> Result<String, BuildError> {
    let trimmed = id.trim();
    let bare = trimmed
        .strip_prefix('<')
        .and_then(|s| s.strip_suffix('>'))
        .unwrap_or(trimmed);
    let valid = !bare.is_empty()
        && bare.contains('@')
        && bare
            .chars()
            .all(|c| c.is_ascii_graphic() && !matches!(c, '<' | '>'));
    if !valid {
        return Err(BuildError::Header {
            name: name.to_string(),
            reason: format!("{id:?} is not a message id like <local@domain>"),
        });
    }
    Ok(format!("<{bare}>"))
}

#[cfg(test)]
pub(super) mod tests;
