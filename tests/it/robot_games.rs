//! Every game played by mail against the robot from start to end (every variant the robot plays): the player's mails to her seat, the robots' moves at their pass, until the game is over and she has its last report.

use crate::common::{says, World};
use crate::lcg::Lcg;
use pbem::compose::Ctx;
use pbem::games::{AnyGame, GameKind, Options, ToAct};

const ALICE: &str = "alice@example.org";

/// A game's options, as (name, value) pairs.
type Opts = &'static [(&'static str, &'static str)];

/// Each game and variant, with the robot's level in the other seats (the easy robot: the
/// strongest plays Dice Rink by mail in `robots.rs`; here the mail path is what is tested).
const CASES: &[(GameKind, Opts, &str)] = &[
    (GameKind::DiceRink, &[("setup", "fixed")], "robot:easy"),
    (GameKind::D4D6, &[], "robot:easy"),
    (GameKind::D4D6, &[("variant", "rinoceronte")], "robot:easy"),
    (GameKind::Dicess, &[], "robot:easy"),
    (GameKind::Siberian, &[], "robot:easy"),
    (GameKind::Siberian, &[("variant", "primes")], "robot:easy"),
    (
        GameKind::Siberian,
        &[("variant", "strategic")],
        "robot:easy",
    ),
    (
        GameKind::Siberian,
        &[("variant", "grossmeister")],
        "robot:easy",
    ),
    (GameKind::Siberian, &[("variant", "purity")], "robot:easy"),
    (GameKind::Siberian, &[("players", "3")], "robot:easy"),
    (GameKind::DipTacToe, &[], "robot:easy"),
];

/// The most steps (a mail of hers, or a robots' pass, or a wait) a game may take.
const STEPS: usize = 3_000;

#[test]
fn every_game_is_played_by_mail_against_the_robot_to_its_end() {
    for (i, &(kind, options, robot)) in CASES.iter().enumerate() {
        play_to_the_end(kind, options, robot, i as u64 + 1);
    }
}

/// Alice in the first seat, the robot in every other; she plays legal plies (or orders) by
/// mail, picked by a seeded generator, until the game is over.
fn play_to_the_end(kind: GameKind, options: Opts, robot: &str, seed: u64) {
    let mut w = World::new();
    let opts: Options = options
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
    let names = AnyGame::new(kind, &opts).unwrap().seat_names();
    let players: Vec<(&str, &str)> = names
        .iter()
        .enumerate()
        .map(|(s, n)| (*n, if s == 0 { ALICE } else { robot }))
        .collect();
    let id = w.game(kind, &players, options, None, Some(3600));
    let case = format!("{} {options:?}", kind.name());
    let mut lcg = Lcg(seed);
    let mut mails_to_her = w.new_mail().len();
    for _ in 0..STEPS {
        let g = w.load(id);
        if g.row.status == "finished" {
            break;
        }
        let her_turn = match g.game.to_act() {
            ToAct::Seat(0) => true,
            ToAct::Orders(seats) => seats.contains(&0) && !g.ordered.contains(&0),
            _ => false,
        };
        if her_turn {
            let legal = g.game.legal_plies();
            let mine: Vec<String> = match g.game.to_act() {
                // A turn of orders lists every seat's as `SEAT: order`.
                ToAct::Orders(_) => legal
                    .iter()
                    .filter_map(|p| p.strip_prefix(&format!("{}:", names[0])))
                    .map(|p| p.trim().to_string())
                    .collect(),
                _ => legal,
            };
            assert!(!mine.is_empty(), "{case}: nothing to play");
            let ply = mine[lcg.pick(mine.len())].clone();
            let to = w.seat_address(id, 0);
            let raw = w.mail(ALICE, &to, &format!("Re: [pbem #{id}]"), &ply);
            assert_eq!(w.deliver(&raw).unwrap().status, "done", "{case}: {ply}");
        } else {
            let ctx = Ctx::new(&w.cfg, &w.templates, w.now);
            let made = pbem::timers::robots(&mut w.store, &ctx).unwrap();
            if made == 0 {
                // Orders all in: the turn is adjudicated after the server's short wait.
                w.now += chrono::Duration::minutes(10);
                w.timers();
            }
        }
        let mail = w.new_mail();
        assert!(
            mail.iter()
                .all(|m| m.to_addr == ALICE || m.to_addr == crate::common::ADMIN),
            "{case}: the robot gets no mail: {mail:#?}"
        );
        mails_to_her += mail.iter().filter(|m| m.to_addr == ALICE).count();
    }
    let g = w.load(id);
    assert_eq!(
        g.row.status, "finished",
        "{case}: not over in {STEPS} steps"
    );
    assert!(g.moves.iter().any(|m| m.robot.is_some()), "{case}");
    assert!(mails_to_her >= 2, "{case}");
    // Her last mail is the game's end.
    let last = w
        .store
        .tx(|tx| tx.outbox(None, i64::MAX))
        .unwrap()
        .into_iter()
        .filter(|m| m.to_addr == ALICE)
        .max_by_key(|m| m.id)
        .unwrap();
    assert!(
        says(&last.body, "game is over")
            || says(&last.body, "Game over")
            || says(&last.body, "wins"),
        "{case}: {}",
        last.body
    );
}
