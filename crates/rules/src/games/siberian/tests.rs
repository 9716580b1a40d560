//! Whole-game checks through the `Rules` interface: a seat leaving, the end of the game, plans, move numbers, MOVES, the board and the JSON.

use super::*;
use crate::games::{Actor, Options, Rules};

fn options(pairs: &[(&str, &str)]) -> Options {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

fn game(pairs: &[(&str, &str)], tag: &str) -> Siberian {
    Siberian::from_position(&options(pairs), tag).unwrap_or_else(|e| panic!("{tag}: {e}"))
}

fn start(pairs: &[(&str, &str)]) -> Siberian {
    Siberian::new(&options(pairs)).unwrap()
}

/// Plays plies by whoever the position expects.
fn play(g: &mut Siberian, plies: &str) {
    for ply in g.split_plies(plies) {
        let actor = match g.to_act() {
            ToAct::Seat(s) => Actor::Seat(s),
            ToAct::Chance(_) => Actor::Chance,
            other => panic!("{other:?} before {ply}"),
        };
        g.play(actor, &ply).unwrap_or_else(|e| panic!("{ply}: {e}"));
    }
}

/// GREEN has 5 perfect dice and a 2 on d1 with one neighbour: a die on c1 makes it 6.
const GREEN_AT_FIVE: &str = "BLUE:d6=1 RED:e1=3 GREEN:g1=1,g2=1,a4=1,b5=1,d7=1,d1=2 move=BLUE";

#[test]
fn a_seat_at_the_target_wins_on_another_seats_move() {
    let mut g = game(&[("players", "3")], GREEN_AT_FIVE);
    assert_eq!(g.perfect_counts(), [1, 0, 5]);
    play(&mut g, "H roll 5 c1");
    assert_eq!(
        g.outcome(),
        Some(Outcome::Win {
            seat: 2,
            reason: "6 perfect dice, made by BLUE's move".into()
        })
    );
    assert_eq!(g.to_act(), ToAct::Nobody);
    assert!(g.last_report().unwrap().contains("GREEN wins"));
}

#[test]
fn a_seat_that_left_keeps_its_dice_as_neighbours_but_cannot_win() {
    let mut g = game(
        &[("players", "3")],
        &format!("{GREEN_AT_FIVE} retired=GREEN"),
    );
    // BLUE's 1 on d6 is perfect beside GREEN's d7.
    assert_eq!(g.perfect_counts(), [1, 0, 5]);
    play(&mut g, "H roll 5 c1");
    assert_eq!(g.perfect_counts(), [1, 0, 6]);
    assert_eq!(g.outcome(), None);
    assert_eq!(g.to_act(), ToAct::Seat(1));
    play(&mut g, "H roll 1 a1");
    assert_eq!(g.to_act(), ToAct::Seat(0), "GREEN is skipped");
    assert!(g.position_tag().ends_with("move=BLUE retired=GREEN"));
}

#[test]
fn leaving_mid_move_drops_the_declaration_and_passes_the_turn() {
    let mut g = start(&[("players", "3")]);
    play(&mut g, "H roll 1 a1 H roll 2 a2 H roll 3");
    assert_eq!(g.to_act(), ToAct::Seat(2));
    let before = g.position_tag();
    g.retire(2);
    assert_eq!(g.phase(), Phase::Declare);
    assert_eq!(g.to_act(), ToAct::Seat(0));
    assert_eq!(g.move_number(), Some((2, true)));
    assert_eq!(g.position().hand(g.config(), 2), 9);
    assert_eq!(
        g.position_tag(),
        before.replace("move=GREEN", "move=BLUE retired=GREEN")
    );
    assert!(g.last_report().unwrap().contains("dropped"));
    play(&mut g, "H roll 4 d4 H roll 5 e5");
    assert_eq!(g.move_number(), Some((3, true)));
    // A seat that left plays no more, and leaving twice changes nothing.
    assert!(g.play(Actor::Seat(2), "H").is_err());
    let tag = g.position_tag();
    g.retire(2);
    assert_eq!(g.position_tag(), tag);
}

#[test]
fn leaving_before_the_opening_roll_gives_the_first_move_to_the_next_seat() {
    let mut g = start(&[("players", "3"), ("variant", "strategic")]);
    g.retire(0);
    assert_eq!(g.to_act(), ToAct::Chance(vec![6, 6, 6]));
    play(&mut g, "roll 1 2 3");
    assert_eq!(g.to_act(), ToAct::Seat(1));
    assert_eq!(g.move_number(), Some((1, true)));
}

#[test]
fn a_seat_that_leaves_while_another_moves_changes_nothing_of_the_move() {
    let mut g = start(&[("players", "3")]);
    play(&mut g, "H roll 1");
    g.retire(1);
    play(&mut g, "a1");
    assert_eq!(g.to_act(), ToAct::Seat(2));
    assert_eq!(g.move_number(), Some((1, false)));
}

#[test]
fn purity_used_up_draws_among_the_seats_still_playing() {
    let tag = "BLUE:a1=2 RED:g4=2 GREEN:d4=3 move=BLUE purity=4 retired=RED";
    let mut g = game(&[("players", "3"), ("variant", "purity")], tag);
    play(&mut g, "H c3");
    assert!(matches!(
        g.outcome(),
        Some(Outcome::Draw { seats, .. }) if seats == [0, 2]
    ));
    assert!(g.position_tag().contains("purity=-"));
}

/// BLUE and RED at 5; RED's die on d2 makes BLUE's d1 and RED's e1 perfect (and itself, if
/// it shows 2).
const BOTH_AT_FIVE: &str =
    "BLUE:a1=1,a2=1,g1=1,g2=1,d7=1,d1=2 RED:d6=1,a4=1,b5=1,g4=1,f5=1,e1=2 move=RED";

#[test]
fn simultaneous_targets() {
    let outcome = |option: &str, plies: &str| {
        let mut g = game(&[("simultaneous", option)], BOTH_AT_FIVE);
        play(&mut g, plies);
        (g.perfect_counts(), g.outcome())
    };
    let draw = |seats: Vec<usize>| {
        Some(Outcome::Draw {
            seats,
            reason: String::new(),
        })
    };
    let strip = |(c, o): (Vec<usize>, Option<Outcome>)| {
        let o = o.map(|o| match o {
            Outcome::Draw { seats, .. } => Outcome::Draw {
                seats,
                reason: String::new(),
            },
            Outcome::Win { seat, .. } => Outcome::Win {
                seat,
                reason: String::new(),
            },
        });
        (c, o)
    };
    assert_eq!(
        strip(outcome("draw", "H roll 2 d2")),
        (vec![6, 7], draw(vec![0, 1]))
    );
    assert_eq!(
        strip(outcome("most", "H roll 2 d2")),
        (
            vec![6, 7],
            Some(Outcome::Win {
                seat: 1,
                reason: String::new()
            })
        )
    );
    assert_eq!(
        strip(outcome("most", "H roll 5 d2")),
        (vec![6, 6], draw(vec![0, 1]))
    );
    assert_eq!(
        strip(outcome("draw", "H roll 5 d2")),
        (vec![6, 6], draw(vec![0, 1]))
    );
}

#[test]
fn a_tag_at_the_target_or_with_wrong_counts_is_refused() {
    let refused = |pairs: &[(&str, &str)], tag: &str| {
        Siberian::from_position(&options(pairs), tag).expect_err(tag)
    };
    assert!(refused(&[], "BLUE:a1=1,a2=1,g1=1,g2=1,d7=1,d6=1 RED:- move=RED").contains("target"));
    assert!(refused(&[], "BLUE:- RED:- GREEN:- move=RED").contains("GREEN"));
    assert!(refused(&[], "BLUE:- move=RED").contains("RED"));
    assert!(refused(&[], "BLUE:a1=1 RED:a1=2 move=RED").contains("twice"));
    assert!(refused(&[], "BLUE:a1=7 RED:- move=RED").contains("face"));
    assert!(refused(&[], "BLUE:- RED:- move=RED indicators=1,2").contains("another variant"));
    let strategic = [("variant", "strategic")];
    assert!(refused(&strategic, "BLUE:a1=2 RED:- move=RED").contains("indicators="));
    assert!(refused(&strategic, "BLUE:- RED:- move=RED indicators=1").contains("each"));
    let gm = [("variant", "grossmeister")];
    assert!(refused(&gm, "BLUE:a1=2 RED:- move=RED sequences=1,2").contains("sequence"));
    let purity = [("variant", "purity")];
    assert!(refused(&purity, "BLUE:a1=2 RED:- move=RED purity=-").contains("never empty"));
    let twelve = "a1=1,a2=1,a3=1,a4=1,b1=1,b2=1,b3=1,b4=1,b5=1,c1=1,c2=1,c3=1";
    assert!(refused(&[], &format!("BLUE:{twelve},c4=1 RED:- move=BLUE")).contains("owns 12"));
    assert!(refused(
        &[("players", "3")],
        "BLUE:- RED:- GREEN:- move=RED retired=RED"
    )
    .contains("left"));
    // Case, order and the start without the variant's field are fine.
    let g = game(&strategic, "move=red red:- blue:C5=3 INDICATORS=1,5");
    assert_eq!(g.to_act(), ToAct::Seat(1));
    assert!(game(&strategic, "BLUE:- RED:- move=BLUE").phase() == Phase::Opening);
}

#[test]
fn move_numbers_count_rounds() {
    let mut g = start(&[]);
    assert_eq!(g.move_number(), Some((1, true)));
    play(&mut g, "H");
    assert_eq!(g.move_number(), None);
    play(&mut g, "roll 3");
    assert_eq!(g.move_number(), Some((1, false)));
    play(&mut g, "d4");
    assert_eq!(g.move_number(), Some((1, false)));
    play(&mut g, "H roll 2 e4");
    assert_eq!(g.move_number(), Some((2, true)));
}

#[test]
fn plans_read_per_variant() {
    let lines = |t: &str| t.split(" \\ ").map(str::to_string).collect::<Vec<_>>();
    let g = game(&[], "BLUE:c3=2,d4=5 RED:e4=1 move=BLUE");
    let c = g.conditional(&lines("c3: 1>a1 3-5>d4 *>e5")).unwrap();
    assert_eq!(c.declaration, "c3");
    assert_eq!(
        c.outcomes,
        vec![
            (vec![1], "a1".to_string()),
            (vec![3, 4, 5], "d4".to_string()),
            (vec![1, 2, 3, 4, 5, 6], "e5".to_string())
        ]
    );
    assert_eq!(g.conditional(&lines("c3")), None);
    let mut after = g.clone();
    play(&mut after, "c3 roll 2");
    assert_eq!(
        after.conditional(&lines("c3 d4")),
        None,
        "only before the declaration"
    );
    let p = game(
        &[("variant", "purity")],
        "BLUE:e5=4 RED:- move=RED purity=365",
    );
    let c = p.conditional(&lines("H: 1-2>a1 3>d4 *>e5")).unwrap();
    assert_eq!(
        c.outcomes,
        vec![(vec![], "d4".to_string()), (vec![], "e5".to_string())]
    );
}

/// Every line of every board and MOVES answer fits in 72 columns.
fn fits(text: &str) {
    for line in text.lines() {
        assert!(line.chars().count() <= 72, "too wide:\n{line}\nin\n{text}");
    }
}

#[test]
fn boards_and_moves_fit_mail() {
    let mut games = vec![
        game(&[("players", "3")], GREEN_AT_FIVE),
        game(&[("simultaneous", "most")], BOTH_AT_FIVE),
        start(&[("variant", "grossmeister"), ("players", "3")]),
        start(&[("variant", "purity")]),
    ];
    let mut g = start(&[("variant", "grossmeister"), ("players", "3")]);
    play(
        &mut g,
        &format!("roll {}", ["5 1 4 2 6 3 6 5 1"; 3].join(" ")),
    );
    games.push(g.clone());
    play(&mut g, "H");
    games.push(g.clone());
    let mut p = start(&[("variant", "purity")]);
    play(&mut p, &format!("roll {}", ["3 6 5 2 1"; 30].join(" ")));
    games.push(p.clone());
    play(&mut p, "H d4 H");
    games.push(p);
    for g in &games {
        fits(&g.board());
        fits(&g.moves_help().unwrap());
    }
    let b = games[2].board();
    assert!(b.contains("opening") || b.contains("first"), "{b}");
}

#[test]
fn the_board_marks_perfect_last_and_lifted_dice() {
    let mut g = game(&[], "BLUE:d4=5,d5=1,e3=3 RED:e4=2,d3=4,c3=6 move=BLUE");
    let b = g.board();
    assert!(
        b.contains("B:5*") && b.contains("B:3*") && b.contains("R:6 "),
        "{b}"
    );
    assert!(
        b.contains("d7") && b.contains("g1"),
        "vacant hexes are named:\n{b}"
    );
    play(&mut g, "d5 roll 1");
    assert!(g.board().contains("(B:1)"), "{}", g.board());
    play(&mut g, "d2");
    let b = g.board();
    assert!(
        b.contains("[B:1*]") && b.contains("R:4*") && b.contains("R:2*"),
        "{b}"
    );
    assert!(
        b.contains("Last: BLUE d5 d2, a 1 (BLUE +d2 -d4, RED +d3 +e4)"),
        "{b}"
    );
    let report = g.last_report().unwrap();
    assert!(
        report.contains("Now perfect: d2 (BLUE 1), d3 (RED 4), e4 (RED 2)"),
        "{report}"
    );
    assert!(
        report.contains("No longer perfect: d4 (BLUE 5)"),
        "{report}"
    );
}

#[test]
fn moves_shows_the_winning_placements_first() {
    let g = game(
        &[],
        "BLUE:a1=1,a2=1,g1=1,g2=1,d7=1,d1=2 RED:d6=1,e1=3 move=BLUE",
    );
    let help = g.moves_help().unwrap();
    let after = |heading: &str| {
        let at = help
            .find(heading)
            .unwrap_or_else(|| panic!("{heading} in\n{help}"));
        help[at..].lines().nth(1).unwrap_or_default().to_string()
    };
    assert!(after("If the roll is 1:").starts_with("  H c1"), "{help}");
    assert!(
        after("If the roll is 1:").contains("REACHES THE TARGET"),
        "{help}"
    );
    assert!(after("If the roll is 2:").starts_with("  H d2"), "{help}");
    let mut rolled = g.clone();
    play(&mut rolled, "H roll 2");
    let help = rolled.moves_help().unwrap();
    assert!(
        help.contains("Placing the rolled die, a 2:\n  d2 "),
        "{help}"
    );
}

#[test]
fn json_follows_the_contract() {
    let mut g = start(&[("variant", "strategic")]);
    let j = g.position_json();
    assert_eq!(j["to_move"], serde_json::Value::Null);
    assert_eq!(j["indicators"], serde_json::Value::Null);
    play(&mut g, "roll 2 6 H roll 4 c4");
    let j = g.position_json();
    assert_eq!(j["to_move"], "RED");
    assert_eq!(j["indicators"], serde_json::json!({"BLUE": 4, "RED": 6}));
    assert_eq!(j["hands"], serde_json::json!({"BLUE": 11, "RED": 12}));
    assert_eq!(j["perfect"], serde_json::json!({"BLUE": 0, "RED": 0}));
    assert_eq!(
        j["dice"],
        serde_json::json!([{"player": "BLUE", "hex": "c4", "pips": 2, "perfect": false}])
    );
    assert_eq!(j["sequences"], serde_json::Value::Null);
    let mut gm = game(
        &[("variant", "grossmeister")],
        "BLUE:b4=2 RED:f3=6 move=BLUE sequences=514263651423,236145521634",
    );
    play(&mut gm, "b4 roll 3 c4");
    let j = gm.position_json();
    assert_eq!(
        j["sequences"]["BLUE"],
        serde_json::json!([1, 4, 2, 6, 3, 6, 5, 1, 4, 2, 3, 3])
    );
    assert_eq!(j["hands"]["BLUE"], 12);
    let p = game(
        &[("variant", "purity")],
        "BLUE:e5=4 RED:- move=RED purity=365",
    );
    assert_eq!(p.position_json()["purity"], serde_json::json!([3, 6, 5]));
}

/// The rules publish PURITY's list: the board in every mail lists all the numbers left (in
/// tens, as the opening report does), not the first twenty.
#[test]
fn the_board_lists_every_published_number_left() {
    let numbers: String = (0..60)
        .map(|k| char::from(b'1' + (k * 7 % 6) as u8))
        .collect();
    let g = game(
        &[("variant", "purity")],
        &format!("BLUE:e5=4 RED:- move=RED purity={numbers}"),
    );
    let board: String = g.board().split_whitespace().collect();
    assert!(board.contains("Publishednumbersleft:60,"), "{board}");
    assert!(board.contains(&numbers), "all 60 in:\n{}", g.board());
    assert!(!g.board().contains("..."), "{}", g.board());
}
