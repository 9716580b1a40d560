//! Dip-Tac-Toe by email: four players, orders confirmed privately, press, deadlines on a fixed
//! clock, a player who never orders, and a claimed victory.

use crate::common::{only_to, World};
use chrono::Duration;
use pbem::games::GameKind;

const PLAYERS: [(&str, &str); 4] = [
    ("BLUE", "blue@example.org"),
    ("RED", "red@example.org"),
    ("GREEN", "green@example.org"),
    ("YELLOW", "yellow@example.org"),
];

fn order(w: &mut World, game: i64, seat: usize, body: &str) {
    let to = w.seat_address(game, seat);
    let raw = w.mail(
        PLAYERS[seat].1,
        &to,
        &format!("Re: [pbem #{game}] Dip-Tac-Toe"),
        body,
    );
    assert_eq!(w.deliver(&raw).unwrap().status, "done", "{body}");
}

#[test]
fn a_four_player_game_by_mail() {
    let mut w = World::new();
    let id = w.game(GameKind::DipTacToe, &PLAYERS, &[], None, Some(2 * 86400));
    let welcome = w.new_mail();
    assert_eq!(welcome.iter().filter(|m| m.kind == "welcome").count(), 4);

    // Turn 1. BLUE orders, then changes its mind; press goes to RED, named.
    order(
        &mut w,
        id,
        0,
        "I.A.1 - II.F.2\nPRESS TO RED: shall we leave level I to me?",
    );
    let mail = w.new_mail();
    let press = only_to(&mail, "red@example.org");
    assert_eq!(press.kind, "press");
    assert!(press.body.contains("press from BLUE"), "{}", press.body);
    assert!(press.body.contains("leave level I to me"), "{}", press.body);
    // Its footer names the players to answer, never a placeholder.
    assert!(
        crate::common::says(&press.body, "reply with PRESS TO BLUE: and your words"),
        "{}",
        press.body
    );
    assert!(
        crate::common::says(
            &press.body,
            "You may also write to GREEN, YELLOW, or to ALL at once."
        ),
        "{}",
        press.body
    );
    assert!(!press.body.contains("<players"), "{}", press.body);
    let confirm = only_to(&mail, "blue@example.org");
    assert!(
        confirm.body.contains("ok: I.A.1 - II.F.2"),
        "{}",
        confirm.body
    );
    order(&mut w, id, 0, "Reserve - I.A.2");
    let mail = w.new_mail();
    let confirm = only_to(&mail, "blue@example.org");
    assert!(
        confirm.body.contains("replace any you sent before"),
        "{}",
        confirm.body
    );
    order(&mut w, id, 1, "Reserve - II.H.2");
    let mail = w.new_mail();
    // A player never sees another player's orders before adjudication.
    assert!(!only_to(&mail, "red@example.org").body.contains("I.A.2"));
    order(&mut w, id, 2, "R-M3");
    w.new_mail();
    order(&mut w, id, 2, "I.E.1 - I.A.2");
    let mail = w.new_mail();
    let green = only_to(&mail, "green@example.org");
    assert!(green.body.contains("void: I.E.1 - I.A.2"), "{}", green.body);
    order(&mut w, id, 2, "R-M3");
    w.new_mail();

    // A day before the deadline, the player who has not ordered is reminded.
    w.now += Duration::hours(25);
    assert_eq!(w.timers(), 1);
    let mail = w.new_mail();
    assert_eq!(mail.len(), 1);
    assert_eq!(only_to(&mail, "yellow@example.org").kind, "reminder");

    // The deadline passes: the turn is adjudicated; everybody gets the same report.
    w.now += Duration::hours(24);
    assert_eq!(w.timers(), 1);
    let mail = w.new_mail();
    let reports: Vec<_> = mail.iter().filter(|m| m.kind == "turn_report").collect();
    assert_eq!(reports.len(), 4, "{mail:#?}");
    // (Each names its reader's seat: "you play BLUE".)
    let strip = |b: &str| {
        b.lines()
            .filter(|l| !l.contains("you play"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    for r in &reports {
        assert_eq!(strip(&r.body), strip(&reports[0].body));
    }
    assert!(reports[0].body.contains("I.A.2"), "{}", reports[0].body);
    let g = w.load(id);
    assert_eq!(g.moves.len(), 1);
    assert!(
        g.game.position_tag().contains("I.A.2"),
        "{}",
        g.game.position_tag()
    );

    // Turns 2 and 3: BLUE builds file A on level I and claims; YELLOW never orders.
    order(&mut w, id, 0, "R-I.A.3");
    order(&mut w, id, 1, "R-II.H.3");
    order(&mut w, id, 2, "R-III.M.2");
    w.now += Duration::days(2);
    w.timers();
    w.new_mail();
    order(&mut w, id, 0, "R - I.A.4\nFour!");
    order(&mut w, id, 1, "R-II.H.4");
    order(&mut w, id, 2, "R-III.M.1");
    w.now += Duration::days(2);
    w.timers();
    let mail = w.new_mail();
    let g = w.load(id);
    assert_eq!(g.row.status, "finished", "{}", g.game.position_tag());
    assert_eq!(
        g.game.outcome_text().unwrap().split(':').next().unwrap(),
        "BLUE wins"
    );
    let over: Vec<_> = mail.iter().filter(|m| m.kind == "game_over").collect();
    assert_eq!(over.len(), 4);
    assert!(
        over[0].body.contains("[Result \"BLUE\"]"),
        "{}",
        over[0].body
    );
    // YELLOW missed three turns in a row: the GM was told.
    let notices: Vec<_> = mail.iter().filter(|m| m.kind == "gm_notice").collect();
    assert_eq!(notices.len(), 1, "{mail:#?}");
    assert!(notices[0].body.contains("YELLOW"), "{}", notices[0].body);
    // The export replays to the same end.
    let export = pbem::gm::export(&g).unwrap();
    let again = pbem::records::Record::parse(&export)
        .unwrap()
        .replay()
        .unwrap();
    assert_eq!(again.game.position_tag(), g.game.position_tag());
}

#[test]
fn all_orders_in_resolve_the_turn_early_after_a_short_delay() {
    let mut w = World::new();
    let id = w.game(
        GameKind::DipTacToe,
        &PLAYERS,
        &[("press", "anonymous")],
        None,
        Some(2 * 86400),
    );
    w.new_mail();
    order(&mut w, id, 3, "PRESS TO ALL: hello from nobody");
    let mail = w.new_mail();
    let press: Vec<_> = mail.iter().filter(|m| m.kind == "press").collect();
    assert_eq!(press.len(), 3);
    assert!(press[0].body.contains("anonymous"), "{}", press[0].body);
    assert!(!press[0].body.contains("YELLOW"), "{}", press[0].body);
    for (seat, o) in ["R-I.B.2", "R-II.G.2", "R-III.L.3", "R-IV.P.3"]
        .iter()
        .enumerate()
    {
        order(&mut w, id, seat, o);
    }
    let deadline = w.load(id).row.deadline.unwrap();
    assert_eq!(
        deadline,
        w.now + Duration::seconds(w.cfg.early_resolve_secs)
    );
    w.now += Duration::minutes(5);
    assert_eq!(w.timers(), 0, "still time to change one's mind");
    w.now += Duration::minutes(6);
    assert_eq!(w.timers(), 1);
    assert_eq!(w.load(id).moves.len(), 1);
}

#[test]
fn a_grace_period_reminds_the_late_player_once_before_adjudicating() {
    let mut w = World::new();
    let id = w.game(
        GameKind::DipTacToe,
        &PLAYERS,
        &[("grace", "12h")],
        None,
        Some(86400),
    );
    w.new_mail();
    for (seat, o) in ["R-I.B.2", "R-II.G.2", "R-III.L.3"].iter().enumerate() {
        order(&mut w, id, seat, o);
    }
    w.new_mail();
    w.now += Duration::hours(24);
    w.timers();
    let mail = w.new_mail();
    assert_eq!(only_to(&mail, "yellow@example.org").kind, "reminder");
    assert_eq!(mail.len(), 1);
    assert_eq!(w.load(id).row.deadline, Some(w.now + Duration::hours(12)));
    assert!(w.load(id).moves.is_empty());
    w.now += Duration::hours(12);
    w.timers();
    assert_eq!(
        w.load(id).moves.len(),
        1,
        "adjudicated after the grace period"
    );
    // The next turn has its own grace again.
    assert!(!w.load(id).row.graced);
}

#[test]
fn a_line_ending_in_resign_is_adjudicated_as_words_and_the_game_exports() {
    // Once, YELLOW's last line ending in `:resign` made the turn ply read as a resignation of
    // nobody, and every timer pass (each restart of the daemon) failed at the deadline.
    let mut w = World::new();
    let id = w.game(GameKind::DipTacToe, &PLAYERS, &[], None, Some(86400));
    w.new_mail();
    order(&mut w, id, 2, "R-III.L.3\n{ [x] } \"quoted\" %41 Grüße");
    // A line written as an order (it starts with a space) goes into the turn, void; a line of
    // prose would be ignored and go nowhere (below).
    order(
        &mut w,
        id,
        3,
        "R-IV.P.3\nIV.N.4 - see you:resign\nthanks, bye",
    );
    w.new_mail();
    w.now += Duration::hours(24);
    assert_eq!(w.timers(), 1);
    let mail = w.new_mail();
    let reports: Vec<_> = mail.iter().filter(|m| m.kind == "turn_report").collect();
    assert_eq!(reports.len(), 4, "{mail:#?}");
    assert!(
        reports[0].body.contains("IV.N.4 - see you:resign: void"),
        "{}",
        reports[0].body
    );
    assert!(
        !reports[0].body.contains("thanks, bye"),
        "{}",
        reports[0].body
    );
    let g = w.load(id);
    assert_eq!(g.moves.len(), 1);
    assert!(
        !g.game.position_tag().contains("resigned"),
        "{}",
        g.game.position_tag()
    );
    let export = pbem::gm::export(&g).unwrap();
    let again = pbem::records::Record::parse(&export)
        .unwrap()
        .replay()
        .unwrap_or_else(|e| panic!("{e}\n{export}"));
    assert_eq!(again.game.position_tag(), g.game.position_tag());
}

#[test]
fn prose_beside_orders_is_ignored_in_the_senders_reply_only_and_the_report_reads_as_words() {
    let mut w = World::new();
    let id = w.game(GameKind::DipTacToe, &PLAYERS, &[], None, Some(86400));
    w.new_mail();
    order(&mut w, id, 0, "I.A.1 - I.A.2\nSorry, only this one:");
    let mail = w.new_mail();
    let reply = &only_to(&mail, "blue@example.org").body;
    assert!(reply.contains("ok: I.A.1 - I.A.2"), "{reply}");
    assert!(reply.contains("ignored: Sorry, only this one:"), "{reply}");
    assert!(
        !reply.contains("unexpected character"),
        "no parser jargon: {reply}"
    );
    // A mail of prose alone gives no orders: RED still owes some.
    order(&mut w, id, 1, "Hello everyone, good luck!");
    let mail = w.new_mail();
    let reply = &only_to(&mail, "red@example.org").body;
    assert!(
        !reply.contains("orders for this turn are recorded"),
        "{reply}"
    );
    w.now += Duration::hours(25);
    w.timers();
    let mail = w.new_mail();
    for m in mail.iter().filter(|m| m.kind == "turn_report") {
        assert!(
            !m.body.contains("Sorry"),
            "prose stays with its sender: {}",
            m.body
        );
        assert!(!m.body.contains("gm played"), "{}", m.body);
        assert!(m.body.contains("Turn 1 adjudicated."), "{}", m.body);
    }
    let record = pbem::gm::export(&w.load(id)).unwrap();
    assert!(!record.contains("Sorry"), "{record}");
}

#[test]
fn every_mail_starts_with_what_its_reader_must_do_and_names_who_is_awaited() {
    let mut w = World::new();
    let id = w.game(GameKind::DipTacToe, &PLAYERS, &[], None, Some(86400));
    let welcome = w.new_mail();
    let first = only_to(&welcome, "red@example.org").body.clone();
    assert!(first.starts_with("Your orders are due.\n"), "{first}");
    order(&mut w, id, 0, "R-I.A.2");
    let mail = w.new_mail();
    let reply = &only_to(&mail, "blue@example.org").body;
    assert!(
        reply.starts_with("Nothing to do: your orders are in; waiting for the others.\n"),
        "{reply}"
    );
    assert!(
        reply.contains("orders awaited from RED, GREEN, YELLOW"),
        "{reply}"
    );
    order(&mut w, id, 1, "R-II.H.2");
    order(&mut w, id, 2, "R-III.M.3");
    order(&mut w, id, 3, "R-IV.N.3");
    let mail = w.new_mail();
    let last = &only_to(&mail, "yellow@example.org").body;
    assert!(
        last.starts_with("Nothing to do: all orders are in.\n"),
        "{last}"
    );
    assert!(
        last.contains("all orders are in: the turn is adjudicated at "),
        "{last}"
    );
    assert!(
        !last.contains("(deadline"),
        "one deadline for all, none after: {last}"
    );
}

/// Press is one player's words on another's screen: a right-to-left override, zero-width
/// spaces and isolates are taken out before it is mailed, the words themselves kept.
#[test]
fn press_reaches_the_others_without_bidi_overrides_or_invisible_characters() {
    let mut w = World::new();
    let id = w.game(GameKind::DipTacToe, &PLAYERS, &[], None, Some(86400));
    w.new_mail();
    order(
        &mut w,
        id,
        0,
        "PRESS TO RED: I \u{202E}reffo\u{202C} a\u{200B} truce \u{2066}now\u{2069}\u{FEFF}",
    );
    let mail = w.new_mail();
    let press = only_to(&mail, "red@example.org");
    assert!(press.body.contains("I reffo a truce now"), "{}", press.body);
    for sneaky in [
        '\u{202E}', '\u{202C}', '\u{200B}', '\u{2066}', '\u{2069}', '\u{FEFF}',
    ] {
        assert!(!press.body.contains(sneaky), "{sneaky:?} in {}", press.body);
    }
}

/// The GM is told of a player who misses `nmr_limit` turns in a row, counting that player's own
/// turns only: a new player in the seat does not inherit the turns their predecessor missed.
#[test]
fn a_new_player_is_not_reported_for_the_turns_the_old_one_missed() {
    let mut w = World::new();
    let id = w.game(GameKind::DipTacToe, &PLAYERS, &[], None, Some(2 * 86400));
    w.new_mail();
    // BLUE, RED and GREEN place a unit a turn where no four line up; YELLOW sends nothing.
    let turn = |w: &mut World, space: [&str; 3]| {
        for (seat, at) in space.iter().enumerate() {
            order(w, id, seat, &format!("Reserve - {at}"));
        }
        w.now += Duration::days(2);
        w.timers();
        let mail = w.new_mail();
        mail.iter().filter(|m| m.kind == "gm_notice").count()
    };
    assert_eq!(turn(&mut w, ["I.A.2", "II.H.2", "III.M.2"]), 0);
    assert_eq!(turn(&mut w, ["I.C.1", "II.F.3", "III.K.1"]), 0);
    // YELLOW missed two turns; the GM gives the seat to someone else.
    let mut g = w.load(id);
    w.store
        .tx(|tx| {
            let gm = pbem::gm::Gm::new(tx, w.now, &pbem::gm::Quiet);
            pbem::gm::life::replace(&gm, &mut g, 3, "zed@example.org", "zedtoken0000")
        })
        .unwrap();
    // The game's count goes on (YELLOW's units hold a third turn), but it is the new
    // player's first: no notice.
    assert_eq!(
        turn(&mut w, ["I.B.3", "II.G.1", "III.L.4"]),
        0,
        "one turn of their own"
    );
    let g = w.load(id);
    assert_eq!(g.game.missed(3).unwrap().turns, 3);
    assert_eq!(g.seat(3).unwrap().missed_before, 2);
    // Two more: three of the new player's own, and the GM is told.
    assert_eq!(turn(&mut w, ["I.D.2", "II.E.4", "III.J.3"]), 0);
    assert_eq!(
        turn(&mut w, ["I.A.4", "II.H.4", "III.M.4"]),
        1,
        "three of their own"
    );
}
