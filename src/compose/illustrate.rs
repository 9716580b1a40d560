//! The one step that adds HTML parts, after the commit that queued their mails: for each mail by the `HtmlPart` it waits for, each position's board drawn once as a picture and the mail's bytes made again with its HTML part (its text unchanged), the picture's part stored once for every mail that shows it, so that no inbound mail's transaction ever waits for a drawing.

use std::collections::HashMap;

use super::{html, outgoing};
use crate::config::Config;
use crate::gamelog;
use crate::games::AnyGame;
use crate::mail::outbound::Picture;
use crate::store::{BoardPicture, HtmlPart, MoveRow, OutboxRow, Store, Tx};

mod shared_part;
use shared_part::{parts_of, without_part, Parts, Shared};

/// A position's board: its texts (shown alone, and beside a report that told the last ply:
/// the mail's text carries one of them) and its picture; `None` when it cannot be drawn.
type Board = Option<BoardPicture>;

/// The positions this run knows, by (game, plies), and those it drew, to keep in the store.
#[derive(Default)]
struct Boards {
    known: HashMap<(i64, usize), Board>,
    drawn: Vec<(i64, usize, Option<MoveRow>, BoardPicture)>,
}

/// How many waiting mails the first batch of a run takes (one transaction marks them
/// illustrated): few, so that the first replies of a burst go soon; each batch after takes
/// twice as many as the one before, up to `MOST`, so that a long burst pays a send round's
/// file writes and syncs (or a server's round trips) for more mails at a time (200 a batch
/// sent a burst about a tenth faster than 100: `pbem bench ingest`; 400 no faster, and each
/// of its mails waited longer for its batch).
const FIRST: i64 = 50;
const MOST: i64 = 200;

/// Gives every waiting mail its HTML part; returns how many (`run_each`, nothing done
/// between batches).
pub fn run(store: &mut Store, cfg: &Config) -> anyhow::Result<usize> {
    run_each(store, cfg, &mut |_| {})
}

/// Gives every waiting mail its HTML part; returns how many. A mail whose picture cannot
/// be made goes as text (logged): the HTML is a courtesy, never a reason to hold a mail.
///
/// A batch at a time: while this thread stores one batch's mails and hands them to
/// `stored` (the sender sends them: file writes, syncs, a server's answers), the next batch's
/// positions are drawn and its mails made (their HTML, the picture in base64, the MIME) on
/// the other cores, so the drawing and the making never wait for the writing and sending
/// (the next batch is read after this one's pictures are known, so no position is drawn
/// twice).
pub fn run_each(
    store: &mut Store,
    cfg: &Config,
    stored: &mut dyn FnMut(&mut Store),
) -> anyhow::Result<usize> {
    let mut done = 0;
    let mut boards = Boards::default();
    std::thread::scope(|scope| {
        let mut size = FIRST;
        let first = read_batch(store, &mut boards, 0, size)?;
        let mut working = start(scope, cfg, first, &boards);
        loop {
            let batch = working.join()?;
            if batch.rows.is_empty() {
                return Ok(done);
            }
            boards.learn(batch.positions, batch.pictures);
            let last = batch.rows.last().map_or(0, |r| r.id);
            size = (size * 2).min(MOST);
            let next = read_batch(store, &mut boards, last, size)?;
            working = start(scope, cfg, next, &boards);
            done += store_made(store, &mut boards, &batch.rows, batch.made, &batch.parts)?;
            stored(store);
        }
    })
}

/// At most `size` waiting mails after the one numbered `after`, and the positions they show
/// that are still to be drawn.
struct Batch {
    rows: Vec<OutboxRow>,
    positions: Vec<Position>,
}

fn read_batch(
    store: &mut Store,
    boards: &mut Boards,
    after: i64,
    size: i64,
) -> anyhow::Result<Batch> {
    let rows = store.read(|tx| tx.outbox_to_illustrate(after, size))?;
    let positions = positions_to_draw(store, boards, &rows);
    Ok(Batch { rows, positions })
}

/// A batch drawn and made: its mails, the positions drawn and their boards, each mail made.
struct Worked {
    rows: Vec<OutboxRow>,
    positions: Vec<Position>,
    pictures: Vec<Option<BoardPicture>>,
    made: Vec<Made>,
    parts: Parts,
}

/// A batch's work: under way on a thread of its own, or done (nothing to draw: no thread
/// started for it, as for a lone move's empty second batch or mails without a board).
enum Working<'scope> {
    Started(std::thread::ScopedJoinHandle<'scope, Worked>),
    Done(Box<Worked>),
}

impl Working<'_> {
    fn join(self) -> anyhow::Result<Worked> {
        match self {
            Working::Started(h) => h
                .join()
                .map_err(|_| anyhow::anyhow!("a drawing thread panicked")),
            Working::Done(w) => Ok(*w),
        }
    }
}

/// Draws a batch's positions and makes its mails, on a thread of its own (and that one on
/// every core) when there is something to draw; with the boards already known that its
/// mails show.
fn start<'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    cfg: &'scope Config,
    batch: Batch,
    boards: &Boards,
) -> Working<'scope> {
    let known: Known = batch
        .rows
        .iter()
        .filter_map(|row| match row.html {
            HtmlPart::Board { game, plies } => Some((game, plies)),
            _ => None,
        })
        .filter_map(|k| boards.known.get(&k).map(|b| (k, b.clone())))
        .collect();
    if batch.positions.is_empty() {
        return Working::Done(Box::new(work(cfg, batch, known)));
    }
    #[cfg(test)]
    DRAWN.with(|d| d.set(d.get() + batch.positions.len()));
    Working::Started(scope.spawn(move || work(cfg, batch, known)))
}

/// Boards by (game, plies).
type Known = HashMap<(i64, usize), Board>;

/// A batch's positions drawn and its mails made.
fn work(cfg: &Config, batch: Batch, mut known: Known) -> Worked {
    let pictures = match batch.positions.is_empty() {
        true => Vec::new(),
        false => draw_all(&batch.positions),
    };
    for ((game, plies, _, _), picture) in batch.positions.iter().zip(&pictures) {
        known.insert((*game, *plies), picture.clone());
    }
    let parts = parts_of(&known, &batch.rows);
    let made = make_all(cfg, &known, &parts, &batch.rows);
    Worked {
        rows: batch.rows,
        positions: batch.positions,
        pictures,
        made,
        parts,
    }
}

/// Makes each of `rows` with its HTML part (`one`), on every core too: making one (its
/// HTML, the picture in base64, the MIME) is pure work on its row and its board.
fn make_all(cfg: &Config, known: &Known, parts: &Parts, rows: &[OutboxRow]) -> Vec<Made> {
    on_every_core(rows, |row| {
        // A mail that fails to be made (a panic) must not hold every mail after it: it
        // goes as text.
        crate::unwind::catch(|| Ok(one(cfg, known, parts, row))).unwrap_or_else(|e| {
            tracing::warn!(id = row.id, error = %e, "the HTML part failed: text only");
            Made::Failed
        })
    })
}

/// Stores each of `rows` as made, with the pictures drawn since the last batch and the
/// parts its mails share (`parts`, each stored once), in one transaction; how many.
fn store_made(
    store: &mut Store,
    boards: &mut Boards,
    rows: &[OutboxRow],
    made: Vec<Made>,
    parts: &Parts,
) -> anyhow::Result<usize> {
    let drawn = std::mem::take(&mut boards.drawn);
    let count = made.len();
    store.tx_lazy(|tx| {
        // Kept in the transaction that marks its mails illustrated: another process's pass
        // finds the picture as soon as it finds them done.
        for (game, plies, last, picture) in &drawn {
            tx.keep_picture(*game, *plies, last.as_ref(), picture)?;
        }
        let mut shared = Shared::new(parts);
        for (row, done) in rows.iter().zip(made) {
            store_one(tx, row, done, &mut shared)?;
        }
        Ok(())
    })?;
    Ok(count)
}

/// Stores one waiting mail as made: with its HTML part (the part it shares with other
/// mails stored once), or as its text alone (the GM's log says so when the part was too
/// large), or failed with the reason when not even its text can be built (a mail that waits
/// for its part was queued without bytes).
fn store_one(tx: &Tx, row: &OutboxRow, done: Made, shared: &mut Shared) -> anyhow::Result<()> {
    let date = row.created_at.unwrap_or_default();
    if let Made::TooLarge(size) = done {
        tx.log_event(
            row.game_id,
            date,
            &format!(
                "a {} mail to {} goes as text only: its HTML part has {size} bytes",
                row.kind, row.to_addr
            ),
        )?;
    }
    let built = match done {
        Made::Spliced { raw, at, part } => match shared.id(tx, part)? {
            Some(id) => return tx.illustrated_spliced(row.id, &raw, id, at),
            // Not in this batch's parts (it always is): the text goes alone.
            None => outgoing::bytes(row, date, None),
        },
        Made::Bytes(raw) => Ok(raw),
        Made::Failed | Made::TooLarge(_) => outgoing::bytes(row, date, None),
    };
    match built {
        Ok(raw) => tx.illustrated(row.id, Some(&raw)),
        Err(e) => {
            let why = outgoing::unbuildable(tx, row, date, &e)?;
            tx.illustrated(row.id, None)?;
            tx.mark_attempt_failed(row.id, &why, None)
        }
    }
}

/// What became of one waiting mail's HTML part.
enum Made {
    /// The mail's bytes with it.
    Bytes(Vec<u8>),
    /// The mail's bytes with it, but for the picture's part that other mails of the batch
    /// share (`Parts`, by its position), which goes back at offset `at`.
    Spliced {
        raw: Vec<u8>,
        at: usize,
        part: (i64, usize),
    },
    /// Larger than `max_reply_bytes` with its pictures (its size): the text goes alone.
    TooLarge(usize),
    /// It could not be made: the text goes alone.
    Failed,
}

/// One waiting mail with its HTML part (its position drawn once for all the mails showing it).
fn one(cfg: &Config, known: &Known, parts: &Parts, row: &OutboxRow) -> Made {
    let board = match row.html {
        HtmlPart::Board { game, plies } => known.get(&(game, plies)).cloned().flatten(),
        HtmlPart::Words => None,
        // Nothing waits (a row read as it was given up): the text goes as it is.
        HtmlPart::None => return Made::Failed,
    };
    without_part(with_html(row, board, cfg), row.html, parts)
}

#[cfg(test)]
thread_local! {
    /// How many boards this thread has drawn (the tests count draws).
    static DRAWN: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// The positions these mails show that are neither known to this run nor kept in the
/// store, each once, read from the store on this thread: only the drawing, pure work on a
/// position, goes to the others. A kept picture, or a position that cannot be read (its mail
/// goes as text), becomes known now.
fn positions_to_draw(store: &mut Store, boards: &mut Boards, rows: &[OutboxRow]) -> Vec<Position> {
    let mut wanted: Vec<(i64, usize)> = Vec::new();
    for row in rows {
        if let HtmlPart::Board { game, plies } = row.html {
            if !boards.known.contains_key(&(game, plies)) && !wanted.contains(&(game, plies)) {
                wanted.push((game, plies));
            }
        }
    }
    let mut positions = Vec::new();
    for (game, plies) in wanted {
        let kept = store
            .read(|tx| tx.picture(game, plies))
            .map_err(|e| tracing::warn!(game, error = %format!("{e:#}"), "no picture read"))
            .ok()
            .flatten();
        if let Some(picture) = kept {
            boards.known.insert((game, plies), Some(picture));
            continue;
        }
        match store.read(|tx| gamelog::position_at(tx, game, plies)) {
            Ok((position, last)) => positions.push((game, plies, position, last)),
            Err(e) => {
                tracing::warn!(game, error = %format!("{e:#}"), "no board to draw");
                boards.known.insert((game, plies), None);
            }
        }
    }
    positions
}

impl Boards {
    /// Each drawn position's board (`None`: it could not be drawn, its mails go as text),
    /// known from now on, and the drawn ones to keep in the store.
    fn learn(&mut self, positions: Vec<Position>, pictures: Vec<Option<BoardPicture>>) {
        for ((game, plies, _, last), picture) in positions.into_iter().zip(pictures) {
            if let Some(picture) = &picture {
                self.drawn.push((game, plies, last, picture.clone()));
            }
            self.known.insert((game, plies), picture);
        }
    }
}

/// A position to draw: its game, its count of plies, the position and the last ply it shows.
type Position = (i64, usize, AnyGame, Option<MoveRow>);

/// Each position's board, drawn on as many threads as there are cores (and positions), in
/// the order given; `None` where the drawing failed or panicked (that mail goes as text).
fn draw_all(positions: &[Position]) -> Vec<Option<BoardPicture>> {
    on_every_core(positions, draw)
}

/// How many cores this process may use, asked once: the standard library reads the
/// cgroup's files each time it is asked, a dozen system calls for every batch of mail.
fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

/// `work` on each item, on as many threads as there are cores (and items), this one among
/// them, the results in the order given. Each thread takes the next item no thread has
/// taken, so one slow item (a fixed layer drawn anew) leaves no core idle while the others
/// wait for it. `work` must not panic (both its callers catch inside it); if it did, the
/// panic would reach the caller.
fn on_every_core<T: Sync, R: Send>(items: &[T], work: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = cores().min(items.len());
    if threads <= 1 {
        return items.iter().map(&work).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let take = || {
        let mut mine = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some(item) = items.get(i) else {
                return mine;
            };
            mine.push((i, work(item)));
        }
    };
    let mut all: Vec<(usize, R)> = std::thread::scope(|scope| {
        let others: Vec<_> = (1..threads).map(|_| scope.spawn(take)).collect();
        let mut all = take();
        for other in others {
            all.extend(
                other
                    .join()
                    .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            );
        }
        all
    });
    all.sort_unstable_by_key(|(i, _)| *i);
    all.into_iter().map(|(_, r)| r).collect()
}

/// One position's board as text and as a PNG; `None` when it cannot be drawn (logged). A
/// drawing that panics must not hold this mail, nor every mail after it: it is caught here.
fn draw((id, _, game, _): &Position) -> Option<BoardPicture> {
    let drawn = crate::unwind::catch(|| {
        // `PBEM_FAULT=picture:panic:<game>`: the isolation test's failing drawing.
        if crate::fault::keyed("picture:panic") == Some(id.to_string().as_str()) {
            panic!("fault injected: picture:panic in game {id}");
        }
        Ok(crate::picture::board_png(game)?)
    });
    match drawn {
        Ok(png) => {
            let texts = [game.board(), game.board_beside_report()];
            Some(BoardPicture { texts, png })
        }
        Err(e) => {
            tracing::warn!(game = id, error = %format!("{e:#}"), "the board picture failed: text only");
            None
        }
    }
}

/// The mail's bytes made with its HTML part (and the board's picture, if any), dated as
/// when it was queued; when it cannot be built or would be too large, `store_one` makes it
/// as its text alone.
fn with_html(row: &OutboxRow, board: Board, cfg: &Config) -> Made {
    let (text, picture) = match board {
        Some(BoardPicture { texts, png }) => {
            let text = texts
                .into_iter()
                .rev()
                .find(|t| row.body.contains(t.trim_end()))
                .unwrap_or_default();
            let domain = cfg.address_parts().1;
            let picture = Picture {
                content_id: format!("board.{}.{}@{domain}", row.game_id.unwrap_or(0), row.id),
                mime: "image/png".into(),
                bytes: png,
            };
            (Some(text), Some(picture))
        }
        None => (None, None),
    };
    let part = html::letter(&row.body, text.as_deref(), picture);
    if part.len() > cfg.max_reply_bytes {
        return Made::TooLarge(part.len());
    }
    let date = row.created_at.unwrap_or_default();
    match outgoing::bytes(row, date, Some(part)) {
        Ok(raw) => Made::Bytes(raw),
        Err(e) => {
            tracing::warn!(id = row.id, error = %e, "the HTML part failed: text only");
            Made::Failed
        }
    }
}

#[cfg(test)]
mod drawn_once;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compose::{enqueue, Ctx, Limit};
    use crate::template::Templates;
    use chrono::{DateTime, TimeZone, Utc};

    /// The config (its GM at pbem.example), the templates, an empty store and the time each
    /// test starts from.
    fn fixture() -> (Config, Templates, Store, DateTime<Utc>) {
        let (mut cfg, _) = crate::config::load(None, &|_| None).unwrap();
        cfg.address = "gm@pbem.example".into();
        let now = Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap();
        (
            cfg,
            Templates::load(None).unwrap(),
            Store::memory().unwrap(),
            now,
        )
    }

    /// A reply to `to` that wants its words as HTML.
    fn words_to(to: &str) -> OutboxRow {
        OutboxRow {
            kind: "reply".into(),
            to_addr: to.into(),
            subject: "Re: [pbem] your mail".into(),
            body: "Thanks.\n".into(),
            html: HtmlPart::Words,
            ..Default::default()
        }
    }

    /// An HTML part larger than `max_reply_bytes` is left out: the text goes alone, and the
    /// GM's log says so.
    #[test]
    fn an_html_part_over_the_size_cap_is_dropped_and_the_text_goes() {
        let (mut cfg, templates, mut store, now) = fixture();
        cfg.max_reply_bytes = 1000;
        let ctx = Ctx::new(&cfg, &templates, now);
        let mail = OutboxRow {
            kind: "reply".into(),
            game_id: Some(12),
            to_addr: "alice@example.org".into(),
            subject: "Re: [pbem] your mail".into(),
            body: "x\n".repeat(400),
            html: HtmlPart::Words,
            ..Default::default()
        };
        store
            .tx(|tx| enqueue(tx, &ctx, mail, Limit::Applies))
            .unwrap();
        assert_eq!(run(&mut store, &cfg).unwrap(), 1);
        let due = store.read(|tx| tx.outbox_due(now, 10)).unwrap();
        let raw = String::from_utf8(due[0].raw.clone().unwrap()).unwrap();
        assert!(raw.contains("Content-Type: text/plain"), "{raw}");
        assert!(!raw.contains("text/html"), "{raw}");
        assert_eq!(due[0].html, HtmlPart::None);
        let events = store.read(|tx| tx.events(Some(12))).unwrap();
        assert!(
            events.iter().any(|(_, e)| e.contains("text only")),
            "{events:?}"
        );
    }

    /// A mail that waits for its HTML part is queued without bytes (none are made twice),
    /// and made whole once the part is; one whose part is given up before it was made gets
    /// its text alone from the sender's next round (`build_missing`).
    #[test]
    fn a_mail_waiting_for_its_part_is_queued_without_bytes_and_made_once() {
        let (cfg, templates, mut store, now) = fixture();
        let ctx = Ctx::new(&cfg, &templates, now);
        // Alice's mail is queued an hour after Bob's.
        let later = Ctx::new(&cfg, &templates, now + chrono::Duration::hours(1));
        let ids: Vec<i64> = [(&later, "alice@example.org"), (&ctx, "bob@example.org")]
            .iter()
            .map(|(ctx, to)| {
                store
                    .tx(|tx| {
                        enqueue(tx, ctx, words_to(to), Limit::Applies)?;
                        Ok(tx.outbox(None, 1)?[0].id)
                    })
                    .unwrap()
            })
            .collect();
        // The sender's round makes no text of a mail that waits for its part.
        assert_eq!(outgoing::build_missing(&mut store, later.now).unwrap(), 0);
        for &id in &ids {
            assert_eq!(store.read(|tx| tx.outbox_raw(id)).unwrap(), None);
        }
        // Bob's part is given up (the store failed for ten minutes, say): his text goes.
        store.tx(|tx| tx.give_up_html(now)).unwrap();
        assert_eq!(run(&mut store, &cfg).unwrap(), 1);
        let alice = store.read(|tx| tx.outbox_raw(ids[0])).unwrap().unwrap();
        assert!(String::from_utf8_lossy(&alice).contains("text/html"));
        assert_eq!(store.read(|tx| tx.outbox_raw(ids[1])).unwrap(), None);
        assert_eq!(outgoing::build_missing(&mut store, later.now).unwrap(), 0);
        let bob = store.read(|tx| tx.outbox_raw(ids[1])).unwrap().unwrap();
        let bob = String::from_utf8(bob).unwrap();
        assert!(
            bob.contains("Thanks.") && !bob.contains("text/html"),
            "{bob}"
        );
    }

    /// A waiting mail that cannot be built at all (a header no mail may carry) fails with
    /// the reason, and the game's log says so, as when it is queued.
    #[test]
    fn a_waiting_mail_that_cannot_be_built_fails_and_is_logged() {
        let (cfg, templates, mut store, now) = fixture();
        let ctx = Ctx::new(&cfg, &templates, now);
        let mail = OutboxRow {
            game_id: Some(7),
            ..words_to("not an address")
        };
        store
            .tx(|tx| enqueue(tx, &ctx, mail, Limit::Applies))
            .unwrap();
        run(&mut store, &cfg).unwrap();
        let row = store.read(|tx| tx.outbox(None, 1)).unwrap().remove(0);
        assert_eq!(row.status, crate::store::OutboxStatus::Failed);
        assert!(
            row.last_error
                .as_deref()
                .unwrap_or("")
                .contains("cannot build"),
            "{:?}",
            row.last_error
        );
        let events = store.read(|tx| tx.events(Some(7))).unwrap();
        assert!(
            events.iter().any(|(_, e)| e.contains("was not sent")),
            "{events:?}"
        );
    }

    /// A mail that wants its words as HTML gets them, and no picture.
    #[test]
    fn a_mail_that_wants_its_words_gets_html_without_a_picture() {
        let (cfg, templates, mut store, now) = fixture();
        let ctx = Ctx::new(&cfg, &templates, now);
        let mail = words_to("alice@example.org");
        store
            .tx(|tx| enqueue(tx, &ctx, mail, Limit::Applies))
            .unwrap();
        assert!(store.read(|tx| tx.outbox_due(now, 10)).unwrap().is_empty());
        run(&mut store, &cfg).unwrap();
        let due = store.read(|tx| tx.outbox_due(now, 10)).unwrap();
        let raw = String::from_utf8(due[0].raw.clone().unwrap()).unwrap();
        assert!(raw.contains("multipart/alternative"), "{raw}");
        assert!(raw.contains("text/html"), "{raw}");
        assert!(!raw.contains("image/png"), "{raw}");
    }
}
