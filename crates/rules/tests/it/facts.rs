//! What each game states about itself (`GameFacts`) agrees with the game it makes: its seats, how many play, its options' defaults; and a finished game, however it ended, names nobody to move and no duty.

use pbem_rules::games::{Actor, AnyGame, GameKind, Options, ToAct};
use pbem_rules::records::Record;

#[test]
fn every_game_plays_the_seats_and_player_counts_it_states() {
    for kind in GameKind::ALL {
        let facts = kind.facts();
        let game = AnyGame::new(*kind, &Options::new()).unwrap();
        let seats = game.seat_names();
        let (fewest, most) = facts.players;
        assert!(
            fewest <= most && most == facts.seats.len(),
            "{kind:?}: {facts:?}"
        );
        assert!(
            (fewest..=most).contains(&seats.len()),
            "{kind:?} plays {} seats, outside {fewest}-{most}",
            seats.len()
        );
        assert_eq!(
            seats,
            &facts.seats[..seats.len()],
            "{kind:?}: seats in order"
        );
    }
}

#[test]
fn every_game_starts_without_options_and_its_defaults_are_allowed_values() {
    for kind in GameKind::ALL {
        assert!(AnyGame::new(*kind, &Options::new()).is_ok(), "{kind:?}");
        for spec in kind.facts().options {
            assert!(
                spec.values.is_empty() || spec.values.contains(&spec.default),
                "{kind:?}: option {} defaults to {}, not one of {:?}",
                spec.name,
                spec.default,
                spec.values
            );
        }
    }
}

#[test]
fn a_game_ended_by_a_shared_ply_shows_nobody_to_move_on_its_board() {
    for kind in GameKind::ALL.iter().copied() {
        let game = ended_by_a_shared_ply(kind);
        assert!(game.outcome().is_some(), "{kind:?}");
        let board = game.board();
        assert!(!board.contains("to move"), "{kind:?}:\n{board}");
        assert!(!board.contains("to declare"), "{kind:?}:\n{board}");
    }
}

/// Every seat but the first resigns; in Dip-Tac-Toe, whose leavers' units hold and play goes
/// on, an agreed draw ends it.
fn ended_by_a_shared_ply(kind: GameKind) -> AnyGame {
    let mut game = AnyGame::new(kind, &Options::new()).unwrap();
    if kind.facts().simultaneous {
        game.play(Actor::Gm, "draw").unwrap();
    } else {
        for seat in 1..game.seat_names().len() {
            game.play(Actor::Seat(seat), "resign").unwrap();
        }
    }
    game
}

/// A game ended by its own rules, where ending left a duty behind in the engine's state: Dice
/// Rink's winning roll also matches (B's a3 must move), d4 d6's capture of the last gambling
/// piece leaves the next side "to declare".
fn ended_by_its_own_rules(kind: GameKind) -> AnyGame {
    let record = |path: &str| {
        let text = std::fs::read_to_string(crate::workspace_root().join(path)).unwrap();
        Record::parse(&text).unwrap().replay().unwrap().game
    };
    match kind {
        GameKind::DiceRink => record("tests/data/dicerink/endgame.pgn"),
        GameKind::D4D6 => {
            let mut game =
                AnyGame::from_position(kind, &Options::new(), "W:Fob6 B:Rac6,Gua8 w").unwrap();
            let plies = [
                (Actor::Seat(0), "Fob6"),
                (Actor::Chance, "roll 1"),
                (Actor::Seat(0), "b6xc6"),
            ];
            for (actor, ply) in plies {
                game.play(actor, ply).unwrap();
            }
            game
        }
        GameKind::DipTacToe => record("tests/data/diptactoe/row-claim.pgn"),
        GameKind::Siberian => record("tests/data/siberian/games/grossmeister.pgn"),
        GameKind::Dicess => record("tests/data/dicess/games/dark-star-win.pgn"),
    }
}

/// Once a game is over no side is to move and no die must move: not in its JSON (`to_move`
/// and `forced` null, `phase` "over" where there is one), its board or whose turn it says.
#[test]
fn a_finished_game_names_no_duty_in_its_json_or_board() {
    for kind in GameKind::ALL.iter().copied() {
        for game in [ended_by_a_shared_ply(kind), ended_by_its_own_rules(kind)] {
            let why = game
                .outcome_text()
                .unwrap_or_else(|| panic!("{kind:?}: not over"));
            assert_eq!(game.to_act(), ToAct::Nobody, "{kind:?}, {why}");
            assert!(game.legal_plies().is_empty(), "{kind:?}, {why}");
            let json = game.position_json();
            for duty in ["to_move", "forced", "declared", "roll"] {
                let value = json.get(duty).unwrap_or(&serde_json::Value::Null);
                assert!(value.is_null(), "{kind:?}, {why}: {duty} in {json}");
            }
            if let Some(phase) = json.get("phase") {
                assert_eq!(phase, "over", "{kind:?}, {why}: {json}");
            }
            let board = game.board();
            for duty in ["to move", "to declare", "must move the", "must pass"] {
                assert!(!board.contains(duty), "{kind:?}, {why}:\n{board}");
            }
            // A die or piece marked on the board itself (Dice Rink's `A 4!`).
            let marked = board
                .lines()
                .filter(|l| l.contains('|'))
                .any(|l| l.contains('!'));
            assert!(!marked, "{kind:?}, {why}:\n{board}");
        }
    }
}

#[test]
fn a_game_states_simultaneous_turns_exactly_when_its_seats_order_together() {
    for kind in GameKind::ALL {
        let game = AnyGame::new(*kind, &Options::new()).unwrap();
        let orders = matches!(game.to_act(), pbem_rules::games::ToAct::Orders(_));
        assert_eq!(kind.facts().simultaneous, orders, "{kind:?}");
    }
}

#[test]
fn a_refusal_never_repeats_a_whole_hostile_line() {
    let line = format!("a1 {}", "9".repeat(100_000));
    for kind in GameKind::ALL {
        let mut game = AnyGame::new(*kind, &Options::new()).unwrap();
        let err = game.play(Actor::Seat(0), &line).unwrap_err();
        assert!(
            err.to_string().len() < 400,
            "{kind:?}: {} bytes",
            err.to_string().len()
        );
    }
}

/// A plan a word spoils is refused quoting at most the start of that word, however long:
/// `AnyGame` shortens the refusal as it does a ply's, and the word is named by its value (a
/// range padded with zeros) or its start. A roll value too big for any integer is named as out
/// of 1 to 6, like a 7, not passed over as no plan at all.
#[test]
fn a_spoiled_plan_never_repeats_a_whole_hostile_word() {
    let game = AnyGame::new(GameKind::Siberian, &Options::new()).unwrap();
    let lines = |text: String| text.lines().map(String::from).collect::<Vec<_>>();
    let padded = format!("H: 1>a1\n6-{}1>d4", "0".repeat(100_000));
    let why = game
        .plan_refusal(&lines(padded))
        .expect("refused")
        .to_string();
    assert!(why.len() < 400, "{} bytes", why.len());
    assert!(
        why.starts_with("6-1: a range of rolls runs from low to high (1-6)"),
        "{why}"
    );
    let huge = format!("H: 1>a1\n{}>e5", "9".repeat(100_000));
    let why = game
        .plan_refusal(&lines(huge))
        .expect("refused")
        .to_string();
    assert!(why.len() < 100, "{} bytes", why.len());
    assert!(why.ends_with("...: a die shows 1 to 6"), "{why}");
    let big = "H: 1>a1\n99999999999999999999>e5".to_string();
    let why = game.plan_refusal(&lines(big)).expect("refused").to_string();
    assert!(why.ends_with("a die shows 1 to 6"), "{why}");
}

#[test]
fn the_gms_resignation_for_a_seat_replays_in_every_game() {
    for kind in GameKind::ALL {
        let mut game = AnyGame::new(*kind, &Options::new()).unwrap();
        let mut again = game.clone();
        let name = game.seat_name(1);
        let canonical = game.play(Actor::Gm, &format!("{name}:resign")).unwrap();
        again
            .play(Actor::Gm, &canonical)
            .unwrap_or_else(|e| panic!("{kind:?}: the logged {canonical:?} does not replay: {e}"));
        assert_eq!(again.playing(), game.playing(), "{kind:?}");
    }
}

#[test]
fn a_position_with_one_player_left_is_refused() {
    let two = "BLUE:- RED:- move=BLUE retired=RED";
    let three = "BLUE:- RED:- GREEN:- move=BLUE retired=RED,GREEN";
    for (players, tag) in [("2", two), ("3", three)] {
        let mut options = Options::new();
        options.insert("players".into(), players.into());
        let res = AnyGame::from_position(GameKind::Siberian, &options, tag);
        assert!(res.is_err(), "{tag}");
    }
}

#[test]
fn a_seat_leaving_mid_move_is_told_what_the_game_made_of_it() {
    let mut options = Options::new();
    options.insert("players".into(), "3".into());
    let mut game = AnyGame::new(GameKind::Siberian, &options).unwrap();
    game.play(Actor::Seat(0), "H").unwrap();
    let roll = game.chance_ply(&[3]);
    game.play(Actor::Chance, &roll).unwrap();
    game.play(Actor::Seat(0), "resign").unwrap();
    let report = game.last_report().unwrap();
    assert!(
        report.contains("play on. BLUE has left the game"),
        "{report}"
    );
    assert!(report.contains("Its move under way is dropped"), "{report}");
    assert!(report.contains("RED to move"), "{report}");
}

#[test]
fn a_position_cannot_carry_a_purity_sequence_longer_than_a_game_publishes() {
    let mut options = Options::new();
    options.insert("variant".into(), "purity".into());
    let tag = |n: usize| format!("BLUE:e5=4 RED:- move=RED purity={}", "3".repeat(n));
    assert!(AnyGame::from_position(GameKind::Siberian, &options, &tag(9999)).is_ok());
    let refused = AnyGame::from_position(GameKind::Siberian, &options, &tag(1_200_000));
    assert!(refused.unwrap_err().contains("longer than 9999"));
}
