//! `pbem ingest` beside a running `pbem serve`: the mail handed to the daemon on its mail socket, or spooled and the daemon called on its wake-up socket to read it in; either way answered; a socket nobody answers, or a hostile client, changes nothing but the speed.

use std::io::Write;
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::common::initialised;
use crate::common::pbem_command;
use pbem::store::Store;

fn help_mail(n: usize) -> String {
    format!(
        "From: player{n}@example.net\r\nTo: gm@example.org\r\nSubject: help\r\n\
         Message-ID: <wake-{n}@example.net>\r\n\r\nHELP\r\n"
    )
}

fn ingest(d: &Path, mail: &str) -> Option<i32> {
    crate::common::ingest_in(d, mail, &[])
}

/// `pbem serve` on the test's database, once its socket answers.
fn serve(d: &Path) -> Child {
    let mut child = pbem_command(d, "g.sqlite")
        .arg("serve")
        .env("PBEM_POLL", "1h")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let start = Instant::now();
    while UnixStream::connect(d.join("g.sqlite-ingest.sock")).is_err() {
        assert!(child.try_wait().unwrap().is_none(), "pbem serve ended");
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "no hand-off socket"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    child
}

fn stop(mut child: Child) {
    let pid = rustix::process::Pid::from_raw(child.id() as i32).unwrap();
    rustix::process::kill_process(pid, rustix::process::Signal::TERM).unwrap();
    assert!(child.wait().unwrap().success());
}

fn wait_for_replies(d: &Path, n: usize) -> Vec<String> {
    let start = Instant::now();
    loop {
        let files = crate::common::out_files(d);
        if files.len() >= n {
            return files;
        }
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "{} of {n} replies",
            files.len()
        );
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn statuses(d: &Path) -> Vec<String> {
    // A mail `pbem ingest` spooled is read in by the daemon it called, or by its background
    // worker.
    crate::common::wait_for_workers(&d.join("g.sqlite"));
    let start = Instant::now();
    while pbem::mail::spool::waiting(&d.join("g.sqlite-spool")) > 0 {
        assert!(
            start.elapsed() < Duration::from_secs(60),
            "the spool is never read"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut store = Store::open(&d.join("g.sqlite"), false).unwrap();
    let messages = store.read(|tx| tx.messages(100)).unwrap();
    messages.into_iter().map(|m| m.status.to_string()).collect()
}

/// The same mail `n` again (an MTA's retry) is a duplicate: stored, not answered again; the
/// daemon stopped, its `socket` is gone, and one reply went in all.
fn retry_is_answered_once_and_the_socket_goes(d: &Path, daemon: Child, n: usize, socket: &str) {
    assert_eq!(ingest(d, &help_mail(n)), Some(0));
    assert_eq!(statuses(d), ["done"]);
    stop(daemon);
    assert!(!d.join(socket).exists(), "the socket goes with the daemon");
    assert_eq!(crate::common::out_files(d).len(), 1, "one reply only");
}

#[test]
fn ingest_calls_a_running_daemon_which_reads_the_spool_and_answers() {
    let dir = initialised();
    let d = dir.path();
    let daemon = serve(d);
    assert_eq!(ingest(d, &help_mail(1)), Some(0));
    let replies = wait_for_replies(d, 1);
    assert!(replies[0].contains("In-Reply-To: <wake-1@example.net>"));
    assert_eq!(statuses(d), ["done"]);
    // No `pbem ingest` started a worker of its own: the daemon read the spool and sent.
    assert!(!d.join("g.sqlite-send-wait.lock").exists());
    retry_is_answered_once_and_the_socket_goes(d, daemon, 1, "g.sqlite-ingest.sock");
}

#[test]
fn a_socket_nobody_answers_leaves_the_spool_to_a_worker() {
    let dir = initialised();
    let d = dir.path();
    // A daemon that died left its socket file: nothing listens on it.
    drop(UnixListener::bind(d.join("g.sqlite-ingest.sock")).unwrap());
    assert_eq!(ingest(d, &help_mail(2)), Some(0));
    assert_eq!(statuses(d), ["done"]);
    wait_for_replies(d, 1);
    assert!(
        d.join("g.sqlite-send-wait.lock").exists(),
        "a worker read it"
    );
    // A daemon started now takes the place of the dead one's socket.
    let daemon = serve(d);
    assert_eq!(ingest(d, &help_mail(3)), Some(0));
    wait_for_replies(d, 2);
    assert_eq!(statuses(d), ["done", "done"]);
    stop(daemon);
}

/// The socket reads nothing from its clients: a client that sends bytes, or connects and
/// never lets go, many at once, neither feeds the daemon anything nor holds it up.
#[test]
fn a_hostile_client_of_the_socket_changes_nothing() {
    let dir = initialised();
    let d = dir.path();
    let daemon = serve(d);
    let mut held = Vec::new();
    for _ in 0..200 {
        let mut s = UnixStream::connect(d.join("g.sqlite-ingest.sock")).unwrap();
        // The daemon has hung up already, or will without reading: either is fine.
        let _ = s.write_all(&u64::MAX.to_be_bytes());
        let _ = s.write_all(b"From: x\r\n\r\nHELP\r\n");
        held.push(s);
    }
    assert!(statuses(d).is_empty());
    // The daemon still takes mail.
    assert_eq!(ingest(d, &help_mail(4)), Some(0));
    wait_for_replies(d, 1);
    assert_eq!(statuses(d), ["done"]);
    drop(held);
    stop(daemon);
}

/// A socket not made by the database's owner is not trusted (in a folder others may
/// write, anyone could make one): `pbem ingest` starts a worker to read the spool.
#[test]
fn a_socket_not_made_by_the_database_owner_is_passed_over() {
    if !rustix::process::geteuid().is_root() {
        eprintln!("skipped: changing a file's owner needs root");
        return;
    }
    let dir = initialised();
    let d = dir.path();
    // Someone else's socket: a listener nobody reads from, that belongs to another user.
    let sock = d.join("g.sqlite-ingest.sock");
    let _listener = UnixListener::bind(&sock).unwrap();
    let nobody = rustix::process::Uid::from_raw(65534);
    rustix::fs::chown(&sock, Some(nobody), None).unwrap();
    assert_eq!(ingest(d, &help_mail(5)), Some(0));
    assert_eq!(statuses(d), ["done"]);
    // Read in by the worker `pbem ingest` started.
    assert!(d.join("g.sqlite-send-wait.lock").exists());
    wait_for_replies(d, 1);
}

/// Waits for the daemon's mail socket (it opens just after the wake-up socket).
fn mail_socket(d: &Path) -> std::path::PathBuf {
    let sock = d.join("g.sqlite-mail.sock");
    let start = Instant::now();
    while UnixStream::connect(&sock).is_err() {
        assert!(start.elapsed() < Duration::from_secs(60), "no mail socket");
        std::thread::sleep(Duration::from_millis(10));
    }
    sock
}

/// With a daemon running, `pbem ingest` hands its mail over the daemon's mail socket: it is
/// stored before `pbem ingest` exits, and no spool is ever made.
#[test]
fn ingest_hands_its_mail_to_a_running_daemon_which_stores_it_before_the_exit() {
    let dir = initialised();
    let d = dir.path();
    let daemon = serve(d);
    mail_socket(d);
    // Armed to die before it spools: it exits 0 only if the daemon took the mail.
    let spooling_kills = [("PBEM_FAULT", "ingest:before-store")];
    assert_eq!(
        crate::common::ingest_in(d, &help_mail(6), &spooling_kills),
        Some(0)
    );
    let mut store = Store::open(&d.join("g.sqlite"), false).unwrap();
    assert_eq!(store.read(|tx| tx.messages(10)).unwrap().len(), 1, "stored");
    assert!(!d.join("g.sqlite-spool").exists(), "no spool made");
    let replies = wait_for_replies(d, 1);
    assert!(replies[0].contains("In-Reply-To: <wake-6@example.net>"));
    retry_is_answered_once_and_the_socket_goes(d, daemon, 6, "g.sqlite-mail.sock");
}

/// The mail socket reads each client within a deadline and a size limit, a few at a time:
/// clients that send a length past the limit, a mail shorter than their length, or nothing,
/// many at once, store nothing and hold nothing up; `pbem ingest` still gets its mail in
/// (through the spool while every reader is taken), and once the deadline has passed the
/// socket takes mail again, though those clients still hold their connections.
#[test]
fn a_hostile_client_of_the_mail_socket_changes_nothing() {
    let dir = initialised();
    let d = dir.path();
    let daemon = serve(d);
    let sock = mail_socket(d);
    let connect = || UnixStream::connect(&sock).ok();
    let mut held = Vec::new();
    for i in 0..20 {
        let Some(mut s) = connect() else { continue };
        let _ = match i % 2 {
            0 => s.write_all(b"999999999999\n"),
            _ => s.write_all(b"500\nFrom: x\r\n\r\nHELP\r\n"),
        };
        held.push(s);
    }
    // Once the refused lengths are closed, clients that send nothing take every reader left.
    std::thread::sleep(Duration::from_millis(300));
    held.extend((0..20).filter_map(|_| connect()));
    std::thread::sleep(Duration::from_millis(300));
    assert_eq!(ingest(d, &help_mail(7)), Some(0));
    wait_for_replies(d, 1);
    assert_eq!(statuses(d), ["done"]);
    assert!(
        d.join("g.sqlite-spool").exists(),
        "spooled: every reader was taken"
    );
    // Past the deadline the readers are free again, though the clients hold on.
    std::thread::sleep(Duration::from_secs(6));
    let spooling_kills = [("PBEM_FAULT", "ingest:before-store")];
    assert_eq!(
        crate::common::ingest_in(d, &help_mail(8), &spooling_kills),
        Some(0)
    );
    wait_for_replies(d, 2);
    assert_eq!(statuses(d), ["done", "done"]);
    drop(held);
    stop(daemon);
}

/// A burst read from the Maildir in one pass wakes the background sender at each batch's
/// commit (a batch is 200 mails), not only once the whole pass is done: the first replies
/// are drawn and sent while the rest of the burst is still read and played.
#[test]
fn each_committed_batch_of_a_pass_wakes_the_sender() {
    let w = crate::common::World::new();
    let maildir = w.dir.path().join("Maildir");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(maildir.join(sub)).unwrap();
    }
    for n in 0..450 {
        std::fs::write(
            maildir.join("new").join(format!("{n:04}.eml")),
            help_mail(n),
        )
        .unwrap();
    }
    let mut cfg = w.cfg.clone();
    cfg.maildir = Some(maildir.clone());
    let db = w.dir.path().join("pbem.sqlite");
    let store = Store::open(&db, true).unwrap();
    let mut daemon = pbem::daemon::Daemon::new(&db, store, cfg).unwrap();
    let (wake, woken) = std::sync::mpsc::channel();
    daemon.wake_on_commit = Some(wake);
    let pass = daemon.pass_without_sending().unwrap();
    assert_eq!(pass.stored, 450);
    assert_eq!(
        woken.try_iter().count(),
        3,
        "one wake for each batch of 200, 200 and 50"
    );
    assert_eq!(std::fs::read_dir(maildir.join("cur")).unwrap().count(), 450);
}
