//! End to end on the real mail server of `scripts/mailstack.sh`: pbem's welcome to an unknown user of the stack's second hop (remote.test) comes back as OpenSMTPD's own delivery report to the mail's bounce address, and `pbem serve --once` ties it to that outbox row: the mail listed as bounced with the server's reason, the player shown as unreachable, the GM told by mail.
//!
//! Needs `PBEM_MAILSTACK_ROOT` as e2e_mailstack.rs does: without it the test writes
//! "skipped: <why>" and passes, unless `PBEM_REQUIRE_MAILSTACK` is set (then it fails).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use pbem::mail::inbound;

use crate::common::says;
use crate::mailstack;

const BIN: &str = env!("CARGO_BIN_EXE_pbem");
/// The GM of this test and its notices' reader: mailboxes of the stack no other test reads.
const GM: &str = "bouncegm";
const ADMIN: &str = "bounceadmin@localhost";
/// The second hop's one user, and a user it refuses for good (550).
const ALICE: &str = "alice@remote.test";
const NOBODY: &str = "nosuchuser@remote.test";
/// How long a mail may take through the stack before the test gives up (a bound, not a timing
/// under test: OpenSMTPD reports a refusal for good at once).
const PATIENCE: Duration = Duration::from_secs(60);

fn files(dir: &Path) -> HashSet<PathBuf> {
    std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// The mail in a mailbox's `new/` that arrived after `seen`, oldest name first.
fn fresh(new: &Path, seen: &HashSet<PathBuf>) -> Vec<(PathBuf, String)> {
    let mut paths: Vec<PathBuf> = files(new).difference(seen).cloned().collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            // The raw mail for its headers, then its body decoded (quoted-printable may break
            // a sentence where a soft line break falls).
            let raw = std::fs::read(&p).unwrap_or_default();
            let body = inbound::parse(&raw).body;
            (p, format!("{}\n{body}", String::from_utf8_lossy(&raw)))
        })
        .collect()
}

/// Waits (bounded) for a mail in `new/` beyond `seen` that contains every one of `needles`.
fn wait_for(new: &Path, seen: &HashSet<PathBuf>, needles: &[&str]) -> String {
    let start = Instant::now();
    loop {
        if let Some((_, text)) = fresh(new, seen)
            .into_iter()
            .find(|(_, t)| needles.iter().all(|n| says(t, n)))
        {
            return text;
        }
        assert!(
            start.elapsed() < PATIENCE,
            "no mail with {needles:?} in {} within {PATIENCE:?}",
            new.display()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// `pbem` with its database in `dir`, sending through the stack's plain SMTP (the GM's own
/// server, as an MTA on the GM's host would take it) and reading the GM's Maildir.
fn pbem_cmd(dir: &Path, root: &Path) -> Command {
    let port = std::env::var("PBEM_MAILSTACK_SMTP_PORT").unwrap_or_else(|_| "2525".into());
    let mut cmd = Command::new(BIN);
    cmd.current_dir(dir)
        .env("PBEM_DB", dir.join("pbem.sqlite"))
        .env("PBEM_ADDRESS", format!("{GM}@localhost"))
        .env("PBEM_ADMIN_ADDRESS", ADMIN)
        .env("PBEM_MAILDIR", root.join(format!("vmail/{GM}/Maildir")))
        .env("PBEM_TRANSPORT", format!("smtp://127.0.0.1:{port}"))
        .env_remove("PBEM_OUTBOX_DIR")
        .env_remove("PBEM_FAULT");
    cmd
}

/// Runs `pbem ARGS`, which must succeed: what it printed on stdout.
fn run(dir: &Path, root: &Path, args: &[&str]) -> String {
    let out = pbem_cmd(dir, root).args(args).output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "pbem {args:?} failed: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

/// Moves what earlier runs left in a mailbox's `new/` to its `cur/`: not this run's mail.
fn set_aside(maildir: &Path) -> HashSet<PathBuf> {
    for p in files(&maildir.join("new")) {
        let _ = std::fs::rename(&p, maildir.join("cur").join(p.file_name().unwrap()));
    }
    files(&maildir.join("new"))
}

#[test]
fn opensmtpds_own_report_for_an_unknown_user_is_tied_to_the_mail_it_returns() {
    let Some(root) = mailstack::root(
        "e2e_bounce::opensmtpds_own_report_for_an_unknown_user_is_tied_to_the_mail_it_returns",
    ) else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let gm_box = root.join(format!("vmail/{GM}/Maildir"));
    let admin_new = root.join("vmail/bounceadmin/Maildir/new");
    let alice_new = root.join("vmail/remote.test/alice/Maildir/new");
    let gm_seen = set_aside(&gm_box);
    let admin_seen = files(&admin_new);
    let alice_seen = files(&alice_new);

    run(d, &root, &["config", "check"]);
    run(d, &root, &["init"]);
    let made = run(
        d,
        &root,
        &[
            "game",
            "new",
            "dicerink",
            "--player",
            &format!("A={ALICE}"),
            "--player",
            &format!("B={NOBODY}"),
        ],
    );
    let game: i64 = made.trim().parse().unwrap();
    let subject = format!("[pbem #{game}]");

    // One pass sends the welcomes through OpenSMTPD, each with its own bounce address.
    let started = Instant::now();
    run(d, &root, &["serve", "--once"]);
    wait_for(
        &alice_new,
        &alice_seen,
        &[&subject, &format!("To: {ALICE}")],
    );
    let bounce_to = format!("{GM}+bounce-");
    let dsn = wait_for(
        &gm_box.join("new"),
        &gm_seen,
        &[&format!("To: {bounce_to}"), NOBODY, &subject],
    );
    let took = started.elapsed();
    assert!(says(&dsn, "Status: 5.0.0"), "{dsn}");
    // The outbox row its bounce address names (`GM+bounce-ROW-MAC@localhost`).
    let verp_row: i64 = dsn
        .lines()
        .find_map(|l| l.strip_prefix(&format!("To: {bounce_to}")))
        .and_then(|rest| rest.split('-').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("the report is not addressed to a bounce address: {dsn}"));
    let _ = writeln_stderr(&format!(
        "e2e_bounce: the delivery report came back within {took:?}"
    ));

    // The next pass reads the report from the GM's Maildir and ties it to the welcome.
    run(d, &root, &["serve", "--once"]);
    let bounced = run(d, &root, &["outbox", "list", "--status", "bounced"]);
    // The row, then its cause and its bounce on lines of their own, with the server's words.
    let row = bounced
        .lines()
        .position(|l| {
            says(l, NOBODY)
                && says(l, "welcome")
                && l.split_whitespace().next() == Some(&verp_row.to_string())
        })
        .unwrap_or_else(|| panic!("the welcome to {NOBODY} is not listed as bounced: {bounced}"));
    let below = bounced.lines().skip(row).collect::<Vec<_>>().join("\n");
    assert!(
        says(&below, "bounced") && says(&below, "5.0.0 550 Invalid recipient"),
        "{bounced}"
    );
    assert!(!says(&bounced, ALICE), "{bounced}");
    let show = run(d, &root, &["player", "show", NOBODY]);
    assert!(says(&show, "Mail to this address bounces since"), "{show}");
    let alice = run(d, &root, &["player", "show", ALICE]);
    assert!(!says(&alice, "bounces"), "{alice}");
    let inbox = run(d, &root, &["inbox"]);
    assert!(says(&inbox, "bounced (for good)"), "{inbox}");

    // The GM hears of it by mail (sent by this pass or the next).
    run(d, &root, &["serve", "--once"]);
    let told = wait_for(
        &admin_new,
        &admin_seen,
        &[&format!("Mail to {NOBODY} bounces since")],
    );
    assert!(says(&told, &format!("To: {ADMIN}")), "{told}");
}

/// Straight to the process's stderr, as the skip notes go: the harness shows eprintln! output
/// only for a failing test, and how long the report took is worth seeing.
fn writeln_stderr(line: &str) -> std::io::Result<()> {
    use std::io::Write;
    writeln!(std::io::stderr(), "{line}")
}
