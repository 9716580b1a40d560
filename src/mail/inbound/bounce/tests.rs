//! The status inference and the small shapes of a report, each on its own.

use mail_parser::MessageParser;

use super::status::{enhanced_code, infer, reply_code, severity, valid_status};
use super::*;

#[test]
fn an_enhanced_code_wins_over_the_reply_code() {
    assert_eq!(
        infer("550 5.1.1 <a@b.example>... User Unknown", '5').as_deref(),
        Some("5.1.1")
    );
    assert_eq!(
        infer("said: 550-5.1.1 The email account", '5').as_deref(),
        Some("5.1.1")
    );
    assert_eq!(
        infer("Unknown user a@b.example . (#5.5.0)", '5').as_deref(),
        Some("5.5.0")
    );
    assert_eq!(
        infer("550 5.1.10 RESOLVER.ADR.RecipientNotFound", '5').as_deref(),
        Some("5.1.10")
    );
}

#[test]
fn a_bare_reply_code_gives_its_class() {
    assert_eq!(
        infer("550 Invalid recipient: <a@b.example>", '5').as_deref(),
        Some("5.0.0")
    );
    assert_eq!(
        infer("421 example.com (smtp)... Deferred", '5').as_deref(),
        Some("4.0.0")
    );
    assert_eq!(
        infer("452 too many recipients", '5').as_deref(),
        Some("4.0.0")
    );
    assert_eq!(severity(false, Some("4.0.0")), Severity::Transient);
    assert_eq!(severity(false, Some("5.0.0")), Severity::Permanent);
}

#[test]
fn a_full_mailbox_is_x_2_2_and_transient() {
    assert_eq!(
        infer("552 user MAILBOX FULL", '5').as_deref(),
        Some("5.2.2")
    );
    assert_eq!(
        infer("452 mailbox over quota", '5').as_deref(),
        Some("4.2.2")
    );
    assert_eq!(
        infer("reject reason: Mailbox full", '5').as_deref(),
        Some("5.2.2")
    );
    assert_eq!(
        infer("As their mailbox is full.", '4').as_deref(),
        Some("4.2.2")
    );
    assert_eq!(severity(false, Some("5.2.2")), Severity::Transient);
    assert_eq!(severity(false, Some("4.2.2")), Severity::Transient);
    assert_eq!(severity(true, Some("4.4.4")), Severity::Delayed);
}

#[test]
fn numbers_that_are_not_codes_are_not_read_as_codes() {
    assert_eq!(
        infer("host mx.example.jp [192.0.2.45]: connection refused", '5'),
        None
    );
    assert_eq!(enhanced_code("Mozilla/5.0.1.2 and 10.4.4.2"), None);
    assert_eq!(enhanced_code("version 4.1.12b"), None);
    assert_eq!(
        reply_code("Delivery failed 10 attempts at 23:45:22 2013"),
        None
    );
    assert_eq!(reply_code("ofr_506 [506]"), None);
    assert_eq!(infer("no code here", '5'), None);
    assert_eq!(severity(false, None), Severity::Permanent);
}

#[test]
fn a_status_field_is_checked() {
    assert!(valid_status("5.1.1"));
    assert!(valid_status("4.2.22"));
    assert!(!valid_status("2.0.0"));
    assert!(!valid_status("5.1"));
    assert!(!valid_status("5.1.1.1"));
    assert!(!valid_status("5.x.1"));
    assert!(!valid_status("5.1.1234"));
}

#[test]
fn reasons_are_one_line_of_at_most_200_chars() {
    assert_eq!(
        one_line("  550\n   5.1.1\tUser  unknown "),
        "550 5.1.1 User unknown"
    );
    assert_eq!(one_line(&"é".repeat(500)).chars().count(), 200);
    assert_eq!(one_line(&"word ".repeat(500)).chars().count(), 200);
}

fn read_raw(raw: &str) -> Bounce {
    read(
        &MessageParser::default()
            .parse(raw.as_bytes())
            .expect("parsed"),
    )
}

#[test]
fn a_dsn_without_action_counts_only_a_failing_status() {
    let dsn = |fields: &str| {
        format!(
            "From: MAILER-DAEMON@mx.example\nContent-Type: multipart/report; report-type=delivery-status; boundary=b\n\n--b\nContent-Type: text/plain\n\nx\n--b\nContent-Type: message/delivery-status\n\nReporting-MTA: dns; mx.example\n\n{fields}\n--b--\n"
        )
    };
    let failed = read_raw(&dsn(
        "Final-Recipient: rfc822; A@B.example\nStatus: 5.1.1\n",
    ));
    assert_eq!(failed.failures.len(), 1);
    assert_eq!(failed.failures[0].recipient, "a@b.example");
    let delivered = read_raw(&dsn(
        "Final-Recipient: rfc822; a@b.example\nAction: delivered\nStatus: 2.0.0\n",
    ));
    assert!(delivered.failures.is_empty());
    let no_status = read_raw(&dsn("Final-Recipient: rfc822; a@b.example\n"));
    assert!(no_status.failures.is_empty());
    let inferred = read_raw(&dsn(
        "Final-Recipient: rfc822; a@b.example\nAction: failed\nDiagnostic-Code: smtp; 550 no such\n user here\n",
    ));
    assert_eq!(inferred.failures[0].status.as_deref(), Some("5.0.0"));
    assert_eq!(inferred.failures[0].reason, "550 no such user here");
}

#[test]
fn the_reports_own_ids_are_never_originals() {
    let raw = "From: MAILER-DAEMON@mx.example\nMessage-ID: <own@mx.example>\nIn-Reply-To: <orig@pbem.example>\nReferences: <orig@pbem.example>\nX-Failed-Recipients: a@b.example\nSubject: Mail delivery failed\n\nThe following address failed:\n\n  a@b.example\n    550 5.1.1 unknown\n";
    let bounce = read_raw(raw);
    assert!(bounce.original_ids.is_empty(), "{:?}", bounce.original_ids);
    assert_eq!(bounce.failures[0].status.as_deref(), Some("5.1.1"));
    assert_eq!(bounce.failures[0].reason, "550 5.1.1 unknown");
}
