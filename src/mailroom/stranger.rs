//! What a reply to mail that proves no seat may say: pbem's own words, never the sender's.
//!
//! Anyone can put any From on a mail. Were the answer to quote the mail's lines, its subject
//! or the words a refusal quotes, a forger could have pbem carry their text to any address
//! they name: an open reflector (300 forged senders got 300 replies, each quoting the
//! forger). So a line is named by its command and the words pbem knows (commands, games,
//! options, seat letters, short numbers), a reason is given only when it repeats no word of
//! the mail and quotes no value it does not know, and the subject is never used
//! (`mailroom::reply`); only the In-Reply-To header names the mail's Message-ID, which no
//! reader sees, for threading. The GM's listing keeps the lines as written (`MailNote`).

use std::collections::HashSet;

use crate::compose::{LineStatus, LineVars};
use crate::games::GameKind;
use crate::gm::options::COMMON_OPTIONS;

/// The command words a line is named by, and the words pbem's own names of lines use.
const KEYWORDS: &[&str] = &[
    "help", "rules", "list", "new", "join", "game", "vacation", "off", "digest", "on", "status",
    "board", "history", "moves", "resign", "draw", "offer", "accept", "decline", "press", "to",
    "all", "salt", "start", "password", "hidden",
];

/// The words a command line starts with.
const COMMANDS: &[&str] = &[
    "help", "list", "new", "join", "game", "vacation", "digest", "status", "board", "history",
    "moves", "resign", "draw", "press", "salt", "start", "password",
];

/// Said instead of a reason that repeats the mail's words.
const GENERIC: &str = "not accepted as written; an answer to mail that proves no seat \
                       quotes nothing of it: send HELP to see how each command is written";

/// The words of a mail that an answer must not repeat: those of four characters or more that
/// are not pbem's own (shorter ones carry no message, and forbidding them would forbid most
/// of English).
pub(super) struct Words(HashSet<String>);

/// A run of the answer longer than this is taken for quoting: pbem's own words and the values
/// its reasons quote (shortened) are all shorter, and looking up every piece of a longer
/// run would cost the square of its length.
const LONGEST_OWN_RUN: usize = 64;

impl Words {
    pub(super) fn of(lines: &[String], subject: &str) -> Words {
        let words = lines
            .iter()
            .map(String::as_str)
            .chain([subject])
            .flat_map(runs)
            .filter(|w| w.chars().count() >= 4 && !known(w))
            .map(str::to_lowercase)
            .collect();
        Words(words)
    }

    /// Whether `text` repeats one of the words, anywhere (inside a longer word too). A word
    /// is a run, so it can only stand inside one run of `text`: each piece of each run is
    /// looked up, which costs the answer's length, not the mail's.
    fn quoted_in(&self, text: &str) -> bool {
        let text = text.to_lowercase();
        let quoted = runs(&text).any(|run| self.holds_a_piece_of(run));
        quoted
    }

    /// Whether a piece of `run`, four characters or more, is one of the words.
    fn holds_a_piece_of(&self, run: &str) -> bool {
        let bounds: Vec<usize> = run
            .char_indices()
            .map(|(i, _)| i)
            .chain([run.len()])
            .collect();
        if bounds.len() > LONGEST_OWN_RUN + 1 {
            return true;
        }
        (0..bounds.len()).any(|from| {
            (from + 4..bounds.len()).any(|to| self.0.contains(&run[bounds[from]..bounds[to]]))
        })
    }
}

/// The runs of letters, digits and `_` in a text: its words as pbem compares them.
fn runs(text: &str) -> impl Iterator<Item = &str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
}

/// A word pbem knows: a command, a game's name, an option's name, a seat's name, or a
/// number of at most four digits (a game's number, a count, a duration's amount).
fn known(word: &str) -> bool {
    let lower = word.to_lowercase();
    if word.len() <= 4 && word.chars().all(|c| c.is_ascii_digit()) {
        return true;
    }
    KEYWORDS.contains(&lower.as_str())
        || COMMON_OPTIONS.iter().any(|o| o.name == lower)
        || GameKind::ALL.iter().any(|k| {
            let f = k.facts();
            f.name == lower
                || f.options.iter().any(|o| o.name == lower)
                || f.seats.iter().any(|s| s.eq_ignore_ascii_case(word))
        })
}

/// The lines of an answer to unproven mail, in pbem's words only.
pub(super) fn scrub(lines: Vec<LineVars>, words: &Words) -> Vec<LineVars> {
    lines
        .into_iter()
        .map(|l| LineVars {
            text: match l.status {
                // "... and 12 more lines" is pbem's own count.
                LineStatus::Unread if !words.quoted_in(&l.text) => l.text,
                _ => named(&l.text),
            },
            canonical: l.canonical.filter(|c| !words.quoted_in(c)),
            reason: l.reason.map(|r| {
                if words.quoted_in(&r) || quotes_a_value(&r) {
                    GENERIC.into()
                } else {
                    r
                }
            }),
            status: l.status,
        })
        .collect()
}

/// Whether a reason quotes a value the sender gave (`'t.co/Xy9' is not a duration`): its
/// pieces in quotes hold a word pbem does not know. Words of any length count here, since a
/// short link is all a forger needs.
fn quotes_a_value(reason: &str) -> bool {
    quoted_pieces(reason).any(|quoted| runs(quoted).any(|w| !known(w) && !is_amount(w)))
}

/// The pieces of `text` in quotes (`'...'`, `"..."`, `` `...` ``): a quote mark opens one
/// only after a space, `(`, `:` or `=` (or at the start), and closes it only before a
/// space, punctuation or the end, so the apostrophe of "game's" quotes nothing.
fn quoted_pieces(text: &str) -> impl Iterator<Item = &str> {
    let bytes = text.as_bytes();
    let mut at = 0;
    std::iter::from_fn(move || {
        while at < bytes.len() {
            let (i, q) = (at, bytes[at]);
            at += 1;
            let opens = matches!(q, b'\'' | b'"' | b'`')
                && (i == 0 || matches!(bytes[i - 1], b' ' | b'(' | b':' | b'=' | b'\n'));
            if !opens {
                continue;
            }
            let close = (i + 1..bytes.len()).find(|&j| {
                bytes[j] == q && bytes.get(j + 1).is_none_or(|b| !b.is_ascii_alphanumeric())
            });
            if let Some(j) = close {
                at = j + 1;
                return Some(&text[i + 1..j]);
            }
        }
        None
    })
}

/// A duration's amount as people write it (`90m`, `36h`, `3d`): it carries no message.
fn is_amount(word: &str) -> bool {
    let digits = word.trim_end_matches(|c: char| c.is_ascii_alphabetic());
    let unit = &word[digits.len()..];
    (1..=4).contains(&digits.len())
        && digits.chars().all(|c| c.is_ascii_digit())
        && matches!(unit, "s" | "m" | "h" | "d" | "w")
}

/// A line as pbem names it: a command with the words pbem knows (the rest shown as `…`),
/// anything else "a line of your mail".
fn named(text: &str) -> String {
    let first = runs(text).next().unwrap_or("");
    if !COMMANDS.contains(&first.to_lowercase().as_str()) {
        return "(a line of your mail)".into();
    }
    let mut out = String::new();
    let mut word = String::new();
    let flush = |word: &mut String, out: &mut String| {
        if !word.is_empty() {
            out.push_str(if known(word) { word } else { "…" });
            word.clear();
        }
    };
    for c in text.chars() {
        if c.is_alphanumeric() || c == '_' {
            word.push(c);
        } else {
            flush(&mut word, &mut out);
            out.push(c);
        }
    }
    flush(&mut word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(text: &str, reason: Option<&str>) -> LineVars {
        LineVars {
            status: LineStatus::Refused,
            text: text.into(),
            canonical: None,
            reason: reason.map(str::to_string),
        }
    }

    #[test]
    fn a_stranger_s_words_are_never_repeated() {
        let mail = vec![
            "NEW d4d6 salt_window=9999999999999999 grace=clickhere".to_string(),
            "Buy cheap pills at spam.example".to_string(),
            "JOIN 12 B".to_string(),
        ];
        let words = Words::of(&mail, "WINNER");
        let out = scrub(
            vec![
                line(
                    &mail[0],
                    Some("option 'grace': 'clickhere' is not a duration"),
                ),
                line(&mail[1], Some("send it from your secret reply address")),
                line(&mail[2], Some("game #12 has no open seat B")),
                line("PASSWORD (hidden)", None),
            ],
            &words,
        );
        assert_eq!(out[0].text, "NEW d4d6 salt_window=… grace=…");
        assert_eq!(out[0].reason.as_deref(), Some(GENERIC));
        assert_eq!(out[1].text, "(a line of your mail)");
        assert_eq!(
            out[1].reason.as_deref(),
            Some("send it from your secret reply address")
        );
        assert_eq!(out[2].text, "JOIN 12 B");
        assert_eq!(
            out[2].reason.as_deref(),
            Some("game #12 has no open seat B")
        );
        assert_eq!(out[3].text, "PASSWORD (hidden)");
        for l in &out {
            let all = format!("{} {:?}", l.text, l.reason).to_lowercase();
            for w in ["clickhere", "pills", "spam", "winner", "9999999"] {
                assert!(!all.contains(w), "{w} in {all}");
            }
        }
    }

    #[test]
    fn a_value_of_short_pieces_is_not_quoted_back() {
        let mail = vec!["NEW d4d6 grace=t.co/Xy9".to_string()];
        let words = Words::of(&mail, "");
        let out = scrub(
            vec![line(
                &mail[0],
                Some("option 'grace': 't.co/Xy9' is not a duration"),
            )],
            &words,
        );
        assert_eq!(out[0].reason.as_deref(), Some(GENERIC));
        assert!(!format!("{:?}", out[0]).contains("Xy9"));
        // An apostrophe quotes nothing; a reason that quotes only pbem's own words is kept.
        let own = "which game? write HELP and the game's name (the games are listed below)";
        let kept = scrub(vec![line("HELP RULES", Some(own))], &words);
        assert_eq!(kept[0].reason.as_deref(), Some(own));
        let kept = scrub(vec![line("JOIN 3", Some("no seat 'B' in game 3"))], &words);
        assert_eq!(kept[0].reason.as_deref(), Some("no seat 'B' in game 3"));
    }
}
