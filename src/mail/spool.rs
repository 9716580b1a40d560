//! The spool: pbem's own Maildir beside the database, where `pbem ingest` leaves each mail, durably, for the daemon or a background worker to read in (an I/O edge).
//!
//! An MTA waits for `pbem ingest` to exit, and a mail must be safe on disk before it exits 0.
//! Writing it as a file is the least a process can do for that: no database opened (SQLite
//! parses the whole schema at open, as many instructions as the process start itself), two
//! syncs. `pbem serve` (called on its socket, and at every pass) and the background worker
//! read the spool into the store (`MaildirSource::spool`), one commit a batch, and delete
//! each file only after that commit. No entry stops the spool: one that cannot be read as a
//! mail, or whose reading killed its readers twice (`attempts`), is moved aside (`aside`).

use std::fs::{DirBuilder, File, OpenOptions, Permissions};
use std::io::{ErrorKind, Write as _};
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::Context;
use chrono::{DateTime, Utc};

pub mod aside;
mod attempts;

pub use attempts::{Attempts, MAX_DEATHS};

/// The spool of the database at `db`: `<database>-spool`, beside its lock files.
pub fn dir(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push("-spool");
    PathBuf::from(name)
}

/// Writes `raw` into the spool durably: into `tmp/`, synced, renamed into `new/`, and `new/`
/// synced, so that once this returns a power cut loses neither the file nor its name. No one
/// but the owner may read it (a mail holds its sender's secret address), and the group when
/// the spool is shared (`make_dirs`). The name starts with the time, so the spool is read
/// oldest first.
pub fn deliver(dir: &Path, raw: &[u8], now: DateTime<Utc>) -> anyhow::Result<PathBuf> {
    let (tmp, new) = (dir.join("tmp"), dir.join("new"));
    let (mut file, name) = match create_unique(&tmp, now) {
        Err(e) if e.kind() == ErrorKind::NotFound => {
            make_dirs(dir)?;
            create_unique(&tmp, now)
        }
        other => other,
    }
    .with_context(|| format!("cannot write into {}", tmp.display()))?;
    if shared(&tmp) {
        // Whatever the umask of the MTA that runs this: the daemon's user reads it.
        file.set_permissions(Permissions::from_mode(0o640))?;
    }
    file.write_all(raw)
        .and_then(|()| file.sync_all())
        .with_context(|| format!("cannot write {}", tmp.join(&name).display()))?;
    drop(file);
    let to = move_into_new(&tmp.join(&name), &new, &name, now)?;
    File::open(&new)
        .and_then(|d| d.sync_all())
        .with_context(|| format!("cannot sync {}", new.display()))?;
    Ok(to)
}

/// Each name this process gives, different (with the time and the process id, different
/// from every other process's too: the Maildir way).
fn next_name(now: DateTime<Utc>) -> String {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    format!(
        "{}.M{:06}P{}Q{}.pbem",
        now.timestamp(),
        now.timestamp_subsec_micros(),
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// A new file in `tmp/`, never one that exists.
fn create_unique(tmp: &Path, now: DateTime<Utc>) -> std::io::Result<(File, String)> {
    let mut tries = 0;
    loop {
        let name = next_name(now);
        let created = OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o640)
            .open(tmp.join(&name));
        match created {
            Ok(f) => return Ok((f, name)),
            Err(e) if e.kind() == ErrorKind::AlreadyExists && tries < 100 => tries += 1,
            Err(e) => return Err(e),
        }
    }
}

/// Renames the written file into `new/` under its name, or another should a file there have
/// it (a rename never replaces a mail waiting there); the path it got.
fn move_into_new(
    from: &Path,
    new: &Path,
    name: &str,
    now: DateTime<Utc>,
) -> anyhow::Result<PathBuf> {
    let mut to = new.join(name);
    for _ in 0..100 {
        let cwd = rustix::fs::CWD;
        match rustix::fs::renameat_with(cwd, from, cwd, &to, rustix::fs::RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(to),
            Err(rustix::io::Errno::EXIST) => to = new.join(next_name(now)),
            // A filesystem without the flag: `tmp/` names are unique, and so, the way they
            // are made, are those in `new/`.
            Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {
                std::fs::rename(from, &to)
                    .with_context(|| format!("cannot move a mail into {}", new.display()))?;
                return Ok(to);
            }
            Err(e) => {
                return Err(anyhow::Error::new(e))
                    .with_context(|| format!("cannot move a mail into {}", new.display()))
            }
        }
    }
    anyhow::bail!("no free name in {}", new.display())
}

/// Whether the folder `dir` is its group's as much as its owner's: the folder the README has
/// the GM make for the database, shared by the service's user and an MTA's of another.
fn shared(dir: &Path) -> bool {
    std::fs::metadata(dir).is_ok_and(|m| m.permissions().mode() & 0o070 == 0o070)
}

/// The spool, its `tmp/` and `new/` and its lock file, as open as the database's folder: the
/// owner's alone, or its group's too when that folder is shared (then the modes are set
/// whatever the umask, keeping the setgid bit that gives new files the folder's group). The
/// spool's parent is synced once it is made, so the spool's name outlives a power cut. A
/// missing database folder is an error, as it is to the store: made here, it would hide a
/// wrong path or a volume not mounted yet.
fn make_dirs(dir: &Path) -> anyhow::Result<()> {
    let parent = dir
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let group = shared(parent);
    let mut made = false;
    for d in [dir.to_path_buf(), dir.join("tmp"), dir.join("new")] {
        match DirBuilder::new().mode(0o700).create(&d) {
            Ok(()) => {
                made |= d == dir;
                if group {
                    let setgid = std::fs::metadata(&d)?.permissions().mode() & 0o7000;
                    std::fs::set_permissions(&d, Permissions::from_mode(setgid | 0o770))?;
                }
            }
            Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e).with_context(|| format!("cannot create {}", d.display())),
        }
    }
    open_lock(dir)?;
    File::open(dir).and_then(|d| d.sync_all())?;
    if made {
        File::open(parent)
            .and_then(|d| d.sync_all())
            .with_context(|| format!("cannot sync the folder of {}", dir.display()))?;
    }
    Ok(())
}

/// The spool's lock file, made if need be (writable by the group of a shared spool); a lock
/// needs no more than reading it.
fn open_lock(dir: &Path) -> anyhow::Result<File> {
    let path = dir.join("lock");
    match File::open(&path) {
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let file = OpenOptions::new()
                .create(true)
                .append(true)
                .mode(0o600)
                .open(&path)
                .with_context(|| format!("cannot make {}", path.display()))?;
            if shared(dir) {
                file.set_permissions(Permissions::from_mode(0o660))?;
            }
            Ok(file)
        }
        opened => opened.with_context(|| format!("cannot open {}", path.display())),
    }
}

/// Waits to be the one reader of the spool, and stays so until the file returned is dropped
/// (an advisory lock on `<spool>/lock`); `None` while there is no spool.
pub fn lock(dir: &Path) -> anyhow::Result<Option<File>> {
    if !dir.is_dir() {
        return Ok(None);
    }
    let file = open_lock(dir)?;
    rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
        .with_context(|| format!("cannot lock {}", dir.join("lock").display()))?;
    Ok(Some(file))
}

/// How many mails wait in the spool to be read into the store (none when it does not exist).
pub fn waiting(dir: &Path) -> usize {
    std::fs::read_dir(dir.join("new")).map_or(0, |d| {
        d.filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .count()
    })
}

/// Removes what a killed `pbem ingest` left in `tmp/` (it never exited 0, so its MTA
/// delivers that mail again): files older than a day and a half, the Maildir rule, so a
/// delivery still writing is never touched. Returns how many.
pub fn sweep_tmp(dir: &Path, now: DateTime<Utc>) -> usize {
    let Ok(entries) = std::fs::read_dir(dir.join("tmp")) else {
        return 0;
    };
    let stale = |modified: std::time::SystemTime| {
        DateTime::<Utc>::from(modified) < now - chrono::Duration::hours(36)
    };
    entries
        .filter_map(Result::ok)
        .filter(|e| e.metadata().and_then(|m| m.modified()).is_ok_and(stale))
        .filter(|e| std::fs::remove_file(e.path()).is_ok())
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(secs, 123_456_000).unwrap()
    }

    #[test]
    fn the_spool_sits_beside_the_database() {
        assert_eq!(
            dir(Path::new("/srv/pbem/pbem.sqlite")),
            Path::new("/srv/pbem/pbem.sqlite-spool")
        );
    }

    #[test]
    fn a_delivered_mail_is_in_new_whole_and_closed_to_others() {
        let d = tempfile::tempdir().unwrap();
        let spool = dir(&d.path().join("pbem.sqlite"));
        let path = deliver(&spool, b"From: a@b\r\n\r\nhi\r\n", at(1_800_000_000)).unwrap();
        assert_eq!(path.parent().unwrap(), spool.join("new"));
        assert_eq!(std::fs::read(&path).unwrap(), b"From: a@b\r\n\r\nhi\r\n");
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path) & 0o607, 0o600, "the owner's, never others'");
        assert_eq!(mode(&spool) & 0o707, 0o700, "the owner's, never others'");
        assert_eq!(std::fs::read_dir(spool.join("tmp")).unwrap().count(), 0);
        assert_eq!(waiting(&spool), 1);
    }

    /// In the database folder the README has the GM make (the group's, setgid), the spool is
    /// the group's too, whatever the umask of the MTA that made it: a daemon of another user
    /// in that group reads and deletes what the MTA's `pbem ingest` left.
    #[test]
    fn in_a_shared_folder_the_spool_is_the_groups_too() {
        let d = tempfile::tempdir().unwrap();
        std::fs::set_permissions(d.path(), Permissions::from_mode(0o2770)).unwrap();
        let spool = dir(&d.path().join("pbem.sqlite"));
        let old = rustix::process::umask(rustix::fs::Mode::from_raw_mode(0o077));
        let path = deliver(&spool, b"x", at(1_800_000_000));
        rustix::process::umask(old);
        let path = path.unwrap();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode(&spool), 0o2770);
        assert_eq!(mode(&spool.join("new")), 0o2770);
        assert_eq!(mode(&spool.join("lock")), 0o660);
        assert_eq!(mode(&path), 0o640);
    }

    #[test]
    fn deliveries_in_one_microsecond_get_names_of_their_own_in_time_order() {
        let d = tempfile::tempdir().unwrap();
        let spool = d.path().join("s");
        let first = deliver(&spool, b"1", at(1_800_000_001)).unwrap();
        let second = deliver(&spool, b"2", at(1_800_000_001)).unwrap();
        let earlier = deliver(&spool, b"0", at(1_799_999_999)).unwrap();
        assert_ne!(first, second);
        assert_eq!(waiting(&spool), 3);
        let mut names: Vec<_> = [&second, &first, &earlier]
            .iter()
            .map(|p| p.file_name().unwrap().to_owned())
            .collect();
        names.sort();
        assert_eq!(names[0], earlier.file_name().unwrap());
    }

    #[test]
    fn a_mail_waiting_in_new_is_never_replaced() {
        let d = tempfile::tempdir().unwrap();
        let spool = d.path().join("s");
        let waiting_one = deliver(&spool, b"first", at(1_800_000_000)).unwrap();
        let name = waiting_one.file_name().unwrap().to_str().unwrap();
        std::fs::write(spool.join("tmp").join(name), b"second").unwrap();
        let to = move_into_new(
            &spool.join("tmp").join(name),
            &spool.join("new"),
            name,
            at(1_800_000_000),
        )
        .unwrap();
        assert_ne!(to, waiting_one);
        assert_eq!(std::fs::read(&waiting_one).unwrap(), b"first");
        assert_eq!(std::fs::read(&to).unwrap(), b"second");
    }

    #[test]
    fn only_stale_leftovers_are_swept_from_tmp() {
        let d = tempfile::tempdir().unwrap();
        let spool = d.path().join("s");
        deliver(&spool, b"kept in new", at(1_800_000_000)).unwrap();
        std::fs::write(spool.join("tmp").join("left.pbem"), b"half").unwrap();
        let written = DateTime::<Utc>::from(
            std::fs::metadata(spool.join("tmp").join("left.pbem"))
                .unwrap()
                .modified()
                .unwrap(),
        );
        assert_eq!(sweep_tmp(&spool, written + chrono::Duration::hours(35)), 0);
        assert_eq!(sweep_tmp(&spool, written + chrono::Duration::hours(37)), 1);
        assert_eq!(std::fs::read_dir(spool.join("tmp")).unwrap().count(), 0);
        assert_eq!(waiting(&spool), 1);
    }

    #[test]
    fn a_missing_database_folder_is_an_error_not_made() {
        let d = tempfile::tempdir().unwrap();
        let spool = dir(&d.path().join("gone").join("pbem.sqlite"));
        assert!(deliver(&spool, b"x", at(0)).is_err());
        assert!(!d.path().join("gone").exists());
    }

    #[test]
    fn one_reader_at_a_time() {
        let d = tempfile::tempdir().unwrap();
        let spool = d.path().join("s");
        deliver(&spool, b"x", at(1_800_000_000)).unwrap();
        let first = lock(&spool).unwrap().unwrap();
        let second = File::open(spool.join("lock")).unwrap();
        let try_lock = || {
            rustix::fs::flock(
                &second,
                rustix::fs::FlockOperation::NonBlockingLockExclusive,
            )
        };
        assert_eq!(try_lock(), Err(rustix::io::Errno::WOULDBLOCK));
        drop(first);
        assert_eq!(try_lock(), Ok(()));
        assert_eq!(waiting(&spool), 1, "the lock file is not a mail");
    }

    #[test]
    fn no_spool_means_nothing_waits() {
        let d = tempfile::tempdir().unwrap();
        assert!(lock(&d.path().join("none")).unwrap().is_none());
        assert_eq!(waiting(&d.path().join("none")), 0);
        assert_eq!(sweep_tmp(&d.path().join("none"), at(0)), 0);
    }
}
