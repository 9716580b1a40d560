//! What a seat (or the GM) may ask to see of a game: status, board, history, legal moves and a player's games, as typed values that the mail path and the command line both print.

use std::fmt;

use chrono::{DateTime, Utc};

use crate::gamelog::{self, Loaded};
use crate::games::ToAct;
use crate::store::{GameStatus, Tx};

/// A game's state at a glance: whose turn, the deadline, who sits where.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Status {
    pub id: i64,
    pub title: &'static str,
    pub status: GameStatus,
    /// The seat of whoever asked, by name (none for the GM).
    pub you: Option<&'static str>,
    pub to_act: String,
    pub deadline: Option<DateTime<Utc>>,
    /// Each seat's name and its player as the reader may see them (none: the seat is open).
    pub seats: Vec<(&'static str, Option<String>)>,
}

/// The status of a game, as seen from `seat` (none: the GM, who sees every address; a
/// player sees the others as the game's mails show them, `names::in_mail`).
pub fn status(g: &Loaded, seat: Option<usize>) -> Status {
    let reveal = match seat {
        Some(_) => super::names::in_mail(g),
        None => super::names::Reveal::Addresses,
    };
    Status {
        id: g.row.id,
        title: g.kind().title(),
        status: g.row.status,
        you: seat.map(|s| g.game.seat_name(s)),
        to_act: super::to_act_text(g),
        deadline: super::clock::deadline(g),
        seats: g
            .seats
            .iter()
            .map(|x| {
                let who = match (reveal, Some(x.seat) == seat) {
                    (super::names::Reveal::Seats, true) => Some("you".into()),
                    _ => super::names::seat_holder(x, reveal),
                };
                (g.game.seat_name(x.seat), who)
            })
            .collect(),
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Game #{} {} ({})", self.id, self.title, self.status)?;
        if let Some(you) = self.you {
            write!(f, ", you play {you}")?;
        }
        writeln!(f, ". {}.", self.to_act)?;
        if let Some(d) = self.deadline {
            writeln!(f, "Deadline: {}", crate::template::date(d))?;
        }
        for (name, email) in &self.seats {
            writeln!(f, "  {name}: {}", email.as_deref().unwrap_or("(open)"))?;
        }
        Ok(())
    }
}

/// The game so far, as a record's move text.
pub fn history(g: &Loaded) -> anyhow::Result<String> {
    crate::records::write(&[], &g.start, &g.plies()?).map_err(|e| anyhow::anyhow!(e))
}

/// What a seat may play now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Moves {
    /// The game's own answer (Dicess's steps and captures, Siberian Dice's perfect hexes).
    Told(String),
    /// Every legal ply, canonical.
    Listed(Vec<String>),
    /// It is not this seat's turn: whose it is.
    NotYours(String),
}

/// The seat's legal moves now, or whose turn it is.
pub fn moves(g: &Loaded, seat: usize) -> Moves {
    let mine = match g.game.to_act() {
        ToAct::Seat(x) => x == seat,
        ToAct::Orders(xs) => xs.contains(&seat),
        _ => false,
    };
    if !mine {
        return Moves::NotYours(super::to_act_text(g));
    }
    match g.game.moves_help() {
        Some(told) => Moves::Told(told),
        None => Moves::Listed(g.game.legal_plies()),
    }
}

impl fmt::Display for Moves {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Moves::Told(text) => f.write_str(text),
            Moves::Listed(legal) if legal.is_empty() => {
                f.write_str("You have no legal move listed.")
            }
            Moves::Listed(legal) => write!(
                f,
                "Your legal moves ({}):\n{}",
                legal.len(),
                wrap(&legal.join("  "), 70)
            ),
            Moves::NotYours(who) => write!(f, "It is not your turn: {who}."),
        }
    }
}

/// One of a player's games, for `LIST`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Seated {
    pub id: i64,
    pub title: &'static str,
    pub status: GameStatus,
    pub seat: &'static str,
    pub to_act: String,
}

/// A player's games, and the games with open seats.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Games {
    pub mine: Vec<Seated>,
    /// Open games: id and kind.
    pub open: Vec<(i64, String)>,
}

/// The games of the player at `email`, and every game with open seats.
pub fn games_of(tx: &Tx, email: &str) -> anyhow::Result<Games> {
    let mut mine = Vec::new();
    for (id, seat) in tx.seats_of(email)? {
        let g = gamelog::load(tx, id)?;
        mine.push(Seated {
            id,
            title: g.kind().title(),
            status: g.row.status,
            seat: g.game.seat_name(seat),
            to_act: g.game.to_act_text(),
        });
    }
    let open = tx
        .games(Some(GameStatus::Open))?
        .iter()
        .map(|r| (r.id, r.kind.clone()))
        .collect();
    Ok(Games { mine, open })
}

impl fmt::Display for Games {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "Your games:")?;
        if self.mine.is_empty() {
            writeln!(f, "  none")?;
        }
        for s in &self.mine {
            writeln!(
                f,
                "  #{} {} ({}), you play {}: {}",
                s.id, s.title, s.status, s.seat, s.to_act
            )?;
        }
        if !self.open.is_empty() {
            writeln!(f, "Games with open seats (JOIN <number>):")?;
            for (id, kind) in &self.open {
                writeln!(f, "  #{id} {kind}")?;
            }
        }
        Ok(())
    }
}

/// Fills lines of at most `width` with the items `text` separates by two spaces (first fit),
/// each item whole: a ply may hold a space (Dice Rink's `b1 5/4`).
fn wrap(text: &str, width: usize) -> String {
    fn items(line: &str) -> Box<dyn Iterator<Item = textwrap::core::Word<'_>> + '_> {
        Box::new(line.split_inclusive("  ").map(textwrap::core::Word::from))
    }
    let options = textwrap::Options::new(width)
        .break_words(false)
        .word_separator(textwrap::WordSeparator::Custom(items))
        .wrap_algorithm(textwrap::WrapAlgorithm::FirstFit);
    textwrap::fill(text, options)
}
