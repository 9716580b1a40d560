//! The same text from the same address is answered at most once a day: what ends auto-reply loops whatever their headers claim (a vacation reply without `Auto-Submitted` got 61 answers in 4 s).
//!
//! What "the same text" is, and what it must not catch:
//!
//! - The text is what the sender wrote (`orders::player_lines`: quotes and signatures gone),
//!   each line's white space collapsed, case and typographic quotes folded. The subject and
//!   the Message-ID are not part of it: a robot changes those on every mail.
//! - A mail that changed something is always answered, identical or not: a move played,
//!   orders recorded (orders A, then B, then A again must record A and say so), a state
//!   changing command run (RESIGN, DRAW, SALT, PRESS, NEW, ...). Only a mail that changed
//!   nothing can go unanswered: its answer would say again what the first one said.
//! - The same text against another state is another question: the key holds the game the
//!   mail was for, its number of plies and its status. A move refused ("not your turn") and
//!   sent again once the position changed is read against the new position and answered
//!   (played, or refused for today's reason); it never vanishes. A second identical STATUS
//!   while nothing moved is not answered: the first answer still says it all. A real
//!   player loses only that.
//! - An address that sends the same text `ROBOT_REPEATS` times in a day, asking for nothing
//!   (no STATUS, BOARD, HELP ... in it: a vacation notice's prose), is taken for a robot:
//!   that text, while it changes nothing, is not answered for the rest of the day, whatever
//!   the position (a player's auto-reply to each turn report would otherwise be answered
//!   once per move). A player who asks for the board after each move of a brisk game is
//!   answered each time the position changed; mail that plays is answered as ever.
//!
//! The marks live in `throttle` (pruned after a day), keyed by a hash: no text is kept.

use chrono::Duration;
use sha2::{Digest, Sha256};

use super::session::Session;
use crate::compose::Ctx;
use crate::gamelog;
use crate::store::Tx;

/// Mails of the same text from one address in a day (at any positions) that make it a robot.
const ROBOT_REPEATS: i64 = 4;

/// A hash of a mail's text as compared: never the text itself.
pub(super) struct Fingerprint(String);

impl Fingerprint {
    /// The sender's lines (all of them, past the limit of lines read too), normalised.
    pub(super) fn of(lines: &[String]) -> Fingerprint {
        let mut h = Sha256::new();
        for line in lines {
            let folded: String = line
                .chars()
                .map(|c| match c {
                    '\u{2018}' | '\u{2019}' | '`' => '\'',
                    '\u{201c}' | '\u{201d}' | '\u{00ab}' | '\u{00bb}' => '"',
                    c => c,
                })
                .flat_map(char::to_lowercase)
                .collect();
            let words: Vec<&str> = folded.split_whitespace().collect();
            if !words.is_empty() {
                h.update(words.join(" ").as_bytes());
                h.update(b"\n");
            }
        }
        Fingerprint(hex::encode(&h.finalize()[..16]))
    }
}

/// The state a mail's answer depends on: the game it was for (its plies and status), or
/// the game its subject names.
fn state(tx: &Tx, s: &Session) -> anyhow::Result<String> {
    Ok(match s.current {
        Some((game, seat)) => {
            let g = gamelog::load(tx, game)?;
            format!("{game}.{seat}:{}:{}", g.moves.len(), g.row.status)
        }
        None => format!("-:{:?}", s.subject_game),
    })
}

/// What marks a mail's answer, so that its repeats within a day are not answered.
pub(super) struct Mark(String);

impl Mark {
    pub(super) fn note(self, tx: &Tx, ctx: &Ctx, from: &str) -> anyhow::Result<()> {
        tx.note_throttle(from, &self.0, ctx.now)
    }
}

/// A mail that changed nothing: counted, then either why it is not answered (`Err`) or the
/// mark to note once it is.
pub(super) fn check(
    tx: &Tx,
    ctx: &Ctx,
    from: &str,
    text: &Fingerprint,
    s: &Session,
    asks: bool,
) -> anyhow::Result<Result<Mark, String>> {
    let day_ago = ctx.now - Duration::days(1);
    let same = format!("same_text:{}", text.0);
    tx.note_throttle(from, &same, ctx.now)?;
    let n = tx.throttle_count(from, &same, day_ago)?;
    if !asks && n >= ROBOT_REPEATS {
        return Ok(Err(format!(
            "repeat: the same text came {n} times from this address within a day and changed \
             nothing: taken for an automatic reply, not answered"
        )));
    }
    let mark = Mark(format!("answered:{}:{}", text.0, state(tx, s)?));
    if tx.throttle_count(from, &mark.0, day_ago)? > 0 {
        return Ok(Err(
            "repeat: the same text from this address, about the same state of its game, was \
             answered within the day; not answered again"
                .into(),
        ));
    }
    Ok(Ok(mark))
}
