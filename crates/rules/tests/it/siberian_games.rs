//! Random legal Siberian Dice games through `AnyGame`: every canonical ply plays again as
//! itself, the log replays to the same position, and the written record reads back the same.

use pbem_rules::games::{Actor, AnyGame, GameKind, Options, ToAct};
use pbem_rules::records::{self, Record};
use proptest::prelude::*;

/// A small deterministic generator: proptest gives the seed, this picks the plies.
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}

const SETUPS: &[&[(&str, &str)]] = &[
    &[],
    &[("variant", "primes")],
    &[("variant", "strategic")],
    &[("variant", "strategic"), ("objective", "primes")],
    &[("variant", "grossmeister")],
    &[("variant", "purity"), ("length", "40")],
    &[("players", "3")],
    &[
        ("players", "3"),
        ("variant", "strategic"),
        ("simultaneous", "most"),
    ],
    &[("players", "3"), ("variant", "grossmeister")],
    &[("players", "3"), ("variant", "purity"), ("length", "30")],
];

/// The dice each seat owns in each setup (contract 3.1).
const DICE: &[usize] = &[12, 13, 13, 14, 13, 12, 9, 10, 9, 9];

/// Every seat's dice are on the board, in its hand, or its indicator.
fn dice_add_up(game: &AnyGame, dice: usize) {
    let json = game.position_json();
    for seat in game.seat_names() {
        let on_board = json["dice"]
            .as_array()
            .map_or(0, |d| d.iter().filter(|d| d["player"] == *seat).count());
        let hand = json["hands"][seat].as_u64().unwrap_or(99) as usize;
        let indicator = usize::from(!json["indicators"].is_null());
        assert_eq!(
            on_board + hand + indicator,
            dice,
            "{seat} in {}",
            game.position_tag()
        );
    }
}

fn options(setup: &[(&str, &str)]) -> Options {
    setup
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// The next ply: a legal one at random, the opening roll with random values.
fn next_ply(game: &AnyGame, rng: &mut Lcg) -> Option<(Actor, String)> {
    match game.to_act() {
        ToAct::Nobody | ToAct::Orders(_) => None,
        ToAct::Chance(sides) => {
            let values: Vec<u32> = sides
                .iter()
                .map(|&s| 1 + rng.below(s as usize) as u32)
                .collect();
            Some((Actor::Chance, game.chance_ply(&values)))
        }
        ToAct::Seat(s) => {
            let legal = game.legal_plies();
            assert!(
                !legal.is_empty(),
                "no legal ply for {s} in {}",
                game.position_tag()
            );
            Some((Actor::Seat(s), legal[rng.below(legal.len())].clone()))
        }
    }
}

/// Plays up to `plies` random plies, checking each canonical text as it goes.
fn random_game(setup: usize, seed: u64, plies: usize) -> (AnyGame, AnyGame, Vec<(Actor, String)>) {
    let start = AnyGame::new(GameKind::Siberian, &options(SETUPS[setup])).expect("options");
    let mut game = start.clone();
    let mut rng = Lcg(seed);
    let mut log = Vec::new();
    for _ in 0..plies {
        let Some((actor, text)) = next_ply(&game, &mut rng) else {
            break;
        };
        let before = game.clone();
        let canon = game
            .play(actor, &text)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        let mut again = before.clone();
        assert_eq!(again.play(actor, &canon).as_deref(), Ok(canon.as_str()));
        assert_eq!(again.position_tag(), game.position_tag());
        assert_eq!(again.board(), game.board());
        dice_add_up(&game, DICE[setup]);
        log.push((actor, canon));
    }
    (start, game, log)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn random_games_replay_identically(setup in 0..SETUPS.len(), seed in any::<u64>(), plies in 1usize..400) {
        let (start, game, log) = random_game(setup, seed, plies);
        // The log replayed from the start gives the same game.
        let mut replay = start.clone();
        for (actor, text) in &log {
            let canon = replay.play(*actor, text).expect("a logged ply replays");
            prop_assert_eq!(&canon, text);
        }
        prop_assert_eq!(replay.position_tag(), game.position_tag());
        prop_assert_eq!(replay.outcome(), game.outcome());
        prop_assert_eq!(replay.position_json(), game.position_json());
        // Written as a record and read back, it replays to the same plies and position.
        let mut tags = vec![("Game".to_string(), "siberian".to_string())];
        let opts = options(SETUPS[setup]);
        if !opts.is_empty() {
            tags.push(("Options".to_string(), records::format_options(&opts)));
        }
        let text = records::write(&tags, &start, &log).expect("a record");
        let back = Record::parse(&text).and_then(|r| r.replay().map_err(|e| e.to_string()));
        let back = back.unwrap_or_else(|e| panic!("{text}\n{e}"));
        prop_assert_eq!(&back.log, &log);
        prop_assert_eq!(back.game.position_tag(), game.position_tag());
        // Between moves, the position tag starts the same game again.
        if matches!(game.to_act(), ToAct::Seat(_)) && game.outcome().is_none() {
            let json = game.position_json();
            if json["phase"] == "declare" {
                let from = AnyGame::from_position(GameKind::Siberian, &opts, &game.position_tag())
                    .expect("its own tag reads back");
                prop_assert_eq!(from.position_tag(), game.position_tag());
                prop_assert_eq!(from.legal_plies(), game.legal_plies());
            }
        }
    }
}
