//! The answer to MOVES: for the seat to move, which placements make which dice perfect (or stop them), for each value the placed die may show, best first.

use super::ascii::wrap;
use super::board::{Board, Die, SEATS};
use super::hex::Hex;
use super::perfection::{self, Change};
use super::position::Source;
use super::report;
use super::variant::Variant;
use super::{Phase, Siberian};
use crate::games::Seat;

/// Lines shown per value when every value is shown, and when only one is.
const SHOWN_PER_ROLL: usize = 6;
const SHOWN_ONE_VALUE: usize = 12;

/// One placement considered: where the die comes from and goes, and what it does.
struct Candidate {
    source: Source,
    target: Hex,
    counts: Vec<usize>,
    change: Change,
}

/// The values the placed die may show, each with its heading: one when it is known before the
/// roll (STRATEGIC's indicator, GROSSMEISTER's head, PURITY's next number) or rolled already.
fn values(game: &Siberian) -> Vec<(u8, String)> {
    let pos = game.position();
    let roll = match game.phase() {
        Phase::Place { roll, .. } => roll,
        _ => None,
    };
    let what = match game.config().variant {
        Variant::Strategic => "your old indicator",
        Variant::Grossmeister => "the head of your sequence",
        Variant::Purity => "the next published number",
        Variant::Basic | Variant::Primes => "the rolled die",
    };
    match pos.placed_pips(game.config(), pos.to_move, roll) {
        Some(v) => vec![(v, format!("Placing {what}, a {v}:"))],
        None => (1..=6)
            .map(|v| (v, format!("If the roll is {v}:")))
            .collect(),
    }
}

/// Every placement of a die showing `pips` from these sources that does the mover some good
/// (one of its dice becomes perfect, or another seat's stops), best for the mover first: a
/// win, then no other seat at the target, then the widest lead over the best other seat.
fn candidates(game: &Siberian, sources: &[Source], pips: u8) -> Vec<Candidate> {
    let pos = game.position();
    let seat = pos.to_move;
    let players = game.config().players;
    let mut out = Vec::new();
    for &source in sources {
        let mut lifted: Board = pos.board.clone();
        if let Some(h) = source.lifted() {
            lifted.take(h);
        }
        for target in lifted.vacant().collect::<Vec<_>>() {
            let mut after = lifted.clone();
            after.put(target, Die { seat, pips });
            let change = Change::between(&pos.board, &after);
            let good = change.gained.iter().any(|&(_, s)| s == seat)
                || change.lost.iter().any(|&(_, s)| s != seat);
            if good {
                let counts = perfection::counts(&after, players);
                out.push(Candidate {
                    source,
                    target,
                    counts,
                    change,
                });
            }
        }
    }
    let target = game.config().target;
    let others: Vec<Seat> = pos.playing().filter(|&s| s != seat).collect();
    let key = |c: &Candidate| {
        let mine = c.counts[seat];
        let best_other = others.iter().map(|&s| c.counts[s]).max().unwrap_or(0);
        (
            mine < target,
            best_other >= target,
            std::cmp::Reverse(mine as i64 - best_other as i64),
            std::cmp::Reverse(mine),
            c.source.lifted(),
            c.target,
        )
    };
    out.sort_by_key(key);
    out
}

/// One candidate in a line: `H d2    BLUE 3 (+d2 +e4)  RED 1 (-c3)`.
fn line(game: &Siberian, c: &Candidate, with_source: bool) -> String {
    let pos = game.position();
    let target = game.config().target;
    let mv = if with_source {
        format!("{} {}", c.source.text(), c.target)
    } else {
        c.target.to_string()
    };
    let mut parts = vec![format!("  {mv:<7}")];
    for s in pos.playing() {
        let changes = c
            .change
            .of_seat(s)
            .map(|t| format!(" ({t})"))
            .unwrap_or_default();
        let reached = if c.counts[s] >= target {
            " REACHES THE TARGET"
        } else {
            ""
        };
        parts.push(format!("{} {}{changes}{reached}", SEATS[s], c.counts[s]));
    }
    parts.join("  ")
}

/// The sources the help considers, and whether a line names its source.
fn sources(game: &Siberian) -> (Vec<Source>, bool) {
    match game.phase() {
        Phase::Roll(s) | Phase::Place { source: s, .. } => (vec![s], false),
        _ => (game.declarations(), true),
    }
}

/// The text of MOVES.
pub fn render(game: &Siberian) -> String {
    if let Some(end) = report::outcome_text(game) {
        return format!("The game is over. {end}\n");
    }
    if game.phase() == Phase::Opening {
        return "The GM's opening roll comes first; there is no move to weigh yet.\n".into();
    }
    let who = SEATS[game.position().to_move];
    let (sources, with_source) = sources(game);
    let mut out = vec![format!(
        "{who} to move. Perfect dice now: {}. Below, the placements that make \
         a die of {who}'s perfect or stop another's, best first; +d2: the die on d2 becomes \
         perfect, -c3: it stops being perfect.",
        report::counts_text(game)
    )];
    let groups = values(game);
    let shown = if groups.len() == 1 {
        SHOWN_ONE_VALUE
    } else {
        SHOWN_PER_ROLL
    };
    for (pips, heading) in groups {
        out.push(String::new());
        out.push(heading);
        let found = candidates(game, &sources, pips);
        if found.is_empty() {
            out.push(format!(
                "  none makes a die of {who}'s perfect or stops another's"
            ));
        }
        for c in found.iter().take(shown) {
            out.push(line(game, c, with_source));
        }
        if found.len() > shown {
            out.push(format!("  ... and {} more", found.len() - shown));
        }
    }
    let mut text = String::new();
    for l in out.iter().flat_map(|l| {
        if l.is_empty() {
            vec![String::new()]
        } else {
            wrap(l)
        }
    }) {
        text.push_str(&l);
        text.push('\n');
    }
    text
}
