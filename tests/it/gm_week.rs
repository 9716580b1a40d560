//! A GM's week on the clock: reminders once and not too soon, vacations that the shown deadline and the mails follow, a missed deadline the players hear of, and the GM's commands that refuse what cannot be meant.

use chrono::Duration;
use pbem::games::GameKind;

use crate::common::{self, only_to, output_text, pbem_command, pbem_in, says, World};

const ALICE: &str = "alice@example.org";
const BOB: &str = "bob@example.org";
const DAY: i64 = 86400;

/// A Dice Rink game between Alice (A) and Bob (B) with a day a move, its welcomes read.
fn daily_rink(w: &mut World, options: &[(&str, &str)]) -> i64 {
    let id = w.game(
        GameKind::DiceRink,
        &[("A", ALICE), ("B", BOB)],
        options,
        None,
        Some(DAY),
    );
    w.new_mail();
    id
}

/// The seat to move plays its first legal ply by mail.
fn move_by_mail(w: &mut World, id: i64, seat: usize) {
    let ply = w.load(id).game.legal_plies().into_iter().next().unwrap();
    let from = [ALICE, BOB][seat];
    assert_eq!(w.send_to_seat(from, id, seat, &ply).unwrap().status, "done");
}

fn reminders(mail: &[pbem::store::OutboxRow]) -> Vec<&str> {
    mail.iter()
        .filter(|m| m.kind == "reminder")
        .map(|m| m.to_addr.as_str())
        .collect()
}

/// Point 4: with a day a move and the default day's lead, no reminder follows the turn
/// report; one comes half way through the move time, and only one.
#[test]
fn a_daily_game_reminds_once_half_way_not_right_after_each_turn() {
    let mut w = World::new();
    assert!(w.cfg.remind_before_secs >= DAY, "the default lead is a day");
    let id = daily_rink(&mut w, &[]);
    move_by_mail(&mut w, id, 0);
    w.new_mail();
    for later in [Duration::seconds(10), Duration::hours(11)] {
        let mut at = w.now + later;
        std::mem::swap(&mut w.now, &mut at);
        w.timers();
        assert_eq!(
            reminders(&w.new_mail()),
            Vec::<&str>::new(),
            "after {later}"
        );
        w.now = at;
    }
    w.now += Duration::hours(12);
    assert_eq!(w.timers(), 1);
    assert_eq!(reminders(&w.new_mail()), vec![BOB]);
    w.now += Duration::hours(1);
    w.timers();
    assert!(
        reminders(&w.new_mail()).is_empty(),
        "one reminder a deadline"
    );
    // Bob moves: Alice's new day starts without a reminder.
    move_by_mail(&mut w, id, 1);
    w.new_mail();
    w.now += Duration::minutes(1);
    w.timers();
    assert!(reminders(&w.new_mail()).is_empty());
}

/// Point 5: Bob on vacation when his turn comes: his turn report already gives the deadline
/// the vacation makes, no reminder reaches him while away, the clock moves without a word to
/// the GM, and his reminder comes half way through his day after the vacation.
#[test]
fn the_deadline_and_the_mails_follow_a_vacation() {
    let mut w = World::new();
    let id = daily_rink(&mut w, &[]);
    let start = w.now;
    let to = w.seat_address(id, 1);
    let raw = w.mail(BOB, &to, "Re: x", "VACATION 5");
    w.deliver(&raw).unwrap();
    w.new_mail();
    move_by_mail(&mut w, id, 0);
    let after = start + Duration::days(6);
    let mail = w.new_mail();
    let report = only_to(&mail, BOB);
    let expected = format!("(deadline {})", pbem::template::date(after));
    assert!(says(&report.body, &expected), "{}", report.body);
    assert!(
        !says(
            &report.body,
            &pbem::template::date(start + Duration::days(1))
        ),
        "{}",
        report.body
    );
    for day in 1..=5 {
        w.now = start + Duration::days(day) + Duration::minutes(1);
        w.timers();
        let mail = w.new_mail();
        assert!(reminders(&mail).is_empty(), "day {day}: {mail:#?}");
        assert!(mail.iter().all(|m| m.kind != "gm_notice"), "day {day}");
    }
    assert_eq!(w.load(id).row.deadline, Some(after));
    w.now = start + Duration::days(5) + Duration::hours(12);
    w.timers();
    assert_eq!(reminders(&w.new_mail()), vec![BOB]);
}

/// Point 5: in a turn of orders, a player on vacation gets no reminder; the others do.
#[test]
fn no_reminder_goes_to_a_player_on_vacation() {
    let mut w = World::new();
    let players = [
        ("BLUE", "blue@example.org"),
        ("RED", "red@example.org"),
        ("GREEN", "green@example.org"),
        ("YELLOW", "yellow@example.org"),
    ];
    let id = w.game(GameKind::DipTacToe, &players, &[], None, Some(DAY));
    w.new_mail();
    let to = w.seat_address(id, 1);
    let raw = w.mail("red@example.org", &to, "Re: x", "VACATION 3");
    w.deliver(&raw).unwrap();
    w.new_mail();
    w.now += Duration::hours(13);
    w.timers();
    let mail = w.new_mail();
    let mut reminded = reminders(&mail);
    reminded.sort();
    assert_eq!(
        reminded,
        vec![
            "blue@example.org",
            "green@example.org",
            "yellow@example.org"
        ]
    );
}

/// Point 17: with `timeout=notify`, a missed deadline stops the clock and every player learns
/// why, not the GM alone.
#[test]
fn a_missed_deadline_is_told_to_the_players_too() {
    let mut w = World::new();
    let id = daily_rink(&mut w, &[]);
    w.now += Duration::days(1) + Duration::minutes(1);
    w.timers();
    let mail = w.new_mail();
    let notice = only_to(&mail, common::ADMIN);
    assert!(says(&notice.body, "did not move by the deadline"));
    for who in [ALICE, BOB] {
        let told = only_to(&mail, who);
        assert!(
            says(
                &told.body,
                "A did not move by the deadline. The clock is stopped"
            ),
            "{who}: {}",
            told.body
        );
        assert!(!told.body.contains("(deadline "), "{}", told.body);
    }
    assert_eq!(w.load(id).row.deadline, None);
}

/// Point 5 in `game show`: the next timer is at the deadline the vacation makes.
#[test]
fn game_show_follows_a_vacation() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(pbem_in(d, &["init"]).status.success());
    let mut new = common::NEW_DICERINK.to_vec();
    new.extend(["--move-time", "1d"]);
    assert!(pbem_in(d, &new).status.success());
    let o = pbem_in(d, &["player", "vacation", BOB, "--days", "5"]);
    assert!(o.status.success(), "{}", output_text(&o));
    let o = pbem_in(d, &["game", "play", "1", "--seat", "A", "b1 4/2"]);
    assert!(o.status.success(), "{}", output_text(&o));
    let show = output_text(&pbem_in(d, &["game", "show", "1"]));
    let until = show
        .split("on vacation until ")
        .nth(1)
        .and_then(|t| t.get(..20))
        .unwrap_or_else(|| panic!("{show}"));
    let until = chrono::NaiveDateTime::parse_from_str(until, "%Y-%m-%d %H:%M UTC")
        .unwrap()
        .and_utc();
    let next = show
        .lines()
        .find(|l| l.contains("next timer:"))
        .unwrap_or_else(|| panic!("{show}"));
    let deadline = pbem::template::date(until + Duration::days(1));
    assert!(
        next.contains(&format!("at {deadline} (moved past the vacation")),
        "{next}"
    );
    assert!(next.contains("the GM is told B did not move"), "{next}");
}

/// Point 30: `game new` seats neither pbem's own address nor the GM's, and a game made with
/// seats open says which and how they fill.
#[test]
fn game_new_refuses_pbems_own_addresses_and_tells_of_open_seats() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(pbem_in(d, &["init"]).status.success());
    for (who, what) in [
        ("gm@example.org", "pbem's own address"),
        ("gm+abc@example.org", "pbem's own address"),
        ("referee@example.org", "admin_address"),
    ] {
        let o = pbem_command(d, "g.sqlite")
            .env("PBEM_ADMIN_ADDRESS", "referee@example.org")
            .args(["game", "new", "dicerink", "--player"])
            .arg(format!("A={who}"))
            .args(["--player", "B=bob@example.org"])
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(1), "{who}: {}", output_text(&o));
        assert!(output_text(&o).contains(what), "{}", output_text(&o));
    }
    let o = pbem_in(d, &["game", "list"]);
    assert!(!output_text(&o).contains("dicerink"), "{}", output_text(&o));

    let o = pbem_in(
        d,
        &["game", "new", "dicerink", "--player", "A=alice@example.org"],
    );
    assert!(o.status.success(), "{}", output_text(&o));
    let id = String::from_utf8_lossy(&o.stdout).trim().to_string();
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        says(
            &err,
            &format!("game {id} waits for players: seat B is still open")
        ),
        "{err}"
    );
    assert!(
        says(&err, &format!("`JOIN {id} B` to gm@example.org")),
        "{err}"
    );
    assert!(
        says(&err, &format!("pbem game join {id} ADDRESS --seat B")),
        "{err}"
    );
    // Nor can pbem's own address take a seat later, by join, replace or eject --replace.
    for args in [
        vec!["game", "join", &id, "gm@example.org"],
        vec!["game", "replace", &id, "--seat", "A", "gm@example.org"],
        vec![
            "game",
            "eject",
            &id,
            "--seat",
            "A",
            "--replace",
            "gm+x@example.org",
        ],
    ] {
        let o = pbem_in(d, &args);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {}", output_text(&o));
        assert!(
            output_text(&o).contains("pbem's own address"),
            "{args:?}: {}",
            output_text(&o)
        );
    }
}

/// Point 33: an empty message is refused and mails nobody.
#[test]
fn an_empty_game_message_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(pbem_in(d, &["init"]).status.success());
    assert!(pbem_in(d, &common::NEW_DICERINK).status.success());
    let before = common::out_files(d).len();
    for text in ["", "  \n "] {
        let o = pbem_in(d, &["game", "message", "1", text]);
        assert_eq!(o.status.code(), Some(1), "{}", output_text(&o));
        assert!(
            output_text(&o).contains("the message is empty"),
            "{}",
            output_text(&o)
        );
    }
    assert_eq!(common::out_files(d).len(), before);
    let o = pbem_in(d, &["game", "message", "1", "Round two starts Monday."]);
    assert!(o.status.success(), "{}", output_text(&o));
}

/// Point 33: a second `pbem serve` on the same database refuses to start, naming the first;
/// once the first is gone, a new one starts.
#[test]
fn a_second_serve_on_the_same_database_refuses_to_start() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(pbem_in(d, &["init"]).status.success());
    let log = std::fs::File::create(d.join("serve.log")).unwrap();
    let mut first = pbem_command(d, "g.sqlite")
        .env("PBEM_POLL", "1s")
        .arg("serve")
        .stdout(std::process::Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap();
    let lock = d.join("g.sqlite-serve.lock");
    let start = std::time::Instant::now();
    while std::fs::read_to_string(&lock).map_or(true, |t| t.trim().is_empty()) {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(30),
            "serve never locked"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let o = pbem_command(d, "g.sqlite").arg("serve").output().unwrap();
    let text = output_text(&o);
    assert_eq!(o.status.code(), Some(2), "{text}");
    assert!(
        text.contains(&format!("another pbem serve (process {})", first.id())),
        "{text}"
    );
    let log = || std::fs::read_to_string(d.join("serve.log")).unwrap_or_default();
    let status = common::sigterm_and_wait(&mut first, std::time::Duration::from_secs(30), log);
    assert!(status.success(), "{}", log());
    // The lock goes with its daemon: the next one starts (and stops on its signal).
    let mut next = pbem_command(d, "g.sqlite")
        .arg("serve")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(
        next.try_wait().unwrap().is_none(),
        "the second daemon did not start"
    );
    let status =
        common::sigterm_and_wait(&mut next, std::time::Duration::from_secs(30), String::new);
    assert!(status.success());
}
