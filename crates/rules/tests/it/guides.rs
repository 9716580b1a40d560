//! Every move a player's guide (`help/<game>.md`, `GameFacts::player_guide`) shows as an example is a real one: it stands in the game's `.valid` list and plays there.
//!
//! A guide marks its examples by indentation alone, so that the mail reads as plain text:
//! a line indented by exactly six spaces is an example, its text running to the first gap of
//! two or more spaces (what follows explains it); lines indented by exactly eight spaces
//! right after an example continue it, a turn written over several lines (a plan), whose
//! lines the lists join with ` \ `.

use pbem_rules::games::GameKind;

use crate::notation::{check_valid, read_list, Example};

/// The fewest examples a guide shows, so that an indentation slip cannot empty the check.
const FEWEST: usize = 5;

/// One example of a guide: its line number and text (a plan's lines joined with ` \ `).
#[derive(Debug, PartialEq)]
struct Shown {
    line: usize,
    text: String,
    plan: bool,
}

/// The leading spaces of a line.
fn indent(line: &str) -> usize {
    line.len() - line.trim_start_matches(' ').len()
}

/// The examples a guide marks, in order.
fn examples(guide: &str) -> Vec<Shown> {
    let mut shown: Vec<Shown> = Vec::new();
    let mut open = false;
    for (i, line) in guide.lines().enumerate() {
        let body = line.trim_start_matches(' ');
        match indent(line) {
            _ if body.is_empty() => open = false,
            6 => {
                let text = body.split("  ").next().unwrap_or(body).trim_end();
                shown.push(Shown {
                    line: i + 1,
                    text: text.to_string(),
                    plan: false,
                });
                open = true;
            }
            8 if open => {
                let last = shown.last_mut().expect("an example is open");
                last.text.push_str(" \\ ");
                last.text.push_str(body.trim_end());
                last.plan = true;
            }
            _ => open = false,
        }
    }
    shown
}

/// The example's check: a `.valid` line with the same text that plays as listed (a line
/// may be a ply or a one-message turn: a plan's lines are joined as in the lists).
fn check(kind: GameKind, valid: &[Example], shown: &Shown) -> Result<(), String> {
    let same: Vec<&Example> = valid
        .iter()
        .filter(|ex| ex.ply == shown.text && (ex.actor == "PLAN" || !shown.plan))
        .collect();
    if same.is_empty() {
        return Err(format!(
            "not in {}.valid: add it there, with a position where it is legal",
            kind.name()
        ));
    }
    let results: Vec<Result<(), String>> = same.iter().map(|ex| check_valid(kind, ex)).collect();
    if results.iter().any(Result::is_ok) {
        return Ok(());
    }
    let why: Vec<String> = same
        .iter()
        .zip(results)
        .map(|(ex, r)| format!("{}: {}", ex.at, r.unwrap_err()))
        .collect();
    Err(why.join("; "))
}

#[test]
fn every_move_a_guide_shows_is_a_valid_example_of_its_game() {
    let mut failures = Vec::new();
    for &kind in GameKind::ALL {
        let guide = kind.facts().player_guide;
        let shown = examples(guide);
        if shown.len() < FEWEST {
            failures.push(format!(
                "help/{}.md: {} examples, fewer than {FEWEST}",
                kind.name(),
                shown.len()
            ));
        }
        let valid = read_list(kind, "valid");
        for s in &shown {
            if let Err(why) = check(kind, &valid, s) {
                failures.push(format!(
                    "help/{}.md:{}: '{}': {why}",
                    kind.name(),
                    s.line,
                    s.text
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} guide example(s) failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn examples_are_read_by_their_indentation() {
    let guide = "Prose.\n\
                 \n      5W6         rolls west\n\
                 \n      Ga d1 d6\n        1: stay\n        *: stay\n\
                 \n        not an example\n  BOARD   a command\n";
    let shown = examples(guide);
    assert_eq!(
        shown,
        vec![
            Shown {
                line: 3,
                text: "5W6".into(),
                plan: false
            },
            Shown {
                line: 5,
                text: "Ga d1 d6 \\ 1: stay \\ *: stay".into(),
                plan: true
            },
        ]
    );
}

#[test]
fn an_example_that_is_not_listed_or_not_legal_fails() {
    let valid = read_list(GameKind::DiceRink, "valid");
    let shown = |text: &str| Shown {
        line: 1,
        text: text.into(),
        plan: false,
    };
    assert!(check(GameKind::DiceRink, &valid, &shown("5W6")).is_ok());
    assert!(check(GameKind::DiceRink, &valid, &shown("5X6")).is_err());
    assert!(check(GameKind::DiceRink, &valid, &shown("b1 N")).is_err());
}
