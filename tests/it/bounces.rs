//! Delivery reports read for their failed recipients, status codes and returned Message-IDs: every bounce of the mail corpus and a real OpenSMTPD DSN against a table read by hand, hostile reports within bounds.

use std::collections::BTreeMap;
use std::fs;

use mail_parser::MessageParser;
use pbem::mail::inbound::{bounce, parse, Bounce, MailKind, Severity};
use proptest::prelude::*;

use crate::work::measure;

const CORPUS: &str = "tests/data/mail/corpus/bounces";
const OURS: &str = "tests/data/bounces";

/// One row of expected.tsv.
#[derive(Debug, PartialEq)]
struct Row {
    recipient: String,
    status: Option<String>,
    severity: Option<Severity>,
    original_id: Option<String>,
}

fn dash(field: &str) -> Option<String> {
    (field != "-").then(|| field.to_string())
}

/// The table: file name to its rows, in order.
fn table() -> BTreeMap<String, Vec<Row>> {
    let text = fs::read_to_string(format!("{OURS}/expected.tsv")).expect("expected.tsv");
    let mut rows: BTreeMap<String, Vec<Row>> = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let fields: Vec<&str> = line.split('\t').collect();
        assert_eq!(fields.len(), 5, "{line}");
        let severity = match fields[3] {
            "permanent" => Some(Severity::Permanent),
            "transient" => Some(Severity::Transient),
            "delayed" => Some(Severity::Delayed),
            "-" => None,
            other => panic!("severity {other} in {line}"),
        };
        rows.entry(fields[0].to_string()).or_default().push(Row {
            recipient: fields[1].to_string(),
            status: dash(fields[2]),
            severity,
            original_id: dash(fields[4]),
        });
    }
    rows
}

fn path_of(name: &str) -> String {
    match name.strip_prefix("bounces/") {
        Some(ours) => format!("{OURS}/{ours}"),
        None => format!("{CORPUS}/{name}"),
    }
}

fn read_file(name: &str) -> Bounce {
    let raw = fs::read(path_of(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    let message = MessageParser::default().parse(&raw[..]).expect("a message");
    let read = bounce::read(&message);
    // The inbound reader fills the same, for the mails it calls bounces (not the ARF report).
    let inbound = parse(&raw);
    if inbound.kind == MailKind::Bounce {
        assert_eq!(inbound.bounce.as_ref(), Some(&read), "{name}");
    } else {
        assert_eq!(inbound.bounce, None, "{name}");
    }
    read
}

/// The reader's view of a file, as rows of the table.
fn rows_of(bounce: &Bounce) -> Vec<Row> {
    let original_id = bounce.original_ids.first().cloned();
    if bounce.failures.is_empty() {
        return vec![Row {
            recipient: "-".to_string(),
            status: None,
            severity: None,
            original_id,
        }];
    }
    bounce
        .failures
        .iter()
        .map(|f| Row {
            recipient: f.recipient.clone(),
            status: f.status.clone(),
            severity: Some(f.severity),
            original_id: original_id.clone(),
        })
        .collect()
}

#[test]
fn every_report_reads_as_the_table_says() {
    let table = table();
    let mut files: Vec<String> = fs::read_dir(CORPUS)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".eml"))
        .collect();
    files.push("bounces/opensmtpd-unknown-user.eml".to_string());
    files.sort();
    assert_eq!(files.len(), 30);
    let mut wrong = Vec::new();
    for name in &files {
        let expected = table
            .get(name)
            .unwrap_or_else(|| panic!("{name} is not in the table"));
        let bounce = read_file(name);
        assert!(
            bounce.original_ids.len() <= 1,
            "{name}: {:?}",
            bounce.original_ids
        );
        let got = rows_of(&bounce);
        if &got != expected {
            wrong.push(format!(
                "{name}:\n  expected {expected:?}\n  read     {got:?}"
            ));
        }
        for failure in &bounce.failures {
            assert!(failure.reason.chars().count() <= 200, "{name}");
            assert!(!failure.reason.contains('\n'), "{name}");
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    assert_eq!(
        table.len(),
        files.len(),
        "rows for files that are not there"
    );
}

#[test]
fn reasons_are_the_servers_words() {
    let reason = |name: &str| read_file(name).failures[0].reason.clone();
    assert_eq!(
        reason("flanker-zed.eml").get(..17),
        Some("550-5.1.1 The ema")
    );
    assert_eq!(
        reason("bounces/opensmtpd-unknown-user.eml"),
        "550 Invalid recipient: <nosuchuser@remote.test>"
    );
    assert_eq!(
        reason("sisimai-lhost-yahoo-01.eml"),
        "Remote host said: 550 5.1.1 <kijitora@example.org>... User Unknown [RCPT_TO]"
    );
    assert!(reason("sisimai-lhost-domino-01.eml").contains("not listed in Domino Directory"));
    assert!(reason("flanker-gmail-invalid-address.eml").contains("550 5.1.0 Recipient rejected"));
    assert!(reason("sisimai-lhost-kddi-01.eml").contains("mailbox is full"));
}

#[test]
fn the_opensmtpd_dsn_is_a_bounce_to_the_verp_address() {
    let raw = fs::read(format!("{OURS}/opensmtpd-unknown-user.eml")).unwrap();
    let inbound = parse(&raw);
    assert_eq!(inbound.kind, MailKind::Bounce);
    // No Return-Path: the VERP address is in Delivered-To (and To).
    assert_eq!(inbound.return_path, None);
    assert!(inbound
        .delivered_to
        .contains(&"gm+bounce-7-0123456789ab@localhost".to_string()));
    assert_eq!(inbound.message_id.as_deref(), Some("1c6b47c90165b944@vm"));
}

#[test]
fn mail_that_is_no_bounce_has_no_bounce_read() {
    let inbound = parse(b"From: alice@example.org\nTo: gm@pbem.example\nSubject: move\n\n5W6\n");
    assert_eq!(inbound.kind, MailKind::Normal);
    assert_eq!(inbound.bounce, None);
}

/// A DSN listing `n` recipients.
fn many_recipients(n: usize) -> Vec<u8> {
    let mut raw = String::from(
        "From: MAILER-DAEMON@mx.example\r\nTo: gm@pbem.example\r\nSubject: Undelivered Mail\r\n\
         Content-Type: multipart/report; report-type=delivery-status; boundary=b\r\n\r\n\
         --b\r\nContent-Type: text/plain\r\n\r\nFailed.\r\n--b\r\n\
         Content-Type: message/delivery-status\r\n\r\nReporting-MTA: dns; mx.example\r\n\r\n",
    );
    for i in 0..n {
        raw.push_str(&format!(
            "Final-Recipient: rfc822; user{i}@example.org\r\nAction: failed\r\nStatus: 5.1.1\r\n\
             Diagnostic-Code: smtp; 550 5.1.1 user{i} unknown\r\n\r\n"
        ));
    }
    raw.push_str("--b--\r\n");
    raw.into_bytes()
}

#[test]
fn a_report_of_10000_recipients_is_read_in_bounded_work() {
    let raw = many_recipients(10_000);
    let small = many_recipients(50);
    let message = MessageParser::default().parse(&raw[..]).unwrap();
    let small_message = MessageParser::default().parse(&small[..]).unwrap();
    let (bounce, cost) = measure(|| bounce::read(&message));
    let (small_bounce, small_cost) = measure(|| bounce::read(&small_message));
    assert_eq!(bounce.failures.len(), 50);
    assert_eq!(bounce.failures, small_bounce.failures);
    // The rest of the list is never looked at: no more work than for 50.
    assert!(
        cost.allocated < 4 * small_cost.allocated.max(64 << 10),
        "{cost:?} against {small_cost:?}"
    );
    assert!(cost.cpu.as_millis() < 500, "{cost:?}");
    assert_eq!(parse(&raw).bounce.map(|b| b.failures.len()), Some(50));
}

fn check_bounds(raw: &[u8]) -> Result<(), TestCaseError> {
    let inbound = parse(raw);
    if let Some(message) = MessageParser::default().parse(raw) {
        let read = bounce::read(&message);
        prop_assert!(read.failures.len() <= 50);
        prop_assert!(read.original_ids.len() <= 10);
        for failure in &read.failures {
            prop_assert!(failure.reason.chars().count() <= 200);
            prop_assert!(!failure.recipient.is_empty());
        }
    }
    prop_assert_eq!(inbound.bounce.is_some(), inbound.kind == MailKind::Bounce);
    Ok(())
}

/// Every report of the corpus and ours, for mutating.
fn reports() -> Vec<Vec<u8>> {
    table()
        .keys()
        .map(|name| fs::read(path_of(name)).unwrap())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn arbitrary_bytes_never_panic(raw in proptest::collection::vec(any::<u8>(), 0..2048)) {
        check_bounds(&raw)?;
    }

    #[test]
    fn mutated_reports_never_panic_and_stay_within_bounds(
        pick in any::<prop::sample::Index>(),
        edits in proptest::collection::vec((any::<usize>(), any::<u8>(), 0u8..3), 0..12),
    ) {
        let mut raw = pick.get(&reports()).clone();
        for (at, byte, how) in edits {
            if raw.is_empty() {
                break;
            }
            let at = at % raw.len();
            match how {
                0 => raw[at] = byte,
                1 => raw.truncate(at),
                // A recipient line repeated: long blocks, many failures.
                _ => {
                    let line = format!("Final-Recipient: rfc822; x{byte}@e.example\nAction: failed\nDiagnostic-Code: {}\n\n", "y ".repeat(300));
                    raw.splice(at..at, line.repeat(usize::from(byte) % 80).into_bytes());
                }
            }
        }
        check_bounds(&raw)?;
    }
}
