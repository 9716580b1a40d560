//! Issue 29: reliability as the Diplomacy judges' dedication (turns in time, late, missed, games left; `pbem player show`; `min_reliability` at JOIN), and each player's own rating line in the game-over mail.

use chrono::Duration;
use pbem::games::GameKind;

use crate::common::{only_to, pbem, says, World};

const ANN: &str = "ann@example.org";
const BOB: &str = "bob@example.org";
const CARL: &str = "carl@example.org";
const HOUR: i64 = 3600;

/// `pbem player show EMAIL` on the World's database: its output and exit code.
fn show(w: &World, email: &str) -> (String, i32) {
    pbem(w, &["player", "show", email])
}

/// The percent `pbem player show` gives (`Reliability: ...: 80%`).
fn percent(shown: &str) -> u32 {
    let line = shown
        .lines()
        .find(|l| l.starts_with("Reliability:"))
        .unwrap_or_else(|| panic!("no reliability: {shown}"));
    line.rsplit(": ")
        .next()
        .and_then(|p| p.strip_suffix('%'))
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("no percent: {line}"))
}

/// Ann places in time; Bob lets his hour run out and the robot stands in (`timeout=robot`);
/// then Ann is late (her deadline passes, a grace is granted, she places in the grace).
/// Returns the game.
fn a_game_with_a_missed_turn(w: &mut World) -> i64 {
    let id = w.game(
        GameKind::DiceRink,
        &[("A", ANN), ("B", BOB)],
        &[("timeout", "robot")],
        None,
        Some(HOUR),
    );
    w.new_mail();
    w.send_to_seat(ANN, id, 0, "b1 5/4").unwrap();
    w.now += Duration::hours(2);
    assert_eq!(w.timers(), 1, "the robot stands in for Bob");
    let g = w.load(id);
    assert_eq!(g.moves.len(), 2);
    assert!(g.moves[1].robot.is_some(), "{:?}", g.moves[1]);
    id
}

#[test]
fn a_player_who_missed_a_turn_has_a_lower_figure_than_one_who_moved_in_time() {
    let mut w = World::new();
    a_game_with_a_missed_turn(&mut w);
    let (ann, code) = show(&w, ANN);
    assert_eq!(code, 0, "{ann}");
    let (bob, code) = show(&w, BOB);
    assert_eq!(code, 0, "{bob}");
    assert!(
        ann.contains("Reliability: 1 turn in time, 0 late, 0 missed, 0 games left: 100%"),
        "{ann}"
    );
    assert!(
        bob.contains("Reliability: 0 turns in time, 0 late, 1 missed, 0 games left: 0%"),
        "{bob}"
    );
    assert!(percent(&bob) < percent(&ann));
    assert!(ann.contains(&format!("Player: {ANN}")), "{ann}");
    assert!(ann.contains("Name: "), "{ann}");
    assert!(ann.contains("Dice Rink (A): in play"), "{ann}");
    // An address the store never saw is refused in words.
    let (nobody, code) = show(&w, "nobody@example.org");
    assert_eq!(code, 1, "{nobody}");
    assert!(nobody.contains("plays in no game"), "{nobody}");
}

/// A move made in the grace after a missed deadline is late, not in time; a game left by
/// ejection weighs more than a missed turn.
#[test]
fn a_move_in_the_grace_is_late_and_a_game_left_weighs_more() {
    let mut w = World::new();
    let id = w.game(
        GameKind::DiceRink,
        &[("A", ANN), ("B", CARL)],
        &[("grace", "1h")],
        None,
        Some(HOUR),
    );
    w.new_mail();
    w.now += Duration::minutes(61);
    w.timers();
    assert!(w.load(id).row.graced, "the grace was granted");
    w.send_to_seat(ANN, id, 0, "b1 5/4").unwrap();
    let (ann, _) = show(&w, ANN);
    assert!(ann.contains("0 turns in time, 1 late, 0 missed"), "{ann}");
    // Carl places in time, then the GM takes him out: a game left.
    w.send_to_seat(CARL, id, 1, "b4 2/4").unwrap();
    let (before, _) = show(&w, CARL);
    assert_eq!(percent(&before), 100, "{before}");
    let (out, code) = pbem(&w, &["game", "eject", &id.to_string(), "--seat", "B"]);
    assert_eq!(code, 0, "{out}");
    let (after, _) = show(&w, CARL);
    assert!(
        after.contains("1 turn in time, 0 late, 0 missed, 1 game left"),
        "{after}"
    );
    assert_eq!(
        percent(&after),
        16,
        "1 in time over 1 + 5 for the game left: {after}"
    );
}

#[test]
fn min_reliability_refuses_a_join_in_words_and_welcomes_a_player_with_no_record() {
    let mut w = World::new();
    let first = a_game_with_a_missed_turn(&mut w);
    // Bob's game is over (a seated player's mail to the plain address is answered from the
    // seat's secret address, naming no refusal: anyone can forge a From).
    w.send_to_seat(BOB, first, 1, "RESIGN").unwrap();
    let open = w.game(
        GameKind::DiceRink,
        &[("A", ANN)],
        &[("min_reliability", "50")],
        None,
        None,
    );
    w.new_mail();
    let raw = w.mail(BOB, "gm@pbem.example", "join", &format!("JOIN {open}"));
    w.deliver(&raw).unwrap();
    let mail = w.new_mail();
    let reply = only_to(&mail, BOB);
    assert!(
        says(
            &reply.body,
            &format!(
                "game {open} asks its players for a reliability of at least 50% \
                 (min_reliability: turns made in time); yours is 0%"
            )
        ),
        "{}",
        reply.body
    );
    assert!(!reply.body.contains("To confirm, reply"), "{}", reply.body);
    // Carl has no record yet: he may join.
    assert_eq!(
        w.ask_and_confirm(CARL, &format!("JOIN {open}")).status,
        "done"
    );
    assert_eq!(w.load(open).seat(1).unwrap().email.as_deref(), Some(CARL));
    // A value that is no percent is refused when the game is made.
    let (bad, code) = pbem(
        &w,
        &[
            "game",
            "new",
            "dicerink",
            "--option",
            "min_reliability=often",
        ],
    );
    assert_ne!(code, 0);
    assert!(bad.contains("a percent from 0 to 100"), "{bad}");
}

/// The rating line of one player's game-over mail: (before, after).
fn rating_line(body: &str) -> (u32, u32) {
    let line = body
        .lines()
        .find(|l| l.starts_with("Your Dice Rink rating: "))
        .unwrap_or_else(|| panic!("no rating line: {body}"));
    let (before, after) = line
        .trim_start_matches("Your Dice Rink rating: ")
        .split_once(" -> ")
        .unwrap();
    (before.parse().unwrap(), after.parse().unwrap())
}

#[test]
fn the_game_over_mail_gives_each_player_their_rating_before_and_after() {
    let mut w = World::new();
    let first = w.game(
        GameKind::DiceRink,
        &[("A", ANN), ("B", BOB)],
        &[],
        None,
        None,
    );
    w.new_mail();
    w.send_to_seat(BOB, first, 1, "RESIGN").unwrap();
    let mail = w.new_mail();
    let (ann_before, ann_after) = rating_line(&only_to(&mail, ANN).body);
    let (bob_before, bob_after) = rating_line(&only_to(&mail, BOB).body);
    assert_eq!((ann_before, bob_before), (1500, 1500));
    assert!(
        ann_after > 1500 && bob_after < 1500,
        "{ann_after} {bob_after}"
    );
    // The next game starts from where the last one left them, as `pbem ratings` has it.
    let second = w.game(
        GameKind::DiceRink,
        &[("A", BOB), ("B", ANN)],
        &[],
        None,
        None,
    );
    w.new_mail();
    w.send_to_seat(BOB, second, 0, "RESIGN").unwrap();
    let mail = w.new_mail();
    let (again, higher) = rating_line(&only_to(&mail, ANN).body);
    assert_eq!(again, ann_after);
    assert!(higher > ann_after);
    let (table, _) = pbem(&w, &["ratings", "dicerink"]);
    let ann_row = table.lines().find(|l| l.contains("ann")).unwrap();
    assert!(ann_row.contains(&higher.to_string()), "{table}");
    // A robot is rated but gets no mail: a game against it mails only the player.
    let robot = w.game(
        GameKind::DiceRink,
        &[("A", CARL), ("B", "robot:easy")],
        &[],
        None,
        None,
    );
    w.new_mail();
    w.send_to_seat(CARL, robot, 0, "RESIGN").unwrap();
    let mail = w.new_mail();
    assert!(mail
        .iter()
        .all(|m| m.to_addr == CARL || !m.kind.contains("game_over")));
    assert_eq!(rating_line(&only_to(&mail, CARL).body).0, 1500);
}

/// A game's end moves the ratings on by that game alone: the kind's ratings as they stood are
/// kept, and no other finished game is replayed in the mail's transaction (here the first
/// game's record is made unreadable after its end: a replay of it would fail the mail).
#[test]
fn a_game_end_rates_that_game_alone_without_replaying_the_others() {
    let mut w = World::new();
    let players = [("A", ANN), ("B", BOB)];
    let first = w.game(GameKind::DiceRink, &players, &[], None, None);
    w.new_mail();
    w.send_to_seat(BOB, first, 1, "RESIGN").unwrap();
    let (_, ann_after) = rating_line(&only_to(&w.new_mail(), ANN).body);
    w.break_record(first);
    let second = w.game(GameKind::DiceRink, &players, &[], None, None);
    w.new_mail();
    let handled = w.send_to_seat(BOB, second, 1, "RESIGN").unwrap();
    assert_eq!(handled.status, "done");
    let (again, higher) = rating_line(&only_to(&w.new_mail(), ANN).body);
    assert_eq!(
        again, ann_after,
        "the second game starts from the first's end"
    );
    assert!(higher > again);
}

/// `RATINGS` by mail and `pbem ratings` read the kind's ratings as the memo keeps them when it
/// covers every finished game: no game is replayed, however many are on record (shown by an
/// old game's record made unreadable after its end: a replay of it would fail).
#[test]
fn the_ratings_are_read_from_the_memo_without_replaying_the_games() {
    let mut w = World::new();
    let games: Vec<i64> = (0..2).map(|_| w.rink_won_by_a(ANN, BOB)).collect();
    let (before, code) = pbem(&w, &["ratings", "dicerink"]);
    assert_eq!(code, 0, "{before}");
    assert!(says(&before, "from 2 finished games"), "{before}");
    w.break_record(games[0]);
    let (after, code) = pbem(&w, &["ratings", "dicerink"]);
    assert_eq!((after.as_str(), code), (before.as_str(), 0));
    let raw = w.mail(BOB, "gm@pbem.example", "ratings", "RATINGS dicerink");
    assert_eq!(w.deliver(&raw).unwrap().status, "done");
    let reply = only_to(&w.new_mail(), BOB).body.clone();
    assert!(reply.contains(before.trim_end()), "{reply}\n---\n{before}");
}

/// A finished game taken back drops its kind's kept ratings: a game brought in after it
/// leaves as many finished games as the memo counted, yet the ratings are those of the games
/// on record now, as a rebuild from them gives.
#[test]
fn a_finished_game_rolled_back_is_no_longer_in_the_kept_ratings() {
    let mut w = World::new();
    let games: Vec<i64> = (0..2).map(|_| w.rink_won_by_a(ANN, BOB)).collect();
    let (out, code) = pbem(&w, &["game", "rollback", &games[1].to_string()]);
    assert_eq!(code, 0, "{out}");
    let record = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/dicerink/game2.pgn");
    let (out, code) = pbem(
        &w,
        &[
            "game",
            "new",
            "dicerink",
            "--from-record",
            record,
            "--player",
            &format!("A={ANN}"),
            "--player",
            &format!("B={BOB}"),
        ],
    );
    assert_eq!(code, 0, "{out}");
    let (kept, code) = pbem(&w, &["ratings", "dicerink"]);
    assert_eq!(code, 0, "{kept}");
    assert!(says(&kept, "from 2 finished games"), "{kept}");
    let db = rusqlite::Connection::open(w.dir.path().join("pbem.sqlite")).unwrap();
    db.execute("DELETE FROM rating_memo", []).unwrap();
    let (rebuilt, _) = pbem(&w, &["ratings", "dicerink"]);
    assert_eq!(kept, rebuilt);
}
