//! Mail in and out: parsing received mail, reading it from a pipe, a Maildir or IMAP, and sending replies.

pub mod imap;
pub mod inbound;
pub mod intake;
pub mod outbound;
pub mod spool;
pub mod verp;

/// A mail address as pbem keeps it (lower case, trimmed), if it is one a mail can be sent to:
/// `None` otherwise. Both of lettre's readings must take it whole, since a mail's headers are
/// built with its mailbox parser (`outbound::mailbox`): an address only the bare parser takes
/// (`"<img>"@example.org`) would be seated, and then no mail to it would ever build.
pub fn address(text: &str) -> Option<String> {
    let a = text.trim().to_ascii_lowercase();
    let bare = a.parse::<lettre::Address>().ok()?;
    let mailbox = a.parse::<lettre::message::Mailbox>().ok()?;
    (mailbox.name.is_none() && mailbox.email == bare).then_some(a)
}
