//! Crash safety: pbem is SIGKILLed between every pair of steps of the mail path; after a restart
//! each message is processed exactly once and every reply is sent at least once.

use crate::common;

use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, Stdio};

use pbem::dev::fault::POINTS;
use pbem::store::Store;

const BIN: &str = env!("CARGO_BIN_EXE_pbem");

fn pbem(
    dir: &Path,
    args: &[&str],
    fault: Option<&str>,
    stdin: Option<&[u8]>,
) -> std::process::ExitStatus {
    let mut cmd = crate::common::pbem_command(dir, "pbem.sqlite");
    cmd.args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    if let Some(f) = fault {
        cmd.env("PBEM_FAULT", f);
    }
    let mut child = cmd.spawn().unwrap();
    if let Some(bytes) = stdin {
        child.stdin.take().unwrap().write_all(bytes).unwrap();
    }
    drop(child.stdin.take());
    child.wait().unwrap()
}

/// The background sender that `pbem ingest` started, with the fault armed, wrote a mail and
/// died before that mail was marked sent: the fault point was reached.
fn assert_died_after_writing_a_mail(d: &Path, point: &str) {
    let open = || Store::open(&d.join("pbem.sqlite"), false).unwrap();
    let replies_written = || {
        let outbox = open().read(|tx| tx.outbox(None, 100)).unwrap();
        let files = crate::common::out_files(d);
        outbox
            .into_iter()
            .filter(|m| m.kind != "welcome")
            .filter(|m| files.iter().any(|f| f.contains(&m.message_id)))
            .collect::<Vec<_>>()
    };
    let start = std::time::Instant::now();
    while replies_written().is_empty() {
        assert!(
            start.elapsed() < std::time::Duration::from_secs(60),
            "{point}: the background sender never wrote a reply"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    // Its send turn (a lock the system releases when the process dies) ends with its death.
    let turn = std::fs::File::open(d.join("pbem.sqlite-send.lock")).unwrap();
    rustix::fs::flock(&turn, rustix::fs::FlockOperation::LockExclusive).unwrap();
    drop(turn);
    let written = replies_written();
    let unmarked: Vec<_> = written
        .iter()
        .filter(|m| m.status == pbem::store::OutboxStatus::Pending)
        .map(|m| m.id)
        .collect();
    assert_eq!(
        unmarked.len(),
        1,
        "{point}: written but not marked sent: {unmarked:?}"
    );
}

/// The background worker that `pbem ingest` started, with the fault armed, died at `point`:
/// before the commit that stores and answers the spooled mail (nothing stored, the mail still
/// in the spool), after it (answered, nothing sent, the spool's file not yet deleted), or
/// after writing a reply it had not marked sent.
fn assert_worker_died_at(d: &Path, point: &str) {
    if point.starts_with("send:") {
        assert_died_after_writing_a_mail(d, point);
        return;
    }
    common::wait_for_workers(&d.join("pbem.sqlite"));
    let mut store = Store::open(&d.join("pbem.sqlite"), false).unwrap();
    let (messages, outbox) = store
        .read(|tx| Ok((tx.messages(100)?, tx.outbox(None, 100)?)))
        .unwrap();
    let replies: Vec<_> = outbox.iter().filter(|m| m.kind != "welcome").collect();
    let status: Vec<&str> = messages.iter().map(|m| m.status.as_str()).collect();
    let spooled = pbem::mail::spool::waiting(&d.join("pbem.sqlite-spool"));
    assert_eq!(
        spooled, 1,
        "{point}: the spool keeps the mail until after the commit"
    );
    match point {
        "process:before-commit" => {
            assert!(status.is_empty(), "{point}: {status:?}");
            assert!(replies.is_empty(), "{point}: {replies:?}");
        }
        _ => {
            assert_eq!(status, ["done"], "{point}");
            assert!(
                !replies.is_empty() && replies.iter().all(|m| m.status != "sent"),
                "{point}: {replies:?}"
            );
        }
    }
}

#[test]
fn every_crash_point_leaves_exactly_once_processing_and_at_least_once_replies() {
    for point in POINTS {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        assert!(pbem(d, &["init"], None, None).success());
        assert!(pbem(d, &crate::common::NEW_DICERINK, None, None).success());
        let token = {
            let mut store = Store::open(&d.join("pbem.sqlite"), false).unwrap();
            store
                .tx(|tx| Ok(tx.seats(1)?[0].token.clone().unwrap()))
                .unwrap()
        };
        let raw = format!(
            "From: alice@example.org\r\nTo: gm+{token}@example.org\r\nSubject: Re: [pbem #1] Dice Rink\r\n\
             Message-ID: <crash-test@alice.example>\r\n\r\nb1 5/4\r\n"
        );
        let status = pbem(d, &["ingest"], Some(point), Some(raw.as_bytes()));
        if point.starts_with("ingest:") {
            assert_eq!(
                status.signal(),
                Some(9),
                "{point}: the fault point was not reached ({status:?})"
            );
        } else {
            // Answering and sending are the background worker's (`pbem ingest-worker`,
            // which inherits the fault): the mail was stored, and `ingest` succeeds.
            assert_eq!(status.code(), Some(0), "{point}: {status:?}");
            assert_worker_died_at(d, point);
        }
        // The MTA saw no success (the process died), so it delivers again; then the daemon runs.
        let again = pbem(d, &["ingest"], None, Some(raw.as_bytes()));
        assert!(again.success(), "{point}: redelivery failed: {again:?}");
        assert!(
            pbem(d, &["serve", "--once"], None, None).success(),
            "{point}"
        );
        // Any background worker still at work finishes before the outbox folder is read.
        assert!(
            pbem(d, &["outbox", "send"], None, None).success(),
            "{point}"
        );
        common::wait_for_workers(&d.join("pbem.sqlite"));

        let mut store = Store::open(&d.join("pbem.sqlite"), false).unwrap();
        let (moves, messages, outbox) = store
            .tx(|tx| Ok((tx.moves(1)?, tx.messages(100)?, tx.outbox(None, 100)?)))
            .unwrap();
        assert_eq!(
            moves.len(),
            1,
            "{point}: the move must be played exactly once: {moves:?}"
        );
        assert_eq!(messages.len(), 1, "{point}: one stored message");
        assert_eq!(messages[0].status, "done", "{point}");
        let replies: Vec<_> = outbox.iter().filter(|m| m.kind != "welcome").collect();
        assert_eq!(
            replies.len(),
            2,
            "{point}: one reply to A, one report to B: {replies:?}"
        );
        assert!(
            replies.iter().all(|m| m.status == "sent"),
            "{point}: {replies:?}"
        );
        let files = crate::common::out_files(d);
        for r in &replies {
            let copies = files.iter().filter(|f| f.contains(&r.message_id)).count();
            assert!(copies >= 1, "{point}: {} never sent", r.message_id);
            if *point != "send:after-send" {
                assert_eq!(copies, 1, "{point}: {} sent {copies} times", r.message_id);
            }
        }
    }
}

/// A sender killed after its Nth mail went out, before marking it, sends again only that
/// one mail: each mail is marked as soon as the transport took it, not after the batch.
#[test]
fn a_kill_after_n_sends_resends_at_most_the_mail_in_flight() {
    // 24 mails due at once: one drain, written with one sync of the folder for the lot.
    for n in [1, 5, 24] {
        let mut w = common::World::new();
        for g in 0..12 {
            let (a, b) = (format!("a{g}@example.org"), format!("b{g}@example.org"));
            w.game(
                pbem::games::GameKind::DiceRink,
                &[("A", &a), ("B", &b)],
                &[],
                None,
                None,
            );
        }
        let d = w.dir.path();
        let fault = match n {
            1 => "send:after-send".to_string(),
            n => format!("send:after-send:{n}"),
        };
        let serve = |fault: Option<&str>| {
            let mut cmd = Command::new(BIN);
            cmd.current_dir(d)
                .args(["serve", "--once"])
                .env("PBEM_DB", d.join("pbem.sqlite"))
                .env("PBEM_ADDRESS", "gm@pbem.example")
                .env("PBEM_OUTBOX_DIR", d.join("out"))
                .env_remove("PBEM_FAULT")
                .env_remove("PBEM_CONFIG")
                .env_remove("PBEM_MAILDIR")
                .env_remove("PBEM_TRANSPORT")
                .stdout(Stdio::null())
                .stderr(Stdio::null());
            if let Some(f) = fault {
                cmd.env("PBEM_FAULT", f);
            }
            cmd.status().unwrap()
        };
        let status = serve(Some(&fault));
        assert_eq!(
            status.signal(),
            Some(9),
            "{fault}: not reached ({status:?})"
        );
        assert_eq!(
            crate::common::out_files(d).len(),
            n,
            "{fault}: the mails sent before the kill"
        );
        assert!(serve(None).success(), "{fault}");

        let outbox = w.store.read(|tx| tx.outbox(None, 100)).unwrap();
        assert_eq!(outbox.len(), 24);
        assert!(outbox.iter().all(|m| m.status == "sent"), "{outbox:?}");
        let files = crate::common::out_files(d);
        let mut again = 0;
        for m in &outbox {
            let copies = files.iter().filter(|f| f.contains(&m.message_id)).count();
            assert!(copies >= 1, "{fault}: {} never sent", m.message_id);
            again += copies - 1;
        }
        assert!(again <= 1, "{fault}: {again} mails sent twice");
    }
}
