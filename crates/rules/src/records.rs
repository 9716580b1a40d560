//! Game records: the PGN-like text format shared by all games (tags, then plies), read, replayed and written.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::games::{Actor, AnyGame, GameKind, Options, Outcome, ToAct};

/// A record as read: its tag pairs in order, and the move text split into tokens.
#[derive(Debug, Clone, Default)]
pub struct Record {
    pub tags: Vec<(String, String)>,
    /// Move text with comments removed, in order: move numbers and ply groups.
    pub items: Vec<Item>,
    /// The comments of the move text, each with the number of ply tokens (words of plies,
    /// not move numbers) before it: the annotator's words, kept to go with the plies.
    pub comments: Vec<(usize, String)>,
}

/// One piece of move text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Item {
    /// `12.` (`first` true) or `12...` (false).
    Number { n: u32, first: bool },
    /// Text between move numbers: one or more plies, split by the game.
    Plies(String),
}

/// A ply as written in a record, with the actor when it is not the one the position implies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordPly {
    pub actor: Option<String>,
    pub text: String,
}

/// The result of a replay.
#[derive(Debug, Clone)]
pub struct Replayed {
    pub game: AnyGame,
    pub plies: usize,
    /// Every ply played: (actor, canonical text).
    pub log: Vec<(Actor, String)>,
    /// The record's comments, each with the number of plies played before it.
    pub comments: Vec<(usize, String)>,
}

/// Why a replay stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReplayError {
    /// 1-based ply number, 0 for an error before the first ply (bad tags).
    pub ply: usize,
    pub token: String,
    pub reason: String,
}

impl std::fmt::Display for ReplayError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.ply == 0 {
            write!(f, "{}", self.reason)
        } else {
            write!(f, "ply {} ({}): {}", self.ply, self.token, self.reason)
        }
    }
}

impl Record {
    /// Reads a record's text. Only the structure is checked here; plies are checked by `replay`.
    pub fn parse(text: &str) -> Result<Record, String> {
        let mut rec = Record::default();
        let mut movetext = String::new();
        let mut in_tags = true;
        for (i, line) in text.lines().enumerate() {
            let t = line.trim();
            if in_tags && t.starts_with('[') {
                let (name, value) = parse_tag(t).map_err(|e| format!("line {}: {e}", i + 1))?;
                rec.tags.push((name, value));
                continue;
            }
            if t.is_empty() && movetext.trim().is_empty() {
                continue;
            }
            in_tags = false;
            // No `;` line comments as in PGN: games may use `;` inside their plies.
            movetext.push_str(line);
            movetext.push('\n');
        }
        let (stripped, marks) = strip_comments(&movetext)?;
        let mut marks = marks.into_iter().peekable();
        let number = move_number_regex();
        let mut group = String::new();
        let mut words = 0usize;
        for (at, tok) in word_offsets(&stripped) {
            while let Some((_, text)) = marks.next_if(|(offset, _)| *offset <= at) {
                rec.comments.push((words, text));
            }
            let mut rest = tok;
            if let Some(c) = number.captures(tok) {
                let n: u32 = c[1]
                    .parse()
                    .map_err(|_| format!("move number too large: {tok}"))?;
                if !group.trim().is_empty() {
                    rec.items.push(Item::Plies(std::mem::take(&mut group)));
                }
                group.clear();
                rec.items.push(Item::Number {
                    n,
                    first: c[2].len() == 1,
                });
                rest = c.get(3).map_or("", |m| m.as_str());
                if rest.is_empty() {
                    continue;
                }
            }
            if !group.is_empty() {
                group.push(' ');
            }
            group.push_str(rest);
            words += 1;
        }
        rec.comments.extend(marks.map(|(_, text)| (words, text)));
        if !group.trim().is_empty() {
            rec.items.push(Item::Plies(group));
        }
        Ok(rec)
    }

    /// The value of a tag (case-insensitive name).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The game kind named by `[Game]`.
    pub fn kind(&self) -> Result<GameKind, String> {
        let name = self
            .tag("Game")
            .ok_or("the record has no [Game \"...\"] tag")?;
        GameKind::parse(name).ok_or_else(|| format!("unknown game '{name}'"))
    }

    /// The salts of the game's dice, in the order they go into every roll: the plain tags
    /// `[DiceSalt1 "..."]`, `[DiceSalt2 "..."]` ... (`dice_salt_tags`), or in a record written
    /// before those, one `[DiceSalts "[...]"]` holding them as a JSON list. No tag: no salts.
    pub fn dice_salts(&self) -> Result<Vec<String>, String> {
        let mut numbered: Vec<(usize, &str)> = Vec::new();
        for (name, value) in &self.tags {
            let Some(n) = name
                .get(..8)
                .filter(|p| p.eq_ignore_ascii_case("DiceSalt"))
                .map(|_| &name[8..])
                .filter(|n| n.bytes().all(|b| b.is_ascii_digit()))
                .and_then(|n| n.parse::<usize>().ok())
            else {
                continue;
            };
            numbered.push((n, value));
        }
        if numbered.is_empty() {
            let Some(json) = self.tag("DiceSalts") else {
                return Ok(Vec::new());
            };
            return serde_json::from_str::<Vec<String>>(json)
                .map_err(|e| format!("[DiceSalts] is not a JSON list of salts: {e}"));
        }
        numbered.sort_by_key(|(n, _)| *n);
        for (i, (n, _)) in numbered.iter().enumerate() {
            if *n != i + 1 {
                return Err(format!(
                    "the salts are numbered 1, 2, ... once each: [DiceSalt{}] is missing or \
                     twice",
                    i + 1
                ));
            }
        }
        Ok(numbered.into_iter().map(|(_, v)| v.to_string()).collect())
    }

    /// Options from `[Options "a=1, b=2"]`.
    pub fn options(&self) -> Result<Options, String> {
        parse_options(self.tag("Options").unwrap_or(""))
    }

    /// The starting position: the game's start for its options, or the `[Position]` tag.
    pub fn start(&self) -> Result<AnyGame, String> {
        let kind = self.kind()?;
        let options = self.options()?;
        match self.tag("Position") {
            Some(p) => AnyGame::from_position(kind, &options, p)
                .map_err(|e| format!("bad [Position]: {e}")),
            None => AnyGame::new(kind, &options),
        }
    }

    /// Replays the record from its start, checking move numbers where present.
    pub fn replay(&self) -> Result<Replayed, ReplayError> {
        let head = |reason: String| ReplayError {
            ply: 0,
            token: String::new(),
            reason,
        };
        let mut game = self.start().map_err(head)?;
        let mut log = Vec::new();
        let mut count = 0usize;
        // The comments placed by the ply words read so far.
        let (mut words, mut comments) = (0usize, Vec::new());
        let mut pending = self.comments.iter().peekable();
        while let Some((_, c)) = pending.next_if(|(w, _)| *w == 0) {
            comments.push((0, c.clone()));
        }
        for item in &self.items {
            match item {
                Item::Number { n, first } => {
                    let want = game.move_number();
                    if want != Some((*n, *first)) {
                        let written = format!("{n}{}", if *first { "." } else { "..." });
                        let reason = match want {
                            Some((m, true)) => format!("the position is at move {m}."),
                            Some((m, false)) => format!("the position is at move {m}..."),
                            None => "no move number applies here".to_string(),
                        };
                        return Err(ReplayError {
                            ply: count + 1,
                            token: written,
                            reason: format!("wrong move number: {reason}"),
                        });
                    }
                }
                Item::Plies(text) => {
                    for raw in game.split_plies(text) {
                        count += 1;
                        let ply = split_actor(&raw);
                        let actor = match &ply.actor {
                            Some(a) => actor_by_name(&game, a).ok_or_else(|| ReplayError {
                                ply: count,
                                token: raw.clone(),
                                reason: format!("unknown player '{a}'"),
                            })?,
                            None => implied_actor(&game).ok_or_else(|| ReplayError {
                                ply: count,
                                token: raw.clone(),
                                reason: "the game is already over".into(),
                            })?,
                        };
                        let canonical = game.play(actor, &ply.text).map_err(|e| ReplayError {
                            ply: count,
                            token: raw.clone(),
                            reason: e.to_string(),
                        })?;
                        log.push((actor, canonical));
                        words += raw.split_whitespace().count();
                        while let Some((_, c)) = pending.next_if(|(w, _)| *w <= words) {
                            comments.push((count, c.clone()));
                        }
                    }
                }
            }
        }
        comments.extend(pending.map(|(_, c)| (count, c.clone())));
        Ok(Replayed {
            game,
            plies: count,
            log,
            comments,
        })
    }
}

/// The actor a record's ply belongs to when it names none: the side to move, chance when the
/// GM must roll, the GM for a simultaneous turn.
pub fn implied_actor(game: &AnyGame) -> Option<Actor> {
    match game.to_act() {
        ToAct::Seat(s) => Some(Actor::Seat(s)),
        ToAct::Chance(_) => Some(Actor::Chance),
        ToAct::Orders(_) => Some(Actor::Gm),
        ToAct::Nobody => None,
    }
}

/// Reads an actor's name as stored and written: a seat name, `chance` or `gm`.
pub fn actor_by_name(game: &AnyGame, name: &str) -> Option<Actor> {
    if name.eq_ignore_ascii_case("gm") {
        Some(Actor::Gm)
    } else if name.eq_ignore_ascii_case("chance") {
        Some(Actor::Chance)
    } else {
        game.seat_by_name(name).map(Actor::Seat)
    }
}

/// An actor's name as stored and written.
pub fn actor_name(game: &AnyGame, actor: Actor) -> String {
    match actor {
        Actor::Seat(s) => game.seat_name(s).to_string(),
        Actor::Chance => "chance".into(),
        Actor::Gm => "gm".into(),
    }
}

/// `B>resign` names its actor; anything else is the implied actor's ply.
fn split_actor(raw: &str) -> RecordPly {
    if let Some((a, rest)) = raw.split_once('>') {
        if !a.is_empty() && a.chars().all(|c| c.is_ascii_alphabetic()) && !rest.is_empty() {
            return RecordPly {
                actor: Some(a.to_string()),
                text: rest.to_string(),
            };
        }
    }
    RecordPly {
        actor: None,
        text: raw.to_string(),
    }
}

fn parse_tag(line: &str) -> Result<(String, String), String> {
    let inner = line
        .strip_prefix('[')
        .and_then(|l| l.strip_suffix(']'))
        .ok_or("a tag must be written [Name \"value\"]")?;
    let (name, rest) = inner
        .trim()
        .split_once(char::is_whitespace)
        .ok_or("a tag must be written [Name \"value\"]")?;
    let rest = rest.trim();
    let value = rest
        .strip_prefix('"')
        .and_then(|r| r.strip_suffix('"'))
        .ok_or_else(|| format!("the value of tag {name} must be in double quotes"))?;
    Ok((name.to_string(), value.replace("\\\"", "\"")))
}

/// A token that starts with a move number: `12.`, `12...`, or one glued to its ply, `12.5W6`.
/// Its digits are ASCII (regex-lite's `\d` too), the only ones `u32::parse` reads.
fn move_number_regex() -> &'static regex_lite::Regex {
    static NUMBER: std::sync::OnceLock<regex_lite::Regex> = std::sync::OnceLock::new();
    NUMBER.get_or_init(|| regex_lite::Regex::new(r"^([0-9]+)(\.{1,3})(.*)$").expect("static regex"))
}

/// The words of a text with the byte offset each starts at.
fn word_offsets(text: &str) -> impl Iterator<Item = (usize, &str)> {
    text.split_whitespace()
        .map(move |w| (w.as_ptr() as usize - text.as_ptr() as usize, w))
}

/// Removes `{comments}`, each replaced by a space, and keeps each comment's words with the
/// byte offset of that space. As in PGN they do not nest: a comment ends at the first `}`,
/// and a `{` inside one is text.
fn strip_comments(text: &str) -> Result<(String, Vec<(usize, String)>), String> {
    let mut out = String::with_capacity(text.len());
    let mut comments = Vec::new();
    let mut current: Option<String> = None;
    for c in text.chars() {
        match (&mut current, c) {
            (None, '{') => current = Some(String::new()),
            (None, '}') => return Err("a '}' closes no comment".into()),
            (None, c) => out.push(c),
            (Some(words), '}') => {
                let words = words.split_whitespace().collect::<Vec<_>>().join(" ");
                if !words.is_empty() {
                    comments.push((out.len(), words));
                }
                current = None;
                out.push(' ');
            }
            (Some(words), c) => words.push(c),
        }
    }
    if current.is_some() {
        return Err("a '{' comment is never closed".into());
    }
    Ok((out, comments))
}

/// A collection's text cut into its records: a tag line (`[...]`, outside any `{}` comment)
/// after move text begins the next record, as in a PGN file of many games. A text with one
/// record is one piece; blank space between records is dropped.
pub fn split_collection(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut current = String::new();
    let (mut in_comment, mut in_moves, mut named) = (false, false, false);
    for line in text.lines() {
        let t = line.trim();
        let tag = !in_comment && t.starts_with('[');
        // A second `[Game]` begins a record too: the one before may have no move text.
        let game_tag = tag
            && t.get(..5).is_some_and(|n| n.eq_ignore_ascii_case("[Game"))
            && t[5..].starts_with(char::is_whitespace);
        if tag && (in_moves || (game_tag && named)) {
            out.push(std::mem::take(&mut current));
            (in_moves, named) = (false, false);
        }
        named |= game_tag;
        if !in_comment && !t.is_empty() && !t.starts_with('[') {
            in_moves = true;
        }
        for c in line.chars() {
            match c {
                '{' => in_comment = true,
                '}' => in_comment = false,
                _ => {}
            }
        }
        if in_comment {
            in_moves = true;
        }
        current.push_str(line);
        current.push('\n');
    }
    out.push(current);
    out.retain(|r| !r.trim().is_empty());
    out
}

/// Reads `a=1, b=2` (or space separated) into options.
pub fn parse_options(text: &str) -> Result<Options, String> {
    let mut out = BTreeMap::new();
    for part in text.split([',', ' ']).filter(|p| !p.trim().is_empty()) {
        let (k, v) = part
            .split_once('=')
            .ok_or_else(|| format!("option '{part}' must be written name=value"))?;
        out.insert(k.trim().to_ascii_lowercase(), v.trim().to_string());
    }
    Ok(out)
}

/// Writes options as `a=1, b=2`.
pub fn format_options(options: &Options) -> String {
    options
        .iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `[Result]` value: the winner's seat name, `draw`, or `*` while the game goes on.
pub fn result_tag(game: &AnyGame) -> String {
    match game.outcome() {
        Some(Outcome::Win { seat, .. }) => game.seat_name(seat).to_string(),
        Some(Outcome::Draw { .. }) => "draw".into(),
        None => "*".into(),
    }
}

/// Writes a record: the tags in order, then the plies replayed from `start` with move numbers,
/// wrapped to 72 columns. Fails if a ply does not replay (the log is then corrupt).
pub fn write(
    tags: &[(String, String)],
    start: &AnyGame,
    plies: &[(Actor, String)],
) -> Result<String, String> {
    write_plies(tags, start, plies, false, &[])
}

/// [`write`], with each chance ply followed by a comment naming its dice (`roll 3 {d6}`,
/// `roll 2 4 {d4 d4}`): a roll's text does not say which die it is, and a player checking
/// the dice by hand needs to know. Comments are ignored on reading, so it replays the same.
pub fn write_with_dice(
    tags: &[(String, String)],
    start: &AnyGame,
    plies: &[(Actor, String)],
) -> Result<String, String> {
    write_plies(tags, start, plies, true, &[])
}

/// [`write_with_dice`], with a comment after each ply that has a mark (`marks[i]` for ply
/// `i`): the robot's plies (`e4 {robot}`, `{robot for B, out of time}`). Comments are
/// ignored on reading, so it replays the same.
pub fn write_with_dice_marked(
    tags: &[(String, String)],
    start: &AnyGame,
    plies: &[(Actor, String)],
    marks: &[Option<String>],
) -> Result<String, String> {
    write_plies(tags, start, plies, true, marks)
}

fn write_plies(
    tags: &[(String, String)],
    start: &AnyGame,
    plies: &[(Actor, String)],
    name_dice: bool,
    marks: &[Option<String>],
) -> Result<String, String> {
    let mut out = String::new();
    for (name, value) in tags {
        check_tag(name, value)?;
        let _ = writeln!(out, "[{name} \"{}\"]", value.replace('"', "\\\""));
    }
    out.push('\n');
    let mut game = start.clone();
    let mut lines = Lines::default();
    let mut numbered_move: Option<u32> = None;
    let mut last_word = String::new();
    for (i, (actor, text)) in plies.iter().enumerate() {
        // The first numbered move after unnumbered plies ending in a digit (a set-up's row,
        // a roll) starts a line: `... 3 1 1 1. d2-d3` reads as one more number of the row.
        let first_numbered =
            numbered_move.is_none() && last_word.ends_with(|c: char| c.is_ascii_digit());
        // A move number is written with its ply, so a line never ends on a bare number.
        let number = match game.move_number() {
            Some((n, true)) => {
                numbered_move = Some(n);
                format!("{n}. ")
            }
            Some((n, false)) if numbered_move != Some(n) => {
                numbered_move = Some(n);
                format!("{n}... ")
            }
            _ => String::new(),
        };
        let implied = implied_actor(&game) == Some(*actor);
        let prefix = if implied {
            String::new()
        } else {
            format!("{}>", written_actor(&game, *actor))
        };
        // The dice are known only before the roll is played: `to_act` asks for them.
        let dice = match (name_dice, actor, game.to_act()) {
            (true, Actor::Chance, ToAct::Chance(sides)) => Some(dice_comment(&sides)),
            _ => None,
        };
        // The canonical text, not the logged one: a ply logged before its game's notation
        // changed (Dip-Tac-Toe's encoding of free text) is written in today's form.
        let canonical = game
            .play(*actor, text)
            .map_err(|e| format!("the log does not replay at {text}: {e}"))?;
        let word = format!("{prefix}{canonical}");
        check_word(&game, &word, implied)?;
        let new_line = first_numbered && !number.is_empty();
        let unit = format!("{number}{word}");
        match dice {
            // A roll keeps its comment beside it, unless both would not fit on one line.
            Some(dice) if unit.chars().count() + 1 + dice.chars().count() > Lines::MAX => {
                lines.push(&unit, new_line);
                lines.push(&dice, false);
                last_word = dice;
            }
            Some(dice) => {
                lines.push(&format!("{unit} {dice}"), new_line);
                last_word = dice;
            }
            None => {
                lines.push(&unit, new_line);
                last_word = word;
            }
        }
        // A mark is a comment of its own after the ply (no brace inside: it would end it).
        if let Some(Some(mark)) = marks.get(i) {
            let comment = format!("{{{}}}", mark.replace(['{', '}'], ""));
            lines.push(&comment, false);
            last_word = comment;
        }
    }
    out.push_str(&lines.finish());
    Ok(out)
}

/// The comment after a roll naming its dice in order: `{d6}`, `{d4 d4}`, and a run of more
/// than two alike counted, `{32 d6}` (Dicess's opening roll), so that it stays short.
fn dice_comment(sides: &[u32]) -> String {
    let mut runs: Vec<(usize, u32)> = Vec::new();
    for &s in sides {
        match runs.last_mut() {
            Some((n, last)) if *last == s => *n += 1,
            _ => runs.push((1, s)),
        }
    }
    let words: Vec<String> = runs
        .into_iter()
        .map(|(n, s)| match n {
            1 => format!("d{s}"),
            2 => format!("d{s} d{s}"),
            _ => format!("{n} d{s}"),
        })
        .collect();
    format!("{{{}}}", words.join(" "))
}

/// Whether a comment's words are what [`dice_comment`] writes after a roll (`d6`, `d4 d4`,
/// `32 d6`): the record's own naming of the dice, not an annotator's words.
pub fn is_dice_comment(words: &str) -> bool {
    let die = |w: &str| {
        w.strip_prefix('d')
            .is_some_and(|n| n.parse::<u32>().is_ok())
    };
    let mut words = words.split_whitespace();
    let mut any = false;
    while let Some(w) = words.next() {
        // A die, or a count before one (a run of more than two alike).
        let counted = || w.parse::<u32>().is_ok_and(|n| n > 2);
        if !(die(w) || (counted() && words.next().is_some_and(die))) {
            return false;
        }
        any = true;
    }
    any
}

/// The name a record writes before a ply by an actor the position does not imply: the seat's
/// name, `GM` (`GM>draw`, as `records.md` writes it), `chance`.
fn written_actor(game: &AnyGame, actor: Actor) -> String {
    match actor {
        Actor::Gm => "GM".into(),
        _ => actor_name(game, actor),
    }
}

/// Move text packed into lines of at most `WIDTH` characters, a unit (a ply with its move
/// number, a comment) never split where it fits on a line; a longer one (Siberian PURITY's
/// 60 published numbers) is broken at its spaces, which the reader takes as the same text.
/// Only a unit with no space in `MAX` characters can make a line longer than `MAX`.
#[derive(Default)]
struct Lines {
    out: String,
    line: String,
}

impl Lines {
    /// Where a line is broken.
    const WIDTH: usize = 72;
    /// No line is longer, unless one word is.
    const MAX: usize = 78;

    /// Adds a unit; `new_line`: it starts a line of its own, whatever room is left.
    fn push(&mut self, unit: &str, new_line: bool) {
        if unit.chars().count() <= Self::MAX {
            return self.place(unit, new_line);
        }
        let mut words: Vec<String> = unit.split(' ').map(str::to_string).collect();
        // A move number stays with its ply's first word, as for any ply.
        if words.len() > 1 && words[0].ends_with('.') {
            let first = words.remove(0);
            words[0] = format!("{first} {}", words[0]);
        }
        for (i, word) in words.iter().enumerate() {
            self.place(word, new_line && i == 0);
        }
    }

    /// Puts a piece of text on this line, or on the next when it would not fit.
    fn place(&mut self, piece: &str, new_line: bool) {
        let len = |s: &str| s.chars().count();
        if !self.line.is_empty() && (new_line || len(&self.line) + 1 + len(piece) > Self::WIDTH) {
            self.out.push_str(&self.line);
            self.out.push('\n');
            self.line.clear();
        }
        if !self.line.is_empty() {
            self.line.push(' ');
        }
        self.line.push_str(piece);
    }

    fn finish(mut self) -> String {
        if !self.line.is_empty() {
            self.out.push_str(&self.line);
            self.out.push('\n');
        }
        self.out
    }
}

/// The tags that carry a game's salts, one plain tag each in the order they go into every
/// roll: `[DiceSalt1 "..."]`, `[DiceSalt2 "..."]` ... (none without salts).
pub fn dice_salt_tags(salts: &[String]) -> Vec<(String, String)> {
    salts
        .iter()
        .enumerate()
        .map(|(i, salt)| (format!("DiceSalt{}", i + 1), salt.clone()))
        .collect()
}

/// A tag the reader would not give back as written is refused rather than written: its name
/// must be one word, its value one line (a `"` in it is escaped, a `\` stands for itself).
fn check_tag(name: &str, value: &str) -> Result<(), String> {
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return Err(format!("'{name}' cannot be a tag name"));
    }
    if value.contains(['\n', '\r']) {
        return Err(format!("the value of tag {name} has a line break"));
    }
    Ok(())
}

/// Refuses a ply that the reader would not give back as this one ply: the record would not
/// replay. Games keep their canonical plies clear of comment braces, tag brackets, move
/// numbers, actor prefixes and odd white space (Dip-Tac-Toe percent-encodes its players' words),
/// so this never fails for a log their `play` wrote; it stops a bad record being exported.
fn check_word(game: &AnyGame, word: &str, implied: bool) -> Result<(), String> {
    let problem = if word.contains(['{', '}']) {
        "a comment brace"
    } else if word.starts_with('[') {
        "a tag's opening bracket"
    } else if word.split_whitespace().collect::<Vec<_>>().join(" ") != word {
        "white space other than single spaces"
    } else if word
        .split_whitespace()
        .any(|t| move_number_regex().is_match(t))
    {
        "a move number"
    } else if implied && split_actor(word).actor.is_some() {
        "an actor's name"
    } else if game.split_plies(word) != [word] {
        "several plies"
    } else {
        return Ok(());
    };
    Err(format!(
        "the ply '{word}' would read back as {problem}: it cannot be written in a record"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_are_kept_with_the_plies_before_them() {
        let text = "[Game \"dicerink\"]\n\n{before} b1 5/4 b4 2/4 d1 3/6 d4 6/4\n\
                    1. 5W6 6S3 2. 3W2 2E1 3. 2N1 {B traps\nthe die} 1W2 4. 1E3 {a mistake}";
        let r = Record::parse(text).unwrap();
        let done = r.replay().unwrap();
        assert_eq!(
            done.comments,
            vec![
                (0, "before".to_string()),
                (9, "B traps the die".to_string()),
                (11, "a mistake".to_string())
            ]
        );
    }

    #[test]
    fn the_dice_comments_written_are_read_as_such() {
        for sides in [vec![6], vec![4, 4], vec![6; 32], vec![6, 6, 6, 4]] {
            let written = dice_comment(&sides);
            let words = written.trim_start_matches('{').trim_end_matches('}');
            assert!(is_dice_comment(words), "{written}");
        }
        for words in ["", "d", "32", "32 dice", "d6 is a die", "2 d6", "a d6"] {
            assert!(!is_dice_comment(words), "{words}");
        }
    }

    #[test]
    fn a_collection_splits_at_each_records_tags() {
        let text = "[Game \"dicerink\"]\n[Result \"A\"]\n\n1. 5W6 {a\n[not a tag]} 6S3\n\n\
                    [Game \"d4d6\"]\n[Result \"*\"]\n\n1. e2\n";
        let parts = split_collection(text);
        assert_eq!(parts.len(), 2, "{parts:?}");
        assert!(parts[0].contains("[not a tag]"));
        assert!(parts[1].starts_with("[Game \"d4d6\"]"));
        assert_eq!(split_collection("[Game \"x\"]\n1. a\n").len(), 1);
        let no_moves = "[Game \"x\"]\n[GameId \"5\"]\n\n[Game \"x\"]\n1. a\n";
        assert_eq!(split_collection(no_moves).len(), 2);
    }

    #[test]
    fn reads_tags_numbers_and_comments() {
        let r = Record::parse(
            "[Game \"dicerink\"]\n[Event \"x \\\"y\\\"\"]\n\n1.3N6 {a comment} 6S4 2. 4N5 {two\nlines}\n12... 5W6",
        )
        .unwrap();
        assert_eq!(r.tag("game"), Some("dicerink"));
        assert_eq!(r.tag("Event"), Some("x \"y\""));
        assert_eq!(
            r.items,
            vec![
                Item::Number { n: 1, first: true },
                Item::Plies("3N6 6S4".into()),
                Item::Number { n: 2, first: true },
                Item::Plies("4N5".into()),
                Item::Number {
                    n: 12,
                    first: false
                },
                Item::Plies("5W6".into()),
            ]
        );
    }

    #[test]
    fn rejects_unclosed_comments_and_bad_tags() {
        assert!(Record::parse("[Game dicerink]").is_err());
        assert!(Record::parse("[Game \"dicerink\"]\n1. 3N6 {oops").is_err());
        assert!(Record::parse("[Game \"dicerink\"]\n1. 3N6 }").is_err());
    }

    #[test]
    fn comments_do_not_nest() {
        let r = Record::parse("[Game \"dicerink\"]\n1. 3N6 {a {b} 6S4 {c}").unwrap();
        assert_eq!(r.items[1], Item::Plies("3N6 6S4".into()));
        assert!(Record::parse("[Game \"dicerink\"]\n1. 3N6 {a {b} c} 6S4").is_err());
    }

    #[test]
    fn what_would_not_read_back_is_not_written() {
        let game = AnyGame::new(GameKind::DipTacToe, &Options::new()).unwrap();
        let ok = "BLUE:?%7B;RED:;GREEN:;YELLOW:";
        assert_eq!(check_word(&game, ok, true), Ok(()));
        for bad in [
            "BLUE:?{;RED:;GREEN:;YELLOW:",
            "BLUE:?};RED:",
            "[BLUE:",
            "BLUE:?a\nb",
            "BLUE: ?a",
            "12.BLUE:",
            "GM>draw",
        ] {
            assert!(check_word(&game, bad, true).is_err(), "{bad}");
        }
        assert_eq!(check_word(&game, "GM>draw", false), Ok(()));
        let start = AnyGame::new(GameKind::DiceRink, &Options::new()).unwrap();
        for (name, value) in [("Event", "two\nlines"), ("Two words", "x"), ("", "x")] {
            let tags = [(name.to_string(), value.to_string())];
            assert!(write(&tags, &start, &[]).is_err(), "{name}");
        }
    }

    #[test]
    fn actor_prefix_is_read() {
        assert_eq!(
            split_actor("B>resign"),
            RecordPly {
                actor: Some("B".into()),
                text: "resign".into()
            }
        );
        assert_eq!(split_actor("5W6").actor, None);
    }

    #[test]
    fn dice_comments_name_each_roll_and_replay_unchanged() {
        let options = parse_options("variant=rinoceronte").unwrap();
        let start = AnyGame::new(GameKind::D4D6, &options).unwrap();
        let plies: Vec<(Actor, String)> = [
            (Actor::Chance, "roll 2 4"),
            (Actor::Seat(0), "Foc1"),
            (Actor::Chance, "roll 1"),
        ]
        .into_iter()
        .map(|(a, t)| (a, t.to_string()))
        .collect();
        let tags = [
            ("Game".to_string(), "d4d6".to_string()),
            ("Options".to_string(), "variant=rinoceronte".to_string()),
        ];
        let text = write_with_dice(&tags, &start, &plies).unwrap();
        assert!(
            text.contains("roll 2 4 {d4 d4} 1. Foc1 roll 1 {d6}"),
            "{text}"
        );
        let plain = write(&tags, &start, &plies).unwrap();
        assert!(!plain.contains('{'), "{plain}");
        let again = Record::parse(&text).unwrap().replay().unwrap();
        assert_eq!(again.log, plies);
        assert_eq!(
            Record::parse(&text).unwrap().items,
            Record::parse(&plain).unwrap().items
        );
    }

    #[test]
    fn the_first_move_number_after_a_set_up_starts_a_line() {
        let start = AnyGame::new(GameKind::Dicess, &Options::new()).unwrap();
        let plies: Vec<(Actor, String)> = [
            (
                Actor::Chance,
                "roll 6 2 4 1 1 3 5 5 2 6 4 3 1 2 6 5 2 2 5 1 6 3 4 4 1 5 6 2 3 3 1 6",
            ),
            (Actor::Seat(0), "R1: 6 2 4 1 1 3 5 5 / R2: 2 6 4 3 1 2 6 5"),
            (Actor::Seat(1), "R8: 2 2 5 1 6 3 4 4 / R7: 1 5 6 2 3 3 1 6"),
            (Actor::Seat(0), "e2-e3-e4; f2-f3"),
        ]
        .into_iter()
        .map(|(a, t)| (a, t.to_string()))
        .collect();
        let tags = [("Game".to_string(), "dicess".to_string())];
        let text = write(&tags, &start, &plies).unwrap();
        assert!(
            text.contains("/ R7: 1 5 6 2 3 3 1 6\n1. e2-e3-e4; f2-f3\n"),
            "{text}"
        );
        assert_eq!(Record::parse(&text).unwrap().replay().unwrap().log, plies);
    }

    #[test]
    fn options_round_trip() {
        let o = parse_options("setup=fixed, movecap=40").unwrap();
        assert_eq!(parse_options(&format_options(&o)).unwrap(), o);
        assert!(parse_options("setup").is_err());
    }
}
