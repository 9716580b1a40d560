//! The d4 d6 robot in 2-men positions keeps the endgame table's value: at a declaration and after every roll, its ply is worth the best any legal ply is worth by the table, and at a declaration that is the table's value of the position.

use pbem_rules::games::d4d6::pieces::{Color, Kind};
use pbem_rules::games::d4d6::position::Position;
use pbem_rules::games::d4d6::tablebase::{modelled, PieceState, Table};
use pbem_rules::games::{Actor, AnyGame, GameKind, GameRef, Options, Outcome, Seat, ToAct};
use pbem_rules::robot::{decide, endgame_table, Decision, Level, View};

/// The levels that use the table (the easy robot is a beginner).
const LEVELS: [Level; 2] = [Level::Normal, Level::Strong];

fn game(tag: &str, rinoceronte: bool) -> AnyGame {
    let mut options = Options::new();
    if rinoceronte {
        options.insert("variant".into(), "rinoceronte".into());
    }
    AnyGame::from_position(GameKind::D4D6, &options, tag).expect("a position")
}

fn is_rinoceronte(game: &AnyGame) -> bool {
    matches!(game.game(), GameRef::D4D6(g) if g.rinoceronte())
}

/// Each side's one gambling piece in the playing area.
fn pieces(game: &AnyGame) -> (PieceState, PieceState) {
    let GameRef::D4D6(g) = game.game() else {
        panic!("not d4 d6")
    };
    let piece = |color: Color| {
        let found: Vec<PieceState> = g
            .position()
            .squares_of(color)
            .filter(|(s, p)| s.is_playing() && p.kind.is_gambling())
            .map(|(sq, p)| PieceState {
                kind: p.kind,
                sq,
                facing: p.facing,
            })
            .collect();
        assert_eq!(found.len(), 1, "{}", game.board());
        found[0]
    };
    (piece(Color::White), piece(Color::Black))
}

fn white_to_move(game: &AnyGame) -> bool {
    game.to_act() == ToAct::Seat(Color::White.index())
}

/// The table of this position's two kinds, as the robot takes it.
fn table_of(game: &AnyGame) -> std::sync::Arc<Table> {
    let (w, b) = pieces(game);
    endgame_table(w.kind, b.kind, is_rinoceronte(game))
}

/// The value (White's view) the table gives the position after a turn: a win 1 or -1.
fn after_turn(table: &Table, game: &AnyGame) -> f64 {
    match game.outcome() {
        Some(Outcome::Win { seat, .. }) => return if seat == 0 { 1.0 } else { -1.0 },
        Some(other) => panic!("{other:?}"),
        None => {}
    }
    let (w, b) = pieces(game);
    table.value(w, b, white_to_move(game))
}

fn played(game: &AnyGame, actor: Actor, ply: &str) -> AnyGame {
    let mut next = game.clone();
    next.play(actor, ply)
        .unwrap_or_else(|e| panic!("{ply}: {e}\n{}", game.board()));
    next
}

/// The mover's best of these values, White's view.
fn best(mover: Seat, values: impl Iterator<Item = f64>) -> f64 {
    let white = mover == Color::White.index();
    values
        .reduce(|a, b| if white { a.max(b) } else { a.min(b) })
        .expect("some plies")
}

/// What `ply` is worth to the mover by the table: played out to the end of the turn, every
/// roll of the die averaged, the mover's best ply taken after the roll (or after a special
/// move before the declaration).
fn ply_value(table: &Table, game: &AnyGame, mover: Seat, ply: &str) -> f64 {
    let next = played(game, Actor::Seat(mover), ply);
    if next.outcome().is_some() {
        return after_turn(table, &next);
    }
    match next.to_act() {
        ToAct::Chance(sides) => {
            let die = sides[0];
            let sum: f64 = (1..=die)
                .map(|r| {
                    let rolled = played(&next, Actor::Chance, &next.chance_ply(&[r]));
                    best_value(table, &rolled, mover)
                })
                .sum();
            sum / f64::from(die)
        }
        ToAct::Seat(s) if s == mover => best_value(table, &next, mover),
        _ => after_turn(table, &next),
    }
}

fn best_value(table: &Table, game: &AnyGame, mover: Seat) -> f64 {
    let plies = game.legal_plies();
    best(
        mover,
        plies.iter().map(|p| ply_value(table, game, mover, p)),
    )
}

/// Every legal ply of the mover with its value by the table, and the best of them.
fn ply_values(table: &Table, game: &AnyGame, mover: Seat) -> (Vec<(String, f64)>, f64) {
    let values: Vec<(String, f64)> = game
        .legal_plies()
        .into_iter()
        .map(|p| {
            let v = ply_value(table, game, mover, &p);
            (p, v)
        })
        .collect();
    let top = best(mover, values.iter().map(|(_, v)| *v));
    (values, top)
}

/// The robot's ply at each level, checked: worth exactly the best of all legal plies.
/// Returns the best and the robot's plies.
fn robot_keeps_the_best(game: &AnyGame, what: &str) -> (f64, Vec<String>) {
    let ToAct::Seat(mover) = game.to_act() else {
        panic!("nobody to move: {what}")
    };
    let (values, top) = ply_values(&table_of(game), game, mover);
    let plies = LEVELS
        .iter()
        .map(|&level| {
            let Some(Decision::Ply(ply)) = decide(&View::new(game, 3), mover, level) else {
                panic!("no ply: {what}")
            };
            let Some((_, value)) = values.iter().find(|(p, _)| *p == ply) else {
                panic!("{what}: {ply} is not a legal ply")
            };
            assert_eq!(
                *value,
                top,
                "{what}: {} plays {ply} worth {value}, the best is {top}\n{}",
                level.name(),
                game.board()
            );
            ply
        })
        .collect();
    (top, plies)
}

/// A whole turn from a declaration: the robot's declaration (or special move before it)
/// keeps the table's value of the position, and after every roll of every declaration the
/// robot's choice keeps the best. Returns the table's value of the position.
fn check_turn(tag: &str, rinoceronte: bool) -> f64 {
    let start = game(tag, rinoceronte);
    let (w, b) = pieces(&start);
    let value = table_of(&start).value(w, b, white_to_move(&start));
    let top = check_declaration(&start, tag);
    assert!(
        (top - value).abs() < 1e-9,
        "{tag}: the plies are worth {top} at best, the table says {value}"
    );
    value
}

/// The robot's declaration (or special before it) and every choice after every roll; the
/// best the plies are worth.
fn check_declaration(game: &AnyGame, tag: &str) -> f64 {
    let ToAct::Seat(mover) = game.to_act() else {
        panic!("{tag}: nobody to move")
    };
    let (top, plies) = robot_keeps_the_best(game, &format!("{tag} declaring"));
    for ply in plies {
        let next = played(game, Actor::Seat(mover), &ply);
        if next.to_act() == ToAct::Seat(mover) {
            // A special move first (a promotion, a turn): the declaration follows.
            check_declaration(&next, &format!("{tag} after {ply}"));
        }
    }
    for ply in game.legal_plies() {
        let declared = played(game, Actor::Seat(mover), &ply);
        let ToAct::Chance(sides) = declared.to_act() else {
            continue;
        };
        for r in 1..=sides[0] {
            let rolled = played(&declared, Actor::Chance, &declared.chance_ply(&[r]));
            robot_keeps_the_best(&rolled, &format!("{tag} {ply} roll {r}"));
        }
    }
    top
}

#[test]
fn gata_against_rato_both_sides() {
    // The seed's worst case for White's Gata on a light square against a Rato on one.
    let v = check_turn("W:Gaa6 B:Rad3 w", false);
    assert!((0.85..0.95).contains(&v), "{v}");
    check_turn("W:Gaa6 B:Rad3 b", false);
}

#[test]
fn gato_against_cavalo_and_a_cavalo_in_the_promotion_area() {
    // The seed's best case for the Gato; then Black's Cavalo to move.
    assert!(check_turn("W:Goc5 B:Cad8/S w", false) > 0.9);
    check_turn("W:Goc5 B:Cad8/S b", false);
    // Black's Cavalo in its promotion area, to move: it may promote first, or move and then.
    check_turn("W:Goc5 B:Caa4/S b", false);
}

#[test]
fn one_roll_wins_at_once() {
    // White's Gata next to the Rato: a roll of 1 with the d4 takes it.
    let start = game("W:Gad4 B:Rae5 w", false);
    check_turn("W:Gad4 B:Rae5 w", false);
    let declared = played(&start, Actor::Seat(0), "Gad4:d4");
    let rolled = played(&declared, Actor::Chance, "roll 1");
    let (top, plies) = robot_keeps_the_best(&rolled, "Gad4:d4 roll 1");
    assert_eq!(top, 1.0);
    for ply in plies {
        let after = played(&rolled, Actor::Seat(0), &ply);
        assert!(
            matches!(after.outcome(), Some(Outcome::Win { seat: 0, .. })),
            "{ply} does not take the Rato"
        );
    }
}

#[test]
fn rinoceronte_against_rato() {
    // The variant's own piece: it may turn before or after its move, and step through the
    // waiting area (ending there loses).
    check_turn("W:Rid4/NE B:Raf6 w", true);
    check_turn("W:Rid4/NE B:Raf6 b", true);
}

#[test]
fn the_robot_is_the_same_for_the_same_view() {
    let g = game("W:Gaa6 B:Rad3 w", false);
    let once = decide(&View::new(&g, 9), 0, Level::Strong);
    assert_eq!(once, decide(&View::new(&g, 9), 0, Level::Strong));
}

#[test]
fn kinds_in_the_table_are_the_ones_asked() {
    let t = endgame_table(Kind::Gata, Kind::Rato, false);
    assert!(std::sync::Arc::ptr_eq(
        &t,
        &endgame_table(Kind::Gata, Kind::Rato, false)
    ));
}

fn modelled_pieces(tag: &str, rinoceronte: bool) -> Option<(PieceState, PieceState)> {
    modelled(&Position::parse_tag(tag).expect("a tag"), rinoceronte)
}

#[test]
fn the_table_models_two_gamblers_and_nothing_that_could_act() {
    assert!(modelled_pieces("W:Gaa6 B:Rad3 w", false).is_some());
    // One Cavalo waiting a side cannot come back; a Guarda could act.
    assert!(modelled_pieces("W:Gaa6,Cab1/N B:Rad3,Cag8/S w", false).is_some());
    assert!(modelled_pieces("W:Gaa6,Gua1 B:Rad3 w", false).is_none());
    assert!(modelled_pieces("W:Gaa6 B:Rad3,Guh8 w", false).is_none());
    // Two waiting Cavalos make a third Cavalo; a Cavalo in play with one waiting could
    // promote and leave two.
    assert!(modelled_pieces("W:Gaa6,Cab1/N,Cab2/N B:Rad3 w", false).is_none());
    assert!(modelled_pieces("W:Cah5/N,Cab1/N B:Rad3 w", false).is_none());
    assert!(modelled_pieces("W:Cah5/N B:Rad3 w", false).is_some());
    // Three gamblers, or one side with none in play.
    assert!(modelled_pieces("W:Gaa6,Rac3 B:Rad3 w", false).is_none());
    assert!(modelled_pieces("W:Cab1/N B:Rad3 w", false).is_none());
    // A Rinoceronte steps in the waiting area: nothing may wait there, nor it stand there.
    assert!(modelled_pieces("W:Rid4/NE B:Rad3 w", true).is_some());
    assert!(modelled_pieces("W:Rid4/NE B:Rad3,Cag8/S w", true).is_none());
    assert!(modelled_pieces("W:Gaa6,Rig1/NE B:Rad3 w", true).is_none());
    assert!(modelled_pieces("W:Rid4/NE B:Rad3 w", false).is_none());
}
