//! Loading a game reuses the replay of its log so far; these tests show it never returns a
//! position other than a full replay would, whatever happens to the log in between.

use crate::lcg::Lcg;
use pbem::gamelog::{self, Loaded};
use pbem::games::{AnyGame, GameKind, Options};
use pbem::gm::{self, GameSpec, Secrets};
use pbem::records;
use pbem::store::{Store, Tx};

/// The position a full replay of the stored log gives, without the memo.
fn full_replay(g: &Loaded) -> String {
    let start = gamelog::start_of(&g.row).unwrap();
    let (game, _) = gamelog::replay(&start, &g.moves, g.row.id).unwrap();
    game.position_tag()
}

/// Plays one legal ply chosen by `rng`; false when the game is over.
fn play_one(tx: &Tx, id: i64, rng: &mut Lcg) -> bool {
    let mut g = gamelog::load(tx, id).unwrap();
    let legal = g.game.legal_plies();
    if g.game.outcome().is_some() || legal.is_empty() {
        return false;
    }
    let ply = legal[rng.pick(legal.len())].clone();
    let actor = records::implied_actor(&g.game).unwrap();
    gm::play(
        &mut gm::Gm::new(tx, pbem::edge::now(), &gm::Quiet),
        &mut g,
        actor,
        &ply,
        None,
    )
    .unwrap()
    .unwrap();
    true
}

fn new_game(tx: &Tx, kind: GameKind) -> i64 {
    let probe = AnyGame::new(kind, &Options::new()).unwrap();
    let spec = GameSpec {
        kind: Some(kind),
        players: probe
            .seat_names()
            .iter()
            .map(|s| (s.to_string(), format!("{}@example.org", s.to_lowercase())))
            .collect(),
        ..Default::default()
    };
    let secrets = Secrets {
        tokens: (0..8).map(|i| format!("t{i}")).collect(),
        seed: pbem::dice::Seed::from_bytes([7; 32]),
    };
    gm::create_game(
        &mut gm::Gm::new(tx, pbem::edge::now(), &gm::Quiet),
        &spec,
        &secrets,
    )
    .unwrap()
}

#[test]
fn a_rolled_back_ply_is_not_remembered() {
    for kind in GameKind::ALL {
        let mut store = Store::memory().unwrap();
        let mut rng = Lcg(11);
        store
            .tx(|tx| {
                let id = new_game(tx, *kind);
                for _ in 0..6 {
                    play_one(tx, id, &mut rng);
                }
                let before = gamelog::load(tx, id)?;
                // A mail's savepoint plays a ply and is then rolled back.
                tx.savepoint()?;
                if play_one(tx, id, &mut rng) {
                    let during = gamelog::load(tx, id)?;
                    // (A ply may bring forced plies with it.)
                    assert!(during.moves.len() > before.moves.len(), "{kind}");
                    assert_eq!(during.game.position_tag(), full_replay(&during), "{kind}");
                }
                tx.rollback_to()?;
                let after = gamelog::load(tx, id)?;
                assert_eq!(after.moves.len(), before.moves.len(), "{kind}");
                assert_eq!(
                    after.game.position_tag(),
                    before.game.position_tag(),
                    "{kind}"
                );
                assert_eq!(after.game.position_tag(), full_replay(&after), "{kind}");
                assert_eq!(after.rolls, before.rolls, "{kind}");
                // Then the game goes on another way: still the full replay's position.
                for _ in 0..4 {
                    play_one(tx, id, &mut rng);
                    let g = gamelog::load(tx, id)?;
                    assert_eq!(g.game.position_tag(), full_replay(&g), "{kind}");
                }
                Ok(())
            })
            .unwrap();
    }
}

/// In a store holding at most game 1: makes it if needed, plays a ply, loads it.
fn play_in_game_1(store: &mut Store, rng: &mut Lcg) -> Loaded {
    store
        .tx(|tx| {
            let id = match tx.game(1)? {
                Some(_) => 1,
                None => new_game(tx, GameKind::DiceRink),
            };
            play_one(tx, id, rng);
            gamelog::load(tx, id)
        })
        .unwrap()
}

#[test]
fn two_stores_with_the_same_game_id_do_not_mix() {
    let (mut a, mut b) = (Store::memory().unwrap(), Store::memory().unwrap());
    let (mut ra, mut rb) = (Lcg(1), Lcg(2));
    for _ in 0..5 {
        let ga = play_in_game_1(&mut a, &mut ra);
        let gb = play_in_game_1(&mut b, &mut rb);
        assert_eq!(ga.row.id, gb.row.id);
        assert_eq!(ga.game.position_tag(), full_replay(&ga));
        assert_eq!(gb.game.position_tag(), full_replay(&gb));
    }
}
