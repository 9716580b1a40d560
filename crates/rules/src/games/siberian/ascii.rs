//! The board as text for mail: a honeycomb of the 37 hexes (column letters on its edges, each vacant hex named, each die as owner and pips), then hands, counts and the variant's state.

use super::board::SEATS;
use super::hex::{Hex, COLUMN_LENGTHS};
use super::perfection;
use super::position::Source;
use super::report;
use super::variant::Variant;
use super::{Phase, Siberian};

/// Inside width of a hex; a column takes one more (the shared slanted edge).
const INNER: usize = 6;
const STRIDE: usize = INNER + 1;
/// Columns left of the board.
const MARGIN: usize = 4;
/// Text lines: a letter above and below every column, two lines a hex, one for the top edge.
const LINES: usize = 17;

/// Half-hex steps from the bottom: columns are offset by half a hex (2 to 14).
fn height(h: Hex) -> usize {
    2 * usize::from(h.row()) + 7 - usize::from(COLUMN_LENGTHS[usize::from(h.col())])
}

/// The text line of a hex's inside.
fn content_line(h: Hex) -> usize {
    LINES - 1 - height(h)
}

struct Canvas {
    grid: Vec<Vec<char>>,
}

impl Canvas {
    fn new() -> Canvas {
        Canvas {
            grid: vec![vec![' '; MARGIN + 7 * STRIDE + 1]; LINES],
        }
    }

    fn write(&mut self, line: usize, col: usize, text: &str) {
        for (i, c) in text.chars().enumerate() {
            self.grid[line][col + i] = c;
        }
    }

    /// One hex's outline and inside: `/ text \` over `\______/`, its top edge above.
    fn hex(&mut self, h: Hex, text: &str) {
        let left = MARGIN + usize::from(h.col()) * STRIDE;
        let line = content_line(h);
        let edge = "_".repeat(INNER);
        self.write(line - 1, left + 1, &edge);
        self.write(line, left, &format!("/{text:^INNER$}\\"));
        self.write(line + 1, left, &format!("\\{edge}/"));
    }

    fn lines(&self) -> Vec<String> {
        self.grid
            .iter()
            .map(|l| l.iter().collect::<String>().trim_end().to_string())
            .collect()
    }
}

/// A hex's inside: its name when vacant; `B:5`, `*` when perfect, `[..]` for the last die
/// placed, `(..)` for the die being lifted.
fn cell(game: &Siberian, h: Hex, perfect: &[Hex]) -> String {
    let Some(d) = game.position().board.at(h) else {
        return h.to_string();
    };
    let star = if perfect.contains(&h) { "*" } else { "" };
    let die = format!("{}:{}{star}", &SEATS[d.seat][..1], d.pips);
    let lifted = match game.phase() {
        Phase::Roll(s) | Phase::Place { source: s, .. } => s.lifted() == Some(h),
        _ => false,
    };
    if lifted {
        format!("({die})")
    } else if game.last().is_some_and(|l| l.target == h) {
        format!("[{die}]")
    } else {
        die
    }
}

/// The honeycomb, letters above and below each column.
fn honeycomb(game: &Siberian) -> Vec<String> {
    let mut canvas = Canvas::new();
    let perfect = perfection::perfect_hexes(&game.position().board);
    for h in Hex::all() {
        canvas.hex(h, &cell(game, h, &perfect));
    }
    for col in 0..7u8 {
        let letter = ((b'a' + col) as char).to_string();
        let x = MARGIN + usize::from(col) * STRIDE + STRIDE / 2;
        let top = Hex::new(i32::from(col), i32::from(COLUMN_LENGTHS[usize::from(col)]));
        let bottom = Hex::new(i32::from(col), 1);
        if let (Some(top), Some(bottom)) = (top, bottom) {
            canvas.write(content_line(top) - 2, x, &letter);
            canvas.write(content_line(bottom) + 2, x, &letter);
        }
    }
    canvas.lines()
}

/// One line per seat: hand, perfect count, and the variant's dice off the board.
fn seat_lines(game: &Siberian) -> Vec<String> {
    let cfg = game.config();
    let pos = game.position();
    let counts = game.perfect_counts();
    (0..cfg.players)
        .map(|s| {
            let mut line = format!(
                "{:<6} hand {:>2}   perfect {} of {}",
                SEATS[s],
                pos.hand(cfg, s),
                counts[s],
                cfg.target
            );
            if let Some(ind) = &pos.indicators {
                line.push_str(&format!("   indicator {}", ind[s]));
            }
            if let Some(seqs) = &pos.sequences {
                let digits: String = seqs[s].iter().map(u8::to_string).collect();
                line.push_str(&format!(
                    "   sequence {}",
                    if digits.is_empty() { "-" } else { &digits }
                ));
            }
            if pos.retired[s] {
                line.push_str("   (left the game)");
            }
            line
        })
        .collect()
}

/// PURITY's numbers still to come, all of them: the rules publish the list, and a player
/// plans with the whole of it.
fn purity_line(game: &Siberian) -> Option<String> {
    let p = game.position().purity.as_ref()?;
    Some(format!(
        "Published numbers left: {}, next first, in tens: {}",
        p.len(),
        report::in_tens(p.iter().copied())
    ))
}

/// The last move in a line: `Last: RED e4 to d2, a 1 (RED +d2, BLUE -d4)`.
fn last_line(game: &Siberian) -> Option<String> {
    let last = game.last()?;
    let from = match last.source {
        Source::Hand => "H".to_string(),
        Source::Lift(h) => h.to_string(),
    };
    let changes: Vec<String> = (0..game.config().players)
        .filter_map(|s| last.change.of_seat(s).map(|c| format!("{} {c}", SEATS[s])))
        .collect();
    let changes = if changes.is_empty() {
        "no change of perfection".to_string()
    } else {
        changes.join(", ")
    };
    Some(format!(
        "Last: {} {from} {}, a {} ({changes})",
        SEATS[last.seat], last.target, last.pips
    ))
}

/// What happens next, in a line.
fn next_line(game: &Siberian) -> String {
    if let Some(end) = report::outcome_text(game) {
        return end;
    }
    let pos = game.position();
    let who = SEATS[pos.to_move];
    match game.phase() {
        Phase::Opening => match game.config().variant {
            Variant::Strategic => "The GM rolls each seat's indicator first.".into(),
            Variant::Grossmeister => "The GM rolls each seat's sequence first.".into(),
            _ => "The GM rolls the published sequence first.".into(),
        },
        Phase::Declare => format!("{who} to move: H (from the hand) or a hex of yours (lift it)."),
        Phase::Roll(s) => format!("{who} declared {}: the GM rolls it.", s.text()),
        Phase::Place { source, .. } => {
            let pips = pos
                .placed_pips(game.config(), pos.to_move, placed_roll(game))
                .unwrap_or(0);
            format!(
                "{who} declared {}: place the {pips} on a vacant hex.",
                source.text()
            )
        }
    }
}

fn placed_roll(game: &Siberian) -> Option<u8> {
    match game.phase() {
        Phase::Place { roll, .. } => roll,
        _ => None,
    }
}

/// Breaks a text line at spaces so none exceeds 72 columns (continuations indented).
pub fn wrap(line: &str) -> Vec<String> {
    crate::games::wrap_status(line, 72)
}

/// The whole board for mail, at most 72 columns wide; `last`: with the last placement's line,
/// left out where the mail's report has just told it.
pub fn render(game: &Siberian, last: bool) -> String {
    let mut text = vec![
        "  B:5 BLUE's 5   * perfect   [ ] last placed   ( ) being lifted".to_string(),
        format!(
            "Siberian Dice, {} ({} players), move {}",
            game.config().variant.name(),
            game.config().players,
            game.move_no
        ),
    ];
    text.extend(seat_lines(game));
    text.extend(purity_line(game));
    text.extend(last_line(game).filter(|_| last));
    text.push(next_line(game));
    let mut out = String::new();
    for line in honeycomb(game)
        .into_iter()
        .chain(text.iter().flat_map(|l| wrap(l)))
    {
        out.push_str(&line);
        out.push('\n');
    }
    out
}
