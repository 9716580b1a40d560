//! What became of a processed mail, kept as JSON in `messages.note`: its fate, a line for the GM's listing, each line's fate as the reply told it, and the plies it caused.
//!
//! The schema has no column for a mail's lines, and none is needed: the note is the mail's
//! own record of its processing, written once in the same transaction as everything else
//! it did. Notes written before this format are plain text; `MailNote::read` takes both.

use serde::{Deserialize, Serialize};

use crate::compose::LineStatus;
use crate::quote::shorten;
use crate::store::MessageStatus;

/// A mail as a whole, as `pbem inbox --status` filters it (stored in the note as `fate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MailFate {
    /// Stored, not processed yet.
    New,
    /// Processed and answered, with something done: a move played, orders recorded, a
    /// command answered.
    Done,
    /// Refused as a whole (a forged sender, a throttle, a limit, a stranger's moves), or
    /// answered with every line refused.
    Refused,
    /// Not a person's mail, or our own come back (a bounce, an auto-reply, bulk mail, a
    /// loop): recorded, never answered.
    Ignored,
    /// Processing failed or panicked; final, for the GM to look at.
    Failed,
}

impl MailFate {
    /// Every value, in the order `--status` lists them.
    pub const ALL: &'static [MailFate] = &[
        MailFate::New,
        MailFate::Done,
        MailFate::Refused,
        MailFate::Ignored,
        MailFate::Failed,
    ];

    /// The name stored in a note and given to `--status`.
    pub fn as_str(self) -> &'static str {
        match self {
            MailFate::New => "new",
            MailFate::Done => "done",
            MailFate::Refused => "refused",
            MailFate::Ignored => "ignored",
            MailFate::Failed => "failed",
        }
    }

    pub fn parse(text: &str) -> Option<MailFate> {
        MailFate::ALL.iter().copied().find(|f| f.as_str() == text)
    }
}

/// What became of one line, as the reply said it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fate {
    /// The move this mail played (a declaration included).
    Played,
    /// An outcome planned for a roll, kept with the declaration it follows.
    Planned,
    /// One of a simultaneous turn's orders, recorded.
    Ordered,
    /// A command run or answered.
    Done,
    /// Not played or run, with the reason.
    Refused,
    /// An order understood as void (the unit holds), with the reason.
    Void,
    /// Not a move or command at all (a greeting); does not count.
    Ignored,
    /// Past the mail's limit of lines or commands.
    Unread,
}

impl Fate {
    /// The word the reply's template shows for it.
    pub fn reply_status(self) -> LineStatus {
        match self {
            Fate::Played | Fate::Planned | Fate::Ordered | Fate::Done => LineStatus::Ok,
            Fate::Refused => LineStatus::Refused,
            Fate::Void => LineStatus::Void,
            Fate::Ignored => LineStatus::Ignored,
            Fate::Unread => LineStatus::Unread,
        }
    }

    fn word(self) -> &'static str {
        match self {
            Fate::Played => "played",
            Fate::Planned => "planned",
            Fate::Ordered => "ordered",
            Fate::Done => "done",
            Fate::Refused => "refused",
            Fate::Void => "void",
            Fate::Ignored => "ignored",
            Fate::Unread => "unread",
        }
    }

    /// Whether a mail of lines with these fates had no effect at all: the one rule for its
    /// reply ("Nothing was played from your mail") and its note (`refused`). A void order
    /// counts (it is recorded, and holds); a mail of greetings alone does not.
    pub fn nothing_done(fates: impl IntoIterator<Item = Fate>) -> bool {
        let mut any = false;
        for f in fates {
            if f.counts() {
                return false;
            }
            any = true;
        }
        any
    }

    /// Whether the line had an effect (a refused, ignored or unread one had none).
    fn counts(self) -> bool {
        matches!(
            self,
            Fate::Played | Fate::Planned | Fate::Ordered | Fate::Done | Fate::Void
        )
    }
}

/// One line of a mail (its start, as the reply quotes it) and its fate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LineFate {
    pub text: String,
    pub fate: Fate,
    /// How the line was read (a move's canonical notation) or what a command answered.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub canonical: Option<String>,
    /// Why it was refused, void, ignored or not read.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

impl std::fmt::Display for LineFate {
    /// `b1 5/4 -> played`, `c1 3/2 -> refused: it is not your turn`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} -> {}", self.text, self.fate.word())?;
        if let Some(c) = self.canonical.as_ref().filter(|c| **c != self.text) {
            write!(f, " ({c})")?;
        }
        if let Some(r) = &self.reason {
            write!(f, ": {r}")?;
        }
        Ok(())
    }
}

/// A processed mail's note: what `pbem inbox` lists and `pbem inbox show` details.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MailNote {
    pub fate: MailFate,
    /// One line for the listing: `move played: b1 5/4`, `refused: spoofed: ...`.
    pub summary: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<LineFate>,
    /// The plies the mail caused, its own and what followed (`A: b1 5/4`, `chance: roll 3`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub plies: Vec<String>,
    /// Read from a note written before this format (plain text: no lines were kept).
    #[serde(skip)]
    pub legacy: bool,
}

impl MailNote {
    /// A mail answered line by line: refused when every line that counts was refused.
    pub fn answered(summary: String, lines: Vec<LineFate>, plies: Vec<String>) -> MailNote {
        let refused_only = Fate::nothing_done(lines.iter().map(|l| l.fate));
        MailNote {
            fate: if refused_only {
                MailFate::Refused
            } else {
                MailFate::Done
            },
            summary,
            lines,
            plies,
            legacy: false,
        }
    }

    /// A mail as a whole, without lines: `refused: why`, `ignored: why`, `failed: why`.
    pub fn whole(fate: MailFate, why: &str) -> MailNote {
        MailNote {
            fate,
            summary: format!("{}: {why}", fate.as_str()),
            lines: Vec::new(),
            plies: Vec::new(),
            legacy: false,
        }
    }

    /// The note as stored.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a note always serializes")
    }

    /// A stored note: this format, or the plain text of an older pbem (then the status gives
    /// the fate, and no lines are known).
    pub fn read(status: MessageStatus, note: Option<&str>) -> MailNote {
        if let Some(n) = note.and_then(|n| serde_json::from_str::<MailNote>(n).ok()) {
            return n;
        }
        let text = note.unwrap_or("");
        let (fate, summary) = match status {
            MessageStatus::New => (MailFate::New, "not processed yet".to_string()),
            MessageStatus::Done => (MailFate::Done, text.to_string()),
            MessageStatus::Refused => (MailFate::Refused, format!("refused: {text}")),
            MessageStatus::Failed => (MailFate::Failed, format!("failed: {text}")),
        };
        MailNote {
            fate,
            summary,
            lines: Vec::new(),
            plies: Vec::new(),
            legacy: note.is_some(),
        }
    }
}

/// The listing's line for a mail answered line by line: the move it played, the orders it
/// gave, else its refusal, else the commands it ran; and what else was refused.
pub(super) fn summary(lines: &[LineFate]) -> String {
    let count = |fate: Fate| lines.iter().filter(|l| l.fate == fate).count();
    let refused = count(Fate::Refused);
    let first_refusal = lines
        .iter()
        .find(|l| l.fate == Fate::Refused)
        .map(|l| l.reason.clone().unwrap_or_default());
    let main = if let Some(played) = lines.iter().find(|l| l.fate == Fate::Played) {
        format!(
            "move played: {}",
            played.canonical.as_deref().unwrap_or(&played.text)
        )
    } else if count(Fate::Ordered) + count(Fate::Void) > 0 {
        let void = match count(Fate::Void) {
            0 => String::new(),
            n => format!(", {n} void"),
        };
        format!("orders recorded ({}{void})", count(Fate::Ordered))
    } else if let (Some(why), false) = (&first_refusal, lines.iter().any(|l| l.fate.counts())) {
        return match refused {
            1 => format!("refused: {why}"),
            n => format!("refused: {why} ({n} lines refused)"),
        };
    } else {
        let done: Vec<&str> = lines
            .iter()
            .filter(|l| l.fate == Fate::Done)
            .map(|l| l.text.as_str())
            .collect();
        match done.is_empty() {
            true => "answered (how to play)".to_string(),
            false => format!("answered: {}", shorten(&done.join(", "), 80)),
        }
    };
    match refused {
        0 => main,
        1 => format!("{main}; 1 line refused"),
        n => format!("{main}; {n} lines refused"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, fate: Fate, canonical: Option<&str>, reason: Option<&str>) -> LineFate {
        LineFate {
            text: text.into(),
            fate,
            canonical: canonical.map(Into::into),
            reason: reason.map(Into::into),
        }
    }

    #[test]
    fn the_summary_names_the_move_the_orders_or_the_refusal() {
        let played = [
            line("hello", Fate::Ignored, None, Some("not a move")),
            line("b1 5/4", Fate::Played, Some("b1 5/4"), None),
            line("c1 3/2", Fate::Refused, None, Some("one move per mail")),
        ];
        assert_eq!(summary(&played), "move played: b1 5/4; 1 line refused");
        let refused = [line("b4 4/2", Fate::Refused, None, Some("not your turn"))];
        assert_eq!(summary(&refused), "refused: not your turn");
        let note = MailNote::answered(summary(&refused), refused.to_vec(), vec![]);
        assert_eq!(note.fate, MailFate::Refused);
        let orders = [
            line("A: b2-b3", Fate::Ordered, Some("b2-b3"), None),
            line("A: zz", Fate::Void, None, Some("no such space")),
        ];
        assert_eq!(summary(&orders), "orders recorded (1, 1 void)");
        let board = [line("BOARD", Fate::Done, None, None)];
        assert_eq!(summary(&board), "answered: BOARD");
        assert_eq!(summary(&[]), "answered (how to play)");
    }

    #[test]
    fn notes_round_trip_and_old_plain_notes_still_read() {
        let note = MailNote::answered(
            "move played: b1 5/4".into(),
            vec![line("b1 5/4", Fate::Played, Some("b1 5/4"), None)],
            vec!["A: b1 5/4".into()],
        );
        let back = MailNote::read(MessageStatus::Done, Some(&note.to_json()));
        assert_eq!(back, note);
        let old = MailNote::read(MessageStatus::Refused, Some("spoofed: x"));
        assert_eq!(
            (old.fate, old.summary.as_str(), old.legacy),
            (MailFate::Refused, "refused: spoofed: x", true)
        );
        assert_eq!(
            line("c1", Fate::Refused, None, Some("not your turn")).to_string(),
            "c1 -> refused: not your turn"
        );
    }
}
