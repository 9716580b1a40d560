//! An ingest worker that has answered its mail stays a few seconds for the next one, warm (database open, templates compiled, positions in memory), so that mail at a steady pace does not pay a worker's cold start each.
//!
//! The lingering worker listens on a Unix socket beside the database, named after what the
//! worker was started with (`fingerprint`): a `pbem ingest` with another binary, working
//! folder, config file or `PBEM_*` variable finds no socket and starts a worker of its own,
//! as it would with none lingering, so a lingering worker never answers with a config its
//! caller did not have. The protocol is `daemon::wake`'s: connecting means "read the spool",
//! nothing is sent either way, and the mail is already in the spool. At most one worker of a
//! database lingers (`<database>-linger.lock`), for at most `IDLE` after its last call and
//! never past `LIFE`; before it goes it removes its socket, then reads the spool once more,
//! so a call that came just before is never left unread.

use std::os::unix::net::UnixListener;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use sha2::{Digest as _, Sha256};

use super::Daemon;

/// How long a worker waits for the next call after its last one.
const IDLE: Duration = Duration::from_secs(3);

/// How long a worker lingers in all: past this it ends after its current round, and the
/// next mail starts a fresh one (which reads the config and templates again).
const LIFE: Duration = Duration::from_secs(300);

/// Tells the worker lingering on `db` with the same start as this process (binary, folder,
/// `config`, environment) to read the spool; true once it took the call.
pub(super) fn call(db: &Path, config: Option<&Path>) -> bool {
    super::wake::call_socket(&socket_path(db, config), db)
}

/// After the worker's first round (`work` answers and sends all there is): listens for
/// calls and runs `work` again after each, until none came for `IDLE`. Returns at once when
/// another worker lingers, or the socket cannot be made.
pub(super) fn linger(
    daemon: &mut Daemon,
    config: Option<&Path>,
    work: &mut dyn FnMut(&mut Daemon) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let born = Instant::now();
    let Some(_one) = lock(&daemon.db)? else {
        return Ok(());
    };
    let path = socket_path(&daemon.db, config);
    // Holding the lock, no other worker listens: a file there is a dead worker's.
    let _ = std::fs::remove_file(&path);
    let Ok(listener) = UnixListener::bind(&path) else {
        return Ok(());
    };
    let (calls, called) = mpsc::channel::<()>();
    // Takes each call at once and reads nothing from it (a client that hangs on costs
    // nothing); the thread ends with the process.
    std::thread::spawn(move || {
        for conn in listener.incoming() {
            drop(conn);
            if calls.send(()).is_err() {
                break;
            }
        }
    });
    let mut result = Ok(());
    while born.elapsed() < LIFE {
        match called.recv_timeout(IDLE) {
            Ok(()) => {
                while called.try_recv().is_ok() {}
                result = work(daemon);
                if result.is_err() {
                    break;
                }
            }
            Err(_) => break,
        }
    }
    // No call can come once the socket is gone; one that came before it went found its
    // mail in the spool already, so a last look there covers every call.
    let _ = std::fs::remove_file(&path);
    if crate::mail::spool::waiting(&crate::mail::spool::dir(&daemon.db)) > 0 {
        work(daemon)?;
    }
    result
}

/// The one lingering worker's place (`<database>-linger.lock`), or `None` when another
/// worker holds it.
fn lock(db: &Path) -> anyhow::Result<Option<std::fs::File>> {
    let mut name = db.as_os_str().to_owned();
    name.push("-linger.lock");
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&name)?;
    match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => Ok(Some(file)),
        Err(rustix::io::Errno::WOULDBLOCK) => Ok(None),
        Err(e) => Err(anyhow::Error::new(e).context("cannot lock the linger lock file")),
    }
}

/// `<database>-worker-<fingerprint>.sock`.
fn socket_path(db: &Path, config: Option<&Path>) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push(format!("-worker-{}.sock", fingerprint(config)));
    PathBuf::from(name)
}

/// What this process's answers depend on besides the database: its binary, its working
/// folder (relative paths and `pbem.toml`), its config file (path and version: inode, size,
/// modification time) and its `PBEM_*` and `RUST_LOG` variables. Sixteen hex digits of their
/// SHA-256; `pbem ingest` and the worker it starts agree on it, as the worker inherits them.
fn fingerprint(config: Option<&Path>) -> String {
    use std::os::unix::ffi::OsStrExt as _;
    use std::os::unix::fs::MetadataExt as _;
    let mut h = Sha256::new();
    let mut put = |b: &[u8]| {
        h.update((b.len() as u64).to_le_bytes());
        h.update(b);
    };
    let exe = std::env::current_exe().unwrap_or_default();
    put(exe.as_os_str().as_bytes());
    let cwd = std::env::current_dir().unwrap_or_default();
    put(cwd.as_os_str().as_bytes());
    let file = config.unwrap_or(Path::new("pbem.toml"));
    put(file.as_os_str().as_bytes());
    let version = std::fs::metadata(file).map_or((0, 0, 0, 0), |m| {
        (m.ino(), m.size(), m.mtime(), m.mtime_nsec())
    });
    put(format!("{version:?}").as_bytes());
    let mut vars: Vec<_> = std::env::vars_os()
        .filter(|(k, _)| {
            let k = k.as_bytes();
            k.starts_with(b"PBEM_") || k == b"RUST_LOG"
        })
        .collect();
    vars.sort();
    for (k, v) in vars {
        put(k.as_bytes());
        put(v.as_bytes());
    }
    hex::encode(&h.finalize()[..8])
}
