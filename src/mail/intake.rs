//! Reads one incoming mail from a pipe or a file without ever holding more than the size limit in memory (an I/O edge).

use std::io::{self, Read};

use super::inbound::oversize_stub;

/// Reads a whole mail, but at most `max` bytes of it into memory: a larger mail is read to its
/// end (so the MTA's pipe is drained and it sees success) and comes back as its headers with
/// the real size (`inbound::oversize_stub`), to be refused without storing the body.
pub fn read_bounded(reader: &mut impl Read, max: usize) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(max.min(64 * 1024));
    reader
        .by_ref()
        .take(max as u64 + 1)
        .read_to_end(&mut head)?;
    if head.len() <= max {
        return Ok(head);
    }
    let rest = io::copy(reader, &mut io::sink())?;
    Ok(oversize_stub(&head, head.len() as u64 + rest))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mail_within_the_limit_is_read_whole() {
        let mail = b"From: a@b\r\n\r\nhello\r\n".to_vec();
        assert_eq!(read_bounded(&mut &mail[..], 1000).unwrap(), mail);
    }

    #[test]
    fn a_larger_mail_keeps_only_its_headers_and_its_size() {
        let mut mail = b"From: a@b\r\nSubject: big\r\n\r\n".to_vec();
        mail.extend(std::iter::repeat_n(b'x', 100_000));
        let kept = read_bounded(&mut &mail[..], 4096).unwrap();
        let text = String::from_utf8(kept).unwrap();
        assert!(text.starts_with("From: a@b\r\nSubject: big\r\n"), "{text}");
        assert!(
            text.contains(&format!("X-Pbem-Oversize: {}\r\n", mail.len())),
            "{text}"
        );
        assert!(!text.contains("xxx"));
        let inb = crate::mail::inbound::parse(text.as_bytes());
        assert_eq!(inb.size, mail.len());
        assert_eq!(inb.subject, "big");
    }
}
