//! A memo of replays: the positions recent games' logs led to, so that each mail about a game replays only the plies played since the last one.

use std::cell::RefCell;
use std::collections::VecDeque;

use crate::games::AnyGame;
use crate::store::{GameRow, MoveRow};

/// How many games the memo keeps (the most recently loaded). A daemon's batch touches at
/// most one game per mail; more games only means more full replays, never a wrong one.
const CAPACITY: usize = 256;

/// A replay: what it started from and the plies it played, and where that led.
#[derive(Clone)]
pub(super) struct Replayed {
    pub start: AnyGame,
    pub game: AnyGame,
    pub rolls: Vec<(u32, u32)>,
}

struct Entry {
    /// Everything the start position is made from.
    id: i64,
    kind: String,
    options: String,
    start_position: Option<String>,
    /// The plies replayed, as (actor, text).
    plies: Vec<(String, String)>,
    replayed: Replayed,
}

impl Entry {
    fn same_start(&self, row: &GameRow) -> bool {
        self.id == row.id
            && self.kind == row.kind
            && self.options == row.options
            && self.start_position == row.start_position
    }

    /// Whether the log begins with exactly the plies this entry replayed.
    fn is_prefix_of(&self, moves: &[MoveRow]) -> bool {
        self.plies.len() <= moves.len()
            && self
                .plies
                .iter()
                .zip(moves)
                .all(|((actor, text), m)| *actor == m.actor && *text == m.text)
    }
}

thread_local! {
    // Per thread, so it needs no lock; a replay is a pure function of the start and the
    // log, so an entry is valid for any store, transaction or rollback it meets again.
    static MEMO: RefCell<VecDeque<Entry>> = const { RefCell::new(VecDeque::new()) };
}

/// The replay of `moves` from the game's start: from the remembered replay when the log
/// extends it, from the start position otherwise.
pub(super) fn replay(row: &GameRow, moves: &[MoveRow]) -> anyhow::Result<Replayed> {
    let known = MEMO.with(|m| {
        let mut m = m.borrow_mut();
        let i = m.iter().position(|e| e.same_start(row))?;
        let e = m.remove(i)?;
        e.is_prefix_of(moves).then_some(e)
    });
    let (mut replayed, mut plies) = match known {
        Some(e) => (e.replayed, e.plies),
        None => {
            let start = super::start_of(row)?;
            let replayed = Replayed {
                game: start.clone(),
                start,
                rolls: Vec::new(),
            };
            (replayed, Vec::with_capacity(moves.len()))
        }
    };
    let new = &moves[plies.len()..];
    super::replay_onto(&mut replayed.game, &mut replayed.rolls, new, row.id)?;
    plies.extend(new.iter().map(|m| (m.actor.clone(), m.text.clone())));
    MEMO.with(|m| {
        let mut m = m.borrow_mut();
        if m.len() >= CAPACITY {
            m.pop_back();
        }
        m.push_front(Entry {
            id: row.id,
            kind: row.kind.clone(),
            options: row.options.clone(),
            start_position: row.start_position.clone(),
            plies,
            replayed: replayed.clone(),
        });
    });
    Ok(replayed)
}
