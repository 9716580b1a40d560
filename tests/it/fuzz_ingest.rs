//! Fuzzing the mail path on stable Rust: real client and robot mail from the corpus, mutated and stuffed with hostile lines, never panics, never errors and never exceeds the per-mail bounds.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::World;
use crate::work::measure;
use pbem::games::GameKind;
use proptest::prelude::*;

const ALICE: &str = "alice@example.org";
const BOB: &str = "bob@example.org";

/// Lines an attacker (or a careless player) writes, each a class the bounds must cover.
const HOSTILE: &[&str] = &[
    "HELP",
    "HELP diptactoe",
    "BOARD",
    "HISTORY",
    "MOVES",
    "LIST",
    "STATUS",
    "PRESS TO ALL: hello there",
    "PRESS TO RED, BLUE: psst",
    "DRAW OFFER",
    "DRAW ACCEPT",
    "RESIGN",
    "NEW d4d6 salt_window=9999999999999999",
    "NEW dicerink grace=-1h",
    "NEW diptactoe nmr_limit=99999999999999999999",
    "JOIN 1",
    "JOIN 99999999999999999999",
    "GAME 2",
    "SALT a pebble",
    "START",
    "VACATION 60",
    "PASSWORD:secret",
    "password = secret",
    "thanks, see you:resign",
    "{ } [Result \"*\"] 1. 2...",
    "#99999999999999999999999 b1 5/4",
    "#1 b1 5/4",
    "b1 5/4",
    "I.A.1 - II.F.2",
    "Reserve - I.A.2",
    "e2e4",
    "> quoted",
    "-- ",
];

/// Every .eml under the project's mail corpus.
fn corpus() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut dirs = vec![Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/mail")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let p = entry.path();
            if p.is_dir() {
                dirs.push(p);
            } else if p.extension().is_some_and(|e| e == "eml") {
                files.push(p);
            }
        }
    }
    files.sort();
    assert!(files.len() > 50, "the corpus is missing: {}", files.len());
    files
}

/// A world with games in which the fuzzed sender has seats.
fn world() -> (World, Vec<String>) {
    let mut w = World::new();
    let rink = w.game(
        GameKind::DiceRink,
        &[("A", ALICE), ("B", BOB)],
        &[],
        None,
        Some(86400),
    );
    let dip = w.game(
        GameKind::DipTacToe,
        &[
            ("BLUE", ALICE),
            ("RED", BOB),
            ("GREEN", "g@example.org"),
            ("YELLOW", "y@example.org"),
        ],
        &[],
        None,
        Some(86400),
    );
    let d4 = w.game(
        GameKind::D4D6,
        &[("WHITE", ALICE), ("BLACK", BOB)],
        &[("salt_window", "0")],
        None,
        None,
    );
    let seats = vec![
        w.seat_address(rink, 0),
        w.seat_address(dip, 0),
        w.seat_address(d4, 0),
        "gm@pbem.example".to_string(),
        "gm+confirm-nosuchcode@pbem.example".to_string(),
    ];
    w.new_mail();
    (w, seats)
}

/// One mutation of a mail.
#[derive(Debug, Clone)]
enum Mutation {
    /// Overwrite the byte at (position modulo length).
    Flip(usize, u8),
    /// Cut the mail at (position modulo length).
    Truncate(usize),
    /// Insert `count` copies of a hostile line after the headers.
    Stuff(usize, usize),
    /// Make it come from a player, to one of the GM's addresses.
    Readdress(usize),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(p, b)| Mutation::Flip(p, b)),
        any::<usize>().prop_map(Mutation::Truncate),
        (0..HOSTILE.len(), 1usize..3000).prop_map(|(l, n)| Mutation::Stuff(l, n)),
        (0usize..5).prop_map(Mutation::Readdress),
    ]
}

fn apply(raw: &mut Vec<u8>, m: &Mutation, seats: &[String]) {
    match m {
        Mutation::Flip(p, b) if !raw.is_empty() => {
            let i = p % raw.len();
            raw[i] = *b;
        }
        Mutation::Truncate(p) if !raw.is_empty() => raw.truncate(p % raw.len()),
        Mutation::Stuff(line, count) => {
            let at = find(raw, b"\r\n\r\n")
                .map(|i| i + 4)
                .or_else(|| find(raw, b"\n\n").map(|i| i + 2))
                .unwrap_or(raw.len());
            let stuffing = format!("{}\r\n", HOSTILE[*line]).repeat(*count);
            raw.splice(at..at, stuffing.into_bytes());
        }
        Mutation::Readdress(s) => {
            let headers = format!("From: Alice <{ALICE}>\r\nTo: {}\r\n", seats[*s]);
            raw.splice(0..0, headers.into_bytes());
        }
        _ => {}
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("PBEM_FUZZ_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(128), failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_corpus_mail_never_panics_and_stays_within_bounds(
        picks in proptest::collection::vec(
            (any::<prop::sample::Index>(), proptest::collection::vec(mutation(), 0..4)),
            1..4,
        )
    ) {
        let files = corpus();
        let (mut w, seats) = world();
        for (n, (pick, mutations)) in picks.iter().enumerate() {
            let path = pick.get(&files);
            let mut raw = std::fs::read(path).unwrap();
            for m in mutations {
                apply(&mut raw, m, &seats);
            }
            // A fresh Message-ID per delivery, so no mail is taken for a redelivery of another.
            raw.splice(0..0, format!("Message-ID: <fuzz{n}@fuzz.example>\r\n").into_bytes());
            let kept = pbem::mail::intake::read_bounded(&mut &raw[..], w.cfg.max_message_bytes).unwrap();
            prop_assert!(kept.len() <= w.cfg.max_message_bytes + 70 * 1024);
            let handled = w.deliver(&kept);
            if let Some(h) = &handled {
                prop_assert!(h.status == "done" || h.status == "refused", "{}: {h:?}", path.display());
            }
            let mail = w.new_mail();
            prop_assert!(mail.len() <= w.cfg.max_mails_per_message, "{}: {} mails", path.display(), mail.len());
            for m in &mail {
                prop_assert!(m.body.len() <= w.cfg.max_reply_bytes, "{}: {} bytes", path.display(), m.body.len());
                prop_assert!(!m.body.contains("secret") || !m.body.contains("PASSWORD:secret"));
            }
        }
    }
}

/// Pieces of hostile HTML, each repeated to fill a part: markup whose parse or layout grows
/// faster than its size (nesting, self-closed blocks, reopened formatting, tables, lists).
const HTML_PIECES: &[&str] = &[
    "<blockquote/>x ",
    "<blockquote>x",
    "<div>",
    "<div/>",
    "</div>",
    "</span></p></li>",
    "<b>",
    "<b id=N>",
    "<font color=N>",
    "<a href=N>",
    "</p>x<p>",
    "<p>",
    "x",
    "<table><tr><td>",
    "<td>x",
    "<tr>",
    "<ul><li>",
    "<li>",
    "<!-- </div> -->",
    "<span title='</div>'>",
    "<svg><g/>",
    "<style>",
    "</b>",
    "&amp;&nbsp;",
    "<br>",
    "<h1><h2>",
];

/// Hostile header lines: many addresses and robot markers.
fn hostile_headers(addresses: usize, delivered: usize) -> String {
    let mut headers = String::from("To: gm@pbem.example");
    for n in 0..addresses {
        headers.push_str(&format!(", \"N{n}\" <a{n}@x.example>"));
    }
    headers.push_str("\r\n");
    for n in 0..delivered {
        headers.push_str(&format!("Delivered-To: d{n}@x.example\r\n"));
    }
    headers
}

/// An HTML mail of at most `max` bytes: each part a run of pieces, each piece repeated.
fn hostile_html_mail(parts: &[Vec<(usize, usize)>], headers: &str, max: usize) -> Vec<u8> {
    let mut raw = format!(
        "From: Alice <{ALICE}>\r\n{headers}Subject: Re: move\r\nMessage-ID: <html@fuzz.example>\r\n\
         MIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary=\"b\"\r\n\r\n"
    );
    let share = max.saturating_sub(raw.len() + 100) / parts.len().max(1);
    for (p, pieces) in parts.iter().enumerate() {
        raw.push_str("--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n");
        let mut part = String::new();
        for (n, (piece, count)) in pieces.iter().enumerate() {
            for k in 0..*count {
                let piece = HTML_PIECES[*piece].replace('N', &format!("{p}x{n}x{k}"));
                if part.len() + piece.len() > share {
                    break;
                }
                part.push_str(&piece);
            }
        }
        raw.push_str(&part);
        raw.push_str("\r\n");
    }
    raw.push_str("--b--\r\n");
    raw.truncate(max);
    raw.into_bytes()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: std::env::var("PBEM_FUZZ_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(12), failure_persistence: None, ..ProptestConfig::default() })]

    /// Issue 25: a mail of at most max_message_bytes, whatever HTML and headers it holds, is
    /// read and answered in about a second of CPU and under 150 MB.
    #[test]
    fn hostile_html_and_headers_are_read_and_answered_in_bounded_work(
        parts in proptest::collection::vec(
            proptest::collection::vec((0..HTML_PIECES.len(), 1usize..40_000), 1..4),
            1..14,
        ),
        addresses in 0usize..30_000,
        delivered in 0usize..3_000,
    ) {
        let (mut w, _) = world();
        let max = w.cfg.max_message_bytes;
        let raw = hostile_html_mail(&parts, &hostile_headers(addresses, delivered), max);
        let cfg = w.cfg.clone();
        let templates = pbem::template::Templates::load(None).unwrap();
        let ctx = pbem::compose::Ctx::new(&cfg, &templates, w.now);
        let (_, cost) = measure(|| crate::common::process_raw(&mut w.store, &ctx, &raw, None));
        prop_assert!(cost.cpu < Duration::from_secs(5), "{cost:?}");
        prop_assert!(cost.peak < 150 << 20, "{cost:?}");
    }
}
