//! Game help for mail: a short rules summary per game (welcome mails) and its notation guide (`HELP <game>`).

use crate::games::GameKind;

/// A few lines on how the game is played and written, for the welcome mail.
pub fn summary(kind: GameKind) -> &'static str {
    match kind {
        GameKind::DiceRink => {
            "Dice Rink: two players, two dice each on a 4x4 board. A places on rank 1,\n\
             B on rank 4 (square top/front, e.g. `b1 5/4`); the four tops show four\n\
             different values (low 1-2, high 4-5, 3, 6). Each turn roll one die over an\n\
             edge (`5W6`: the die showing 5 rolls west and shows 6). Your two dice never\n\
             show the same value; matching an opponent's value forces them to move that\n\
             die. Win with both dice on the opponent's home rank."
        }
        GameKind::D4D6 => {
            "d4 d6 chess: declare a piece (and the Gata's die); the GM rolls a d4 or d6\n\
             and the piece moves exactly that many steps if it can (fallbacks\n\
             otherwise). You may send outcomes for each roll in advance."
        }
        GameKind::DipTacToe => {
            "Dip-Tac-Toe: four players on a 4x4x4 cube give one order a turn (place,\n\
             move, or support another player), adjudicated together as in Diplomacy.\n\
             Claim VICTORY with your orders when you hold four in a line."
        }
    }
}

/// The game's notation guide (`notation/<game>.md`), mailed for `HELP <game>`.
pub fn notation(kind: GameKind) -> &'static str {
    match kind {
        GameKind::DiceRink => include_str!("../notation/dicerink.md"),
        GameKind::DipTacToe => include_str!("../notation/diptactoe.md"),
        GameKind::D4D6 => include_str!("../notation/d4d6.md"),
    }
}
