//! One `pbem serve` per database: an advisory lock beside it, held while the daemon runs, so a second one refuses to start instead of answering the same mail and running the same timers.

use std::fs::{File, OpenOptions};
use std::io::{Read as _, Seek as _, Write as _};
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Path, PathBuf};

use anyhow::Context as _;
use rustix::fs::{flock, FlockOperation};

/// The lock file of the daemon serving `db`.
fn lock_path(db: &Path) -> PathBuf {
    let mut name = db.as_os_str().to_owned();
    name.push("-serve.lock");
    PathBuf::from(name)
}

/// Makes this process the one daemon of `db` until the returned file is dropped (the kernel
/// lets go of the lock when the process dies, however it dies). Another daemon holding it is
/// an error that names its process id.
pub(super) fn take(db: &Path) -> anyhow::Result<File> {
    let path = lock_path(db);
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o600)
        .open(&path)
        .with_context(|| format!("cannot open {}", path.display()))?;
    match flock(&file, FlockOperation::NonBlockingLockExclusive) {
        Ok(()) => {}
        Err(rustix::io::Errno::WOULDBLOCK) => {
            let mut pid = String::new();
            let _ = file.read_to_string(&mut pid);
            let pid = match pid.trim() {
                "" => String::new(),
                p => format!(" (process {p})"),
            };
            anyhow::bail!(
                "another pbem serve{pid} already serves {}: one daemon per database; stop \
                 that one first",
                db.display()
            );
        }
        Err(e) => {
            return Err(e).with_context(|| format!("cannot lock {}", path.display()));
        }
    }
    // The holder's process id, for the refusal a second daemon prints.
    file.set_len(0)?;
    file.rewind()?;
    writeln!(file, "{}", std::process::id())?;
    Ok(file)
}
