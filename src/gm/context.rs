//! The GM at work in one transaction: the store, the time, where the dice come from, and the herald that tells the players what an operation did.

use chrono::{DateTime, Utc};

use super::Played;
use crate::dice::DiceSource;
use crate::gamelog::Loaded;
use crate::store::Tx;

/// What a GM operation did that the players hear of. The operation tells its herald itself,
/// so no caller (mail, command line, clock) can forget to announce it.
pub enum News<'n> {
    /// Plies were played or the game changed (`played.reports` say how): every seat but
    /// `except` gets a turn report, or every seat the game-over mail once it ended. `except`
    /// is the seat whose own reply already says it (its mail's answer).
    Played {
        g: &'n Loaded,
        played: &'n Played,
        except: Option<usize>,
    },
    /// The game began: every seat gets its welcome.
    Began { g: &'n Loaded },
    /// These seats get a welcome (a player who takes over a seat).
    Welcome { g: &'n Loaded, seats: &'n [usize] },
    /// `seat`'s player was taken out of the game (`g` as it was, their seat still theirs).
    TakenOut {
        g: &'n Loaded,
        seat: usize,
        text: &'n str,
    },
    /// One line of news to these seats.
    Said {
        g: &'n Loaded,
        seats: &'n [usize],
        text: &'n str,
    },
    /// `seat` offers a draw: the seats in `waiting` have yet to accept.
    DrawOffered {
        g: &'n Loaded,
        seat: usize,
        waiting: &'n [usize],
    },
    /// `seat` declines the draw: every offer is withdrawn.
    DrawDeclined { g: &'n Loaded, seat: usize },
    /// These seats still owe a move (or orders) before the deadline.
    Remind {
        g: &'n Loaded,
        seats: &'n [usize],
        orders: bool,
    },
    /// Press from `from` to the seats in `to` (`to_all`: it was sent to every other player),
    /// named or anonymous as the game says.
    Press {
        g: &'n Loaded,
        from: usize,
        to: &'n [usize],
        to_all: bool,
        text: &'n str,
    },
    /// The GM revealed the dice seed mid-game: every seat learns it at once.
    SeedRevealed { g: &'n Loaded },
    /// A notice to the GM (a player out of time, a seat that keeps missing its orders).
    ToGm {
        g: Option<&'n Loaded>,
        text: &'n str,
    },
}

/// Turns the GM's news into mails (`compose` does: the GM decides, the letters are written
/// above it).
pub trait Herald {
    fn tell(&self, tx: &Tx, news: News<'_>) -> anyhow::Result<()>;
}

/// A herald that tells nobody (benchmarks, and set-ups that mail the players themselves).
pub struct Quiet;

impl Herald for Quiet {
    fn tell(&self, _: &Tx, _: News<'_>) -> anyhow::Result<()> {
        Ok(())
    }
}

/// The GM's hand for one transaction: every operation that plays, rolls or tells takes it.
pub struct Gm<'a> {
    pub tx: &'a Tx<'a>,
    pub now: DateTime<Utc>,
    herald: &'a dyn Herald,
    /// Scripted dice (tests); `None`: each game rolls its own seeded dice.
    scripted: Option<&'a mut dyn DiceSource>,
}

impl<'a> Gm<'a> {
    /// The GM with each game's own seeded dice.
    pub fn new(tx: &'a Tx<'a>, now: DateTime<Utc>, herald: &'a dyn Herald) -> Gm<'a> {
        Gm {
            tx,
            now,
            herald,
            scripted: None,
        }
    }

    /// The GM rolling from a script instead of the games' seeds (tests), if one is given.
    pub fn with_dice(mut self, dice: Option<&'a mut dyn DiceSource>) -> Gm<'a> {
        self.scripted = dice;
        self
    }

    /// The scripted dice, if any (else the game's own, made by the caller from its seed).
    pub(super) fn scripted(&mut self) -> Option<&mut dyn DiceSource> {
        match &mut self.scripted {
            Some(d) => Some(&mut **d),
            None => None,
        }
    }

    /// Tells the players what an operation did.
    pub fn tell(&self, news: News<'_>) -> anyhow::Result<()> {
        self.herald.tell(self.tx, news)
    }
}
