//! Outgoing mail: an `OutMail` becomes finished RFC 5322 bytes (`RawMail`), sent over SMTP, sendmail, into a folder or a test's memory.
//!
//! A mail is a text part, optionally with an HTML alternative and the pictures it shows
//! inline (`Html`): `multipart/alternative` (the text, then `multipart/related` of the HTML
//! and its pictures), or a plain `text/plain` message when there is no HTML.
//!
//! Transport URLs (see [`Transport::from_url`]):
//!
//! | URL                                   | meaning                                            |
//! |---------------------------------------|----------------------------------------------------|
//! | `smtp://[user[:pass]@]host[:port]`    | plain SMTP, no TLS (port 25); for a trusted local relay |
//! | `smtp://host:port?tls=starttls`       | STARTTLS, required (same as `smtp+starttls://`)    |
//! | `smtp+starttls://host[:port]`         | STARTTLS, required (port 587)                      |
//! | `smtps://host[:port]`                 | implicit TLS (port 465)                            |
//! | `sendmail:` / `sendmail:/path`        | pipe to a sendmail-compatible program              |
//! | `dir:/path` / `/path` / `./path`      | one `.eml` file per mail in a folder (tests, dry runs) |
//!
//! Tests also have `Transport::Memory` (no URL): a `Recorder` that keeps what it takes.
//!
//! `smtp://` is plain unless asked otherwise, because the common plain case is a relay on the
//! same machine; STARTTLS is never opportunistic (a server that does not offer it is an error,
//! so credentials never travel in clear by accident). User and password come from the URL
//! (percent-encoded) or else from the config's `smtp_user` / `smtp_password`
//! (`from_url_with_credentials`; the config reads `PBEM_SMTP_USER` / `PBEM_SMTP_PASSWORD`
//! over them), or for `from_url` from those two variables.

use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use chrono::{DateTime, Utc};
use lettre::address::Envelope;
use lettre::message::header::{ContentType, HeaderName, HeaderValue, MIME_VERSION_1_0};
use lettre::message::{Attachment, Mailbox, MessageBuilder, MultiPart, SinglePart};
use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::transport::smtp::SmtpTransportBuilder;
use lettre::{Message, SmtpTransport, Transport as _};
use percent_encoding::percent_decode_str;
use url::{Host, Url};

/// Environment variable with the SMTP user when the URL has none.
pub const ENV_SMTP_USER: &str = "PBEM_SMTP_USER";
/// Environment variable with the SMTP password when the URL has none.
pub const ENV_SMTP_PASSWORD: &str = "PBEM_SMTP_PASSWORD";

const DEFAULT_SENDMAIL: &str = "/usr/sbin/sendmail";
/// Long enough for a slow relay, short enough that a daemon does not hang on a dead one.
const SMTP_TIMEOUT: Duration = Duration::from_secs(30);

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
    #[error("cannot build the message: {0}")]
    Lettre(#[from] lettre::error::Error),
}

/// A failed send. `transient` means the same mail may succeed later (SMTP 4xx, network,
/// TLS, a full disk); otherwise the server or program refused it for good (SMTP 5xx).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{} send failure: {message}", if *.transient { "transient" } else { "permanent" })]
pub struct SendError {
    pub transient: bool,
    pub message: String,
}

impl SendError {
    pub fn transient(message: impl Into<String>) -> Self {
        SendError {
            transient: true,
            message: message.into(),
        }
    }

    pub fn permanent(message: impl Into<String>) -> Self {
        SendError {
            transient: false,
            message: message.into(),
        }
    }
}

/// A transport URL or its TLS settings are unusable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("mail transport: {0}")]
pub struct ConfigError(String);

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

fn mailbox(field: &'static str, value: &str) -> Result<Mailbox, BuildError> {
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

/// An SMTP relay with a password-free description for logs.
#[derive(Clone)]
pub struct SmtpRelay {
    transport: SmtpTransport,
    description: String,
    /// What `check` connects with, as the transport does.
    host: String,
    port: u16,
    security: Security,
    tls_ca_file: Option<PathBuf>,
    credentials: Option<Credentials>,
    user: Option<String>,
}

impl fmt::Debug for SmtpRelay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmtpRelay")
            .field("relay", &self.description)
            .finish()
    }
}

impl SmtpRelay {
    /// Whether it logs in (a user and password are set).
    pub fn logs_in(&self) -> bool {
        self.credentials.is_some()
    }

    /// Whether the port is a submission port (587, 465), whose servers ask clients to log in
    /// before they take mail for elsewhere.
    pub fn is_submission(&self) -> bool {
        matches!(self.port, 587 | 465)
    }

    /// Connects as the transport does (TLS, login) and asks whether the server would take a
    /// mail from `from` to `to`, then resets and quits: nothing is sent. Says what it did,
    /// line by line, or what failed.
    pub fn check(&self, from: &str, to: &str) -> Result<Vec<String>, String> {
        use lettre::transport::smtp::authentication::Mechanism;
        use lettre::transport::smtp::client::SmtpConnection;
        use lettre::transport::smtp::commands::{Mail, Rcpt, Rset};
        use lettre::transport::smtp::extension::ClientId;
        let relay = &self.description;
        let hello = ClientId::default();
        let params = match self.security {
            Security::Plain => None,
            _ => Some(tls_parameters(&self.host, self.tls_ca_file.as_deref()).map_err(|e| e.0)?),
        };
        let wrapper = params
            .as_ref()
            .filter(|_| self.security == Security::ImplicitTls);
        let mut conn = SmtpConnection::connect(
            (self.host.as_str(), self.port),
            Some(SMTP_TIMEOUT),
            &hello,
            wrapper,
            None,
        )
        .map_err(|e| format!("{relay}: cannot connect: {e}"))?;
        let mut said = vec![format!("connected to {relay}")];
        if let (Security::StartTls, Some(params)) = (self.security, &params) {
            conn.starttls(params, &hello)
                .map_err(|e| format!("{relay}: STARTTLS failed: {e}"))?;
            said.push("STARTTLS ok".into());
        }
        let offered: Vec<&str> = [
            (Mechanism::Plain, "PLAIN"),
            (Mechanism::Login, "LOGIN"),
            (Mechanism::Xoauth2, "XOAUTH2"),
        ]
        .into_iter()
        .filter(|(m, _)| conn.server_info().supports_auth_mechanism(*m))
        .map(|(_, name)| name)
        .collect();
        match (&self.credentials, self.user.as_deref().unwrap_or("")) {
            (Some(c), user) => {
                conn.auth(&[Mechanism::Plain, Mechanism::Login], c)
                    .map_err(|e| format!("{relay}: login as {user:?} refused: {e}"))?;
                said.push(format!("logged in as {user}"));
            }
            (None, _) if offered.is_empty() => said.push("no login (none offered)".into()),
            (None, _) => said.push(format!(
                "no login: none set, though the server offers AUTH {}",
                offered.join(" ")
            )),
        }
        let address = |a: &str| {
            a.parse::<lettre::Address>()
                .map_err(|e| format!("{a:?} is not an address: {e}"))
        };
        // 530: "authentication required" (RFC 4954), which a login would cure.
        let hint = |e: &lettre::transport::smtp::Error| match e.status() {
            Some(code) if code.to_string() == "530" && self.credentials.is_none() => {
                " (set smtp_user and smtp_password)"
            }
            _ => "",
        };
        conn.command(Mail::new(Some(address(from)?), vec![]))
            .map_err(|e| format!("{relay}: refuses mail from {from}: {e}{}", hint(&e)))?;
        conn.command(Rcpt::new(address(to)?, vec![]))
            .map_err(|e| format!("{relay}: refuses mail to {to}: {e}{}", hint(&e)))?;
        said.push(format!(
            "would take mail from {from} to {to} (nothing sent)"
        ));
        let _ = conn.command(Rset);
        let _ = conn.quit();
        Ok(said)
    }
}

/// Whether a transport URL holds a user and a password of its own, as (user, password).
pub fn url_credentials(url: &str) -> (bool, bool) {
    match url
        .trim()
        .split_once("://")
        .map(|(_, rest)| split_url(rest))
    {
        Some(Ok(parts)) => (parts.user.is_some(), parts.password.is_some()),
        _ => (false, false),
    }
}

/// Where outgoing mail goes.
#[derive(Debug, Clone)]
pub enum Transport {
    Smtp(SmtpRelay),
    /// A sendmail-compatible program, called as `prog -i -f <from> -- <to>...`.
    Sendmail(PathBuf),
    /// A folder receiving one `.eml` file per mail.
    Dir(PathBuf),
    /// Memory, for tests (no URL names it).
    Memory(Recorder),
}

/// How an SMTP connection is secured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Security {
    Plain,
    StartTls,
    ImplicitTls,
}

impl Transport {
    /// Reads a transport URL (table in the module docs). `tls_ca_file` is a PEM certificate
    /// trusted in addition to the usual roots, e.g. a test server's self-signed one.
    pub fn from_url(url: &str, tls_ca_file: Option<&Path>) -> Result<Transport, ConfigError> {
        Self::from_url_with_env(url, tls_ca_file, &non_empty_env)
    }

    /// `from_url` with the SMTP user and password given (the config's) rather than read
    /// from the environment; a user or password in the URL still comes first.
    pub fn from_url_with_credentials(
        url: &str,
        tls_ca_file: Option<&Path>,
        user: Option<&str>,
        password: Option<&str>,
    ) -> Result<Transport, ConfigError> {
        Self::from_url_with_env(url, tls_ca_file, &|name| match name {
            ENV_SMTP_USER => user.map(str::to_string),
            ENV_SMTP_PASSWORD => password.map(str::to_string),
            _ => None,
        })
    }

    /// `from_url` with the environment lookup passed in, so tests need not change the
    /// process environment (which other threads read).
    fn from_url_with_env(
        url: &str,
        tls_ca_file: Option<&Path>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Transport, ConfigError> {
        let url = url.trim();
        if let Some(path) = url.strip_prefix("sendmail:") {
            let path = if path.is_empty() {
                DEFAULT_SENDMAIL
            } else {
                path
            };
            return Ok(Transport::Sendmail(PathBuf::from(path)));
        }
        if let Some(path) = url.strip_prefix("dir:") {
            if path.is_empty() {
                return Err(ConfigError(
                    "dir: needs a folder, e.g. dir:/var/spool/pbem".into(),
                ));
            }
            return Ok(Transport::Dir(PathBuf::from(path)));
        }
        let Some((scheme, rest)) = url.split_once("://") else {
            if url.is_empty() {
                return Err(ConfigError("empty transport URL".into()));
            }
            return Ok(Transport::Dir(PathBuf::from(url)));
        };
        let (mut security, default_port) = match scheme.to_ascii_lowercase().as_str() {
            "smtp" => (Security::Plain, 25),
            "smtp+starttls" => (Security::StartTls, 587),
            "smtps" => (Security::ImplicitTls, 465),
            other => {
                return Err(ConfigError(format!(
                    "unknown scheme {other:?} (smtp, smtp+starttls, smtps, sendmail, dir)"
                )))
            }
        };
        let parts = split_url(rest)?;
        if let Some(tls) = &parts.tls {
            security = match (security, tls.as_str()) {
                (_, "starttls" | "required") => Security::StartTls,
                (Security::Plain, "none") => Security::Plain,
                (Security::ImplicitTls, "implicit" | "wrapper") => Security::ImplicitTls,
                (_, other) => {
                    return Err(ConfigError(format!(
                        "tls={other:?} does not fit scheme {scheme:?}"
                    )))
                }
            };
        }
        let port = parts.port.unwrap_or(default_port);
        let mut builder = lettre_builder(rest, &parts, security, tls_ca_file)?
            .port(port)
            .timeout(Some(SMTP_TIMEOUT));
        let user = parts.user.or_else(|| env(ENV_SMTP_USER));
        let password = parts.password.or_else(|| env(ENV_SMTP_PASSWORD));
        let mut description = format!("{scheme}://");
        let credentials = match (user.clone(), password) {
            // lettre took a user and password from the URL already; set again either way,
            // as either may come from the environment or the config instead.
            (Some(user), Some(password)) => {
                description.push_str(&format!("{user}@"));
                let credentials = Credentials::new(user, password);
                builder = builder.credentials(credentials.clone());
                Some(credentials)
            }
            (Some(user), None) => {
                return Err(ConfigError(format!(
                    "SMTP user {user:?} has no password (in the URL, smtp_password or \
                     {ENV_SMTP_PASSWORD})"
                )))
            }
            (None, Some(_)) => {
                return Err(ConfigError(format!(
                    "an SMTP password but no user (in the URL, smtp_user or {ENV_SMTP_USER})"
                )))
            }
            (None, None) => None,
        };
        description.push_str(&format!("{}:{port} ({security:?})", parts.host));
        Ok(Transport::Smtp(SmtpRelay {
            transport: builder.build(),
            description,
            host: parts.host,
            port,
            security,
            tls_ca_file: tls_ca_file.map(Path::to_path_buf),
            credentials,
            user,
        }))
    }

    /// Builds and delivers one mail. A mail that cannot be built is a permanent failure.
    pub fn send(&self, mail: &OutMail) -> Result<(), SendError> {
        let raw = RawMail::of(mail).map_err(|e| SendError::permanent(e.to_string()))?;
        self.send_raw(&raw)
    }

    /// Delivers one finished mail, its bytes as they are.
    pub fn send_raw(&self, mail: &RawMail) -> Result<(), SendError> {
        match self {
            Transport::Smtp(relay) => relay
                .transport
                .send_raw(&mail.envelope, &mail.bytes)
                .map(|_| ())
                .map_err(|e| classify_smtp_error(&relay.description, &e)),
            Transport::Sendmail(program) => send_with_sendmail(program, mail),
            Transport::Dir(folder) => write_to_folder(folder, &mail.bytes, &mail.message_id)
                .map(|_| ())
                .map_err(|e| {
                    SendError::transient(format!("cannot write to {}: {e}", folder.display()))
                }),
            Transport::Memory(recorder) => recorder.take(mail),
        }
    }

    /// Sends mails one after the other, calling `taken(i, result)` as soon as the transport
    /// has taken mail `i` (or failed it), before the next goes out: the caller notes it sent
    /// there, so a crash sends again at most the one mail in flight. An error from `taken`
    /// stops the sending (the mails not reached stay as they were) and is returned.
    pub fn send_each(
        &self,
        mails: &[RawMail],
        taken: &mut dyn FnMut(usize, Result<(), SendError>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        match self {
            Transport::Dir(folder) => send_each_to_folder(folder, mails, taken),
            _ => {
                for (i, mail) in mails.iter().enumerate() {
                    taken(i, self.send_raw(mail))?;
                }
                Ok(())
            }
        }
    }
}

/// The test double for a relay: a transport that keeps in memory every mail it takes, and
/// fails the mails it is told to (transient or permanent, as an SMTP server's 4xx or 5xx).
/// Clones share what they record, so a test keeps one while the sender uses another.
#[derive(Debug, Clone, Default)]
pub struct Recorder(Arc<Mutex<Recorded>>);

#[derive(Debug, Default)]
struct Recorded {
    taken: Vec<RawMail>,
    tries: usize,
    failures: std::collections::VecDeque<SendError>,
}

impl Recorder {
    /// The next `n` mails handed over fail with `error`; later ones are taken again.
    pub fn fail_next(&self, n: usize, error: SendError) {
        self.lock().failures.extend(std::iter::repeat_n(error, n));
    }

    /// Every mail taken, in order (a mail taken twice is here twice).
    pub fn taken(&self) -> Vec<RawMail> {
        self.lock().taken.clone()
    }

    /// How many mails were handed over, failed ones included.
    pub fn tries(&self) -> usize {
        self.lock().tries
    }

    fn take(&self, mail: &RawMail) -> Result<(), SendError> {
        let mut recorded = self.lock();
        recorded.tries += 1;
        if let Some(error) = recorded.failures.pop_front() {
            return Err(error);
        }
        recorded.taken.push(mail.clone());
        Ok(())
    }

    /// A test that panicked while holding the lock leaves what was recorded intact.
    fn lock(&self) -> MutexGuard<'_, Recorded> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A folder takes a mail when its file appears under its name. Every file's content is
/// written and made durable first, all at once (an fsync each for a few; for many, one sync
/// of the filesystem, far cheaper than an fsync per file: about 6 ms a file with its folder
/// on a small VM); then each is renamed into place and reported at once; then the folder
/// is synced, which makes the names durable. A power cut before that last sync can lose a
/// name already reported (the mail then survives under its hidden temporary name); a crash
/// of the process cannot, and sends again at most the one mail in flight.
fn send_each_to_folder(
    folder: &Path,
    mails: &[RawMail],
    taken: &mut dyn FnMut(usize, Result<(), SendError>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let each = mails.len() < 8;
    let unwritable =
        |e: io::Error| SendError::transient(format!("cannot write into {}: {e}", folder.display()));
    let mut staged = Staging(Vec::with_capacity(mails.len()));
    for (i, m) in mails.iter().enumerate() {
        match stage(folder, &m.bytes, &m.message_id, each).map_err(unwritable) {
            Ok(file) => staged.0.push((i, file)),
            Err(e) => taken(i, Err(e))?,
        }
    }
    if staged.0.is_empty() {
        return Ok(());
    }
    if !each {
        if let Err(e) = sync_folder(folder) {
            let why = SendError::transient(format!("cannot sync {}: {e}", folder.display()));
            for (i, _) in std::mem::take(&mut staged.0) {
                taken(i, Err(why.clone()))?;
            }
            return Ok(());
        }
    }
    // In order, taking each from the back of the reversed list: what is left on an early
    // return is exactly what `Staging` must remove.
    staged.0.reverse();
    while let Some((i, file)) = staged.0.pop() {
        taken(i, publish(folder, &file).map(|_| ()).map_err(unwritable))?;
    }
    sync_dir(folder).map_err(|e| anyhow::anyhow!("cannot sync {}: {e}", folder.display()))
}

/// Files written but not yet in place; dropped early (an error, or a caller that stopped),
/// their temporary files are removed, and their mails are sent again later.
struct Staging(Vec<(usize, Staged)>);

impl Drop for Staging {
    fn drop(&mut self) {
        for (_, file) in &self.0 {
            let _ = fs::remove_file(&file.temp);
        }
    }
}

/// Makes the names in a folder durable (its entries, not the files' contents).
fn sync_dir(folder: &Path) -> io::Result<()> {
    fs::File::open(folder)?.sync_all()
}

/// Flushes the filesystem holding `folder` (file data and directory entries) in one call.
fn sync_folder(folder: &Path) -> io::Result<()> {
    let dir = fs::File::open(folder)?;
    rustix::fs::syncfs(&dir).map_err(io::Error::from)
}

impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Transport::Smtp(relay) => f.write_str(&relay.description),
            Transport::Sendmail(path) => write!(f, "sendmail:{}", path.display()),
            Transport::Dir(path) => write!(f, "dir:{}", path.display()),
            Transport::Memory(_) => f.write_str("memory"),
        }
    }
}

fn non_empty_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

fn tls_parameters(host: &str, ca_file: Option<&Path>) -> Result<TlsParameters, ConfigError> {
    let mut params = TlsParameters::builder(host.to_string());
    if let Some(path) = ca_file {
        let pem = fs::read(path)
            .map_err(|e| ConfigError(format!("cannot read CA file {}: {e}", path.display())))?;
        let cert = Certificate::from_pem(&pem)
            .map_err(|e| ConfigError(format!("bad CA file {}: {e}", path.display())))?;
        params = params.add_root_certificate(cert);
    }
    params
        .build()
        .map_err(|e| ConfigError(format!("TLS setup for {host}: {e}")))
}

/// The parts of `[user[:pass]@]host[:port][/][?query]`, user and password decoded.
#[derive(Debug, PartialEq, Eq)]
struct UrlParts {
    user: Option<String>,
    password: Option<String>,
    host: String,
    port: Option<u16>,
    tls: Option<String>,
}

/// Reads what follows `scheme://` with the `url` crate, the reader lettre's own `from_url`
/// uses, so both see the same host, port and user. pbem's URLs are stricter than lettre's:
/// no path (lettre would take it for the EHLO name) and no parameter but `tls`.
fn parse_rest(rest: &str) -> Result<Url, ConfigError> {
    // The parts do not depend on the scheme as long as `url` treats it as non-special, as it
    // does all of pbem's. The error never quotes the URL, which may hold a password.
    let url = Url::parse(&format!("smtp://{rest}"))
        .map_err(|e| ConfigError(format!("bad SMTP URL: {e}")))?;
    if !matches!(url.path(), "" | "/") || url.fragment().is_some() {
        return Err(ConfigError(
            "an SMTP URL ends after host, port and ?tls=".into(),
        ));
    }
    Ok(url)
}

fn split_url(rest: &str) -> Result<UrlParts, ConfigError> {
    let url = parse_rest(rest)?;
    let host = match url.host() {
        Some(Host::Ipv6(ip)) => ip.to_string(),
        Some(Host::Domain(name)) if !name.is_empty() => name.to_string(),
        Some(Host::Ipv4(ip)) => ip.to_string(),
        _ => return Err(ConfigError("no host in the SMTP URL".into())),
    };
    let mut tls = None;
    for (key, value) in url.query_pairs() {
        match key.as_ref() {
            "tls" => tls = Some(value.to_ascii_lowercase()),
            _ => return Err(ConfigError(format!("unknown URL parameter {key:?}"))),
        }
    }
    let decode = |text: &str| {
        percent_decode_str(text)
            .decode_utf8()
            .map(|t| t.into_owned())
            .map_err(|_| ConfigError("the SMTP user or password is not UTF-8".into()))
    };
    Ok(UrlParts {
        user: Some(decode(url.username())?).filter(|u| !u.is_empty()),
        password: url.password().map(decode).transpose()?,
        host,
        port: url.port(),
        tls,
    })
}

/// lettre's builder for the relay, from lettre's own URL form: `smtp://` (plain),
/// `smtp://...?tls=required` (STARTTLS) or `smtps://` (implicit TLS), with the user and
/// password. What that form cannot say is set here: the CA file (lettre's URL has no place
/// for one), and an IPv6 host, which `from_url` would pass on with its brackets (`[::1]`),
/// a name that neither resolves nor names a TLS peer. The caller sets the port (pbem's
/// default for `smtp://...?tls=starttls` is 25, lettre's 587).
fn lettre_builder(
    rest: &str,
    parts: &UrlParts,
    security: Security,
    tls_ca_file: Option<&Path>,
) -> Result<SmtpTransportBuilder, ConfigError> {
    let mut url = parse_rest(rest)?;
    let ipv6 = matches!(url.host(), Some(Host::Ipv6(_)));
    let builder = if ipv6 {
        SmtpTransport::builder_dangerous(parts.host.clone())
    } else {
        if security == Security::ImplicitTls {
            url.set_scheme("smtps")
                .expect("smtp and smtps are both non-special");
        }
        url.set_query((security == Security::StartTls).then_some("tls=required"));
        if url.username().is_empty() {
            // pbem takes the user from the environment then; lettre would log in as "".
            let _ = url.set_password(None);
        }
        SmtpTransport::from_url(url.as_str()).map_err(|e| ConfigError(format!("SMTP URL: {e}")))?
    };
    if security == Security::Plain || (tls_ca_file.is_none() && !ipv6) {
        return Ok(builder);
    }
    let params = tls_parameters(&parts.host, tls_ca_file)?;
    Ok(builder.tls(match security {
        Security::StartTls => Tls::Required(params),
        _ => Tls::Wrapper(params),
    }))
}

/// SMTP 5xx replies are final; everything else (4xx, refused or dropped connections,
/// timeouts, TLS trouble) may go away, so the mail stays queued.
fn classify_smtp_error(relay: &str, error: &lettre::transport::smtp::Error) -> SendError {
    let mut message = format!("{relay}: {error}");
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(&format!(": {text}"));
        }
        source = cause.source();
    }
    SendError {
        transient: !error.is_permanent(),
        message,
    }
}

/// sysexits.h codes meaning the mail itself or its addresses are wrong: EX_USAGE,
/// EX_DATAERR, EX_NOUSER, EX_NOHOST. Others (EX_TEMPFAIL, EX_UNAVAILABLE, ...) are transient.
const SENDMAIL_PERMANENT_EXITS: &[i32] = &[64, 65, 67, 68];

fn send_with_sendmail(program: &Path, mail: &RawMail) -> Result<(), SendError> {
    let envelope = &mail.envelope;
    let from = envelope.from().map(|a| a.to_string()).unwrap_or_default();
    let mut child = Command::new(program)
        .arg("-i")
        .arg("-f")
        .arg(&from)
        .arg("--")
        .args(envelope.to().iter().map(|a| a.to_string()))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| SendError::transient(format!("cannot run {}: {e}", program.display())))?;
    let written = child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(&mail.bytes);
    let output = child
        .wait_with_output()
        .map_err(|e| SendError::transient(format!("{}: {e}", program.display())))?;
    if output.status.success() {
        // A program that exits 0 without reading all its input still took the mail.
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let text = format!(
        "{} failed ({}): {}{}",
        program.display(),
        output.status,
        stderr.trim(),
        written
            .err()
            .map(|e| format!(" (writing: {e})"))
            .unwrap_or_default()
    );
    match output.status.code() {
        Some(code) if SENDMAIL_PERMANENT_EXITS.contains(&code) => Err(SendError::permanent(text)),
        _ => Err(SendError::transient(text)),
    }
}

/// Writes a mail's bytes as `<UTC time>-<message id>.eml` (sortable by time, then id) and returns
/// the path. The file appears complete or not at all (written under a hidden name, then
/// renamed into place), and an existing file is never replaced: a clash gets a `-2`, `-3`...
/// suffix.
pub fn write_to_folder(folder: &Path, bytes: &[u8], message_id: &str) -> io::Result<PathBuf> {
    let file = stage(folder, bytes, message_id, true)?;
    let path = publish(folder, &file);
    let _ = fs::remove_file(&file.temp);
    // The rename is durable only once the folder is: until then a power cut could lose a
    // mail the outbox already marks sent.
    sync_dir(folder)?;
    path
}

/// A mail written under a hidden temporary name, not yet in place.
struct Staged {
    temp: PathBuf,
    /// `<UTC time>-<message id>`, the name it gets.
    stem: String,
}

/// Writes a mail's bytes under a hidden temporary name in `folder` (fsynced when `sync`).
fn stage(folder: &Path, bytes: &[u8], message_id: &str, sync: bool) -> io::Result<Staged> {
    fs::create_dir_all(folder)?;
    let stamp = crate::edge::now().format("%Y%m%dT%H%M%S%.6fZ");
    let id: String = message_id
        .trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '@' | '+') {
                c
            } else {
                '_'
            }
        })
        .take(120)
        .collect();
    let stem = format!("{stamp}-{id}");
    let temp = folder.join(format!(".{stem}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        if sync {
            file.sync_all()?;
        }
        Ok(())
    })();
    match written {
        Ok(()) => Ok(Staged { temp, stem }),
        Err(e) => {
            let _ = fs::remove_file(&temp);
            Err(e)
        }
    }
}

/// Renames a staged mail into place: `<stem>.eml`, or with a `-2`, `-3`... suffix when that
/// name is taken (an existing file is never replaced).
fn publish(folder: &Path, file: &Staged) -> io::Result<PathBuf> {
    for attempt in 1.. {
        let name = if attempt == 1 {
            format!("{}.eml", file.stem)
        } else {
            format!("{}-{attempt}.eml", file.stem)
        };
        let path = folder.join(name);
        // Rename without replacing: the file appears whole under its name, never over
        // another (one directory operation, where a link and an unlink were two).
        match rustix::fs::renameat_with(
            rustix::fs::CWD,
            &file.temp,
            rustix::fs::CWD,
            &path,
            rustix::fs::RenameFlags::NOREPLACE,
        ) {
            Ok(()) => return Ok(path),
            Err(e) if e == rustix::io::Errno::EXIST => continue,
            Err(e) => return Err(e.into()),
        }
    }
    unreachable!("the attempt counter is unbounded")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> OutMail {
        OutMail {
            from: "Game Master <gm@example.org>".into(),
            to: vec!["alice@example.org".into(), "Bob <bob@example.org>".into()],
            reply_to: Some("gm+g12@example.org".into()),
            subject: "Zug 3: Läufer schlägt Springer ♞".into(),
            body: "Board after move 3:\n  a b c\n1 . ♞ .\nÜbermut tut selten gut.\n".into(),
            message_id: "<1234abcd@pbem.example.org>".into(),
            in_reply_to: Some("<player-7@mail.example.com>".into()),
            references: vec!["<start-1@pbem.example.org>".into()],
            auto_submitted: Some("auto-replied".into()),
            extra_headers: vec![("X-Pbem-Game".into(), "g12".into())],
            date: None,
            html: None,
        }
    }

    fn formatted(mail: &OutMail) -> String {
        String::from_utf8(build(mail).expect("builds").formatted()).expect("ASCII on the wire")
    }

    fn parsed(raw: &str) -> mail_parser::Message<'_> {
        mail_parser::MessageParser::default()
            .parse(raw.as_bytes())
            .expect("parses")
    }

    #[test]
    fn build_writes_thread_and_loop_guard_headers() {
        let raw = formatted(&sample());
        let msg = parsed(&raw);
        assert_eq!(msg.message_id(), Some("1234abcd@pbem.example.org"));
        assert_eq!(
            msg.in_reply_to().as_text(),
            Some("player-7@mail.example.com")
        );
        let references: Vec<&str> = msg
            .references()
            .as_text_list()
            .expect("References present")
            .iter()
            .map(|id| id.as_ref())
            .collect();
        assert_eq!(
            references,
            ["start-1@pbem.example.org", "player-7@mail.example.com"]
        );
        assert_eq!(
            msg.header_raw("Auto-Submitted").map(str::trim),
            Some("auto-replied")
        );
        assert_eq!(
            msg.header_raw("X-Auto-Response-Suppress").map(str::trim),
            Some("All")
        );
        assert_eq!(msg.header_raw("X-Pbem-Game").map(str::trim), Some("g12"));
        assert!(msg.date().is_some(), "Date header is set");
        let reply_to = msg
            .reply_to()
            .and_then(|a| a.first())
            .and_then(|a| a.address());
        assert_eq!(reply_to, Some("gm+g12@example.org"));
        let to: Vec<_> = msg
            .to()
            .expect("To")
            .iter()
            .filter_map(|a| a.address())
            .collect();
        assert_eq!(to, ["alice@example.org", "bob@example.org"]);
    }

    #[test]
    fn bodies_get_crlf_line_ends_in_one_pass() {
        assert_eq!(crlf("a\nb\r\nc\n\n"), "a\r\nb\r\nc\r\n\r\n");
        let big = "x\n".repeat(500_000);
        let out = crlf(&big);
        assert_eq!(out.len(), big.len() + 500_000);
        assert!(!out.replace("\r\n", "").contains('\n'));
    }

    /// The quick way for a bare address gives what lettre's full parser gives, and refuses
    /// what it refuses (a player's address is a stranger's text).
    #[test]
    fn a_bare_address_is_read_as_the_full_parser_reads_it() {
        let long = format!("{}@example.org", "a".repeat(100_000));
        let addresses = [
            "alice@example.org",
            "gm+tok3n@example.org",
            " bob@example.org\t",
            "ünïcode@exämple.org",
            "a@[127.0.0.1]",
            "a@[IPv6:::1]",
            "a@localhost",
            "A@EXAMPLE.ORG",
            "a@b.c.",
            "a..b@example.org",
            ".a@example.org",
            "a@-example.org",
            "a@xn--bcher-kva.example",
            "a@exa_mple.org",
            "a\\b@example.org",
            "a;b@example.org",
            "a\r\nBcc: x@y@example.org",
            "a.b-c_d@sub.example.co.uk",
            "no-at-sign",
            "two@@example.org",
            "@example.org",
            "a@",
            "a@b@c",
            "",
            "Alice <alice@example.org>",
            "\"a b\"@example.org",
            "a@example.org, b@example.org",
            long.as_str(),
        ];
        for a in addresses {
            let full: Result<Mailbox, _> = a.trim().parse();
            let ours = mailbox("To", a);
            match (&full, &ours) {
                (Ok(f), Ok(o)) => assert_eq!(f, o, "{a:?}"),
                (Err(_), Err(_)) => {}
                _ => panic!("{a:?}: lettre {full:?}, ours {ours:?}"),
            }
        }
    }

    #[test]
    fn build_encodes_non_ascii_subject_and_body_as_utf8_text() {
        let mail = sample();
        let raw = formatted(&mail);
        assert!(raw.is_ascii(), "non-ASCII must be encoded on the wire");
        assert!(raw.contains("=?utf-8?b?"), "RFC 2047 encoded words: {raw}");
        assert!(raw.contains("Content-Type: text/plain; charset=utf-8"));
        assert!(raw.contains("MIME-Version: 1.0"));
        let msg = parsed(&raw);
        assert_eq!(msg.subject(), Some(mail.subject.as_str()));
        let body = msg.body_text(0).expect("text body");
        assert_eq!(body.replace("\r\n", "\n"), mail.body);
    }

    /// A tiny PNG's signature and a few bytes that are not text, so they travel in base64.
    const PICTURE: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff\xfe";

    fn with_html(pictures: Vec<Picture>) -> OutMail {
        OutMail {
            html: Some(Html {
                body: "<html><body><p>Board:</p><img src=\"cid:board.12@pbem.example\">\n\
                       <p>&Uuml;bermut \u{265e}</p></body></html>\n"
                    .into(),
                pictures,
            }),
            ..sample()
        }
    }

    fn board_picture() -> Picture {
        Picture {
            content_id: "<board.12@pbem.example>".into(),
            mime: "image/png".into(),
            bytes: PICTURE.to_vec(),
        }
    }

    #[test]
    fn html_with_a_picture_is_text_then_related_html_and_picture() {
        use mail_parser::MimeHeaders;
        let mail = with_html(vec![board_picture()]);
        let raw = formatted(&mail);
        assert!(raw.is_ascii(), "non-ASCII must be encoded on the wire");
        let msg = parsed(&raw);
        let ctype = msg.content_type().expect("Content-Type");
        assert_eq!(
            (ctype.ctype(), ctype.subtype()),
            ("multipart", Some("alternative"))
        );
        // The text first (the least preferred alternative), then the HTML with its picture.
        let types: Vec<String> = msg
            .parts
            .iter()
            .map(|p| {
                let c = p.content_type().expect("each part has a type");
                format!("{}/{}", c.ctype(), c.subtype().unwrap_or(""))
            })
            .collect();
        assert_eq!(
            types,
            [
                "multipart/alternative",
                "text/plain",
                "multipart/related",
                "text/html",
                "image/png"
            ]
        );
        assert_eq!(
            msg.body_text(0).expect("text").replace("\r\n", "\n"),
            mail.body
        );
        let html = msg.body_html(0).expect("html");
        assert_eq!(html.replace("\r\n", "\n"), mail.html.as_ref().unwrap().body);
        let picture = msg.parts.last().expect("the picture");
        assert_eq!(picture.content_id(), Some("board.12@pbem.example"));
        assert_eq!(picture.contents(), PICTURE);
        assert!(raw.contains("Content-Disposition: inline"), "{raw}");
        // The headers are the plain mail's.
        assert_eq!(msg.subject(), Some(mail.subject.as_str()));
        assert_eq!(msg.message_id(), Some("1234abcd@pbem.example.org"));
        assert_eq!(msg.header_raw("X-Pbem-Game").map(str::trim), Some("g12"));
    }

    #[test]
    fn html_without_pictures_is_an_alternative_of_text_and_html() {
        use mail_parser::MimeHeaders;
        let raw = formatted(&with_html(vec![]));
        let msg = parsed(&raw);
        let types: Vec<String> = msg
            .parts
            .iter()
            .map(|p| {
                let c = p.content_type().unwrap();
                format!("{}/{}", c.ctype(), c.subtype().unwrap_or(""))
            })
            .collect();
        assert_eq!(types, ["multipart/alternative", "text/plain", "text/html"]);
        assert!(!raw.contains("multipart/related"));
    }

    #[test]
    fn a_picture_needs_a_content_id_and_a_mime_type() {
        let mut bad_id = board_picture();
        bad_id.content_id = "no domain".into();
        assert!(matches!(
            build(&with_html(vec![bad_id])),
            Err(BuildError::Header { .. })
        ));
        let mut bad_type = board_picture();
        bad_type.mime = "a picture".into();
        assert!(matches!(
            build(&with_html(vec![bad_type])),
            Err(BuildError::Header { .. })
        ));
    }

    #[test]
    fn the_date_is_the_one_given() {
        use chrono::TimeZone;
        let at = Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 5).unwrap();
        let raw = formatted(&OutMail {
            date: Some(at),
            ..sample()
        });
        let date = parsed(&raw).date().expect("Date").to_timestamp();
        assert_eq!(date, at.timestamp());
        assert_eq!(raw.matches("\r\nDate:").count(), 1, "{raw}");
    }

    #[test]
    fn a_raw_mail_has_the_envelope_its_addresses_give() {
        let mail = sample();
        let raw = RawMail::of(&mail).unwrap();
        assert_eq!(envelope(&mail.from, &mail.to).unwrap(), raw.envelope);
        assert_eq!(
            raw.envelope.from().map(|a| a.to_string()).as_deref(),
            Some("gm@example.org")
        );
        assert!(envelope(&mail.from, &[]).is_err());
        assert!(envelope("not an address", &mail.to).is_err());
    }

    #[test]
    fn the_memory_transport_takes_the_bytes_and_fails_when_told() {
        let recorder = Recorder::default();
        let transport = Transport::Memory(recorder.clone());
        recorder.fail_next(1, SendError::transient("451 try later"));
        let raw = RawMail::of(&sample()).unwrap();
        assert!(transport.send_raw(&raw).unwrap_err().transient);
        transport.send_raw(&raw).unwrap();
        assert_eq!(recorder.taken(), [raw]);
        assert_eq!(recorder.tries(), 2);
        assert_eq!(transport.to_string(), "memory");
    }

    #[test]
    fn build_without_parent_has_no_thread_headers_and_adds_brackets() {
        let mut mail = sample();
        mail.in_reply_to = None;
        mail.references.clear();
        mail.auto_submitted = None;
        mail.message_id = "bare-id@pbem.example.org".into();
        let raw = formatted(&mail);
        assert!(raw.contains("Message-ID: <bare-id@pbem.example.org>"));
        assert!(!raw.contains("In-Reply-To:"));
        assert!(!raw.contains("References:"));
        assert!(!raw.contains("Auto-Submitted:"));
    }

    #[test]
    fn build_refuses_header_injection_and_bad_input() {
        let mut mail = sample();
        mail.subject = "hello\r\nBcc: victim@example.org".into();
        assert!(matches!(build(&mail), Err(BuildError::Header { .. })));

        let mut mail = sample();
        mail.extra_headers = vec![("Subject".into(), "twice".into())];
        assert!(matches!(build(&mail), Err(BuildError::Header { .. })));

        let mut mail = sample();
        mail.message_id = "no-domain".into();
        assert!(matches!(build(&mail), Err(BuildError::Header { .. })));

        let mut mail = sample();
        mail.to = vec!["not an address".into()];
        assert!(matches!(
            build(&mail),
            Err(BuildError::Address { field: "To", .. })
        ));

        let mut mail = sample();
        mail.to.clear();
        assert!(matches!(build(&mail), Err(BuildError::NoRecipient)));
    }

    #[test]
    fn dir_transport_writes_one_sortable_file_per_mail_without_overwriting() {
        let folder = tempfile::tempdir().expect("tempdir");
        let transport =
            Transport::from_url(&format!("dir:{}", folder.path().display()), None).unwrap();
        let mut first = sample();
        first.message_id = "<first@pbem.example.org>".into();
        let mut second = sample();
        second.message_id = "<second@pbem.example.org>".into();
        transport.send(&first).unwrap();
        transport.send(&second).unwrap();
        transport.send(&first).unwrap(); // the same mail again must not replace the first copy

        let mut names: Vec<String> = fs::read_dir(folder.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names.len(), 3, "{names:?}");
        assert!(names.iter().all(|n| n.ends_with(".eml")), "{names:?}");
        assert!(
            names[0].ends_with("-first@pbem.example.org.eml"),
            "{names:?}"
        );
        assert!(
            names[1].ends_with("-second@pbem.example.org.eml"),
            "{names:?}"
        );
        assert!(names[2].contains("-first@pbem.example.org"), "{names:?}");
        let text = fs::read_to_string(folder.path().join(&names[1])).unwrap();
        assert!(text.contains("Message-ID: <second@pbem.example.org>"));
    }

    #[test]
    fn write_to_folder_never_overwrites_on_a_name_clash() {
        let folder = tempfile::tempdir().expect("tempdir");
        let bytes = build(&sample()).unwrap().formatted();
        let paths: Vec<PathBuf> = (0..5)
            .map(|_| write_to_folder(folder.path(), &bytes, "<same@id>").unwrap())
            .collect();
        let mut unique = paths.clone();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), 5);
        assert!(paths.iter().all(|p| p.exists()));
        let hidden = fs::read_dir(folder.path())
            .unwrap()
            .filter(|e| {
                e.as_ref()
                    .unwrap()
                    .file_name()
                    .to_string_lossy()
                    .starts_with('.')
            })
            .count();
        assert_eq!(hidden, 0, "temporary files are removed");
    }

    #[test]
    fn a_bare_path_is_a_dir_transport() {
        for url in ["/var/spool/pbem/out", "./out", "out"] {
            match Transport::from_url(url, None).unwrap() {
                Transport::Dir(path) => assert_eq!(path, PathBuf::from(url)),
                other => panic!("{url}: {other:?}"),
            }
        }
    }

    #[test]
    fn sendmail_urls() {
        let default = Transport::from_url("sendmail:", None).unwrap();
        assert!(matches!(default, Transport::Sendmail(ref p) if p == Path::new(DEFAULT_SENDMAIL)));
        let custom = Transport::from_url("sendmail:/opt/bin/msmtp", None).unwrap();
        assert!(matches!(custom, Transport::Sendmail(ref p) if p == Path::new("/opt/bin/msmtp")));
    }

    #[test]
    fn smtp_urls_pick_security_port_and_credentials() {
        let parts = split_url("gm%40x:p%3Ass@mail.example.org:2587/?tls=starttls").unwrap();
        assert_eq!(
            parts,
            UrlParts {
                user: Some("gm@x".into()),
                password: Some("p:ss".into()),
                host: "mail.example.org".into(),
                port: Some(2587),
                tls: Some("starttls".into()),
            }
        );
        let cases = [
            (
                "smtp://u:p@127.0.0.1:2525",
                "smtp://u@127.0.0.1:2525 (Plain)",
            ),
            (
                "smtp://u:p@localhost:2587?tls=starttls",
                "smtp://u@localhost:2587 (StartTls)",
            ),
            (
                "smtp+starttls://u:p@localhost",
                "smtp+starttls://u@localhost:587 (StartTls)",
            ),
            (
                "smtps://u:p@localhost",
                "smtps://u@localhost:465 (ImplicitTls)",
            ),
            (
                "smtp://relay.example.org",
                "smtp://relay.example.org:25 (Plain)",
            ),
        ];
        for (url, expected) in cases {
            let transport = Transport::from_url_with_env(url, None, &|_| None).unwrap();
            assert_eq!(transport.to_string(), expected, "{url}");
        }
    }

    #[test]
    fn credentials_come_from_the_environment_unless_the_url_has_them() {
        let env = |name: &str| match name {
            ENV_SMTP_USER => Some("envuser".to_string()),
            ENV_SMTP_PASSWORD => Some("envpass".to_string()),
            _ => None,
        };
        let from_env = Transport::from_url_with_env("smtps://mail.example.org", None, &env);
        assert_eq!(
            from_env.unwrap().to_string(),
            "smtps://envuser@mail.example.org:465 (ImplicitTls)"
        );
        let from_url = Transport::from_url_with_env("smtps://me:pw@mail.example.org", None, &env);
        assert_eq!(
            from_url.unwrap().to_string(),
            "smtps://me@mail.example.org:465 (ImplicitTls)"
        );
        let no_password = |name: &str| (name == ENV_SMTP_USER).then(|| "envuser".to_string());
        assert!(
            Transport::from_url_with_env("smtps://mail.example.org", None, &no_password).is_err()
        );
        let no_user = |name: &str| (name == ENV_SMTP_PASSWORD).then(|| "envpass".to_string());
        let e = Transport::from_url_with_env("smtps://mail.example.org", None, &no_user);
        assert!(e.unwrap_err().0.contains("no user"));
        // The config's keys stand where the environment would.
        let keys = Transport::from_url_with_credentials(
            "smtps://mail.example.org",
            None,
            Some("keyuser"),
            Some("keypass"),
        );
        assert_eq!(
            keys.unwrap().to_string(),
            "smtps://keyuser@mail.example.org:465 (ImplicitTls)"
        );
        assert_eq!(
            url_credentials("smtps://me:pw@mail.example.org"),
            (true, true)
        );
        assert_eq!(
            url_credentials("smtps://me@mail.example.org"),
            (true, false)
        );
        assert_eq!(
            url_credentials("sendmail:/usr/sbin/sendmail"),
            (false, false)
        );
        let nothing = |_: &str| None;
        assert_eq!(
            Transport::from_url_with_env("smtp://relay:2525", None, &nothing)
                .unwrap()
                .to_string(),
            "smtp://relay:2525 (Plain)"
        );
    }

    #[test]
    fn bad_urls_are_config_errors() {
        for url in [
            "imap://localhost",
            "smtp://",
            "smtp://host:99999",
            "smtp://host?tls=maybe",
            "smtp://host?color=blue",
            "smtps://host?tls=none",
            "dir:",
            "",
        ] {
            assert!(Transport::from_url(url, None).is_err(), "{url} accepted");
        }
        let missing = Path::new("/nonexistent/ca.pem");
        assert!(Transport::from_url("smtps://localhost", Some(missing)).is_err());
    }

    #[cfg(unix)]
    fn fake_sendmail(folder: &Path, exit_code: i32) -> PathBuf {
        use std::os::unix::fs::PermissionsExt;
        let script = folder.join(format!("sendmail-{exit_code}"));
        let capture = folder.join("captured");
        fs::write(
            &script,
            format!(
                "#!/bin/sh\necho \"$@\" > '{0}.args'\ncat > '{0}.eml'\necho 'no luck' >&2\nexit {exit_code}\n",
                capture.display()
            ),
        )
        .unwrap();
        fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
        script
    }

    #[cfg(unix)]
    #[test]
    fn sendmail_gets_envelope_and_message_and_exit_codes_are_classified() {
        let folder = tempfile::tempdir().unwrap();
        let ok = Transport::Sendmail(fake_sendmail(folder.path(), 0));
        ok.send(&sample()).unwrap();
        let args = fs::read_to_string(folder.path().join("captured.args")).unwrap();
        assert_eq!(
            args.trim(),
            "-i -f gm@example.org -- alice@example.org bob@example.org"
        );
        let eml = fs::read_to_string(folder.path().join("captured.eml")).unwrap();
        assert!(eml.contains("Message-ID: <1234abcd@pbem.example.org>"));

        let tempfail = Transport::Sendmail(fake_sendmail(folder.path(), 75));
        let err = tempfail.send(&sample()).unwrap_err();
        assert!(err.transient, "{err}");
        assert!(err.message.contains("no luck"), "{err}");

        let nouser = Transport::Sendmail(fake_sendmail(folder.path(), 67));
        assert!(!nouser.send(&sample()).unwrap_err().transient);

        let missing = Transport::Sendmail(folder.path().join("no-such-program"));
        assert!(missing.send(&sample()).unwrap_err().transient);
    }

    #[test]
    fn an_unbuildable_mail_is_a_permanent_failure() {
        let folder = tempfile::tempdir().unwrap();
        let mut mail = sample();
        mail.to.clear();
        let err = Transport::Dir(folder.path().to_path_buf())
            .send(&mail)
            .unwrap_err();
        assert!(!err.transient);
    }
}
