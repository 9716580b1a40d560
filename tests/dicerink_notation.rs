//! Runs the example lists notation/dicerink.valid and notation/dicerink.invalid against the engine.

use pbem::games::dicerink::DiceRink;
use pbem::games::{Actor, Options, Rules, ToAct};

/// One example line: the ply as written, what is expected, and the position it is read in.
struct Example {
    line_no: usize,
    text: String,
    expected: String,
    position: String,
}

/// Reads a list: `#` comments and blank lines skipped; an empty position field repeats the
/// position of the line above.
fn read_list(name: &str) -> Vec<Example> {
    let path = format!("{}/notation/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut examples = Vec::new();
    let mut position = String::from("start");
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.split('|').collect();
        assert_eq!(fields.len(), 3, "{name}:{}: expected 3 fields", i + 1);
        if !fields[2].trim().is_empty() {
            position = fields[2].trim().to_string();
        }
        examples.push(Example {
            line_no: i + 1,
            text: fields[0].to_string(),
            expected: fields[1].trim().to_string(),
            position: position.clone(),
        });
    }
    examples
}

/// Builds the position field: a `[Position]` tag, or `start [opt=val ...] [+ plies]`.
fn build(position: &str) -> DiceRink {
    let Some(rest) = position.strip_prefix("start") else {
        return DiceRink::from_position(&Options::new(), position)
            .unwrap_or_else(|e| panic!("bad position tag '{position}': {e}"));
    };
    let (opts, plies) = rest.split_once('+').unwrap_or((rest, ""));
    let mut options = Options::new();
    for pair in opts.split_whitespace() {
        let (k, v) = pair.split_once('=').expect("option=value");
        options.insert(k.to_string(), v.to_string());
    }
    let mut game = DiceRink::new(&options).unwrap();
    for ply in game.split_plies(plies) {
        let ToAct::Seat(seat) = game.to_act() else {
            panic!("game over before {ply}")
        };
        game.play(Actor::Seat(seat), &ply)
            .unwrap_or_else(|e| panic!("setting up '{position}': {ply}: {e}"));
    }
    game
}

/// The actor who would write this ply: the GM for an agreed draw, else the side to move.
fn actor_for(game: &DiceRink, text: &str) -> Actor {
    if text.trim().eq_ignore_ascii_case("draw") {
        return Actor::Gm;
    }
    match game.to_act() {
        ToAct::Seat(s) => Actor::Seat(s),
        other => panic!("nobody to move: {other:?}"),
    }
}

#[test]
fn every_valid_example_reads_as_its_canonical_form_and_that_reads_back() {
    let examples = read_list("dicerink.valid");
    assert!(examples.len() >= 30, "the list is too short");
    for ex in examples {
        let start = build(&ex.position);
        let mut game = start.clone();
        let actor = actor_for(&game, &ex.text);
        let canonical = game.play(actor, &ex.text).unwrap_or_else(|e| {
            panic!("dicerink.valid:{}: '{}' refused: {e}", ex.line_no, ex.text)
        });
        assert_eq!(
            canonical, ex.expected,
            "dicerink.valid:{}: '{}'",
            ex.line_no, ex.text
        );
        let mut again = start.clone();
        let reread = again.play(actor, &canonical).unwrap();
        assert_eq!(reread, canonical, "dicerink.valid:{}", ex.line_no);
        assert_eq!(again.position_tag(), game.position_tag());
        assert_eq!(again.outcome(), game.outcome());
    }
}

#[test]
fn every_invalid_example_is_refused_with_the_stated_reason() {
    let examples = read_list("dicerink.invalid");
    assert!(examples.len() >= 30, "the list is too short");
    for ex in examples {
        let mut game = build(&ex.position);
        let before = game.position_tag();
        let actor = actor_for(&game, &ex.text);
        let err = match game.play(actor, &ex.text) {
            Ok(c) => panic!(
                "dicerink.invalid:{}: '{}' was accepted as {c}",
                ex.line_no, ex.text
            ),
            Err(e) => e.to_string(),
        };
        assert!(
            err.contains(&ex.expected),
            "dicerink.invalid:{}: '{}' refused with \"{err}\", expected it to say \"{}\"",
            ex.line_no,
            ex.text,
            ex.expected
        );
        assert_eq!(game.position_tag(), before, "a refused ply changed nothing");
    }
}
