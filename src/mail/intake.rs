//! Where incoming mail comes from: the `Source` interface (fetch, then acknowledge only after the store committed) for a pipe and a Maildir, and reading a mail without ever holding more than the size limit in memory (an I/O edge).

use std::collections::VecDeque;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use anyhow::Context;

use super::inbound::oversize_stub;

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
    /// store holds it whole).
    spool: bool,
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
        })
    }

    fn list_new(&self) -> anyhow::Result<VecDeque<String>> {
        let new = self.dir.join("new");
        let mut names: Vec<String> = std::fs::read_dir(&new)
            .with_context(|| format!("cannot read the Maildir {}", new.display()))?
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        // Oldest first: Maildir names start with the delivery time.
        names.sort();
        Ok(names.into())
    }
}

impl Source for MaildirSource {
    fn fetch(&mut self, max: usize) -> anyhow::Result<Vec<Fetched>> {
        if self.queue.is_none() {
            self.queue = Some(self.list_new()?);
        }
        let queue = self.queue.as_mut().expect("listed above");
        let mut out = Vec::new();
        while out.len() < max {
            let Some(name) = queue.pop_front() else { break };
            let path = self.dir.join("new").join(&name);
            // Never more than the size limit in memory: a larger mail is kept as its headers.
            let read =
                std::fs::File::open(&path).and_then(|mut f| read_bounded(&mut f, self.max_bytes));
            match read {
                Ok(raw) => out.push(Fetched { name, raw }),
                // Left in new/ for the next pass; one unreadable file stops nothing.
                Err(e) => {
                    tracing::error!(file = %path.display(), error = %e, "cannot read a mail; left in new/")
                }
            }
        }
        Ok(out)
    }

    fn ack(&mut self, stored: &[Fetched]) -> anyhow::Result<()> {
        if self.spool {
            delete_stored(&self.dir.join("new"), stored);
            return Ok(());
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
