//! Inbound mail against real-world samples: robot mail is classified and refused, malformed mail survives, and the player's lines come out of every client's reply.

use std::fs;
use std::path::{Path, PathBuf};

use pbem::mail::inbound::{parse, refusal, Inbound, MailKind};
use pbem::orders::{move_guard, player_lines, subject_game_id};
use proptest::prelude::*;

const CORPUS: &str = "tests/data/mail/corpus";
const CLIENTS: &str = "tests/data/mail/clients";
const MAX_BYTES: usize = 256 * 1024;

fn our_addresses() -> Vec<String> {
    vec!["gm@pbem.example".to_string()]
}

/// The files of one folder, sorted, keeping those whose name ends with `suffix`.
fn files(folder: &str, suffix: &str) -> Vec<PathBuf> {
    let mut found: Vec<PathBuf> = fs::read_dir(folder)
        .unwrap_or_else(|err| panic!("{folder}: {err}"))
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.to_string_lossy().ends_with(suffix))
        .collect();
    found.sort();
    assert!(!found.is_empty(), "no {suffix} files in {folder}");
    found
}

fn parse_file(path: &Path) -> Inbound {
    parse(&fs::read(path).unwrap_or_else(|err| panic!("{}: {err}", path.display())))
}

fn name(path: &Path) -> String {
    path.file_name().unwrap().to_string_lossy().into_owned()
}

// ---------------------------------------------------------------------------------------------
// Robot mail

/// Every bounce is a Bounce, except the ARF abuse report, which is Feedback. The delay warnings
/// (`flanker-delayed`, `flanker-no-mx`, `sisimai-lhost-v5sendmail-01`) are not final failures,
/// but they come from the delivery system about mail we sent, so they are Bounce too: the game
/// master records them and never answers them.
#[test]
fn every_bounce_is_classified_and_refused() {
    let paths = files(&format!("{CORPUS}/bounces"), ".eml");
    assert_eq!(paths.len(), 29);
    for path in paths {
        let inbound = parse_file(&path);
        let expected = if name(&path) == "sisimai-arf-01.eml" {
            MailKind::Feedback
        } else {
            MailKind::Bounce
        };
        assert_eq!(inbound.kind, expected, "{}", name(&path));
        let refused = refusal(&inbound, &our_addresses(), MAX_BYTES)
            .unwrap_or_else(|| panic!("{} was not refused", name(&path)));
        let code = if expected == MailKind::Feedback {
            "feedback"
        } else {
            "bounce"
        };
        assert_eq!(refused.code, code, "{}", name(&path));
        assert!(!refused.reason.is_empty());
    }
}

#[test]
fn every_auto_reply_is_classified_and_refused() {
    let paths = files(&format!("{CORPUS}/autoreplies"), ".eml");
    assert_eq!(paths.len(), 7);
    for path in paths {
        let inbound = parse_file(&path);
        assert!(
            matches!(
                inbound.kind,
                MailKind::AutoReply | MailKind::AutoReplyBySubject | MailKind::Bulk
            ),
            "{}: {:?}",
            name(&path),
            inbound.kind
        );
        assert!(
            refusal(&inbound, &our_addresses(), MAX_BYTES).is_some(),
            "{} was not refused",
            name(&path)
        );
    }
}

#[test]
fn exchange_automatic_reply_needs_its_subject_as_well_as_the_suppress_header() {
    let raw = fs::read(format!("{CORPUS}/autoreplies/sisimai-rfc3834-04.eml")).unwrap();
    assert_eq!(parse(&raw).kind, MailKind::AutoReplyBySubject);
    // Outlook sets X-Auto-Response-Suppress on ordinary mail too; alone it proves nothing.
    let ordinary = b"From: a@example.org\nTo: gm@pbem.example\nSubject: Re: [pbem #1] x\n\
X-Auto-Response-Suppress: All\n\n5W6\n";
    assert_eq!(parse(ordinary).kind, MailKind::Normal);
}

#[test]
fn robot_headers_classify_small_messages() {
    let cases: [(&str, MailKind); 8] = [
        ("Auto-Submitted: auto-replied\n", MailKind::AutoReply),
        ("Auto-Submitted: no\n", MailKind::Normal),
        ("X-Autoreply: yes\n", MailKind::AutoReply),
        ("X-Apple-Action: VACATION\n", MailKind::AutoReply),
        ("Precedence: bulk\n", MailKind::Bulk),
        ("Precedence: junk\n", MailKind::Bulk),
        ("List-Id: <games.lists.example>\n", MailKind::Bulk),
        (
            "List-Unsubscribe: <mailto:leave@lists.example>\n",
            MailKind::Bulk,
        ),
    ];
    for (header, kind) in cases {
        let raw = format!("From: bob@example.org\nSubject: Re: [pbem #3] move\n{header}\n5W6\n");
        assert_eq!(parse(raw.as_bytes()).kind, kind, "{header}");
    }
    // A subject alone is the weaker sign (a player may write it over a real move).
    let auto_subject = "From: bob@example.org\nSubject: Auto: Re: [pbem #3] move\n\nAway\n";
    assert_eq!(
        parse(auto_subject.as_bytes()).kind,
        MailKind::AutoReplyBySubject
    );
    let out_of_office = "From: bob@example.org\nSubject: Out of Office: Re: [pbem #3]\n\nAway\n";
    assert_eq!(
        parse(out_of_office.as_bytes()).kind,
        MailKind::AutoReplyBySubject
    );
}

#[test]
fn refusal_reasons_for_normal_looking_mail() {
    let mail = |from: &str| format!("From: {from}\nTo: gm+t0k@pbem.example\nSubject: hi\n\n5W6\n");
    let code = |raw: &str, max: usize| {
        refusal(&parse(raw.as_bytes()), &our_addresses(), max).map(|refused| refused.code)
    };
    assert_eq!(code(&mail("Bob <bob@example.org>"), MAX_BYTES), None);
    assert_eq!(
        code(&mail("GM <GM+other@PBEM.example>"), MAX_BYTES),
        Some("loop")
    );
    assert_eq!(
        code(&mail("MAILER-DAEMON@mx.example.org"), MAX_BYTES),
        Some("bounce")
    );
    assert_eq!(
        code(&mail("no-reply@shop.example"), MAX_BYTES),
        Some("robot")
    );
    assert_eq!(
        code(&mail("noreply@shop.example"), MAX_BYTES),
        Some("robot")
    );
    assert_eq!(
        code(&mail("undisclosed-recipients:;"), MAX_BYTES),
        Some("no-from")
    );
    assert_eq!(
        code("To: gm@pbem.example\nSubject: x\n\n5W6\n", MAX_BYTES),
        Some("no-from")
    );
    assert_eq!(code(&mail("Bob <bob@example.org>"), 10), Some("too-large"));
}

// ---------------------------------------------------------------------------------------------
// Malformed mail

#[test]
fn malformed_mail_parses_without_panic() {
    let paths = files(&format!("{CORPUS}/malformed"), ".eml");
    assert_eq!(paths.len(), 17);
    for path in paths {
        let raw = fs::read(&path).unwrap();
        let inbound = parse(&raw);
        assert_eq!(inbound.size, raw.len());
        assert_eq!(inbound.content_hash.len(), 64);
        let _ = player_lines(&inbound.body);
        let _ = refusal(&inbound, &our_addresses(), MAX_BYTES);
    }
}

/// Broken structure yields the text that is really there, and nothing made up.
#[test]
fn malformed_mail_gives_only_its_real_text() {
    let cases: [(&str, &[&str]); 5] = [
        // A multipart that never starts a part: no text at all.
        ("flanker-false-multipart.eml", &[]),
        // The whole body is application/octet-stream: nothing to read.
        ("flanker-outlook-express.eml", &[]),
        // Boundaries with extra dashes: the plain alternative once, not the HTML one too.
        ("flanker-dashed-boundaries.eml", &["Hi"]),
        // A broken attached message is not read as part of the body.
        ("mail-parser-malformed-022.eml", &["hello"]),
        // A BlackBerry footer glued by a soft line break to plist junk: the footer ends it.
        ("mail-parser-malformed-018.eml", &["Best"]),
    ];
    for (file, expected) in cases {
        let inbound = parse_file(Path::new(&format!("{CORPUS}/malformed/{file}")));
        assert_eq!(
            player_lines(&inbound.body),
            expected.to_vec(),
            "{file}\n---\n{}",
            inbound.body
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Replies

/// The one corpus reply that is not Normal: `flanker-from-encoding.eml` is a 1997 post to the
/// Apache `new-httpd` list as delivered to subscribers, with `Precedence: bulk` and a list
/// `Sender:`. A game master must not answer list traffic (RFC 3834 §2), so it is Bulk.
const LIST_POST: &str = "flanker-from-encoding.eml";

#[test]
fn every_reply_is_normal_and_answered() {
    let paths = files(&format!("{CORPUS}/replies"), ".eml");
    assert_eq!(paths.len(), 25);
    for path in paths {
        let inbound = parse_file(&path);
        if name(&path) == LIST_POST {
            assert_eq!(inbound.kind, MailKind::Bulk);
            continue;
        }
        assert_eq!(inbound.kind, MailKind::Normal, "{}", name(&path));
        assert_eq!(
            refusal(&inbound, &our_addresses(), MAX_BYTES),
            None,
            "{}",
            name(&path)
        );
        assert!(inbound.from.is_some(), "{}", name(&path));
    }
}

/// Talon's expected reply texts keep the signature and "Sent from my iPhone"; player_lines drops
/// those too, so the message and the expected text must give the same lines.
#[test]
fn talon_expected_reply_texts_match() {
    for sample in ["iphone", "sparrow"] {
        let inbound = parse_file(Path::new(&format!("{CORPUS}/replies/talon-{sample}.eml")));
        let expected =
            fs::read_to_string(format!("{CORPUS}/replies/talon-{sample}_reply_text")).unwrap();
        assert_eq!(
            player_lines(&inbound.body),
            player_lines(&expected),
            "{sample}"
        );
        assert_eq!(player_lines(&inbound.body), vec!["Hello"], "{sample}");
    }
}

#[test]
fn talon_plain_replies_give_the_reply_only() {
    let cases: [(&str, &[&str]); 10] = [
        ("talon-android.eml", &["Hello"]),
        ("talon-aol.eml", &["Hello"]),
        ("talon-apple_mail.eml", &["Hello"]),
        ("talon-apple_mail_2.eml", &["Hello"]),
        ("talon-comcast.eml", &["Hello"]),
        ("talon-gmail.eml", &["Hello"]),
        ("talon-hotmail.eml", &["Hello"]),
        ("talon-outlook.eml", &["Hello"]),
        ("talon-thunderbird.eml", &["Hello"]),
        ("talon-yahoo.eml", &["Hello"]),
    ];
    for (file, expected) in cases {
        let inbound = parse_file(Path::new(&format!("{CORPUS}/replies/{file}")));
        assert_eq!(player_lines(&inbound.body), expected.to_vec(), "{file}");
    }
}

/// The talon HTML reply bodies, sent as HTML-only mail: the reply without the quoted part.
#[test]
fn talon_html_replies_give_the_reply_only() {
    let paths = files(&format!("{CORPUS}/replies"), ".html");
    assert_eq!(paths.len(), 9);
    for path in paths {
        let html = fs::read(&path).unwrap();
        let mut raw =
            b"From: Alex <alex@example.com>\r\nTo: gm@pbem.example\r\nSubject: Re: Test\r\n\
MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n"
                .to_vec();
        raw.extend_from_slice(&html);
        let inbound = parse(&raw);
        let lines = player_lines(&inbound.body);
        assert_eq!(
            lines,
            vec!["Hi. I am fine.", "Thanks,", "Alex"],
            "{}\n{}",
            name(&path),
            inbound.body
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Our own client fixtures

#[test]
fn client_fixtures_give_exactly_the_orders() {
    let cases: [(&str, &[&str]); 12] = [
        ("gmail-web.eml", &["b1 5W6", "#12"]),
        ("outlook-exchange.eml", &["rotate 6(2N)", "BOARD"]),
        ("apple-iphone.eml", &["5W6"]),
        ("apple-mail.eml", &["#12", "b1 5W6"]),
        ("thunderbird-flowed.eml", &["rotate 6(2N)", "5W6"]),
        (
            "apple-mail-flowed-delsp.eml",
            &[
                "Sorry for the delay, I was away for the weekend and only now found the report. Here goes:",
                "b1 5W6",
                "BOARD",
            ],
        ),
        ("yahoo-html-only.eml", &["5W6", "#12"]),
        ("outlook-web-html-only.eml", &["b1 5W6", "#12"]),
        ("latin1-qp.eml", &["Voilà mon coup :", "5W6", "rotate 6(2N)"]),
        ("gmail-android-base64.eml", &["Mein Zug – b1 5W6", "BOARD"]),
        ("outlook-original-message.eml", &["#12", "5W6"]),
        ("samsung-mobile.eml", &["BOARD"]),
    ];
    assert_eq!(files(CLIENTS, ".eml").len(), cases.len());
    for (file, expected) in cases {
        let inbound = parse_file(Path::new(&format!("{CLIENTS}/{file}")));
        assert_eq!(inbound.kind, MailKind::Normal, "{file}");
        assert_eq!(
            refusal(&inbound, &our_addresses(), MAX_BYTES),
            None,
            "{file}"
        );
        assert_eq!(
            player_lines(&inbound.body),
            expected.to_vec(),
            "{file}\n---\n{}",
            inbound.body
        );
        assert_eq!(subject_game_id(&inbound.subject), Some(12), "{file}");
        assert!(
            inbound
                .recipients()
                .contains(&"gm+k3x9q2@pbem.example".to_string()),
            "{file}"
        );
    }
}

#[test]
fn gmail_fixture_headers_are_read() {
    let inbound = parse_file(Path::new(&format!("{CLIENTS}/gmail-web.eml")));
    assert_eq!(
        inbound.message_id.as_deref(),
        Some("CAJ3x+Vq7Lr0nQ2o5kW9pX8mZ1y3T4uE6rFgHh@mail.gmail.com")
    );
    assert_eq!(inbound.from.as_deref(), Some("alice.example@gmail.com"));
    assert_eq!(inbound.from_name.as_deref(), Some("Alice Example"));
    assert_eq!(inbound.to, vec!["gm+k3x9q2@pbem.example"]);
    assert_eq!(inbound.in_reply_to, vec!["pbem.12.12.a1b2c3@pbem.example"]);
    assert_eq!(inbound.references, vec!["pbem.12.12.a1b2c3@pbem.example"]);
    assert_eq!(inbound.subject, "Re: [pbem #12] Dice Rink: your move");
    assert_eq!(
        inbound.date.map(|date| date.to_rfc3339()).as_deref(),
        Some("2022-01-03T10:42:17+01:00")
    );
    let raw = fs::read(format!("{CLIENTS}/gmail-web.eml")).unwrap();
    assert_eq!(inbound.size, raw.len());
    assert_eq!(inbound.content_hash.len(), 64);
    assert!(inbound.content_hash.chars().all(|c| c.is_ascii_hexdigit()));
}

#[test]
fn encoded_names_and_subjects_are_decoded() {
    let greta = parse_file(Path::new(&format!("{CLIENTS}/outlook-web-html-only.eml")));
    assert_eq!(greta.from_name.as_deref(), Some("Gréta Hall"));
    let hugo = parse_file(Path::new(&format!("{CLIENTS}/latin1-qp.eml")));
    assert_eq!(hugo.subject, "Re: [pbem #12] Dice Rink: à vous");
    assert_eq!(hugo.from_name.as_deref(), Some("Hugo Lefèvre"));
}

#[test]
fn delivered_to_and_original_to_are_recipients() {
    let raw = b"Delivered-To: GM+Tok3n@pbem.example\nX-Original-To: gm+tok3n@pbem.example\n\
From: bob@example.org\nTo: Game <game@pbem.example>\nCc: carol@example.org\nSubject: x\n\nBOARD\n";
    let inbound = parse(raw);
    assert_eq!(
        inbound.recipients(),
        vec![
            "game@pbem.example",
            "carol@example.org",
            "gm+tok3n@pbem.example"
        ]
    );
}

#[test]
fn message_without_id_is_told_apart_by_its_hash() {
    let one = parse(b"From: bob@example.org\nSubject: x\n\n5W6\n");
    let two = parse(b"From: bob@example.org\nSubject: x\n\n5W5\n");
    assert_eq!(one.message_id, None);
    assert_ne!(one.content_hash, two.content_hash);
    assert_eq!(
        one.content_hash,
        parse(b"From: bob@example.org\nSubject: x\n\n5W6\n").content_hash
    );
}

#[test]
fn guards_and_subjects_from_fixture_lines() {
    let inbound = parse_file(Path::new(&format!("{CLIENTS}/gmail-web.eml")));
    let lines = player_lines(&inbound.body);
    let guards: Vec<Option<u32>> = lines.iter().map(|line| move_guard(line)).collect();
    assert_eq!(guards, vec![None, Some(12)]);
}

// ---------------------------------------------------------------------------------------------
// Hostile input

proptest! {
    #[test]
    fn parse_and_player_lines_never_panic(raw in proptest::collection::vec(any::<u8>(), 0..2048)) {
        let inbound = parse(&raw);
        prop_assert_eq!(inbound.size, raw.len());
        let _ = player_lines(&inbound.body);
        let _ = refusal(&inbound, &our_addresses(), MAX_BYTES);
        let _ = player_lines(&String::from_utf8_lossy(&raw));
    }

    #[test]
    fn player_lines_are_trimmed_unquoted_and_non_blank(body in "(\\PC|\n|\r|>|-- |\u{a0}|\u{200b}|=){0,300}") {
        for line in player_lines(&body) {
            prop_assert!(!line.is_empty());
            prop_assert_eq!(line.trim(), line.as_str());
            prop_assert!(!line.starts_with('>'), "{:?}", line);
            prop_assert!(!line.contains('\u{200b}'), "{:?}", line);
        }
    }

    #[test]
    fn mail_shaped_input_never_panics(
        headers in proptest::collection::vec("[A-Za-z-]{1,20}: [ -~]{0,60}", 0..8),
        content_type in prop::sample::select(vec![
            "text/plain; format=flowed; delsp=yes",
            "text/html",
            "multipart/alternative; boundary=b",
            "multipart/report; report-type=delivery-status; boundary=b",
            "message/rfc822",
        ]),
        body in "(\\PC|\n|>|--b|=\n|<blockquote>|</blockquote>| \n){0,200}",
    ) {
        let raw = format!("{}\nContent-Type: {content_type}\n\n{body}", headers.join("\n"));
        let inbound = parse(raw.as_bytes());
        let _ = player_lines(&inbound.body);
        let _ = refusal(&inbound, &our_addresses(), MAX_BYTES);
    }
}

/// Issue 25: auto-replies without `Auto-Submitted` are known by the other headers robots set
/// or by their subject, and ordinary player mail is not taken for one.
#[test]
fn auto_replies_without_auto_submitted_are_recognised() {
    let by_header = [
        "X-Auto-Reply: yes\n",
        "X-AutoReply-From: bob@example.org\n",
        "X-Mail-Autoreply: yes\n",
        "X-Vacation: yes\n",
        "X-Precedence: auto_reply\n",
        "X-POST-MessageClass: 9; Autoresponder\n",
    ];
    for header in by_header {
        let raw = format!("From: bob@example.org\nSubject: Re: [pbem #3] move\n{header}\nAway\n");
        assert_eq!(parse(raw.as_bytes()).kind, MailKind::AutoReply, "{header}");
    }
    let by_subject = [
        "Automatisk svar: Re: [pbem #3] move",
        "Automaattinen vastaus: Re: [pbem #3] move",
        "Автоматический ответ: Re: [pbem #3] move",
        "Re: [pbem #3] move [Auto-Reply]",
        "Re: [pbem #3] move (Out of Office)",
        "Vacation response: Re: [pbem #3] move",
    ];
    for subject in by_subject {
        let raw = format!("From: bob@example.org\nSubject: {subject}\n\nAway\n");
        assert_eq!(
            parse(raw.as_bytes()).kind,
            MailKind::AutoReplyBySubject,
            "{subject}"
        );
    }
    for subject in [
        "Re: [pbem #3] move",
        "Re: [pbem #3] automatic reply? no, b1 5/4",
        "Re: out of office next week",
        "Vacation",
    ] {
        let raw = format!(
            "From: bob@example.org\nSubject: {subject}\nX-Auto-Response-Suppress: All\n\nb1 5/4\n"
        );
        assert_eq!(parse(raw.as_bytes()).kind, MailKind::Normal, "{subject}");
    }
}
