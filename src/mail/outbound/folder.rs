//! A folder as a transport: each mail written durably under a hidden name, then renamed into place as `<UTC time>-<message id>.eml`, never over another file.

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{RawMail, SendError};

/// A folder takes a mail when its file appears under its name. Every file's content is
/// written and made durable first, all at once (an fsync each for a few; for many, one sync
/// of the filesystem, far cheaper than an fsync per file: about 6 ms a file with its folder
/// on a small VM); then each is renamed into place and reported at once; then the folder
/// is synced, which makes the names durable. A power cut before that last sync can lose a
/// name already reported (the mail then survives under its hidden temporary name); a crash
/// of the process cannot, and sends again at most the one mail in flight.
pub(super) fn send_each_to_folder(
    folder: &Path,
    mails: &[RawMail],
    taken: &mut dyn FnMut(usize, Result<(), SendError>) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let each = mails.len() < 8;
    let unwritable =
        |e: io::Error| SendError::transient(format!("cannot write into {}: {e}", folder.display()));
    let mut staged = Staging(Vec::with_capacity(mails.len()));
    for (i, m) in mails.iter().enumerate() {
        match stage(folder, &m.bytes, &m.message_id, each).map_err(unwritable) {
            Ok(file) => staged.0.push((i, file)),
            Err(e) => taken(i, Err(e))?,
        }
    }
    if staged.0.is_empty() {
        return Ok(());
    }
    if !each {
        if let Err(e) = sync_folder(folder) {
            let why = SendError::transient(format!("cannot sync {}: {e}", folder.display()));
            for (i, _) in std::mem::take(&mut staged.0) {
                taken(i, Err(why.clone()))?;
            }
            return Ok(());
        }
    }
    // In order, taking each from the back of the reversed list: what is left on an early
    // return is exactly what `Staging` must remove.
    staged.0.reverse();
    while let Some((i, file)) = staged.0.pop() {
        taken(i, publish(folder, &file).map(|_| ()).map_err(unwritable))?;
    }
    sync_dir(folder).map_err(|e| anyhow::anyhow!("cannot sync {}: {e}", folder.display()))
}

/// Files written but not yet in place; dropped early (an error, or a caller that stopped),
/// their temporary files are removed, and their mails are sent again later.
struct Staging(Vec<(usize, Staged)>);

impl Drop for Staging {
    fn drop(&mut self) {
        for (_, file) in &self.0 {
            let _ = fs::remove_file(&file.temp);
        }
    }
}

/// Makes the names in a folder durable (its entries, not the files' contents).
fn sync_dir(folder: &Path) -> io::Result<()> {
    fs::File::open(folder)?.sync_all()
}

/// Flushes the filesystem holding `folder` (file data and directory entries) in one call.
fn sync_folder(folder: &Path) -> io::Result<()> {
    let dir = fs::File::open(folder)?;
    rustix::fs::syncfs(&dir).map_err(io::Error::from)
}

/// Writes a mail's bytes as `<UTC time>-<message id>.eml` (sortable by time, then id) and returns
/// the path. The file appears complete or not at all (written under a hidden name, then
/// renamed into place), and an existing file is never replaced: a clash gets a `-2`, `-3`...
/// suffix.
pub fn write_to_folder(folder: &Path, bytes: &[u8], message_id: &str) -> io::Result<PathBuf> {
    let file = stage(folder, bytes, message_id, true)?;
    let path = publish(folder, &file);
    let _ = fs::remove_file(&file.temp);
    // The rename is durable only once the folder is: until then a power cut could lose a
    // mail the outbox already marks sent.
    sync_dir(folder)?;
    path
}

/// A mail written under a hidden temporary name, not yet in place.
struct Staged {
    temp: PathBuf,
    /// `<UTC time>-<message id>`, the name it gets.
    stem: String,
}

/// Writes a mail's bytes under a hidden temporary name in `folder` (fsynced when `sync`).
fn stage(folder: &Path, bytes: &[u8], message_id: &str, sync: bool) -> io::Result<Staged> {
    fs::create_dir_all(folder)?;
    let stamp = crate::edge::now().format("%Y%m%dT%H%M%S%.6fZ");
    let id: String = message_id
        .trim()
        .trim_start_matches('<')
        .trim_end_matches('>')
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '@' | '+') {
                c
            } else {
                '_'
            }
        })
        .take(120)
        .collect();
    let stem = format!("{stamp}-{id}");
    let temp = folder.join(format!(".{stem}.{}.tmp", std::process::id()));
    let written = (|| {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&temp)?;
        file.write_all(bytes)?;
        if sync {
            file.sync_all()?;
        }
        Ok(())
    })();
    match written {
        Ok(()) => Ok(Staged { temp, stem }),
        Err(e) => {
            let _ = fs::remove_file(&temp);
            Err(e)
        }
    }
}

/// Renames a staged mail into place: `<stem>.eml`, or with a `-2`, `-3`... suffix when that
/// name is taken (an existing file is never replaced).
fn publish(folder: &Path, file: &Staged) -> io::Result<PathBuf> {
    for attempt in 1.. {
        let name = if attempt == 1 {
            format!("{}.eml", file.stem)
        } else {
            format!("{}-{attempt}.eml", file.stem)
        };
        let path = folder.join(name);
        // Rename without replacing: the file appears whole under its name, never over
        // another (one directory operation, where a link and an unlink were two).
        match rustix::fs::renameat_with(
            rustix::fs::CWD,
            &file.temp,
            rustix::fs::CWD,
            &path,
            rustix::fs::RenameFlags::NOREPLACE,
        ) {
            Ok(()) => return Ok(path),
            Err(e) if e == rustix::io::Errno::EXIST => continue,
            Err(e) => return Err(e.into()),
        }
    }
    unreachable!("the attempt counter is unbounded")
}
