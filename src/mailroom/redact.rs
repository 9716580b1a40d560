//! What of a mail is kept and read: the stored copy without its password lines, and the lines the player wrote.

use super::repeats;
use crate::mail::inbound::Inbound;
use crate::{commands, orders};

/// What is kept of a mail that held a password: its addresses, subject and ids, and its text
/// with every password line blanked (transfer encodings, HTML and attachments dropped).
pub(super) fn redacted(inb: &Inbound) -> Vec<u8> {
    let mut out = String::new();
    let mut header = |name: &str, value: Option<&str>| {
        if let Some(v) = value.filter(|v| !v.is_empty()) {
            let v: String = v.chars().filter(|c| !c.is_control()).collect();
            out.push_str(&format!("{name}: {v}\r\n"));
        }
    };
    header("From", inb.from.as_deref());
    header("To", Some(&inb.to.join(", ")));
    header("Cc", Some(&inb.cc.join(", ")));
    header("Subject", Some(&inb.subject));
    header(
        "Message-ID",
        inb.message_id.as_ref().map(|m| format!("<{m}>")).as_deref(),
    );
    let date = inb.date.map(|d| d.to_rfc2822());
    header("Date", date.as_deref());
    out.push_str("MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n");
    out.push_str("X-Pbem-Redacted: password lines removed\r\n\r\n");
    for line in inb.body.lines() {
        if commands::password_attempt(line).is_some() {
            out.push_str("PASSWORD (removed)\r\n");
        } else {
            out.push_str(line);
            out.push_str("\r\n");
        }
    }
    out.into_bytes()
}

/// The lines the player wrote, at most `max` of them, how many more there were, and the
/// fingerprint of all of them.
pub(super) fn read_lines(inb: &Inbound, max: usize) -> (Vec<String>, usize, repeats::Fingerprint) {
    let mut lines = orders::player_lines(&inb.body);
    let text = repeats::Fingerprint::of(&lines);
    let unread = lines.len().saturating_sub(max);
    lines.truncate(max);
    (lines, unread, text)
}
