//! Where incoming mail comes from: the `Source` interface (fetch, then acknowledge only after the store committed) for a pipe, a Maildir and the spool (whose entries that cannot be read, or killed their readers, are set aside), and reading a mail without ever holding more than the size limit in memory, nor a batch more than its bound (an I/O edge).

use std::collections::VecDeque;
use std::ffi::OsStr;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::inbound::oversize_stub;
use super::spool::{Attempts, MAX_DEATHS};

/// Reads a whole mail, but at most `max` bytes of it into memory: a larger mail is read to its
/// end (so the MTA's pipe is drained and it sees success) and comes back as its headers with
/// the real size (`inbound::oversize_stub`), to be refused without storing the body.
pub fn read_bounded(reader: &mut impl Read, max: usize) -> io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(max.min(64 * 1024));
    reader
        .by_ref()
        .take(max as u64 + 1)
        .read_to_end(&mut head)?;
    if head.len() <= max {
        return Ok(head);
    }
    let rest = io::copy(reader, &mut io::sink())?;
    Ok(oversize_stub(&head, head.len() as u64 + rest))
}

/// One mail taken from a source and not yet acknowledged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fetched {
    /// The source's own name for it (a Maildir file name; empty for a pipe).
    pub name: String,
    pub raw: Vec<u8>,
}

/// A place mail arrives in. The caller stores what `fetch` gives, commits, and only then
/// calls `ack`, so a crash in between fetches the same mail again (and the store's dedupe
/// key makes that harmless): no mail is lost between a source and the store.
pub trait Source {
    /// Up to `max` mails not fetched before in this pass; empty when there are no more.
    fn fetch(&mut self, max: usize) -> anyhow::Result<Vec<Fetched>>;
    /// These mails are stored: the source may let go of them.
    fn ack(&mut self, stored: &[Fetched]) -> anyhow::Result<()>;
    /// Up to `max` mails of at most `bytes` in all (one larger mail alone when it is the
    /// first), so a batch's memory is bounded whatever the backlog. A source that cannot tell
    /// a mail's size before reading it bounds the count only.
    fn fetch_within(&mut self, max: usize, bytes: usize) -> anyhow::Result<Vec<Fetched>> {
        let _ = bytes;
        self.fetch(max)
    }
    /// The caller takes this mail of the batch in hand: it parses and stores it next.
    fn begin(&mut self, _mail: &Fetched) -> anyhow::Result<()> {
        Ok(())
    }
    /// No mail in hand any more: the batch commits next, or it failed with an error.
    fn put_down(&mut self) -> anyhow::Result<()> {
        Ok(())
    }
    /// What the source moved aside since it was last asked, each to be told to the GM once.
    fn set_aside(&mut self) -> Vec<Aside> {
        Vec::new()
    }
}

/// An entry of the spool moved aside (`mail::spool::aside`), not read again.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Aside {
    /// Its name in `new/` (as UTF-8 as it goes).
    pub name: String,
    /// Where it went.
    pub to: PathBuf,
    pub why: String,
}

/// One mail on a pipe (`pbem ingest` under an MTA): acknowledged by exiting 0.
pub struct PipeSource<R: Read> {
    reader: Option<R>,
    max_bytes: usize,
}

impl<R: Read> PipeSource<R> {
    pub fn new(reader: R, max_bytes: usize) -> PipeSource<R> {
        PipeSource {
            reader: Some(reader),
            max_bytes,
        }
    }
}

impl<R: Read> Source for PipeSource<R> {
    fn fetch(&mut self, max: usize) -> anyhow::Result<Vec<Fetched>> {
        match self.reader.take() {
            Some(mut r) if max > 0 => {
                let raw =
                    read_bounded(&mut r, self.max_bytes).context("cannot read the message")?;
                Ok(vec![Fetched {
                    name: String::new(),
                    raw,
                }])
            }
            _ => Ok(Vec::new()),
        }
    }

    fn ack(&mut self, _stored: &[Fetched]) -> anyhow::Result<()> {
        Ok(())
    }
}

/// A Maildir: mail is read from `new/` and moved to `cur/` once stored. Missing `new/`, `cur/`
/// or `tmp/` are made (a Maildir is often made by its first delivery, and a GM may create only
/// the folder); a missing Maildir itself is an error, tried again by `serve` later: it may be
/// a volume not mounted yet, and creating it would hide that.
pub struct MaildirSource {
    dir: PathBuf,
    max_bytes: usize,
    /// The names listed in `new/` at the first fetch, not yet fetched.
    queue: Option<VecDeque<String>>,
    /// Moves stored mail to `cur/` on a thread of its own, while the next batch is played
    /// (a rename searches both folders, which on some filesystems is a linear scan: a
    /// seventh of a pass's time when done in line). Dropping the source waits for it, so
    /// the next pass lists `new/` only once every stored mail has left it.
    mover: Option<Mover>,
    /// pbem's own spool (`mail::spool`): a stored mail is deleted, not kept in `cur/` (the
    /// store holds it whole), and an entry that cannot be read, or killed its readers, is
    /// moved aside.
    spool: bool,
    /// The spool's attempt marker, once it is listed.
    attempts: Option<Attempts>,
    /// Entries moved aside and not yet told.
    aside: Vec<Aside>,
}

/// The thread that moves stored mail from `new/` to `cur/`.
struct Mover {
    moves: std::sync::mpsc::Sender<Vec<(PathBuf, PathBuf)>>,
    handle: std::thread::JoinHandle<()>,
}

impl Mover {
    fn start() -> Mover {
        let (moves, rx) = std::sync::mpsc::channel::<Vec<(PathBuf, PathBuf)>>();
        let handle = std::thread::spawn(move || {
            for batch in rx {
                move_to_cur(&batch);
            }
        });
        Mover { moves, handle }
    }
}

/// Renames each stored mail from its `new/` path to its `cur/` path. One that cannot be moved
/// is logged and left in new/, where it is read again and found a duplicate: harmless.
fn move_to_cur(batch: &[(PathBuf, PathBuf)]) {
    for (from, to) in batch {
        if let Err(e) = std::fs::rename(from, to) {
            tracing::error!(file = %from.display(), error = %e, "cannot move a stored mail to cur/");
        }
    }
}

/// Deletes stored mails from the spool. One that cannot be deleted is logged and left, to be
/// read again and found a duplicate: harmless.
fn delete_stored(new: &Path, stored: &[Fetched]) {
    for f in stored {
        let path = new.join(&f.name);
        if let Err(e) = std::fs::remove_file(&path) {
            tracing::error!(file = %path.display(), error = %e, "cannot delete a stored mail from the spool");
        }
    }
}

impl Drop for MaildirSource {
    fn drop(&mut self) {
        if let Some(Mover { moves, handle }) = self.mover.take() {
            drop(moves);
            let _ = handle.join();
        }
    }
}

impl MaildirSource {
    pub fn open(dir: &Path, max_bytes: usize) -> anyhow::Result<MaildirSource> {
        if !dir.is_dir() {
            anyhow::bail!("the Maildir {} does not exist", dir.display());
        }
        for sub in ["new", "cur", "tmp"] {
            let path = dir.join(sub);
            std::fs::create_dir_all(&path)
                .with_context(|| format!("cannot create {}", path.display()))?;
        }
        Ok(MaildirSource {
            dir: dir.to_path_buf(),
            max_bytes,
            queue: None,
            mover: None,
            spool: false,
            attempts: None,
            aside: Vec::new(),
        })
    }

    /// The spool `pbem ingest` writes (`mail::spool`), read the same way; `None` while there
    /// is none (no mail was ever spooled).
    pub fn spool(dir: &Path, max_bytes: usize) -> Option<MaildirSource> {
        dir.join("new").is_dir().then(|| MaildirSource {
            dir: dir.to_path_buf(),
            max_bytes,
            queue: None,
            mover: None,
            spool: true,
            attempts: None,
            aside: Vec::new(),
        })
    }

    /// `new/`, oldest first (Maildir names start with the delivery time), less what is moved
    /// aside now: entries with a name the attempt marker cannot hold (not UTF-8, or with a
    /// control character) and mails whose reading killed `MAX_DEATHS` readers, in the spool
    /// and in a Maildir alike (one mail that kills `serve` must not stop its Maildir either).
    /// Every entry is listed, not only files: one that is no mail is found when opened.
    fn list_new(&mut self) -> anyhow::Result<VecDeque<String>> {
        let new = self.dir.join("new");
        let mut names = Vec::new();
        let entries =
            std::fs::read_dir(&new).with_context(|| format!("cannot read {}", new.display()))?;
        for e in entries.filter_map(Result::ok) {
            match e.file_name().into_string() {
                Ok(n) if !n.chars().any(char::is_control) => names.push(n),
                Ok(n) => self.move_aside(OsStr::new(&n), "its name holds a control character"),
                Err(n) => self.move_aside(&n, "its name is not UTF-8"),
            }
        }
        names.sort();
        let attempts = Attempts::open(&self.dir, &names)?;
        let mut kept = VecDeque::with_capacity(names.len());
        for name in names {
            match attempts.deaths(&name) >= MAX_DEATHS {
                true => self.move_aside(
                    OsStr::new(&name),
                    "its readers died twice while reading it (killed, out of memory, or a \
                     panic), so it is not read a third time",
                ),
                false => kept.push_back(name),
            }
        }
        self.attempts = Some(attempts);
        Ok(kept)
    }

    /// Moves a spool entry aside, to be told to the GM; one that cannot be moved is left in
    /// `new/`, logged at each read.
    fn move_aside(&mut self, name: &OsStr, why: &str) {
        let shown = name.to_string_lossy().into_owned();
        match crate::mail::spool::aside::set_aside(&self.dir, name) {
            Ok(to) => {
                tracing::error!(file = %shown, to = %to.display(), "mail set aside: {why}");
                self.aside.push(Aside {
                    name: shown,
                    to,
                    why: why.to_string(),
                });
            }
            Err(e) => {
                tracing::error!(file = %shown, error = %format!("{e:#}"), "cannot set aside a mail ({why}); left in new/")
            }
        }
    }

    /// A mail that cannot be opened or read: in the spool, moved aside (unless the trouble is
    /// the process's, out of files or memory); in a Maildir, left in `new/` for the next pass.
    fn unreadable(&mut self, name: &str, e: &io::Error) {
        let ours = matches!(
            e.raw_os_error().map(rustix::io::Errno::from_raw_os_error),
            Some(
                rustix::io::Errno::MFILE
                    | rustix::io::Errno::NFILE
                    | rustix::io::Errno::NOMEM
                    | rustix::io::Errno::INTR
                    | rustix::io::Errno::AGAIN
            )
        );
        let path = self.dir.join("new").join(name);
        match self.spool && !ours {
            true => self.move_aside(OsStr::new(name), &format!("it cannot be read: {e}")),
            // Left in new/ for the next pass; one unreadable file stops nothing.
            false => {
                tracing::error!(file = %path.display(), error = %e, "cannot read a mail; left in new/")
            }
        }
    }
}

/// Opens a mail file: never through a symbolic link, never a FIFO's wait, and only a regular
/// file; with its size.
fn open_mail(path: &Path) -> io::Result<(std::fs::File, u64)> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let file = std::fs::File::from(rustix::fs::open(path, flags, Mode::empty())?);
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok((file, meta.len()))
}

impl Source for MaildirSource {
    fn fetch(&mut self, max: usize) -> anyhow::Result<Vec<Fetched>> {
        self.fetch_within(max, usize::MAX)
    }

    fn fetch_within(&mut self, max: usize, bytes: usize) -> anyhow::Result<Vec<Fetched>> {
        if self.queue.is_none() {
            let listed = self.list_new()?;
            self.queue = Some(listed);
        }
        let mut out = Vec::new();
        let mut held = 0;
        while out.len() < max {
            let Some(name) = self.queue.as_mut().and_then(VecDeque::pop_front) else {
                break;
            };
            let (mut file, size) = match open_mail(&self.dir.join("new").join(&name)) {
                Ok(opened) => opened,
                // Taken by another reader of the Maildir since it was listed.
                Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
                Err(e) => {
                    self.unreadable(&name, &e);
                    continue;
                }
            };
            // Never more than the size limit of one mail in memory (a larger mail is kept
            // as its headers), nor than `bytes` for the batch but for its first mail.
            let cost = size.min(self.max_bytes as u64 + 1) as usize;
            if !out.is_empty() && held + cost > bytes {
                self.queue.as_mut().expect("listed above").push_front(name);
                break;
            }
            match read_bounded(&mut file, self.max_bytes) {
                Ok(raw) => {
                    held += raw.len();
                    out.push(Fetched { name, raw });
                }
                Err(e) => self.unreadable(&name, &e),
            }
        }
        Ok(out)
    }

    fn begin(&mut self, mail: &Fetched) -> anyhow::Result<()> {
        match &mut self.attempts {
            Some(a) => a.begin(&mail.name),
            None => Ok(()),
        }
    }

    fn put_down(&mut self) -> anyhow::Result<()> {
        match &mut self.attempts {
            Some(a) => a.put_down(),
            None => Ok(()),
        }
    }

    fn set_aside(&mut self) -> Vec<Aside> {
        std::mem::take(&mut self.aside)
    }

    fn ack(&mut self, stored: &[Fetched]) -> anyhow::Result<()> {
        if self.spool {
            delete_stored(&self.dir.join("new"), stored);
            if let Some(a) = &mut self.attempts {
                a.settle()?;
            }
            return Ok(());
        }
        if let Some(a) = &mut self.attempts {
            a.settle()?;
        }
        let batch: Vec<(PathBuf, PathBuf)> = stored
            .iter()
            .map(|f| {
                let mut cur_name = f.name.clone();
                if !cur_name.contains(":2,") {
                    cur_name.push_str(":2,S");
                }
                (
                    self.dir.join("new").join(&f.name),
                    self.dir.join("cur").join(cur_name),
                )
            })
            .collect();
        // A few mails (a pass of a daemon that keeps up) are moved at once: a thread costs
        // more than their renames.
        if batch.len() < 32 {
            move_to_cur(&batch);
            return Ok(());
        }
        let mover = self.mover.get_or_insert_with(Mover::start);
        if let Err(std::sync::mpsc::SendError(batch)) = mover.moves.send(batch) {
            // The thread is gone: move them here.
            move_to_cur(&batch);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_mail_within_the_limit_is_read_whole() {
        let mail = b"From: a@b\r\n\r\nhello\r\n".to_vec();
        assert_eq!(read_bounded(&mut &mail[..], 1000).unwrap(), mail);
    }

    #[test]
    fn a_larger_mail_keeps_only_its_headers_and_its_size() {
        let mut mail = b"From: a@b\r\nSubject: big\r\n\r\n".to_vec();
        mail.extend(std::iter::repeat_n(b'x', 100_000));
        let kept = read_bounded(&mut &mail[..], 4096).unwrap();
        let text = String::from_utf8(kept).unwrap();
        assert!(text.starts_with("From: a@b\r\nSubject: big\r\n"), "{text}");
        assert!(
            text.contains(&format!("X-Pbem-Oversize: {}\r\n", mail.len())),
            "{text}"
        );
        assert!(!text.contains("xxx"));
        let inb = crate::mail::inbound::parse(text.as_bytes());
        assert_eq!(inb.size, mail.len());
        assert_eq!(inb.subject, "big");
    }

    #[test]
    fn a_maildir_gives_its_mail_in_order_and_keeps_it_until_acknowledged() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("new")).unwrap();
        for (name, text) in [("2.b", "second"), ("1.a", "first"), ("3.c", "third")] {
            std::fs::write(dir.path().join("new").join(name), text).unwrap();
        }
        let mut src = MaildirSource::open(dir.path(), 1000).unwrap();
        let first = src.fetch(2).unwrap();
        let names: Vec<&str> = first.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names, ["1.a", "2.b"]);
        assert_eq!(first[0].raw, b"first");
        // Not acknowledged: still in new/ (a crash now reads them again).
        assert!(dir.path().join("new/1.a").exists());
        src.ack(&first).unwrap();
        assert_eq!(src.fetch(2).unwrap().len(), 1);
        assert!(src.fetch(2).unwrap().is_empty());
        // The moves are done once the source is gone (they run beside the next batch).
        drop(src);
        assert!(dir.path().join("cur/1.a:2,S").exists());
        assert!(dir.path().join("cur/2.b:2,S").exists());
        assert!(
            dir.path().join("new/3.c").exists(),
            "never acknowledged: stays"
        );
        assert!(!dir.path().join("new/1.a").exists());
    }

    #[test]
    fn the_spool_gives_its_mail_oldest_first_and_deletes_it_once_acknowledged() {
        let dir = tempfile::tempdir().unwrap();
        let spool = dir.path().join("pbem.sqlite-spool");
        assert!(MaildirSource::spool(&spool, 1000).is_none(), "no spool yet");
        let late = chrono::DateTime::from_timestamp(1_800_000_100, 0).unwrap();
        let early = chrono::DateTime::from_timestamp(1_800_000_000, 0).unwrap();
        crate::mail::spool::deliver(&spool, b"late", late).unwrap();
        crate::mail::spool::deliver(&spool, b"early", early).unwrap();
        let mut src = MaildirSource::spool(&spool, 1000).unwrap();
        let got = src.fetch(10).unwrap();
        let raws: Vec<&[u8]> = got.iter().map(|f| f.raw.as_slice()).collect();
        assert_eq!(raws, [b"early".as_slice(), b"late".as_slice()]);
        src.ack(&got[..1]).unwrap();
        drop(src);
        assert_eq!(
            crate::mail::spool::waiting(&spool),
            1,
            "only the acknowledged one goes"
        );
        assert!(!spool.join("cur").exists(), "the spool keeps no copies");
    }

    #[test]
    fn a_large_batch_is_moved_to_cur_by_the_time_the_source_is_gone() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("new")).unwrap();
        for i in 0..40 {
            std::fs::write(dir.path().join("new").join(format!("{i:03}.m")), "x").unwrap();
        }
        let mut src = MaildirSource::open(dir.path(), 1000).unwrap();
        let all = src.fetch(100).unwrap();
        assert_eq!(all.len(), 40);
        src.ack(&all[..35]).unwrap();
        drop(src);
        let cur = std::fs::read_dir(dir.path().join("cur")).unwrap().count();
        let new = std::fs::read_dir(dir.path().join("new")).unwrap().count();
        assert_eq!((cur, new), (35, 5));
    }

    #[test]
    fn a_pipe_gives_one_mail() {
        let mut src = PipeSource::new(&b"From: a@b\r\n\r\nhi"[..], 1000);
        assert_eq!(src.fetch(10).unwrap().len(), 1);
        assert!(src.fetch(10).unwrap().is_empty());
    }
}
