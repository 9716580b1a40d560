//! The text of every mail kind a game sends one seat, compared with its golden file `tests/golden/<game>/<kind>.txt` (`BLESS=1` rewrites them; review the diff before committing): a scripted game for each game of the registry (its entry in `GOLDEN`) through `World` (fixed clock, tokens and seed), and HELP and a NEW's confirmation once, outside any game.

use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::Duration;
use pbem::compose::Ctx;
use pbem::gamelog;
use pbem::games::GameKind;
use pbem::store::OutboxRow;

use crate::common::{only_to, World};
use crate::html_mail::long_lines;
use crate::per_game::{self, Table};

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
            pbem::gm::life::reveal(&ctx.gm(tx), &mut g)?.map_err(|e| anyhow::anyhow!("{e}"))?;
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

const DIPTACTOE_KINDS: [&str; 7] = [
    "welcome",
    "order_refused",
    "move_accepted",
    "turn_report",
    "reminder",
    "game_over",
    "press",
];

/// A game's golden scenario: `play` plays a game in a fresh world and keeps the mails one
/// seat gets, of the `kinds` named (each kind's text is a golden file).
struct Golden {
    play: fn(&mut World, &mut Collected),
    kinds: &'static [&'static str],
}

/// Every game's golden scenario.
const GOLDEN: &Table<Golden> = &[
    (
        GameKind::DiceRink,
        Golden {
            play: dicerink,
            kinds: &TWO_SEAT_KINDS,
        },
    ),
    (
        GameKind::D4D6,
        Golden {
            play: d4d6,
            kinds: &DICE_KINDS,
        },
    ),
    (
        GameKind::DipTacToe,
        Golden {
            play: diptactoe,
            kinds: &DIPTACTOE_KINDS,
        },
    ),
    (
        GameKind::Dicess,
        Golden {
            play: dicess,
            kinds: &DICE_KINDS,
        },
    ),
    (
        GameKind::Siberian,
        Golden {
            play: siberian,
            kinds: &DICE_KINDS,
        },
    ),
];

/// The mails outside any game: their golden folder and kinds.
const NO_GAME: (&str, [&str; 2]) = ("no-game", ["help", "confirm"]);

#[test]
fn every_game_has_a_golden_scenario() {
    per_game::assert_covers("golden", GOLDEN);
}

#[test]
fn every_game_s_mail_matches_its_golden_text() {
    per_game::run_each("golden", GOLDEN, |kind, golden| {
        let mut w = World::new();
        let mut c = Collected::new(kind.name());
        (golden.play)(&mut w, &mut c);
        c.check(golden.kinds);
    });
}

/// Every folder of tests/golden is a game's (or the one outside any game), and every file in
/// it a mail kind its scenario keeps: no golden text is left unchecked.
#[test]
fn every_golden_file_is_checked() {
    let root = golden_dir("");
    let mut unchecked = Vec::new();
    for entry in std::fs::read_dir(&root).expect("tests/golden").flatten() {
        let folder = entry.file_name().to_string_lossy().into_owned();
        let kinds: &[&str] = if folder == NO_GAME.0 {
            &NO_GAME.1
        } else if let Some((_, g)) = GOLDEN.iter().find(|(k, _)| k.name() == folder) {
            g.kinds
        } else {
            unchecked.push(format!("{folder}/: no game of that name"));
            continue;
        };
        for file in std::fs::read_dir(entry.path()).unwrap().flatten() {
            let name = file.file_name().to_string_lossy().into_owned();
            let kind = name.strip_suffix(".txt").unwrap_or(&name);
            if !kinds.contains(&kind) {
                unchecked.push(format!("{folder}/{name}: no mail of that kind"));
            }
        }
    }
    assert!(
        unchecked.is_empty(),
        "in {}: {unchecked:#?}",
        root.display()
    );
}

/// Dice Rink: A's mails, from the welcome to B's resignation.
fn dicerink(w: &mut World, c: &mut Collected) {
    let (a, b) = ("a@example.org", "b@example.org");
    let id = w.game(
        GameKind::DiceRink,
        &[("A", a), ("B", b)],
        &[],
        None,
        Some(MOVE_SECS),
    );
    c.take(w, a, "welcome");
    deliver(w, a, id, 0, "b1 7/4");
    c.take(w, a, "order_refused");
    send(w, a, id, 0, "b1 4/2", &[]);
    c.take(w, a, "move_accepted");
    send(w, b, id, 1, "b4 6/3", &[]);
    c.take(w, a, "turn_report");
    remind(w);
    c.take(w, a, "reminder");
    send(w, b, id, 1, "RESIGN", &[]);
    c.game_over(w, id, a);
}

/// d4 d6 chess from the seed's example position: WHITE's mails, the seed revealed mid-game.
fn d4d6(w: &mut World, c: &mut Collected) {
    let (white, black) = ("white@example.org", "black@example.org");
    let pos = std::fs::read_to_string("tests/data/d4d6/seed_example.pos").unwrap();
    let id = w.game(
        GameKind::D4D6,
        &[("WHITE", white), ("BLACK", black)],
        &[("salt_window", "0")],
        Some(pos.trim()),
        Some(MOVE_SECS),
    );
    c.take(w, white, "welcome");
    deliver(w, white, id, 0, "Ca a1");
    c.take(w, white, "order_refused");
    send(w, white, id, 0, "Ca e5", &[3]);
    c.take(w, white, "move_accepted");
    send(w, black, id, 1, "Fo a5\n2: a5xb6", &[2]);
    c.take(w, white, "turn_report");
    remind(w);
    c.take(w, white, "reminder");
    reveal(w, id);
    c.take(w, white, "dice_revealed");
    send(w, black, id, 1, "RESIGN", &[]);
    c.game_over(w, id, white);
}

/// Dicess: LIGHT's mails, from the salts and set-ups to DARK's resignation.
fn dicess(w: &mut World, c: &mut Collected) {
    let (light, dark) = ("light@example.org", "dark@example.org");
    let id = w.game(
        GameKind::Dicess,
        &[("LIGHT", light), ("DARK", dark)],
        &[],
        None,
        Some(MOVE_SECS),
    );
    c.take(w, light, "welcome");
    deliver(w, light, id, 0, "SALT light's pebble\nSTART");
    deliver(w, dark, id, 1, "SALT 42\nSTART");
    w.new_mail();
    deliver(w, light, id, 0, "R1: 6 6 6 6 6 6 6 6 / R2: 1 1 2 2 3 4 5 5");
    c.take(w, light, "order_refused");
    let setup = "R1: 6 6 5 3 4 5 6 6 / R2: 6 5 2 1 1 2 5 6";
    deliver(w, light, id, 0, setup);
    c.take(w, light, "move_accepted");
    let setup = "R8: 5 5 1 5 5 3 5 6 / R7: 5 5 1 1 2 3 1 1";
    deliver(w, dark, id, 1, setup);
    c.take(w, light, "turn_report");
    remind(w);
    c.take(w, light, "reminder");
    reveal(w, id);
    c.take(w, light, "dice_revealed");
    deliver(w, dark, id, 1, "RESIGN");
    c.game_over(w, id, light);
}

/// Siberian Dice for two: BLUE's mails, the seed revealed mid-game.
fn siberian(w: &mut World, c: &mut Collected) {
    let (blue, red) = ("blue@example.org", "red@example.org");
    let id = w.game(
        GameKind::Siberian,
        &[("BLUE", blue), ("RED", red)],
        &[("salt_window", "0")],
        None,
        Some(MOVE_SECS),
    );
    c.take(w, blue, "welcome");
    deliver(w, blue, id, 0, "PLACE d4");
    c.take(w, blue, "order_refused");
    send(w, blue, id, 0, "H d4", &[1]);
    c.take(w, blue, "move_accepted");
    send(w, red, id, 1, "H c3", &[1]);
    c.take(w, blue, "turn_report");
    remind(w);
    c.take(w, blue, "reminder");
    reveal(w, id);
    c.take(w, blue, "dice_revealed");
    send(w, red, id, 1, "RESIGN", &[]);
    c.game_over(w, id, blue);
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

/// Dip-Tac-Toe for four: BLUE's mails, press included, up to BLUE's win on level I.
fn diptactoe(w: &mut World, c: &mut Collected) {
    let blue = DIPTACTOE[0].1;
    let id = w.game(GameKind::DipTacToe, &DIPTACTOE, &[], None, Some(MOVE_SECS));
    c.take(w, blue, "welcome");
    // Turn 1: RED writes to BLUE; BLUE, reminded, orders after a refused order.
    send(
        w,
        DIPTACTOE[1].1,
        id,
        1,
        "PRESS TO BLUE: leave level II to me?",
        &[],
    );
    c.take(w, blue, "press");
    others_order(w, id, ["R-II.H.2", "R-III.M.3", "R-IV.P.3"]);
    w.new_mail();
    remind(w);
    c.take(w, blue, "reminder");
    deliver(w, blue, id, 0, "SALT pebble");
    c.take(w, blue, "order_refused");
    send(w, blue, id, 0, "R-I.A.2", &[]);
    c.take(w, blue, "move_accepted");
    w.now += Duration::days(1);
    w.timers();
    c.take(w, blue, "turn_report");
    // Turns 2 and 3: BLUE builds file A on level I and wins.
    send(w, blue, id, 0, "R-I.A.3", &[]);
    others_order(w, id, ["R-II.H.3", "R-III.M.2", "R-IV.P.2"]);
    w.now += Duration::days(2);
    w.timers();
    w.new_mail();
    send(w, blue, id, 0, "R-I.A.4\nVICTORY", &[]);
    others_order(w, id, ["R-II.H.4", "R-III.M.1", "R-IV.P.1"]);
    w.new_mail();
    w.now += Duration::days(2);
    w.timers();
    c.game_over(w, id, blue);
}

#[test]
fn mail_outside_any_game_matches_its_golden_text() {
    let from = "newcomer@example.org";
    let mut w = World::new();
    let mut c = Collected::new(NO_GAME.0);
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
    c.check(&NO_GAME.1);
}
