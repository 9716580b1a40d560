//! Robots at the table (issue 28): robot seats by the GM and by mail, a seat handed to the robot and back, the robot standing in at a deadline (`timeout=robot`), and the robots' pass outside any mail's transaction.

use crate::common::{only_to, output_text, pbem_in, says, World};
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
                // Her reply, and nothing else: the robot does not move inside her mail's
                // transaction, the robots' pass does it after.
                assert_eq!(mail.len(), 1, "{mail:#?}");
                let g = w.load(id);
                assert_eq!(
                    g.moves.last().unwrap().actor,
                    "A",
                    "the robot waits for its pass"
                );
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
    the_record_says_and_replays(&g, &["{robot}", "[B \"robot (strong)\"]"]);
}

/// The game's record holds each of `marks` and replays to the game's position.
fn the_record_says_and_replays(g: &pbem::gamelog::Loaded, marks: &[&str]) {
    let export = pbem::gm::export(g).unwrap();
    for mark in marks {
        assert!(export.contains(mark), "{mark}: {export}");
    }
    let again = pbem::records::Record::parse(&export)
        .unwrap()
        .replay()
        .unwrap();
    assert_eq!(again.game.position_tag(), g.game.position_tag());
}

#[test]
fn new_dicerink_robot_by_mail_opens_a_game_against_the_robot() {
    let mut w = World::new();
    let handled = w.ask_and_confirm(ALICE, "NEW dicerink robot:easy");
    assert_eq!(handled.status, "done");
    let mail = w.new_mail();
    let reply = mail
        .iter()
        .find(|m| m.to_addr == ALICE && m.kind != "welcome")
        .expect("the confirmation's answer");
    assert!(
        says(&reply.body, "game #1 created; you play A"),
        "{}",
        reply.body
    );
    assert!(says(&reply.body, "the robot (easy)"), "{}", reply.body);
    let welcome = mail
        .iter()
        .find(|m| m.kind == "welcome")
        .expect("a welcome");
    assert!(says(&welcome.body, "B: robot (easy)"), "{}", welcome.body);
    assert!(mail.iter().all(|m| m.to_addr == ALICE), "{mail:#?}");
    let g = w.load(1);
    assert_eq!(g.row.status, "active");
    assert_eq!(g.seat(1).unwrap().robot.as_deref(), Some("easy"));
    // She moves, and the robot answers in the next pass.
    let mut lcg = Lcg(3);
    alice_moves(&mut w, 1, 0, &mut lcg);
    w.new_mail();
    assert_eq!(robots(&mut w), 1);
    let mail = w.new_mail();
    assert_eq!(mail.len(), 1, "{mail:#?}");
    assert_eq!(mail[0].to_addr, ALICE);
    // An unknown level is refused in words, and nothing waits to be confirmed.
    let raw = w.mail(BOB, "gm@pbem.example", "new", "NEW dicerink robot:genius");
    w.deliver(&raw).unwrap();
    let answer = only_to(&w.new_mail(), BOB).body.clone();
    assert!(!says(&answer, "To confirm, reply"), "{answer}");
}

#[test]
fn timeout_robot_plays_for_a_late_seat_and_tells_everyone() {
    let mut w = World::new();
    let id = w.game(
        GameKind::DiceRink,
        &[("A", ALICE), ("B", BOB)],
        &[("timeout", "robot")],
        None,
        Some(3600),
    );
    w.new_mail();
    w.now += chrono::Duration::hours(2);
    assert_eq!(w.timers(), 1);
    let g = w.load(id);
    assert_eq!(g.moves.len(), 1, "the robot played A's move");
    assert_eq!(g.moves[0].actor, "A");
    assert_eq!(
        g.moves[0].robot.as_deref(),
        Some("robot for A, out of time")
    );
    // The seat stays Alice's, and B is to move with a fresh deadline.
    assert_eq!(g.seat(0).unwrap().email.as_deref(), Some(ALICE));
    assert!(g.seat(0).unwrap().robot.is_none());
    assert_eq!(g.game.to_act(), ToAct::Seat(1));
    assert!(g.row.deadline.is_some_and(|d| d > w.now));
    let mail = w.new_mail();
    let ply = &g.moves[0].text;
    for to in [ALICE, BOB] {
        let m = only_to(&mail, to);
        assert!(
            says(
                &m.body,
                &format!("The robot played for A (out of time): {ply}.")
            ),
            "{to}: {}",
            m.body
        );
    }
    let alice = &only_to(&mail, ALICE).body;
    assert!(
        says(alice, &format!("the robot played {ply} for you")),
        "{alice}"
    );
    // Alice plays on as usual when it is her turn again.
    let to = w.seat_address(id, 1);
    let legal = w.load(id).game.legal_plies();
    let raw = w.mail(BOB, &to, "Re: move", &legal[0]);
    assert_eq!(w.deliver(&raw).unwrap().status, "done");
    let mut lcg = Lcg(5);
    alice_moves(&mut w, id, 0, &mut lcg);
    let g = w.load(id);
    assert_eq!(g.moves.len(), 3);
    assert!(g.moves[2].robot.is_none());
    // The record marks the robot's ply and replays.
    the_record_says_and_replays(&g, &["{robot for A, out of time}"]);
}

#[test]
fn timeout_robot_orders_for_a_late_seat_in_dip_tac_toe() {
    let mut w = World::new();
    let players = [
        ("BLUE", ALICE),
        ("RED", BOB),
        ("GREEN", "robot"),
        ("YELLOW", "robot:normal"),
    ];
    let id = w.game(
        GameKind::DipTacToe,
        &players,
        &[("timeout", "robot")],
        None,
        Some(3600),
    );
    w.new_mail();
    // The robots order in their pass; Alice orders by mail; Bob is late.
    assert_eq!(robots(&mut w), 2);
    assert!(w.new_mail().is_empty(), "orders are not told");
    let g = w.load(id);
    let blue = g.game.check_orders(0, &[]);
    assert!(blue.is_empty());
    let order = g
        .game
        .legal_plies()
        .into_iter()
        .find_map(|p| p.strip_prefix("BLUE:").map(str::to_string))
        .unwrap();
    let to = w.seat_address(id, 0);
    let raw = w.mail(ALICE, &to, "Re: orders", &order);
    assert_eq!(w.deliver(&raw).unwrap().status, "done");
    w.new_mail();
    w.now += chrono::Duration::hours(2);
    assert!(w.timers() >= 1);
    let g = w.load(id);
    assert_eq!(g.moves.len(), 1, "the turn was adjudicated");
    assert_eq!(
        g.moves[0].robot.as_deref(),
        Some("robot: GREEN, YELLOW; robot for RED, out of time")
    );
    let mail = w.new_mail();
    for to in [ALICE, BOB] {
        let m = mail
            .iter()
            .find(|m| m.to_addr == to && says(&m.body, "The robot played for RED (out of time)."))
            .unwrap_or_else(|| panic!("{to}: {mail:#?}"));
        assert_eq!(m.game_id, Some(id));
    }
    assert!(
        mail.iter()
            .any(|m| m.to_addr == BOB && says(&m.body, "the robot ordered for you")),
        "{mail:#?}"
    );
    assert!(mail
        .iter()
        .all(|m| m.to_addr == ALICE || m.to_addr == BOB || m.to_addr == crate::common::ADMIN));
    the_record_says_and_replays(&g, &["{robot: GREEN, YELLOW; robot for RED, out of time}"]);
}

/// `pbem ARGS` in `dir`: its exit code and what it printed.
fn run(dir: &std::path::Path, args: &[&str]) -> (i32, String) {
    let o = pbem_in(dir, args);
    (o.status.code().unwrap_or(-1), output_text(&o))
}

/// The first ply `pbem game legal 1 --seat A` lists (Dice Rink: a die and its step).
fn a_legal_ply_of_a(dir: &std::path::Path) -> String {
    let (_, legal) = run(dir, &["game", "legal", "1", "--seat", "A"]);
    let words: Vec<&str> = legal.lines().nth(1).unwrap().split_whitespace().collect();
    format!("{} {}", words[0], words[1])
}

#[test]
fn a_gm_seats_a_robot_hands_a_seat_to_it_and_back() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert_eq!(run(d, &["init"]).0, 0);
    // A game with a seat open, which the GM opens to the robot.
    let (code, out) = run(
        d,
        &["game", "new", "dicerink", "--player", "A=alice@example.org"],
    );
    assert_eq!(code, 0, "{out}");
    let (code, out) = run(d, &["game", "join", "1", "robot:normal", "--seat", "B"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("the game has begun"), "{out}");
    let (code, out) = run(d, &["game", "show", "1"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("robot (normal)"), "{out}");
    // Alice moves (the GM for her), and `serve --once` plays the robot's answer.
    let ply = a_legal_ply_of_a(d);
    let (code, out) = run(d, &["game", "play", "1", "--seat", "A", &ply]);
    assert_eq!(code, 0, "{out}");
    let (_, moves) = run(d, &["game", "moves", "1"]);
    assert_eq!(
        moves.lines().count(),
        1,
        "the robot waits for its pass: {moves}"
    );
    let (code, out) = run(d, &["serve", "--once"]);
    assert_eq!(code, 0, "{out}");
    let (_, moves) = run(d, &["game", "moves", "1"]);
    let robot: Vec<&str> = moves.lines().filter(|l| l.contains("{robot}")).collect();
    assert_eq!(robot.len(), 1, "{moves}");
    assert!(robot[0].contains(" B "), "{moves}");
    // A whole game of robots is allowed; a bad level is refused.
    let (code, out) = run(
        d,
        &[
            "game",
            "new",
            "dicerink",
            "--player",
            "A=robot",
            "--player",
            "B=robot:easy",
        ],
    );
    assert_eq!(code, 0, "{out}");
    let (code, out) = run(d, &["game", "new", "dicerink", "--player", "A=robot:best"]);
    assert_eq!(code, 1, "{out}");
    // A human game: the GM hands B to the robot, then gives it back to a player.
    let (code, out) = run(
        d,
        &[
            "game",
            "new",
            "dicerink",
            "--player",
            "A=carol@example.org",
            "--player",
            "B=dave@example.org",
        ],
    );
    assert_eq!(code, 0, "{out}");
    let (code, out) = run(d, &["game", "eject", "3", "--seat", "B", "--robot"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("now played by the robot (strong)"), "{out}");
    let (_, show) = run(d, &["game", "show", "3"]);
    assert!(
        show.contains("robot (strong)") && !show.contains("dave@"),
        "{show}"
    );
    let (code, out) = run(
        d,
        &["game", "replace", "3", "--seat", "B", "erin@example.org"],
    );
    assert_eq!(code, 0, "{out}");
    let (_, show) = run(d, &["game", "show", "3"]);
    assert!(
        show.contains("erin@example.org") && !show.contains("robot ("),
        "{show}"
    );
    let (code, out) = run(d, &["game", "replace", "3", "--seat", "A", "robot:easy"]);
    assert_eq!(code, 0, "{out}");
    let (_, show) = run(d, &["game", "show", "3"]);
    assert!(
        show.contains("robot (easy)") && !show.contains("carol@"),
        "{show}"
    );
}

#[test]
fn the_ingest_worker_plays_the_robot_after_it_answered_the_mail() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert_eq!(run(d, &["init"]).0, 0);
    let new = [
        "game",
        "new",
        "dicerink",
        "--player",
        "A=alice@example.org",
        "--player",
        "B=robot",
    ];
    assert_eq!(run(d, &new).0, 0);
    let welcome = crate::common::out_files(d);
    assert_eq!(welcome.len(), 1, "the robot gets no mail");
    let reply_to = welcome[0]
        .lines()
        .find_map(|l| l.strip_prefix("Reply-To: "))
        .expect("a Reply-To")
        .trim()
        .to_string();
    let ply = a_legal_ply_of_a(d);
    let mail = format!(
        "From: alice@example.org\r\nTo: {reply_to}\r\nSubject: Re: move\r\n\
         Message-ID: <robots-ingest-1@example.org>\r\n\r\n{ply}\r\n"
    );
    let mut child = crate::common::pbem_command(d, "g.sqlite")
        .arg("ingest")
        .stdin(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), mail.as_bytes()).unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
    crate::common::wait_for_workers(&d.join("g.sqlite"));
    let (_, moves) = run(d, &["game", "moves", "1"]);
    assert_eq!(moves.lines().count(), 2, "{moves}");
    assert!(moves.lines().nth(1).unwrap().contains("{robot}"), "{moves}");
    // Alice got her reply and the report of the robot's move.
    let to_alice = crate::common::out_files(d)
        .into_iter()
        .filter(|m| m.contains("To: alice@example.org"))
        .count();
    assert_eq!(to_alice, 3, "the welcome, her reply, the robot's move");
}

/// Press goes to the players who read it: ALL skips a robot seat, naming one is refused in
/// words, and no footer offers a robot as someone to write to.
#[test]
fn press_skips_robot_seats_and_a_robot_named_is_refused() {
    let mut w = World::new();
    let players = [
        ("BLUE", ALICE),
        ("RED", BOB),
        ("GREEN", "robot"),
        ("YELLOW", "carol@example.org"),
    ];
    let id = w.game(GameKind::DipTacToe, &players, &[], None, None);
    w.new_mail();
    w.send_to_seat(ALICE, id, 0, "PRESS TO ALL: shall we share the centre?")
        .unwrap();
    let mail = w.new_mail();
    let press: Vec<_> = mail.iter().filter(|m| m.kind == "press").collect();
    assert_eq!(press.len(), 2, "RED and YELLOW read it: {mail:#?}");
    for m in &press {
        assert!(!m.body.contains("GREEN"), "{}", m.body);
    }
    // RED may write to YELLOW too; no footer offers an empty list when only robots are left.
    let to_red = press.iter().find(|m| m.to_addr == BOB).unwrap();
    assert!(
        says(&to_red.body, "You may also write to YELLOW"),
        "{}",
        to_red.body
    );
    w.send_to_seat(ALICE, id, 0, "PRESS TO GREEN: hello?")
        .unwrap();
    let mail = w.new_mail();
    let reply = &only_to(&mail, ALICE).body;
    assert!(
        says(reply, "GREEN is played by the robot, which reads no press"),
        "{reply}"
    );
    assert!(mail.iter().all(|m| m.kind != "press"));
}

/// With every other seat a robot or the sender, the press footer offers nobody else: no
/// "write to , or to ALL".
#[test]
fn a_press_footer_with_only_robots_left_names_nobody_else() {
    let mut w = World::new();
    let players = [
        ("BLUE", ALICE),
        ("RED", BOB),
        ("GREEN", "robot"),
        ("YELLOW", "robot:easy"),
    ];
    let id = w.game(GameKind::DipTacToe, &players, &[], None, None);
    w.new_mail();
    w.send_to_seat(ALICE, id, 0, "PRESS TO ALL: hello").unwrap();
    let mail = w.new_mail();
    let press = mail.iter().find(|m| m.kind == "press").unwrap();
    assert!(
        says(&press.body, "reply with PRESS TO BLUE: and your words.)"),
        "{}",
        press.body
    );
    assert!(!says(&press.body, "write to , or"), "{}", press.body);
}

/// Robots facing each other go on within one pass only up to its bound a game
/// (`PLIES_PER_PASS`), so that no game holds the others up; the next pass goes on.
#[test]
fn a_game_of_robots_only_plays_at_most_the_bound_a_pass() {
    let mut w = World::new();
    // Siberian Dice among three easy robots runs to hundreds of decisions.
    let players = [
        ("BLUE", "robot:easy"),
        ("RED", "robot:easy"),
        ("GREEN", "robot:easy"),
    ];
    let id = w.game(
        GameKind::Siberian,
        &players,
        &[("players", "3")],
        None,
        None,
    );
    let bound = pbem::gm::robots::PLIES_PER_PASS;
    assert_eq!(robots(&mut w), bound);
    let g = w.load(id);
    let robot_plies = g.moves.iter().filter(|m| m.robot.is_some()).count();
    assert_eq!(robot_plies, bound);
    assert_eq!(g.row.status, "active", "the game goes on at the next pass");
    assert!(robots(&mut w) >= 1);
}

/// `pbem bench robots --game` takes a game pbem knows: another would bench nothing.
#[test]
fn bench_robots_refuses_an_unknown_game() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = run(dir.path(), &["bench", "robots", "--game", "chess"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("dicerink"), "{out}");
}

/// A robot's decision is searched with no lock held, on the position as read; when the game
/// moved on before it could be played (a player's mail, the GM, another pass), it is dropped,
/// never played on a position it was not made for.
#[test]
fn a_robot_decision_the_game_moved_past_is_not_played() {
    let mut w = World::new();
    let players = [("A", "robot:easy"), ("B", "robot:easy")];
    let id = w.game(GameKind::DiceRink, &players, &[], None, None);
    let due = robots_due(&mut w, id).expect("a robot is to act");
    let decisions = pbem::gm::robots::decide_due(&due);
    assert!(robots(&mut w) >= 1, "the game moves on meanwhile");
    let before = w.load(id).moves.len();
    assert_eq!(
        play_decided(&mut w, &due, decisions),
        0,
        "a stale decision is dropped"
    );
    assert_eq!(w.load(id).moves.len(), before);
    // Made on the position as it is now, a decision is played.
    if let Some(due) = robots_due(&mut w, id) {
        let decisions = pbem::gm::robots::decide_due(&due);
        assert!(play_decided(&mut w, &due, decisions) >= 1);
        assert!(w.load(id).moves.len() > before);
    }
}

/// A decision is played only on the position it was made for: when the GM took the player's
/// move back and she played another in its place meanwhile, the game has as many plies as
/// when the robot read it, yet another position: the decision is dropped.
#[test]
fn a_robot_decision_on_a_position_taken_back_is_not_played() {
    let mut w = World::new();
    let players = [("A", ALICE), ("B", "robot:easy")];
    let id = w.game(GameKind::DiceRink, &players, &[], None, None);
    w.new_mail();
    let legal = w.load(id).game.legal_plies();
    w.send_to_seat(ALICE, id, 0, &legal[0]).unwrap();
    let plies = w.load(id).moves.len();
    let due = robots_due(&mut w, id).expect("the robot is to act");
    let decisions = pbem::gm::robots::decide_due(&due);
    let o = crate::common::pbem_command(w.dir.path(), "pbem.sqlite")
        .args(["game", "rollback", &id.to_string()])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", output_text(&o));
    w.send_to_seat(ALICE, id, 0, &legal[legal.len() - 1])
        .unwrap();
    let g = w.load(id);
    assert_eq!(g.moves.len(), plies, "as many plies, another position");
    assert_eq!(
        play_decided(&mut w, &due, decisions),
        0,
        "a decision for the position taken back is dropped"
    );
    assert_eq!(w.load(id).moves.len(), plies);
}

/// What the robots of game `id` owe now, read as the pass reads it.
fn robots_due(w: &mut World, id: i64) -> Option<pbem::gm::robots::Due> {
    w.store
        .read(|tx| pbem::gm::robots::due(tx, id, 10))
        .unwrap()
}

/// The robots' decisions played as the pass plays them, in a write transaction of their own.
fn play_decided(
    w: &mut World,
    due: &pbem::gm::robots::Due,
    decisions: Vec<(usize, Option<pbem::robot::Decision>)>,
) -> usize {
    let ctx = Ctx::new(&w.cfg, &w.templates, w.now);
    let early = chrono::Duration::zero();
    w.store
        .tx(|tx| pbem::gm::robots::play_decided(&mut ctx.gm(tx), due, decisions, early))
        .unwrap()
}

/// A game of `kind` against the robot (Alice in `seat`, from `position` if given), then Alice's
/// `body` mailed to her seat, handled; the mails so far read: the robots' pass is next.
fn alice_writes_to_a_robot_game(
    w: &mut World,
    kind: GameKind,
    players: &[(&str, &str)],
    position: Option<&str>,
    body: &str,
) -> i64 {
    let id = w.game(kind, players, &[], position, None);
    w.new_mail();
    let seat = players.iter().position(|(_, who)| *who == ALICE).unwrap();
    let to = w.seat_address(id, seat);
    let raw = w.mail(
        ALICE,
        &to,
        &format!("Re: [pbem #{id}] {}", kind.title()),
        body,
    );
    assert_eq!(w.deliver(&raw).unwrap().status, "done", "{body}");
    w.new_mail();
    id
}

/// A draw offered to the robot is answered at its next pass: in a balanced position it agrees,
/// and the game ends drawn, as with a player's DRAW.
#[test]
fn the_robot_answers_a_draw_offer() {
    let mut w = World::new();
    let players = [("A", ALICE), ("B", "robot")];
    let id = alice_writes_to_a_robot_game(&mut w, GameKind::DiceRink, &players, None, "DRAW");
    assert_eq!(
        w.load(id).row.status,
        "active",
        "the robot answers at its pass"
    );
    assert!(robots(&mut w) >= 1);
    let g = w.load(id);
    assert_eq!(g.row.status, "finished");
    assert!(
        matches!(g.game.outcome(), Some(pbem::games::Outcome::Draw { .. })),
        "{:?}",
        g.game.outcome()
    );
    let mail = w.new_mail();
    let over = only_to(&mail, ALICE);
    assert!(says(&over.body, "draw"), "{}", over.body);
}

/// A robot ahead declines a draw: the offer is withdrawn, the player told, the game goes on.
#[test]
fn a_robot_ahead_declines_a_draw() {
    let mut w = World::new();
    // White (the robot) has a Gata, a Formiga and two Ratos against Black's lone Rato.
    let players = [("WHITE", "robot:easy"), ("BLACK", ALICE)];
    let position = Some("W:Gad4,Foc3,Rae3,Raf3 B:Raf6 b");
    let id = alice_writes_to_a_robot_game(&mut w, GameKind::D4D6, &players, position, "DRAW");
    assert_eq!(robots(&mut w), 1, "the robot answered");
    let g = w.load(id);
    assert_eq!(g.row.status, "active");
    assert!(
        g.seats.iter().all(|s| !s.draw_offer),
        "the offer is withdrawn"
    );
    let mail = w.new_mail();
    let told = only_to(&mail, ALICE);
    assert!(says(&told.body, "decline"), "{}", told.body);
}

/// A robot's turn of several plies (Siberian Dice: its die declared, the GM's roll, its hex)
/// is played in a transaction per ply, yet told as one mail, as a player's turn would be.
#[test]
fn a_robots_turn_of_several_plies_is_one_mail() {
    let mut w = World::new();
    let players = [("BLUE", ALICE), ("RED", "robot:easy")];
    alice_writes_to_a_robot_game(&mut w, GameKind::Siberian, &players, None, "H d4");
    assert_eq!(robots(&mut w), 2, "the robot declared, then placed");
    let mail = w.new_mail();
    let report = only_to(&mail, ALICE);
    assert!(says(&report.body, "The GM rolled"), "{}", report.body);
    assert!(says(&report.body, "RED placed"), "{}", report.body);
}
