//! A background worker that answered its mail lingers a few seconds for the next: the next `pbem ingest` calls it instead of starting another, unless it was started otherwise (another config or environment); then it ends, its socket gone.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::initialised;
use crate::common::{ingest_in, out_files, wait_for_workers};

fn help_mail(n: usize) -> String {
    format!(
        "From: player{n}@example.net\r\nTo: gm@example.org\r\nSubject: help\r\n\
         Message-ID: <linger-{n}@example.net>\r\n\r\nHELP\r\n"
    )
}

fn ingest(d: &Path, mail: &str, env: &[(&str, &str)]) {
    assert_eq!(ingest_in(d, mail, env), Some(0));
}

fn wait_until(what: &str, mut ok: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ok() {
        assert!(start.elapsed() < Duration::from_secs(60), "never: {what}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// The pids of the background workers on `db` (a pbem process with an empty command line
/// counts as one starting, as in `common::wait_for_workers`).
fn workers(db: &Path) -> Vec<u32> {
    use std::os::unix::ffi::OsStrExt as _;
    let db = db.as_os_str().as_bytes();
    let pbem = std::fs::canonicalize(env!("CARGO_BIN_EXE_pbem")).unwrap();
    std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| std::fs::read_link(e.path().join("exe")).is_ok_and(|x| x == pbem))
        .filter(|e| {
            std::fs::read(e.path().join("cmdline")).is_ok_and(|c| {
                let args: Vec<&[u8]> = c.split(|b| *b == 0).collect();
                c.is_empty() || (args.contains(&b"ingest-worker".as_slice()) && args.contains(&db))
            })
        })
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .collect()
}

/// The lingering workers' sockets beside `g.sqlite`.
fn sockets(d: &Path) -> usize {
    std::fs::read_dir(d)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name.starts_with("g.sqlite-worker-") && name.ends_with(".sock")
        })
        .count()
}

/// The reply to help mail `n`.
fn reply_to(d: &Path, n: usize) -> String {
    let id = format!("In-Reply-To: <linger-{n}@example.net>");
    out_files(d)
        .into_iter()
        .find(|m| m.contains(&id))
        .unwrap_or_else(|| panic!("no reply to mail {n}"))
}

#[test]
fn the_worker_lingers_and_answers_the_next_mail_itself_then_ends() {
    let dir = initialised();
    let d = dir.path();
    let db = d.join("g.sqlite");
    ingest(d, &help_mail(1), &[]);
    wait_until("the first reply", || out_files(d).len() == 1);
    wait_until("a worker listens for the next mail", || sockets(d) == 1);
    let lingering = workers(&db);
    assert_eq!(lingering.len(), 1, "{lingering:?}");
    ingest(d, &help_mail(2), &[]);
    // `pbem ingest` returns once a worker it starts is loading: none was.
    assert_eq!(workers(&db), lingering);
    wait_until("the second reply", || out_files(d).len() == 2);
    reply_to(d, 2);
    assert_eq!(workers(&db), lingering, "the same worker answered it");
    // It ends a few seconds after its last mail, and its socket goes with it.
    wait_for_workers(&db);
    assert_eq!(sockets(d), 0);
    // The next mail starts a worker again.
    ingest(d, &help_mail(3), &[]);
    wait_until("the third reply", || out_files(d).len() == 3);
    wait_for_workers(&db);
}

#[test]
fn a_mail_with_another_config_is_not_answered_by_the_lingering_worker() {
    let dir = initialised();
    let d = dir.path();
    let db = d.join("g.sqlite");
    ingest(d, &help_mail(1), &[]);
    wait_until("a worker listens for the next mail", || sockets(d) == 1);
    let lingering = workers(&db);
    ingest(d, &help_mail(2), &[("PBEM_NAME", "Another Name")]);
    let now = workers(&db);
    assert!(
        now.iter().any(|p| !lingering.contains(p)),
        "a worker of its own: {lingering:?} then {now:?}"
    );
    wait_until("the second reply", || out_files(d).len() == 2);
    let second = reply_to(d, 2);
    assert!(second.contains("Another Name"), "{second}");
    // Never two lingering workers: the second ends without a socket of its own.
    assert!(sockets(d) <= 1);
    wait_for_workers(&db);
    assert_eq!(sockets(d), 0);
}
