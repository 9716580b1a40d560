//! d4 d6 chess rules: every piece's steps, fallbacks, Guarda protection, Cavalo turning,
//! special moves, captures, the loss and draw rules, conditional turns.

use std::collections::BTreeSet;

use pbem_rules::games::d4d6::D4d6;
use pbem_rules::games::{Actor, Options, Outcome, PlyError, Rules, ToAct};

fn game(tag: &str) -> D4d6 {
    D4d6::from_position(&Options::new(), tag).unwrap_or_else(|e| panic!("{tag}: {e}"))
}

fn variant(tag: &str) -> D4d6 {
    let mut o = Options::new();
    o.insert("variant".into(), "rinoceronte".into());
    D4d6::from_position(&o, tag).unwrap()
}

fn seat(g: &D4d6) -> Actor {
    match g.to_act() {
        ToAct::Seat(s) => Actor::Seat(s),
        other => panic!("no seat to act: {other:?}"),
    }
}

/// Declares, rolls, and returns the game waiting for the choice.
fn rolled(mut g: D4d6, decl: &str, roll: u32) -> D4d6 {
    let a = seat(&g);
    g.play(a, decl).unwrap_or_else(|e| panic!("{decl}: {e}"));
    g.play(Actor::Chance, &format!("roll {roll}")).unwrap();
    g
}

/// The move outcomes (special moves left out) of a roll.
fn outcomes(g: &D4d6, decl: &str, roll: u32) -> BTreeSet<String> {
    rolled(g.clone(), decl, roll)
        .legal_plies()
        .into_iter()
        .filter(|p| !p.contains(';'))
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

fn dests(o: &BTreeSet<String>) -> BTreeSet<String> {
    o.iter().map(|m| m[3..5].to_string()).collect()
}

#[test]
fn rato_steps_diagonally_without_revisiting() {
    let g = game("W:Rad4 B:Fof8 w");
    assert_eq!(
        outcomes(&g, "Rad4", 1),
        set(&["d4-c3", "d4-c5", "d4-e3", "d4-e5"])
    );
    let two = dests(&outcomes(&g, "Rad4", 2));
    assert_eq!(two, set(&["b4", "b6", "d2", "d6", "f2", "f4", "f6"]));
}

#[test]
fn formiga_captures_only_with_the_exact_roll_and_falls_back_without_capturing() {
    let g = game("W:Foc8,Gad8,God7 B:Rac6 w");
    assert_eq!(outcomes(&g, "Foc8", 2), set(&["c8xc6"]));
    // Three steps are impossible; the fallback to two steps may not capture, so one step.
    assert_eq!(outcomes(&g, "Foc8", 3), set(&["c8-c7"]));
    assert_eq!(outcomes(&g, "Foc8", 6), set(&["c8-c7"]));
    // Boxed in: the 0-step move.
    let boxed = game("W:Foc8,Gad8,Rac7 B:Rac6 w");
    assert_eq!(outcomes(&boxed, "Foc8", 4), set(&["stay"]));
}

#[test]
fn gata_moves_all_orthogonal_or_all_diagonal_and_only_orthogonal_on_five_and_six() {
    let g = game("W:Gad4 B:Fof8 w");
    let colours = |roll: u32, die: &str| -> BTreeSet<bool> {
        outcomes(&g, &format!("Gad4:{die}"), roll)
            .iter()
            .map(|m| {
                let b = m.as_bytes();
                (b[3] - b'a' + b[4] - b'1') % 2 == 1
            })
            .collect()
    };
    // d4 is dark; five orthogonal steps always end on a light square.
    assert_eq!(colours(5, "d6"), BTreeSet::from([true]));
    assert_eq!(colours(6, "d6"), BTreeSet::from([false]));
    assert_eq!(colours(3, "d4"), BTreeSet::from([false, true]));
    // No mixing: e6 is one diagonal plus one orthogonal step away.
    assert!(!dests(&outcomes(&g, "Gad4:d4", 2)).contains("e6"));
    assert!(dests(&outcomes(&g, "Gad4:d4", 2)).contains("f6"));
    assert!(dests(&outcomes(&g, "Gad4:d4", 2)).contains("d6"));
    // The die must be named.
    let mut h = g.clone();
    assert!(matches!(
        h.play(Actor::Seat(0), "Gad4"),
        Err(PlyError::Illegal(_))
    ));
}

#[test]
fn gato_steps_through_three_empty_unit_squares_inside_the_playing_area() {
    // d5 and e5 are blocked: e6 needs one of them as a first or second unit square.
    let g = game("W:God4,Rad5,Rae5 B:Raf5 w");
    let one = outcomes(&g, "God4", 1);
    assert!(one.contains("d4xf5"), "{one:?}");
    assert!(!dests(&one).contains("e6"), "{one:?}");
    assert!(one.contains("d4-c6"), "{one:?}");
    assert!(one.contains("d4-b5"), "{one:?}");
    // From c1 the only unit paths stay in the playing area: b3 via c2-c3, never via b1.
    let corner = game("W:Goc1,Rac2 B:Fof8 w");
    let from_corner = dests(&outcomes(&corner, "Goc1", 1));
    assert_eq!(from_corner, set(&["d3", "e2"]));
}

#[test]
fn cavalo_turns_on_its_sixth_rank_and_in_the_border_area() {
    let g = game("W:Cad4/N B:Rae7 w");
    assert_eq!(outcomes(&g, "Cad4", 1), set(&["d4-d5/N"]));
    assert_eq!(outcomes(&g, "Cad4", 2), set(&["d4-d6/E", "d4-d6/W"]));
    // Turned east on d6 it captures diagonally east: e7 (facing east still).
    assert_eq!(
        outcomes(&g, "Cad4", 3),
        set(&["d4-c6/W", "d4-e6/E", "d4xe7/E"])
    );
    // The border turns it toward its sixth rank: a White Cavalo on f7 faces south.
    let east = game("W:Cad7/E B:Rad3 w");
    assert_eq!(outcomes(&east, "Cad7", 2), set(&["d7-f7/S"]));
    // ... and on f6, its sixth rank, facing south, it turns east or west.
    assert_eq!(outcomes(&east, "Cad7", 3), set(&["d7-f6/E", "d7-f6/W"]));
    // Black turns on rank 3.
    let black = game("W:Rad8 B:Cae5/S b");
    assert_eq!(outcomes(&black, "Cae5", 2), set(&["e5-e3/E", "e5-e3/W"]));
    // A position with a vertical facing away from the sixth rank is refused.
    assert!(D4d6::from_position(&Options::new(), "W:Cad4/S B:Rae7 w").is_err());
    assert!(D4d6::from_position(&Options::new(), "W:Cag6/N B:Rae7 w").is_err());
}

#[test]
fn guarda_in_the_playing_area_protects_orthogonal_neighbours_and_can_be_captured() {
    let g = game("W:Fob6 B:Rac6,Guc5 w");
    assert_eq!(outcomes(&g, "Fob6", 1), set(&["b6-a6", "b6-b5"]));
    // The Guarda itself can be taken.
    let h = game("W:Fob5 B:Rac6,Guc5 w");
    assert!(outcomes(&h, "Fob5", 1).contains("b5xc5"));
    // A Guarda in the waiting area protects nothing.
    let w = game("W:Fob6,Guf7 B:Rac7,Gub7 w");
    assert!(outcomes(&w, "Fob6", 2).contains("b6xc7"));
}

#[test]
fn captured_cavalo_waits_where_the_capturer_puts_it_and_others_leave_the_board() {
    let mut g = rolled(game("W:Cac4/N,Rae3 B:Cad5/S,Raf6 w"), "Cac4", 1);
    assert_eq!(g.play(Actor::Seat(0), "xd5@h8").unwrap(), "c4xd5/N@h8");
    assert!(g.position_tag().contains("Cah8/S"), "{}", g.position_tag());
    let mut h = rolled(game("W:Fob6 B:Rac6,Rad5 w"), "Fob6", 1);
    h.play(Actor::Seat(0), "xc6").unwrap();
    assert_eq!(
        h.position_tag(),
        "W:Fob6 B:Rad5 b 0 1".replace("Fob6", "Foc6")
    );
}

#[test]
fn rinoceronte_steps_forward_diagonally_and_back_orthogonally_anywhere() {
    let g = variant("W:Rib3/NE,Rae3 B:Raf6 w");
    assert_eq!(outcomes(&g, "Rib3", 1), set(&["b3-a3", "b3-b2", "b3-c4"]));
    // A 90 degree turn is a special move; 180 is not.
    let mut t = g.clone();
    assert_eq!(t.play(Actor::Seat(0), "Rib3/SE").unwrap(), "Rib3/SE");
    let mut u = g.clone();
    assert!(u.play(Actor::Seat(0), "Rib3/SW").is_err());
    // Ending in the waiting area as the last gambling piece loses.
    let mut last = rolled(variant("W:Rib3/NE B:Raf6 w"), "Rib3", 1);
    last.play(Actor::Seat(0), "b2").unwrap();
    assert!(matches!(last.outcome(), Some(Outcome::Win { seat: 1, .. })));
}

#[test]
fn guarda_moves_like_a_king_and_teleports_from_the_corners() {
    let mut g = game("W:Gua1,Gud4,Fof1 B:Raf6 w");
    let plies = g.legal_plies();
    assert!(plies.contains(&"Gua1-e6".to_string()));
    assert!(plies.contains(&"Gud4-e5".to_string()));
    assert!(!plies.contains(&"Gud4-d6".to_string()));
    g.play(Actor::Seat(0), "Gud4-e5").unwrap();
    // One special move a turn.
    assert!(g.play(Actor::Seat(0), "Gua1-b1").is_err());
    assert_eq!(g.play(Actor::Seat(0), "Fof1").unwrap(), "Fof1");
}

#[test]
fn promotion_before_rolling_or_after_the_move() {
    let g = game("W:Caa5/N,Rae3 B:Rad5 w");
    let mut after = rolled(g.clone(), "Caa5", 1);
    let done = after.play(Actor::Seat(0), "a6/W;Caa6=Go@b1").unwrap();
    assert_eq!(done, "a5-a6/W;Caa6=Go@b1");
    assert!(after.position_tag().starts_with("W:Cab1/W,Rae3,Goa6 "));
    let mut before = game("W:Cah4/W,Rae3 B:Rad5 w");
    before.play(Actor::Seat(0), "Cah4=Ga@g8").unwrap();
    assert_eq!(before.play(Actor::Seat(0), "Gah4:d6").unwrap(), "Gah4:d6");
    // Not outside the promotion area, and never to a Guarda or Cavalo.
    let mut no = game("W:Cab4/N,Rae3 B:Rad5 w");
    assert!(no.play(Actor::Seat(0), "Cab4=Ga@a1").is_err());
    let mut no_gu = game("W:Cah4/W,Rae3 B:Rad5 w");
    assert!(no_gu.play(Actor::Seat(0), "Cah4=Gu@a1").is_err());
}

#[test]
fn third_cavalo_needs_both_cavalos_waiting() {
    let mut g = game("W:Cab7/N,Cag2/N,Rae3 B:Rad5 w");
    assert_eq!(g.play(Actor::Seat(0), "Cab7-e1").unwrap(), "Cab7-e1");
    assert!(
        g.position_tag().starts_with("W:Cae1/N,Rae3 "),
        "{}",
        g.position_tag()
    );
    let mut one = game("W:Cab7/N,Cad2/N,Rae3 B:Rad5 w");
    assert!(one.play(Actor::Seat(0), "Cab7-e1").is_err());
}

#[test]
fn capturing_the_last_gambling_piece_wins() {
    let mut g = rolled(game("W:Fob6 B:Rac6,Gua8 w"), "Fob6", 1);
    g.play(Actor::Seat(0), "b6xc6").unwrap();
    assert!(matches!(g.outcome(), Some(Outcome::Win { seat: 0, .. })));
    assert_eq!(g.to_act(), ToAct::Nobody);
}

#[test]
fn hundred_gambling_moves_without_reset_draw() {
    let mut g = rolled(game("W:Fob6 B:Rah6 w 99 50"), "Fob6", 1);
    g.play(Actor::Seat(0), "a6").unwrap();
    assert!(matches!(g.outcome(), Some(Outcome::Draw { .. })));
    // A Cavalo step resets the count.
    let mut c = rolled(game("W:Cad4/N B:Rah6 w 99 50"), "Cad4", 1);
    c.play(Actor::Seat(0), "d5").unwrap();
    assert_eq!(c.outcome(), None);
    assert!(c.position_tag().ends_with(" b 0 50"));
}

#[test]
fn agreed_draw_and_resignation() {
    // Resignation and agreed draws are ruled once for every game, by `AnyGame`.
    let any = |tag: &str| {
        pbem_rules::games::AnyGame::from_position(
            pbem_rules::games::GameKind::D4D6,
            &Options::new(),
            tag,
        )
        .unwrap()
    };
    let mut g = any("W:Fob6 B:Rah6 w");
    assert_eq!(g.agree_draw().unwrap(), "draw");
    assert!(matches!(g.outcome(), Some(Outcome::Draw { .. })));
    let mut r = any("W:Fob6 B:Rah6 w");
    assert_eq!(r.resign(1).unwrap(), "resign");
    assert!(matches!(r.outcome(), Some(Outcome::Win { seat: 0, .. })));
}

#[test]
fn conditional_turn_lists_outcomes_per_roll() {
    let g = game("W:Fob6 B:Rac6,Rad5 w");
    let lines: Vec<String> = ["Fo b6", "1: xc6 | a6", "2-3: a6", "*: stay"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    let c = g.conditional(&lines).unwrap();
    assert_eq!(c.declaration, "Fob6");
    assert_eq!(c.outcomes[0], (vec![1], "xc6".to_string()));
    assert_eq!(c.outcomes[1], (vec![1], "a6".to_string()));
    assert_eq!(c.outcomes[2], (vec![2, 3], "a6".to_string()));
    assert_eq!(c.outcomes[3].0, vec![1, 2, 3, 4, 5, 6]);
    // A roll value the die cannot show, or an unreadable line: not a plan.
    let bad: Vec<String> = vec!["Fo b6".into(), "7: a6".into()];
    assert!(g.conditional(&bad).is_none());
    let prose: Vec<String> = vec!["Hello there".into()];
    assert!(g.conditional(&prose).is_none());
}

#[test]
fn turn_order_and_numbering() {
    let mut g = D4d6::new(&Options::new()).unwrap();
    assert_eq!(g.seat_names(), &["WHITE", "BLACK"]);
    assert_eq!(g.move_number(), Some((1, true)));
    assert!(g.play(Actor::Seat(1), "Fof8").is_err());
    g.play(Actor::Seat(0), "Foc1").unwrap();
    assert_eq!(g.to_act(), ToAct::Chance(vec![6]));
    assert_eq!(g.move_number(), None);
    g.play(Actor::Chance, "roll 2").unwrap();
    assert_eq!(g.auto_ply().as_deref(), Some("stay"));
    g.play(Actor::Seat(0), "stay").unwrap();
    assert_eq!(g.move_number(), Some((1, false)));
    assert_eq!(g.to_act(), ToAct::Seat(1));
    let board = g.board();
    assert!(board.lines().all(|l| l.chars().count() <= 72), "{board}");
    assert!(board.contains("caS") && board.contains("CAN"));
}

#[test]
fn the_seeds_fortress_cavalo_stays_put_on_every_roll() {
    // The Cavalo on b6 faces west: a6 holds its own Guarda, a7 is outside the playing area
    // and a5 holds its own Rato (protected by the Guarda). It may still be chosen.
    let g = game("W:Cab6/W,Gua6,Raa5 B:Gad4,God3,Fof5 w");
    for roll in 1..=4 {
        assert_eq!(outcomes(&g, "Cab6", roll), set(&["stay"]), "roll {roll}");
    }
}

/// The refusal of `text` by the seat to act, as the player reads it.
fn refusal(g: &D4d6, text: &str) -> String {
    let mut g = g.clone();
    let a = seat(&g);
    match g.play(a, text) {
        Err(PlyError::Illegal(why)) => why,
        other => panic!("{text}: {other:?}"),
    }
}

/// Issue 27, point 12: a refusal says the rule that forbids the ply, then at most a short
/// list of what is legal (never every Guarda move on the board).
#[test]
fn refusals_name_the_rule_then_a_short_list() {
    // A Rinoceronte turned 180 degrees: the quarter-turn rule and its two turns.
    let mut g = D4d6::new(&[("variant".to_string(), "rinoceronte".to_string())].into()).unwrap();
    g.play(Actor::Chance, "roll 1 1").unwrap();
    assert_eq!(
        refusal(&g, "Rig1/SW"),
        "a Rinoceronte turns by 90 degrees, not 180: from NE to SE or NW; \
         legal: Rig1/SE, Rig1/NW"
    );
    assert_eq!(
        refusal(&g, "Rig1/NE"),
        "the Rinoceronte on g1 faces NE already; legal: Rig1/SE, Rig1/NW"
    );
    // A capture the Guarda's protection forbids names the Guarda.
    let example = game("W:Fob6,Cae5/N,Gad8 B:Foa5,Gub5,Goc6,Rac7,Gaf6,Raf7 w 0 1");
    let two = rolled(example.clone(), "Fob6", 2);
    let why = refusal(&two, "b6xa5");
    assert!(
        why.starts_with(
            "the Formiga on a5 cannot be captured: BLACK's Guarda on b5 stands \
             orthogonally next to it in the playing area; legal: "
        ),
        "{why}"
    );
    // A declaration of an empty square says so, and lists the pieces of the kind named.
    let start = D4d6::new(&Options::new()).unwrap();
    assert_eq!(
        refusal(&start, "Fo f3"),
        "f3 is empty; you may declare Foc1, Fof1"
    );
    assert_eq!(
        refusal(&start, "Fo c8"),
        "the Formiga on c8 is BLACK's; you may declare Foc1, Fof1"
    );
    assert!(refusal(&start, "Gu a1").starts_with("a Guarda rolls no die"));
    // A Guarda's long step: the king-step rule, and the list is counted, not spelt out.
    let why = refusal(&game("W:Gud4,Fof1 B:Raf6 w"), "Gud4-d6");
    assert!(
        why.starts_with("a Guarda steps one square, as a chess king; only from a teleportation"),
        "{why}"
    );
    assert!(
        why.ends_with(
            "legal: Gud4-c3, Gud4-d3, Gud4-e3, Gud4-c4, Gud4-e4, Gud4-c5, Gud4-d5, Gud4-e5"
        ),
        "{why}"
    );
    let why = refusal(&start, "Gua1-c1");
    assert!(
        why.starts_with("c1 is not empty: a Guarda moves only to an empty square; "),
        "{why}"
    );
    assert!(why.ends_with("legal (send MOVES for the list)"), "{why}");
    // A move of the wrong length names the piece's steps.
    let one = rolled(example, "Fob6", 1);
    assert_eq!(
        refusal(&one, "b6-b4"),
        "the Formiga on b6 cannot end on b4 in exactly 1 step (single orthogonal steps, \
         through empty squares, never on one twice); legal: b6xb5, b6-a6, b6xc6"
    );
    assert_eq!(
        refusal(&one, "b6xa6"),
        "there is nothing to capture on a6; legal: b6xb5, b6-a6, b6xc6"
    );
    assert_eq!(
        refusal(&one, "b6-b5"),
        "b5 holds BLACK's Guarda: a capture is written with x (b6xb5); legal: b6xb5, b6-a6, \
         b6xc6"
    );
}

/// Issue 27, point 24: each ply's report says it in words beside its notation.
#[test]
fn each_ply_reports_itself_in_words() {
    let mut g = D4d6::new(&Options::new()).unwrap();
    g.play(Actor::Seat(0), "Ca e2").unwrap();
    assert_eq!(
        g.last_report().unwrap(),
        "WHITE declared Cae2 (the Cavalo on e2, rolling the d4)."
    );
    g.play(Actor::Chance, "roll 1").unwrap();
    assert!(g
        .last_report()
        .unwrap()
        .starts_with("The GM rolled 1 (d4)."));
    let only = g.auto_ply().unwrap();
    g.play(Actor::Seat(0), &only).unwrap();
    assert_eq!(
        g.last_report().unwrap(),
        "WHITE played e2-e3/N (the Cavalo from e2 to e3, facing north)."
    );
    assert!(g.reports_every_ply());
    assert!(!g.board_beside_report().contains("Last:"));
    assert!(g.board().contains("Last:"));
}
