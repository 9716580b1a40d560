//! The seed's illustrative Dice Rink games replayed ply by ply, the misprint refused, and the record files read back.

use pbem_rules::games::dicerink::DiceRink;
use pbem_rules::games::{Actor, Options, Outcome, Rules, ToAct};
use pbem_rules::records::Record;

const GAME1_SETUP: &str = "b1 5/4 b4 2/4 d1 3/6 d4 6/4";
const GAME1_MOVES: &str = "5W6 6S3 3W2 2E1 2N1 1W2 1E3 3N6 6E5 2S3 3W1 3S5 5W6 6S3 1E3 3N6 \
    6E5 5E1 5W6 6S3 3S2 1S4 6E5 4N1 2N3 3W5 5W6 5N6 6E5 6W4 5E1 1N3 3N5 4W1 1N3 3N6 3N6 6W5 \
    5N4 5E6 6E2 1S5 rotate 6(2N) 6S3 6W3 3S1 2N4";

const GAME2_SETUP: &str = "b1 4/2 b4 6/3 d1 3/1 d4 1/4";
const GAME2_MOVES: &str = "3N6 6S4 4N5 4E5 5E1 1S3 6S3 3S6 3W5 5W4 5W4 4S1 1N3 6S4 4E5 4N6 \
    3N6 6N3 5E3 3S6 6E2 1S3 3W5 6S4";

/// Plays every ply of `text` for the side to move; on refusal gives the ply's index, its
/// text and the reason.
fn play_all(game: &mut DiceRink, text: &str) -> Result<(), (usize, String, String)> {
    for (i, ply) in game.split_plies(text).into_iter().enumerate() {
        let ToAct::Seat(seat) = game.to_act() else {
            return Err((i, ply, "the game is over".into()));
        };
        game.play(Actor::Seat(seat), &ply)
            .map_err(|e| (i, ply.clone(), e.to_string()))?;
    }
    Ok(())
}

/// The dice as (player, square, top, front), sorted A then B, by square.
fn dice(game: &DiceRink) -> Vec<(String, String, u64, u64)> {
    game.position_json()["dice"]
        .as_array()
        .expect("dice array")
        .iter()
        .map(|d| {
            (
                d["player"].as_str().unwrap().to_string(),
                d["square"].as_str().unwrap().to_string(),
                d["top"].as_u64().unwrap(),
                d["front"].as_u64().unwrap(),
            )
        })
        .collect()
}

fn die(player: &str, square: &str, top: u64, front: u64) -> (String, String, u64, u64) {
    (player.to_string(), square.to_string(), top, front)
}

fn winner(game: &DiceRink) -> Option<usize> {
    match game.outcome() {
        Some(Outcome::Win { seat, .. }) => Some(seat),
        _ => None,
    }
}

#[test]
fn game1_with_the_corrected_move_12_reaches_the_stated_final_position() {
    let mut game = DiceRink::new(&Options::new()).unwrap();
    play_all(&mut game, GAME1_SETUP).unwrap();
    assert_eq!(game.move_number(), Some((1, true)));
    play_all(&mut game, GAME1_MOVES).unwrap();
    assert_eq!(
        dice(&game),
        vec![
            die("A", "c4", 3, 2),
            die("A", "d4", 4, 2),
            die("B", "a3", 5, 1),
            die("B", "c2", 1, 3),
        ]
    );
    assert_eq!(winner(&game), Some(0));
    assert_eq!(game.to_act(), ToAct::Nobody);
    assert_eq!(game.position_json()["to_move"], serde_json::Value::Null);
}

#[test]
fn game1_as_misprinted_is_refused_at_move_12_naming_6w5() {
    let misprinted = GAME1_MOVES.replacen("3S2 1S4 6E5", "3S2 1S4 6W5", 1);
    assert_ne!(misprinted, GAME1_MOVES);
    let mut game = DiceRink::new(&Options::new()).unwrap();
    play_all(&mut game, GAME1_SETUP).unwrap();
    let (index, ply, reason) = play_all(&mut game, &misprinted).unwrap_err();
    assert_eq!(index, 22, "move 12 is the 23rd ply after set-up");
    assert_eq!(ply, "6W5");
    assert_eq!(reason, "6W5: the die on a1 cannot roll west: off the board");
    assert_eq!(game.move_number(), Some((12, true)), "nothing was played");
}

#[test]
fn game2_reaches_the_stated_final_position_and_b_wins() {
    let mut game = DiceRink::new(&Options::new()).unwrap();
    play_all(&mut game, GAME2_SETUP).unwrap();
    play_all(&mut game, GAME2_MOVES).unwrap();
    assert_eq!(
        dice(&game),
        vec![
            die("A", "c1", 5, 1),
            die("A", "d4", 2, 3),
            die("B", "b1", 3, 1),
            die("B", "d1", 4, 6),
        ]
    );
    assert_eq!(winner(&game), Some(1));
}

#[test]
fn game2_first_move_forces_nothing_but_later_matches_do() {
    let mut game = DiceRink::new(&Options::new()).unwrap();
    play_all(&mut game, GAME2_SETUP).unwrap();
    // 1. 3N6 matches B's 6 on b4: B must move it, and both 6E5 and 6S4 are open.
    play_all(&mut game, "3N6").unwrap();
    assert_eq!(game.position_json()["forced"], "b4");
    assert_eq!(
        game.last_report().as_deref(),
        Some("B must move the die on b4 (it matches A's 6)")
    );
    let mut legal = game.legal_plies();
    legal.sort();
    assert_eq!(legal, vec!["6E5", "6S4"]);
}

fn read_record(name: &str) -> Record {
    let path = crate::workspace_root()
        .join("tests/data/dicerink")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    Record::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn record_files_replay_to_their_results() {
    for (name, result) in [("game1.pgn", "A"), ("game2.pgn", "B")] {
        let record = read_record(name);
        assert_eq!(record.tag("Result"), Some(result), "{name}");
        let replayed = record.replay().unwrap_or_else(|e| panic!("{name}: {e}"));
        let winner = replayed.game.outcome_text().unwrap_or_default();
        assert!(
            winner.starts_with(&format!("{result} wins")),
            "{name}: {winner}"
        );
    }
}

#[test]
fn misprint_record_is_refused_with_a_reason_naming_6w5() {
    let err = read_record("game1-misprint.pgn").replay().unwrap_err();
    assert_eq!(err.token, "6W5");
    assert!(err.reason.contains("6W5"), "{}", err.reason);
    assert!(err.reason.contains("a1"), "{}", err.reason);
    // 4 placements and 22 plies before move 12.
    assert_eq!(err.ply, 4 + 22 + 1);
}

#[test]
fn endgame_record_starts_from_its_position_tag() {
    let record = read_record("endgame.pgn");
    let start = record.start().unwrap();
    assert_eq!(start.position_tag(), record.tag("Position").unwrap());
    let replayed = record.replay().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        replayed.game.outcome_text().as_deref(),
        Some("A wins: both dice on rank 4")
    );
}

/// The seed's Illustrative Endgame (Figure 4), reconstructed: the one position its moves allow.
const FIGURE4: &str = "A:a3=2/3,b1=5/1 B:c3=5/6,d3=6/2 move=A forced=b1";

#[test]
fn figure4_endgame_plays_as_the_seed_tells_it() {
    let mut game = DiceRink::from_position(&Options::new(), FIGURE4).unwrap();
    play_all(&mut game, "5N6").unwrap();
    assert_eq!(game.legal_plies(), vec!["6N2"], "B can only make one move");
    play_all(&mut game, "6N2 2N4 5N6 6N2").unwrap();
    // B cannot roll the die on d4, so it rotates.
    assert_eq!(game.position_json()["forced"], "d4");
    assert!(game.legal_plies().iter().all(|p| p.starts_with('R')));
    play_all(&mut game, "rotate 5(4N)").unwrap();
    // A is forced to rotate a4.
    assert_eq!(game.position_json()["forced"], "a4");
    assert!(game.legal_plies().iter().all(|p| p.starts_with('R')));
    play_all(&mut game, "rotate 6(3N)").unwrap();
    // Whatever B does, A wins with 2N1.
    let replies = game.legal_plies();
    assert!(!replies.is_empty());
    for reply in replies {
        let mut after = game.clone();
        play_all(&mut after, &reply).unwrap();
        play_all(&mut after, "2N1").unwrap_or_else(|e| panic!("after {reply}: {e:?}"));
        assert_eq!(winner(&after), Some(0), "after {reply}");
    }
}

#[test]
fn figure4_record_replays_to_the_resignation() {
    let record = read_record("figure4.pgn");
    assert_eq!(record.tag("Position"), Some(FIGURE4));
    let replayed = record.replay().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        replayed.game.outcome_text().as_deref(),
        Some("A wins: B resigned")
    );
}

#[test]
fn records_written_by_the_record_writer_read_back() {
    for name in ["game1.pgn", "game2.pgn", "endgame.pgn", "figure4.pgn"] {
        let record = read_record(name);
        let replayed = record.replay().unwrap_or_else(|e| panic!("{name}: {e}"));
        let start = record.start().unwrap();
        let text = pbem_rules::records::write(&record.tags, &start, &replayed.log)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let again = Record::parse(&text)
            .and_then(|r| r.replay().map_err(|e| e.to_string()))
            .unwrap_or_else(|e| panic!("{name} as written:\n{text}\n{e}"));
        assert_eq!(again.log, replayed.log, "{name}");
        assert_eq!(again.game.position_tag(), replayed.game.position_tag());
        assert_eq!(again.game.outcome(), replayed.game.outcome());
    }
}
