//! Game help for mail: a short rules summary per game (welcome mails) and its player's guide (`HELP <game>`, `HELP RULES`), as each game states them in its `GameFacts`.

use crate::games::GameKind;

/// A few lines on how the game is played and written, for the welcome mail.
pub fn summary(kind: GameKind) -> &'static str {
    kind.facts().summary
}

/// The game's player's guide (`help/<game>.md`), mailed for `HELP <game>` and `HELP RULES`.
pub fn guide(kind: GameKind) -> &'static str {
    kind.facts().player_guide
}
