//! HTML parts made after the commit that queued their mails: each position's board drawn once as a picture, each waiting mail rebuilt with its HTML part (its text unchanged), so that no inbound mail's transaction ever waits for a drawing.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::{finished, html};
use crate::config::Config;
use crate::gamelog::{self, Loaded};
use crate::games::AnyGame;
use crate::mail::outbound::Picture;
use crate::store::{OutboxRow, Store};

/// What a mail's HTML part shows: the board of a game after so many plies, or no board.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Wanted {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub game: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub plies: Option<usize>,
}

/// The HTML part of a mail about `g` as it stands (its board drawn), or of a mail about no
/// game (`None`: HTML without a picture).
pub fn wanted(g: Option<&Loaded>) -> Option<Wanted> {
    Some(match g {
        Some(g) => Wanted {
            game: Some(g.row.id),
            plies: Some(g.moves.len()),
        },
        None => Wanted::default(),
    })
}

/// A position's board: its text (as the mail's text carries it) and its picture.
type Board = Option<(String, Vec<u8>)>;

/// Gives every waiting mail its HTML part; returns how many. A mail whose picture cannot
/// be made goes as text (logged): the HTML is a courtesy, never a reason to hold a mail.
pub fn run(store: &mut Store, cfg: &Config) -> anyhow::Result<usize> {
    let mut done = 0;
    let mut boards: HashMap<(i64, usize), Board> = HashMap::new();
    loop {
        let rows = store.read(|tx| tx.outbox_to_illustrate(100))?;
        if rows.is_empty() {
            return Ok(done);
        }
        let mut made = Vec::with_capacity(rows.len());
        for row in &rows {
            // A drawing that panics must not hold this mail, nor every mail after it: the
            // mail goes as text.
            let raw = crate::unwind::catch(|| Ok(one(store, cfg, &mut boards, row)))
                .unwrap_or_else(|e| {
                    tracing::warn!(id = row.id, error = %e, "the HTML part failed: text only");
                    None
                });
            made.push((row.id, raw));
        }
        store.tx_lazy(|tx| {
            for (id, raw) in &made {
                tx.illustrated(*id, raw.as_deref())?;
            }
            Ok(())
        })?;
        done += made.len();
    }
}

/// One waiting mail with its HTML part (its position drawn once for all the mails showing it).
fn one(
    store: &mut Store,
    cfg: &Config,
    boards: &mut HashMap<(i64, usize), Board>,
    row: &OutboxRow,
) -> Option<Vec<u8>> {
    let want: Wanted = row
        .picture
        .as_deref()
        .and_then(|p| serde_json::from_str(p).ok())
        .unwrap_or_default();
    let board = match (want.game, want.plies) {
        (Some(game), Some(plies)) => boards
            .entry((game, plies))
            .or_insert_with(|| draw(store, game, plies))
            .clone(),
        _ => None,
    };
    with_html(row, board, cfg)
}

/// The board of game `id` after its first `plies` plies, as text and as a PNG.
fn draw(store: &mut Store, id: i64, plies: usize) -> Board {
    // `PBEM_FAULT=picture:panic:<game>`: the isolation test's failing drawing.
    if crate::fault::keyed("picture:panic") == Some(id.to_string().as_str()) {
        panic!("fault injected: picture:panic in game {id}");
    }
    let game = store
        .read(|tx| {
            let row = tx
                .game(id)?
                .ok_or_else(|| anyhow::anyhow!("no game {id}"))?;
            let moves = tx.moves(id)?;
            let start = gamelog::start_of(&row)?;
            let (game, _) = gamelog::replay(&start, &moves[..plies.min(moves.len())], id)?;
            Ok::<AnyGame, anyhow::Error>(game)
        })
        .map_err(|e| tracing::warn!(game = id, error = %format!("{e:#}"), "no board to draw"))
        .ok()?;
    match crate::picture::board_png(&game) {
        Ok(png) => Some((game.board(), png)),
        Err(e) => {
            tracing::warn!(game = id, error = %e, "the board picture failed: text only");
            None
        }
    }
}

/// The mail rebuilt with its HTML part (and the board's picture, if any); `None` when it
/// cannot be built or would be too large: the text-only mail stands.
fn with_html(row: &OutboxRow, board: Board, cfg: &Config) -> Option<Vec<u8>> {
    let (text, picture) = match board {
        Some((text, png)) => {
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
        return None;
    }
    let date = row.created_at.unwrap_or_default();
    finished(row, date, Some(part))
        .map_err(|e| tracing::warn!(id = row.id, error = %e, "the HTML part failed: text only"))
        .ok()
}
