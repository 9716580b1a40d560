//! `pbem ingest` beside a running `pbem serve`: the mail is handed to the daemon over its socket and stored there; a socket nobody answers, or a hostile client, changes nothing but the speed.

use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::Path;
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::common::pbem_command;
use pbem::store::Store;

fn help_mail(n: usize) -> String {
    format!(
        "From: player{n}@example.net\r\nTo: gm@example.org\r\nSubject: help\r\n\
         Message-ID: <handoff-{n}@example.net>\r\n\r\nHELP\r\n"
    )
}

fn ingest(d: &Path, mail: &str) -> Option<i32> {
    let mut child = pbem_command(d, "g.sqlite")
        .arg("ingest")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    child
        .stdin
        .take()
        .unwrap()
        .write_all(mail.as_bytes())
        .unwrap();
    child.wait().unwrap().code()
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
    // A mail `pbem ingest` stored itself is answered by its background worker.
    crate::common::wait_for_workers(&d.join("g.sqlite"));
    let mut store = Store::open(&d.join("g.sqlite"), false).unwrap();
    let messages = store.read(|tx| tx.messages(100)).unwrap();
    messages.into_iter().map(|m| m.status.to_string()).collect()
}

/// A folder with a fresh database, `g.sqlite`.
fn initialised() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let status = pbem_command(dir.path(), "g.sqlite").arg("init").status();
    assert!(status.unwrap().success());
    dir
}

#[test]
fn ingest_hands_its_mail_to_a_running_daemon_which_stores_and_answers_it() {
    let dir = initialised();
    let d = dir.path();
    let daemon = serve(d);
    assert_eq!(ingest(d, &help_mail(1)), Some(0));
    // Stored before the exit: the daemon answered only after its commit.
    assert_eq!(statuses(d), ["done"]);
    let replies = wait_for_replies(d, 1);
    assert!(replies[0].contains("In-Reply-To: <handoff-1@example.net>"));
    // No `pbem ingest` started a sender of its own: the daemon's sent it.
    assert!(!d.join("g.sqlite-send-wait.lock").exists());
    // The same mail again (an MTA's retry) is a duplicate, answered as stored.
    assert_eq!(ingest(d, &help_mail(1)), Some(0));
    assert_eq!(statuses(d), ["done"]);
    stop(daemon);
    assert!(
        !d.join("g.sqlite-ingest.sock").exists(),
        "the socket goes with the daemon"
    );
}

#[test]
fn a_socket_nobody_answers_leaves_ingest_to_store_the_mail_itself() {
    let dir = initialised();
    let d = dir.path();
    // A daemon that died left its socket file: nothing listens on it.
    drop(UnixListener::bind(d.join("g.sqlite-ingest.sock")).unwrap());
    assert_eq!(ingest(d, &help_mail(2)), Some(0));
    assert_eq!(statuses(d), ["done"]);
    wait_for_replies(d, 1);
    // A daemon started now takes the place of the dead one's socket.
    let daemon = serve(d);
    assert_eq!(ingest(d, &help_mail(3)), Some(0));
    assert_eq!(statuses(d), ["done", "done"]);
    stop(daemon);
}

#[test]
fn a_hostile_client_of_the_socket_is_refused_and_the_daemon_goes_on() {
    let dir = initialised();
    let d = dir.path();
    let daemon = serve(d);
    // A client that says `len` and sends `bytes`, then stops: what the daemon answers.
    let exchange = |len: u64, bytes: &[u8]| {
        let mut s = UnixStream::connect(d.join("g.sqlite-ingest.sock")).unwrap();
        s.write_all(&len.to_be_bytes()).unwrap();
        s.write_all(bytes).unwrap();
        s.shutdown(std::net::Shutdown::Write).unwrap();
        let mut answer = Vec::new();
        s.read_to_end(&mut answer).unwrap();
        answer
    };
    // A length far over the size limit: refused before anything is read or allocated.
    assert_eq!(exchange(u64::MAX, b""), b"E");
    // A length and less than that: refused too.
    assert_eq!(exchange(100, b"From: x"), b"E");
    assert!(statuses(d).is_empty());
    // The daemon still takes mail.
    assert_eq!(ingest(d, &help_mail(4)), Some(0));
    assert_eq!(statuses(d), ["done"]);
    stop(daemon);
}

/// A socket not made by the database's owner is not trusted with mail (in a folder others
/// may write, anyone could make one): `pbem ingest` stores the mail itself.
#[test]
fn a_socket_not_made_by_the_database_owner_is_passed_over() {
    if !rustix::process::geteuid().is_root() {
        eprintln!("skipped: changing a file's owner needs root");
        return;
    }
    let dir = initialised();
    let d = dir.path();
    let daemon = serve(d);
    // The database now belongs to someone else than the socket's maker.
    let nobody = rustix::process::Uid::from_raw(65534);
    rustix::fs::chown(d.join("g.sqlite"), Some(nobody), None).unwrap();
    assert_eq!(ingest(d, &help_mail(5)), Some(0));
    assert_eq!(statuses(d), ["done"]);
    // Stored by `pbem ingest`, which then started a sender of its own.
    assert!(d.join("g.sqlite-send-wait.lock").exists());
    stop(daemon);
}

/// A client that trickles its mail a byte at a time is cut off (the whole mail has one time
/// limit, not each read), and the daemon takes the next mail.
#[test]
fn a_client_that_trickles_its_mail_is_cut_off() {
    let dir = initialised();
    let d = dir.path();
    let daemon = serve(d);
    let mut s = UnixStream::connect(d.join("g.sqlite-ingest.sock")).unwrap();
    s.write_all(&1000u64.to_be_bytes()).unwrap();
    let mut writer = s.try_clone().unwrap();
    let trickle = std::thread::spawn(move || {
        // Far slower than the daemon waits for: 1,000 bytes at one every 300 ms.
        for _ in 0..1000 {
            if writer.write_all(b"x").is_err() {
                return;
            }
            std::thread::sleep(Duration::from_millis(300));
        }
    });
    let mut answer = [0u8; 1];
    s.read_exact(&mut answer).unwrap();
    assert_eq!(&answer, b"E");
    drop(s);
    trickle.join().unwrap();
    assert_eq!(ingest(d, &help_mail(6)), Some(0));
    assert_eq!(statuses(d), ["done"]);
    stop(daemon);
}
