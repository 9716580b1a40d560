//! The daily digest: a player who sent DIGEST ON gets the news of a day as one mail listing
//! every game where it is their turn; a deadline within the day still goes at once; DIGEST
//! OFF brings back a mail per move.

use chrono::Duration;

use crate::common::{only_to, says, World};
use pbem::games::GameKind;

const A: &str = "alice@example.org";
const B: &str = "bob@example.org";
const C: &str = "carol@example.org";

/// A Dice Rink game between `a` and `b` with a week per move; its welcomes are read.
fn rink(w: &mut World, a: &str, b: &str) -> i64 {
    let id = w.game(
        GameKind::DiceRink,
        &[("A", a), ("B", b)],
        &[],
        None,
        Some(7 * 86_400),
    );
    w.new_mail();
    id
}

fn play(w: &mut World, from: &str, game: i64, seat: usize, line: &str) {
    let to = w.seat_address(game, seat);
    let raw = w.mail(from, &to, "Re: move", line);
    assert_eq!(w.deliver(&raw).unwrap().status, "done", "{line}");
}

/// A legal move for the seat to move (the first the game lists).
fn any_move(w: &mut World, game: i64) -> String {
    w.load(game).game.legal_plies().into_iter().next().unwrap()
}

#[test]
fn news_of_a_day_comes_as_one_mail_listing_every_game_waiting() {
    let mut w = World::new();
    let g1 = rink(&mut w, A, B);
    let g2 = rink(&mut w, A, C);
    // Bob asks for the digest by mail (from his seat's secret address).
    play(&mut w, B, g1, 1, "DIGEST ON");
    let reply = only_to(&w.new_mail(), B).body.clone();
    assert!(says(&reply, "one mail a day"), "{reply}");
    // Alice moves in game 1: she gets her reply, Bob's report waits for his digest.
    let m = any_move(&mut w, g1);
    play(&mut w, A, g1, 0, &m);
    let mail = w.new_mail();
    assert!(mail.iter().all(|m| m.to_addr != B), "{mail:#?}");
    // The next timers' pass sends Bob's first digest at once (none went in the last day).
    w.timers();
    let mail = w.new_mail();
    let digest = only_to(&mail, B);
    assert_eq!(digest.kind, "digest");
    assert!(
        digest.body.contains(&format!("Game #{g1}")),
        "{}",
        digest.body
    );
    assert!(
        digest.body.contains(&format!("A played {m}")),
        "{}",
        digest.body
    );
    // One game waits: replying to the digest plays there; the secret is never in the body.
    let token = w.load(g1).seat(1).unwrap().token.clone().unwrap();
    assert_eq!(digest.reply_to, Some(w.cfg.seat_address(&token)));
    assert!(!digest.body.contains(&token), "{}", digest.body);
    assert!(
        !digest.body.contains(&format!("Game #{g2}")),
        "not Bob's game"
    );
    // Two more moves within the day: nothing to Bob until a day after the last digest.
    w.now += Duration::minutes(30);
    let m = any_move(&mut w, g1);
    play(&mut w, B, g1, 1, &m);
    w.new_mail();
    let m = any_move(&mut w, g1);
    play(&mut w, A, g1, 0, &m);
    w.now += Duration::hours(3);
    w.timers();
    assert!(w.new_mail().iter().all(|m| m.to_addr != B));
    w.now += Duration::hours(21);
    w.timers();
    let mail = w.new_mail();
    let digest = only_to(&mail, B);
    assert!(
        digest.body.contains(&format!("A played {m}")),
        "{}",
        digest.body
    );
}

#[test]
fn an_urgent_deadline_goes_at_once_and_digest_off_restores_each_mail() {
    let mut w = World::new();
    let id = w.game(
        GameKind::DiceRink,
        &[("A", A), ("B", B)],
        &[],
        None,
        Some(12 * 3600),
    );
    w.new_mail();
    play(&mut w, B, id, 1, "DIGEST ON");
    w.new_mail();
    let m = any_move(&mut w, id);
    play(&mut w, A, id, 0, &m);
    // Twelve hours to move: the report is not held.
    let mail = w.new_mail();
    assert_eq!(only_to(&mail, B).kind, "turn_report");
    play(&mut w, B, id, 1, "DIGEST OFF");
    assert!(only_to(&w.new_mail(), B)
        .body
        .contains("a mail for each move"));
}

#[test]
fn news_that_is_not_a_move_goes_at_once_and_digest_off_brings_each_move_again() {
    let mut w = World::new();
    let id = rink(&mut w, A, B);
    play(&mut w, B, id, 1, "DIGEST ON");
    w.new_mail();
    // A draw offer is news Bob must answer: it does not wait for the digest.
    play(&mut w, A, id, 0, "DRAW OFFER");
    let mail = w.new_mail();
    assert!(
        only_to(&mail, B).body.contains("offers a draw"),
        "{mail:#?}"
    );
    play(&mut w, B, id, 1, "DIGEST OFF");
    w.new_mail();
    let m = any_move(&mut w, id);
    play(&mut w, A, id, 0, &m);
    let mail = w.new_mail();
    assert_eq!(
        only_to(&mail, B).kind,
        "turn_report",
        "each move mailed again"
    );
}
