//! Mail handed by `pbem ingest` to a running `pbem serve` over a socket of its own and stored in the daemon's own durable commit, so the ingest process writes no spool file and syncs nothing; short of the daemon's word that the mail is stored, `pbem ingest` spools it as before.
//!
//! The protocol, over a Unix socket beside the database (`<database>-mail.sock`): the client
//! sends the mail's length in decimal and a newline, then the mail; the daemon answers `OK\n`
//! once the commit that stored it is durable, and closes. Each connection is read on a thread
//! of its own within a deadline, at most `HANDLERS` at a time (one more is closed at once, and
//! its client spools), its length at most the size limit: no client holds the daemon, or the
//! other clients, up. Who may connect is who may write the socket file, made under the
//! daemon's umask like the database; a client hands mail only to a socket the database's
//! owner made (`wake::made_by_db_owner`).

use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use crate::config::Config;
use crate::mail::intake::{Fetched, Source};
use crate::store::Store;
use crate::template::Templates;

use super::{IntakeCtx, Pass};

/// The socket on which the daemon serving `db` takes mail.
pub fn socket_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push("-mail.sock");
    PathBuf::from(name)
}

/// How long a client waits for the daemon's word: a commit takes milliseconds, and a daemon
/// that takes this long is in trouble; the mail goes to the spool instead.
const ANSWER: Duration = Duration::from_secs(10);

/// How long the daemon waits for a client to send its mail, in all.
const READING: Duration = Duration::from_secs(5);

/// How many connections are read at once.
const HANDLERS: usize = 8;

/// Hands `raw` to the daemon serving `db`, if one takes mail: true once it answered that the
/// mail is stored, durably. False in every other case (no daemon, a socket someone else made,
/// a refusal, no answer in time): the caller spools the mail. A mail the daemon stored
/// without answering in time, and spooled then, is stored once: the second is a duplicate.
pub fn hand_over(db: &Path, raw: &[u8]) -> bool {
    let socket = socket_path(db);
    if !super::wake::made_by_db_owner(&socket, db) {
        return false;
    }
    let Ok(mut conn) = UnixStream::connect(&socket) else {
        return false;
    };
    let sent = conn
        .set_write_timeout(Some(ANSWER))
        .and_then(|()| conn.set_read_timeout(Some(ANSWER)))
        .and_then(|()| conn.write_all(format!("{}\n", raw.len()).as_bytes()))
        .and_then(|()| conn.write_all(raw));
    let mut answer = [0u8; 3];
    sent.is_ok() && conn.read_exact(&mut answer).is_ok() && &answer == b"OK\n"
}

/// The daemon's side: a thread that takes the connections (and one a connection, reading
/// it) and one that stores what they read, a batch per commit, with a connection of its own
/// to the store. Both stop, and the socket goes, when this is dropped.
pub(super) struct Handover {
    path: PathBuf,
    inode: super::wake::Inode,
    stop: Arc<AtomicBool>,
    listening: Option<std::thread::JoinHandle<()>>,
    storing: Option<std::thread::JoinHandle<()>>,
}

/// A mail read from a client, and where to say whether it is stored.
struct Handed {
    raw: Vec<u8>,
    stored: mpsc::Sender<bool>,
}

impl Handover {
    /// `start`, or `None` with a warning when the socket cannot open (`pbem ingest` spools).
    pub(super) fn open(
        db: &Path,
        cfg: &Config,
        templates: &Templates,
        wake: mpsc::Sender<()>,
    ) -> Option<Handover> {
        let why = "no mail socket: pbem ingest spools each mail instead";
        super::wake::or_warn(Handover::start(db, cfg, templates, wake), why)
    }

    /// Takes mail from `pbem ingest` beside `db`; after each commit that stored some, `wake`
    /// tells the sender. `None` when another daemon already takes mail there.
    pub(super) fn start(
        db: &Path,
        cfg: &Config,
        templates: &Templates,
        wake: mpsc::Sender<()>,
    ) -> anyhow::Result<Option<Handover>> {
        let path = socket_path(db);
        let Some((listener, inode)) = super::wake::bind(&path)? else {
            return Ok(None);
        };
        let storer = Storer {
            db: db.to_path_buf(),
            store: Store::open(db, false)?,
            cfg: cfg.clone(),
            templates: templates.clone(),
        };
        let stop = Arc::new(AtomicBool::new(false));
        let (mails, handed) = mpsc::channel::<Handed>();
        let max = cfg.max_message_bytes;
        let stopping = Arc::clone(&stop);
        let listening =
            std::thread::spawn(move || take_connections(listener, max, mails, stopping));
        let stopping = Arc::clone(&stop);
        let storing = std::thread::spawn(move || storer.run(handed, wake, stopping));
        Ok(Some(Handover {
            path,
            inode,
            stop,
            listening: Some(listening),
            storing: Some(storing),
        }))
    }
}

/// Until the flag is set: each connection read on a thread of its own, at most `HANDLERS`
/// at once.
fn take_connections(
    listener: UnixListener,
    max: usize,
    mails: mpsc::Sender<Handed>,
    stop: Arc<AtomicBool>,
) {
    let busy = Arc::new(AtomicUsize::new(0));
    for conn in listener.incoming() {
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let Ok(conn) = conn else {
            // Out of file descriptors, say: wait a little rather than spin.
            std::thread::sleep(Duration::from_millis(50));
            continue;
        };
        if busy.fetch_add(1, Ordering::SeqCst) >= HANDLERS {
            // Closed unread: its client spools the mail.
            busy.fetch_sub(1, Ordering::SeqCst);
            continue;
        }
        let (mails, busy) = (mails.clone(), Arc::clone(&busy));
        std::thread::spawn(move || {
            let _ = read_one(conn, max, &mails);
            busy.fetch_sub(1, Ordering::SeqCst);
        });
    }
}

/// Reads one client's mail within `READING`, hands it to be stored and says `OK` once it is.
fn read_one(mut conn: UnixStream, max: usize, mails: &mpsc::Sender<Handed>) -> std::io::Result<()> {
    let deadline = Instant::now() + READING;
    let len = read_length(&mut conn, max, deadline)?;
    let mut raw = vec![0; len];
    read_within(&mut conn, &mut raw, deadline)?;
    let (stored, answer) = mpsc::channel();
    mails
        .send(Handed { raw, stored })
        .map_err(|_| std::io::Error::other("the daemon stops"))?;
    if answer.recv_timeout(ANSWER) == Ok(true) {
        conn.set_write_timeout(Some(READING))?;
        conn.write_all(b"OK\n")?;
    }
    Ok(())
}

/// The length line: decimal digits and a newline, at most `max`.
fn read_length(conn: &mut UnixStream, max: usize, deadline: Instant) -> std::io::Result<usize> {
    let bad = || std::io::Error::new(std::io::ErrorKind::InvalidData, "not a mail's length");
    let mut line = Vec::new();
    loop {
        let mut byte = [0u8];
        read_within(conn, &mut byte, deadline)?;
        if byte[0] == b'\n' {
            break;
        }
        line.push(byte[0]);
        if line.len() > 12 {
            return Err(bad());
        }
    }
    parse_length(&line, max).ok_or_else(bad)
}

/// A length line's digits (without its newline) as a length of at most `max`.
fn parse_length(line: &[u8], max: usize) -> Option<usize> {
    if line.is_empty() || !line.iter().all(u8::is_ascii_digit) {
        return None;
    }
    std::str::from_utf8(line)
        .ok()?
        .parse::<usize>()
        .ok()
        .filter(|&n| n <= max)
}

/// Fills `buf` from the connection, or fails once `deadline` has passed.
fn read_within(conn: &mut UnixStream, buf: &mut [u8], deadline: Instant) -> std::io::Result<()> {
    let mut filled = 0;
    while filled < buf.len() {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return Err(std::io::ErrorKind::TimedOut.into());
        }
        conn.set_read_timeout(Some(left))?;
        match conn.read(&mut buf[filled..])? {
            0 => return Err(std::io::ErrorKind::UnexpectedEof.into()),
            n => filled += n,
        }
    }
    Ok(())
}

/// The thread that stores handed mail: all that waits, up to a batch, in one commit.
struct Storer {
    db: PathBuf,
    store: Store,
    cfg: Config,
    templates: Templates,
}

impl Storer {
    fn run(
        mut self,
        handed: mpsc::Receiver<Handed>,
        wake: mpsc::Sender<()>,
        stop: Arc<AtomicBool>,
    ) {
        while !stop.load(Ordering::SeqCst) {
            let first = match handed.recv_timeout(Duration::from_millis(200)) {
                Ok(h) => h,
                Err(mpsc::RecvTimeoutError::Timeout) => continue,
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            };
            let mut batch = vec![first];
            while batch.len() < super::BATCH {
                match handed.try_recv() {
                    Ok(h) => batch.push(h),
                    Err(_) => break,
                }
            }
            let stored = self.store_batch(&mut batch);
            for h in batch {
                let _ = h.stored.send(stored);
            }
            if stored {
                let _ = wake.send(());
            }
        }
    }

    /// Stores and answers the batch in one commit (`daemon::drain`, as every source); whether
    /// it is stored. The sender is told after the commit.
    fn store_batch(&mut self, batch: &mut [Handed]) -> bool {
        let mut source = HandedSource {
            mails: batch
                .iter_mut()
                .enumerate()
                .map(|(i, h)| Fetched {
                    name: format!("handed #{i}"),
                    raw: std::mem::take(&mut h.raw),
                })
                .collect(),
            acked: false,
        };
        let stop = AtomicBool::new(false);
        let intake = IntakeCtx {
            db: &self.db,
            cfg: &self.cfg,
            templates: &self.templates,
            stop: &stop,
            // One batch: the sender is woken once it is answered.
            committed: None,
        };
        let mut pass = Pass::default();
        let drained =
            crate::unwind::catch(|| super::drain(&mut self.store, &mut source, &intake, &mut pass));
        if let Err(e) = &drained {
            // Each client spools its mail: nothing is lost.
            tracing::warn!(error = %format!("{e:#}"), "storing handed mail failed");
        }
        drained.is_ok() && source.acked
    }
}

/// The handed mails of one batch as a source: fetched once, acknowledged by the commit.
struct HandedSource {
    mails: Vec<Fetched>,
    acked: bool,
}

impl Source for HandedSource {
    fn fetch(&mut self, _max: usize) -> anyhow::Result<Vec<Fetched>> {
        Ok(std::mem::take(&mut self.mails))
    }

    fn ack(&mut self, _stored: &[Fetched]) -> anyhow::Result<()> {
        self.acked = true;
        Ok(())
    }
}

impl Drop for Handover {
    fn drop(&mut self) {
        super::wake::close(
            &self.path,
            self.inode,
            &self.stop,
            [self.listening.take(), self.storing.take()],
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_length_is_digits_within_the_limit() {
        assert_eq!(parse_length(b"123", 1000), Some(123));
        assert_eq!(parse_length(b"1000", 1000), Some(1000));
        assert_eq!(parse_length(b"1001", 1000), None);
        for bad in [&b""[..], b"-1", b"+5", b" 5", b"5 ", b"1e3", b"0x10"] {
            assert_eq!(parse_length(bad, 1000), None, "{bad:?}");
        }
    }

    proptest! {
        /// Whatever a client sends as its length line, the answer is a length within the
        /// limit or none; and every length the client side writes reads back as itself.
        #[test]
        fn any_length_line_parses_within_the_limit(line in proptest::collection::vec(any::<u8>(), 0..16), max in 0usize..1 << 40) {
            if let Some(n) = parse_length(&line, max) {
                prop_assert!(n <= max);
            }
        }

        #[test]
        fn a_written_length_reads_back(n in 0usize..1 << 40) {
            let line = format!("{n}");
            prop_assert_eq!(parse_length(line.as_bytes(), n), Some(n));
        }
    }
}
