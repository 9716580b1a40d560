//! Runs notation/d4d6.valid and notation/d4d6.invalid: each ply is played by its actor in its
//! position and must give the listed canonical form, or be refused for the listed reason.

use pbem::games::d4d6::D4d6;
use pbem::games::{Actor, Options, PlyError, Rules, ToAct};

struct Example {
    line_no: usize,
    text: String,
    expected: String,
    actor: String,
    position: String,
}

fn read_list(name: &str) -> Vec<Example> {
    let path = format!("{}/notation/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut out = Vec::new();
    let mut position = String::from("start");
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = line.rsplitn(4, '|').collect();
        assert_eq!(fields.len(), 4, "{name}:{}: expected 4 fields", i + 1);
        let (pos, actor, expected, ply) = (fields[0], fields[1], fields[2], fields[3]);
        if !pos.trim().is_empty() {
            position = pos.trim().to_string();
        }
        out.push(Example {
            line_no: i + 1,
            text: ply.trim().to_string(),
            expected: expected.trim().to_string(),
            actor: actor.trim().to_string(),
            position: position.clone(),
        });
    }
    out
}

/// `start [variant=...] [+ plies]` or `<tag> [+ plies]`.
fn build(spec: &str) -> D4d6 {
    let (base, plies) = spec.split_once('+').unwrap_or((spec, ""));
    let mut options = Options::new();
    let mut game = if let Some(rest) = base.trim().strip_prefix("start") {
        for pair in rest.split_whitespace() {
            let (k, v) = pair.split_once('=').expect("option=value");
            options.insert(k.into(), v.into());
        }
        D4d6::new(&options).expect("start")
    } else {
        D4d6::from_position(&options, base.trim()).unwrap_or_else(|e| panic!("'{base}': {e}"))
    };
    for ply in game.split_plies(plies) {
        let actor = match game.to_act() {
            ToAct::Seat(s) => Actor::Seat(s),
            ToAct::Chance(_) => Actor::Chance,
            other => panic!("nobody to play '{ply}': {other:?}"),
        };
        game.play(actor, &ply)
            .unwrap_or_else(|e| panic!("set-up ply '{ply}' in '{spec}': {e}"));
    }
    game
}

fn actor(name: &str) -> Actor {
    match name {
        "WHITE" => Actor::Seat(0),
        "BLACK" => Actor::Seat(1),
        "GM" => Actor::Gm,
        "CHANCE" => Actor::Chance,
        other => panic!("unknown actor {other}"),
    }
}

/// A one-message turn, lines separated by ` \ `, as `declaration => rolls:outcome ...`.
fn plan(game: &D4d6, text: &str) -> Option<String> {
    let lines: Vec<String> = text.split(" \\ ").map(str::to_string).collect();
    let c = game.conditional(&lines)?;
    let mut s = format!("{} =>", c.declaration);
    for (rolls, outcome) in &c.outcomes {
        let r: Vec<String> = rolls.iter().map(u32::to_string).collect();
        s.push_str(&format!(" {}:{}", r.join(","), outcome));
    }
    Some(s)
}

#[test]
fn valid_examples_read_as_listed() {
    let examples = read_list("d4d6.valid");
    assert!(examples.len() > 40);
    for ex in examples {
        let mut game = build(&ex.position);
        let got = if ex.actor == "PLAN" {
            plan(&game, &ex.text).unwrap_or_else(|| panic!("line {}: not a plan", ex.line_no))
        } else {
            game.play(actor(&ex.actor), &ex.text)
                .unwrap_or_else(|e| panic!("line {} '{}': {e}", ex.line_no, ex.text))
        };
        assert_eq!(got, ex.expected, "line {} '{}'", ex.line_no, ex.text);
        if ex.actor != "PLAN" {
            // The canonical form reads back to itself in the same position.
            let mut again = build(&ex.position);
            assert_eq!(
                again.play(actor(&ex.actor), &got).as_deref(),
                Ok(got.as_str()),
                "line {}",
                ex.line_no
            );
        }
    }
}

#[test]
fn invalid_examples_are_refused_as_listed() {
    let examples = read_list("d4d6.invalid");
    assert!(examples.len() > 20);
    for ex in examples {
        let mut game = build(&ex.position);
        let before = game.position_tag();
        let err = game
            .play(actor(&ex.actor), &ex.text)
            .expect_err(&format!("line {} '{}' was accepted", ex.line_no, ex.text));
        let kind = match err {
            PlyError::Syntax(_) => "syntax",
            PlyError::Illegal(_) => "illegal",
            PlyError::Ambiguous(_) => "ambiguous",
            PlyError::NotYourTurn(_) => "turn",
        };
        assert_eq!(
            kind, ex.expected,
            "line {} '{}': {err}",
            ex.line_no, ex.text
        );
        assert_eq!(
            game.position_tag(),
            before,
            "line {}: refused ply changed the game",
            ex.line_no
        );
    }
}
