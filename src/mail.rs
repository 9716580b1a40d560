//! Mail in and out: parsing received mail, reading it from a pipe, a Maildir or IMAP, and sending replies.

pub mod imap;
pub mod inbound;
pub mod intake;
pub mod outbound;
