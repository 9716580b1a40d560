//! The hand-off socket of a running `pbem serve`: `pbem ingest` passes its mail to the daemon, which stores and processes it warm (statements prepared, templates compiled, positions in memory) and answers once the commit is durable.
//!
//! The protocol, over a Unix socket beside the database (`<database>-ingest.sock`): the client
//! sends the mail's length (8 bytes, big-endian) and its bytes; the daemon answers one byte,
//! `S` once the mail is durably stored (new or a duplicate), `E` when it could not store it.
//! Anything but `S` (no daemon, a refused connection, a timeout, `E`) and `pbem ingest` stores
//! the mail itself, as it does without a daemon: the store's dedupe key makes a mail that
//! was stored after all harmless. Who may connect is who may write the socket file, made
//! under the daemon's umask like the database itself.

use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

use crate::compose::Ctx;
use crate::config::Config;
use crate::edge;
use crate::inbox;
use crate::store::Store;
use crate::template::Templates;

const STORED: u8 = b'S';
const NOT_STORED: u8 = b'E';
/// Room above the size limit for the stub a client makes of a larger mail (its headers).
const STUB_SLACK: usize = 256 * 1024;

/// The socket of the daemon serving `db`.
pub fn socket_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push("-ingest.sock");
    PathBuf::from(name)
}

/// Passes `raw` to the daemon serving `db`, if one listens; true once it answered that the
/// mail is durably stored. False in every other case: the caller stores the mail itself.
pub fn deliver(db: &Path, raw: &[u8], wait: Duration) -> bool {
    let socket = socket_path(db);
    // Only a socket made by the database's owner: in a folder others may write, a socket
    // someone else made there could answer `S` and drop the mail.
    use std::os::unix::fs::MetadataExt as _;
    let owner = |p: &Path| std::fs::symlink_metadata(p).map(|m| m.uid()).ok();
    if owner(&socket).is_none() || owner(&socket) != owner(db) {
        return false;
    }
    let Ok(mut stream) = UnixStream::connect(&socket) else {
        return false;
    };
    let sent = (|| -> std::io::Result<u8> {
        stream.set_write_timeout(Some(wait))?;
        stream.set_read_timeout(Some(wait))?;
        stream.write_all(&(raw.len() as u64).to_be_bytes())?;
        stream.write_all(raw)?;
        stream.shutdown(std::net::Shutdown::Write)?;
        let mut answer = [0u8; 1];
        stream.read_exact(&mut answer)?;
        Ok(answer[0])
    })();
    matches!(sent, Ok(STORED))
}

/// The listening side, on a thread of its own; stops (and removes the socket) when dropped.
pub struct Handoff {
    path: PathBuf,
    /// The socket file this daemon made (device, inode): a daemon started since may have
    /// made another at the same path, which this one must neither wake nor remove.
    inode: Option<(u64, u64)>,
    stop: Arc<AtomicBool>,
    handle: Option<std::thread::JoinHandle<()>>,
}

impl Handoff {
    /// Listens for `pbem ingest` beside `db`; each mail stored and processed in its own
    /// commit on this thread's connection, then `wake` tells the sender. `None` when another
    /// daemon already listens there.
    pub fn start(
        db: &Path,
        cfg: &Config,
        templates: &Templates,
        wake: mpsc::Sender<()>,
    ) -> anyhow::Result<Option<Handoff>> {
        let path = socket_path(db);
        if UnixStream::connect(&path).is_ok() {
            tracing::warn!(socket = %path.display(), "another daemon takes mail from pbem ingest here");
            return Ok(None);
        }
        // A socket file left by a daemon that died: nobody listens on it.
        let _ = std::fs::remove_file(&path);
        let listener = UnixListener::bind(&path)?;
        let inode = inode_of(&path);
        let mut store = Store::open(db, false)?;
        let (cfg, templates) = (cfg.clone(), templates.clone());
        let stop = Arc::new(AtomicBool::new(false));
        let stopping = Arc::clone(&stop);
        let handle = std::thread::spawn(move || {
            for conn in listener.incoming() {
                if stopping.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(mut conn) = conn else {
                    // Out of file descriptors, say: wait a little rather than spin.
                    std::thread::sleep(Duration::from_millis(50));
                    continue;
                };
                let stored = crate::unwind::catch(|| {
                    let raw = receive(&mut conn, cfg.max_message_bytes + STUB_SLACK)?;
                    let ctx = Ctx::new(&cfg, &templates, edge::now());
                    inbox::store_and_process(&mut store, &raw, &ctx)
                });
                let answer = match &stored {
                    Ok(_) => STORED,
                    Err(e) => {
                        tracing::warn!(error = %format!("{e:#}"), "a handed-off mail was not stored; pbem ingest stores it");
                        NOT_STORED
                    }
                };
                let _ = conn.write_all(&[answer]);
                if stored.is_ok() {
                    let _ = wake.send(());
                }
            }
        });
        Ok(Some(Handoff {
            path,
            inode,
            stop,
            handle: Some(handle),
        }))
    }
}

/// How long one client may take to hand over its mail, all of it: one that trickles a byte
/// at a time holds the others up no longer than this.
const RECEIVE_WITHIN: Duration = Duration::from_secs(5);

/// One mail from a client: its length, then that many bytes (at most `max`), all within
/// `RECEIVE_WITHIN`.
fn receive(conn: &mut UnixStream, max: usize) -> anyhow::Result<Vec<u8>> {
    let deadline = std::time::Instant::now() + RECEIVE_WITHIN;
    conn.set_write_timeout(Some(RECEIVE_WITHIN))?;
    let mut len = [0u8; 8];
    read_by(conn, &mut len, deadline)?;
    let len = u64::from_be_bytes(len);
    if len > max as u64 {
        anyhow::bail!("a handed-off mail of {len} bytes is over the limit");
    }
    let mut raw = vec![0u8; len as usize];
    read_by(conn, &mut raw, deadline)?;
    Ok(raw)
}

/// Fills `buf`, each read allowed only the time left before `deadline`.
fn read_by(
    conn: &mut UnixStream,
    buf: &mut [u8],
    deadline: std::time::Instant,
) -> anyhow::Result<()> {
    let mut filled = 0;
    while filled < buf.len() {
        let left = deadline.saturating_duration_since(std::time::Instant::now());
        if left.is_zero() {
            anyhow::bail!("a handed-off mail took longer than {RECEIVE_WITHIN:?}");
        }
        conn.set_read_timeout(Some(left))?;
        match conn.read(&mut buf[filled..])? {
            0 => anyhow::bail!("the client closed the connection in the middle of its mail"),
            n => filled += n,
        }
    }
    Ok(())
}

/// The (device, inode) of a file, if it is there.
fn inode_of(path: &Path) -> Option<(u64, u64)> {
    use std::os::unix::fs::MetadataExt as _;
    std::fs::symlink_metadata(path)
        .ok()
        .map(|m| (m.dev(), m.ino()))
}

impl Drop for Handoff {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if self.inode.is_none() || inode_of(&self.path) != self.inode {
            // Another daemon's socket is there now: leave it (and our thread, asleep in
            // accept, ends with the process).
            return;
        }
        // The thread waits in accept: a connection of our own wakes it to see the flag.
        let _ = UnixStream::connect(&self.path);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
        let _ = std::fs::remove_file(&self.path);
    }
}
