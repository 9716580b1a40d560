//! Dice Rink rules through the `Rules` trait: orientation, rolling, the obligation, rotations, results and output formats.

use pbem_rules::games::dicerink::die::{Dir, Orientation};
use pbem_rules::games::dicerink::DiceRink;
use pbem_rules::games::{Actor, Options, Outcome, PlyError, Rules, ToAct};

fn at(tag: &str) -> DiceRink {
    DiceRink::from_position(&Options::new(), tag).unwrap_or_else(|e| panic!("{tag}: {e}"))
}

fn with_options(pairs: &[(&str, &str)]) -> Result<DiceRink, String> {
    let options: Options = pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    DiceRink::new(&options)
}

/// Plays for the side to move.
fn play(game: &mut DiceRink, text: &str) -> Result<String, PlyError> {
    let ToAct::Seat(seat) = game.to_act() else {
        panic!("nobody to move")
    };
    game.play(Actor::Seat(seat), text)
}

fn play_all(game: &mut DiceRink, text: &str) {
    for ply in game.split_plies(text) {
        play(game, &ply).unwrap_or_else(|e| panic!("{ply}: {e}"));
    }
}

fn forced(game: &DiceRink) -> Option<String> {
    game.position_json()["forced"].as_str().map(str::to_string)
}

const GAME1_START: &str = "A:b1=5/4,d1=3/6 B:b4=2/4,d4=6/4 move=A forced=-";

#[test]
fn a_right_handed_die_seen_from_a_shows_3_to_the_right_of_1_over_2() {
    // A sits south of the board: the face toward A is the south face, A's right is east.
    // A places top 1 with front (north) 5, so 2 faces A; rolling west brings the east face up.
    let mut game = DiceRink::new(&Options::new()).unwrap();
    play_all(&mut game, "b1 1/5 b4 6/2 d1 4/2 d4 3/1");
    assert_eq!(play(&mut game, "b1 W").unwrap(), "1W3");
    let o = Orientation::with_top_facing(1, 2, Dir::South).unwrap();
    assert_eq!(o.face(Dir::East), 3);
}

#[test]
fn rolling_brings_the_trailing_face_up_in_every_direction() {
    // b2: top 5, north 4 (south 3); its east and west faces are 1 and 6 on a right-handed die.
    let tag = "A:b2=5/4,d4=6/2 B:a4=1/2,c4=3/1 move=A forced=-";
    let o = Orientation::with_top_facing(5, 4, Dir::North).unwrap();
    let mut expected = Vec::new();
    for (dir, new_top) in [
        (Dir::North, 3),
        (Dir::South, 4),
        (Dir::East, o.face(Dir::West)),
        (Dir::West, o.face(Dir::East)),
    ] {
        let mut game = at(tag);
        let text = format!("b2 {}", dir.letter());
        let result = play(&mut game, &text);
        if Orientation::rolled(o, dir).top() == 6 {
            // 6 would match the other die: refused.
            assert!(result
                .unwrap_err()
                .to_string()
                .contains("would match your other die (6)"));
        } else {
            assert_eq!(result.unwrap(), format!("5{}{new_top}", dir.letter()));
            expected.push(new_top);
        }
    }
    assert_eq!(
        expected.len(),
        3,
        "exactly one of the four rolls turns up 6"
    );
}

#[test]
fn b_front_is_the_south_face() {
    // Seed game 2: B's b4 shows 6 with front 3, so rolling south (north face up) shows 4.
    let mut game = DiceRink::new(&Options::new()).unwrap();
    play_all(&mut game, "b1 4/2 b4 6/3 d1 3/1 d4 1/4 3N6");
    assert_eq!(play(&mut game, "b4 S").unwrap(), "6S4");
    let json = game.position_json();
    let b3 = json["dice"]
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["square"] == "b3")
        .unwrap()
        .clone();
    assert_eq!(b3["front"], 6, "the old top 6 now faces south, toward A");
}

#[test]
fn a_match_forces_the_opponent_to_move_that_die() {
    let mut game = at(GAME1_START);
    assert_eq!(play(&mut game, "5W6").unwrap(), "5W6");
    assert_eq!(forced(&game).as_deref(), Some("d4"));
    assert_eq!(
        game.last_report().as_deref(),
        Some("B must move the die on d4 (it matches A's 6)")
    );
    let err = play(&mut game, "2S3").unwrap_err();
    assert_eq!(
        err,
        PlyError::Illegal("you must move the die on d4: it matches your opponent's 6".into())
    );
    assert!(game.legal_plies().iter().all(|p| p.starts_with('6')));
}

#[test]
fn only_the_die_just_moved_creates_a_match() {
    // B's a1 (4) already matches A's c4 (5), but A's roll of the other die matches nothing.
    let mut game = at("A:b3=1/4,c4=5/3 B:a2=4/1,d2=6/2 move=A forced=-");
    assert_eq!(play(&mut game, "b3 E").unwrap(), "1E2");
    assert_eq!(forced(&game), None);
}

#[test]
fn the_obligation_overrides_a_win_with_the_other_die() {
    let tag = "A:b3=1/4,c4=5/3 B:a2=4/1,d2=3/1 move=A forced=c4";
    let mut game = at(tag);
    let err = play(&mut game, "1N3").unwrap_err().to_string();
    assert_eq!(
        err,
        "you must move the die on c4: it matches your opponent's 4"
    );
    // The die on the goal rank must move: every legal ply is a roll of c4 (showing 5).
    let legal = game.legal_plies();
    assert!(!legal.is_empty());
    assert!(legal.iter().all(|p| p.starts_with('5')), "{legal:?}");
    // Without the obligation the same roll wins at once.
    let mut free = at("A:b3=1/4,c4=5/3 B:a2=4/1,d2=3/1 move=A forced=-");
    assert_eq!(play(&mut free, "1N3").unwrap(), "1N3");
    assert_eq!(
        free.outcome(),
        Some(Outcome::Win {
            seat: 0,
            reason: "both dice on rank 4".into()
        })
    );
    assert_eq!(free.to_act(), ToAct::Nobody);
    assert!(free.legal_plies().is_empty());
}

#[test]
fn a_forced_roll_may_pass_the_obligation_straight_back() {
    // Seed game 2, move 2: A's forced b1 (4) rolls to 5, still high: B's b3 (4) is forced.
    let mut game = at("A:b1=4/2,d2=6/3 B:b3=4/6,d4=1/4 move=A forced=b1");
    assert_eq!(play(&mut game, "4N5").unwrap(), "4N5");
    assert_eq!(forced(&game).as_deref(), Some("b3"));
    assert_eq!(play(&mut game, "4E5").unwrap(), "4E5");
    assert_eq!(forced(&game).as_deref(), Some("b2"));
}

/// A's forced a1 shows 4 with north 6 and east 5: both rolls (north turns up 1, east 2) would
/// match A's other die (1), which counts as no legal roll.
const VALUE_BLOCKED: &str = "A:a1=4/6,c3=1/2 B:b4=6/2,d4=5/1 move=A forced=a1";

#[test]
fn a_roll_blocked_only_by_the_own_dice_rule_counts_as_no_roll() {
    let mut game = at(VALUE_BLOCKED);
    let err = play(&mut game, "4N").unwrap_err().to_string();
    assert_eq!(
        err,
        "4N: the die on a1 cannot roll north: 1 would match your other die (1)"
    );
    let legal = game.legal_plies();
    assert!(legal.iter().all(|p| p.starts_with('R')), "{legal:?}");
    // 24 orientations less those with top 4 (unchanged) or low (1, 2: the other die).
    assert_eq!(legal.len(), 24 - 4 - 8);
    assert!(game
        .last_report()
        .is_none_or(|r| r.contains("must be rotated")));
}

#[test]
fn rotation_must_change_the_top_and_not_match_the_other_die() {
    let mut game = at(VALUE_BLOCKED);
    let err = play(&mut game, "R4(1N)").unwrap_err().to_string();
    assert!(err.contains("a rotation must change the top"), "{err}");
    let err = play(&mut game, "R2(3N)").unwrap_err().to_string();
    assert!(err.contains("2 would match your other die (1)"), "{err}");
    // Same value (high), other face: allowed.
    assert!(game.legal_plies().contains(&"R5(1N)".to_string()));
}

#[test]
fn a_rotation_can_create_a_match() {
    let mut game = at(VALUE_BLOCKED);
    assert_eq!(play(&mut game, "rotate 6(2N)").unwrap(), "R6(2N)");
    assert_eq!(forced(&game).as_deref(), Some("b4"));
    assert_eq!(
        game.last_report().as_deref(),
        Some("B must move the die on b4 (it matches A's 6)")
    );
    let mut game = at(VALUE_BLOCKED);
    play(&mut game, "R5(1N)").unwrap();
    assert_eq!(forced(&game).as_deref(), Some("d4"));
}

#[test]
fn without_an_obligation_a_player_who_cannot_roll_may_rotate_either_die() {
    let game = at("A:a1=3/2,a2=6/4 B:b1=1/2,b2=5/1 move=A forced=-");
    let legal = game.legal_plies();
    // Each die: 24 orientations less tops 3 and 6 (its own top or the other die's value).
    assert_eq!(legal.len(), 32, "{legal:?}");
    assert!(legal
        .iter()
        .all(|p| p.starts_with("a1 R") || p.starts_with("a2 R")));
    let mut game = game;
    let err = play(&mut game, "R1(2N)").unwrap_err();
    assert!(matches!(err, PlyError::Ambiguous(_)), "{err:?}");
    assert_eq!(play(&mut game, "a2 R1(2N)").unwrap(), "a2 R1(2N)");
}

#[test]
fn rotation_is_refused_while_a_roll_exists() {
    let mut game = at(GAME1_START);
    let err = play(&mut game, "R6(2N)").unwrap_err().to_string();
    assert!(
        err.starts_with("you may rotate only when neither die can roll"),
        "{err}"
    );
    assert!(game.legal_plies().iter().all(|p| !p.contains('R')));
}

#[test]
fn pass_is_refused_while_anything_is_legal() {
    for tag in [GAME1_START, VALUE_BLOCKED] {
        let mut game = at(tag);
        let err = play(&mut game, "pass").unwrap_err().to_string();
        assert!(err.starts_with("you cannot pass"), "{err}");
        assert_eq!(game.auto_ply(), None);
    }
}

#[test]
fn setup_alternates_and_keeps_four_values() {
    let mut game = DiceRink::new(&Options::new()).unwrap();
    assert_eq!(game.move_number(), None);
    assert_eq!(game.legal_plies().len(), 4 * 24);
    assert_eq!(game.to_act(), ToAct::Seat(0));
    play(&mut game, "b1 5/4").unwrap();
    assert_eq!(game.to_act(), ToAct::Seat(1));
    // B may not show high: 8 of the 24 orientations have 4 or 5 on top.
    assert_eq!(game.legal_plies().len(), 4 * 16);
    assert!(game
        .legal_plies()
        .iter()
        .all(|p| p.ends_with(|c: char| c.is_ascii_digit())));
    let err = game.play(Actor::Seat(0), "a1 3/2").unwrap_err();
    assert!(matches!(err, PlyError::NotYourTurn(_)), "{err:?}");
    play_all(&mut game, "b4 2/4 d1 3/6");
    // The last die must show the fourth value, 6.
    assert!(game.legal_plies().iter().all(|p| p[3..].starts_with('6')));
    play(&mut game, "d4 6/4").unwrap();
    assert_eq!(game.move_number(), Some((1, true)));
    assert_eq!(game.position_tag(), GAME1_START);
}

#[test]
fn fixed_setup_uses_b_and_c_only() {
    let mut game = with_options(&[("setup", "fixed")]).unwrap();
    assert_eq!(game.legal_plies().len(), 2 * 24);
    assert!(play(&mut game, "a1 5/4")
        .unwrap_err()
        .to_string()
        .contains("b1 and c1"));
    play_all(&mut game, "c1 5/4 b4 2/4");
    assert!(play(&mut game, "d1 3/6").is_err());
    play_all(&mut game, "b1 3/6 c4 6/4");
    assert_eq!(game.move_number(), Some((1, true)));
}

#[test]
fn move_numbers_count_full_moves_after_setup() {
    let mut game = at(GAME1_START);
    assert_eq!(game.move_number(), Some((1, true)));
    play(&mut game, "5W6").unwrap();
    assert_eq!(game.move_number(), Some((1, false)));
    play(&mut game, "6S3").unwrap();
    assert_eq!(game.move_number(), Some((2, true)));
    let b_to_move = at("A:b1=5/4,d1=3/6 B:b4=2/4,d4=6/4 move=B forced=-");
    assert_eq!(b_to_move.move_number(), Some((1, false)));
}

#[test]
fn resign_and_agreed_draw_end_the_game() {
    // Resignation and agreed draws are ruled once for every game, by `AnyGame`.
    let at = |tag: &str| {
        pbem_rules::games::AnyGame::from_position(
            pbem_rules::games::GameKind::DiceRink,
            &Options::new(),
            tag,
        )
        .unwrap()
    };
    let mut game = at(GAME1_START);
    // B resigns although it is A's turn.
    assert_eq!(game.play(Actor::Seat(1), "Resign").unwrap(), "resign");
    assert_eq!(
        game.outcome(),
        Some(Outcome::Win {
            seat: 0,
            reason: "B resigned".into()
        })
    );
    assert!(matches!(
        game.play(Actor::Seat(0), "5W6"),
        Err(PlyError::NotYourTurn(_))
    ));

    // Resignation and agreed draws are ruled once for every game, by `AnyGame`.
    let mut game = pbem_rules::games::AnyGame::from_position(
        pbem_rules::games::GameKind::DiceRink,
        &Options::new(),
        GAME1_START,
    )
    .unwrap();
    assert!(
        game.play(Actor::Seat(0), "draw").is_err(),
        "a draw is not a seat's move"
    );
    assert_eq!(game.agree_draw().unwrap(), "draw");
    assert!(matches!(game.outcome(), Some(Outcome::Draw { seats, .. }) if seats == vec![0, 1]));
    assert_eq!(game.position_json()["to_move"], serde_json::Value::Null);
}

#[test]
fn the_move_cap_draws_after_n_full_moves() {
    let mut game = with_options(&[("movecap", "2")]).unwrap();
    play_all(&mut game, "b1 5/4 b4 2/4 d1 3/6 d4 6/4 5W6 6S3 3W2");
    assert_eq!(game.outcome(), None);
    play(&mut game, "2E1").unwrap();
    assert!(
        matches!(game.outcome(), Some(Outcome::Draw { ref reason, .. }) if reason.contains("2 full moves"))
    );
    assert!(with_options(&[("movecap", "off")]).is_ok());
    let err = with_options(&[("movecap", "soon")]).unwrap_err();
    assert!(err.contains("movecap"), "{err}");
    assert!(with_options(&[("movecap", "0")]).is_err());
    assert!(with_options(&[("setup", "random")]).is_err());
    assert!(with_options(&[("colour", "red")]).is_err());
}

#[test]
fn position_json_has_the_documented_shape() {
    let game = at("A:b1=5/1,a3=2/3 B:c3=5/6,d3=6/2 move=A forced=b1");
    assert_eq!(
        game.position_json(),
        serde_json::from_str::<serde_json::Value>(
            r#"{"to_move":"A","forced":"b1","dice":[
                {"player":"A","square":"a3","top":2,"front":3},
                {"player":"A","square":"b1","top":5,"front":1},
                {"player":"B","square":"c3","top":5,"front":6},
                {"player":"B","square":"d3","top":6,"front":2}]}"#
        )
        .unwrap()
    );
    // With serde_json's preserve_order (Cargo.toml) the text keeps the documented key order.
    assert!(game.position_json().to_string().starts_with(
        r#"{"to_move":"A","forced":"b1","dice":[{"player":"A","square":"a3","top":2,"front":3},"#
    ));
    assert_eq!(
        game.position_tag(),
        "A:a3=2/3,b1=5/1 B:c3=5/6,d3=6/2 move=A forced=b1"
    );
}

#[test]
fn from_position_refuses_impossible_or_finished_positions() {
    let opts = Options::new();
    let err = DiceRink::from_position(&opts, "A:a4=2/3,b4=5/1 B:c3=3/6,d3=6/2 move=B").unwrap_err();
    assert!(err.contains("game is over"), "{err}");
    let err = DiceRink::from_position(&opts, "A:b1=5/4 B:b4=2/4,d4=6/4 move=A").unwrap_err();
    assert!(err.contains("two a side"), "{err}");
    let err = DiceRink::from_position(&opts, "A:b1=5/4,b1=3/6 B:b4=2/4,d4=6/4 move=A").unwrap_err();
    assert!(err.contains("two dice"), "{err}");
    assert!(DiceRink::from_position(&opts, "A:b1=5/4,d1=3/6 B:b4=2/4,d4=6/4").is_err());
}

#[test]
fn the_board_fits_a_mail_and_shows_every_die() {
    let game = at("A:d3=2/3,d4=4/5 B:a3=5/1,c4=6/4 move=A forced=d4");
    let board = game.board();
    assert!(board.lines().all(|l| l.len() <= 72), "{board}");
    assert!(board.is_ascii());
    assert!(board.contains("A 4!"), "the forced die is marked:\n{board}");
    assert!(board.contains("B 6") && board.contains("B 5") && board.contains("A 2"));
    assert!(
        board.contains("A must move the die on d4 (it matches B's 5)"),
        "{board}"
    );
    assert!(board.contains("move 1, A to move"));
    assert!(board.contains("A: d3 top 2 front 3, d4 top 4 front 5"));
    // Rank 4 is printed above rank 1.
    let r4 = board.find(" 4 |").unwrap();
    let r1 = board.find(" 1 |").unwrap();
    assert!(r4 < r1);
    let empty = DiceRink::new(&Options::new()).unwrap().board();
    assert!(empty.contains("set-up, A places a die on rank 1"));
}

/// Every distinct position the set-up can end in, found by playing out every placement.
fn starting_positions(options: &[(&str, &str)]) -> std::collections::HashSet<String> {
    let mut layer = vec![with_options(options).unwrap()];
    for _ in 0..4 {
        let mut next = std::collections::HashMap::new();
        for game in &layer {
            for ply in game.legal_plies() {
                let mut after = game.clone();
                play(&mut after, &ply).unwrap();
                next.entry(after.position_tag()).or_insert(after);
            }
        }
        layer = next.into_values().collect();
    }
    assert!(layer.iter().all(|g| g.move_number() == Some((1, true))));
    layer.iter().map(DiceRink::position_tag).collect()
}

#[test]
fn the_fixed_set_up_has_24576_starting_positions() {
    // 4! ways to give the four dice the four values, times the orientations showing each
    // value on top (low 8, high 8, 3: 4, 6: 4). The free set-up multiplies this by the 6 x 6
    // choices of squares: 884,736, not the seed's 276,480 (see RULES.md).
    assert_eq!(
        starting_positions(&[("setup", "fixed")]).len(),
        24 * 8 * 8 * 4 * 4
    );
}
