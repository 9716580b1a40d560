//! Sends real mail through the local stack (scripts/mailstack.sh) and finds it in the Maildirs.
//!
//! Needs `PBEM_MAILSTACK_ROOT` (`eval "$(scripts/mailstack.sh env)"`); without it the stack
//! tests write "skipped: <why>" and pass, unless `PBEM_REQUIRE_MAILSTACK` is set (then they
//! fail). The closed-port test needs no stack and always runs.

use std::fs;
use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::{AtomicU32, Ordering};
use std::thread::sleep;
use std::time::{Duration, Instant};

use pbem::mail::outbound::{OutMail, Transport};

use crate::mailstack;

const DELIVERY_WAIT: Duration = Duration::from_secs(20);

fn port(name: &str, default: u16) -> u16 {
    std::env::var(name)
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(default)
}

/// Unique across runs and within one, so old mail in the Maildirs is never mistaken for new.
fn unique_token() -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = pbem::edge::now()
        .timestamp_nanos_opt()
        .expect("clock before 2262");
    format!(
        "{nanos:x}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

fn game_mail(token: &str, to: &[&str]) -> OutMail {
    OutMail {
        from: "Game Master <gm@localhost>".into(),
        to: to.iter().map(|s| s.to_string()).collect(),
        reply_to: Some("gm@localhost".into()),
        subject: format!("Zug übernommen ♞ {token}"),
        body: format!("Your move was accepted.\nBoard:\n  . ♞ .\n\ntoken {token}\n"),
        message_id: format!("<out-{token}@localhost>"),
        in_reply_to: Some(format!("<move-{token}@player.example>")),
        references: vec![format!("<start-{token}@localhost>")],
        auto_submitted: Some("auto-replied".into()),
        extra_headers: vec![("X-Pbem-Game".into(), format!("g-{token}"))],
        date: None,
        html: None,
    }
}

/// Looks in new/ and also cur/, because an IMAP reader elsewhere may have moved it there.
fn find_delivered(root: &Path, user: &str, message_id: &str) -> Option<Vec<u8>> {
    let maildir = root.join("vmail").join(user).join("Maildir");
    for sub in ["new", "cur"] {
        let Ok(entries) = fs::read_dir(maildir.join(sub)) else {
            continue;
        };
        for entry in entries.flatten() {
            if let Ok(raw) = fs::read(entry.path()) {
                if String::from_utf8_lossy(&raw).contains(message_id) {
                    return Some(raw);
                }
            }
        }
    }
    None
}

fn wait_for_delivery(root: &Path, user: &str, message_id: &str) -> Vec<u8> {
    let deadline = Instant::now() + DELIVERY_WAIT;
    loop {
        if let Some(raw) = find_delivered(root, user, message_id) {
            return raw;
        }
        assert!(
            Instant::now() < deadline,
            "{message_id} not delivered to {user} within {DELIVERY_WAIT:?}; see {}/run/",
            root.display()
        );
        sleep(Duration::from_millis(100));
    }
}

fn assert_headers_survived(raw: &[u8], sent: &OutMail, token: &str) {
    let message = mail_parser::MessageParser::default()
        .parse(raw)
        .expect("delivered mail parses");
    assert_eq!(
        message.message_id(),
        Some(format!("out-{token}@localhost").as_str())
    );
    assert_eq!(
        message.in_reply_to().as_text(),
        Some(format!("move-{token}@player.example").as_str())
    );
    let references: Vec<String> = message
        .references()
        .as_text_list()
        .expect("References")
        .iter()
        .map(|r| r.to_string())
        .collect();
    assert_eq!(
        references,
        [
            format!("start-{token}@localhost"),
            format!("move-{token}@player.example")
        ]
    );
    assert_eq!(message.subject(), Some(sent.subject.as_str()));
    assert_eq!(
        message.header_raw("Auto-Submitted").map(str::trim),
        Some("auto-replied")
    );
    assert_eq!(
        message.header_raw("X-Pbem-Game").map(str::trim),
        Some(format!("g-{token}").as_str())
    );
    let body = message.body_text(0).expect("text body");
    // SMTP transfer may add a final line break; the text itself must arrive unchanged.
    assert_eq!(body.replace("\r\n", "\n").trim_end(), sent.body.trim_end());
}

fn send_and_check(root: &Path, url: &str) {
    let ca = root.join("etc").join("cert.pem");
    let transport = Transport::from_url(url, Some(&ca)).expect("transport URL");
    let token = unique_token();
    let mail = game_mail(&token, &["alice@localhost", "Bob <bob@localhost>"]);
    transport
        .send(&mail)
        .unwrap_or_else(|e| panic!("{transport}: {e}"));
    for user in ["alice", "bob"] {
        let raw = wait_for_delivery(root, user, &format!("<out-{token}@localhost>"));
        assert_headers_survived(&raw, &mail, &token);
    }
}

#[test]
fn starttls_with_auth_delivers_to_each_recipient_with_thread_headers() {
    let Some(root) = mailstack::root(
        "smtp_stack::starttls_with_auth_delivers_to_each_recipient_with_thread_headers",
    ) else {
        return;
    };
    let port = port("PBEM_MAILSTACK_SUBMISSION_PORT", 2587);
    send_and_check(
        &root,
        &format!("smtp+starttls://gm:gm-secret@127.0.0.1:{port}"),
    );
    // The same through the query-string spelling, with the host name instead of the address.
    send_and_check(
        &root,
        &format!("smtp://gm:gm-secret@localhost:{port}?tls=starttls"),
    );
}

#[test]
fn implicit_tls_with_auth_delivers_to_each_recipient_with_thread_headers() {
    let Some(root) = mailstack::root(
        "smtp_stack::implicit_tls_with_auth_delivers_to_each_recipient_with_thread_headers",
    ) else {
        return;
    };
    let port = port("PBEM_MAILSTACK_SUBMISSIONS_PORT", 2465);
    send_and_check(&root, &format!("smtps://gm:gm-secret@127.0.0.1:{port}"));
}

#[test]
fn plain_smtp_to_the_local_relay_delivers() {
    let Some(root) = mailstack::root("smtp_stack::plain_smtp_to_the_local_relay_delivers") else {
        return;
    };
    let port = port("PBEM_MAILSTACK_SMTP_PORT", 2525);
    send_and_check(&root, &format!("smtp://127.0.0.1:{port}"));
}

#[test]
fn wrong_password_is_a_permanent_failure() {
    let Some(root) = mailstack::root("smtp_stack::wrong_password_is_a_permanent_failure") else {
        return;
    };
    let ca = root.join("etc").join("cert.pem");
    let port = port("PBEM_MAILSTACK_SUBMISSIONS_PORT", 2465);
    let transport = Transport::from_url(
        &format!("smtps://gm:not-the-password@127.0.0.1:{port}"),
        Some(&ca),
    )
    .unwrap();
    let token = unique_token();
    let err = transport
        .send(&game_mail(&token, &["alice@localhost"]))
        .expect_err("a wrong password must not be accepted");
    assert!(!err.transient, "{err}");
    assert!(err.message.contains("535"), "{err}");
    assert!(find_delivered(&root, "alice", &format!("<out-{token}@localhost>")).is_none());
}

#[test]
fn an_untrusted_certificate_is_refused_and_retryable() {
    let Some(_root) =
        mailstack::root("smtp_stack::an_untrusted_certificate_is_refused_and_retryable")
    else {
        return;
    };
    // Without the stack's CA file the self-signed certificate must not be accepted.
    let port = port("PBEM_MAILSTACK_SUBMISSIONS_PORT", 2465);
    let transport =
        Transport::from_url(&format!("smtps://gm:gm-secret@127.0.0.1:{port}"), None).unwrap();
    let err = transport
        .send(&game_mail(&unique_token(), &["alice@localhost"]))
        .expect_err("an unknown certificate must not be trusted");
    assert!(err.transient, "{err}");
}

#[test]
fn a_closed_port_is_a_transient_failure() {
    // Bind then drop: the port was free a moment ago and nothing listens on it now.
    let port = TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let transport = Transport::from_url(&format!("smtp://127.0.0.1:{port}"), None).unwrap();
    let err = transport
        .send(&game_mail(&unique_token(), &["alice@localhost"]))
        .expect_err("nothing listens there");
    assert!(err.transient, "{err}");
}

#[test]
fn a_refused_recipient_is_a_permanent_failure() {
    let Some(_root) = mailstack::root("smtp_stack::a_refused_recipient_is_a_permanent_failure")
    else {
        return;
    };
    // The stack delivers to @localhost and relays only to remote.test: RCPT gets a 5xx.
    let port = port("PBEM_MAILSTACK_SMTP_PORT", 2525);
    let transport = Transport::from_url(&format!("smtp://127.0.0.1:{port}"), None).unwrap();
    let err = transport
        .send(&game_mail(&unique_token(), &["someone@elsewhere.invalid"]))
        .expect_err("the relay must refuse a foreign domain");
    assert!(!err.transient, "{err}");
}
