//! The SQLite game store: opening with the right pragmas, and typed methods inside transactions (no SQL elsewhere).

mod bounces;
mod desk;
mod games;
mod imap_carried;
mod mail;
mod pictures;
mod requests;
pub mod schema;
mod status;

use std::path::Path;
use std::sync::atomic::{AtomicI32, Ordering};
use std::time::Duration;

use anyhow::Context;
use chrono::{DateTime, SecondsFormat, Utc};
use rusqlite::{Connection, TransactionBehavior};

pub use bounces::Unreachable;
pub use desk::MessageFilter;
pub use games::{DigestDue, Duty, DutyCounts, GameRow, MoveRow, NewGame, PlannedOutcome, SeatRow};
pub use mail::{HtmlPart, MessageRow, OutboxRow};
pub use pictures::BoardPicture;
pub use requests::RequestRow;
pub use status::{GameStatus, MessageStatus, OutboxStatus, PendingKind};

/// An open game store.
pub struct Store {
    conn: Connection,
}

/// One transaction; every typed method lives here so several of them commit together.
pub struct Tx<'a> {
    tx: rusqlite::Transaction<'a>,
}

/// The turn to send a database's outbox (`Store::send_turn`), and its journal: the ids of
/// mails a transport took that the outbox does not mark sent yet, one per line in the lock
/// file. A sender notes each mail there as soon as it is taken, one small write and no
/// fsync: a crash of the process cannot lose it (the OS has the write), so the next sender
/// marks those mails sent instead of sending them again, and a crash sends again at most
/// the one mail in flight. A power cut can lose notes, and then mails go out twice, never
/// not at all. (A commit per mail in the outbox, even without an fsync, cost about 50 µs
/// and a turn at the write lock each, which halved the daemon's throughput.)
pub struct SendTurn {
    file: Option<std::fs::File>,
}

/// The place of the one sender waiting for the send turn; released when dropped.
pub struct SendWaiter {
    _file: Option<std::fs::File>,
}

impl SendTurn {
    /// Notes that the transport took mail `id`.
    pub fn note(&mut self, id: i64) -> anyhow::Result<()> {
        if let Some(f) = &mut self.file {
            std::io::Write::write_all(f, format!("{id}\n").as_bytes())
                .context("cannot note a sent mail in the send lock file")?;
        }
        Ok(())
    }

    /// The mails noted and not cleared: a sender that died before marking them sent.
    pub fn noted(&mut self) -> anyhow::Result<Vec<i64>> {
        let Some(f) = &mut self.file else {
            return Ok(Vec::new());
        };
        if f.metadata()?.len() == 0 {
            return Ok(Vec::new());
        }
        let mut text = String::new();
        std::io::Seek::seek(f, std::io::SeekFrom::Start(0))?;
        std::io::Read::read_to_string(f, &mut text)?;
        // Each note is one write of `<id>\n`; a line without its end (a power cut in the
        // middle) cannot be trusted, and that mail is sent again.
        Ok(text
            .split_inclusive('\n')
            .filter_map(|l| l.strip_suffix('\n')?.parse().ok())
            .collect())
    }

    /// Forgets the noted mails, once the outbox marks them sent.
    pub fn clear(&mut self) -> anyhow::Result<()> {
        if let Some(f) = &mut self.file {
            f.set_len(0)
                .context("cannot clear the send lock file's notes")?;
        }
        Ok(())
    }
}

/// How large the WAL may stay between processes (`Store::truncate_wal_if_large`): about 64
/// pages. Each process that opens the database alone reads it whole; emptying it costs a
/// checkpoint, an fsync of the database and one of the next WAL's header.
const WAL_KEPT_BYTES: u64 = 64 * (4096 + 24);

impl Drop for Store {
    fn drop(&mut self) {
        // Best effort: a WAL left large only costs the next process time.
        if let Err(e) = self.truncate_wal_if_large() {
            tracing::debug!(error = %format!("{e:#}"), "the WAL was not emptied at close");
        }
    }
}

/// Whether a sender of the database at `db` waits for the send turn (`Store::sender_waiting`),
/// asked without opening the database: `pbem ingest` with no daemon never opens it.
pub fn sender_waiting(db: &Path) -> anyhow::Result<bool> {
    let file = lock_file(db, "send-wait")?;
    match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockShared) {
        Ok(()) => Ok(false),
        Err(rustix::io::Errno::WOULDBLOCK) => Ok(true),
        Err(e) => Err(anyhow::Error::new(e).context("cannot lock the send-wait lock file")),
    }
}

/// `<database>-<name>.lock`, opened (made if need be).
fn lock_file(db: &Path, name: &str) -> anyhow::Result<std::fs::File> {
    let mut lock_path = db.as_os_str().to_owned();
    lock_path.push(format!("-{name}.lock"));
    std::fs::OpenOptions::new()
        .create(true)
        .read(true)
        .append(true)
        .open(&lock_path)
        .with_context(|| format!("cannot open {}", Path::new(&lock_path).display()))
}

/// How many pauses of `LOCK_STEP` the busy handler waits for a lock: 30 s by default.
static LOCK_TRIES: AtomicI32 = AtomicI32::new(300_000);
const LOCK_STEP: Duration = Duration::from_micros(100);

/// How long every connection of this process waits for another's write lock before the
/// statement fails with "database is locked" (the config's `busy_timeout`).
pub fn set_busy_timeout(timeout: Duration) {
    let tries = timeout.as_micros() / LOCK_STEP.as_micros();
    LOCK_TRIES.store(tries.clamp(1, i32::MAX as u128) as i32, Ordering::Relaxed);
}

/// SQLite's busy handler: retry after a short pause, up to the busy timeout.
fn wait_for_lock(attempt: i32) -> bool {
    if attempt >= LOCK_TRIES.load(Ordering::Relaxed) {
        return false;
    }
    std::thread::sleep(LOCK_STEP);
    true
}

/// Whether an error is the store's own trouble, which time may cure (another process holds
/// the lock past the busy timeout, the disk is full, an I/O error), rather than a fault of
/// the mail or game being worked on: such an error must abort the work and be tried again,
/// never mark a message failed or a game quarantined. (A database that cannot be opened at
/// all is not among them: most often its path is wrong, which is the GM's to fix.)
pub fn is_transient(e: &anyhow::Error) -> bool {
    use rusqlite::ErrorCode as C;
    e.chain().any(|cause| {
        matches!(
            cause.downcast_ref::<rusqlite::Error>(),
            Some(rusqlite::Error::SqliteFailure(f, _)) if matches!(
                f.code,
                C::DatabaseBusy
                    | C::DatabaseLocked
                    | C::DiskFull
                    | C::SystemIoFailure
                    | C::OutOfMemory
                    | C::ReadOnly
            )
        )
    })
}

/// Timestamps are stored as RFC 3339 UTC text, which sorts as time.
pub fn ts(t: DateTime<Utc>) -> String {
    t.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Reads a stored timestamp.
pub fn parse_ts(s: &str) -> anyhow::Result<DateTime<Utc>> {
    Ok(DateTime::parse_from_rfc3339(s)
        .with_context(|| format!("bad timestamp in the store: {s}"))?
        .with_timezone(&Utc))
}

impl Store {
    /// Opens (creating if `create`) the database and brings its schema up to date.
    pub fn open(path: &Path, create: bool) -> anyhow::Result<Store> {
        if !create && !path.exists() {
            anyhow::bail!(
                "no database at {}: create it with `pbem init` (or set --db / PBEM_DB)",
                path.display()
            );
        }
        if create && !path.exists() {
            // Made here, empty (an empty file is an empty database), so that the umask alone
            // says who may write it: SQLite would make it 0644, and an MTA's `pbem ingest` in
            // the service's group (README, "Install") could not write it. SQLite gives the
            // -wal and -shm files the database's mode.
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(path)
            {
                Ok(_) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => {
                    return Err(anyhow::Error::new(e)
                        .context(format!("cannot create the database {}", path.display())))
                }
            }
        }
        let mut conn = Connection::open(path)
            .with_context(|| format!("cannot open the database {}", path.display()))?;
        Self::configure(&mut conn)?;
        schema::migrate(&mut conn)?;
        Ok(Store { conn })
    }

    /// Folds the WAL into the database and empties it, if it has grown past `WAL_KEPT_BYTES`
    /// and nobody else is using it just now (never waits: another connection reading or
    /// writing makes it a no-op, and a later close does it). Only at close (`Drop`).
    ///
    /// Why at close: the WAL is kept between processes (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`,
    /// in `configure`), and a process that opens the database with no one else connected
    /// rebuilds the WAL's index by reading every frame, and then believes none of them is in
    /// the database yet. SQLite's own checkpoints then copy the whole WAL again at every
    /// commit, and never start it over: with one `pbem ingest` per mail and no daemon the WAL
    /// grew by every mail's pages for good (29 MB after 500 mails, read whole at each start).
    fn truncate_wal_if_large(&mut self) -> anyhow::Result<()> {
        let Some(path) = self.conn.path().filter(|p| !p.is_empty()) else {
            return Ok(());
        };
        let wal_bytes = std::fs::metadata(format!("{path}-wal")).map_or(0, |m| m.len());
        if wal_bytes > WAL_KEPT_BYTES {
            // The connection closes next: its busy handler need not come back.
            self.conn.busy_handler(None::<fn(i32) -> bool>)?;
            self.conn
                .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |_| Ok(()))?;
        }
        Ok(())
    }

    /// Waits until no other process or thread sends this database's outbox, and holds that
    /// turn until the returned `SendTurn` is dropped (an advisory lock on
    /// `<database>-send.lock`). An MTA runs several `pbem ingest` at once, beside a daemon's
    /// sender: each reads the mail due and sends it, and two reading the same rows before
    /// either marked them sent would send those twice. The turn carries no file for an
    /// in-memory store, which no one else can reach (and no crash outlives).
    pub fn send_turn(&self) -> anyhow::Result<SendTurn> {
        let Some(file) = self.lock_file("send")? else {
            return Ok(SendTurn { file: None });
        };
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
            .context("cannot lock the send lock file")?;
        Ok(SendTurn { file: Some(file) })
    }

    /// Becomes the one sender that waits for the send turn (`Some`: hold it until the turn is
    /// taken), or `None` when another already waits: that one will send all committed mail,
    /// so this one is not needed. (An advisory lock on `<database>-send-wait.lock`; an
    /// in-memory store always gets the place.)
    pub fn wait_for_send_turn(&self) -> anyhow::Result<Option<SendWaiter>> {
        let Some(file) = self.lock_file("send-wait")? else {
            return Ok(Some(SendWaiter { _file: None }));
        };
        match rustix::fs::flock(&file, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => Ok(Some(SendWaiter { _file: Some(file) })),
            Err(rustix::io::Errno::WOULDBLOCK) => Ok(None),
            Err(e) => Err(anyhow::Error::new(e).context("cannot lock the send-wait lock file")),
        }
    }

    /// Whether a sender waits for the send turn now (`wait_for_send_turn`); false for an
    /// in-memory store. Asking takes a shared lock for a moment: a sender that tries to
    /// begin waiting in that moment gives up, so whoever asked must start one when told none.
    pub fn sender_waiting(&self) -> anyhow::Result<bool> {
        match self.conn.path().filter(|p| !p.is_empty()) {
            Some(path) => sender_waiting(Path::new(path)),
            None => Ok(false),
        }
    }

    /// `<database>-<name>.lock`, opened (made if need be); `None` for an in-memory store.
    fn lock_file(&self, name: &str) -> anyhow::Result<Option<std::fs::File>> {
        match self.conn.path().filter(|p| !p.is_empty()) {
            Some(path) => lock_file(Path::new(path), name).map(Some),
            None => Ok(None),
        }
    }

    /// A private in-memory store, for tests and `pbem replay`-like tools.
    pub fn memory() -> anyhow::Result<Store> {
        let mut conn = Connection::open_in_memory()?;
        Self::configure(&mut conn)?;
        schema::migrate(&mut conn)?;
        Ok(Store { conn })
    }

    /// WAL for concurrent readers (the daemon and GM commands), FULL sync so a commit is
    /// durable before a message is acknowledged, foreign keys on, and a busy timeout so a
    /// second process waits instead of failing.
    fn configure(conn: &mut Connection) -> anyhow::Result<()> {
        // Two connections of one daemon (passes and the sender) meet on the write lock many
        // times a second; SQLite's own busy timeout sleeps whole milliseconds between tries,
        // so wait in short steps instead (up to 30 s, as before).
        conn.busy_handler(Some(wait_for_lock))?;
        conn.set_prepared_statement_cache_capacity(128);
        // The bundled SQLite has STAT4, which re-prepares a cached statement whenever a bound
        // value changes; a stable plan (QPSG) keeps cached statements cached.
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_ENABLE_QPSG,
            true,
        )?;
        // A `pbem ingest` process per mail must not checkpoint and delete the WAL at every
        // exit (then recreate and fsync it at the next start): the WAL stays, and SQLite's
        // automatic checkpoint or the last close (`truncate_wal_if_large`) folds it in.
        conn.set_db_config(
            rusqlite::config::DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE,
            true,
        )?;
        conn.pragma_update(None, "journal_mode", "WAL")?;
        conn.pragma_update(None, "synchronous", "FULL")?;
        conn.pragma_update(None, "foreign_keys", "ON")?;
        conn.pragma_update(None, "wal_autocheckpoint", 1000)?;
        // Each message of a batch runs in its own savepoint, whose undo journal would
        // otherwise spill to a temporary file: a write syscall for every page a message
        // touches. Kept in memory, it costs nothing; it only matters until the commit.
        conn.pragma_update(None, "temp_store", "MEMORY")?;
        Ok(())
    }

    /// Runs `f` in one write transaction (taken at once, so two writers never deadlock) and
    /// commits only if it succeeds.
    pub fn tx<T>(&mut self, f: impl FnOnce(&Tx) -> anyhow::Result<T>) -> anyhow::Result<T> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)?;
        let t = Tx { tx };
        let out = f(&t)?;
        t.tx.commit()?;
        Ok(out)
    }

    /// Runs `f` in a read transaction: in WAL mode it sees a snapshot and never waits for a
    /// writer (the background sender reads the outbox while a batch is being played).
    pub fn read<T>(&mut self, f: impl FnOnce(&Tx) -> anyhow::Result<T>) -> anyhow::Result<T> {
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Deferred)?;
        let t = Tx { tx };
        let out = f(&t)?;
        t.tx.commit()?;
        Ok(out)
    }

    /// Runs `f` in a transaction whose commit need not survive a power cut (no fsync; a crash
    /// of the process cannot lose it, since the WAL write is done): for writes whose loss is
    /// harmless by design, such as marking mail sent (a lost mark only sends the mail again:
    /// at least once). Durable commits are back when it returns, whatever it returns.
    pub fn tx_lazy<T>(&mut self, f: impl FnOnce(&Tx) -> anyhow::Result<T>) -> anyhow::Result<T> {
        // Cached statements: `pragma_update` parses its SQL each time, twice a transaction
        // of the sender's.
        self.conn
            .prepare_cached("PRAGMA synchronous = NORMAL")?
            .execute([])?;
        // A panic comes back as an error, so that the connection never stays lazy.
        let out = crate::unwind::catch(|| self.tx(f));
        self.conn
            .prepare_cached("PRAGMA synchronous = FULL")?
            .execute([])?;
        out
    }

    /// The raw durable commit rate baseline: one-row transactions with the same pragmas
    /// (for `pbem bench`). Returns how many commits were made.
    pub fn bench_raw_commits(&mut self, n: usize) -> anyhow::Result<usize> {
        self.conn.execute_batch(
            "CREATE TABLE IF NOT EXISTS bench_raw (id INTEGER PRIMARY KEY, v BLOB)",
        )?;
        for i in 0..n {
            let tx = self
                .conn
                .transaction_with_behavior(TransactionBehavior::Immediate)?;
            tx.execute("INSERT INTO bench_raw (v) VALUES (?1)", [i.to_string()])?;
            tx.commit()?;
        }
        Ok(n)
    }

    /// How many rows `bench_raw_commits` has made in all (0 before the first).
    pub fn bench_raw_count(&self) -> anyhow::Result<i64> {
        let exists: bool = self.conn.query_row(
            "SELECT count(*) > 0 FROM sqlite_schema WHERE name = 'bench_raw'",
            [],
            |r| r.get(0),
        )?;
        if !exists {
            return Ok(0);
        }
        Ok(self
            .conn
            .query_row("SELECT count(*) FROM bench_raw", [], |r| r.get(0))?)
    }
}

impl Tx<'_> {
    fn conn(&self) -> &Connection {
        &self.tx
    }

    /// Executes a statement, prepared once per connection and cached (parsing SQL again for
    /// every message was a fifth of the mail path's time).
    fn exec<P: rusqlite::Params>(&self, sql: &str, params: P) -> rusqlite::Result<usize> {
        self.conn().prepare_cached(sql)?.execute(params)
    }

    /// Reads one row with a cached statement.
    fn one<T, P: rusqlite::Params>(
        &self,
        sql: &str,
        params: P,
        f: impl FnOnce(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> rusqlite::Result<T> {
        self.conn().prepare_cached(sql)?.query_row(params, f)
    }

    /// Opens a savepoint inside the transaction: `release` keeps its work, `rollback_to`
    /// undoes only it (one message of a batch).
    pub fn savepoint(&self) -> anyhow::Result<()> {
        self.exec("SAVEPOINT item", [])?;
        Ok(())
    }

    pub fn release(&self) -> anyhow::Result<()> {
        self.exec("RELEASE item", [])?;
        Ok(())
    }

    pub fn rollback_to(&self) -> anyhow::Result<()> {
        self.conn()
            .execute_batch("ROLLBACK TO item; RELEASE item")?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A lazy transaction commits without waiting for the disk, and leaves the connection as
    /// durable as before, even when it fails.
    #[test]
    fn a_lazy_transaction_runs_lazy_and_leaves_the_connection_durable() {
        let mut store = Store::memory().unwrap();
        let synchronous = |c: &Connection| -> i64 {
            c.query_row("PRAGMA synchronous", [], |r| r.get(0)).unwrap()
        };
        const NORMAL: i64 = 1;
        const FULL: i64 = 2;
        assert_eq!(synchronous(&store.conn), FULL);
        let inside = store.tx_lazy(|tx| Ok(synchronous(tx.conn()))).unwrap();
        assert_eq!(inside, NORMAL);
        assert_eq!(synchronous(&store.conn), FULL);
        let failed: anyhow::Result<()> = store.tx_lazy(|_| anyhow::bail!("no"));
        assert!(failed.is_err());
        assert_eq!(synchronous(&store.conn), FULL);
    }
}
