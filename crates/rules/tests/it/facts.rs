//! What each game states about itself (`GameFacts`) agrees with the game it makes: its seats, how many play, its options' defaults; and a game ended by a shared ply shows nobody to move.

use pbem_rules::games::{Actor, AnyGame, GameKind, Options};

#[test]
fn every_game_plays_the_seats_and_player_counts_it_states() {
    for kind in GameKind::ALL {
        let facts = kind.facts();
        let game = AnyGame::new(*kind, &Options::new()).unwrap();
        let seats = game.seat_names();
        let (fewest, most) = facts.players;
        assert!(
            fewest <= most && most == facts.seats.len(),
            "{kind:?}: {facts:?}"
        );
        assert!(
            (fewest..=most).contains(&seats.len()),
            "{kind:?} plays {} seats, outside {fewest}-{most}",
            seats.len()
        );
        assert_eq!(
            seats,
            &facts.seats[..seats.len()],
            "{kind:?}: seats in order"
        );
    }
}

#[test]
fn every_game_starts_without_options_and_its_defaults_are_allowed_values() {
    for kind in GameKind::ALL {
        assert!(AnyGame::new(*kind, &Options::new()).is_ok(), "{kind:?}");
        for spec in kind.facts().options {
            assert!(
                spec.values.is_empty() || spec.values.contains(&spec.default),
                "{kind:?}: option {} defaults to {}, not one of {:?}",
                spec.name,
                spec.default,
                spec.values
            );
        }
    }
}

#[test]
fn a_game_ended_by_a_shared_ply_shows_nobody_to_move_on_its_board() {
    for kind in GameKind::ALL.iter().copied() {
        let mut game = AnyGame::new(kind, &Options::new()).unwrap();
        if kind.facts().simultaneous {
            // Dip-Tac-Toe's leavers' units hold, and play goes on: an agreed draw ends it.
            game.play(Actor::Gm, "draw").unwrap();
        } else {
            // Every seat but the first resigns.
            for seat in 1..game.seat_names().len() {
                game.play(Actor::Seat(seat), "resign").unwrap();
            }
        }
        assert!(game.outcome().is_some(), "{kind:?}");
        let board = game.board();
        assert!(!board.contains("to move"), "{kind:?}:\n{board}");
        assert!(!board.contains("to declare"), "{kind:?}:\n{board}");
    }
}

#[test]
fn a_game_states_simultaneous_turns_exactly_when_its_seats_order_together() {
    for kind in GameKind::ALL {
        let game = AnyGame::new(*kind, &Options::new()).unwrap();
        let orders = matches!(game.to_act(), pbem_rules::games::ToAct::Orders(_));
        assert_eq!(kind.facts().simultaneous, orders, "{kind:?}");
    }
}

#[test]
fn a_refusal_never_repeats_a_whole_hostile_line() {
    let line = format!("a1 {}", "9".repeat(100_000));
    for kind in GameKind::ALL {
        let mut game = AnyGame::new(*kind, &Options::new()).unwrap();
        let err = game.play(Actor::Seat(0), &line).unwrap_err();
        assert!(
            err.to_string().len() < 400,
            "{kind:?}: {} bytes",
            err.to_string().len()
        );
    }
}
