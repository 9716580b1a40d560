//! `pbem serve` outlives what time cures: a Maildir without its subfolders, a database locked past the busy timeout.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pbem::store::Store;

const BIN: &str = env!("CARGO_BIN_EXE_pbem");

/// The daemon in `dir`, polling every second and waiting one second for a lock; its log
/// goes to `serve.log`.
fn serve(dir: &Path) -> Child {
    let log = std::fs::File::create(dir.join("serve.log")).unwrap();
    Command::new(BIN)
        .current_dir(dir)
        .arg("serve")
        .env("PBEM_DB", dir.join("pbem.sqlite"))
        .env("PBEM_ADDRESS", "gm@example.org")
        .env("PBEM_OUTBOX_DIR", dir.join("out"))
        .env("PBEM_MAILDIR", dir.join("Maildir"))
        .env("PBEM_POLL", "1s")
        .env("PBEM_BUSY_TIMEOUT", "1s")
        .env("PBEM_LOG", "info")
        .env_remove("PBEM_FAULT")
        .env_remove("PBEM_CONFIG")
        .env_remove("PBEM_TRANSPORT")
        .stdout(Stdio::null())
        .stderr(log)
        .spawn()
        .unwrap()
}

/// Polls `done` until it holds, failing after `limit`.
fn wait_for(limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(start.elapsed() < limit, "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn serve_outlives_a_missing_cur_folder_and_a_locked_database_then_processes_the_mail() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let init = Command::new(BIN)
        .arg("init")
        .env("PBEM_DB", d.join("pbem.sqlite"))
        .status()
        .unwrap();
    assert!(init.success());
    // A Maildir with new/ only, and a mail in it.
    std::fs::create_dir_all(d.join("Maildir/new")).unwrap();
    std::fs::write(
        d.join("Maildir/new/1.mail"),
        "From: player@example.net\r\nTo: gm@example.org\r\nSubject: help\r\n\
         Message-ID: <serve-1@example.net>\r\n\r\nHELP\r\n",
    )
    .unwrap();
    // Another writer holds the database until a pass of the daemon has given up on the lock
    // (after its one-second busy timeout) and said so in its log.
    let holder = rusqlite::Connection::open(d.join("pbem.sqlite")).unwrap();
    holder.execute_batch("BEGIN IMMEDIATE").unwrap();
    let mut daemon = serve(d);
    wait_for(
        Duration::from_secs(60),
        "a pass giving up on the lock",
        || {
            let log = std::fs::read_to_string(d.join("serve.log")).unwrap_or_default();
            log.contains("retrying") && log.contains("locked")
        },
    );
    assert!(
        daemon.try_wait().unwrap().is_none(),
        "serve exited: {}",
        std::fs::read_to_string(d.join("serve.log")).unwrap_or_default()
    );
    holder.execute_batch("ROLLBACK").unwrap();
    drop(holder);

    // Once the lock is gone, the mail is stored, answered, and moved to cur/.
    let mut store = Store::open(&d.join("pbem.sqlite"), false).unwrap();
    wait_for(Duration::from_secs(60), "the reply", || {
        let outbox = store.read(|tx| tx.outbox(None, 10)).unwrap();
        outbox.iter().any(|m| m.status == "sent")
    });
    let messages = store.read(|tx| tx.messages(10)).unwrap();
    assert_eq!(messages.len(), 1);
    assert_eq!(messages[0].status, "done");
    assert_eq!(std::fs::read_dir(d.join("Maildir/cur")).unwrap().count(), 1);
    assert_eq!(std::fs::read_dir(d.join("Maildir/new")).unwrap().count(), 0);
    assert!(daemon.try_wait().unwrap().is_none(), "still running");
    let log = std::fs::read_to_string(d.join("serve.log")).unwrap();
    assert!(
        log.contains("retrying") && log.contains("locked"),
        "the failed passes are logged: {log}"
    );

    // SIGTERM ends it, cleanly.
    let term = Command::new("kill")
        .args(["-TERM", &daemon.id().to_string()])
        .status()
        .unwrap();
    assert!(term.success());
    let status = daemon.wait().unwrap();
    assert!(status.success(), "{status:?}");
}
