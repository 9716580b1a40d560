//! The GM as a service: every operation a player asks for by mail has a command-line twin that calls the same GM operation (join, status, legal moves, orders, history, a player's games, START, a planned declaration), and resignations and draws work with more than two seats.

use std::path::Path;

use crate::common::{output_text as text, pbem_in as pbem};

/// Runs pbem and insists it succeeds; its output.
fn ok(dir: &Path, args: &[&str]) -> String {
    let o = pbem(dir, args);
    assert!(o.status.success(), "pbem {args:?}: {}", text(&o));
    text(&o)
}

fn mails(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("out")).map_or(0, |d| d.count())
}

/// A Dip-Tac-Toe game opened by BLUE, its other seats taken from the command line.
fn four_seats(d: &Path) {
    ok(d, &["init"]);
    let id = ok(
        d,
        &[
            "game",
            "new",
            "diptactoe",
            "--player",
            "BLUE=blue@example.org",
        ],
    );
    // The id, then (on standard error) how the open seats fill.
    assert_eq!(id.lines().next(), Some("1"), "{id}");
    let joined = ok(d, &["game", "join", "1", "red@example.org"]);
    assert!(joined.contains("red@example.org plays RED"), "{joined}");
    let o = pbem(d, &["game", "join", "1", "Red@Example.org"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o).contains("you already play in game 1"),
        "{}",
        text(&o)
    );
    let o = pbem(d, &["game", "join", "1", "x@example.org", "--seat", "RED"]);
    assert!(
        text(&o).contains("seat RED is not open in game 1"),
        "{}",
        text(&o)
    );
    ok(
        d,
        &[
            "game",
            "join",
            "1",
            "yellow@example.org",
            "--seat",
            "YELLOW",
        ],
    );
    assert_eq!(mails(d), 0, "no welcome before every seat is taken");
    let last = ok(d, &["game", "join", "1", "green@example.org"]);
    assert!(last.contains("plays GREEN"), "{last}");
    assert!(last.contains("the game has begun"), "{last}");
    assert_eq!(mails(d), 4, "every seat gets its welcome");
}

#[test]
fn a_seats_mail_operations_have_command_line_twins() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    four_seats(d);
    let games = ok(d, &["player", "games", "red@example.org"]);
    assert!(
        games.contains("#1 Dip-Tac-Toe (active), you play RED"),
        "{games}"
    );
    let status = ok(d, &["game", "status", "1", "--seat", "GREEN"]);
    assert!(status.contains("you play GREEN"), "{status}");
    assert!(status.contains("YELLOW: yellow@example.org"), "{status}");
    let legal = ok(d, &["game", "legal", "1", "--seat", "BLUE"]);
    assert!(legal.starts_with("Your legal moves ("), "{legal}");
    let orders = ok(
        d,
        &[
            "game",
            "orders",
            "1",
            "--seat",
            "BLUE",
            "I.A.1 - I.B.1",
            "nonsense",
        ],
    );
    assert!(orders.contains("ok    I.A.1 - I.B.1"), "{orders}");
    // Prose is no order: ignored, not recorded as a void one.
    assert!(orders.contains("ignored  nonsense"), "{orders}");
    // START means nothing in a game without dice: refused in words.
    let o = pbem(d, &["game", "start", "1", "--seat", "RED"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(text(&o).contains("rolls no dice"), "{}", text(&o));
    assert_eq!(ok(d, &["game", "history", "1"]).trim(), "", "no ply yet");
}

#[test]
fn with_four_seats_a_resignation_leaves_three_who_share_an_agreed_draw() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    four_seats(d);
    ok(d, &["game", "resign", "1", "--seat", "YELLOW"]);
    let status = ok(d, &["game", "status", "1"]);
    assert!(status.contains("(active)"), "the game goes on: {status}");
    ok(d, &["game", "draw", "1", "--seat", "BLUE", "offer"]);
    ok(d, &["game", "draw", "1", "--seat", "RED", "accept"]);
    let agreed = ok(d, &["game", "draw", "1", "--seat", "GREEN", "accept"]);
    assert!(
        agreed.contains("draw agreed by all"),
        "YELLOW resigned and has no say: {agreed}"
    );
    let export = pbem(d, &["export", "1"]);
    std::fs::write(d.join("g.pgn"), &export.stdout).unwrap();
    let o = pbem(d, &["replay", "--json", "g.pgn"]);
    assert!(o.status.success(), "{}", text(&o));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["outcome"]["draw"], true);
    assert_eq!(
        v["outcome"]["drawn"],
        serde_json::json!(["BLUE", "RED", "GREEN"])
    );
}

#[test]
fn start_by_seat_then_a_planned_declaration_from_the_command_line() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    ok(d, &["init"]);
    ok(
        d,
        &[
            "game",
            "new",
            "d4d6",
            "--player",
            "WHITE=w@example.org",
            "--player",
            "BLACK=b@example.org",
        ],
    );
    let first = ok(d, &["game", "start", "1", "--seat", "WHITE"]);
    assert!(first.contains("WHITE is ready"), "{first}");
    let second = ok(d, &["game", "start", "1", "--seat", "BLACK"]);
    assert!(second.contains("every player is ready"), "{second}");
    let o = pbem(d, &["game", "start", "1", "--seat", "BLACK"]);
    assert!(
        text(&o).contains("the salts are already fixed"),
        "{}",
        text(&o)
    );
    let planned = ok(
        d,
        &[
            "game", "plan", "1", "--seat", "WHITE", "Ga d1 d6", "*: stay",
        ],
    );
    assert!(planned.contains("WHITE: Gad1:d6"), "{planned}");
    assert!(planned.contains("chance: roll"), "the GM rolled: {planned}");
    let history = ok(d, &["game", "history", "1"]);
    assert!(
        history.contains("stay"),
        "the planned outcome was played: {history}"
    );
    let o = pbem(
        d,
        &["game", "plan", "1", "--seat", "BLACK", "hello", "there"],
    );
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
}

/// Each of the GM's commands says what its lines are, and the GM holds it to that: a ply for a
/// seat in a turn of orders is refused by the rules and records no orders; orders outside a
/// turn of orders, or a plan that is no plan, are refused; prose alone gives no orders.
#[test]
fn the_gms_commands_for_a_seat_do_only_what_they_say() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    four_seats(d);
    let o = pbem(d, &["game", "play", "1", "--seat", "RED", "I.A.1 - I.B.1"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("orders go to the GM"), "{}", text(&o));
    let red_awaited = |show: &str| {
        show.lines()
            .any(|l| l.trim_start().starts_with("RED") && l.contains("orders still awaited"))
    };
    let show = ok(d, &["game", "show", "1"]);
    assert!(red_awaited(&show), "no orders were recorded: {show}");
    let prose = ok(d, &["game", "orders", "1", "--seat", "RED", "hello there"]);
    assert!(prose.contains("no orders given for RED"), "{prose}");
    let show = ok(d, &["game", "show", "1"]);
    assert!(red_awaited(&show), "prose is no order: {show}");
    let o = pbem(d, &["game", "plan", "1", "--seat", "RED", "hello", "there"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("not a declaration with planned outcomes"),
        "{}",
        text(&o)
    );
    // A resignation is any seat's ply, in a turn of orders too; the GM reads what was played.
    let resigned = ok(d, &["game", "play", "1", "--seat", "RED", "resign"]);
    assert!(
        resigned.contains("The GM played resign for RED."),
        "{resigned}"
    );
}
