//! Robots at the table (issue 28): robot seats by the GM and by mail, a seat handed to the robot and back, the robot standing in at a deadline (`timeout=robot`), and the robots' pass outside any mail's transaction.

use crate::common::{only_to, says, World};
use crate::lcg::Lcg;
use pbem::compose::Ctx;
use pbem::games::{GameKind, ToAct};

const ALICE: &str = "alice@example.org";
const BOB: &str = "bob@example.org";

/// The robots' pass at the world's clock, as `serve` and the ingest worker run it.
fn robots(w: &mut World) -> usize {
    let ctx = Ctx::new(&w.cfg, &w.templates, w.now);
    pbem::timers::robots(&mut w.store, &ctx).unwrap()
}

/// Alice's move, by mail to her seat's secret address: a legal ply picked by `lcg`, a move
/// north (towards her goal, Dice Rink's rank 4) when she has one.
fn alice_moves(w: &mut World, id: i64, seat: usize, lcg: &mut Lcg) -> String {
    let g = w.load(id);
    let legal = g.game.legal_plies();
    let north: Vec<&String> = legal.iter().filter(|p| p.contains('N')).collect();
    let ply = match north.is_empty() {
        true => legal[lcg.pick(legal.len())].clone(),
        false => north[lcg.pick(north.len())].clone(),
    };
    let to = w.seat_address(id, seat);
    let raw = w.mail(ALICE, &to, &format!("Re: [pbem #{id}] Dice Rink"), &ply);
    assert_eq!(w.deliver(&raw).unwrap().status, "done", "{ply}");
    ply
}

#[test]
fn a_player_plays_dice_rink_against_the_robot_by_mail_from_start_to_end() {
    let mut w = World::new();
    let id = w.game(
        GameKind::DiceRink,
        &[("A", ALICE), ("B", "robot")],
        &[],
        None,
        None,
    );
    let welcome = w.new_mail();
    assert_eq!(welcome.len(), 1, "the robot gets no mail: {welcome:#?}");
    let players = &only_to(&welcome, ALICE).body;
    assert!(says(players, "B: robot (strong)"), "{players}");
    let mut robot_moves = 0;
    let mut lcg = Lcg(1);
    for _ in 0..1000 {
        let g = w.load(id);
        if g.row.status == "finished" {
            break;
        }
        match g.game.to_act() {
            ToAct::Seat(0) => {
                alice_moves(&mut w, id, 0, &mut lcg);
                let mail = w.new_mail();
                // Her reply, and nothing else: the robot has not moved yet.
                assert_eq!(mail.len(), 1, "{mail:#?}");
            }
            ToAct::Seat(1) => {
                let before = g.moves.len();
                assert!(robots(&mut w) >= 1);
                let g = w.load(id);
                assert!(g.moves.len() > before);
                assert_eq!(g.moves[before].robot.as_deref(), Some("robot"));
                let mail = w.new_mail();
                let report = only_to(&mail, ALICE);
                // It reads like any opponent's move: B's ply, the board, nothing of robots.
                assert!(says(&report.body, &g.moves[before].text), "{}", report.body);
                robot_moves += 1;
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    let g = w.load(id);
    assert_eq!(g.row.status, "finished", "the game ended");
    assert!(robot_moves > 0);
    // The record marks the robot's plies and replays.
    let export = pbem::gm::export(&g).unwrap();
    assert!(export.contains("{robot}"), "{export}");
    assert!(export.contains("[B \"robot (strong)\"]"), "{export}");
    let again = pbem::records::Record::parse(&export).unwrap().replay().unwrap();
    assert_eq!(again.game.position_tag(), g.game.position_tag());
}
