//! Whole-game tests of Dicess through the `Rules` interface, and the property that random legal turns replay identically from their canonical text.

use proptest::prelude::*;

use super::position::{Board, Die, Square, LIGHT};
use super::steps;
use super::Dicess;
use crate::games::{Actor, Options, Outcome, PlyError, Rules, ToAct};

const ROLL: &str = "roll 6 2 4 1 1 3 5 5 2 6 4 3 1 2 6 5 2 2 5 1 6 3 4 4 1 5 6 2 3 3 1 6";

fn started() -> Dicess {
    let mut g = Dicess::new(&Options::new()).unwrap();
    g.play(Actor::Chance, ROLL).unwrap();
    g.play(Actor::Seat(0), "R1: 6 2 4 1 1 3 5 5 / R2: 2 6 4 3 1 2 6 5")
        .unwrap();
    g.play(Actor::Seat(1), "R8: 2 2 5 1 6 3 4 4 / R7: 1 5 6 2 3 3 1 6")
        .unwrap();
    g
}

fn at(tag: &str) -> Dicess {
    Dicess::from_position(&Options::new(), tag).unwrap()
}

#[test]
fn the_set_up_goes_roll_light_dark_then_light_moves() {
    let mut g = Dicess::new(&Options::new()).unwrap();
    assert_eq!(g.to_act(), ToAct::Chance(vec![6; 32]));
    assert!(g.moves_help().unwrap().contains("nobody moves"));
    // A sample of rolls, each legal.
    let rolls = g.legal_plies();
    assert_eq!(rolls.len(), 6);
    for roll in &rolls {
        assert_eq!(g.clone().play(Actor::Chance, roll).as_ref(), Ok(roll));
    }
    assert_eq!(g.position_tag(), "LIGHT:- DARK:- setup=roll");
    assert!(matches!(
        g.play(Actor::Seat(0), "R1: 6 2 4 1 1 3 5 5 / R2: 2 6 4 3 1 2 6 5"),
        Err(PlyError::NotYourTurn(_))
    ));
    g.play(Actor::Chance, ROLL).unwrap();
    let report = g.last_report().unwrap();
    assert!(
        report.contains("LIGHT rolled 6 2 4 1 1 3 5 5 2 6 4 3 1 2 6 5"),
        "{report}"
    );
    assert!(g
        .board()
        .contains("DARK rolled 2 2 5 1 6 3 4 4 1 5 6 2 3 3 1 6"));
    assert_eq!(g.to_act(), ToAct::Seat(0));
    assert_eq!(
        g.play(Actor::Seat(0), "r2:26431265/r1:62411355").unwrap(),
        "R1: 6 2 4 1 1 3 5 5 / R2: 2 6 4 3 1 2 6 5"
    );
    let tag = g.position_tag();
    assert!(
        tag.ends_with("move=DARK setup=6241135526431265,2251634415623316"),
        "{tag}"
    );
    assert_eq!(
        Dicess::from_position(&Options::new(), &tag)
            .unwrap()
            .position_tag(),
        tag
    );
    g.play(Actor::Seat(1), "R7: 1 5 6 2 3 3 1 6 / R8: 2 2 5 1 6 3 4 4")
        .unwrap();
    assert_eq!(g.to_act(), ToAct::Seat(0));
    assert_eq!(g.move_number(), Some((1, true)));
    assert_eq!(g.position_json()["scores"]["LIGHT"], 184);
    assert_eq!(g.position_json()["scores"]["DARK"], 184);
}

#[test]
fn a_turn_is_one_ply_and_the_board_marks_its_path() {
    let mut g = started();
    assert_eq!(
        g.play(Actor::Seat(0), "E2-E3 ; f2 - f3").unwrap(),
        "e2-e3; f2-f3"
    );
    let board = g.board();
    assert!(board.contains("[ . ][ . ]"), "{board}");
    assert!(board.contains("[L1 ][L2 ]"), "{board}");
    assert!(board.lines().all(|l| l.len() <= 72), "{board}");
    assert_eq!(g.move_number(), Some((1, false)));
    assert!(g.last_report().unwrap().contains("(3 of 6 points)"));
}

#[test]
fn a_star_win_ends_the_game_at_once() {
    let mut g = at("LIGHT:d7=1,a1=1 DARK:h8=6 move=LIGHT");
    let e = g.play(Actor::Seat(0), "d7-d8-c8").unwrap_err();
    assert!(e.to_string().contains("won the game at once"), "{e}");
    assert_eq!(g.play(Actor::Seat(0), "d7-d8").unwrap(), "d7-d8");
    assert_eq!(
        g.outcome(),
        Some(Outcome::Win {
            seat: LIGHT,
            reason: "entered the star square d8".into()
        })
    );
    assert_eq!(g.to_act(), ToAct::Nobody);
    assert!(g.play(Actor::Seat(1), "h8-h7").is_err());
    assert_eq!(g.position_json()["to_move"], serde_json::Value::Null);
}

#[test]
fn pass_only_without_a_legal_step_and_the_gm_plays_it() {
    let mut g = at("LIGHT:a1=1 DARK:a2=6,b1=6,h8=1 move=LIGHT");
    assert_eq!(g.auto_ply().as_deref(), Some("pass"));
    assert_eq!(g.legal_plies(), ["pass"]);
    assert_eq!(g.play(Actor::Seat(0), "pass").unwrap(), "pass");
    assert!(g.play(Actor::Seat(1), "pass").is_err());
    assert_eq!(g.auto_ply(), None);
}

#[test]
fn moves_help_lists_steps_and_captures_with_strength() {
    let g = at("LIGHT:c4=2,d5=1,a1=3 DARK:d4=3,e4=5,e5=5 move=LIGHT");
    let help = g.moves_help().unwrap();
    assert!(help.contains("  a1 (3): a2 b1"), "{help}");
    assert!(help.contains("c4xd4: 2 + 1 (d5) = 3 against a 3"), "{help}");
    assert!(help.contains("Too weak now"), "{help}");
    assert!(help.lines().all(|l| l.len() <= 72), "{help}");
    assert!(g.legal_plies().contains(&"c4xd4".to_string()));
    assert!(!g.legal_plies().contains(&"d5xe5".to_string()));
}

/// A random legal turn for the side to move, written with random spacing and case, built
/// from `choices` (each picks among the steps open at that point; 0 also may stop).
fn random_turn(board: &Board, side: usize, choices: &[u16]) -> Option<String> {
    let mut board = board.clone();
    let mut spent = 0u32;
    let mut paths: Vec<(Square, String)> = Vec::new();
    for (i, &c) in choices.iter().enumerate() {
        let open: Vec<steps::SingleStep> = steps::first_steps(&board, side)
            .into_iter()
            .filter(|s| s.strong_enough() && spent + u32::from(s.number) <= 6)
            .collect();
        if open.is_empty() || (i > 0 && c % 4 == 0) {
            break;
        }
        // Lean toward captures and forward steps, so that games reach promotions and wins.
        let captures: Vec<&steps::SingleStep> =
            open.iter().filter(|s| s.capture.is_some()).collect();
        let forward: Vec<&steps::SingleStep> = open
            .iter()
            .filter(|s| s.to.row_of(side) > s.from.row_of(side))
            .collect();
        let pool: Vec<&steps::SingleStep> = match c % 5 {
            0 | 1 if !captures.is_empty() => captures,
            0..=3 if !forward.is_empty() => forward,
            _ => open.iter().collect(),
        };
        let s = pool[usize::from(c / 5) % pool.len()];
        spent += u32::from(s.number);
        let mark = if s.capture.is_some() { "X" } else { " - " };
        let mut die = board.take(s.from).expect("the stepping die");
        let mut text = format!("{mark}{}", s.to);
        if s.from.row_of(side) == 7 && s.to.row_of(side) == 8 && c % 3 == 0 {
            let n = u8::try_from(c % 6 + 1).unwrap_or(1);
            text.push_str(&format!(" ={n}"));
            die = Die { number: n, ..die };
        }
        board.put(s.to, die);
        match paths.last_mut() {
            Some((end, p)) if *end == s.from => {
                p.push_str(&text);
                *end = s.to;
            }
            _ => paths.push((s.to, format!("{}{text}", s.from.to_string().to_uppercase()))),
        }
        if s.capture.is_some() || s.to.is_goal_of(side) {
            break;
        }
    }
    (!paths.is_empty()).then(|| {
        paths
            .into_iter()
            .map(|(_, p)| p)
            .collect::<Vec<_>>()
            .join(" ;")
    })
}

/// Plays random legal turns (a pass when there is none) and checks each: its canonical text,
/// played on a fresh copy of the position before it, reads as itself and gives the same
/// position tag and outcome; the tag reads back as itself.
fn replay_random_turns(mut g: Dicess, turns: &[Vec<u16>]) -> Result<(), TestCaseError> {
    for choices in turns {
        let ToAct::Seat(side) = g.to_act() else {
            break;
        };
        let text = random_turn(&g.board, side, choices).unwrap_or_else(|| "pass".to_string());
        let before = g.clone();
        let canonical = g
            .play(Actor::Seat(side), &text)
            .map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        let mut again = before.clone();
        prop_assert_eq!(
            again.play(Actor::Seat(side), &canonical),
            Ok(canonical.clone())
        );
        prop_assert_eq!(again.position_tag(), g.position_tag());
        prop_assert_eq!(again.outcome(), g.outcome());
        if g.outcome().is_none() {
            let read = Dicess::from_position(&Options::new(), &g.position_tag());
            prop_assert_eq!(read.map(|r| r.position_tag()), Ok(g.position_tag()));
        }
    }
    Ok(())
}

/// A `[Position]` tag from random dice: squares as 0-63, later duplicates dropped, and no die
/// on a star square its side would win on (such a tag is refused).
fn random_tag(light: &[(u8, u8)], dark: &[(u8, u8)], dark_moves: bool) -> String {
    let mut taken = std::collections::BTreeSet::new();
    let mut seat = |side: usize, dice: &[(u8, u8)]| {
        let list: Vec<String> = dice
            .iter()
            .filter_map(|&(i, n)| {
                let sq = Square::new(i % 8, i / 8)?;
                (!sq.is_goal_of(side) && taken.insert(i)).then(|| format!("{sq}={n}"))
            })
            .collect();
        if list.is_empty() {
            "-".to_string()
        } else {
            list.join(",")
        }
    };
    let l = seat(0, light);
    let d = seat(1, dark);
    let to_move = if dark_moves { "DARK" } else { "LIGHT" };
    format!("LIGHT:{l} DARK:{d} move={to_move}")
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_legal_turns_replay_identically_from_their_canonical_text(
        roll in prop::collection::vec(1u32..=6, 32),
        turns in prop::collection::vec(prop::collection::vec(any::<u16>(), 1..8), 1..80),
    ) {
        let mut g = Dicess::new(&Options::new()).unwrap();
        let values: Vec<String> = roll.iter().map(u32::to_string).collect();
        g.play(Actor::Chance, &format!("roll {}", values.join(" "))).unwrap();
        for seat in [0, 1] {
            let sample = g.legal_plies().remove(0);
            g.play(Actor::Seat(seat), &sample).unwrap();
        }
        replay_random_turns(g, &turns)?;
    }

    /// Sparse positions reach promotions, star wins, passes and impasses far more often.
    #[test]
    fn random_turns_from_random_positions_replay_identically(
        light in prop::collection::vec((0u8..64, 1u8..=6), 0..8),
        dark in prop::collection::vec((0u8..64, 1u8..=6), 0..8),
        dark_moves in any::<bool>(),
        turns in prop::collection::vec(prop::collection::vec(any::<u16>(), 1..8), 1..60),
    ) {
        let g = at(&random_tag(&light, &dark, dark_moves));
        replay_random_turns(g, &turns)?;
    }
}
