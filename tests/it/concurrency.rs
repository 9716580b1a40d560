//! Eight `pbem ingest` at once beside `pbem serve`, with SIGKILLs and redelivery: every mail stored and played once, every reply sent, duplicates only for mail in flight.

use std::collections::{HashMap, VecDeque};
use std::io::Write;
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use pbem::dev::fault::POINTS;
use pbem::store::Store;

const MAILS: usize = 120;
/// The last mails go into the Maildir for the daemon; the others through `pbem ingest`.
const BY_MAILDIR: usize = 20;
const GAMES: usize = 4;

fn command(dir: &Path, args: &[&str]) -> Command {
    let mut cmd = crate::common::pbem_command(dir, "pbem.sqlite");
    cmd.args(args)
        .env("PBEM_MAILDIR", dir.join("Maildir"))
        .env("PBEM_POLL", "1s")
        // Its 116 HELP mails come from as many strangers, each to be answered.
        .env("PBEM_STRANGER_REPLIES_PER_HOUR", "1000")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    cmd
}

/// Mail `i`: the first `GAMES` are each game's opening move from seat A; the rest are HELP
/// from an address of their own (one reply each, whatever the order they arrive in).
fn mail(i: usize, tokens: &[String]) -> (String, Vec<u8>) {
    let id = format!("conc-{i}@example.net");
    let (from, to, body) = match tokens.get(i) {
        Some(token) => (
            format!("alice{i}@example.org"),
            format!("gm+{token}@example.org"),
            "b1 5/4",
        ),
        None => (
            format!("player{i}@example.net"),
            "gm@example.org".to_string(),
            "HELP",
        ),
    };
    let raw = format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: [pbem] mail {i}\r\nMessage-ID: <{id}>\r\n\r\n{body}\r\n"
    );
    (id, raw.into_bytes())
}

/// Delivers one mail by `pbem ingest` as an MTA does: again after anything but exit 0. The
/// first try of every fifth mail is killed at a fault point (if the process gets there);
/// every seventh is delivered twice even so. Returns how many tries were killed.
fn deliver(dir: &Path, i: usize, raw: &[u8]) -> usize {
    let mut kills = 0;
    let mut fault = (i % 5 == 0).then(|| match (i / 5) % (POINTS.len() + 1) {
        p if p < POINTS.len() => POINTS[p].to_string(),
        _ => "send:after-send:2".to_string(),
    });
    let mut times = if i % 7 == 0 { 2 } else { 1 };
    while times > 0 {
        let mut cmd = command(dir, &["ingest"]);
        if let Some(f) = fault.take() {
            cmd.env("PBEM_FAULT", f);
        }
        let mut child = cmd.spawn().unwrap();
        child.stdin.take().unwrap().write_all(raw).unwrap();
        let status = child.wait().unwrap();
        match (status.code(), status.signal()) {
            (Some(0), _) => times -= 1,
            (_, Some(9)) => kills += 1,
            other => panic!("mail {i}: ingest ended {other:?}"),
        }
    }
    kills
}

/// Mail files in the outbox folder (a dot file is one not yet in place, not mail).
fn sent_files(dir: &Path) -> Vec<String> {
    std::fs::read_dir(dir.join("out"))
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect()
}

fn set_up(dir: &Path) -> Vec<String> {
    assert!(command(dir, &["init"]).status().unwrap().success());
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(dir.join("Maildir").join(sub)).unwrap();
    }
    for g in 0..GAMES {
        let (a, b) = (
            format!("A=alice{g}@example.org"),
            format!("B=bob{g}@example.org"),
        );
        let args = ["game", "new", "dicerink", "--player", &a, "--player", &b];
        assert!(command(dir, &args).status().unwrap().success());
    }
    let mut store = Store::open(&dir.join("pbem.sqlite"), false).unwrap();
    (1..=GAMES as i64)
        .map(|g| {
            store
                .read(|tx| Ok(tx.seats(g)?[0].token.clone().unwrap()))
                .unwrap()
        })
        .collect()
}

#[test]
fn concurrent_ingests_beside_a_killed_daemon_lose_nothing_and_play_nothing_twice() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let tokens = set_up(d);
    let mails: Vec<(String, Vec<u8>)> = (0..MAILS).map(|i| mail(i, &tokens)).collect();
    let to_maildir = |range: std::ops::Range<usize>| {
        // As a delivery agent does: written in tmp/, then renamed into new/, so the daemon
        // never reads a mail half written.
        for i in range {
            let tmp = d.join(format!("Maildir/tmp/{i:04}.mail"));
            std::fs::write(&tmp, &mails[i].1).unwrap();
            std::fs::rename(tmp, d.join(format!("Maildir/new/{i:04}.mail"))).unwrap();
        }
    };
    // Half of the Maildir's mail now, half once the daemon is started for the last time.
    to_maildir(MAILS - BY_MAILDIR..MAILS - BY_MAILDIR / 2);

    let queue = Mutex::new((0..MAILS - BY_MAILDIR).collect::<VecDeque<_>>());
    let kills = AtomicUsize::new(0);
    let mut daemon: Child = command(d, &["serve"]).spawn().unwrap();
    let mut daemon_kills = 0;
    std::thread::scope(|s| {
        let workers: Vec<_> = (0..8)
            .map(|_| {
                s.spawn(|| loop {
                    let Some(i) = queue.lock().unwrap().pop_front() else {
                        return;
                    };
                    kills.fetch_add(deliver(d, i, &mails[i].1), Ordering::SeqCst);
                })
            })
            .collect();
        // The daemon is SIGKILLed and started again while the mail pours in.
        while !workers.iter().all(|w| w.is_finished()) {
            std::thread::sleep(Duration::from_millis(250));
            if daemon_kills < 3 {
                daemon.kill().unwrap();
                daemon.wait().unwrap();
                daemon_kills += 1;
                daemon = command(d, &["serve"]).spawn().unwrap();
            }
        }
    });
    // The daemon takes in the Maildir (which also shows that its last start is done: it
    // heeds signals from then on), then stops at SIGTERM; a last pass sends the rest.
    to_maildir(MAILS - BY_MAILDIR / 2..MAILS);
    let start = Instant::now();
    while std::fs::read_dir(d.join("Maildir/new")).unwrap().count() > 0 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "Maildir not taken in"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let term = Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    assert!(daemon.wait().unwrap().success());
    assert!(command(d, &["serve", "--once"]).status().unwrap().success());

    let mut store = Store::open(&d.join("pbem.sqlite"), false).unwrap();
    let (messages, outbox) = store
        .read(|tx| Ok((tx.messages(1000)?, tx.outbox(None, 10_000)?)))
        .unwrap();
    // Every mail stored exactly once, and played.
    let mut keys: Vec<&str> = messages.iter().map(|m| m.dedupe_key.as_str()).collect();
    keys.sort();
    let mut expected: Vec<String> = mails.iter().map(|(id, _)| format!("mid:{id}")).collect();
    expected.sort();
    assert_eq!(keys, expected);
    assert!(
        messages.iter().all(|m| m.status == "done"),
        "{:?}",
        messages
            .iter()
            .filter(|m| m.status != "done")
            .collect::<Vec<_>>()
    );
    for g in 1..=GAMES as i64 {
        let moves = store.read(|tx| tx.moves(g)).unwrap();
        assert_eq!(moves.len(), 1, "game {g}: its move played once: {moves:?}");
    }
    // Every mail answered, every reply sent at least once; twice only for the one mail in
    // flight when a sender was killed.
    for (id, _) in &mails {
        let irt = format!("<{id}>");
        assert!(
            outbox
                .iter()
                .any(|r| r.in_reply_to.as_deref() == Some(irt.as_str())),
            "{id} has no reply"
        );
    }
    let files = sent_files(d);
    let mut copies: HashMap<&str, usize> = HashMap::new();
    for r in &outbox {
        assert_eq!(r.status, "sent", "{r:?}");
        let n = files.iter().filter(|f| f.contains(&r.message_id)).count();
        assert!(n >= 1, "{} never sent", r.message_id);
        copies.insert(&r.message_id, n);
    }
    let again: usize = copies.values().map(|n| n - 1).sum();
    let killed = kills.load(Ordering::SeqCst) + daemon_kills;
    assert!(
        again <= killed,
        "{again} mails sent twice, for {killed} senders killed"
    );
}
