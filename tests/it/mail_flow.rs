//! The mail path end to end on a store (no network): clients' mail, robots, duplicates, spoofing, guards, timers.

use crate::common;

use crate::common::{only_to, says, World};
use chrono::Duration;
use pbem::games::{Actor, AnyGame, GameKind, Options};

const ALICE: &str = "alice@example.org";
const BOB: &str = "bob@example.org";
const BLUE: &str = "blue@example.org";
const RED: &str = "red@example.org";
const GREEN: &str = "green@example.org";

/// A Dice Rink position, A to move, where A's die on b1 shows 5 and `5W6` is legal.
fn position_for_5w6() -> String {
    for front in 1..=6 {
        let tag = format!("A:b1=5/{front},d2=3/1 B:b4=2/3,c4=6/2 move=A forced=-");
        if let Ok(mut g) = AnyGame::from_position(GameKind::DiceRink, &Options::new(), &tag) {
            if g.play(Actor::Seat(0), "5W6").is_ok() {
                return tag;
            }
        }
    }
    panic!("no position found where 5W6 is legal");
}

/// A Dice Rink game between Alice and Bob with a move time limit (welcome mails left queued).
fn timed_rink(w: &mut World, options: &[(&str, &str)], move_secs: Option<i64>) -> i64 {
    w.game(
        GameKind::DiceRink,
        &[("A", ALICE), ("B", BOB)],
        options,
        None,
        move_secs,
    )
}

fn rink(w: &mut World, a: &str, position: Option<&str>) -> i64 {
    let id = w.game(
        GameKind::DiceRink,
        &[("A", a), ("B", BOB)],
        &[],
        position,
        None,
    );
    w.new_mail();
    id
}

#[test]
fn welcome_mails_carry_each_seats_secret_reply_address() {
    let mut w = World::new();
    let id = w.game(
        GameKind::DiceRink,
        &[("A", ALICE), ("B", BOB)],
        &[],
        None,
        None,
    );
    let mail = w.new_mail();
    let a = only_to(&mail, ALICE);
    let b = only_to(&mail, BOB);
    assert_eq!(a.kind, "welcome");
    assert_eq!(a.reply_to.as_deref(), Some(w.seat_address(id, 0).as_str()));
    assert_eq!(b.reply_to.as_deref(), Some(w.seat_address(id, 1).as_str()));
    assert_ne!(a.reply_to, b.reply_to);
    assert!(a.body.contains("You play A"), "{}", a.body);
    assert!(a.subject.contains(&format!("[pbem #{id}]")));
    // The token never appears in a body.
    assert!(!a.body.contains("tok0g"), "{}", a.body);
}

/// Each real-client fixture is a reply to a turn report; its lines reach the game.
#[test]
fn client_mail_reaches_the_game() {
    let position = position_for_5w6();
    // (fixture, whether its move is played, a phrase the reply must contain)
    let cases: &[(&str, bool, &str)] = &[
        (
            "gmail-web.eml",
            false,
            "you wrote #12, but the game is at #1",
        ),
        ("outlook-exchange.eml", false, "you may rotate only when"),
        ("apple-iphone.eml", true, "ok: 5W6"),
        (
            "apple-mail.eml",
            false,
            "you wrote #12, but the game is at #1",
        ),
        ("thunderbird-flowed.eml", false, "one move per mail"),
        ("apple-mail-flowed-delsp.eml", true, "ok: b1 5W6"),
        (
            "yahoo-html-only.eml",
            false,
            "you wrote #12, but the game is at #1",
        ),
        (
            "outlook-web-html-only.eml",
            false,
            "you wrote #12, but the game is at #1",
        ),
        ("latin1-qp.eml", true, "ok: 5W6"),
        ("gmail-android-base64.eml", false, "ignored: Mein Zug"),
        (
            "outlook-original-message.eml",
            false,
            "you wrote #12, but the game is at #1",
        ),
        ("samsung-mobile.eml", false, "A to move"),
    ];
    for (file, played, phrase) in cases {
        let mut w = World::new();
        let raw = std::fs::read(format!("tests/data/mail/clients/{file}")).unwrap();
        let from = pbem::mail::inbound::parse(&raw).from.unwrap();
        let id = rink(&mut w, &from, Some(&position));
        let to = w.seat_address(id, 0);
        // The fixtures were written to a fixed reply address; give them this game's.
        let raw = String::from_utf8_lossy(&raw)
            .replace("gm+k3x9q2@pbem.example", &to)
            .into_bytes();
        let h = w.deliver(&raw).expect("a new message");
        assert_eq!(h.status, "done", "{file}: {h:?}");
        let g = w.load(id);
        assert_eq!(g.moves.len(), usize::from(*played), "{file}: {:?}", g.moves);
        let mail = w.new_mail();
        let reply = only_to(&mail, &from);
        assert!(reply.in_reply_to.is_some(), "{file}");
        assert!(reply.body.contains(phrase), "{file}: {}", reply.body);
        if *played {
            assert_eq!(g.moves[0].text, "5W6", "{file}");
            assert_eq!(reply.kind, "move_accepted", "{file}");
            only_to(&mail, BOB);
        }
    }
}

#[test]
fn bounces_and_auto_replies_get_no_answer() {
    for dir in ["bounces", "autoreplies"] {
        for entry in std::fs::read_dir(format!("tests/data/mail/corpus/{dir}")).unwrap() {
            let path = entry.unwrap().path();
            let mut w = World::new();
            rink(&mut w, ALICE, None);
            let raw = std::fs::read(&path).unwrap();
            let h = w.deliver(&raw).expect("stored");
            assert_eq!(h.status, "refused", "{}: {h:?}", path.display());
            assert!(w.new_mail().is_empty(), "{} was answered", path.display());
        }
    }
}

#[test]
fn malformed_mail_never_breaks_the_path() {
    for entry in std::fs::read_dir("tests/data/mail/corpus/malformed").unwrap() {
        let path = entry.unwrap().path();
        let mut w = World::new();
        rink(&mut w, ALICE, None);
        let h = w.deliver(&std::fs::read(&path).unwrap()).expect("stored");
        assert!(
            matches!(h.status.as_str(), "done" | "refused"),
            "{}",
            path.display()
        );
        // Strangers get no answer.
        assert!(
            w.new_mail().iter().all(|m| m.to_addr == ALICE
                || m.to_addr == BOB
                || m.kind == "move_accepted"
                || m.kind == "order_refused"),
            "{}",
            path.display()
        );
    }
}

#[test]
fn a_duplicate_delivery_changes_nothing() {
    let mut w = World::new();
    let id = rink(&mut w, ALICE, None);
    let to = w.seat_address(id, 0);
    let raw = w.mail(ALICE, &to, "Re: move", "b1 5/4");
    assert_eq!(w.deliver(&raw).unwrap().status, "done");
    let after_first = w.load(id).moves.len();
    let mail_first = w.new_mail().len();
    assert_eq!(after_first, 1);
    assert!(mail_first >= 2);
    assert!(
        w.deliver(&raw).is_none(),
        "the second delivery is a duplicate"
    );
    assert_eq!(w.load(id).moves.len(), 1);
    assert!(w.new_mail().is_empty());
}

#[test]
fn a_spoofed_sender_is_refused_and_the_real_player_told() {
    let mut w = World::new();
    let id = rink(&mut w, ALICE, None);
    let to = w.seat_address(id, 0);
    let raw = w.mail("mallory@evil.example", &to, "Re: move", "b1 5/4");
    let h = w.deliver(&raw).unwrap();
    assert_eq!(h.status, "refused");
    assert!(h.note.contains("spoofed"), "{h:?}");
    assert!(w.load(id).moves.is_empty());
    let mail = w.new_mail();
    assert_eq!(mail.len(), 1, "only the real player is told");
    let notice = only_to(&mail, ALICE);
    assert_eq!(notice.kind, "auth_refusal");
    assert!(notice.body.contains("mallory@evil.example"));
    assert!(!notice.body.contains("tok0g"), "the token is never echoed");
}

#[test]
fn moves_without_the_secret_address_are_not_played_and_strangers_not_answered() {
    let mut w = World::new();
    let id = rink(&mut w, ALICE, None);
    // A registered player writing to the plain GM address: told how, nothing played.
    let raw = w.mail(ALICE, "gm@pbem.example", "move", "b1 5/4");
    assert_eq!(w.deliver(&raw).unwrap().status, "done");
    assert!(w.load(id).moves.is_empty());
    let mail = w.new_mail();
    let r = only_to(&mail, ALICE);
    assert!(r.body.contains("secret reply address"), "{}", r.body);
    // A stranger: recorded, not answered.
    let raw = w.mail("stranger@else.example", "gm@pbem.example", "move", "b1 5/4");
    assert_eq!(w.deliver(&raw).unwrap().status, "refused");
    assert!(w.new_mail().is_empty());
}

#[test]
fn a_password_line_authenticates_and_a_wrong_one_is_refused() {
    let mut w = World::new();
    let id = rink(&mut w, ALICE, None);
    w.store
        .tx(|tx| {
            tx.set_password_hash(
                ALICE,
                Some(&pbem::password::hash("s3cret!", &[1; 16]).unwrap()),
            )
        })
        .unwrap();
    let raw = w.mail(
        ALICE,
        "gm@pbem.example",
        &format!("Re: [pbem #{id}] Dice Rink"),
        "PASSWORD wrong\nb1 5/4",
    );
    assert_eq!(w.deliver(&raw).unwrap().status, "refused");
    assert!(w.load(id).moves.is_empty());
    let mail = w.new_mail();
    assert_eq!(only_to(&mail, ALICE).kind, "auth_refusal");
    let raw = w.mail(
        ALICE,
        "gm@pbem.example",
        &format!("Re: [pbem #{id}] Dice Rink"),
        "PASSWORD s3cret!\nb1 5/4",
    );
    assert_eq!(w.deliver(&raw).unwrap().status, "done");
    assert_eq!(w.load(id).moves.len(), 1);
    let mail = w.new_mail();
    assert!(
        !only_to(&mail, ALICE).body.contains("s3cret"),
        "passwords are never echoed"
    );
}

#[test]
fn a_stale_guard_is_refused_and_a_current_one_plays() {
    let mut w = World::new();
    let id = rink(&mut w, ALICE, None);
    let to = w.seat_address(id, 0);
    let raw = w.mail(ALICE, &to, "Re: move", "#3 b1 5/4");
    w.deliver(&raw).unwrap();
    assert!(w.load(id).moves.is_empty());
    let mail = w.new_mail();
    assert!(only_to(&mail, ALICE)
        .body
        .contains("you wrote #3, but the game is at #1"));
    let raw = w.mail(ALICE, &to, "Re: move", "#1\nb1 5/4");
    w.deliver(&raw).unwrap();
    assert_eq!(w.load(id).moves.len(), 1);
}

#[test]
fn two_moves_in_one_mail_play_the_first_and_refuse_the_second() {
    let mut w = World::new();
    let id = rink(&mut w, ALICE, None);
    let to = w.seat_address(id, 0);
    let raw = w.mail(ALICE, &to, "Re: move", "b1 5/4\nd1 3/6");
    w.deliver(&raw).unwrap();
    let g = w.load(id);
    assert_eq!(g.moves.len(), 1);
    assert_eq!(g.moves[0].text, "b1 5/4");
    let mail = w.new_mail();
    let r = only_to(&mail, ALICE);
    assert!(r.body.contains("ok: b1 5/4"), "{}", r.body);
    assert!(r.body.contains("one move per mail"), "{}", r.body);
    // The opponent is told the move, with the board.
    let b = only_to(&mail, BOB);
    assert_eq!(b.kind, "turn_report");
    assert!(b.body.contains("A played b1 5/4"), "{}", b.body);
    assert!(b.body.contains("It is your move"), "{}", b.body);
}

#[test]
fn an_illegal_move_is_explained_and_changes_nothing() {
    let mut w = World::new();
    let id = rink(&mut w, ALICE, None);
    let to = w.seat_address(id, 1);
    let raw = w.mail(BOB, &to, "Re: move", "b4 5/4");
    w.deliver(&raw).unwrap();
    assert!(w.load(id).moves.is_empty());
    let mail = w.new_mail();
    let r = only_to(&mail, BOB);
    assert_eq!(r.kind, "order_refused");
    assert!(r.body.contains("not your turn"), "{}", r.body);
}

#[test]
fn commands_board_history_moves_help_list() {
    let mut w = World::new();
    let id = rink(&mut w, ALICE, None);
    let to = w.seat_address(id, 0);
    let raw = w.mail(
        ALICE,
        &to,
        "Re: x",
        "b1 5/4\nHISTORY\nSTATUS\nHELP dicerink\nLIST",
    );
    w.deliver(&raw).unwrap();
    let mail = w.new_mail();
    let r = only_to(&mail, ALICE);
    assert!(r.body.contains("b1 5/4"), "{}", r.body);
    assert!(
        r.body.contains("Deadline") || r.body.contains("B to move"),
        "{}",
        r.body
    );
    assert!(r.body.contains("DICE RINK: A PLAYER'S GUIDE"), "{}", r.body);
    assert!(r.body.contains(&format!("#{id} Dice Rink")), "{}", r.body);
    let to_b = w.seat_address(id, 1);
    let raw = w.mail(BOB, &to_b, "Re: x", "MOVES");
    w.deliver(&raw).unwrap();
    let mail = w.new_mail();
    assert!(only_to(&mail, BOB).body.contains("Your legal moves"));
}

#[test]
fn players_start_and_join_games_by_mail() {
    let mut w = World::new();
    assert_eq!(w.ask_and_confirm(ALICE, "NEW dicerink").status, "done");
    let mail = w.new_mail();
    let r = only_to(&mail, ALICE);
    assert!(r.body.contains("game #1 created"), "{}", r.body);
    assert_eq!(w.ask_and_confirm(BOB, "JOIN 1").status, "done");
    let mail = w.new_mail();
    let welcome: Vec<_> = mail.iter().filter(|m| m.kind == "welcome").collect();
    assert_eq!(welcome.len(), 2, "{mail:#?}");
    assert_eq!(w.load(1).row.status, "active");
    let raw = w.mail("carol@example.org", "gm@pbem.example", "join", "JOIN 1");
    w.deliver(&raw).unwrap();
    assert!(only_to(&w.new_mail(), "carol@example.org")
        .body
        .contains("no open seat"));
}

#[test]
fn resignation_and_agreed_draw_end_the_game_with_the_record() {
    let mut w = World::new();
    let id = rink(&mut w, ALICE, None);
    let to = w.seat_address(id, 1);
    let raw = w.mail(BOB, &to, "Re: x", "RESIGN");
    w.deliver(&raw).unwrap();
    let g = w.load(id);
    assert_eq!(g.row.status, "finished");
    assert!(g.row.seed_revealed);
    let mail = w.new_mail();
    let over = only_to(&mail, ALICE);
    assert_eq!(over.kind, "game_over");
    // The one who resigned gets one mail too: the game-over, not also an "ok".
    assert_eq!(only_to(&mail, BOB).kind, "game_over");
    assert!(over.body.contains("A wins"), "{}", over.body);
    assert!(over.body.contains("[Result \"A\"]"), "{}", over.body);
    // Dice Rink rolls no dice: no seed is revealed, no dice tag recorded.
    assert!(!over.body.contains("[Dice"), "{}", over.body);
    assert!(!over.body.contains("dice seed"), "{}", over.body);

    let id = rink(&mut w, ALICE, None);
    let (ta, tb) = (w.seat_address(id, 0), w.seat_address(id, 1));
    let raw = w.mail(ALICE, &ta, "Re: x", "DRAW OFFER");
    w.deliver(&raw).unwrap();
    assert_eq!(only_to(&w.new_mail(), BOB).kind, "news");
    let raw = w.mail(BOB, &tb, "Re: x", "DRAW ACCEPT");
    w.deliver(&raw).unwrap();
    let g = w.load(id);
    assert_eq!(g.row.status, "finished");
    assert!(g.game.outcome_text().unwrap().contains("draw"));
}

#[test]
fn reminders_and_timeouts_on_a_fixed_clock() {
    let mut w = World::new();
    let id = timed_rink(&mut w, &[], Some(3 * 86400));
    w.new_mail();
    w.now += Duration::hours(47);
    assert_eq!(w.timers(), 0, "nothing is due 25 hours before the deadline");
    w.now += Duration::hours(2);
    assert_eq!(w.timers(), 1);
    let mail = w.new_mail();
    assert_eq!(only_to(&mail, ALICE).kind, "reminder");
    assert_eq!(w.timers(), 0, "one reminder only");
    w.now += Duration::hours(24);
    assert_eq!(w.timers(), 1);
    let mail = w.new_mail();
    let notice = only_to(&mail, common::ADMIN);
    assert!(
        notice.body.contains("did not move by the deadline"),
        "{}",
        notice.body
    );
    assert_eq!(w.load(id).row.status, "active");

    // With the forfeit option the player loses instead.
    let id = timed_rink(&mut w, &[("timeout", "forfeit")], Some(3600));
    w.new_mail();
    w.now += Duration::hours(2);
    w.timers();
    let g = w.load(id);
    assert_eq!(g.row.status, "finished");
    assert!(g.game.outcome_text().unwrap().starts_with("B wins"));
}

#[test]
fn vacation_pauses_the_clock() {
    let mut w = World::new();
    let id = timed_rink(&mut w, &[], Some(86400));
    w.new_mail();
    let to = w.seat_address(id, 0);
    let raw = w.mail(ALICE, &to, "Re: x", "VACATION 5");
    w.deliver(&raw).unwrap();
    w.new_mail();
    w.now += Duration::days(2);
    w.timers();
    let g = w.load(id);
    let deadline = g.row.deadline.expect("the clock runs after the vacation");
    assert_eq!(deadline, w.now - Duration::days(2) + Duration::days(6));
    assert!(w.new_mail().iter().all(|m| m.kind != "gm_notice"));
}

/// Two players play the seed's Illustrative Game 2 entirely by mail.
#[test]
fn a_whole_game_by_mail() {
    let record = std::fs::read_to_string("tests/data/dicerink/game2.pgn").unwrap();
    let plies = pbem::records::Record::parse(&record)
        .unwrap()
        .replay()
        .unwrap()
        .log;
    let mut w = World::new();
    let id = rink(&mut w, ALICE, None);
    for (actor, ply) in &plies {
        let Actor::Seat(seat) = actor else {
            unreachable!()
        };
        let (from, to) = (
            if *seat == 0 { ALICE } else { BOB },
            w.seat_address(id, *seat),
        );
        let raw = w.mail(
            from,
            &to,
            &format!("Re: [pbem #{id}] Dice Rink"),
            &format!("{ply}\n\nOn Sunday the GM wrote:\n> old board\n> 5W6"),
        );
        assert_eq!(w.deliver(&raw).unwrap().status, "done", "{ply}");
        w.new_mail();
    }
    let g = w.load(id);
    assert_eq!(g.moves.len(), plies.len());
    assert_eq!(g.row.status, "finished");
    assert_eq!(
        g.game.outcome_text().unwrap(),
        "B wins: both dice on rank 1"
    );
    // The export replays to the same game.
    let export = pbem::gm::export(&g).unwrap();
    let again = pbem::records::Record::parse(&export)
        .unwrap()
        .replay()
        .unwrap();
    assert_eq!(again.game.position_tag(), g.game.position_tag());
}

/// The mails of the outbox (with their HTML parts made, as the sender does first) that are
/// due at `at`.
fn due_at(w: &mut World, at: chrono::DateTime<chrono::Utc>) -> Vec<i64> {
    pbem::compose::illustrate::run(&mut w.store, &w.cfg).unwrap();
    let due = w.store.tx(|tx| tx.outbox_due(at, 500)).unwrap();
    due.iter().map(|d| d.id).collect()
}

/// The hourly limit never holds what a player waits for (the answers to their own mail, a
/// report that it is their move): a brisk game is never slowed by it. Other news past the
/// limit is held an hour, and its reader told so once.
#[test]
fn answers_a_player_waits_for_are_never_held_other_news_is_and_told_once() {
    let mut w = World::new();
    w.cfg.replies_per_hour = 3;
    let id = rink(&mut w, ALICE, None);
    let to = w.seat_address(id, 0);
    w.new_mail();
    // The welcome counts, then four answers: past the limit, and none held.
    for body in ["BOARD", "HISTORY", "MOVES", "STATUS"] {
        let raw = w.mail(ALICE, &to, "Re: x", body);
        assert_eq!(w.deliver(&raw).unwrap().status, "done", "{body}");
    }
    let mail = w.new_mail();
    assert_eq!(mail.len(), 4, "{mail:#?}");
    let now = w.now;
    let due = due_at(&mut w, now);
    assert!(mail.iter().all(|m| due.contains(&m.id)), "none held");
    // Bob's draw offer is news Alice does not wait for: held, and she is told once.
    w.send_to_seat(BOB, id, 1, "DRAW").unwrap();
    w.send_to_seat(BOB, id, 1, "Any takers?\nDRAW").unwrap();
    let mail = w.new_mail();
    let notices: Vec<_> = mail.iter().filter(|m| m.kind == "held").collect();
    assert_eq!(notices.len(), 1, "{mail:#?}");
    let now = w.now;
    let due = due_at(&mut w, now);
    let news = mail.iter().find(|m| m.to_addr == ALICE && m.kind == "news");
    let news = news.expect("the offer to Alice");
    assert!(news.body.contains("B offers a draw"), "{}", news.body);
    assert!(!due.contains(&news.id), "the offer is held");
    // An hour later it goes out.
    let later = w.now + chrono::Duration::minutes(61);
    assert!(due_at(&mut w, later).contains(&news.id));
}

/// A Siberian Dice game of three players (no salt window) at one mail an hour a reader, its
/// welcomes read (each used its reader's hour).
fn three_at_one_mail_an_hour() -> (World, i64) {
    let mut w = World::new();
    w.cfg.replies_per_hour = 1;
    let id = w.game(
        GameKind::Siberian,
        &[("BLUE", BLUE), ("RED", RED), ("GREEN", GREEN)],
        &[("players", "3"), ("salt_window", "0")],
        None,
        None,
    );
    w.new_mail();
    (w, id)
}

/// A report held by the hourly limit that the game has moved past is dropped when the newer
/// mail about the game is queued: the reader never gets a stale board after the current one.
#[test]
fn a_held_report_the_game_moved_past_is_replaced_by_the_current_one() {
    let (mut w, id) = three_at_one_mail_an_hour();
    // BLUE moves: RED's report asks RED to move (never held); GREEN's is held (its welcome
    // used GREEN's hour).
    w.send_scripted(BLUE, id, 0, "H d4", &[1]);
    let mail = w.new_mail();
    let now = w.now;
    let due = due_at(&mut w, now);
    let for_red = only_to(&mail, RED);
    assert!(due.contains(&for_red.id), "RED's turn is never held");
    let stale = mail
        .iter()
        .find(|m| m.to_addr == GREEN && m.kind == "turn_report")
        .expect("GREEN's report")
        .id;
    assert!(!due.contains(&stale), "GREEN's report is held");
    // RED moves: GREEN's turn now. Its report goes at once and the held one is gone.
    w.send_scripted(RED, id, 1, "H c3", &[2]);
    let mail = w.new_mail();
    let current = mail
        .iter()
        .find(|m| m.to_addr == GREEN && m.kind == "turn_report")
        .expect("GREEN's new report");
    assert!(current.body.contains("It is your move"), "{}", current.body);
    let later = w.now + chrono::Duration::hours(2);
    let due = due_at(&mut w, later);
    assert!(due.contains(&current.id));
    assert!(!due.contains(&stale), "the stale report is dropped");
    let all = w.store.tx(|tx| tx.outbox(None, 500)).unwrap();
    assert!(all.iter().all(|m| m.id != stale));
}

/// A held report that carries news beside its move (a draw offer) is news: the newer report
/// does not say it, so it is never dropped, only sent late.
#[test]
fn a_held_report_with_a_draw_offer_in_it_is_never_dropped() {
    let (mut w, id) = three_at_one_mail_an_hour();
    // BLUE moves and offers a draw: GREEN's report of it is held (its welcome used its hour).
    w.send_scripted(BLUE, id, 0, "H d4\nDRAW", &[1]);
    let mail = w.new_mail();
    let offer = mail
        .iter()
        .find(|m| m.to_addr == GREEN && m.body.contains("BLUE offers a draw"))
        .expect("GREEN's report with the offer")
        .id;
    let now = w.now;
    assert!(
        !due_at(&mut w, now).contains(&offer),
        "GREEN's report is held"
    );
    // RED moves: GREEN's newer report does not carry the offer, so the held one stays.
    w.send_scripted(RED, id, 1, "H c3", &[2]);
    w.new_mail();
    let later = w.now + chrono::Duration::hours(2);
    assert!(
        due_at(&mut w, later).contains(&offer),
        "the offer is not dropped"
    );
}

#[test]
fn greetings_and_a_sign_off_around_a_move_are_ignored_without_parser_talk() {
    let mut w = World::new();
    let id = w.game(
        GameKind::DiceRink,
        &[("A", ALICE), ("B", BOB)],
        &[],
        None,
        None,
    );
    w.new_mail();
    let to = w.seat_address(id, 0);
    let raw = w.mail(ALICE, &to, "Re: move", "Hello Bob!\na1 1/2\nCheers, Alice");
    w.deliver(&raw).unwrap();
    assert_eq!(w.load(id).moves.len(), 1, "the move is played");
    let mail = w.new_mail();
    let reply = &only_to(&mail, ALICE).body;
    assert!(
        reply.contains("ignored: Hello Bob!\n    not a move or command\n"),
        "{reply}"
    );
    assert!(
        reply.contains("ignored: Cheers, Alice\n    not a move or command\n"),
        "{reply}"
    );
    assert!(!reply.contains("one move per mail"), "{reply}");
    // A second move is still refused as one.
    let to_b = w.seat_address(id, 1);
    let raw = w.mail(BOB, &to_b, "Re: move", "a4 3/6\nb4 3/6");
    w.deliver(&raw).unwrap();
    let mail = w.new_mail();
    assert!(only_to(&mail, BOB).body.contains("one move per mail"));
}

#[test]
fn the_welcome_says_the_games_settings_in_words() {
    let mut w = World::new();
    w.game(
        GameKind::DiceRink,
        &[("A", ALICE), ("B", BOB)],
        &[("setup", "fixed")],
        None,
        Some(3 * 86_400),
    );
    let mail = w.new_mail();
    let welcome = &only_to(&mail, ALICE).body;
    assert!(welcome.starts_with("Your move.\n"), "{welcome}");
    assert!(welcome.contains("Move time: 3 days"), "{welcome}");
    assert!(
        welcome.contains("Set-up: fixed: A on b1 and c1, B on b4 and c4"),
        "{welcome}"
    );
}

#[test]
fn a_seated_player_who_writes_to_the_plain_address_is_answered_from_the_seats_address() {
    let mut w = World::new();
    let id = w.game(
        GameKind::DiceRink,
        &[("A", ALICE), ("B", BOB)],
        &[],
        None,
        None,
    );
    w.new_mail();
    let raw = w.mail(ALICE, "gm@pbem.example", "my move", "a1 1/2");
    w.deliver(&raw).unwrap();
    assert!(w.load(id).moves.is_empty(), "no proof, no move");
    let mail = w.new_mail();
    let answer = only_to(&mail, ALICE);
    assert_eq!(
        answer.reply_to.as_deref(),
        Some(w.seat_address(id, 0).as_str())
    );
    assert!(
        answer.subject.contains(&format!("[pbem #{id}]")),
        "{}",
        answer.subject
    );
    assert!(
        answer.body.contains("reply to this mail"),
        "{}",
        answer.body
    );
    // It quotes nothing of the mail: a stranger forging Alice's From could write anything.
    assert!(!answer.body.contains("a1 1/2"), "{}", answer.body);
    assert!(
        says(&answer.body, "1 line(s) of your mail were not played"),
        "{}",
        answer.body
    );
    // Replying to it plays.
    let to = answer.reply_to.clone().unwrap();
    let raw = w.mail(ALICE, &to, &format!("Re: {}", answer.subject), "a1 1/2");
    w.deliver(&raw).unwrap();
    assert_eq!(w.load(id).moves.len(), 1);
}

/// A game the GM cancels has no result to rate, yet the ratings kept for its kind count it:
/// the next game's end still rates that game alone, replaying no other finished game in the
/// mail's transaction (here the first game's record is made unreadable after its end: a
/// replay of it would fail the mail).
#[test]
fn a_cancelled_game_leaves_the_next_game_end_rating_that_game_alone() {
    let mut w = World::new();
    let players = [("A", ALICE), ("B", BOB)];
    let first = w.game(GameKind::DiceRink, &players, &[], None, None);
    w.new_mail();
    w.send_to_seat(BOB, first, 1, "RESIGN").unwrap();
    w.new_mail();
    let cancelled = w.game(GameKind::DiceRink, &players, &[], None, None);
    let o = common::pbem_command(w.dir.path(), "pbem.sqlite")
        .args(["game", "cancel", &cancelled.to_string(), "--reason", "x"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", common::output_text(&o));
    w.new_mail();
    w.break_record(first);
    let third = w.game(GameKind::DiceRink, &players, &[], None, None);
    w.new_mail();
    let handled = w.send_to_seat(BOB, third, 1, "RESIGN").unwrap();
    assert_eq!(handled.status, "done");
    let over = only_to(&w.new_mail(), ALICE).body.clone();
    assert!(says(&over, "Your Dice Rink rating: "), "{over}");
}

/// A draw offer is told once: the same seat's DRAW sent again while its offer stands (a mail
/// of DRAW lines, mail after mail) mails the others nothing more, so a player cannot fill
/// their mailboxes with it; the sender is still answered.
#[test]
fn a_draw_offer_sent_again_is_not_told_again() {
    let mut w = World::new();
    let id = w.rink(ALICE, BOB);
    assert_eq!(w.send_to_seat(BOB, id, 1, "DRAW").unwrap().status, "done");
    let mail = w.new_mail();
    assert!(
        says(&only_to(&mail, ALICE).body, "B offers a draw"),
        "{mail:#?}"
    );
    let many = vec!["DRAW"; 100].join("\n");
    for body in [many.as_str(), "DRAW", "DRAW OFFER"] {
        assert_eq!(w.send_to_seat(BOB, id, 1, body).unwrap().status, "done");
        let mail = w.new_mail();
        assert!(mail.iter().all(|m| m.to_addr == BOB), "{mail:#?}");
        assert!(says(&only_to(&mail, BOB).body, "draw offered"), "{mail:#?}");
    }
    // Declined, a new offer is news again.
    assert_eq!(
        w.send_to_seat(ALICE, id, 0, "DRAW DECLINE").unwrap().status,
        "done"
    );
    w.new_mail();
    assert_eq!(w.send_to_seat(BOB, id, 1, "DRAW").unwrap().status, "done");
    assert!(says(&only_to(&w.new_mail(), ALICE).body, "B offers a draw"));
}
