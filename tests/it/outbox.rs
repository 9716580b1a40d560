//! The outbox: transient failures retry with backoff, permanent ones are marked, the GM retries.

use crate::common::World;
use chrono::Duration;
use pbem::games::GameKind;
use pbem::mail::outbound::{Recorder, SendError, Transport};
use pbem::sender;

#[test]
fn transient_failures_back_off_then_fail_and_the_gm_can_retry() {
    let mut w = World::new();
    w.cfg.max_attempts = 3;
    w.cfg.retry_base_secs = 60;
    w.game(
        GameKind::DiceRink,
        &[("A", "alice@example.org"), ("B", "bob@example.org")],
        &[],
        None,
        None,
    );
    // Nothing listens on port 1: a connection failure, which is transient.
    let down = Transport::from_url("smtp://127.0.0.1:1", None).unwrap();
    let t0 = w.now;
    let d = sender::drain(&mut w.store, &w.cfg, &down, &|| t0).unwrap();
    assert_eq!((d.sent, d.retrying, d.failed), (0, 2, 0));
    let rows = w.store.tx(|tx| tx.outbox(None, 10)).unwrap();
    assert!(rows
        .iter()
        .all(|r| r.status == "pending" && r.attempts == 1));
    assert!(rows
        .iter()
        .all(|r| r.next_try_at == Some(t0 + Duration::seconds(60))));
    assert!(rows[0].last_error.is_some());
    // Not due yet: nothing is tried.
    let d = sender::drain(&mut w.store, &w.cfg, &down, &|| t0 + Duration::seconds(30)).unwrap();
    assert_eq!(d, sender::Drained::default());
    // Second failure: the delay doubles.
    let t1 = t0 + Duration::seconds(61);
    sender::drain(&mut w.store, &w.cfg, &down, &|| t1).unwrap();
    let rows = w.store.tx(|tx| tx.outbox(None, 10)).unwrap();
    assert!(rows
        .iter()
        .all(|r| r.next_try_at == Some(t1 + Duration::seconds(120))));
    // Third: out of attempts, marked failed for the GM.
    let t2 = t1 + Duration::seconds(121);
    let d = sender::drain(&mut w.store, &w.cfg, &down, &|| t2).unwrap();
    assert_eq!(d.failed, 2);
    let failed = w
        .store
        .tx(|tx| tx.outbox(Some(pbem::store::OutboxStatus::Failed), 10))
        .unwrap();
    assert_eq!(failed.len(), 2);
    // The GM retries; with a working transport they go out.
    let n = w
        .store
        .tx(|tx| {
            let mut n = 0;
            for r in &failed {
                n += usize::from(tx.retry_outbox(r.id, t2)?);
            }
            Ok(n)
        })
        .unwrap();
    assert_eq!(n, 2);
    let up = Transport::from_url(&w.cfg.transport, None).unwrap();
    let d = sender::drain(&mut w.store, &w.cfg, &up, &|| t2).unwrap();
    assert_eq!(d.sent, 2);
    assert_eq!(
        std::fs::read_dir(w.dir.path().join("out")).unwrap().count(),
        2
    );
}

#[test]
fn a_permanent_failure_is_marked_at_once() {
    let mut w = World::new();
    w.game(
        GameKind::DiceRink,
        &[("A", "alice@example.org"), ("B", "bob@example.org")],
        &[],
        None,
        None,
    );
    // A sendmail that refuses the address (EX_NOUSER) is a permanent failure.
    let script = w.dir.path().join("sendmail");
    std::fs::write(&script, "#!/bin/sh\ncat >/dev/null\nexit 67\n").unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&script)
        .status()
        .unwrap();
    let t = Transport::from_url(&format!("sendmail:{}", script.display()), None).unwrap();
    let now = w.now;
    let d = sender::drain(&mut w.store, &w.cfg, &t, &|| now).unwrap();
    assert_eq!(d.failed, 2);
    assert_eq!(
        w.store
            .tx(|tx| tx.outbox(Some(pbem::store::OutboxStatus::Failed), 10))
            .unwrap()
            .len(),
        2
    );
}

/// Several senders at once (an MTA runs `pbem ingest` for mails in parallel, beside a
/// daemon): each due mail is still written exactly once.
#[test]
fn concurrent_senders_send_each_mail_once() {
    let mut w = World::new();
    for i in 0..12 {
        w.game(
            GameKind::DiceRink,
            &[
                ("A", &format!("alice{i}@example.org")),
                ("B", &format!("bob{i}@example.org")),
            ],
            &[],
            None,
            None,
        );
    }
    let queued = w.store.read(|tx| tx.outbox(None, i64::MAX)).unwrap().len();
    assert!(queued >= 24, "every seat got a welcome");
    let db = w.dir.path().join("pbem.sqlite");
    let out = w.dir.path().join("out");
    let barrier = std::sync::Barrier::new(4);
    let sent: usize = std::thread::scope(|s| {
        let senders: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    let mut store = pbem::store::Store::open(&db, false).unwrap();
                    let transport =
                        Transport::from_url(&format!("dir:{}", out.display()), None).unwrap();
                    barrier.wait();
                    sender::drain(&mut store, &w.cfg, &transport, &|| w.now)
                        .unwrap()
                        .sent
                })
            })
            .collect();
        senders.into_iter().map(|h| h.join().unwrap()).sum()
    });
    assert_eq!(sent, queued);
    let files = std::fs::read_dir(&out)
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .ends_with(".eml")
        })
        .count();
    assert_eq!(files, queued, "one file per queued mail, none twice");
}

/// What a transport writes is the finished message stored when the mail was queued, byte for
/// byte: the sender builds nothing.
#[test]
fn the_folder_gets_the_bytes_stored_in_the_outbox() {
    let mut w = World::new();
    w.game(
        GameKind::DiceRink,
        &[("A", "alice@example.org"), ("B", "bob@example.org")],
        &[],
        None,
        None,
    );
    // The welcomes get their HTML part (as the sender's first step does); then the bytes
    // stored are the bytes sent.
    pbem::compose::illustrate::run(&mut w.store, &w.cfg).unwrap();
    let mut stored: Vec<Vec<u8>> = w
        .store
        .read(|tx| tx.outbox_due(w.now, 100))
        .unwrap()
        .into_iter()
        .map(|r| r.raw.expect("finished when queued"))
        .collect();
    assert_eq!(stored.len(), 2);
    let transport = w.cfg.transport().unwrap();
    let now = w.now;
    assert_eq!(
        sender::drain(&mut w.store, &w.cfg, &transport, &|| now)
            .unwrap()
            .sent,
        2
    );
    let mut written: Vec<Vec<u8>> = std::fs::read_dir(w.dir.path().join("out"))
        .unwrap()
        .map(|e| std::fs::read(e.unwrap().path()).unwrap())
        .collect();
    stored.sort();
    written.sort();
    assert_eq!(written, stored);
}

/// The memory transport stands in for a relay in a whole game: what it took parses back as
/// the mails the outbox lists.
#[test]
fn the_memory_transport_records_what_a_relay_would_get() {
    let mut w = World::new();
    w.game(
        GameKind::DiceRink,
        &[("A", "alice@example.org"), ("B", "bob@example.org")],
        &[],
        None,
        None,
    );
    let queued = w.new_mail();
    let recorder = Recorder::default();
    recorder.fail_next(1, SendError::transient("421 4.7.0 busy"));
    let relay = Transport::Memory(recorder.clone());
    let now = w.now;
    let d = sender::drain(&mut w.store, &w.cfg, &relay, &|| now).unwrap();
    assert_eq!((d.sent, d.retrying), (1, 1));
    let later = now + Duration::hours(1);
    assert_eq!(
        sender::drain(&mut w.store, &w.cfg, &relay, &|| later)
            .unwrap()
            .sent,
        1
    );
    let taken = recorder.taken();
    assert_eq!(taken.len(), 2);
    for row in &queued {
        let mail = taken
            .iter()
            .find(|m| m.message_id == row.message_id)
            .expect("each queued mail taken once");
        assert_eq!(mail.envelope.to()[0].to_string(), row.to_addr);
        let msg = mail_parser::MessageParser::default()
            .parse(&mail.bytes)
            .unwrap();
        assert_eq!(msg.subject(), Some(row.subject.as_str()));
        assert_eq!(
            msg.body_text(0).unwrap().replace("\r\n", "\n"),
            row.body,
            "to {}",
            row.to_addr
        );
    }
}

/// Issue 27, point 36: a mail a GM command causes is listed by `outbox list` with that
/// command, and serve's log line for it names the recipient, the cause and the subject.
#[test]
fn a_gm_commands_mail_names_its_cause_in_the_listing_and_in_serves_log() {
    use crate::common::{output_text, pbem_command};
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // No transport: what the commands queue stays in the outbox, due, for serve.
    let pbem = |args: &[&str]| {
        pbem_command(d, "g.sqlite")
            .env("PBEM_TRANSPORT", "nonsense://x")
            .args(args)
            .output()
            .unwrap()
    };
    assert!(pbem(&["init"]).status.success());
    let new = [
        "game",
        "new",
        "dicerink",
        "--player",
        "A=a@x.org",
        "--player",
        "B=b@x.org",
    ];
    assert!(pbem(&new).status.success());
    let o = pbem(&["game", "pause", "1", "--reason", "a holiday"]);
    assert!(o.status.success(), "{}", output_text(&o));
    let o = pbem(&["outbox", "list"]);
    let list = output_text(&o);
    assert_eq!(
        list.matches("cause: pbem game pause 1").count(),
        2,
        "{list}"
    );
    assert_eq!(
        list.matches("cause: pbem game new dicerink").count(),
        2,
        "{list}"
    );
    let o = pbem_command(d, "g.sqlite")
        .args(["serve", "--once"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", output_text(&o));
    let log = String::from_utf8_lossy(&o.stderr);
    let paused = log
        .lines()
        .find(|l| l.contains("mail sent to a@x.org (news, pbem game pause 1)"))
        .unwrap_or_else(|| panic!("no sent line for the pause:\n{log}"));
    assert!(
        paused.contains("): [pbem #1] Dice Rink"),
        "the subject: {paused}"
    );
}
