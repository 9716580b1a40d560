//! Outgoing mail: an `OutMail` becomes finished RFC 5322 bytes (`RawMail`, `message.rs`), sent as they are over SMTP (`smtp.rs`), sendmail (`sendmail.rs`), into a folder (`folder.rs`) or a test's memory (`recorder.rs`), as a `Transport` (`transport.rs`) says.
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

mod dkim;
mod folder;
mod message;
mod recorder;
mod sendmail;
mod smtp;
mod transport;

pub use dkim::DkimSigner;
pub use folder::write_to_folder;
pub use message::{build, crlf, envelope, BuildError, Html, OutMail, Picture, RawMail};
pub use recorder::Recorder;
pub use smtp::{url_credentials, SmtpRelay};
pub use transport::Transport;

/// Environment variable with the SMTP user when the URL has none.
pub const ENV_SMTP_USER: &str = "PBEM_SMTP_USER";
/// Environment variable with the SMTP password when the URL has none.
pub const ENV_SMTP_PASSWORD: &str = "PBEM_SMTP_PASSWORD";

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
