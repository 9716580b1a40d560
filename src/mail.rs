//! Mail in and out: parsing received mail, reading it from a pipe, a Maildir or IMAP, and sending replies.

pub mod imap;
pub mod inbound;
pub mod intake;
pub mod outbound;
pub mod spool;

/// A mail address as pbem keeps it (lower case, trimmed), if it is one (lettre's reading, the
/// same the sender will apply): `None` for anything a mail could not be sent to.
pub fn address(text: &str) -> Option<String> {
    let a = text.trim().to_ascii_lowercase();
    a.parse::<lettre::Address>().ok().map(|_| a)
}
