//! The chart of a game kind's results by seat over time: each seat's wins (and the draws) counted up over the finished games in the order they ended, drawn as SVG.

use std::fmt::Write as _;

use super::html::esc;
use crate::games::Outcome;
use crate::gm::stats::GameFacts;

const W: f64 = 640.0;
const H: f64 = 320.0;
/// The plot's margins: left for the counts, bottom for the dates, top for the legend.
const LEFT: f64 = 44.0;
const BOTTOM: f64 = 40.0;
const TOP: f64 = 36.0;
const RIGHT: f64 = 16.0;

/// One colour a line, seats first, the draws last (grey).
const COLOURS: [&str; 5] = ["#1f4f8a", "#b2402b", "#2e7d32", "#8a5a00", "#6a3d9a"];
const DRAWS: &str = "#777777";

/// The chart of `games` (one kind's, in the order they ended): a line per seat and one
/// for draws, each the running count of results.
pub(super) fn svg(games: &[&GameFacts]) -> String {
    let finished: Vec<&&GameFacts> = games.iter().filter(|f| f.outcome.is_some()).collect();
    let mut seats: Vec<String> = Vec::new();
    for f in &finished {
        for s in &f.seat_names {
            if !seats.contains(s) {
                seats.push(s.clone());
            }
        }
    }
    // Running counts: one series a seat, then the draws.
    let mut series: Vec<Vec<usize>> = vec![vec![0]; seats.len() + 1];
    for f in &finished {
        let hit = match &f.outcome {
            Some(Outcome::Win { seat, .. }) => f
                .seat_names
                .get(*seat)
                .and_then(|s| seats.iter().position(|x| x == s)),
            _ => Some(seats.len()),
        };
        for (i, line) in series.iter_mut().enumerate() {
            let last = *line.last().unwrap_or(&0);
            line.push(last + usize::from(hit == Some(i)));
        }
    }
    let most = series.iter().flatten().copied().max().unwrap_or(0).max(1);
    let n = finished.len().max(1);
    let x = |i: usize| LEFT + (W - LEFT - RIGHT) * i as f64 / n as f64;
    let y = |v: usize| H - BOTTOM - (H - BOTTOM - TOP) * v as f64 / most as f64;
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {W} {H}\" width=\"{W}\" \
         height=\"{H}\" font-family=\"sans-serif\" font-size=\"13\">\n\
         <rect width=\"{W}\" height=\"{H}\" fill=\"#fdfcf8\"/>\n"
    );
    // The axes, the count at the top of the scale and the first and last dates.
    let _ = writeln!(
        out,
        "<path d=\"M{LEFT} {TOP} V{} H{}\" stroke=\"#444\" fill=\"none\"/>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\">{most}</text>\n\
         <text x=\"{}\" y=\"{}\" text-anchor=\"end\">0</text>",
        H - BOTTOM,
        W - RIGHT,
        LEFT - 6.0,
        TOP + 5.0,
        LEFT - 6.0,
        H - BOTTOM + 5.0
    );
    if let (Some(first), Some(last)) = (finished.first(), finished.last()) {
        let _ = writeln!(
            out,
            "<text x=\"{LEFT}\" y=\"{}\">{}</text>\n<text x=\"{}\" y=\"{}\" \
             text-anchor=\"end\">{} ({} finished)</text>",
            H - 14.0,
            first.last.format("%Y-%m-%d"),
            W - RIGHT,
            H - 14.0,
            last.last.format("%Y-%m-%d"),
            finished.len()
        );
    }
    let names: Vec<String> = seats
        .iter()
        .map(|s| format!("{s} wins"))
        .chain(["draws".to_string()])
        .collect();
    let step = ((W - LEFT) / names.len() as f64).min(120.0);
    for (i, (line, name)) in series.iter().zip(&names).enumerate() {
        let colour = if i == seats.len() {
            DRAWS
        } else {
            COLOURS[i % COLOURS.len()]
        };
        let points: Vec<String> = line
            .iter()
            .enumerate()
            .map(|(k, v)| format!("{:.1},{:.1}", x(k), y(*v)))
            .collect();
        let _ = writeln!(
            out,
            "<polyline points=\"{}\" fill=\"none\" stroke=\"{colour}\" stroke-width=\"2.5\"/>\n\
             <rect x=\"{}\" y=\"10\" width=\"14\" height=\"14\" fill=\"{colour}\"/>\
             <text x=\"{}\" y=\"22\">{} ({})</text>",
            points.join(" "),
            LEFT + step * i as f64,
            LEFT + step * i as f64 + 18.0,
            esc(name),
            line.last().unwrap_or(&0)
        );
    }
    out.push_str("</svg>\n");
    out
}
