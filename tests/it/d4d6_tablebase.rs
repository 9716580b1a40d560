//! The seed's 2-men endgame table figures ("Endgame tablebase" in seed 001), reproduced by
//! `pbem::games::d4d6::tablebase` at the author's precision.

use pbem::cli::d4d6_query;
use pbem::games::d4d6::pieces::Kind;
use pbem::games::d4d6::tablebase::{self, analyze, Analysis, Query, SolvedLayers, Table};

fn query(args: &str) -> Query {
    let a: Vec<&str> = args.split_whitespace().collect();
    d4d6_query(&a).unwrap()
}

fn solve(args: &str) -> (Table, Query) {
    let q = query(args);
    (Table::solve(q.white.kind, q.black.kind, q.rinoceronte), q)
}

/// Rounds to the seed's precision (`digits` after the point).
fn round(x: f64, digits: i32) -> f64 {
    let p = 10f64.powi(digits);
    (x * p).round() / p
}

fn assert_figure(a: &Analysis, average: f64) {
    assert_eq!(round(a.average, 2), average, "average of {a:?}");
}

fn assert_extreme(
    e: &pbem::games::d4d6::tablebase::Extreme,
    value: f64,
    digits: i32,
    at: (&str, &str),
) {
    assert_eq!(round(e.value, digits), value, "{e:?}");
    assert_eq!((e.white.as_str(), e.black.as_str()), at, "{e:?}");
}

#[test]
fn gata_against_rato() {
    let (t, _) = solve("--white Ga --black Ra");
    let dark = t.analyze(&query(
        "--white Ga --black Ra --white-squares light --black-squares dark",
    ));
    assert_figure(&dark, 1.00);
    let light = t.analyze(&query(
        "--white Ga --black Ra --white-squares light --black-squares light",
    ));
    assert_figure(&light, 0.98);
    assert_extreme(&light.min, 0.899, 3, ("a6", "d3"));
}

#[test]
fn gata_against_gato_both_sides_to_move() {
    let (t, _) = solve("--white Ga --black Go");
    let white = t.analyze(&query("--white Ga --black Go"));
    assert_figure(&white, 0.17);
    assert_extreme(&white.min, -0.29, 2, ("a6", "g4"));
    let black = t.analyze(&query("--white Ga --black Go --to-move black"));
    assert_figure(&black, -0.44);
    assert_extreme(&black.max, -0.10, 2, ("a4", "a5"));
    assert_extreme(&black.min, -0.64, 2, ("a6", "b4"));
}

#[test]
fn rato_against_rato_on_light_squares() {
    let a = analyze(&query(
        "--white Ra --black Ra --white-squares light --black-squares light",
    ));
    assert_figure(&a, 0.24);
    assert_eq!(a.positions, 24 * 23);
}

#[test]
fn formiga_against_formiga() {
    let a = analyze(&query("--white Fo --black Fo"));
    assert_figure(&a, 0.21);
    assert_eq!(a.positions, 48 * 47);
}

#[test]
fn gato_and_gata_against_cavalo() {
    let (t, q) = solve("--white Go --black Ca");
    let a = t.analyze(&q);
    assert_figure(&a, 0.73);
    // The seed names its best case by squares ("White on c5, Black on d8 (hence facing
    // south)"), so the extremes range over placements by square, a pair of squares being
    // worth the mean over the facings the Cavalo may have there. On d8 it has one.
    assert_extreme(&a.max, 0.96, 2, ("c5", "d8/S"));
    assert_eq!(round(a.max.value, 5), 0.96465);
    // Position by position (facing included) a Black Cavalo facing east on d7, reachable only
    // through captures, does better for White: White's Gato on e7 stops it dead. Its square
    // is worth less, as the same Cavalo facing south or west is not stuck.
    let positions = t.analyze(&query("--white Go --black Ca --extremes positions"));
    assert_eq!(positions.positions, a.positions);
    assert!((positions.average - a.average).abs() < 1e-12);
    assert_extreme(&positions.max, 0.97, 2, ("b6", "d7/E"));
    let d7 = t.analyze(&query("--white Go@b6 --black Ca@d7"));
    assert_eq!(d7.positions, 3);
    assert!(d7.average < a.max.value, "{d7:?}");
    assert_eq!(
        d7.max.black, "d7",
        "a square with several facings is named alone"
    );
    assert_figure(&analyze(&query("--white Ga --black Ca")), 0.71);
}

#[test]
fn cavalo_against_cavalo() {
    let a = analyze(&query("--white Ca --black Ca"));
    assert_figure(&a, 0.17);
    // 112 Cavalo states a side (square and facing) less those sharing a square.
    assert!(a.positions > 12_000);
}

#[test]
fn a_table_built_on_layers_already_solved_is_the_same_table() {
    let fresh = Table::solve(Kind::Cavalo, Kind::Gato, false);
    let mut solved = SolvedLayers::default();
    let gatos = Table::solve_reusing(Kind::Gato, Kind::Gato, false, &mut solved);
    Table::solve_reusing(Kind::Gata, Kind::Gato, false, &mut solved);
    let reused = Table::solve_reusing(Kind::Cavalo, Kind::Gato, false, &mut solved);
    assert!(
        reused.sweeps < fresh.sweeps,
        "the two layers were not solved again"
    );
    for pieces in [
        "Ca --black Go",
        "Go --black Go",
        "Ga --black Go",
        "Fo --black Go",
    ] {
        for to_move in ["white", "black"] {
            let q = query(&format!("--white {pieces} --to-move {to_move}"));
            assert_eq!(
                reused.analyze(&q),
                fresh.analyze(&q),
                "{pieces}, {to_move} to move"
            );
        }
    }
    let q = query("--white Go --black Go");
    assert_eq!(gatos.analyze(&q), fresh.analyze(&q));
}

#[test]
fn gato_mutual_zugzwang() {
    let a = analyze(&query("--white Go@c8 --black Go@f8"));
    assert_eq!(a.positions, 1);
    assert_eq!(round(a.average, 2), -0.08);
}

#[test]
fn json_has_the_documented_shape() {
    let a = analyze(&query(
        "--white Ga --black Ra --white-squares light --black-squares light --json",
    ));
    let j = a.json();
    assert_eq!(j["positions"], 552);
    assert_eq!(j["min"]["white"], "a6");
    assert_eq!(j["min"]["black"], "d3");
    assert!(j["max"]["value"].as_f64().unwrap() > 0.99);
}

#[test]
fn bad_queries_are_refused() {
    assert!(d4d6_query(&["--white", "Gu", "--black", "Ra"]).is_err());
    assert!(d4d6_query(&["--white", "Ga@b7", "--black", "Ra"]).is_err());
    assert!(d4d6_query(&["--white", "Ga", "--black", "Ra", "--to-move", "red"]).is_err());
    assert!(d4d6_query(&["--white", "Ga"]).is_err());
    assert!(d4d6_query(&["--white", "Ca@g6/N", "--black", "Ra"]).is_err());
    assert!(d4d6_query(&["--white", "Ca@g3/W", "--black", "Ra"]).is_ok());
    assert!(d4d6_query(&["--white", "Ga", "--black", "Ra", "--extremes", "pairs"]).is_err());
}

/// `pbem analyze` gives a position the value the d4 d6 robot keeps there: the robot's
/// declaration, each roll of its die followed by the best choice by the table, is worth
/// what the command line prints for that one position.
#[test]
fn the_robot_keeps_the_value_pbem_analyze_prints() {
    use pbem::games::d4d6::pieces::Color;
    use pbem::games::{Actor, AnyGame, GameKind, GameRef, Options, Outcome, ToAct};
    use pbem::robot::{decide, endgame_table, Decision, Level, View};

    let dir = tempfile::tempdir().unwrap();
    let args = [
        "analyze",
        "d4d6",
        "--white",
        "Ga@a6",
        "--black",
        "Ra@d3",
        "--extremes",
        "positions",
        "--json",
    ];
    let o = crate::common::pbem_in(dir.path(), &args);
    assert!(o.status.success(), "{}", crate::common::output_text(&o));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(j["positions"], 1);
    let printed = j["average"].as_f64().unwrap();

    let game = AnyGame::from_position(GameKind::D4D6, &Options::new(), "W:Gaa6 B:Rad3 w").unwrap();
    let Some(Decision::Ply(declared)) = decide(&View::new(&game, 1), 0, Level::Strong) else {
        panic!("no declaration")
    };
    let table = endgame_table(Kind::Gata, Kind::Rato, false);
    let mut after = game.clone();
    after.play(Actor::Seat(0), &declared).unwrap();
    let die = match after.to_act() {
        ToAct::Chance(sides) => sides[0],
        other => panic!("{declared}: {other:?}"),
    };
    // White's best after each roll: a capture wins, else the table's value with Black to move.
    let worth = |g: &AnyGame| match g.outcome() {
        Some(Outcome::Win { seat: 0, .. }) => 1.0,
        Some(other) => panic!("{other:?}"),
        None => {
            let GameRef::D4D6(d) = g.game() else {
                panic!("not d4 d6")
            };
            let state = |color| {
                let (sq, p) = d
                    .position()
                    .squares_of(color)
                    .find(|(s, p)| s.is_playing() && p.kind.is_gambling())
                    .unwrap();
                tablebase::PieceState {
                    kind: p.kind,
                    sq,
                    facing: p.facing,
                }
            };
            table.value(state(Color::White), state(Color::Black), false)
        }
    };
    let mut total = 0.0;
    for roll in 1..=die {
        let mut rolled = after.clone();
        rolled.play(Actor::Chance, &format!("roll {roll}")).unwrap();
        let best = rolled
            .legal_plies()
            .iter()
            .map(|p| {
                let mut g = rolled.clone();
                g.play(Actor::Seat(0), p).unwrap();
                worth(&g)
            })
            .fold(f64::NEG_INFINITY, f64::max);
        total += best;
    }
    let kept = total / f64::from(die);
    assert!(
        (kept - printed).abs() < 1e-9,
        "{declared} keeps {kept}, pbem analyze prints {printed}"
    );
}
