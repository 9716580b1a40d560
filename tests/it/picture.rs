//! Board pictures: for each game of the registry (its entry in `PICTURES`), its start and a mid-game position (replayed from tests/data) give a PNG that decodes at the game's size, stays under 60 KB, shows the seats' colours, and marks the last move exactly when there was one; every recorded game's last position draws too.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use pbem::games::{AnyGame, GameKind, Options};
use pbem::picture::{self, palette, palette::Rgb};
use pbem::records::Record;

use crate::per_game::{self, Table};

/// The most a picture may weigh in a mail.
const MAX_BYTES: usize = 60 * 1024;

/// A decoded picture: its size and how many pixels have each colour.
struct Decoded {
    width: u32,
    height: u32,
    counts: HashMap<Rgb, usize>,
}

impl Decoded {
    fn count(&self, colour: Rgb) -> usize {
        self.counts.get(&colour).copied().unwrap_or(0)
    }
}

/// Decodes a PNG to RGB (a palette expanded) and counts its colours.
fn decode(bytes: &[u8]) -> Decoded {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND);
    let mut reader = decoder.read_info().expect("a PNG header");
    let mut buf = vec![0; reader.output_buffer_size().expect("a sane size")];
    let info = reader.next_frame(&mut buf).expect("the PNG's pixels");
    let channels = info.color_type.samples();
    assert!(channels >= 3, "{:?}", info.color_type);
    let mut counts = HashMap::new();
    for px in buf[..info.buffer_size()].chunks(channels) {
        *counts.entry(Rgb(px[0], px[1], px[2])).or_insert(0) += 1;
    }
    Decoded {
        width: info.width,
        height: info.height,
        counts,
    }
}

fn data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(path)
}

/// The record's game after its first `plies` plies.
fn after(path: &str, plies: usize) -> AnyGame {
    let text = std::fs::read_to_string(data(path)).expect("the record");
    let record = Record::parse(&text).expect("a record");
    let replayed = record.replay().expect("the record replays");
    assert!(
        plies <= replayed.log.len(),
        "{path} has {} plies",
        replayed.log.len()
    );
    let mut game = record.start().expect("its start");
    for (actor, ply) in &replayed.log[..plies] {
        game.play(*actor, ply).expect("a ply of the record");
    }
    game
}

/// Draws the game and checks what every picture must be: a PNG of the game's size, at most
/// 600 pixels wide and 60 KB.
fn draw(game: &AnyGame) -> Decoded {
    let bytes = picture::board_png(game).expect("a picture");
    assert!(
        bytes.len() <= MAX_BYTES,
        "{:?}: {} bytes",
        game.kind(),
        bytes.len()
    );
    let decoded = decode(&bytes);
    let (w, h) = picture::size(game.kind());
    assert_eq!(decoded.width, w, "{:?}", game.kind());
    // Siberian's height follows its players and variant; the others' is the size's.
    if game.kind() == GameKind::Siberian {
        assert!(
            decoded.height <= h && decoded.height > h / 2,
            "{}",
            decoded.height
        );
    } else {
        assert_eq!(decoded.height, h, "{:?}", game.kind());
    }
    assert!(w <= 600, "{:?} is {w} pixels wide", game.kind());
    decoded
}

/// Pixels of a seat's colour enough for a piece on the board, not only the legend's swatch
/// (a 16-pixel square, some 210 pixels inside its outline).
const ON_THE_BOARD: usize = 350;

/// Pixels of the last move's colour enough for a mark on the board, not only the legend's
/// (a 14-pixel square's outline, some 220 pixels).
const MARKED: usize = 600;

/// A start position: drawn, no last move marked, coordinates written, and the seats that
/// have pieces at the start (`seats`) in their colours.
fn check_start(kind: GameKind, seats: &[usize]) {
    let game = AnyGame::new(kind, &Options::new()).expect("a new game");
    let pic = draw(&game);
    assert_eq!(
        pic.count(palette::LAST_MOVE),
        0,
        "{kind:?}: a start has no last move"
    );
    assert!(pic.count(palette::INK) > 300, "{kind:?}: no coordinates");
    let colours = palette::seat_colours(kind);
    for &seat in seats {
        let n = pic.count(colours[seat]);
        assert!(
            n > ON_THE_BOARD,
            "{kind:?}: seat {seat}'s colour on {n} pixels"
        );
    }
}

/// A mid-game position of `kind` (a record of that game): the last move marked, every
/// seat's pieces in its colour.
fn check_mid_game(kind: GameKind, path: &str, plies: usize) {
    let game = after(path, plies);
    assert_eq!(game.kind(), kind, "{path}");
    let pic = draw(&game);
    let marked = pic.count(palette::LAST_MOVE);
    assert!(
        marked > MARKED,
        "{path}: the last move marks {marked} pixels"
    );
    for (seat, colour) in palette::seat_colours(kind).iter().enumerate() {
        if seat >= game.seat_names().len() {
            break;
        }
        let n = pic.count(*colour);
        assert!(
            n > ON_THE_BOARD,
            "{path}: seat {seat}'s colour on {n} pixels"
        );
    }
    let start = AnyGame::new(kind, &Options::new()).expect("a new game");
    assert_ne!(
        picture::board_svg(&game),
        picture::board_svg(&start),
        "{path}: the position is drawn"
    );
}

/// A game's pictures: the seats that have pieces at the start, and a record (under
/// tests/data) whose position after `plies` plies is the mid-game one.
struct Pictures {
    seats_at_start: &'static [usize],
    record: &'static str,
    plies: usize,
}

/// Every game's pictures.
const PICTURES: &Table<Pictures> = &[
    (
        GameKind::DiceRink,
        // The set-up and five moves each of the seed's Game 2.
        Pictures {
            seats_at_start: &[],
            record: "dicerink/game2.pgn",
            plies: 14,
        },
    ),
    (
        GameKind::D4D6,
        // The seed's worked example after WHITE's Cavalo took on c7.
        Pictures {
            seats_at_start: &[0, 1],
            record: "d4d6/seed-example-played.pgn",
            plies: 3,
        },
    ),
    (
        GameKind::DipTacToe,
        // After turn 1: BLUE placed on I.B.1, RED moved to II.G.2.
        Pictures {
            seats_at_start: &[0, 1, 2, 3],
            record: "diptactoe/row-claim.pgn",
            plies: 1,
        },
    ),
    (
        GameKind::Dicess,
        // The roll, both set-ups and five turns.
        Pictures {
            seats_at_start: &[],
            record: "dicess/games/light-star-win.pgn",
            plies: 8,
        },
    ),
    (
        GameKind::Siberian,
        // Ten moves of three plies (declare, roll, place) in a three-player game.
        Pictures {
            seats_at_start: &[],
            record: "siberian/games/three-basic.pgn",
            plies: 30,
        },
    ),
];

#[test]
fn every_game_has_its_pictures_checked() {
    per_game::assert_covers("picture", PICTURES);
}

#[test]
fn every_game_draws_its_start_and_a_mid_game_position() {
    per_game::run_each("picture", PICTURES, |kind, p| {
        check_start(kind, p.seats_at_start);
        check_mid_game(kind, p.record, p.plies);
    });
}

/// Every `.pgn` under a folder, sorted.
fn records_under(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("a test data folder")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            records_under(&p, out);
        } else if p.extension().is_some_and(|e| e == "pgn") {
            out.push(p);
        }
    }
}

/// Every recorded game that replays, in whatever variant and state it ends (won, drawn,
/// resigned, mid-turn), draws within the bounds; those that do not replay are the deliberately
/// broken records.
#[test]
fn every_recorded_game_draws_within_the_bounds() {
    let mut files = Vec::new();
    for kind in GameKind::ALL {
        records_under(&data(kind.name()), &mut files);
    }
    let mut drawn = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).expect("the record");
        let Ok(record) = Record::parse(&text) else {
            continue;
        };
        let Ok(replayed) = record.replay() else {
            continue;
        };
        draw(&replayed.game);
        drawn += 1;
    }
    assert!(drawn >= 20, "only {drawn} records drawn");
}

/// The words and marks a picture uses for a duty: a side to move, a die that must move (Dice
/// Rink's `!` badge), a piece declared or rolled for a turn under way (d4 d6).
const DUTIES: &[&str] = &["to move", "must move", ">!<", " declared<", " rolled<"];

/// Once a game is over its picture names no duty, as its text board names none: Dice Rink's
/// winning roll that also matched marks no die "must move" (it did before the last roll), and
/// no other finished record or mid-turn resignation draws a side to move or a turn under way.
#[test]
fn a_finished_game_draws_no_duty() {
    let before = picture::board_svg(&after("dicerink/endgame.pgn", 4));
    assert!(
        before.contains("must move") && before.contains(">!<"),
        "{before}"
    );
    let mut finished = vec![after("dicerink/endgame.pgn", 5)];
    // d4 d6: BLACK resigns with WHITE's Cavalo declared and rolled.
    let mut resigned = after("d4d6/seed-example-played.pgn", 2);
    resigned.resign(1).expect("a resignation");
    finished.push(resigned);
    let mut files = Vec::new();
    for kind in GameKind::ALL {
        records_under(&data(kind.name()), &mut files);
    }
    for file in &files {
        let text = std::fs::read_to_string(file).expect("the record");
        let replayed = Record::parse(&text).ok().and_then(|r| r.replay().ok());
        finished.extend(replayed.map(|r| r.game).filter(|g| g.outcome().is_some()));
    }
    assert!(
        finished.len() >= 20,
        "only {} finished games",
        finished.len()
    );
    for game in &finished {
        let svg = picture::board_svg(game);
        for duty in DUTIES {
            assert!(
                !svg.contains(duty),
                "{:?}, {:?}: {duty} in {svg}",
                game.kind(),
                game.outcome_text()
            );
        }
    }
}

/// Siberian Dice's published numbers are drawn whole, or say they are cut: GROSSMEISTER's
/// sequences (at most a seat's 13 dice) in full as the text board writes them; PURITY's list
/// (up to 9999) with its count and "..." after the next few, the text board listing it all.
#[test]
fn siberian_draws_whole_sequences_and_says_where_the_published_list_is_cut() {
    let siberian = |variant: &str, tag: &str| {
        let mut options = Options::new();
        options.insert("variant".into(), variant.into());
        AnyGame::from_position(GameKind::Siberian, &options, tag).expect("a position")
    };
    let seqs = ["514263651423", "2126123"];
    let tag = format!(
        "BLUE:b4=2 RED:f3=6,a1=1,a2=2,a3=3,a4=4,b1=5 move=BLUE sequences={}",
        seqs.join(",")
    );
    let game = siberian("grossmeister", &tag);
    let lines = drawn_lines(&picture::board_svg(&game));
    for seq in seqs {
        assert!(lines.contains(&format!("next{seq}")), "{seq} in {lines:?}");
    }
    draw(&game);
    let numbers: String = (0..60)
        .map(|k| char::from(b'1' + (k * 7 % 6) as u8))
        .collect();
    let game = siberian(
        "purity",
        &format!("BLUE:e5=4 RED:- move=RED purity={numbers}"),
    );
    let lines = drawn_lines(&picture::board_svg(&game));
    assert!(lines.contains(&"numberstocome:60".to_string()), "{lines:?}");
    assert!(
        lines.contains(&format!("next{}...", &numbers[..13])),
        "{lines:?}"
    );
    draw(&game);
    let few = siberian("purity", "BLUE:e5=4 RED:- move=RED purity=365");
    assert!(drawn_lines(&picture::board_svg(&few)).contains(&"next365".to_string()));
}

/// The lines of text an SVG draws, each without its spaces: a line's texts are the `<text>`
/// elements one after another on one baseline (a legend's numbers are drawn digit by digit,
/// each digit its own element).
fn drawn_lines(svg: &str) -> Vec<String> {
    let mut lines: Vec<(String, String)> = Vec::new();
    for element in svg.split("<text ").skip(1) {
        let y = element
            .split(" y=\"")
            .nth(1)
            .and_then(|r| r.split('"').next());
        let content = element
            .split('>')
            .nth(1)
            .and_then(|r| r.split("</text").next());
        let (Some(y), Some(content)) = (y, content) else {
            continue;
        };
        let content: String = content.chars().filter(|c| *c != ' ').collect();
        match lines.last_mut() {
            Some((at, line)) if at == y => line.push_str(&content),
            _ => lines.push((y.to_string(), content)),
        }
    }
    lines.into_iter().map(|(_, line)| line).collect()
}

/// The widest picture a phone shows at about its own size: 400 CSS pixels less the mail's
/// margins (24) leave 376; a picture a little wider is shrunk by at most a twentieth.
const PHONE: u32 = 400;

/// Where the SVG writes the text `label` (its `x` and `y`), the first time.
fn text_at(svg: &str, label: &str) -> (f32, f32) {
    let end = svg
        .find(&format!(">{label}</text>"))
        .unwrap_or_else(|| panic!("no {label:?} in {svg}"));
    let start = svg[..end].rfind("<text ").expect("its element");
    let attr = |name: &str| -> f32 {
        let from = start + svg[start..].find(&format!(" {name}=\"")).unwrap() + name.len() + 3;
        let to = from + svg[from..].find('"').unwrap();
        svg[from..to].parse().unwrap()
    };
    (attr("x"), attr("y"))
}

/// Dip-Tac-Toe's four levels are a 2x2 grid (I and II on top, III and IV under them, each
/// column aligned), so the picture is narrow enough for a phone; four in a row were a strip
/// shrunk to two thirds.
#[test]
fn diptactoe_draws_its_levels_as_a_two_by_two_grid_a_phone_shows_whole() {
    let svg = picture::board_svg(&AnyGame::new(GameKind::DipTacToe, &Options::new()).unwrap());
    let at = ["I", "II", "III", "IV"].map(|l| text_at(&svg, &format!("Level {l}")));
    assert_eq!(at[0].1, at[1].1, "I and II side by side");
    assert_eq!(at[2].1, at[3].1, "III and IV side by side");
    assert!(at[2].1 > at[0].1 + 100.0, "III under I: {at:?}");
    assert_eq!((at[0].0, at[1].0), (at[2].0, at[3].0), "columns: {at:?}");
    let (width, _) = picture::size(GameKind::DipTacToe);
    assert!(width <= PHONE, "{width} pixels wide");
}

/// Siberian Dice's seats and marks are under the board, not beside it: the picture is the
/// board's width, so a phone does not shrink the board to make room for the panel.
#[test]
fn siberian_draws_its_legend_under_the_board() {
    let game = after("siberian/games/three-basic.pgn", 30);
    let svg = picture::board_svg(&game);
    // "d" is the lowest letter under the board (column d reaches lowest); d1 its lowest hex.
    let board_bottom = text_at(&svg, "d1").1;
    for label in ["BLUE", "GREEN", "perfect die", "last placed"] {
        let (_, y) = text_at(&svg, label);
        assert!(
            y > board_bottom + 30.0,
            "{label} at {y}, the board ends at {board_bottom}"
        );
    }
    let (width, _) = picture::size(GameKind::Siberian);
    assert!(width <= PHONE, "{width} pixels wide");
    draw(&game);
}

/// d4 d6's legend says what the special squares are (the waiting area, the promotion area,
/// the teleportation corners) and what a nose means; a standard game (no Rinoceronte) says
/// nothing of a Rinoceronte's facing roll, which the Rinoceronte variant explains while its
/// Rinocerontes wait for it.
#[test]
fn d4d6_legend_explains_its_squares_and_names_the_rinoceronte_only_in_its_variant() {
    let standard = picture::board_svg(&AnyGame::new(GameKind::D4D6, &Options::new()).unwrap());
    for words in [
        "waiting area",
        "promotion",
        "teleport corner",
        "nose: the way a piece faces",
    ] {
        assert!(
            standard.contains(&format!(">{words}<")),
            "{words} in {standard}"
        );
    }
    for words in ["Rinoceronte", "Ri", "not rolled"] {
        assert!(!standard.contains(words), "{words} in {standard}");
    }
    let mut options = Options::new();
    options.insert("variant".into(), "rinoceronte".into());
    let rino = AnyGame::new(GameKind::D4D6, &options).unwrap();
    let svg = picture::board_svg(&rino);
    assert!(svg.contains(">?: facing not rolled yet<"), "{svg}");
    draw(&rino);
}

/// The ring around each unit of Dip-Tac-Toe's winning line (`r` of 16.5: a unit's 13 and
/// 3.5 of room) and the legend naming it.
const RING: &str = "r=\"16.5\" fill=\"none\"";

/// Dip-Tac-Toe's final picture of a game won by a line marks the line's four units and
/// says so in its legend; no picture before the end has the mark.
#[test]
fn diptactoe_final_picture_marks_the_winning_line() {
    let won = after("diptactoe/row-claim.pgn", 3);
    assert!(won.outcome().is_some(), "row-claim ends won");
    let svg = picture::board_svg(&won);
    assert_eq!(svg.matches(RING).count(), 4, "{svg}");
    assert!(svg.contains(">winning line<"), "{svg}");
    draw(&won);
    for plies in 0..3 {
        let svg = picture::board_svg(&after("diptactoe/row-claim.pgn", plies));
        assert!(
            !svg.contains(RING) && !svg.contains("winning line"),
            "{svg}"
        );
    }
}
