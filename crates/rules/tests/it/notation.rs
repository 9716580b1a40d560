//! Runs every game's example lists, notation/<game>.valid and .invalid, in the one format of notation/lists.md.
//!
//! A game takes part by its two files alone: the runner knows no game, only `GameKind::ALL` and
//! `AnyGame`. An example's actor is a seat name, `GM`, `CHANCE` or `PLAN` (a one-message turn
//! read by `AnyGame::conditional`, its lines separated by ` \ `). One rule covers simultaneous
//! games: a seat whose position waits for orders (`ToAct::Orders`) writes an order line, which
//! is checked by `AnyGame::check_orders` (read, or void with a reason) instead of `play`.

use std::path::PathBuf;

use pbem_rules::games::{Actor, AnyGame, GameKind, Options, PlyError, Seat, ToAct, GM_OPTIONS};
use pbem_rules::records::{actor_by_name, implied_actor};

use crate::workspace_root;

/// One example line of a list.
pub struct Example {
    /// `file:line`, for messages.
    pub at: String,
    pub ply: String,
    pub expected: String,
    pub actor: String,
    pub position: String,
}

/// How an example's actor writes its text.
enum Role {
    /// A ply, played by `AnyGame::play`.
    Ply(Actor),
    /// An order line of a simultaneous turn, checked by `AnyGame::check_orders`.
    Orders(Seat),
    /// A one-message turn, read by `AnyGame::conditional`.
    Plan,
}

/// The refusal categories of `.invalid`: `PlyError`'s four, and `void` for an order line.
const CATEGORIES: &[&str] = &["syntax", "illegal", "ambiguous", "turn", "void"];

/// The fewest examples a list may hold: what each list held at least when the games' three
/// runners became this one (a list may only grow), and 30 for any other game's.
fn minimum(file: &str) -> usize {
    match file {
        "d4d6.valid" => 41,
        "d4d6.invalid" => 21,
        _ => 30,
    }
}

fn list_path(kind: GameKind, ext: &str) -> PathBuf {
    workspace_root()
        .join("notation")
        .join(format!("{}.{ext}", kind.name()))
}

/// The ply field: trimmed, or exactly what stands between double quotes (`" 5 W 6 "`, `""`).
fn ply_field(field: &str) -> String {
    let t = field.trim();
    match t.strip_prefix('"').and_then(|s| s.strip_suffix('"')) {
        Some(exact) => exact.to_string(),
        None => t.to_string(),
    }
}

/// Reads a list: `#` comments and blank lines skipped, four fields split from the right (a
/// ply may hold `|`), an empty position meaning the position of the line above.
pub fn read_list(kind: GameKind, ext: &str) -> Vec<Example> {
    let path = list_path(kind, ext);
    let file = format!("{}.{ext}", kind.name());
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (every game has its two lists)", path.display()));
    let mut examples = Vec::new();
    let mut position: Option<String> = None;
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let at = format!("{file}:{}", i + 1);
        let fields: Vec<&str> = line.rsplitn(4, '|').collect();
        assert_eq!(
            fields.len(),
            4,
            "{at}: four fields separated by '|' expected"
        );
        if !fields[0].trim().is_empty() {
            position = Some(fields[0].trim().to_string());
        }
        examples.push(Example {
            ply: ply_field(fields[3]),
            expected: fields[2].trim().to_string(),
            actor: fields[1].trim().to_string(),
            position: position
                .clone()
                .unwrap_or_else(|| panic!("{at}: the first example names its position")),
            at,
        });
    }
    let least = minimum(&file);
    assert!(
        examples.len() >= least,
        "{file}: {} examples, fewer than {least}",
        examples.len()
    );
    examples
}

fn is_option(kind: GameKind, name: &str) -> bool {
    kind.option_specs().iter().any(|o| o.name == name) || GM_OPTIONS.contains(&name)
}

/// Builds a position field: `start` or a `[Position]` tag, with the game's `option=value`
/// words before either (or right after `start`), then `+ plies` played by whoever the
/// position expects (as a record's plies are).
fn build(kind: GameKind, spec: &str) -> Result<AnyGame, String> {
    let (base, plies) = spec.split_once('+').unwrap_or((spec, ""));
    let mut options = Options::new();
    let mut start = false;
    let mut tag: Vec<&str> = Vec::new();
    for word in base.split_whitespace() {
        if tag.is_empty() {
            if word == "start" && !start {
                start = true;
                continue;
            }
            if let Some((name, value)) = word.split_once('=').filter(|(n, _)| is_option(kind, n)) {
                options.insert(name.to_string(), value.to_string());
                continue;
            }
        }
        tag.push(word);
    }
    let mut game = match (start, tag.is_empty()) {
        (true, true) => AnyGame::new(kind, &options),
        (false, false) => AnyGame::from_position(kind, &options, &tag.join(" ")),
        (true, false) => Err("`start` or a position tag, not both".to_string()),
        (false, true) => Err("neither `start` nor a position tag".to_string()),
    }
    .map_err(|e| format!("position '{spec}': {e}"))?;
    for ply in game.split_plies(plies) {
        let actor = implied_actor(&game)
            .ok_or_else(|| format!("position '{spec}': the game is over before {ply}"))?;
        game.play(actor, &ply)
            .map_err(|e| format!("position '{spec}': ply {ply}: {e}"))?;
    }
    Ok(game)
}

/// The actor column read in its position; a seat owing orders writes an order line.
fn role(game: &AnyGame, name: &str) -> Result<Role, String> {
    if name == "PLAN" {
        return Ok(Role::Plan);
    }
    let actor = actor_by_name(game, name).ok_or_else(|| format!("unknown actor '{name}'"))?;
    Ok(match (actor, game.to_act()) {
        (Actor::Seat(seat), ToAct::Orders(_)) => Role::Orders(seat),
        (actor, _) => Role::Ply(actor),
    })
}

/// A one-message turn as `declaration => rolls:outcome ...`, or `None` if it is not one.
fn plan(game: &AnyGame, text: &str) -> Option<String> {
    let lines: Vec<String> = text.split(" \\ ").map(str::to_string).collect();
    let c = game.conditional(&lines)?;
    let mut s = format!("{} =>", c.declaration);
    for (rolls, outcome) in &c.outcomes {
        let r: Vec<String> = rolls.iter().map(u32::to_string).collect();
        s.push_str(&format!(" {}:{}", r.join(","), outcome));
    }
    Some(s)
}

/// Plays a `.valid` example from its position: `Err` says how it failed.
pub fn check_valid(kind: GameKind, ex: &Example) -> Result<(), String> {
    let start = build(kind, &ex.position)?;
    let expected = ex.expected.clone();
    match role(&start, &ex.actor)? {
        Role::Plan => match plan(&start, &ex.ply) {
            Some(got) if got == expected => Ok(()),
            got => Err(format!("read as {got:?}")),
        },
        Role::Orders(seat) => {
            let got = start.check_orders(seat, std::slice::from_ref(&ex.ply));
            if got != [Ok(expected.clone())] {
                return Err(format!("read as {got:?}"));
            }
            let again = start.check_orders(seat, std::slice::from_ref(&expected));
            if again != [Ok(expected.clone())] {
                return Err(format!("its canonical form reads as {again:?}"));
            }
            if expected.contains(char::is_whitespace) {
                return Err("an order line's canonical form holds white space".into());
            }
            Ok(())
        }
        Role::Ply(actor) => {
            let mut game = start.clone();
            let got = game
                .play(actor, &ex.ply)
                .map_err(|e| format!("refused: {e}"))?;
            if got != expected {
                return Err(format!("read as '{got}'"));
            }
            let mut again = start.clone();
            match again.play(actor, &got) {
                Ok(c) if c == got => {}
                other => return Err(format!("its canonical form plays as {other:?}")),
            }
            if again.position_tag() != game.position_tag() || again.outcome() != game.outcome() {
                return Err("its canonical form leads to another position".into());
            }
            Ok(())
        }
    }
}

fn category(e: &PlyError) -> &'static str {
    match e {
        PlyError::Syntax(_) => "syntax",
        PlyError::Illegal(_) => "illegal",
        PlyError::Ambiguous(_) => "ambiguous",
        PlyError::NotYourTurn(_) => "turn",
    }
}

/// Checks a refusal against the expected field: `<category>`, `<category>: <part of the
/// message>`, or `<part of the message>`.
fn refused_as(expected: &str, got_category: &str, message: &str) -> Result<(), String> {
    let (want_category, part) = match expected.split_once(':') {
        _ if CATEGORIES.contains(&expected) => (Some(expected), ""),
        Some((c, rest)) if CATEGORIES.contains(&c.trim()) => (Some(c.trim()), rest.trim()),
        _ => (None, expected),
    };
    if want_category.is_none() && part.is_empty() {
        return Err("the list does not say why it is refused".into());
    }
    if want_category.is_some_and(|c| c != got_category) {
        return Err(format!("refused as {got_category}: \"{message}\""));
    }
    if !message.contains(part) {
        return Err(format!(
            "refused with \"{message}\", which does not say \"{part}\""
        ));
    }
    Ok(())
}

fn check_invalid(kind: GameKind, ex: &Example) -> Result<(), String> {
    let start = build(kind, &ex.position)?;
    match role(&start, &ex.actor)? {
        Role::Plan => Err("a PLAN example belongs in the .valid list".into()),
        Role::Orders(seat) => match &start.check_orders(seat, std::slice::from_ref(&ex.ply))[..] {
            [Err(reason)] => refused_as(&ex.expected, "void", reason),
            other => Err(format!("accepted: {other:?}")),
        },
        Role::Ply(actor) => {
            let mut game = start.clone();
            let err = match game.play(actor, &ex.ply) {
                Ok(c) => return Err(format!("accepted as '{c}'")),
                Err(e) => e,
            };
            refused_as(&ex.expected, category(&err), &err.to_string())?;
            if game.position_tag() != start.position_tag() {
                return Err("the refused ply changed the position".into());
            }
            Ok(())
        }
    }
}

/// Checks every game's list of this kind, and reports every failing line at once.
fn run(ext: &str, check: fn(GameKind, &Example) -> Result<(), String>) {
    let mut failures = Vec::new();
    for &kind in GameKind::ALL {
        for ex in read_list(kind, ext) {
            if let Err(why) = check(kind, &ex) {
                failures.push(format!("{}: '{}': {why}", ex.at, ex.ply));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} example(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn every_valid_example_reads_as_its_canonical_form_which_reads_as_itself() {
    run("valid", check_valid);
}

#[test]
fn every_invalid_example_is_refused_as_listed_and_changes_nothing() {
    run("invalid", check_invalid);
}
