//! Tests: a queued mail's bytes stored without the part it shares with other mails read back whole, whatever the bytes.

use chrono::{TimeZone, Utc};
use proptest::prelude::*;

use crate::store::{HtmlPart, OutboxRow, Store};

/// A mail waiting for its board's picture, queued in `store`; its id.
fn waiting(store: &mut Store, to: &str) -> i64 {
    let now = Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap();
    let row = OutboxRow {
        kind: "reply".into(),
        message_id: format!("<{to}>"),
        to_addr: to.into(),
        html: HtmlPart::Board { game: 1, plies: 0 },
        ..Default::default()
    };
    store.tx(|tx| tx.enqueue(&row, now)).unwrap()
}

proptest! {
    /// Any bytes, any part (NULs and bytes no UTF-8 text has among them) put back at any
    /// offset: each mail sharing the part reads back as its bytes with the part there, as
    /// the sender reads it (`outbox_due`) and as the GM does (`outbox_raw`).
    #[test]
    fn bytes_stored_without_their_shared_part_read_back_whole(
        mails in prop::collection::vec((prop::collection::vec(any::<u8>(), 0..200), any::<prop::sample::Index>()), 1..4),
        part in prop::collection::vec(any::<u8>(), 1..300),
    ) {
        let mut store = Store::memory().unwrap();
        let ids: Vec<i64> = (0..mails.len()).map(|i| waiting(&mut store, &format!("p{i}@example.org"))).collect();
        let part_id = store.tx(|tx| tx.keep_part(&part)).unwrap();
        let mut whole = Vec::new();
        for (&id, (raw, at)) in ids.iter().zip(&mails) {
            let at = at.index(raw.len() + 1);
            store.tx(|tx| tx.illustrated_spliced(id, raw, part_id, at)).unwrap();
            whole.push([&raw[..at], &part[..], &raw[at..]].concat());
        }
        for (&id, whole) in ids.iter().zip(&whole) {
            let read = store.read(|tx| tx.outbox_raw(id)).unwrap();
            prop_assert_eq!(read.as_ref(), Some(whole));
        }
        let far = Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap();
        let due = store.read(|tx| tx.outbox_due(far, 10)).unwrap();
        let due: Vec<_> = due.into_iter().map(|r| r.raw.unwrap()).collect();
        prop_assert_eq!(due, whole);
    }
}
