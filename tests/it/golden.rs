//! The text of every mail kind a game sends one seat, compared with its golden file `tests/golden/<game>/<kind>.txt` (`BLESS=1` rewrites them; review the diff before committing): a scripted game per game through `World` (fixed clock, tokens and seed), and HELP and a NEW's confirmation once, outside any game.

use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::Duration;
use pbem::compose::{self, Ctx, DiceRevealed};
use pbem::gamelog;
use pbem::games::GameKind;
use pbem::store::OutboxRow;

use crate::common::{only_to, World};
use crate::html_mail::long_lines;

/// A deadline two days after each move: a reminder comes a day before it.
const MOVE_SECS: i64 = 2 * 86400;

fn bless() -> bool {
    std::env::var_os("BLESS").is_some_and(|v| !v.is_empty() && v != "0")
}

fn golden_dir(game: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(game)
}

/// The mails one seat got in a scenario, by golden file name (the mail's kind).
struct Collected {
    game: &'static str,
    mails: Vec<(&'static str, String)>,
    /// The game's record: the game-over mail carries it as it is, its tag pairs as long as
    /// their values make them.
    record: String,
}

impl Collected {
    fn new(game: &'static str) -> Collected {
        Collected {
            game,
            mails: Vec::new(),
            record: String::new(),
        }
    }

    /// Keeps the one mail to `to` among the mail queued since the last look, checking its kind.
    fn take(&mut self, w: &mut World, to: &str, kind: &'static str) {
        let mail = w.new_mail();
        self.keep(only_to(&mail, to), kind);
    }

    fn keep(&mut self, row: &OutboxRow, kind: &'static str) {
        assert_eq!(row.kind, kind, "{}: {}", self.game, row.body);
        assert!(
            !self.mails.iter().any(|(k, _)| *k == kind),
            "{}: {kind} twice",
            self.game
        );
        self.mails.push((kind, row.body.clone()));
    }

    /// Takes the game-over mail to `to`, and the game's record it carries.
    fn game_over(&mut self, w: &mut World, id: i64, to: &str) {
        self.take(w, to, "game_over");
        self.record = pbem::gm::export(&w.load(id)).unwrap();
    }

    /// Compares every mail with its golden file (or writes them, blessing), and checks that
    /// the expected kinds are all there and every line fits 78 columns.
    fn check(self, kinds: &[&str]) {
        let mut have: Vec<&str> = self.mails.iter().map(|(k, _)| *k).collect();
        have.sort_unstable();
        let mut want = kinds.to_vec();
        want.sort_unstable();
        assert_eq!(have, want, "{}: the mail kinds", self.game);
        let dir = golden_dir(self.game);
        let mut failures = Vec::new();
        for (kind, body) in &self.mails {
            let long: Vec<&str> = long_lines(body)
                .into_iter()
                .filter(|l| !self.record.lines().any(|r| r == *l))
                .collect();
            if !long.is_empty() {
                failures.push(format!("{}/{kind}: lines over 78: {long:#?}", self.game));
            }
            let path = dir.join(format!("{kind}.txt"));
            let golden = std::fs::read_to_string(&path).ok();
            if golden.as_deref() == Some(body.as_str()) {
                continue;
            }
            if bless() {
                std::fs::create_dir_all(&dir).unwrap();
                std::fs::write(&path, body).unwrap();
                // Past the harness's capture: a rewrite must be seen.
                let _ = writeln!(std::io::stderr(), "blessed {}", path.display());
                continue;
            }
            failures.push(match golden {
                None => format!("no {} (BLESS=1 writes it):\n{body}", path.display()),
                Some(g) => format!(
                    "{} says\n{g}\nbut the mail is\n{body}\n(BLESS=1 accepts the mail)",
                    path.display()
                ),
            });
        }
        assert!(failures.is_empty(), "{}", failures.join("\n\n"));
    }
}

/// Delivers `body` from `from` to a seat's secret address with scripted dice.
fn send(w: &mut World, from: &str, id: i64, seat: usize, body: &str, rolls: &[u32]) {
    w.send_scripted(from, id, seat, body, rolls);
}

/// Delivers `body` from `from` to a seat's secret address; the game rolls its own dice.
fn deliver(w: &mut World, from: &str, id: i64, seat: usize, body: &str) {
    let to = w.seat_address(id, seat);
    let raw = w.mail(from, &to, &format!("Re: [pbem #{id}] a move"), body);
    assert_eq!(w.deliver(&raw).unwrap().status, "done", "{body}");
}

/// The day before the deadline: the timers remind whoever owes a move.
fn remind(w: &mut World) {
    w.now += Duration::hours(25);
    assert_eq!(w.timers(), 1);
}

/// The GM reveals the dice seed mid-game (`pbem game reveal`): every seat is told.
fn reveal(w: &mut World, id: i64) {
    let ctx = Ctx::new(&w.cfg, &w.templates, w.now);
    w.store
        .tx(|tx| {
            let mut g = gamelog::load(tx, id)?;
            tx.reveal_seed(id)?;
            g.row.seed_revealed = true;
            for s in &g.seats {
                compose::to_seat(tx, &ctx, &g, s.seat, &DiceRevealed {}, None)?;
            }
            Ok(())
        })
        .unwrap();
}

const TWO_SEAT_KINDS: [&str; 6] = [
    "welcome",
    "order_refused",
    "move_accepted",
    "turn_report",
    "reminder",
    "game_over",
];

const DICE_KINDS: [&str; 7] = [
    "welcome",
    "order_refused",
    "move_accepted",
    "turn_report",
    "reminder",
    "dice_revealed",
    "game_over",
];

#[test]
fn dice_rink_mail_matches_its_golden_text() {
    let (a, b) = ("a@example.org", "b@example.org");
    let mut w = World::new();
    let mut c = Collected::new("dicerink");
    let id = w.game(
        GameKind::DiceRink,
        &[("A", a), ("B", b)],
        &[],
        None,
        Some(MOVE_SECS),
    );
    c.take(&mut w, a, "welcome");
    deliver(&mut w, a, id, 0, "b1 7/4");
    c.take(&mut w, a, "order_refused");
    send(&mut w, a, id, 0, "b1 4/2", &[]);
    c.take(&mut w, a, "move_accepted");
    send(&mut w, b, id, 1, "b4 6/3", &[]);
    c.take(&mut w, a, "turn_report");
    remind(&mut w);
    c.take(&mut w, a, "reminder");
    send(&mut w, b, id, 1, "RESIGN", &[]);
    c.game_over(&mut w, id, a);
    c.check(&TWO_SEAT_KINDS);
}

#[test]
fn d4d6_mail_matches_its_golden_text() {
    let (white, black) = ("white@example.org", "black@example.org");
    let pos = std::fs::read_to_string("tests/data/d4d6/seed_example.pos").unwrap();
    let mut w = World::new();
    let mut c = Collected::new("d4d6");
    let id = w.game(
        GameKind::D4D6,
        &[("WHITE", white), ("BLACK", black)],
        &[("salt_window", "0")],
        Some(pos.trim()),
        Some(MOVE_SECS),
    );
    c.take(&mut w, white, "welcome");
    deliver(&mut w, white, id, 0, "Ca a1");
    c.take(&mut w, white, "order_refused");
    send(&mut w, white, id, 0, "Ca e5", &[3]);
    c.take(&mut w, white, "move_accepted");
    send(&mut w, black, id, 1, "Fo a5\n2: a5xb6", &[2]);
    c.take(&mut w, white, "turn_report");
    remind(&mut w);
    c.take(&mut w, white, "reminder");
    reveal(&mut w, id);
    c.take(&mut w, white, "dice_revealed");
    send(&mut w, black, id, 1, "RESIGN", &[]);
    c.game_over(&mut w, id, white);
    c.check(&DICE_KINDS);
}

#[test]
fn dicess_mail_matches_its_golden_text() {
    let (light, dark) = ("light@example.org", "dark@example.org");
    let mut w = World::new();
    let mut c = Collected::new("dicess");
    let id = w.game(
        GameKind::Dicess,
        &[("LIGHT", light), ("DARK", dark)],
        &[],
        None,
        Some(MOVE_SECS),
    );
    c.take(&mut w, light, "welcome");
    deliver(&mut w, light, id, 0, "SALT light's pebble\nSTART");
    deliver(&mut w, dark, id, 1, "SALT 42\nSTART");
    w.new_mail();
    deliver(
        &mut w,
        light,
        id,
        0,
        "R1: 6 6 6 6 6 6 6 6 / R2: 1 1 2 2 3 4 5 5",
    );
    c.take(&mut w, light, "order_refused");
    let setup = "R1: 6 6 5 3 4 5 6 6 / R2: 6 5 2 1 1 2 5 6";
    deliver(&mut w, light, id, 0, setup);
    c.take(&mut w, light, "move_accepted");
    let setup = "R8: 5 5 1 5 5 3 5 6 / R7: 5 5 1 1 2 3 1 1";
    deliver(&mut w, dark, id, 1, setup);
    c.take(&mut w, light, "turn_report");
    remind(&mut w);
    c.take(&mut w, light, "reminder");
    reveal(&mut w, id);
    c.take(&mut w, light, "dice_revealed");
    deliver(&mut w, dark, id, 1, "RESIGN");
    c.game_over(&mut w, id, light);
    c.check(&DICE_KINDS);
}

#[test]
fn siberian_mail_matches_its_golden_text() {
    let (blue, red) = ("blue@example.org", "red@example.org");
    let mut w = World::new();
    let mut c = Collected::new("siberian");
    let id = w.game(
        GameKind::Siberian,
        &[("BLUE", blue), ("RED", red)],
        &[("salt_window", "0")],
        None,
        Some(MOVE_SECS),
    );
    c.take(&mut w, blue, "welcome");
    deliver(&mut w, blue, id, 0, "PLACE d4");
    c.take(&mut w, blue, "order_refused");
    send(&mut w, blue, id, 0, "H d4", &[1]);
    c.take(&mut w, blue, "move_accepted");
    send(&mut w, red, id, 1, "H c3", &[1]);
    c.take(&mut w, blue, "turn_report");
    remind(&mut w);
    c.take(&mut w, blue, "reminder");
    reveal(&mut w, id);
    c.take(&mut w, blue, "dice_revealed");
    send(&mut w, red, id, 1, "RESIGN", &[]);
    c.game_over(&mut w, id, blue);
    c.check(&DICE_KINDS);
}

const DIPTACTOE: [(&str, &str); 4] = [
    ("BLUE", "blue@example.org"),
    ("RED", "red@example.org"),
    ("GREEN", "green@example.org"),
    ("YELLOW", "yellow@example.org"),
];

/// Orders from seats 1 to 3 for one Dip-Tac-Toe turn (BLUE's come apart).
fn others_order(w: &mut World, id: i64, orders: [&str; 3]) {
    for (seat, order) in orders.iter().enumerate() {
        send(w, DIPTACTOE[seat + 1].1, id, seat + 1, order, &[]);
    }
}

#[test]
fn diptactoe_mail_matches_its_golden_text() {
    let blue = DIPTACTOE[0].1;
    let mut w = World::new();
    let mut c = Collected::new("diptactoe");
    let id = w.game(GameKind::DipTacToe, &DIPTACTOE, &[], None, Some(MOVE_SECS));
    c.take(&mut w, blue, "welcome");
    // Turn 1: RED writes to BLUE; BLUE, reminded, orders after a refused order.
    send(
        &mut w,
        DIPTACTOE[1].1,
        id,
        1,
        "PRESS TO BLUE: leave level II to me?",
        &[],
    );
    c.take(&mut w, blue, "press");
    others_order(&mut w, id, ["R-II.H.2", "R-III.M.3", "R-IV.P.3"]);
    w.new_mail();
    remind(&mut w);
    c.take(&mut w, blue, "reminder");
    deliver(&mut w, blue, id, 0, "SALT pebble");
    c.take(&mut w, blue, "order_refused");
    send(&mut w, blue, id, 0, "R-I.A.2", &[]);
    c.take(&mut w, blue, "move_accepted");
    w.now += Duration::days(1);
    w.timers();
    c.take(&mut w, blue, "turn_report");
    // Turns 2 and 3: BLUE builds file A on level I and wins.
    send(&mut w, blue, id, 0, "R-I.A.3", &[]);
    others_order(&mut w, id, ["R-II.H.3", "R-III.M.2", "R-IV.P.2"]);
    w.now += Duration::days(2);
    w.timers();
    w.new_mail();
    send(&mut w, blue, id, 0, "R-I.A.4\nVICTORY", &[]);
    others_order(&mut w, id, ["R-II.H.4", "R-III.M.1", "R-IV.P.1"]);
    w.new_mail();
    w.now += Duration::days(2);
    w.timers();
    c.game_over(&mut w, id, blue);
    let mut kinds = TWO_SEAT_KINDS.to_vec();
    kinds.push("press");
    c.check(&kinds);
}

#[test]
fn mail_outside_any_game_matches_its_golden_text() {
    let from = "newcomer@example.org";
    let mut w = World::new();
    let mut c = Collected::new("no-game");
    let raw = w.mail(from, "gm@pbem.example", "hello", "HELP");
    assert_eq!(w.deliver(&raw).unwrap().status, "done");
    let mail = w.new_mail();
    let help = only_to(&mail, from);
    c.mails.push(("help", help.body.clone()));
    let raw = w.mail(from, "gm@pbem.example", "a game", "NEW dicerink");
    assert_eq!(w.deliver(&raw).unwrap().status, "done");
    let mail = w.new_mail();
    let confirm = only_to(&mail, from);
    assert!(
        confirm.body.contains("To confirm, reply"),
        "{}",
        confirm.body
    );
    c.mails.push(("confirm", confirm.body.clone()));
    c.check(&["help", "confirm"]);
}
