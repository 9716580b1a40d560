//! Any Dip-Tac-Toe order line: its turn ply replays, resigns nobody, round-trips through a record.

use std::collections::BTreeMap;

use pbem_rules::games::{Actor, AnyGame, GameKind, Options, Outcome, ToAct};
use pbem_rules::records::{self, Record};
use proptest::prelude::*;

/// Lines that once broke a turn ply or a record: a resign suffix, a command-like line, record
/// and ply syntax, a percent escape, non-ASCII and a lone `?`.
const HOSTILE: &[&str] = &[
    "thanks, see you:resign",
    "PASSWORD:secret",
    "{",
    "}",
    ";",
    "\"",
    "%41",
    "Grüße aus Köln — 東京 ✓",
    "?",
    "[Result \"BLUE\"]",
    "GM>draw",
    "draw",
    "12. 12...",
    "(a) {b} [c] \\ > <",
    "BLUE:resign",
    "BLUE:timeout",
    "timeout",
];

fn new_game() -> AnyGame {
    AnyGame::new(GameKind::DipTacToe, &Options::new()).expect("new game")
}

/// One turn's orders: each seat's lines.
type Turn = [Vec<String>; 4];

/// Folds a turn into its GM ply, plays it, and checks that nobody resigned or drew by it.
fn fold_and_play(game: &mut AnyGame, turn: &Turn) -> Result<String, String> {
    let orders: BTreeMap<usize, Vec<String>> = turn.iter().cloned().enumerate().collect();
    let ply = game.turn_ply(&orders)?;
    for seat in 0..4 {
        // Were the ply read as a resignation, its seat could play it.
        if game.clone().play(Actor::Seat(seat), &ply).is_ok() {
            return Err(format!("{ply} is accepted from seat {seat}"));
        }
    }
    let seats_before = game.to_act();
    let canonical = game.play(Actor::Gm, &ply).map_err(|e| e.to_string())?;
    if canonical != ply {
        return Err(format!("turn_ply gave {ply}, play gave {canonical}"));
    }
    if game.position_tag().contains("resigned") {
        return Err(format!("{ply} resigned somebody: {}", game.position_tag()));
    }
    match (game.outcome(), game.to_act()) {
        (Some(Outcome::Draw { reason, .. }), _) if !reason.contains("claims") => {
            Err(format!("{ply} was read as a draw ({reason})"))
        }
        (None, now) if now != seats_before => Err(format!("{ply}: {now:?}")),
        _ => Ok(ply),
    }
}

/// Replays a log from the start: the position and every turn report.
fn replay_log(log: &[(Actor, String)]) -> Result<(AnyGame, Vec<Option<String>>), String> {
    let mut game = new_game();
    let mut reports = Vec::new();
    for (actor, text) in log {
        let canonical = game
            .play(*actor, text)
            .map_err(|e| format!("{text}: {e}"))?;
        if &canonical != text {
            return Err(format!("{text} replays as {canonical}"));
        }
        reports.push(game.last_report());
    }
    Ok((game, reports))
}

/// Writes the log as a record (with and without dice comments), reads it back and replays it:
/// the same plies, the same final position.
fn through_record(log: &[(Actor, String)], end: &AnyGame) -> Result<(), String> {
    let tags = [
        ("Game".to_string(), "diptactoe".to_string()),
        ("Event".to_string(), "a \"quoted\" {event} \\".to_string()),
        ("BLUE".to_string(), "blue@example.org".to_string()),
        ("Result".to_string(), records::result_tag(end)),
    ];
    let start = new_game();
    for text in [
        records::write(&tags, &start, log)?,
        records::write_with_dice(&tags, &start, log)?,
    ] {
        let record = Record::parse(&text).map_err(|e| format!("{e}\n{text}"))?;
        if record.tags != tags {
            return Err(format!("tags read back as {:?}\n{text}", record.tags));
        }
        let again = record.replay().map_err(|e| format!("{e}\n{text}"))?;
        if again.log != log {
            return Err(format!("plies read back as {:?}\n{text}", again.log));
        }
        if again.game.position_tag() != end.position_tag() {
            return Err(format!("ends at {}\n{text}", again.game.position_tag()));
        }
    }
    Ok(())
}

fn lines(list: &[&str]) -> Vec<String> {
    list.iter().map(|l| l.to_string()).collect()
}

#[test]
fn hostile_order_lines_adjudicate_and_replay_from_the_log_and_the_record() {
    let turns: Vec<Turn> = vec![
        [
            lines(&["I.A.1 - II.F.2", "PASSWORD:secret", "{", "}"]),
            lines(&["R-II.G.2", ";", "\"", "%41"]),
            lines(&["Grüße aus Köln — 東京 ✓", "?", "R-III.M.3"]),
            // YELLOW's last line ends the whole ply: `...;YELLOW:...:resign` once resigned it.
            lines(&["R-IV.N.3", "thanks, see you:resign"]),
        ],
        [
            lines(HOSTILE),
            lines(&["BLUE:resign"]),
            lines(&["draw"]),
            lines(&["thanks, see you:resign"]),
        ],
        [
            lines(&[]),
            lines(&["R-II.H.3"]),
            lines(HOSTILE),
            lines(&["YELLOW:resign"]),
        ],
    ];
    let mut game = new_game();
    let mut log = Vec::new();
    let mut reports = Vec::new();
    for turn in &turns {
        let ply = fold_and_play(&mut game, turn).unwrap_or_else(|e| panic!("{e}"));
        log.push((Actor::Gm, ply));
        reports.push(game.last_report());
    }
    assert_eq!(game.to_act(), ToAct::Orders(vec![0, 1, 2, 3]));
    assert!(game.outcome().is_none());
    // The report quotes the player's words as written, and says they were void.
    let report = reports[0].as_deref().unwrap();
    assert!(report.contains("thanks, see you:resign: void"), "{report}");
    assert!(report.contains("Grüße aus Köln — 東京 ✓: void"), "{report}");
    assert!(report.contains("%41: void"), "{report}");

    let (replayed, again) = replay_log(&log).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(replayed.position_tag(), game.position_tag());
    assert_eq!(again, reports);
    through_record(&log, &game).unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn resign_and_draw_plies_are_only_their_exact_forms() {
    let mut game = new_game();
    assert_eq!(
        game.play(Actor::Gm, "blue:resign"),
        Ok("BLUE:resign".into())
    );
    assert_eq!(
        game.play(Actor::Seat(1), " resign "),
        Ok("RED:resign".into())
    );
    // Text before a seat's name is no resignation of anybody.
    assert!(new_game().play(Actor::Gm, "x BLUE:resign").is_err());
    assert!(new_game().play(Actor::Seat(0), "BLUE:x:resign").is_err());
    assert!(new_game()
        .play(Actor::Gm, "BLUE:;RED:;GREEN:;YELLOW:?thanks:resign")
        .is_ok_and(|p| !p.ends_with(":resign")));
}

#[test]
fn plies_logged_before_the_new_encoding_still_replay_and_export_re_encoded() {
    // The old encoding left `:` `{` `}` `"` and other ASCII punctuation as written.
    let old = "BLUE:?{hi}:there;RED:?%22quoted%22;GREEN:?PASSWORD:secret;YELLOW:";
    let mut game = new_game();
    let canonical = game.play(Actor::Gm, old).expect("an old ply replays");
    assert_eq!(
        canonical,
        "BLUE:?%7Bhi%7D%3Athere;RED:?%22quoted%22;GREEN:?PASSWORD%3Asecret;YELLOW:"
    );
    let report = game.last_report().unwrap();
    assert!(report.contains("{hi}:there: void"), "{report}");
    // An escape is `%` and two hex digits, nothing looser.
    for bad in ["%+1", "%4", "%G1", "%\u{e9}1"] {
        let ply = format!("BLUE:?{bad};RED:;GREEN:;YELLOW:");
        assert!(new_game().play(Actor::Gm, &ply).is_err(), "{ply}");
    }
    // A record written from the old log holds the re-encoded ply and replays.
    let text = records::write(
        &[("Game".into(), "diptactoe".into())],
        &new_game(),
        &[(Actor::Gm, old.to_string())],
    )
    .unwrap();
    assert!(text.contains(&canonical), "{text}");
    let again = Record::parse(&text).unwrap().replay().unwrap();
    assert_eq!(again.game.position_tag(), game.position_tag());
}

/// An order line: anything at all, record and ply syntax, or a real order.
fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        any::<String>(),
        "[:;,{}()\\[\\]\"%?<> \t\n\\\\a-zA-Z0-9.!-]{0,16}",
        prop::sample::select(HOSTILE).prop_map(str::to_string),
        prop::sample::select(&["R-F2", "A1-B1", "R-M3", "Victory!", "H1 - G2", "R - N3"][..])
            .prop_map(str::to_string),
    ]
}

fn turn() -> impl Strategy<Value = Turn> {
    let seat = || prop::collection::vec(line(), 0..4);
    (seat(), seat(), seat(), seat()).prop_map(|(a, b, c, d)| [a, b, c, d])
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(128))]

    #[test]
    fn any_order_lines_fold_play_and_round_trip_through_a_record(
        turns in prop::collection::vec(turn(), 1..4)
    ) {
        let mut game = new_game();
        let mut log = Vec::new();
        for turn in &turns {
            if game.outcome().is_some() {
                break;
            }
            let ply = fold_and_play(&mut game, turn).map_err(TestCaseError::fail)?;
            prop_assert!(!ply.contains(char::is_whitespace), "{}", ply);
            log.push((Actor::Gm, ply));
        }
        let (replayed, _) = replay_log(&log).map_err(TestCaseError::fail)?;
        prop_assert_eq!(replayed.position_tag(), game.position_tag());
        through_record(&log, &game).map_err(TestCaseError::fail)?;
    }
}
