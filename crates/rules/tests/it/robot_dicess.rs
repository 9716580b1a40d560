//! The Dicess robot plays whole turns (several steps and dice) and chooses its set-up: the best turn of several steps where one is clearly best, a placement other than as rolled, legal and deterministic decisions from the set-up to the midgame.

use pbem_rules::games::{Actor, AnyGame, GameKind, Options, ToAct};
use pbem_rules::robot::{decide, Decision, Level, View};

fn game(tag: &str) -> AnyGame {
    AnyGame::from_position(GameKind::Dicess, &Options::new(), tag).expect(tag)
}

/// The robot's ply for the seat to act, played on `g`; the ply is returned.
fn robot_plays(g: &mut AnyGame, level: Level) -> String {
    let ToAct::Seat(seat) = g.to_act() else {
        panic!("a seat to act:\n{}", g.board())
    };
    let Some(Decision::Ply(ply)) = decide(&View::new(g, 3), seat, level) else {
        panic!("no ply:\n{}", g.board())
    };
    if let Err(e) = g.play(Actor::Seat(seat), &ply) {
        panic!("{ply} refused ({e:?}):\n{}", g.board());
    }
    ply
}

#[test]
fn the_robot_runs_a_die_six_squares_to_the_star_square() {
    // The game lists one-step turns only; the win takes six steps of the 1.
    let mut g = game("LIGHT:d2=1,a1=6 DARK:a8=6,h8=6,h2=5 move=LIGHT");
    for level in [Level::Easy, Level::Normal, Level::Strong] {
        let mut g2 = g.clone();
        assert_eq!(robot_plays(&mut g2, level), "d2-d3-d4-d5-d6-d7-d8");
        assert!(g2.outcome().is_some());
    }
    robot_plays(&mut g, Level::Strong);
}

#[test]
fn the_robot_brings_support_in_before_it_captures() {
    // DARK's 5 on d3 walks to LIGHT's star squares unless taken; LIGHT's 3 alone is too weak,
    // with the 2 stepped in next to d3 first it is enough (3 + 2 = 5, 2 + 3 = 5 points).
    let tag = "LIGHT:c3=3,d5=2,a1=6 DARK:d3=5,c8=6,d8=6,e8=6,f8=6 move=LIGHT";
    let mut g = game(tag);
    assert!(g.legal_plies().iter().all(|p| !p.contains('x')));
    assert_eq!(robot_plays(&mut g, Level::Strong), "d5-d4; c3xd3");
}

#[test]
fn the_robot_stops_a_runner_that_would_win_next_turn() {
    // DARK's 1 on d6 reaches d1 next turn down the open file; LIGHT's 1 on h5 can take it
    // (five steps, the last a capture), and nothing else stops it.
    let tag = "LIGHT:h5=1,a2=6,h2=6,a1=6 DARK:d6=1,a8=6,d8=6,e8=6,h8=6 move=LIGHT";
    let mut g = game(tag);
    robot_plays(&mut g, Level::Strong);
    let ToAct::Seat(dark) = g.to_act() else {
        panic!()
    };
    let mut after = g.clone();
    robot_plays(&mut after, Level::Strong);
    assert!(after.outcome().is_none(), "DARK won:\n{}", after.board());
    assert_eq!(dark, 1);
}

#[test]
fn the_robot_chooses_its_set_up_and_not_always_as_rolled() {
    let rolls = [
        "6241135526431265,2251634415623316",
        "1111223344556666,6543216543216543",
        "3525141662331254,1234561234561234",
    ];
    let mut chosen_otherwise = 0;
    for roll in rolls {
        let mut g = game(&format!("LIGHT:- DARK:- move=LIGHT setup={roll}"));
        let as_rolled = g.legal_plies().remove(0);
        let ply = robot_plays(&mut g, Level::Strong);
        if ply != as_rolled {
            chosen_otherwise += 1;
        }
        // DARK places too, then LIGHT's first turn.
        robot_plays(&mut g, Level::Strong);
        robot_plays(&mut g, Level::Strong);
    }
    assert!(chosen_otherwise > 0, "every set-up was the one as rolled");
}

#[test]
fn a_game_of_robots_plays_turns_of_several_steps_legally_and_the_same_each_time() {
    let play = || {
        let mut g = game("LIGHT:- DARK:- move=LIGHT setup=6241135526431265,2251634415623316");
        let mut plies = Vec::new();
        for n in 0..16 {
            if g.outcome().is_some() {
                break;
            }
            let level = if n % 2 == 0 {
                Level::Strong
            } else {
                Level::Easy
            };
            plies.push(robot_plays(&mut g, level));
        }
        plies
    };
    let plies = play();
    assert!(
        plies[2..]
            .iter()
            .any(|p| p.contains(';') || p.matches('-').count() > 1),
        "{plies:?}"
    );
    assert_eq!(plies, play(), "the same game twice");
}
