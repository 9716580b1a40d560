//! The robot: every game's robot at every level plays a legal ply or legal orders (set-ups and the first ply after a roll included), whole games robot against robot end, the same view gives the same answer, and the robot's input holds no seed.

use std::collections::BTreeMap;

use pbem_rules::games::{Actor, AnyGame, GameKind, Options, ToAct};
use pbem_rules::robot::{decide, Decision, Level, View};

/// A game's options, as (name, value) pairs.
type Opts = &'static [(&'static str, &'static str)];

/// Every game and variant the robot must play, with the options that make it.
const CASES: &[(&str, Opts)] = &[
    ("dicerink", &[("movecap", "60")]),
    ("dicerink", &[("setup", "fixed"), ("movecap", "60")]),
    ("d4d6", &[]),
    ("d4d6", &[("variant", "rinoceronte")]),
    ("diptactoe", &[]),
    ("dicess", &[]),
    ("siberian", &[]),
    ("siberian", &[("variant", "primes")]),
    ("siberian", &[("variant", "strategic")]),
    ("siberian", &[("variant", "grossmeister")]),
    ("siberian", &[("variant", "purity"), ("length", "60")]),
    ("siberian", &[("players", "3")]),
    ("siberian", &[("players", "3"), ("variant", "strategic")]),
];

const LEVELS: [Level; 3] = [Level::Easy, Level::Normal, Level::Strong];

fn new_game(name: &str, options: &[(&str, &str)]) -> AnyGame {
    let kind = GameKind::parse(name).expect("a game");
    let options: Options = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    AnyGame::new(kind, &options).expect("a new game")
}

/// A fixed pseudo-random roll (the tests have no randomness).
fn roll(sides: &[u32], turn: usize) -> Vec<u32> {
    sides
        .iter()
        .enumerate()
        .map(|(i, s)| ((turn * 7 + i * 3 + turn / 3) as u32) % s + 1)
        .collect()
}

/// Plays one step of the game: the chance roll, or every seat's robot at `level`. Asserts
/// that each decision is legal; returns false when the game is over.
fn step(game: &mut AnyGame, turn: usize, level: Level) -> bool {
    match game.to_act() {
        ToAct::Nobody => return false,
        ToAct::Chance(sides) => {
            let ply = game.chance_ply(&roll(&sides, turn));
            game.play(Actor::Chance, &ply).expect("a roll");
        }
        ToAct::Seat(seat) => {
            let view = View::new(game, 7);
            let Some(Decision::Ply(ply)) = decide(&view, seat, level) else {
                panic!(
                    "no ply for seat {seat} at {}:\n{}",
                    level.name(),
                    game.board()
                );
            };
            assert!(
                game.legal_plies().contains(&ply) || game.kind() == GameKind::Dicess,
                "{ply} is not listed as legal:\n{}",
                game.board()
            );
            if let Err(e) = game.play(Actor::Seat(seat), &ply) {
                panic!("{ply} refused ({e}) at {}:\n{}", level.name(), game.board());
            }
        }
        ToAct::Orders(seats) => {
            let mut orders = BTreeMap::new();
            for seat in seats {
                let view = View::new(game, 7);
                let Some(Decision::Orders(lines)) = decide(&view, seat, level) else {
                    panic!("no orders for seat {seat}");
                };
                for checked in game.check_orders(seat, &lines) {
                    assert!(checked.is_ok(), "a void order in {lines:?}: {checked:?}");
                }
                orders.insert(seat, lines);
            }
            let ply = game.turn_ply(&orders).expect("a turn");
            game.play(Actor::Gm, &ply).expect("the turn is played");
        }
    }
    true
}

#[test]
fn every_robot_at_every_level_plays_legal_plies_from_the_start() {
    // The first decisions cover every game's set-up (Dice Rink's placements, Dicess's rows
    // after the set-up roll) and the first ply after a roll (d4 d6's choice, Siberian's
    // placement, after the opening roll of the variants that have one).
    for (name, options) in CASES {
        for level in LEVELS {
            let mut game = new_game(name, options);
            // The strongest level's first decisions are enough (its search is the normal
            // one's, deeper; a debug build runs it slowly).
            let turns = if level == Level::Strong { 4 } else { 7 };
            for turn in 0..turns {
                if !step(&mut game, turn, level) {
                    break;
                }
            }
        }
    }
}

#[test]
fn robots_at_easy_play_whole_games_to_their_end() {
    for (name, options) in CASES {
        // d4 d6 chess between robots runs to hundreds of plies: its whole games are the
        // bench's; here its first plies.
        let limit = if *name == "d4d6" { 16 } else { 2_000 };
        let mut game = new_game(name, options);
        let mut turn = 0;
        while step(&mut game, turn, Level::Easy) {
            turn += 1;
            if turn == limit {
                break;
            }
        }
        assert!(
            turn == limit || game.outcome().is_some(),
            "{name} {options:?} did not end:\n{}",
            game.board()
        );
    }
}

#[test]
fn the_same_view_gets_the_same_answer() {
    for (name, options) in CASES {
        let mut game = new_game(name, options);
        for turn in 0..5 {
            if let ToAct::Seat(seat) = game.to_act() {
                let view = View::new(&game, 42);
                assert_eq!(
                    decide(&view, seat, Level::Normal),
                    decide(&View::new(&game, 42), seat, Level::Normal),
                    "{name} {options:?}"
                );
            }
            if !step(&mut game, turn, Level::Easy) {
                break;
            }
        }
    }
}

#[test]
fn a_seat_with_nothing_to_do_gets_no_decision() {
    let game = new_game("d4d6", &[]);
    // WHITE to move: BLACK has nothing to do.
    assert_eq!(decide(&View::new(&game, 1), 1, Level::Strong), None);
    let game = new_game("dicess", &[]);
    // The set-up roll is the GM's: no seat has anything to do.
    assert!(matches!(game.to_act(), ToAct::Chance(_)));
    assert_eq!(decide(&View::new(&game, 1), 0, Level::Strong), None);
}

/// The robot sees what a player sees: its whole input is the public position (an `AnyGame`,
/// which holds no dice seed or salt: those live in the app's store) and the game's public id.
/// `View::new` takes nothing else, so no secret can reach the robot: this is a compile-time
/// fact, checked here by the function's type.
#[test]
fn the_robot_input_is_the_public_position_and_the_game_id_only() {
    let build: fn(&AnyGame, i64) -> View = View::new;
    let game = new_game("siberian", &[("variant", "purity")]);
    let _ = build(&game, 1);
}

#[test]
fn levels_read_and_name() {
    assert_eq!(Level::parse("easy"), Some(Level::Easy));
    assert_eq!(Level::parse("Normal"), Some(Level::Normal));
    assert_eq!(Level::parse("strong"), Some(Level::Strong));
    assert_eq!(Level::parse(""), Some(Level::Strong));
    assert_eq!(Level::parse("hard"), None);
    for level in LEVELS {
        assert_eq!(Level::parse(level.name()), Some(level));
    }
}

/// A robot agrees to a draw in a balanced or a losing position and plays on when ahead.
#[test]
fn a_robot_accepts_a_draw_unless_it_is_ahead() {
    use pbem_rules::robot::accepts_draw;
    let start = new_game("d4d6", &[]);
    assert!(accepts_draw(&View::new(&start, 1), 0));
    assert!(accepts_draw(&View::new(&start, 1), 1));
    // White has a Gata, a Formiga and two Ratos against a lone Black Rato.
    let options = Options::new();
    let ahead = AnyGame::from_position(GameKind::D4D6, &options, "W:Gad4,Foc3,Rae3,Raf3 B:Raf6 w")
        .expect("a position");
    assert!(!accepts_draw(&View::new(&ahead, 1), 0), "White is ahead");
    assert!(accepts_draw(&View::new(&ahead, 1), 1), "Black is behind");
}
