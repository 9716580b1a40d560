//! What reading and answering one mail may cost, whatever it holds: the HTML bombs and the huge To: of issue 25, measured by the test binary's counting allocator and the thread's CPU time.

use std::time::Duration;

use crate::common::World;
use crate::work::{measure, Cost};
use pbem::games::GameKind;
use pbem::mail::inbound;

const ALICE: &str = "alice@example.org";
const BOB: &str = "bob@example.org";

/// The bound for a mail of max_message_bytes, read and answered: about 1 s of CPU
/// (a debug build is given five) and 150 MB.
const MAX_CPU: Duration = Duration::from_secs(5);
const MAX_PEAK: u64 = 150 << 20;

fn assert_within(cost: Cost, what: &str) {
    assert!(cost.cpu < MAX_CPU, "{what}: {cost:?}");
    assert!(cost.peak < MAX_PEAK, "{what}: {cost:?}");
}

/// The bomb: `<blockquote/>x ` 5,000 times, 75 KB that html5ever builds into 5,000
/// nested blockquotes (the self-closing flag means nothing on a non-void element).
fn blockquote_bomb() -> String {
    "<blockquote/>x ".repeat(5_000)
}

fn html_mail(parts: &[String]) -> Vec<u8> {
    let mut raw = format!(
        "From: Alice <{ALICE}>\r\nTo: gm@pbem.example\r\nSubject: Re: move\r\n\
         Message-ID: <bomb@client.example>\r\nMIME-Version: 1.0\r\n\
         Content-Type: multipart/mixed; boundary=\"b\"\r\n\r\n"
    );
    for part in parts {
        raw.push_str("--b\r\nContent-Type: text/html; charset=utf-8\r\n\r\n");
        raw.push_str(part);
        raw.push_str("\r\n");
    }
    raw.push_str("--b--\r\n");
    raw.into_bytes()
}

#[test]
fn one_html_part_of_self_closed_blockquotes_reads_in_bounded_work() {
    let raw = html_mail(&[blockquote_bomb()]);
    let (inb, cost) = measure(|| inbound::parse(&raw));
    assert_within(cost, "one bomb part");
    // The text is still there, read the linear way.
    assert_eq!(inb.body.matches('x').count(), 5_000, "{}", &inb.body[..200]);
}

#[test]
fn thirteen_html_bomb_parts_share_one_budget() {
    let raw = html_mail(&vec![blockquote_bomb(); 13]);
    assert!(raw.len() < 1 << 20);
    let (inb, cost) = measure(|| inbound::parse(&raw));
    assert_within(cost, "13 bomb parts");
    assert!(inb.body.matches('x').count() >= 5_000, "{cost:?}");
}

/// 125,000 addresses in one To: (930 KB): the GM's address among the first is found, and the
/// rest costs no more than reading them.
#[test]
fn a_to_of_125000_addresses_reads_in_bounded_work() {
    let mut to = String::from("gm+tok0g1@pbem.example");
    for n in 0..125_000 {
        to.push_str(&format!(", a{n}@x.example"));
    }
    let raw = format!(
        "From: Alice <{ALICE}>\r\nTo: {to}\r\nSubject: Re: move\r\n\
         Message-ID: <many@client.example>\r\n\r\nSTATUS\r\n"
    )
    .into_bytes();
    let (recipients, cost) = measure(|| {
        let inb = inbound::parse(&raw);
        // The mail path asks three times.
        let _ = (inb.recipients(), inb.recipients());
        inb.recipients()
    });
    assert_within(cost, "125,000 addresses");
    // mail-parser reads the header once (about 13 MB allocated); nothing after it multiplies.
    assert!(cost.allocated < 64 << 20, "{cost:?}");
    assert_eq!(
        recipients.first().map(String::as_str),
        Some("gm+tok0g1@pbem.example")
    );
    assert!(recipients.len() <= 300, "{}", recipients.len());
}

/// A mail of max_message_bytes, the worst of the bombs above, read, stored and answered
/// through the whole path.
#[test]
fn a_worst_case_mail_is_read_stored_and_answered_in_bounded_work() {
    let mut w = World::new();
    let rink = w.game(
        GameKind::DiceRink,
        &[("A", ALICE), ("B", BOB)],
        &[],
        None,
        None,
    );
    let to = w.seat_address(rink, 0);
    w.new_mail();
    let part = blockquote_bomb();
    let mut parts = Vec::new();
    let mut size = 0;
    while size + part.len() + 200 < w.cfg.max_message_bytes {
        size += part.len() + 60;
        parts.push(part.clone());
    }
    let mut raw = html_mail(&parts);
    // Addressed to Alice's seat, with a To: that fills the rest.
    let header_end = raw.windows(4).position(|w| w == b"\r\n\r\n").unwrap();
    let mut many = format!("Cc: {to}");
    while raw.len() + many.len() + 40 < w.cfg.max_message_bytes {
        many.push_str(&format!(", b{}@x.example", many.len()));
    }
    many.insert_str(0, "\r\n");
    raw.splice(header_end..header_end, many.into_bytes());
    assert!(raw.len() <= w.cfg.max_message_bytes, "{}", raw.len());
    let cfg = w.cfg.clone();
    let templates = pbem::template::Templates::load(None).unwrap();
    let ctx = pbem::compose::Ctx::new(&cfg, &templates, w.now);
    let (stored, cost) = measure(|| crate::common::process_raw(&mut w.store, &ctx, &raw, None));
    assert!(stored[0].id.is_some());
    assert_within(cost, "a worst-case mail through the path");
    // It was read as Alice's mail to her seat and answered.
    assert!(w.new_mail().iter().any(|m| m.to_addr == ALICE));
}

/// A table that fosters out every node after it (`<table>` then `<img>` after `<img>`) makes
/// the parse quadratic: such a mail of max_message_bytes is read in bounded work.
#[test]
fn a_table_that_fosters_out_every_node_is_read_in_bounded_work() {
    for piece in ["<img>", "x<br>"] {
        let html = format!("<table>{}", piece.repeat(1_000_000 / piece.len() - 2));
        let raw = format!(
            "From: eve@example.net\r\nTo: gm@pbem.example\r\nSubject: foster\r\n\
             MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n{html}\r\n"
        );
        let (_, cost) = measure(|| inbound::parse(raw.as_bytes()));
        assert_within(cost, &format!("fostered {piece}"));
    }
}

/// A stranger's mail of max_message_bytes in long lines of words no one wrote before: its
/// answer names the lines in pbem's words (`mailroom::stranger`), and checking each line's
/// reason against every word of the mail stays bounded work.
#[test]
fn a_strangers_mail_of_long_lines_of_new_words_is_answered_in_bounded_work() {
    let mut w = World::new();
    let word = |n: usize| -> String {
        (0..6)
            .map(|i| char::from(b'a' + ((n / 26usize.pow(i)) % 26) as u8))
            .collect()
    };
    let mut body = String::new();
    let mut n = 0;
    while body.len() + 8_000 < w.cfg.max_message_bytes - 400 {
        body.push_str("NEW d4d6 grace=");
        for _ in 0..1_000 {
            body.push_str(&word(n));
            body.push(' ');
            n += 1;
        }
        body.push_str("\r\n");
    }
    let raw = w.mail("eve@example.net", "gm@pbem.example", "words", &body);
    let cfg = w.cfg.clone();
    let templates = pbem::template::Templates::load(None).unwrap();
    let ctx = pbem::compose::Ctx::new(&cfg, &templates, w.now);
    let (stored, cost) = measure(|| crate::common::process_raw(&mut w.store, &ctx, &raw, None));
    assert!(stored[0].id.is_some());
    assert_within(cost, "a stranger's mail of long lines");
    let answer = w.new_mail();
    let answer = &answer
        .iter()
        .find(|m| m.to_addr == "eve@example.net")
        .unwrap()
        .body;
    assert!(!answer.contains(&word(5)), "no word of the mail is quoted");
}
