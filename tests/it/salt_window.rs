//! The salt window: no die is rolled before every player could salt the dice. A game that
//! opens with a roll (d4 d6 chess, Rinoceronte variant) starts once every player has sent
//! START, when the window closes, or when the GM starts it; a standard game's first
//! declaration waits for its roll the same way.

use crate::common::{only_to, says, World};
use chrono::Duration;
use pbem::dice::{self, ScriptedDice, Seed};
use pbem::games::{GameKind, ToAct};

const WHITE: &str = "white@example.org";
const BLACK: &str = "black@example.org";

fn rinoceronte_game(w: &mut World, window: Option<&str>) -> i64 {
    let mut options = vec![("variant", "rinoceronte")];
    if let Some(win) = window {
        options.push(("salt_window", win));
    }
    w.game(
        GameKind::D4D6,
        &[("WHITE", WHITE), ("BLACK", BLACK)],
        &options,
        None,
        Some(86400),
    )
}

/// Mails `body` from a seat to its secret address, with scripted dice; every scripted value
/// must be rolled.
fn send(w: &mut World, game: i64, seat: usize, body: &str, rolls: &[u32]) {
    let from = if seat == 0 { WHITE } else { BLACK };
    w.send_scripted(from, game, seat, body, rolls);
}

/// The body of the one mail queued to `to` since the last look.
fn reply_body(w: &mut World, to: &str) -> String {
    only_to(&w.new_mail(), to).body.clone()
}

fn plies(w: &mut World, id: i64) -> Vec<String> {
    w.load(id).moves.iter().map(|m| m.text.clone()).collect()
}

#[test]
fn a_rinoceronte_game_opens_with_its_roll_once_every_player_sent_start() {
    let mut w = World::new();
    let id = rinoceronte_game(&mut w, None);
    let g = w.load(id);
    assert_eq!(g.row.status, "active");
    assert_eq!(g.game.to_act(), ToAct::Chance(vec![4, 4]));
    assert!(g.moves.is_empty(), "nothing is rolled at creation");
    let until = w.now + Duration::hours(24);
    assert_eq!(g.row.salts_until, Some(until), "the default window is 24h");
    assert_eq!(g.row.deadline, Some(until), "the timers wake the game then");
    // The welcome says what the game waits for, and shows no facing nobody rolled.
    let welcome = w.new_mail();
    let to_white = only_to(&welcome, WHITE);
    for needle in ["SALT", "START", "2026-03-02 12:00 UTC", "RI?", "ri?"] {
        assert!(
            to_white.body.contains(needle),
            "{needle}: {}",
            to_white.body
        );
    }
    assert!(!to_white.body.contains("RINE"), "{}", to_white.body);

    send(&mut w, id, 0, "SALT white's lucky pebble", &[]);
    let body = reply_body(&mut w, WHITE);
    assert!(
        body.contains("salt recorded (1 of at most 32)")
            && body.contains("Dice salts so far: white's lucky pebble"),
        "{body}"
    );
    // A move before the opening roll is refused, saying why.
    send(&mut w, id, 0, "Ra a2", &[]);
    let body = reply_body(&mut w, WHITE);
    assert!(body.contains("refused: Ra a2"), "{body}");
    assert!(
        says(
            &body,
            "not your turn (the GM rolls d4 d4 once the salts are fixed"
        ),
        "{body}"
    );
    send(&mut w, id, 0, "START", &[]);
    assert!(plies(&mut w, id).is_empty(), "BLACK is not ready yet");
    let body = reply_body(&mut w, WHITE);
    assert!(body.contains("still to come from BLACK"), "{body}");

    // BLACK salts and starts in one mail: the salts are fixed and the GM rolls.
    send(&mut w, id, 1, "SALT 42\nSTART", &[2, 4]);
    assert_eq!(plies(&mut w, id), ["roll 2 4"]);
    let g = w.load(id);
    assert!(g.row.salts_fixed);
    assert_eq!(
        pbem::gm::salts(&g.row).unwrap(),
        ["white's lucky pebble", "42"]
    );
    assert_eq!(g.game.to_act(), ToAct::Seat(0));
    assert_eq!(
        g.row.deadline,
        Some(w.now + Duration::days(1)),
        "WHITE's move clock runs"
    );
    let json = g.game.position_json();
    let facing = |sq: &str| {
        json["pieces"]
            .as_array()
            .unwrap()
            .iter()
            .find(|p| p["square"] == sq)
            .unwrap()["facing"]
            .clone()
    };
    assert_eq!((facing("g1"), facing("b8")), ("SE".into(), "NW".into()));
    let mail = w.new_mail();
    let to_black = only_to(&mail, BLACK);
    assert!(
        to_black
            .body
            .contains("the Rinocerontes face WHITE southeast, BLACK northwest."),
        "{}",
        to_black.body
    );
    let to_white = only_to(&mail, WHITE);
    for needle in [
        "The GM rolled 2 4",
        "Every player is ready: the salts are fixed: white's lucky pebble | 42.",
        "Dice salts (fixed): white's lucky pebble | 42",
        "It is your move",
        "RISE",
    ] {
        assert!(
            to_white.body.contains(needle),
            "{needle}: {}",
            to_white.body
        );
    }

    // The salts are closed now, and START has nothing left to do.
    send(&mut w, id, 0, "SALT too late\nSTART", &[]);
    let body = reply_body(&mut w, WHITE);
    assert!(body.contains("refused: SALT too late"), "{body}");
    assert!(body.contains("the salts are already fixed"), "{body}");
    assert_eq!(pbem::gm::salts(&w.load(id).row).unwrap().len(), 2);
}

#[test]
fn when_the_window_closes_the_gm_rolls_with_the_games_own_dice() {
    let mut w = World::new();
    let id = rinoceronte_game(&mut w, Some("1h"));
    w.new_mail();
    send(&mut w, id, 1, "SALT only black salted", &[]);
    w.now += Duration::minutes(30);
    w.timers();
    assert!(plies(&mut w, id).is_empty(), "the window is still open");
    w.now += Duration::minutes(31);
    // The window closed: a late salt is refused, even before the timers ran.
    send(&mut w, id, 0, "SALT late", &[]);
    let body = reply_body(&mut w, WHITE);
    assert!(body.contains("the salt window closed at"), "{body}");
    assert_eq!(w.timers(), 1);
    let g = w.load(id);
    // The roll is the game's own: roll 0 and 1 of the seed, with the salt fixed at the end.
    let seed = Seed::from_bytes([7u8; 32]);
    let salts = ["only black salted".to_string()];
    let want: Vec<u32> = (0..2)
        .map(|k| dice::roll(&seed, &salts, &id.to_string(), k, 4))
        .collect();
    assert_eq!(plies(&mut w, id), [format!("roll {} {}", want[0], want[1])]);
    assert!(g.row.salts_fixed);
    assert_eq!(g.game.to_act(), ToAct::Seat(0));
    assert_eq!(g.row.deadline, Some(w.now + Duration::days(1)));
    let mail = w.new_mail();
    assert!(only_to(&mail, WHITE).body.contains("It is your move"));
    assert!(only_to(&mail, BLACK).body.contains("Dice salts (fixed)"));
}

#[test]
fn the_gm_can_start_the_game_at_once() {
    let mut w = World::new();
    let id = rinoceronte_game(&mut w, None);
    w.new_mail();
    let mut d = ScriptedDice::new(vec![1, 3]);
    let now = w.now;
    let played = w
        .store
        .tx(|tx| {
            let mut g = pbem::gamelog::load(tx, id)?;
            let mut gm = pbem::gm::Gm::new(tx, now, &pbem::gm::Quiet).with_dice(Some(&mut d));
            pbem::gm::start_now(&mut gm, &mut g)
        })
        .unwrap();
    assert_eq!(played.plies.len(), 1);
    assert_eq!(plies(&mut w, id), ["roll 1 3"]);
    // Starting twice is refused: the salts are fixed.
    let again = w.store.tx(|tx| {
        let mut g = pbem::gamelog::load(tx, id)?;
        pbem::gm::start_now(&mut pbem::gm::Gm::new(tx, now, &pbem::gm::Quiet), &mut g)
    });
    assert!(again.is_err());
}

#[test]
fn a_standard_games_first_declaration_waits_for_the_salts() {
    let mut w = World::new();
    let pos = std::fs::read_to_string("tests/data/d4d6/seed_example.pos").unwrap();
    let id = w.game(
        GameKind::D4D6,
        &[("WHITE", WHITE), ("BLACK", BLACK)],
        &[],
        Some(pos.trim()),
        Some(86400),
    );
    w.new_mail();
    // WHITE declares at once: the declaration stands, the roll waits for BLACK.
    send(&mut w, id, 0, "Fo b6", &[]);
    assert_eq!(plies(&mut w, id), ["Fob6"]);
    let g = w.load(id);
    assert!(g.seats[0].ready, "a move counts as START");
    assert_eq!(g.row.deadline, g.row.salts_until);
    let mail = w.new_mail();
    let report = only_to(&mail, BLACK);
    assert!(
        report.body.contains("WHITE declared Fob6"),
        "{}",
        report.body
    );
    assert!(
        report.body.contains("still to come from BLACK"),
        "{}",
        report.body
    );
    // BLACK may still salt, then starts: the GM rolls and WHITE has a real choice.
    send(&mut w, id, 1, "SALT black's", &[]);
    send(&mut w, id, 1, "READY", &[1]);
    assert_eq!(plies(&mut w, id), ["Fob6", "roll 1"]);
    let mail = w.new_mail();
    let to_white = only_to(&mail, WHITE);
    for outcome in ["b6-a6", "b6xb5", "b6xc6"] {
        assert!(to_white.body.contains(outcome), "{}", to_white.body);
    }
    assert_eq!(w.load(id).game.to_act(), ToAct::Seat(0));
}

#[test]
fn the_window_opens_when_the_last_seat_is_taken_by_mail() {
    let mut w = World::new();
    w.ask_and_confirm(WHITE, "NEW d4d6 variant=rinoceronte salt_window=2h");
    let id = w.load(1).row.id;
    assert_eq!(w.load(id).row.status, "open");
    assert_eq!(w.load(id).row.salts_until, None);
    w.now += Duration::hours(5);
    w.ask_and_confirm(BLACK, &format!("JOIN {id}"));
    let g = w.load(id);
    assert_eq!(g.row.status, "active");
    assert_eq!(g.row.salts_until, Some(w.now + Duration::hours(2)));
    assert!(g.moves.is_empty());
    let welcomes: Vec<_> = w
        .new_mail()
        .into_iter()
        .filter(|m| m.kind == "welcome")
        .collect();
    assert!(only_to(&welcomes, BLACK).body.contains("send START"));
}

#[test]
fn games_without_dice_have_no_salts() {
    let mut w = World::new();
    let id = w.game(
        GameKind::DiceRink,
        &[("A", WHITE), ("B", BLACK)],
        &[],
        None,
        None,
    );
    let welcome = w.new_mail();
    assert!(!only_to(&welcome, WHITE).body.contains("SALT"));
    let to = w.seat_address(id, 0);
    let raw = w.mail(WHITE, &to, "salt", "SALT pebble\nSTART");
    w.deliver(&raw).unwrap();
    let body = reply_body(&mut w, WHITE);
    assert!(
        body.contains("rolls no dice: there is nothing to salt"),
        "{body}"
    );
    assert!(
        body.contains("rolls no dice: there are no salts to wait for"),
        "{body}"
    );
}
