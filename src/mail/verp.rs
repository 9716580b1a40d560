//! The bounce address of one outgoing mail (VERP): `local+bounce-ID-MAC@domain` as its envelope sender, so that a delivery report names the very outbox row, and a MAC so that a stranger cannot name one.

use hmac::{Hmac, Mac};
use sha2::Sha256;

/// What marks a bounce address's local part after the `+`.
const TAG: &str = "bounce-";
/// Hex digits of the MAC kept: 48 bits, beyond guessing by mail.
const MAC_HEX: usize = 12;

/// The MAC of outbox row `row` under `key`, as lowercase hex (MTAs may fold case).
fn mac(key: &[u8], row: i64) -> String {
    mac_of(key, &format!("{TAG}{row}"))
}

/// The MAC of `text` under `key`, its first `MAC_HEX` hex digits.
fn mac_of(key: &[u8], text: &str) -> String {
    let mut m = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes a key of any length");
    m.update(text.as_bytes());
    let mut hex = hex::encode(m.finalize().into_bytes());
    hex.truncate(MAC_HEX);
    hex
}

/// The part of a mail's Message-ID a stranger cannot guess (the MAC of its sequence number
/// and time under `key`): a bounce that reaches the plain address is tied by the id it
/// quotes, and a player who sees the id of their own mail must not be able to write the
/// id of the mail queued beside it to their opponent.
pub fn id_tag(key: &[u8], seq: i64, millis: i64) -> String {
    mac_of(key, &format!("id-{seq}-{millis}"))
}

/// The envelope sender for outbox row `row`: `local+bounce-ROW-MAC@domain`.
pub fn address(local: &str, domain: &str, key: &[u8], row: i64) -> String {
    format!("{local}+{TAG}{row}-{}@{domain}", mac(key, row))
}

/// The outbox row a bounce address names, when it is one of ours (`local` and `domain` as
/// the GM address has them, any case) and its MAC is right; `None` for any other address.
pub fn row_of(local: &str, domain: &str, key: &[u8], addr: &str) -> Option<i64> {
    let (l, d) = addr.trim().rsplit_once('@')?;
    if !d.eq_ignore_ascii_case(domain) {
        return None;
    }
    let (base, tail) = l.split_once('+')?;
    if !base.eq_ignore_ascii_case(local) {
        return None;
    }
    let tail = tail.to_ascii_lowercase();
    let (row, given) = tail.strip_prefix(TAG)?.split_once('-')?;
    let row: i64 = row.parse().ok().filter(|r| *r > 0)?;
    // Compared whole: a MAC's length or any digit wrong is a stranger's address.
    (given == mac(key, row)).then_some(row)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const KEY: &[u8] = b"0123456789abcdef0123456789abcdef";

    #[test]
    fn an_address_names_its_row_in_any_case() {
        let a = address("gm", "pbem.example", KEY, 42);
        assert!(
            a.starts_with("gm+bounce-42-") && a.ends_with("@pbem.example"),
            "{a}"
        );
        assert_eq!(row_of("gm", "pbem.example", KEY, &a), Some(42));
        assert_eq!(
            row_of("GM", "PBEM.example", KEY, &a.to_uppercase()),
            Some(42)
        );
    }

    #[test]
    fn a_stranger_cannot_name_a_row() {
        let a = address("gm", "pbem.example", KEY, 42);
        let other = a.replace("bounce-42-", "bounce-43-");
        assert_eq!(row_of("gm", "pbem.example", KEY, &other), None);
        assert_eq!(row_of("gm", "pbem.example", b"another key", &a), None);
        assert_eq!(row_of("gm", "elsewhere.example", KEY, &a), None);
        assert_eq!(
            row_of("gm", "pbem.example", KEY, "gm+abcdef@pbem.example"),
            None
        );
        assert_eq!(row_of("gm", "pbem.example", KEY, "gm@pbem.example"), None);
        let short = &a[..a.find('@').unwrap() - 1];
        assert_eq!(
            row_of("gm", "pbem.example", KEY, &format!("{short}@pbem.example")),
            None
        );
    }

    proptest! {
        #[test]
        fn any_text_is_read_without_panic(s in "\\PC{0,80}") {
            let _ = row_of("gm", "pbem.example", KEY, &s);
        }

        #[test]
        fn every_row_round_trips(row in 1i64..i64::MAX) {
            let a = address("gm", "pbem.example", KEY, row);
            prop_assert_eq!(row_of("gm", "pbem.example", KEY, &a), Some(row));
        }
    }
}
