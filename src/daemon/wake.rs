//! The wake-up socket of a running `pbem serve`: `pbem ingest` spools its mail, then connects here, and the daemon reads the spool at once on a thread of its own, warm (statements prepared, templates compiled, positions in memory), and wakes its sender.
//!
//! The protocol, over a Unix socket beside the database (`<database>-ingest.sock`), is the
//! connection itself: nothing is sent either way, so no client can hold the daemon up or
//! feed it anything; the mail is already safe in the spool. A connection means "look at the
//! spool"; the connections that come while the spool is read are one look more, after it. No
//! socket, or a refused connection, and `pbem ingest` starts a background worker instead, as
//! it does without a daemon. Who may connect is who may write the socket file, made under
//! the daemon's umask like the database itself.

use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use crate::config::Config;
use crate::store::Store;
use crate::template::Templates;

use super::{IntakeCtx, Pass};

/// The socket of the daemon serving `db`.
pub fn socket_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push("-ingest.sock");
    PathBuf::from(name)
}

/// Tells the daemon serving `db`, if one listens, to read the spool; true once it took the
/// call. False in every other case: the caller starts a worker to read it.
pub fn call(db: &Path) -> bool {
    call_socket(&socket_path(db), db)
}

/// Connects to `socket` if the database's owner made it: true once the call was taken. In a
/// folder others may write, a socket someone else made there would take the call and leave
/// the spool unread. (The lingering ingest worker is called the same way.)
pub(super) fn call_socket(socket: &Path, db: &Path) -> bool {
    made_by_db_owner(socket, db) && UnixStream::connect(socket).is_ok()
}

/// Whether `socket` is there and the database's owner made it.
pub(super) fn made_by_db_owner(socket: &Path, db: &Path) -> bool {
    use std::os::unix::fs::MetadataExt as _;
    let owner = |p: &Path| std::fs::symlink_metadata(p).map(|m| m.uid()).ok();
    owner(socket).is_some() && owner(socket) == owner(db)
}

/// The listening side: a thread that takes the calls and one that reads the spool (with a
/// connection of its own); both stop, and the socket goes, when this is dropped.
pub(super) struct Listener {
    path: PathBuf,
    /// The socket file this daemon made (device, inode): a daemon started since may have
    /// made another at the same path, which this one must neither wake nor remove.
    inode: Inode,
    stop: Arc<AtomicBool>,
    listening: Option<std::thread::JoinHandle<()>>,
    reading: Option<std::thread::JoinHandle<()>>,
}

impl Listener {
    /// `start`, or `None` with a warning when the socket cannot open (`pbem ingest` starts a
    /// worker for each mail).
    pub(super) fn open(
        db: &Path,
        cfg: &Config,
        templates: &Templates,
        wake: mpsc::Sender<()>,
    ) -> Option<Listener> {
        let why = "no wake-up socket: pbem ingest starts a worker for each mail instead";
        or_warn(Listener::start(db, cfg, templates, wake), why)
    }

    /// Listens for `pbem ingest` beside `db`; the spool is read after each call (a batch
    /// per commit), then `wake` tells the sender. `None` when another daemon already
    /// listens there.
    pub(super) fn start(
        db: &Path,
        cfg: &Config,
        templates: &Templates,
        wake: mpsc::Sender<()>,
    ) -> anyhow::Result<Option<Listener>> {
        let path = socket_path(db);
        let Some((listener, inode)) = bind(&path)? else {
            return Ok(None);
        };
        let store = Store::open(db, false)?;
        let stop = Arc::new(AtomicBool::new(false));
        let (calls, called) = mpsc::channel::<()>();
        let stopping = Arc::clone(&stop);
        // Takes each call at once and never reads from it: a client that connects and
        // hangs on costs nothing, and the queue of calls never fills.
        let listening = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                match conn {
                    Ok(conn) => {
                        drop(conn);
                        let _ = calls.send(());
                    }
                    // Out of file descriptors, say: wait a little rather than spin.
                    Err(_) => std::thread::sleep(Duration::from_millis(50)),
                }
            }
        });
        let reader = SpoolReader {
            db: db.to_path_buf(),
            store,
            cfg: cfg.clone(),
            templates: templates.clone(),
            stop: Arc::clone(&stop),
        };
        let reading = std::thread::spawn(move || reader.run(called, wake));
        Ok(Some(Listener {
            path,
            inode,
            stop,
            listening: Some(listening),
            reading: Some(reading),
        }))
    }
}

/// The least time between two reads of the spool. A lone mail is read at once; in a burst
/// each read takes all that came since the last one, so the daemon commits (and syncs) a
/// batch at a time instead of a mail at a time, and its syncs keep out of the way of the
/// `pbem ingest` processes still syncing their spool files: one read for each mail of a
/// burst made those about 0.6 ms slower (`pbem bench pipe`: p50 2.43 ms, 1.8 with the
/// spacing), for answers at most 20 ms later.
const READ_SPACING: Duration = Duration::from_millis(20);

/// The thread that reads the spool when called.
struct SpoolReader {
    db: PathBuf,
    store: Store,
    cfg: Config,
    templates: Templates,
    stop: Arc<AtomicBool>,
}

impl SpoolReader {
    /// Until the calls end: waits for one, waits out `READ_SPACING` since the last read
    /// began, takes every call made by then (one read of the spool, listed after them,
    /// covers them all), reads the spool, waking the sender at each batch's commit.
    fn run(mut self, called: mpsc::Receiver<()>, wake: mpsc::Sender<()>) {
        let mut last_read: Option<std::time::Instant> = None;
        while called.recv().is_ok() {
            if let Some(at) = last_read {
                std::thread::sleep(
                    (at + READ_SPACING).saturating_duration_since(std::time::Instant::now()),
                );
            }
            while called.try_recv().is_ok() {}
            if self.stop.load(Ordering::SeqCst) {
                return;
            }
            last_read = Some(std::time::Instant::now());
            let mut pass = Pass::default();
            let intake = IntakeCtx {
                db: &self.db,
                cfg: &self.cfg,
                templates: &self.templates,
                stop: &self.stop,
                // Each batch's commit wakes the sender (a spool of several batches).
                committed: Some(&wake),
            };
            let read =
                crate::unwind::catch(|| super::intake_spool(&mut self.store, &intake, &mut pass));
            if let Err(e) = read {
                // The mail stays in the spool, for the next call or the next pass.
                tracing::warn!(error = %format!("{e:#}"), "reading the spool failed");
            }
        }
    }
}

/// A socket started, or `None` with a warning saying `why` and the error: a socket that
/// fails to open costs only speed.
pub(super) fn or_warn<T>(started: anyhow::Result<Option<T>>, why: &str) -> Option<T> {
    started.unwrap_or_else(|e| {
        tracing::warn!(error = %format!("{e:#}"), "{why}");
        None
    })
}

/// The (device, inode) of a file, if it is there.
fn inode_of(path: &Path) -> Inode {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino()))
}

impl Drop for Listener {
    fn drop(&mut self) {
        close(
            &self.path,
            self.inode,
            &self.stop,
            [self.listening.take(), self.reading.take()],
        );
    }
}

/// A file's (device, inode), to tell our socket file from one another daemon made since.
pub(super) type Inode = Option<(u64, u64)>;

/// A daemon's socket at `path`, listening, and its (device, inode); `None` when another
/// daemon already listens there. A socket file left by a daemon that died (nobody listens
/// on it) is replaced.
pub(super) fn bind(path: &Path) -> anyhow::Result<Option<(UnixListener, Inode)>> {
    if UnixStream::connect(path).is_ok() {
        tracing::warn!(socket = %path.display(), "another daemon takes mail from pbem ingest here");
        return Ok(None);
    }
    let _ = std::fs::remove_file(path);
    let listener = UnixListener::bind(path)?;
    Ok(Some((listener, inode_of(path))))
}

/// Stops a socket's threads (the flag set, the one in accept woken by a connection of our
/// own, each joined) and removes the socket file, unless another daemon's socket is there
/// now: that one is left, and our threads, asleep in accept, end with the process.
pub(super) fn close(
    path: &Path,
    inode: Inode,
    stop: &AtomicBool,
    threads: [Option<std::thread::JoinHandle<()>>; 2],
) {
    stop.store(true, Ordering::SeqCst);
    if inode.is_none() || inode_of(path) != inode {
        return;
    }
    let _ = UnixStream::connect(path);
    for h in threads.into_iter().flatten() {
        let _ = h.join();
    }
    let _ = std::fs::remove_file(path);
}
