//! The seed's worked example (White Formiga b6, Cavalo e5 facing north, Gata d8): the legal
//! outcomes of each roll as the seed states them, from `tests/data/d4d6/seed_example.pos`.
//!
//! The seed's diagram is not in the text: the position is rebuilt from what the text says
//! (Black Guarda b5, Gato c6, Gata f6, Ratos c7 and f7). The text's "2 to 6: only a6" needs
//! a5 blocked for the Formiga: a Black Formiga stands there, protected by the Guarda on b5.

use std::collections::BTreeSet;

use pbem_rules::games::d4d6::D4d6;
use pbem_rules::games::{Actor, Options, Rules, ToAct};

fn example() -> D4d6 {
    let tag =
        std::fs::read_to_string(crate::workspace_root().join("tests/data/d4d6/seed_example.pos"))
            .unwrap();
    D4d6::from_position(&Options::new(), tag.trim()).unwrap()
}

/// The move outcomes (no special moves) after declaring `decl` and rolling `roll`.
fn outcomes(decl: &str, roll: u32) -> BTreeSet<String> {
    let mut g = example();
    g.play(Actor::Seat(0), decl).unwrap();
    assert!(matches!(g.to_act(), ToAct::Chance(_)));
    g.play(Actor::Chance, &format!("roll {roll}")).unwrap();
    g.legal_plies()
        .into_iter()
        .filter(|p| !p.contains(';'))
        .collect()
}

fn set(items: &[&str]) -> BTreeSet<String> {
    items.iter().map(|s| s.to_string()).collect()
}

#[test]
fn formiga_b6() {
    assert_eq!(outcomes("Fob6", 1), set(&["b6-a6", "b6xb5", "b6xc6"]));
    for roll in 2..=6 {
        assert_eq!(outcomes("Fob6", roll), set(&["b6-a6"]), "roll {roll}");
    }
}

#[test]
fn cavalo_e5_facing_north() {
    assert_eq!(
        outcomes("Cae5", 1),
        set(&["e5-e6/E", "e5-e6/W", "e5xf6/E", "e5xf6/W"])
    );
    assert_eq!(outcomes("Cae5", 2), set(&["e5-d6/W", "e5xf7/S"]));
    assert_eq!(outcomes("Cae5", 3), set(&["e5xc7/S"]));
    assert_eq!(outcomes("Cae5", 4), set(&["e5-d6/W"]));
}

#[test]
fn gata_d8_with_the_d4_can_always_take_c7() {
    for roll in 1..=4 {
        let o = outcomes("Gad8:d4", roll);
        assert!(o.contains("d8xc7"), "roll {roll}: {o:?}");
    }
}

#[test]
fn forced_outcomes_are_played_by_the_gm() {
    let mut g = example();
    g.play(Actor::Seat(0), "Ca e5").unwrap();
    g.play(Actor::Chance, "roll 3").unwrap();
    assert_eq!(g.auto_ply().as_deref(), Some("e5xc7/S"));
    // The roll's report says the GM plays the one legal move; the move's own report names it.
    assert!(g
        .last_report()
        .unwrap()
        .contains("One move is legal: the GM plays it."));
    let mut h = example();
    h.play(Actor::Seat(0), "Fob6").unwrap();
    h.play(Actor::Chance, "roll 1").unwrap();
    assert_eq!(h.auto_ply(), None);
}

/// The seed lets a special move follow the gambling move. With `forced=ask` a forced move is
/// not played for the player while a special could still follow it (here: placing the
/// Guarda waiting on a1); by default (`forced=play`) it is, and the report says so.
#[test]
fn forced_ask_leaves_room_for_a_special_move_after_the_forced_one() {
    let tag = "W:Fob6,Cae5/N,Gad8,Gua1 B:Foa5,Gub5,Goc6,Rac7,Gaf6,Raf7 w 0 1";
    let roll_3 = |options: &[(&str, &str)]| {
        let options: Options = options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut g = D4d6::from_position(&options, tag).unwrap();
        g.play(Actor::Seat(0), "Cae5").unwrap();
        g.play(Actor::Chance, "roll 3").unwrap();
        g
    };
    let play = roll_3(&[]);
    assert_eq!(play.auto_ply().as_deref(), Some("e5xc7/S"));
    assert!(play
        .last_report()
        .unwrap()
        .contains("One move is legal: the GM plays it."));
    let ask = roll_3(&[("forced", "ask")]);
    assert_eq!(ask.auto_ply(), None);
    let legal = ask.legal_plies();
    assert!(legal.contains(&"e5xc7/S".to_string()), "{legal:?}");
    assert!(
        legal.iter().any(|p| p.starts_with("e5xc7/S;Gua1-")),
        "{legal:?}"
    );
    assert!(ask.last_report().unwrap().contains("Legal: e5xc7/S."));
    // Without a special to follow, `ask` plays the forced move as well.
    let mut bare = example();
    let options: Options = [("forced".to_string(), "ask".to_string())].into();
    bare = D4d6::from_position(&options, &bare.position_tag()).unwrap();
    bare.play(Actor::Seat(0), "Cae5").unwrap();
    bare.play(Actor::Chance, "roll 3").unwrap();
    assert_eq!(bare.auto_ply().as_deref(), Some("e5xc7/S"));
}
