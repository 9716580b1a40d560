//! The HTML part of mail, by its structure: for each game of the registry (its entry in `TURN_REPORTS`) a turn report played by mail and given its HTML part (`compose::illustrate`), then parsed back: text/plain beside multipart/related (text/html + image/png by Content-ID), a PNG at most 600 px wide and 60 KB, HTML with inline styles only and nothing fetched or run, and text lines of at most 78 characters.

use mail_parser::{MessageParser, MessagePart, MimeHeaders, PartType};
use pbem::games::GameKind;
use pbem::store::OutboxRow;

use crate::common::{only_to, World};
use crate::per_game::{self, Table};

/// The most a board picture may weigh in a mail.
const MAX_PNG_BYTES: usize = 60 * 1024;

/// The longest line of a mail's text part (RFC 5322's 78, for readers of plain text).
pub const MAX_TEXT_COLUMNS: usize = 78;

/// The parts of a mail with an HTML alternative.
#[derive(Debug)]
pub struct Parts {
    pub html: String,
    /// The text part, its line ends `\n`.
    pub text: String,
    /// The picture's Content-ID (without angle brackets).
    pub content_id: String,
    pub png: Vec<u8>,
}

/// How a game's turn report comes about: played by mail in the world, it gives the game's
/// id and the address of the seat the report goes to.
pub type Play = fn(&mut World) -> (i64, &'static str);

/// Every game's turn report (the browser test shows the same ones).
pub const TURN_REPORTS: &Table<Play> = &[
    (GameKind::DiceRink, dicerink),
    (GameKind::D4D6, d4d6),
    (GameKind::DipTacToe, diptactoe),
    (GameKind::Dicess, dicess),
    (GameKind::Siberian, siberian),
];

/// A game's turn report, played by mail in a fresh world by `play`: the world and the
/// report's row.
pub fn turn_report(play: Play) -> (World, OutboxRow) {
    let mut w = World::new();
    let (id, to) = play(&mut w);
    let mail = w.new_mail();
    let row = only_to(&mail, to).clone();
    assert_eq!(row.kind, "turn_report", "{}", row.body);
    assert_eq!(row.game_id, Some(id));
    (w, row)
}

/// A d4 d6 chess welcome (it carries the dice's 64-digit commitment), in a fresh world: the
/// world and WHITE's welcome's row.
pub fn welcome() -> (World, OutboxRow) {
    let mut w = World::new();
    let players = [
        ("WHITE", "white@example.org"),
        ("BLACK", "black@example.org"),
    ];
    w.game(GameKind::D4D6, &players, &[], None, None);
    let mail = w.new_mail();
    let row = only_to(&mail, players[0].1).clone();
    assert_eq!(row.kind, "welcome", "{}", row.body);
    (w, row)
}

/// The finished bytes of outbox row `id` once every waiting mail got its HTML part.
pub fn illustrated(w: &mut World, id: i64) -> Vec<u8> {
    pbem::compose::illustrate::run(&mut w.store, &w.cfg).unwrap();
    w.store
        .tx(|tx| tx.outbox_raw(id))
        .unwrap()
        .expect("the mail's bytes")
}

/// Sends `body` from `from` to a seat's secret address with scripted dice.
fn send(w: &mut World, from: &str, id: i64, seat: usize, body: &str, rolls: &[u32]) {
    w.send_scripted(from, id, seat, body, rolls);
}

/// Dice Rink: the set-up of the seed's Game 2 and a move each; B gets the report.
fn dicerink(w: &mut World) -> (i64, &'static str) {
    let players = [("A", "a@example.org"), ("B", "b@example.org")];
    let id = w.game(GameKind::DiceRink, &players, &[], None, None);
    let plies = ["b1 4/2", "b4 6/3", "d1 3/1", "d4 1/4", "3N6"];
    for (n, ply) in plies.iter().enumerate() {
        send(w, players[n % 2].1, id, n % 2, ply, &[]);
    }
    w.new_mail();
    send(w, players[1].1, id, 1, "6S4", &[]);
    (id, players[0].1)
}

/// d4 d6 chess from the seed's example: WHITE's Cavalo rolls 3, its one move forced.
fn d4d6(w: &mut World) -> (i64, &'static str) {
    let pos = std::fs::read_to_string("tests/data/d4d6/seed_example.pos").unwrap();
    let players = [
        ("WHITE", "white@example.org"),
        ("BLACK", "black@example.org"),
    ];
    let opts = [("salt_window", "0")];
    let id = w.game(GameKind::D4D6, &players, &opts, Some(pos.trim()), None);
    w.new_mail();
    send(w, players[0].1, id, 0, "Ca e5", &[3]);
    (id, players[1].1)
}

/// Dip-Tac-Toe: four seats order, the deadline passes, the turn is adjudicated.
fn diptactoe(w: &mut World) -> (i64, &'static str) {
    let players = [
        ("BLUE", "blue@example.org"),
        ("RED", "red@example.org"),
        ("GREEN", "green@example.org"),
        ("YELLOW", "yellow@example.org"),
    ];
    let id = w.game(GameKind::DipTacToe, &players, &[], None, Some(2 * 86400));
    for (seat, order) in ["R-I.A.2", "R-II.H.2", "R-III.M.3", "R-IV.P.3"]
        .iter()
        .enumerate()
    {
        send(w, players[seat].1, id, seat, order, &[]);
    }
    w.new_mail();
    w.now += chrono::Duration::days(2);
    assert_eq!(w.timers(), 1);
    (id, players[0].1)
}

/// Dicess (game 1 of a fresh store, so the roll is the one `dicess_mail` knows): the salts,
/// the GM's 32 dice, both set-ups and LIGHT's first turn; DARK gets the report.
fn dicess(w: &mut World) -> (i64, &'static str) {
    let players = [("LIGHT", "light@example.org"), ("DARK", "dark@example.org")];
    let id = w.game(GameKind::Dicess, &players, &[], None, None);
    assert_eq!(id, 1);
    for (seat, body) in [
        (0, "SALT light's pebble\nSTART"),
        (1, "SALT 42\nSTART"),
        (0, "R1: 6 6 5 3 4 5 6 6 / R2: 6 5 2 1 1 2 5 6"),
        (1, "R8: 5 5 1 5 5 3 5 6 / R7: 5 5 1 1 2 3 1 1"),
    ] {
        let to = w.seat_address(id, seat);
        let raw = w.mail(players[seat].1, &to, "Re: Dicess", body);
        assert_eq!(w.deliver(&raw).unwrap().status, "done", "{body}");
    }
    w.new_mail();
    send(w, players[0].1, id, 0, "d2-d3-d4-d5; e2-e3-e4", &[]);
    (id, players[1].1)
}

/// Siberian Dice for two: BLUE's `H d4`, then RED's `H c3`; BLUE gets the report.
fn siberian(w: &mut World) -> (i64, &'static str) {
    let players = [("BLUE", "blue@example.org"), ("RED", "red@example.org")];
    let id = w.game(
        GameKind::Siberian,
        &players,
        &[("salt_window", "0")],
        None,
        None,
    );
    send(w, players[0].1, id, 0, "H d4", &[1]);
    w.new_mail();
    send(w, players[1].1, id, 1, "H c3", &[1]);
    (id, players[0].1)
}

/// A part's MIME type, `type/subtype`, lowercase.
fn mime(part: &MessagePart) -> String {
    let ct = part.content_type().expect("a Content-Type");
    format!("{}/{}", ct.ctype(), ct.subtype().unwrap_or_default()).to_ascii_lowercase()
}

/// The children of a multipart part.
fn children<'a, 'x>(parts: &'a [MessagePart<'x>], part: &MessagePart) -> Vec<&'a MessagePart<'x>> {
    match &part.body {
        PartType::Multipart(ids) => ids.iter().map(|&i| &parts[i as usize]).collect(),
        _ => panic!("{} is not a multipart", mime(part)),
    }
}

/// Parses a finished mail and checks its shape: multipart/alternative of text/plain and
/// multipart/related, which holds text/html and one image/png.
pub fn parts(raw: &[u8]) -> Parts {
    let msg = MessageParser::default().parse(raw).expect("a mail");
    let root = &msg.parts[0];
    assert_eq!(mime(root), "multipart/alternative");
    let top = children(&msg.parts, root);
    let types: Vec<String> = top.iter().map(|p| mime(p)).collect();
    assert_eq!(types, ["text/plain", "multipart/related"]);
    let related = children(&msg.parts, top[1]);
    let types: Vec<String> = related.iter().map(|p| mime(p)).collect();
    assert_eq!(types, ["text/html", "image/png"]);
    let text = top[0]
        .text_contents()
        .expect("a text part")
        .replace("\r\n", "\n");
    let html = related[0]
        .text_contents()
        .expect("an HTML part")
        .to_string();
    let content_id = related[1]
        .content_id()
        .expect("the picture's Content-ID")
        .trim_matches(['<', '>'])
        .to_string();
    Parts {
        text,
        html,
        content_id,
        png: related[1].contents().to_vec(),
    }
}

/// The values of every `src="..."` attribute of the HTML.
pub fn sources(html: &str) -> Vec<String> {
    html.split("src=\"")
        .skip(1)
        .map(|rest| rest.split('"').next().unwrap().to_string())
        .collect()
}

/// A PNG's width and height.
pub fn png_size(bytes: &[u8]) -> (u32, u32) {
    let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size().expect("a sane size")];
    let info = reader.next_frame(&mut buf).expect("the PNG's pixels");
    (info.width, info.height)
}

/// The lines of a text longer than `MAX_TEXT_COLUMNS` characters.
pub fn long_lines(text: &str) -> Vec<&str> {
    text.lines()
        .filter(|l| l.chars().count() > MAX_TEXT_COLUMNS)
        .collect()
}

/// Everything the HTML part of `game`'s turn report must be.
fn check(game: GameKind, play: Play) {
    let (mut w, row) = turn_report(play);
    let raw = illustrated(&mut w, row.id);
    let p = parts(&raw);
    // The picture: referenced by its Content-ID, a PNG that decodes, small enough for mail.
    assert_eq!(
        sources(&p.html),
        [format!("cid:{}", p.content_id)],
        "{game}"
    );
    let (width, height) = png_size(&p.png);
    assert!(width <= 600 && height > 0, "{game}: {width}x{height}");
    assert!(
        p.png.len() <= MAX_PNG_BYTES,
        "{game}: {} bytes",
        p.png.len()
    );
    // Nothing run, fetched or styled from elsewhere: clients drop all of it.
    let lower = p.html.to_ascii_lowercase();
    for banned in ["<script", "data:", "<style", "<link", "http://", "https://"] {
        assert!(!lower.contains(banned), "{game}: {banned} in\n{}", p.html);
    }
    assert!(lower.contains("<pre style=\""), "{game}: {}", p.html);
    // The text part is the mail's text, readable in any terminal.
    assert_eq!(p.text.trim_end(), row.body.replace("\r\n", "\n").trim_end());
    let long = long_lines(&p.text);
    assert!(
        long.is_empty(),
        "{game}: lines over 78: {long:#?}\n{}",
        p.text
    );
}

#[test]
fn every_game_has_a_turn_report_to_illustrate() {
    per_game::assert_covers("html_mail", TURN_REPORTS);
}

#[test]
fn every_game_s_turn_report_has_its_html_part() {
    per_game::run_each("html_mail", TURN_REPORTS, |game, &play| check(game, play));
}
