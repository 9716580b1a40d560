//! No single spool file stops the spool: a mail that kills its readers is set aside after two deaths, a worker killed while it waits strands no mail, and an entry that cannot be read is moved aside once.

use crate::common;

use std::io::Write;
use std::os::unix::fs::PermissionsExt as _;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use pbem::store::Store;

/// Runs `pbem ARGS` in `d` (database `pbem.sqlite`) with `env` set, `stdin` as its input.
fn pbem(d: &Path, args: &[&str], env: &[(&str, &str)], stdin: &[u8]) -> std::process::ExitStatus {
    let mut cmd = common::pbem_command(d, "pbem.sqlite");
    cmd.args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = cmd.spawn().unwrap();
    child.stdin.take().unwrap().write_all(stdin).unwrap();
    child.wait().unwrap()
}

/// A Dice Rink game between alice (A) and bob (B) in `d`; alice's first move by mail.
fn game_and_alices_move(d: &Path) -> String {
    assert!(pbem(d, &["init"], &[], b"").success());
    assert!(pbem(d, &common::NEW_DICERINK, &[], b"").success());
    let mut store = Store::open(&d.join("pbem.sqlite"), false).unwrap();
    let token = store
        .tx(|tx| Ok(tx.seats(1)?[0].token.clone().unwrap()))
        .unwrap();
    format!(
        "From: alice@example.org\r\nTo: gm+{token}@example.org\r\nSubject: Re: [pbem #1] Dice Rink\r\n\
         Message-ID: <move@alice.example>\r\n\r\nb1 5/4\r\n"
    )
}

fn spool(d: &Path) -> std::path::PathBuf {
    pbem::mail::spool::dir(&d.join("pbem.sqlite"))
}

/// The event log's lines (GM notices among them).
fn events(d: &Path) -> Vec<String> {
    let mut store = Store::open(&d.join("pbem.sqlite"), false).unwrap();
    let events = store.read(|tx| tx.events(None)).unwrap();
    events.into_iter().map(|(_, text)| text).collect()
}

fn set_aside(d: &Path) -> Vec<std::path::PathBuf> {
    std::fs::read_dir(spool(d).join("quarantine"))
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default()
}

/// Under a memory limit, a mail whose reading kills its reader (the OOM killer, here a
/// SIGKILL while it is parsed) used to kill every worker and pass that read the spool after
/// it, and the mails behind it were never stored. Now the third reader finds it tried twice
/// without an acknowledgement, sets it aside, tells the GM once, and stores the rest.
#[test]
fn a_mail_that_kills_its_readers_is_set_aside_after_two_deaths() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let alice = game_and_alices_move(d);
    let bomb = b"From: mallory@example.org\r\nTo: gm@example.org\r\nSubject: BOMB\r\n\
                 Message-ID: <bomb@mallory.example>\r\n\r\nHELP\r\n";
    let kill = [("PBEM_FAULT", "ingest:kill:BOMB")];
    // The worker each `ingest` starts inherits the fault and dies on the bomb.
    assert_eq!(pbem(d, &["ingest"], &kill, bomb).code(), Some(0));
    common::wait_for_workers(&d.join("pbem.sqlite"));
    assert_eq!(
        pbem(d, &["ingest"], &kill, alice.as_bytes()).code(),
        Some(0)
    );
    common::wait_for_workers(&d.join("pbem.sqlite"));
    assert_eq!(
        pbem::mail::spool::waiting(&spool(d)),
        2,
        "both died on the bomb"
    );

    let serve = pbem(d, &["serve", "--once"], &kill, b"");
    assert!(serve.success(), "the third reader died too: {serve:?}");
    let mut store = Store::open(&d.join("pbem.sqlite"), false).unwrap();
    let (moves, messages) = store
        .read(|tx| Ok((tx.moves(1)?, tx.messages(100)?)))
        .unwrap();
    assert_eq!(moves.len(), 1, "alice's move is played");
    assert_eq!(messages.len(), 1, "the bomb is not stored: {messages:?}");
    assert_eq!(pbem::mail::spool::waiting(&spool(d)), 0);
    let aside = set_aside(d);
    assert_eq!(aside.len(), 1, "{aside:?}");
    assert_eq!(std::fs::read(&aside[0]).unwrap(), bomb);
    let told = |d: &Path| {
        events(d)
            .into_iter()
            .filter(|e| e.contains("set aside"))
            .count()
    };
    assert_eq!(told(d), 1, "{:?}", events(d));
    assert!(pbem(d, &["serve", "--once"], &kill, b"").success());
    assert_eq!(told(d), 1, "the GM is told once: {:?}", events(d));
}

/// A reader that panics on a mail before its processing's isolation (here in the parse) does
/// not die, but leaves the batch unstored all the same: the mail is set aside after two such
/// passes, and the rest of the spool is read in.
#[test]
fn a_mail_whose_reading_panics_is_set_aside_after_two_passes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let alice = game_and_alices_move(d);
    let bomb = b"From: mallory@example.org\r\nTo: gm@example.org\r\nSubject: BOMB\r\n\r\nHELP\r\n";
    let sp = spool(d);
    let at = |s| chrono::DateTime::from_timestamp(s, 0).unwrap();
    pbem::mail::spool::deliver(&sp, bomb, at(1_800_000_000)).unwrap();
    pbem::mail::spool::deliver(&sp, alice.as_bytes(), at(1_800_000_001)).unwrap();
    let panic = [("PBEM_FAULT", "ingest:panic:BOMB")];
    for _ in 0..2 {
        pbem(d, &["serve", "--once"], &panic, b"");
        assert_eq!(pbem::mail::spool::waiting(&sp), 2);
    }
    pbem(d, &["serve", "--once"], &panic, b"");
    assert_eq!(pbem::mail::spool::waiting(&sp), 0);
    assert_eq!(set_aside(d).len(), 1);
    let mut store = Store::open(&d.join("pbem.sqlite"), false).unwrap();
    assert_eq!(store.read(|tx| tx.moves(1)).unwrap().len(), 1);
}

/// The pid of the process holding the lock on `path` exclusively (from /proc/locks).
fn lock_holder(path: &Path) -> Option<i32> {
    use std::os::unix::fs::MetadataExt as _;
    let inode = std::fs::metadata(path).ok()?.ino().to_string();
    let locks = std::fs::read_to_string("/proc/locks").ok()?;
    locks.lines().find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        let ours = f.get(1) == Some(&"FLOCK")
            && f.get(3) == Some(&"WRITE")
            && f.get(5).and_then(|dev| dev.rsplit(':').next()) == Some(inode.as_str());
        ours.then(|| f[4].parse().ok()).flatten()
    })
}

/// Lets the slow sendmail go on, whatever the test's end.
struct Go<'a>(&'a Path);

impl Drop for Go<'_> {
    fn drop(&mut self) {
        let _ = std::fs::write(self.0.join("go"), "");
    }
}

fn wait_until(what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < Duration::from_secs(60), "never: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// A worker sends slowly; a second mail starts a second worker, which waits for the send
/// turn; a third would find it waiting and start none. That waiting worker is killed: the
/// sending one, at the end of its turn, reads the spool it left, so no mail waits there for
/// the next mail or pass.
#[test]
fn a_worker_killed_while_waiting_strands_no_mail() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let alice = game_and_alices_move(d);
    let db = d.join("pbem.sqlite");
    let script = d.join("slow-sendmail");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ntouch '{0}/sending'\nwhile [ ! -e '{0}/go' ]; do sleep 0.05; done\ncat >/dev/null\n",
            d.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let _go = Go(d);
    let transport = format!("sendmail:{}", script.display());
    let slow = [("PBEM_TRANSPORT", transport.as_str())];
    assert_eq!(
        pbem(d, &["ingest"], &slow, alice.as_bytes()).code(),
        Some(0)
    );
    wait_until("the first worker sends", || d.join("sending").exists());

    let carol = b"From: carol@example.org\r\nTo: gm@example.org\r\nSubject: hello\r\n\
                  Message-ID: <hello@carol.example>\r\n\r\nHELP\r\n";
    assert_eq!(pbem(d, &["ingest"], &slow, carol).code(), Some(0));
    wait_until("a second worker waits", || {
        pbem::store::sender_waiting(&db).unwrap()
    });
    let waiter = lock_holder(&d.join("pbem.sqlite-send-wait.lock")).expect("the waiter's pid");
    let pid = rustix::process::Pid::from_raw(waiter).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::KILL).unwrap();
    wait_until("the waiter is dead", || {
        !pbem::store::sender_waiting(&db).unwrap()
    });
    assert_eq!(pbem::mail::spool::waiting(&spool(d)), 1);

    drop(_go);
    common::wait_for_workers(&db);
    assert_eq!(
        pbem::mail::spool::waiting(&spool(d)),
        0,
        "carol's mail was left in the spool"
    );
    let mut store = Store::open(&db, false).unwrap();
    let messages = store.read(|tx| tx.messages(100)).unwrap();
    assert_eq!(messages.len(), 2, "{messages:?}");
}

/// Entries of the spool that cannot be read as a mail (a name that is not UTF-8, a FIFO, a
/// dangling symlink, a folder) used to stay for ever, an error at every read and "waiting" in
/// `pbem inbox`: the next reader moves each aside once, tells the GM, and reads the rest.
#[test]
fn unreadable_spool_entries_are_moved_aside_once() {
    use std::os::unix::ffi::OsStrExt as _;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let alice = game_and_alices_move(d);
    let now = chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap();
    let sp = spool(d);
    pbem::mail::spool::deliver(&sp, alice.as_bytes(), now).unwrap();
    let new = sp.join("new");
    let odd = std::ffi::OsStr::from_bytes(b"1700000000.\xff\xfe.pbem");
    std::fs::write(new.join(odd), b"From: a@b\r\n\r\nx\r\n").unwrap();
    rustix::fs::mknodat(
        rustix::fs::CWD,
        new.join("1700000001.fifo"),
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
    std::os::unix::fs::symlink(d.join("nowhere"), new.join("1700000002.link")).unwrap();
    std::fs::create_dir(new.join("1700000003.dir")).unwrap();
    assert_eq!(pbem::mail::spool::waiting(&sp), 2);

    assert!(pbem(d, &["serve", "--once"], &[], b"").success());
    assert_eq!(pbem::mail::spool::waiting(&sp), 0);
    assert_eq!(std::fs::read_dir(&new).unwrap().count(), 0, "all moved");
    assert_eq!(set_aside(d).len(), 4, "{:?}", set_aside(d));
    let mut store = Store::open(&d.join("pbem.sqlite"), false).unwrap();
    let moves = store.read(|tx| tx.moves(1)).unwrap();
    assert_eq!(moves.len(), 1, "alice's move is played");
    let notices = || {
        events(d)
            .into_iter()
            .filter(|e| e.contains("set aside"))
            .count()
    };
    assert_eq!(notices(), 4, "{:?}", events(d));
    assert!(pbem(d, &["serve", "--once"], &[], b"").success());
    assert_eq!(notices(), 4, "told once");
    let inbox = common::pbem_command(d, "pbem.sqlite")
        .arg("inbox")
        .output()
        .unwrap();
    let text = common::output_text(&inbox);
    assert!(!text.contains("waiting"), "{text}");
    assert!(text.contains("set aside"), "{text}");
}

/// A batch holds mails up to a count and a size: no more than one mail past the size bound
/// is ever in memory, whatever the backlog.
#[test]
fn a_spool_batch_is_bounded_by_bytes() {
    use pbem::mail::intake::{MaildirSource, Source};
    let dir = tempfile::tempdir().unwrap();
    let sp = dir.path().join("pbem.sqlite-spool");
    for i in 0..10 {
        let at = chrono::DateTime::from_timestamp(1_800_000_000 + i, 0).unwrap();
        let mut mail = b"From: a@b\r\n\r\n".to_vec();
        mail.resize(100_000, b'x');
        pbem::mail::spool::deliver(&sp, &mail, at).unwrap();
    }
    let mut src = MaildirSource::spool(&sp, 1 << 20).unwrap();
    let mut sizes = Vec::new();
    loop {
        let batch = src.fetch_within(200, 250_000).unwrap();
        if batch.is_empty() {
            break;
        }
        let bytes: usize = batch.iter().map(|f| f.raw.len()).sum();
        assert!(bytes <= 250_000, "{bytes} bytes in one batch");
        sizes.push(batch.len());
        src.ack(&batch).unwrap();
    }
    assert_eq!(sizes, [2, 2, 2, 2, 2]);
}

/// The same in the Maildir `serve` reads: a mail whose reading kills `serve` (the OOM killer
/// under `MemoryMax=`, here a SIGKILL while it is parsed) is set aside after two deaths, so
/// a restarted daemon stores the mail behind it instead of dying on it for ever.
#[test]
fn a_mail_that_kills_serve_twice_is_set_aside_from_its_maildir() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let alice = game_and_alices_move(d);
    let maildir = d.join("Maildir");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).unwrap();
    }
    let bomb = b"From: mallory@example.org\r\nTo: gm@example.org\r\nSubject: BOMB\r\n\
                 Message-ID: <bomb@mallory.example>\r\n\r\nHELP\r\n";
    std::fs::write(maildir.join("new/1000.bomb"), bomb).unwrap();
    std::fs::write(maildir.join("new/2000.alice"), alice.as_bytes()).unwrap();
    let md = maildir.to_str().unwrap();
    let env = [("PBEM_MAILDIR", md), ("PBEM_FAULT", "ingest:kill:BOMB")];
    for death in 1..=2 {
        let status = pbem(d, &["serve", "--once"], &env, b"");
        assert!(
            !status.success(),
            "death {death}: serve was killed on the bomb"
        );
        assert!(maildir.join("new/2000.alice").exists(), "alice waits");
    }
    assert!(pbem(d, &["serve", "--once"], &env, b"").success());
    assert!(!maildir.join("new/1000.bomb").exists());
    assert!(
        maildir.join("quarantine/1000.bomb").exists(),
        "the bomb is set aside"
    );
    let mut store = Store::open(&d.join("pbem.sqlite"), false).unwrap();
    let moves = store.read(|tx| tx.moves(1)).unwrap();
    assert_eq!(moves.len(), 1, "alice's move was stored and played");
    let told: Vec<String> = events(d)
        .into_iter()
        .filter(|e| e.contains("set aside"))
        .collect();
    assert_eq!(told.len(), 1, "the GM is told once: {told:?}");
}
