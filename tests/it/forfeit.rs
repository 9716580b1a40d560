//! A forfeit on time (`timeout=forfeit`) told as what it was, "A ran out of time", never as a resignation: in the players' mails, the record they get, the GM's notice, and a game of three that goes on.

use chrono::Duration;
use pbem::games::GameKind;
use pbem::records::Record;

use crate::common::{self, only_to, says, World};

const ALICE: &str = "alice@example.org";
const BOB: &str = "bob@example.org";
const DAY: i64 = 86400;

/// Issue 27, point 6: Alice (A) lets her day run out in a Dice Rink game with
/// `timeout=forfeit`; both players' game-over mails and the record in them say she ran out
/// of time, as does the GM's notice; the record replays to the same ending.
#[test]
fn a_player_out_of_time_is_told_and_recorded_as_out_of_time() {
    let mut w = World::new();
    let id = w.game(
        GameKind::DiceRink,
        &[("A", ALICE), ("B", BOB)],
        &[("timeout", "forfeit"), ("grace", "0")],
        None,
        Some(DAY),
    );
    w.new_mail();
    w.now += Duration::days(1) + Duration::minutes(1);
    w.timers();
    let mail = w.new_mail();
    for who in [ALICE, BOB] {
        let over = only_to(&mail, who);
        assert_eq!(over.kind, "game_over", "{who}");
        assert!(
            says(&over.body, "A ran out of time; B wins"),
            "{}",
            over.body
        );
        assert!(
            !over.body.to_lowercase().contains("resign"),
            "{who}: {}",
            over.body
        );
        assert!(over.body.contains("[Result \"B\"]"), "{}", over.body);
        assert!(over.body.contains("GM>A:timeout"), "{}", over.body);
    }
    let notice = only_to(&mail, common::ADMIN);
    assert!(
        says(
            &notice.body,
            "A (alice@example.org) did not move by the deadline (timeout=forfeit)"
        ),
        "{}",
        notice.body
    );
    assert!(
        says(&notice.body, "A ran out of time; B wins"),
        "{}",
        notice.body
    );

    let g = w.load(id);
    assert_eq!(g.row.status, "finished");
    assert_eq!(
        g.game.outcome_text().as_deref(),
        Some("B wins: A ran out of time")
    );
    let record = pbem::gm::export(&g).unwrap();
    let replayed = Record::parse(&record).unwrap().replay().unwrap();
    assert_eq!(replayed.game.outcome(), g.game.outcome());
}

/// With three players the one out of time leaves and the others play on, told so.
#[test]
fn in_a_game_of_three_the_others_play_on() {
    let mut w = World::new();
    let players = [
        ("BLUE", "blue@example.org"),
        ("RED", "red@example.org"),
        ("GREEN", "green@example.org"),
    ];
    let id = w.game(
        GameKind::Siberian,
        &players,
        &[
            ("players", "3"),
            ("salt_window", "0"),
            ("timeout", "forfeit"),
        ],
        Some("BLUE:c3=2 RED:e2=4 GREEN:a1=3 move=BLUE"),
        Some(DAY),
    );
    w.new_mail();
    w.now += Duration::days(1) + Duration::minutes(1);
    w.timers();
    let mail = w.new_mail();
    for (_, who) in &players[1..] {
        let report = only_to(&mail, who);
        assert!(
            says(
                &report.body,
                "BLUE ran out of time and leaves the game; RED, GREEN play on"
            ),
            "{who}: {}",
            report.body
        );
        assert!(!report.body.contains("resign"), "{}", report.body);
    }
    let g = w.load(id);
    assert_eq!(g.row.status, "active");
    assert_eq!(g.game.playing(), vec![1, 2]);
}
