//! The part the mails showing one position share (its picture, in base64 as each mail carries it): found in each mail's bytes, taken out, and stored once for them all.

use std::collections::HashMap;

use super::{Known, Made};
use crate::store::{HtmlPart, OutboxRow, Tx};

/// What the mails of a batch showing one position carry the same, by (game, plies): the
/// picture's part as each mail has it (lettre's base64), stored once (`store_made`).
pub(super) type Parts = HashMap<(i64, usize), Vec<u8>>;

/// The part of each position these mails show that has a picture.
pub(super) fn parts_of(known: &Known, rows: &[OutboxRow]) -> Parts {
    let mut parts = Parts::new();
    for row in rows {
        let HtmlPart::Board { game, plies } = row.html else {
            continue;
        };
        let Some(Some(board)) = known.get(&(game, plies)) else {
            continue;
        };
        if parts.contains_key(&(game, plies)) {
            continue;
        }
        let mut text =
            String::with_capacity(email_encoding::body::base64::encoded_len(board.png.len()));
        // Writing into a String does not fail; if it did, the mails keep their part.
        if email_encoding::body::base64::encode(&board.png, &mut text).is_ok() {
            parts.insert((game, plies), text.into_bytes());
        }
    }
    parts
}

/// The parts a batch's mails share (`Parts`), and the id each was stored under so far.
pub(super) struct Shared<'a> {
    parts: &'a Parts,
    kept: HashMap<(i64, usize), i64>,
}

impl<'a> Shared<'a> {
    /// None of `parts` stored yet.
    pub(super) fn new(parts: &'a Parts) -> Shared<'a> {
        Shared {
            parts,
            kept: HashMap::new(),
        }
    }

    /// The stored id of a position's part, stored now if it is not yet; `None` if this
    /// batch has no such part.
    pub(super) fn id(&mut self, tx: &Tx, part: (i64, usize)) -> anyhow::Result<Option<i64>> {
        if let Some(&id) = self.kept.get(&part) {
            return Ok(Some(id));
        }
        let Some(bytes) = self.parts.get(&part) else {
            return Ok(None);
        };
        let id = tx.keep_part(bytes)?;
        self.kept.insert(part, id);
        Ok(Some(id))
    }
}

/// A mail's bytes made with a board's picture (`made`) without the part it shares with the
/// other mails showing that position, where the part is found in them (always, for a
/// picture lettre wrote: the same base64); any other mail as it was made.
pub(super) fn without_part(made: Made, html: HtmlPart, parts: &Parts) -> Made {
    let HtmlPart::Board { game, plies } = html else {
        return made;
    };
    let Made::Bytes(mut raw) = made else {
        return made;
    };
    let Some(bytes) = parts.get(&(game, plies)) else {
        return Made::Bytes(raw);
    };
    // Found by its first line, then compared whole: a search for all of it would first
    // study all of it (some tens of kilobytes) for every mail.
    let head = &bytes[..bytes.len().min(76)];
    let found = memchr::memmem::find_iter(&raw, head).find(|&at| raw[at..].starts_with(bytes));
    match found {
        Some(at) => {
            raw.drain(at..at + bytes.len());
            Made::Spliced {
                raw,
                at,
                part: (game, plies),
            }
        }
        None => Made::Bytes(raw),
    }
}
