//! What large receivers look for in every mail pbem sends, checked by one function over the bytes the relay takes: one Message-ID and one Date, From's domain the envelope's, one fitting `Auto-Submitted` (auto-replied for an answer, auto-generated otherwise), no bare LF or CR, no line over 998 octets, and a text part that says what the HTML part says; over a game played by mail with every kind of mail it makes.

use chrono::Duration;
use mail_parser::MessageParser;
use pbem::games::GameKind;
use pbem::mail::outbound::RawMail;

use crate::common::World;

/// Each problem a receiver's filter could hold against the mail, in words (empty: none).
fn problems(mail: &RawMail) -> Vec<String> {
    let bytes = &mail.bytes;
    let mut out = Vec::new();
    for (i, &b) in bytes.iter().enumerate() {
        let before = i.checked_sub(1).map(|j| bytes[j]);
        let after = bytes.get(i + 1).copied();
        if b == b'\n' && before != Some(b'\r') {
            out.push(format!("a bare LF at byte {i}"));
        }
        if b == b'\r' && after != Some(b'\n') {
            out.push(format!("a bare CR at byte {i}"));
        }
    }
    for line in bytes.split(|&b| b == b'\n') {
        if line.len() > 999 {
            out.push(format!("a line of {} octets", line.len() - 1));
        }
    }
    let text = String::from_utf8_lossy(bytes);
    let head = &text[..text.find("\r\n\r\n").unwrap_or(text.len())];
    let count = |name: &str| {
        head.split("\r\n")
            .filter(|l| {
                l.to_ascii_lowercase()
                    .starts_with(&format!("{}:", name.to_ascii_lowercase()))
            })
            .count()
    };
    for name in ["Message-ID", "Date", "From", "Auto-Submitted"] {
        if count(name) != 1 {
            out.push(format!("{} {name} headers", count(name)));
        }
    }
    let msg = MessageParser::default().parse(bytes).expect("a mail");
    let from = msg
        .from()
        .and_then(|f| f.first())
        .and_then(|a| a.address())
        .unwrap_or("");
    let envelope = mail
        .envelope
        .from()
        .map(|a| a.to_string())
        .unwrap_or_default();
    let domain = |a: &str| a.rsplit_once('@').map(|(_, d)| d.to_ascii_lowercase());
    if domain(from).is_none() || domain(from) != domain(&envelope) {
        out.push(format!(
            "From {from} and the envelope's {envelope} differ in domain"
        ));
    }
    let auto = msg
        .header_raw("Auto-Submitted")
        .map(str::trim)
        .unwrap_or("");
    let fits = match msg.in_reply_to().as_text() {
        Some(_) => "auto-replied",
        None => "auto-generated",
    };
    if auto != fits {
        out.push(format!("Auto-Submitted: {auto}, where {fits} fits"));
    }
    if let (Some(plain), Some(html)) = (msg.body_text(0), msg.body_html(0)) {
        let shown = words_of_html(&html);
        for word in plain.split_whitespace() {
            if !shown.contains(word) {
                out.push(format!("the text says {word:?}, the HTML part does not"));
                break;
            }
        }
    }
    out
}

/// The words an HTML part shows: its tags dropped, its entities read.
fn words_of_html(html: &str) -> String {
    let mut out = String::with_capacity(html.len());
    let mut in_tag = false;
    let body = html.split_once("<body").map_or(html, |(_, b)| b);
    for c in body.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => {
                in_tag = false;
                out.push(' ');
            }
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&quot;", "\"")
        .replace("&#39;", "'")
        .replace("&#x27;", "'")
        .replace("&amp;", "&")
}

/// A game by mail with every kind of mail a player gets (welcome, a refusal, a move's
/// answer, a report, a reminder, a digest, an answer to a stranger, the end), each sent
/// through the sender, and every mail checked.
#[test]
fn every_mail_pbem_sends_has_what_receivers_look_for() {
    let mut w = World::new();
    let (a, b) = ("a@example.org", "b@example.org");
    let id = w.game(
        GameKind::DiceRink,
        &[("A", a), ("B", b)],
        &[],
        None,
        Some(2 * 86_400),
    );
    let send = |w: &mut World, from: &str, seat: usize, body: &str| {
        let to = w.seat_address(id, seat);
        let raw = w.mail(from, &to, &format!("Re: [pbem #{id}] a move"), body);
        w.deliver(&raw);
    };
    send(&mut w, b, 1, "DIGEST ON");
    send(&mut w, a, 0, "b1 7/4");
    let m = w.load(id).game.legal_plies().into_iter().next().unwrap();
    send(&mut w, a, 0, &m);
    w.timers();
    w.now += Duration::hours(25);
    w.timers();
    let help = w.mail("stranger@example.org", "gm@pbem.example", "help", "HELP");
    w.deliver(&help);
    send(&mut w, b, 1, "RESIGN");
    let kinds: Vec<String> = w.new_mail().into_iter().map(|r| r.kind).collect();
    for kind in [
        "welcome",
        "order_refused",
        "digest",
        "reminder",
        "game_over",
    ] {
        assert!(kinds.iter().any(|k| k == kind), "no {kind} among {kinds:?}");
    }
    let taken = w.send_due();
    assert_eq!(taken.len(), kinds.len());
    let bad: Vec<String> = taken
        .iter()
        .zip(&kinds)
        .filter_map(|(m, kind)| {
            let p = problems(m);
            (!p.is_empty()).then(|| format!("{kind}: {}", p.join("; ")))
        })
        .collect();
    assert!(bad.is_empty(), "{bad:#?}");
}

/// The checker finds what it looks for: a bare LF, a long line, a second Date, an
/// Auto-Submitted that does not fit.
#[test]
fn the_checker_finds_each_fault() {
    let envelope =
        pbem::mail::outbound::envelope("gm@pbem.example", &["p@example.org".to_string()]).unwrap();
    let mail = |bytes: String| RawMail {
        envelope: envelope.clone(),
        message_id: "<x@pbem.example>".into(),
        bytes: bytes.into_bytes(),
    };
    let good = "From: gm@pbem.example\r\nTo: p@example.org\r\nMessage-ID: <x@pbem.example>\r\n\
                Date: Sun, 1 Mar 2026 12:00:00 +0000\r\nAuto-Submitted: auto-generated\r\n\r\nhi\r\n";
    assert_eq!(problems(&mail(good.into())), Vec::<String>::new());
    let faults = [
        good.replace("hi\r\n", "hi\n"),
        good.replace("hi", &"x".repeat(1000)),
        good.replace(
            "\r\n\r\n",
            "\r\nDate: Mon, 2 Mar 2026 12:00:00 +0000\r\n\r\n",
        ),
        good.replace("auto-generated", "auto-replied"),
        good.replace("From: gm@pbem.example", "From: gm@elsewhere.example"),
    ];
    for f in faults {
        assert!(!problems(&mail(f.clone())).is_empty(), "{f}");
    }
}
