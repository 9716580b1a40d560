//! The Dice Rink robot: it takes a win in one, stops a win in one, and leaves the cycles in which it once walked until the bench cut the game.

use pbem_rules::games::{Actor, AnyGame, GameKind, Options, Outcome, Seat, ToAct};
use pbem_rules::robot::{decide, Decision, Level, View};

fn position(tag: &str) -> AnyGame {
    AnyGame::from_position(GameKind::DiceRink, &Options::new(), tag).expect("a position")
}

fn to_move(game: &AnyGame) -> Seat {
    match game.to_act() {
        ToAct::Seat(s) => s,
        other => panic!("nobody to move: {other:?}"),
    }
}

/// The robot's ply for the side to move.
fn robot_ply(game: &AnyGame, level: Level) -> String {
    match decide(&View::new(game, 28), to_move(game), level) {
        Some(Decision::Ply(p)) => p,
        other => panic!("no ply: {other:?}\n{}", game.board()),
    }
}

fn after(game: &AnyGame, ply: &str) -> AnyGame {
    let mut next = game.clone();
    let seat = to_move(game);
    next.play(Actor::Seat(seat), ply).expect("a legal ply");
    next
}

fn wins(game: &AnyGame, seat: Seat) -> bool {
    matches!(game.outcome(), Some(Outcome::Win { seat: s, .. }) if s == seat)
}

/// Whether the side to move has a ply that wins at once.
fn wins_in_one(game: &AnyGame) -> bool {
    let seat = to_move(game);
    game.legal_plies()
        .iter()
        .any(|p| wins(&after(game, p), seat))
}

#[test]
fn the_strong_robot_takes_a_win_in_one() {
    for tag in [
        // A's c3 rolls north to c4 beside d4: both home (five other plies do not win).
        "A:c3=4/6,d4=3/6 B:a4=2/4,d1=6/5 move=A forced=-",
        // B's b2 rolls south to b1 beside a1.
        "A:b4=3/5,c1=4/1 B:a1=1/4,b2=6/2 move=B forced=-",
        // A must move its matched c3, and north is the win (east and south are not).
        "A:c3=2/3,d4=6/3 B:a2=1/3,b4=3/2 move=A forced=c3",
        // B must move its matched d2: south wins, north does not.
        "A:b1=6/5,b3=4/6 B:a1=1/4,d2=6/3 move=B forced=d2",
    ] {
        let game = position(tag);
        assert!(wins_in_one(&game), "no win in one in {tag}");
        let ply = robot_ply(&game, Level::Strong);
        assert!(
            wins(&after(&game, &ply), to_move(&game)),
            "{ply} does not win in {tag}:\n{}",
            game.board()
        );
    }
}

#[test]
fn the_strong_robot_stops_a_win_in_one() {
    for tag in [
        // A threatens c3 north beside d4; two of B's five plies let it.
        "A:c3=4/6,d4=3/6 B:b4=1/4,d1=6/5 move=B forced=-",
        // B threatens b2 south beside a1; one of A's four plies stops it.
        "A:b4=3/5,d1=5/1 B:a1=1/4,b2=6/2 move=A forced=-",
        // A's d4 cannot roll and must rotate: eight of its twelve rotations let B's a2 or
        // b1 through.
        "A:d3=4/6,d4=1/2 B:a2=3/2,b1=1/5 move=A forced=d4",
        // B must move its matched b2; two of its three rolls let A's c3 through.
        "A:c3=3/1,d4=4/6 B:b2=4/1,b4=6/4 move=B forced=b2",
    ] {
        let game = position(tag);
        let plies = game.legal_plies();
        let lets_it = |ply: &String| wins_in_one(&after(&game, ply));
        assert!(plies.iter().any(lets_it), "no threat in {tag}");
        assert!(!plies.iter().all(lets_it), "no defence in {tag}");
        let ply = robot_ply(&game, Level::Strong);
        assert!(
            !lets_it(&ply),
            "{ply} lets the opponent win at once in {tag}:\n{}",
            game.board()
        );
    }
}

/// Positions of bench games in which the strong robot once went round the same plies until
/// the bench cut the game at 3000 plies: A shuffling its home die a4-b4 while B's answers
/// were forced (against the easy robot), and a cycle of eight plies, every one forced by the
/// last (against a random player). From each, against the easy robot, it now wins.
#[test]
fn the_strong_robot_leaves_a_cycle_and_wins() {
    for tag in [
        "A:a4=6/5,d2=2/1 B:b3=3/2,c3=5/6 move=A forced=-",
        "A:a4=1/4,c3=5/6 B:b3=6/3,d4=1/3 move=A forced=-",
    ] {
        let mut game = position(tag);
        for _ in 0..40 {
            if game.outcome().is_some() {
                break;
            }
            let level = if to_move(&game) == 0 {
                Level::Strong
            } else {
                Level::Easy
            };
            let ply = robot_ply(&game, level);
            game = after(&game, &ply);
        }
        assert!(
            wins(&game, 0),
            "from {tag}, after 40 plies:\n{}",
            game.board()
        );
    }
}
