//! The strong Siberian Dice robot in positions where one kind of placement clearly wins or blocks, per variant where the pips it places (or the other seat's) differ: it finds it.

use pbem_rules::games::{Actor, AnyGame, GameKind, Options, Outcome, Seat, ToAct};
use pbem_rules::robot::{decide, Decision, Level, View};

fn game(options: &[(&str, &str)], tag: &str) -> AnyGame {
    let options: Options = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    AnyGame::from_position(GameKind::Siberian, &options, tag)
        .unwrap_or_else(|e| panic!("{tag}: {e}"))
}

/// The strong robot plays the whole move of the seat to move (every roll comes up `roll`);
/// returns the plies it played.
fn robot_move(game: &mut AnyGame, roll: u32) -> Vec<String> {
    let ToAct::Seat(seat) = game.to_act() else {
        panic!("nobody to move:\n{}", game.board());
    };
    let mut plies = Vec::new();
    loop {
        match game.to_act() {
            ToAct::Chance(sides) => {
                let ply = game.chance_ply(&vec![roll; sides.len()]);
                game.play(Actor::Chance, &ply).expect("a roll");
            }
            ToAct::Seat(s) if s == seat => {
                let Some(Decision::Ply(ply)) = decide(&View::new(game, 3), seat, Level::Strong)
                else {
                    panic!("no ply:\n{}", game.board());
                };
                game.play(Actor::Seat(seat), &ply).expect("a legal ply");
                plies.push(ply);
            }
            _ => return plies,
        }
    }
}

fn won_by(game: &AnyGame, seat: Seat) -> bool {
    matches!(game.outcome(), Some(Outcome::Win { seat: s, .. }) if s == seat)
}

/// Each seat's perfect dice, read from the position's JSON.
fn perfect(game: &AnyGame) -> Vec<u64> {
    let json = game.position_json();
    ["BLUE", "RED", "GREEN"]
        .iter()
        .map(|s| json["perfect"][s].as_u64().unwrap_or(0))
        .collect()
}

/// Whether the seat to move wins with any of its moves (every roll `roll`, where one is made).
fn can_win_now(game: &AnyGame, roll: u32) -> bool {
    let ToAct::Seat(seat) = game.to_act() else {
        return false;
    };
    game.legal_plies().iter().any(|declaration| {
        let mut g = game.clone();
        g.play(Actor::Seat(seat), declaration)
            .expect("a declaration");
        if let ToAct::Chance(sides) = g.to_act() {
            let ply = g.chance_ply(&vec![roll; sides.len()]);
            g.play(Actor::Chance, &ply).expect("a roll");
        }
        g.legal_plies().iter().any(|target| {
            let mut g = g.clone();
            g.play(Actor::Seat(seat), target).expect("a placement");
            won_by(&g, seat)
        })
    })
}

/// BLUE has four perfect dice (two pairs of ones) and two lone ones: a one placed next to a
/// lone one makes both perfect, six in all (five hexes of 28 do it).
const FOUR_AND_TWO_LONE: &str = "BLUE:a1=1,a2=1,g1=1,g2=1,a4=1,d7=1 RED:d4=2,e4=5,c3=4";

#[test]
fn basic_a_rolled_one_is_placed_for_the_win() {
    let mut g = game(&[], &format!("{FOUR_AND_TWO_LONE} move=BLUE"));
    robot_move(&mut g, 1);
    assert!(won_by(&g, 0), "no win:\n{}", g.board());
}

#[test]
fn primes_the_seventh_die_wins() {
    let tag = "BLUE:a1=1,a2=1,g1=1,g2=1,a4=1,d7=1,e2=1,e3=1 RED:d4=2,e4=5,c3=4 move=BLUE";
    let mut g = game(&[("variant", "primes")], tag);
    assert_eq!(perfect(&g)[0], 5);
    robot_move(&mut g, 1);
    assert!(won_by(&g, 0), "no win:\n{}", g.board());
}

#[test]
fn strategic_the_indicator_one_is_placed_for_the_win() {
    let tag = format!("{FOUR_AND_TWO_LONE} move=BLUE indicators=1,6");
    let mut g = game(&[("variant", "strategic")], &tag);
    robot_move(&mut g, 4);
    assert!(won_by(&g, 0), "no win:\n{}", g.board());
}

#[test]
fn grossmeister_the_sequence_head_is_placed_for_the_win() {
    let tag = "BLUE:a1=1,a2=1,g1=1,g2=1,a4=1,d7=1,e2=1,e3=1 RED:d4=2,e4=5,c3=4 move=BLUE \
               sequences=16666,6666666666";
    let mut g = game(&[("variant", "grossmeister")], tag);
    robot_move(&mut g, 6);
    assert!(won_by(&g, 0), "no win:\n{}", g.board());
}

#[test]
fn purity_the_next_number_is_placed_for_the_win() {
    let tag = format!("{FOUR_AND_TWO_LONE} move=BLUE purity=1666");
    let mut g = game(&[("variant", "purity")], &tag);
    robot_move(&mut g, 6);
    assert!(won_by(&g, 0), "no win:\n{}", g.board());
}

#[test]
fn three_players_a_rolled_one_is_placed_for_the_win() {
    let tag = "BLUE:a1=1,a2=1,g1=1,g2=1,a4=1,d7=1 RED:d4=2 GREEN:c3=4 move=BLUE";
    let mut g = game(&[("players", "3")], tag);
    robot_move(&mut g, 1);
    assert!(won_by(&g, 0), "no win:\n{}", g.board());
}

/// RED has four perfect dice (two pairs of ones) and a lone one: its next one placed beside
/// the lone one wins. BLUE places a three: only a die beside one of RED's pairs (breaking it)
/// stops that.
const RED_THREATENS: &str = "BLUE:c1=4,d4=2,e3=3 RED:a1=1,a2=1,g1=1,g2=1,d7=1 move=BLUE";

#[test]
fn purity_the_published_numbers_show_the_threat_and_it_is_blocked() {
    let tag = format!("{RED_THREATENS} purity=31666");
    let mut g = game(&[("variant", "purity")], &tag);
    let mut idle = g.clone();
    idle.play(Actor::Seat(0), "H").unwrap();
    idle.play(Actor::Seat(0), "f5").unwrap();
    assert!(can_win_now(&idle, 1), "the premise: RED wins if let be");
    robot_move(&mut g, 1);
    assert!(!can_win_now(&g, 1), "RED still wins:\n{}", g.board());
}

#[test]
fn strategic_the_indicators_show_the_threat_and_it_is_blocked() {
    let tag = format!("{RED_THREATENS} indicators=3,1");
    let mut g = game(&[("variant", "strategic")], &tag);
    robot_move(&mut g, 5);
    assert!(!can_win_now(&g, 5), "RED still wins:\n{}", g.board());
}

#[test]
fn basic_a_threat_on_the_roll_is_broken() {
    // RED wins with a rolled one beside d7: BLUE, having rolled a three, breaks a pair.
    let mut g = game(&[], RED_THREATENS);
    robot_move(&mut g, 3);
    assert!(perfect(&g)[1] <= 3, "RED keeps its pairs:\n{}", g.board());
}
