//! The Dip-Tac-Toe `Rules` implementation: turn plies, reports, records, resignation, draws,
//! options, and invariants over many generated turns.

use std::collections::BTreeMap;

use pbem_rules::games::diptactoe::DipTacToe;
use pbem_rules::games::{Actor, AnyGame, GameKind, Options, Outcome, Rules, ToAct};

fn new_game() -> DipTacToe {
    DipTacToe::new(&Options::new()).expect("new game")
}

fn orders(list: &[(usize, &[&str])]) -> BTreeMap<usize, Vec<String>> {
    list.iter()
        .map(|(seat, lines)| (*seat, lines.iter().map(|l| l.to_string()).collect()))
        .collect()
}

/// Builds the turn ply from mailed lines and plays it; returns the canonical ply.
fn play_turn(game: &mut DipTacToe, list: &[(usize, &[&str])]) -> String {
    let ply = game.turn_ply(&orders(list)).expect("turn ply");
    let canonical = game.play(Actor::Gm, &ply).expect("turn plays");
    assert_eq!(canonical, ply, "turn_ply gives the canonical form");
    canonical
}

#[test]
fn start_position_and_seats() {
    let game = new_game();
    assert_eq!(game.seat_names(), &["BLUE", "RED", "GREEN", "YELLOW"]);
    assert_eq!(game.to_act(), ToAct::Orders(vec![0, 1, 2, 3]));
    assert_eq!(game.move_number(), Some((1, true)));
    assert_eq!(
        game.position_json(),
        serde_json::json!({
            "turn": 1,
            "units": {"BLUE": ["I.A.1"], "RED": ["II.H.1"], "GREEN": ["III.M.4"], "YELLOW": ["IV.N.4"]},
            "reserves": {"BLUE": 7, "RED": 7, "GREEN": 7, "YELLOW": 7}
        })
    );
    assert_eq!(
        game.position_tag(),
        "turn=1 BLUE=I.A.1/7 RED=II.H.1/7 GREEN=III.M.4/7 YELLOW=IV.N.4/7"
    );
    assert!(game.board().lines().all(|l| l.len() <= 72));
}

#[test]
fn a_turn_is_one_gm_ply_without_white_space_that_replays_identically() {
    let mut game = new_game();
    let ply = play_turn(
        &mut game,
        &[
            (0, &["I.A.1 - II.F.2"]),
            (1, &["Reserve - II.G.2", "Victory!"]),
            (2, &["I.E.1 - I.A.2"]),
        ],
    );
    assert!(!ply.contains(char::is_whitespace), "{ply}");
    assert_eq!(
        ply,
        "BLUE:I.A.1-II.F.2;RED:R-II.G.2,VICTORY;GREEN:?I.E.1%20-%20I.A.2;YELLOW:"
    );
    assert_eq!(game.move_number(), Some((2, true)));
    let report = game.last_report().expect("a turn report");
    assert!(report.contains("I.A.1-II.F.2: succeeds"), "{report}");
    assert!(report.contains("R-II.G.2: succeeds"), "{report}");
    assert!(report.contains("claim invalid"), "{report}");
    assert!(report.contains("I.E.1 - I.A.2: void (") && report.contains("file E is on level II"));
    assert!(report.contains("YELLOW: no orders"), "{report}");
    assert!(
        report.contains("Reserves: BLUE 7, RED 6, GREEN 7, YELLOW 7"),
        "{report}"
    );

    // Replaying the record from the start gives the same position and report.
    let mut replay = new_game();
    assert_eq!(replay.play(Actor::Gm, &ply), Ok(ply.clone()));
    assert_eq!(replay.position_tag(), game.position_tag());
    assert_eq!(replay.last_report(), game.last_report());
    // And through the AnyGame dispatcher, splitting plies on white space.
    let mut any = AnyGame::new(GameKind::DipTacToe, &Options::new()).unwrap();
    for p in any.split_plies(&format!("{ply} {ply}")) {
        any.play(Actor::Gm, &p).expect("recorded ply plays");
    }
    assert_eq!(any.move_number(), Some((3, true)));
}

#[test]
fn dislodgement_and_reserves_are_reported_and_tagged() {
    let tag = "turn=4 BLUE=II.F.2/7 RED=II.F.3/7 GREEN=II.G.2/7 YELLOW=IV.N.4/7";
    let mut game = DipTacToe::from_position(&Options::new(), tag).unwrap();
    assert_eq!(game.position_tag(), tag);
    play_turn(
        &mut game,
        &[(0, &["F2 - G2"]), (1, &["F3 (supports) BLUE F2 - G2"])],
    );
    let report = game.last_report().unwrap();
    assert!(
        report.contains("II.F.3(S)BLUE(II.F.2-II.G.2): support given"),
        "{report}"
    );
    assert!(
        report.contains("Dislodged (back to reserve): GREEN II.G.2"),
        "{report}"
    );
    assert_eq!(
        game.position_tag(),
        "turn=5 BLUE=II.G.2/7 RED=II.F.3/7 GREEN=/8 YELLOW=IV.N.4/7 missed=GREEN:1,YELLOW:1"
    );
    let again = DipTacToe::from_position(&Options::new(), &game.position_tag()).unwrap();
    assert_eq!(again.position_tag(), game.position_tag());
}

#[test]
fn check_orders_judges_each_line_for_the_confirmation_mail() {
    let game = new_game();
    let lines: Vec<String> = ["A1-B1", "victory", "I.E.1 - I.A.2", "A1-B1"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let got = game.check_orders(0, &lines);
    assert_eq!(got[0], Ok("I.A.1-I.B.1".into()));
    assert_eq!(got[1], Ok("VICTORY".into()));
    assert!(got[2].as_ref().unwrap_err().contains("level II"));
    assert_eq!(
        got[3],
        Ok("I.A.1-I.B.1".into()),
        "identical duplicates count once"
    );
    let two: Vec<String> = vec!["A1-B1".into(), "R-F3".into()];
    for r in game.check_orders(0, &two) {
        assert!(r.unwrap_err().contains("different orders"));
    }
    let theirs = game.check_orders(0, &["II.H.1 - II.G.1".to_string()]);
    assert!(theirs[0].as_ref().unwrap_err().contains("RED's, not yours"));
}

#[test]
fn a_valid_claim_wins_and_two_draw() {
    let tag = "turn=9 BLUE=I.A.1,I.A.2,I.A.3/5 RED=IV.N.1,IV.N.2,IV.N.3/5 GREEN=/8 YELLOW=/8";
    let mut game = DipTacToe::from_position(&Options::new(), tag).unwrap();
    play_turn(&mut game, &[(0, &["R-I.A.4", "Four!"])]);
    assert_eq!(
        game.outcome(),
        Some(Outcome::Win {
            seat: 0,
            reason: "a valid claim of four in a row".into()
        })
    );
    assert_eq!(game.to_act(), ToAct::Nobody);
    assert!(
        game.play(Actor::Gm, "BLUE:").is_err(),
        "no turns after the end"
    );

    let mut game = DipTacToe::from_position(&Options::new(), tag).unwrap();
    play_turn(
        &mut game,
        &[(0, &["R-I.A.4", "VICTORY"]), (1, &["R-IV.N.4", "VICTORY"])],
    );
    assert!(matches!(game.outcome(), Some(Outcome::Draw { seats, .. }) if seats == vec![0, 1]));

    // Unclaimed: the game goes on and nobody is told.
    let mut game = DipTacToe::from_position(&Options::new(), tag).unwrap();
    play_turn(&mut game, &[(0, &["R-I.A.4"])]);
    assert_eq!(game.outcome(), None);
    assert!(!game.last_report().unwrap().contains("four in a row"));
}

#[test]
fn resignation_leaves_the_units_holding_and_the_game_going() {
    // Resignation and agreed draws are ruled once for every game, by `AnyGame`.
    let any = || AnyGame::new(GameKind::DipTacToe, &Options::new()).unwrap();
    let mut game = any();
    assert_eq!(game.resign(1), Ok("RED:resign".into()));
    assert_eq!(game.to_act(), ToAct::Orders(vec![0, 2, 3]));
    assert!(game.resign(1).is_err());
    let ply = game
        .turn_ply(&orders(&[(1, &["II.H.1 - II.G.1"]), (0, &["A1-B1"])]))
        .unwrap();
    assert_eq!(ply, "BLUE:I.A.1-I.B.1;RED:;GREEN:;YELLOW:");
    game.play(Actor::Gm, &ply).unwrap();
    assert!(game.position_tag().contains(" resigned=RED "));
    let restored = DipTacToe::from_position(&Options::new(), &game.position_tag()).unwrap();
    assert_eq!(restored.to_act(), ToAct::Orders(vec![0, 2, 3]));
    let restored =
        AnyGame::from_position(GameKind::DipTacToe, &Options::new(), &game.position_tag()).unwrap();
    assert_eq!(restored.playing(), vec![0, 2, 3]);
    assert!(
        game.play(Actor::Gm, "RED:II.H.1-II.G.1").is_err(),
        "a resigned seat gives no orders"
    );
    // The logged ply replays as a GM ply.
    let mut replay = any();
    assert_eq!(
        replay.play(Actor::Gm, "RED:resign"),
        Ok("RED:resign".into())
    );
    assert_eq!(replay.to_act(), ToAct::Orders(vec![0, 2, 3]));
}

#[test]
fn an_agreed_draw_ends_the_game_among_all() {
    let mut game = AnyGame::new(GameKind::DipTacToe, &Options::new()).unwrap();
    assert_eq!(game.agree_draw(), Ok("draw".into()));
    assert!(
        matches!(game.outcome(), Some(Outcome::Draw { seats, .. }) if seats == vec![0, 1, 2, 3])
    );
    assert_eq!(game.to_act(), ToAct::Nobody);
}

#[test]
fn options_are_checked() {
    let with = |k: &str, v: &str| {
        let mut o = Options::new();
        o.insert(k.into(), v.into());
        DipTacToe::new(&o).map(|_| ())
    };
    assert!(with("nmr_limit", "5").is_ok());
    assert!(with("nmr_limit", "0").is_err());
    assert!(with("nmr_limit", "three").is_err());
    assert!(with("press", "anonymous").is_ok());
    assert!(with("press", "loud").is_err());
    assert!(with("support_hold", "on").is_ok());
    assert!(with("support_hold", "maybe").is_err());
    assert!(with("colour", "blue").is_err());
}

#[test]
fn legal_plies_all_play() {
    let game = new_game();
    let plies = game.legal_plies();
    assert!(plies.iter().any(|p| p == "BLUE:I.A.1-II.F.2"));
    assert!(plies.iter().any(|p| p == "YELLOW:R-I.A.2"));
    for ply in plies.iter().step_by(7) {
        let mut g = game.clone();
        g.play(Actor::Gm, ply)
            .unwrap_or_else(|e| panic!("{ply}: {e}"));
        let (seat, order) = ply.split_once(':').unwrap();
        let seat = game.seat_names().iter().position(|s| *s == seat).unwrap();
        assert_eq!(
            game.check_orders(seat, &[order.to_string()]),
            vec![Ok(order.to_string())],
            "{ply} is legal"
        );
        let report = g.last_report().unwrap();
        assert!(!report.contains("void (") || report.contains("order was not given"));
    }
}

/// Many turns of pseudo-random legal orders: units and reserves always make eight per player,
/// no space holds two units, and the position tag and a replay reproduce the game.
#[test]
fn invariants_hold_over_generated_games() {
    let mut seed: u64 = 0x0005_eedd_17ac;
    let mut next = |n: usize| {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 33) as usize) % n
    };
    for game_number in 0..6 {
        let mut options = Options::new();
        if game_number % 2 == 1 {
            options.insert("support_hold".into(), "on".into());
        }
        let mut game = DipTacToe::new(&options).unwrap();
        let mut record = Vec::new();
        for _turn in 0..60 {
            if game.outcome().is_some() {
                break;
            }
            let mut list: BTreeMap<usize, Vec<String>> = BTreeMap::new();
            for seat in 0..4 {
                let legal = game.legal_orders(seat);
                let mut lines = Vec::new();
                if !legal.is_empty() && next(5) > 0 {
                    lines.push(legal[next(legal.len())].clone());
                }
                if next(8) == 0 {
                    lines.push("Victory!".to_string());
                }
                list.insert(seat, lines);
            }
            let ply = game.turn_ply(&list).expect("turn ply");
            game.play(Actor::Gm, &ply).expect("turn plays");
            record.push(ply);
            let json = game.position_json();
            let mut seen = std::collections::BTreeSet::new();
            for name in game.seat_names() {
                let units = json["units"][name].as_array().unwrap();
                for u in units {
                    assert!(
                        seen.insert(u.as_str().unwrap().to_string()),
                        "two units on {u}"
                    );
                }
                let reserve = json["reserves"][name].as_u64().unwrap() as usize;
                assert_eq!(units.len() + reserve, 8, "{name} has eight units in all");
            }
            let restored = DipTacToe::from_position(&options, &game.position_tag()).unwrap();
            assert_eq!(restored.position_tag(), game.position_tag());
        }
        let mut replay = DipTacToe::new(&options).unwrap();
        for ply in &record {
            replay.play(Actor::Gm, ply).expect("record replays");
        }
        assert_eq!(replay.position_tag(), game.position_tag());
        assert_eq!(replay.outcome(), game.outcome());
    }
}

/// The seats whose missed turns have reached the game's limit (what the GM's clock reads
/// through `Rules::missed`).
fn at_limit(game: &DipTacToe) -> Vec<usize> {
    (0..4)
        .filter(|s| game.missed(*s).is_some_and(|m| m.turns >= m.limit))
        .collect()
}

#[test]
fn missed_turns_are_counted_for_the_nmr_policy() {
    let mut options = Options::new();
    options.insert("nmr_limit".into(), "2".into());
    let mut game = DipTacToe::new(&options).unwrap();
    let ply = game.turn_ply(&orders(&[(0, &["A1-B1"])])).unwrap();
    game.play(Actor::Gm, &ply).unwrap();
    assert_eq!(game.missed_turns(0), 0);
    assert_eq!(game.missed_turns(1), 1);
    assert!(at_limit(&game).is_empty());
    let ply = game.turn_ply(&orders(&[(1, &["Victory!"])])).unwrap();
    game.play(Actor::Gm, &ply).unwrap();
    assert_eq!(game.missed_turns(0), 1, "BLUE sent nothing this time");
    assert_eq!(
        game.missed_turns(1),
        0,
        "a claim alone counts as sending orders"
    );
    assert_eq!(at_limit(&game), vec![2, 3]);
    assert!(game
        .last_report()
        .unwrap()
        .contains("GREEN has sent no orders for 2 turns in a row."));
    let tag = game.position_tag();
    assert!(tag.ends_with("missed=BLUE:1,GREEN:2,YELLOW:2"), "{tag}");
    let restored = DipTacToe::from_position(&options, &tag).unwrap();
    assert_eq!(at_limit(&restored), vec![2, 3]);
    assert_eq!(restored.position_tag(), tag);
}
