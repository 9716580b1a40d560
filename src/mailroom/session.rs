//! What a mail's commands produced so far: the game in hand, the reply's lines, what changed.

use super::note::{Fate, LineFate, MailNote};
use super::{note, stranger, Handled, Line};
use crate::commands::{Command, HelpTopic};
use crate::gamelog::Loaded;
use crate::mail::inbound::Inbound;
use crate::store::MessageStatus;
use crate::{compose, gm, orders};

/// What a mail's commands produced so far.
pub(super) struct Session {
    pub(super) lines: Vec<Line>,
    /// Sections appended to the reply (BOARD, HISTORY, ...).
    pub(super) extra: Vec<String>,
    /// A game the mail created or joined.
    pub(super) game: Option<i64>,
    /// The (game, seat) the mail's game lines are for.
    pub(super) current: Option<(i64, usize)>,
    /// The game the mail touched, for the GM's listing.
    pub(super) touched: Option<i64>,
    /// The game named in the subject (`[pbem #12]`).
    pub(super) subject_game: Option<i64>,
    pub(super) guard: Option<u32>,
    pub(super) moved: bool,
    /// The reply's first line, when the game's state does not say what matters (orders all
    /// void).
    pub(super) headline: Option<String>,
    pub(super) help: Option<String>,
    /// The game as the last move left it, reused for the reply (so it is not rebuilt from
    /// its log again); dropped by anything that changes a game outside it.
    pub(super) fresh: Option<Loaded>,
    /// A NEW or JOIN waiting for confirmation: its code and the text that explains it.
    pub(super) confirm: Option<(String, String)>,
    /// The sender's Message-ID, when it is one a reply may quote.
    pub(super) in_reply_to: Option<String>,
    /// Commands answered once per mail, already run (a second BOARD adds nothing).
    pub(super) once: Vec<&'static str>,
    /// Seats this mail already sent press to (each gets at most one press mail per mail).
    pub(super) pressed: Vec<usize>,
    /// The plies the mail caused (`A: b1 5/4`, `chance: roll 3`), for its note and the log.
    pub(super) plies: Vec<String>,
    /// The mail's move ended the game: its sender gets the game-over mail, which says it all.
    pub(super) ended: bool,
    /// A command that changes something was run (or tried).
    pub(super) acted: bool,
    /// The mail proves no seat: its answer names its lines in pbem's words only, never
    /// repeating these words of the mail.
    pub(super) unproven: Option<stranger::Words>,
    /// The (game, ply) of the seat's own move this mail played: its `COMMENT` goes there.
    pub(super) my_ply: Option<(i64, i64)>,
}

impl Session {
    pub(super) fn new(inb: &Inbound) -> Session {
        Session {
            lines: Vec::new(),
            extra: Vec::new(),
            game: None,
            current: None,
            touched: None,
            subject_game: orders::subject_game_id(&inb.subject),
            guard: None,
            moved: false,
            headline: None,
            help: None,
            fresh: None,
            confirm: None,
            in_reply_to: inb
                .message_id
                .as_ref()
                .map(|m| format!("<{m}>"))
                .filter(|m| compose::is_msg_id(m)),
            once: Vec::new(),
            pressed: Vec::new(),
            plies: Vec::new(),
            ended: false,
            acted: false,
            unproven: None,
            my_ply: None,
        }
    }

    /// Whether the mail changed anything: a move, orders, a plan, a request, a command that
    /// changes state. Such a mail is answered however often its text came before.
    pub(super) fn acted(&self) -> bool {
        self.acted
            || self.moved
            || !self.plies.is_empty()
            || self.confirm.is_some()
            || self.game.is_some()
    }

    /// Why this command is not run again in the same mail (None: run it). Each of these
    /// answers or mails the same thing however often it is written, so once is enough;
    /// a mail of a thousand BOARD or DRAW lines costs what one costs.
    pub(super) fn repeated(&mut self, cmd: &Command) -> Option<&'static str> {
        let key = match cmd {
            Command::Board => "board",
            Command::Status => "status",
            Command::History => "history",
            Command::Moves => "moves",
            Command::List => "list",
            Command::Stats(_) => "stats",
            Command::Ratings(_) => "ratings",
            Command::Help(_) => "help",
            Command::Resign => "resign",
            Command::DrawOffer | Command::DrawAccept | Command::DrawDecline => "draw",
            Command::New { .. } | Command::Join { .. } => "request",
            Command::Start => "start",
            Command::Vacation(_) => "vacation",
            Command::Name(_) => "name",
            _ => return None,
        };
        if self.once.contains(&key) {
            return Some(match key {
                "request" => "one NEW or JOIN per mail: send the next one in a mail of its own",
                "draw" => "one DRAW line per mail",
                _ => "already answered above (once per mail)",
            });
        }
        self.once.push(key);
        None
    }

    /// Says in the reply what was not read of a long mail.
    pub(super) fn note_unread(
        &mut self,
        lines: usize,
        cmds: usize,
        max_lines: usize,
        max_cmds: usize,
    ) {
        for (n, what, verb, max) in [
            (lines, "lines", "read", max_lines),
            (cmds, "commands", "run", max_cmds),
        ] {
            if n > 0 {
                self.lines.push(Line::with(
                    Fate::Unread,
                    &format!("... and {n} more {what}"),
                    None,
                    Some(format!(
                        "not {verb}: the game master {verb}s at most {max} {what} of a mail"
                    )),
                ));
            }
        }
    }

    /// How the mail ended: answered, each line's fate and the plies kept in its note.
    pub(super) fn handled(&self) -> Handled {
        let lines: Vec<LineFate> = self.lines.iter().map(Line::fate).collect();
        let summary = note::summary(&lines);
        Handled {
            status: MessageStatus::Done,
            detail: MailNote::answered(summary.clone(), lines, self.plies.clone()),
            note: summary,
        }
    }

    /// Keeps the plies a move or command caused, by actor, for the mail's note.
    pub(super) fn note_plies(&mut self, g: &Loaded, played: &gm::Played) {
        for (actor, ply) in &played.plies {
            let who = crate::records::actor_name(&g.game, *actor);
            self.plies.push(format!("{who}: {ply}"));
        }
    }
}

pub(super) fn command_text(cmd: &Command) -> String {
    match cmd {
        Command::Game(t) => t.clone(),
        Command::Guard(n) => format!("#{n}"),
        Command::Password(_) => "PASSWORD (hidden)".into(),
        Command::Salt(s) => format!("SALT {s}"),
        Command::Name(n) => format!("NAME {n}"),
        Command::Comment(c) => format!("COMMENT {c}"),
        Command::Press { to, .. } => format!("PRESS TO {}", to.join(", ")),
        Command::Bad { line, .. } => line.clone(),
        Command::Board => "BOARD".into(),
        Command::Status => "STATUS".into(),
        Command::History => "HISTORY".into(),
        Command::Moves => "MOVES".into(),
        Command::Resign => "RESIGN".into(),
        Command::DrawOffer => "DRAW OFFER".into(),
        Command::DrawAccept => "DRAW ACCEPT".into(),
        Command::DrawDecline => "DRAW DECLINE".into(),
        Command::Help(HelpTopic::Commands) => "HELP".into(),
        Command::Help(HelpTopic::Rules) => "HELP RULES".into(),
        Command::Help(HelpTopic::Game(g)) => format!("HELP {g}"),
        Command::List => "LIST".into(),
        Command::Stats(None) => "STATS".into(),
        Command::Stats(Some(g)) => format!("STATS {g}"),
        Command::Ratings(g) => format!("RATINGS {g}"),
        Command::Start => "START".into(),
        Command::UseGame(id) => format!("GAME {id}"),
        Command::New { game, options } => std::iter::once(format!("NEW {game}"))
            .chain(options.iter().cloned())
            .collect::<Vec<_>>()
            .join(" "),
        Command::Join { game, seat: None } => format!("JOIN {game}"),
        Command::Join {
            game,
            seat: Some(seat),
        } => format!("JOIN {game} {seat}"),
        Command::Vacation(None) => "VACATION OFF".into(),
        Command::Digest(true) => "DIGEST ON".into(),
        Command::Digest(false) => "DIGEST OFF".into(),
        Command::Vacation(Some(days)) => format!("VACATION {days}"),
    }
}
