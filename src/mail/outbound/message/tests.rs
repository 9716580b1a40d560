//! Tests of building a mail: headers, thread, text and HTML parts, what is refused.

use super::*;

pub(in crate::mail::outbound) fn sample() -> OutMail {
    OutMail {
        from: "Game Master <gm@example.org>".into(),
        to: vec!["alice@example.org".into(), "Bob <bob@example.org>".into()],
        reply_to: Some("gm+g12@example.org".into()),
        subject: "Zug 3: Läufer schlägt Springer ♞".into(),
        body: "Board after move 3:\n  a b c\n1 . ♞ .\nÜbermut tut selten gut.\n".into(),
        message_id: "<1234abcd@pbem.example.org>".into(),
        in_reply_to: Some("<player-7@mail.example.com>".into()),
        references: vec!["<start-1@pbem.example.org>".into()],
        auto_submitted: Some("auto-replied".into()),
        extra_headers: vec![("X-Pbem-Game".into(), "g12".into())],
        date: None,
        html: None,
    }
}

fn formatted(mail: &OutMail) -> String {
    String::from_utf8(build(mail).expect("builds").formatted()).expect("ASCII on the wire")
}

fn parsed(raw: &str) -> mail_parser::Message<'_> {
    mail_parser::MessageParser::default()
        .parse(raw.as_bytes())
        .expect("parses")
}

#[test]
fn build_writes_thread_and_loop_guard_headers() {
    let raw = formatted(&sample());
    let msg = parsed(&raw);
    assert_eq!(msg.message_id(), Some("1234abcd@pbem.example.org"));
    assert_eq!(
        msg.in_reply_to().as_text(),
        Some("player-7@mail.example.com")
    );
    let references: Vec<&str> = msg
        .references()
        .as_text_list()
        .expect("References present")
        .iter()
        .map(|id| id.as_ref())
        .collect();
    assert_eq!(
        references,
        ["start-1@pbem.example.org", "player-7@mail.example.com"]
    );
    assert_eq!(
        msg.header_raw("Auto-Submitted").map(str::trim),
        Some("auto-replied")
    );
    assert_eq!(
        msg.header_raw("X-Auto-Response-Suppress").map(str::trim),
        Some("All")
    );
    assert_eq!(msg.header_raw("X-Pbem-Game").map(str::trim), Some("g12"));
    assert!(msg.date().is_some(), "Date header is set");
    let reply_to = msg
        .reply_to()
        .and_then(|a| a.first())
        .and_then(|a| a.address());
    assert_eq!(reply_to, Some("gm+g12@example.org"));
    let to: Vec<_> = msg
        .to()
        .expect("To")
        .iter()
        .filter_map(|a| a.address())
        .collect();
    assert_eq!(to, ["alice@example.org", "bob@example.org"]);
}

#[test]
fn bodies_get_crlf_line_ends_in_one_pass() {
    assert_eq!(crlf("a\nb\r\nc\n\n"), "a\r\nb\r\nc\r\n\r\n");
    let big = "x\n".repeat(500_000);
    let out = crlf(&big);
    assert_eq!(out.len(), big.len() + 500_000);
    assert!(!out.replace("\r\n", "").contains('\n'));
}

/// The quick way for a bare address gives what lettre's full parser gives, and refuses
/// what it refuses (a player's address is a stranger's text).
#[test]
fn a_bare_address_is_read_as_the_full_parser_reads_it() {
    let long = format!("{}@example.org", "a".repeat(100_000));
    let addresses = [
        "alice@example.org",
        "gm+tok3n@example.org",
        " bob@example.org\t",
        "ünïcode@exämple.org",
        "a@[127.0.0.1]",
        "a@[IPv6:::1]",
        "a@localhost",
        "A@EXAMPLE.ORG",
        "a@b.c.",
        "a..b@example.org",
        ".a@example.org",
        "a@-example.org",
        "a@xn--bcher-kva.example",
        "a@exa_mple.org",
        "a\\b@example.org",
        "a;b@example.org",
        "a\r\nBcc: x@y@example.org",
        "a.b-c_d@sub.example.co.uk",
        "no-at-sign",
        "two@@example.org",
        "@example.org",
        "a@",
        "a@b@c",
        "",
        "Alice <alice@example.org>",
        "\"a b\"@example.org",
        "a@example.org, b@example.org",
        long.as_str(),
    ];
    for a in addresses {
        let full: Result<Mailbox, _> = a.trim().parse();
        let ours = mailbox("To", a);
        match (&full, &ours) {
            (Ok(f), Ok(o)) => assert_eq!(f, o, "{a:?}"),
            (Err(_), Err(_)) => {}
            _ => panic!("{a:?}: lettre {full:?}, ours {ours:?}"),
        }
    }
}

#[test]
fn build_encodes_non_ascii_subject_and_body_as_utf8_text() {
    let mail = sample();
    let raw = formatted(&mail);
    assert!(raw.is_ascii(), "non-ASCII must be encoded on the wire");
    assert!(raw.contains("=?utf-8?b?"), "RFC 2047 encoded words: {raw}");
    assert!(raw.contains("Content-Type: text/plain; charset=utf-8"));
    assert!(raw.contains("MIME-Version: 1.0"));
    let msg = parsed(&raw);
    assert_eq!(msg.subject(), Some(mail.subject.as_str()));
    let body = msg.body_text(0).expect("text body");
    assert_eq!(body.replace("\r\n", "\n"), mail.body);
}

/// A tiny PNG's signature and a few bytes that are not text, so they travel in base64.
const PICTURE: &[u8] = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\xff\xfe";

fn with_html(pictures: Vec<Picture>) -> OutMail {
    OutMail {
        html: Some(Html {
            body: "<html><body><p>Board:</p><img src=\"cid:board.12@pbem.example\">\n\
                   <p>&Uuml;bermut \u{265e}</p></body></html>\n"
                .into(),
            pictures,
        }),
        ..sample()
    }
}

fn board_picture() -> Picture {
    Picture {
        content_id: "<board.12@pbem.example>".into(),
        mime: "image/png".into(),
        bytes: PICTURE.to_vec(),
    }
}

#[test]
fn html_with_a_picture_is_text_then_related_html_and_picture() {
    use mail_parser::MimeHeaders;
    let mail = with_html(vec![board_picture()]);
    let raw = formatted(&mail);
    assert!(raw.is_ascii(), "non-ASCII must be encoded on the wire");
    let msg = parsed(&raw);
    let ctype = msg.content_type().expect("Content-Type");
    assert_eq!(
        (ctype.ctype(), ctype.subtype()),
        ("multipart", Some("alternative"))
    );
    // The text first (the least preferred alternative), then the HTML with its picture.
    let types: Vec<String> = msg
        .parts
        .iter()
        .map(|p| {
            let c = p.content_type().expect("each part has a type");
            format!("{}/{}", c.ctype(), c.subtype().unwrap_or(""))
        })
        .collect();
    assert_eq!(
        types,
        [
            "multipart/alternative",
            "text/plain",
            "multipart/related",
            "text/html",
            "image/png"
        ]
    );
    assert_eq!(
        msg.body_text(0).expect("text").replace("\r\n", "\n"),
        mail.body
    );
    let html = msg.body_html(0).expect("html");
    assert_eq!(html.replace("\r\n", "\n"), mail.html.as_ref().unwrap().body);
    let picture = msg.parts.last().expect("the picture");
    assert_eq!(picture.content_id(), Some("board.12@pbem.example"));
    assert_eq!(picture.contents(), PICTURE);
    assert!(raw.contains("Content-Disposition: inline"), "{raw}");
    // The headers are the plain mail's.
    assert_eq!(msg.subject(), Some(mail.subject.as_str()));
    assert_eq!(msg.message_id(), Some("1234abcd@pbem.example.org"));
    assert_eq!(msg.header_raw("X-Pbem-Game").map(str::trim), Some("g12"));
}

#[test]
fn html_without_pictures_is_an_alternative_of_text_and_html() {
    use mail_parser::MimeHeaders;
    let raw = formatted(&with_html(vec![]));
    let msg = parsed(&raw);
    let types: Vec<String> = msg
        .parts
        .iter()
        .map(|p| {
            let c = p.content_type().unwrap();
            format!("{}/{}", c.ctype(), c.subtype().unwrap_or(""))
        })
        .collect();
    assert_eq!(types, ["multipart/alternative", "text/plain", "text/html"]);
    assert!(!raw.contains("multipart/related"));
}

#[test]
fn a_picture_needs_a_content_id_and_a_mime_type() {
    let mut bad_id = board_picture();
    bad_id.content_id = "no domain".into();
    assert!(matches!(
        build(&with_html(vec![bad_id])),
        Err(BuildError::Header { .. })
    ));
    let mut bad_type = board_picture();
    bad_type.mime = "a picture".into();
    assert!(matches!(
        build(&with_html(vec![bad_type])),
        Err(BuildError::Header { .. })
    ));
}

#[test]
fn the_date_is_the_one_given() {
    use chrono::TimeZone;
    let at = Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 5).unwrap();
    let raw = formatted(&OutMail {
        date: Some(at),
        ..sample()
    });
    let date = parsed(&raw).date().expect("Date").to_timestamp();
    assert_eq!(date, at.timestamp());
    assert_eq!(raw.matches("\r\nDate:").count(), 1, "{raw}");
}

#[test]
fn a_raw_mail_has_the_envelope_its_addresses_give() {
    let mail = sample();
    let raw = RawMail::of(&mail).unwrap();
    assert_eq!(envelope(&mail.from, &mail.to).unwrap(), raw.envelope);
    assert_eq!(
        raw.envelope.from().map(|a| a.to_string()).as_deref(),
        Some("gm@example.org")
    );
    assert!(envelope(&mail.from, &[]).is_err());
    assert!(envelope("not an address", &mail.to).is_err());
}

#[test]
fn build_without_parent_has_no_thread_headers_and_adds_brackets() {
    let mut mail = sample();
    mail.in_reply_to = None;
    mail.references.clear();
    mail.auto_submitted = None;
    mail.message_id = "bare-id@pbem.example.org".into();
    let raw = formatted(&mail);
    assert!(raw.contains("Message-ID: <bare-id@pbem.example.org>"));
    assert!(!raw.contains("In-Reply-To:"));
    assert!(!raw.contains("References:"));
    assert!(!raw.contains("Auto-Submitted:"));
}

#[test]
fn build_refuses_header_injection_and_bad_input() {
    let mut mail = sample();
    mail.subject = "hello\r\nBcc: victim@example.org".into();
    assert!(matches!(build(&mail), Err(BuildError::Header { .. })));

    let mut mail = sample();
    mail.extra_headers = vec![("Subject".into(), "twice".into())];
    assert!(matches!(build(&mail), Err(BuildError::Header { .. })));

    let mut mail = sample();
    mail.message_id = "no-domain".into();
    assert!(matches!(build(&mail), Err(BuildError::Header { .. })));

    let mut mail = sample();
    mail.to = vec!["not an address".into()];
    assert!(matches!(
        build(&mail),
        Err(BuildError::Address { field: "To", .. })
    ));

    let mut mail = sample();
    mail.to.clear();
    assert!(matches!(build(&mail), Err(BuildError::NoRecipient)));
}
