//! Game help for mail: a short rules summary per game (welcome mails) and its notation guide (`HELP <game>`), as each game states them in its `GameFacts`.

use crate::games::GameKind;

/// A few lines on how the game is played and written, for the welcome mail.
pub fn summary(kind: GameKind) -> &'static str {
    kind.facts().summary
}

/// The game's notation guide (`notation/<game>.md`), mailed for `HELP <game>`.
pub fn notation(kind: GameKind) -> &'static str {
    kind.facts().guide
}
