//! What each game states about itself (`GameFacts`) agrees with the game it makes: its seats, how many play, its options' defaults.

use pbem_rules::games::{AnyGame, GameKind, Options};

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
fn every_option_default_is_accepted_by_its_game() {
    for kind in GameKind::ALL {
        for spec in kind.facts().options {
            let mut options = Options::new();
            options.insert(spec.name.to_string(), spec.default.to_string());
            assert!(
                AnyGame::new(*kind, &options).is_ok(),
                "{kind:?}: option {}={} refused",
                spec.name,
                spec.default
            );
        }
    }
}
