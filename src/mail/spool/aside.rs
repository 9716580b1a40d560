//! The spool's `quarantine/`: where a spool entry that cannot be read as a mail, or whose reading killed its readers twice, is moved aside once, out of `new/`, for the GM to look at.

use std::ffi::{OsStr, OsString};
use std::fs::{DirBuilder, Permissions};
use std::io::ErrorKind;
use std::os::unix::fs::{DirBuilderExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};

use anyhow::Context;

/// The folder beside `new/` that set-aside entries go to.
pub fn folder(dir: &Path) -> PathBuf {
    dir.join("quarantine")
}

/// Moves the entry `name` of `new/` into `quarantine/` (made if need be, as open as `new/`),
/// under its own name or, should one there have it, that name and a number: never replacing
/// what was set aside before. The path it got.
pub fn set_aside(dir: &Path, name: &OsStr) -> anyhow::Result<PathBuf> {
    let to_dir = folder(dir);
    match DirBuilder::new().mode(0o700).create(&to_dir) {
        Ok(()) => {
            let mode = std::fs::metadata(dir.join("new"))?.permissions().mode();
            std::fs::set_permissions(&to_dir, Permissions::from_mode(mode & 0o7777))?;
        }
        Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
        Err(e) => return Err(e).with_context(|| format!("cannot create {}", to_dir.display())),
    }
    let from = dir.join("new").join(name);
    let cwd = rustix::fs::CWD;
    for n in 0..100 {
        let mut to_name = OsString::from(name);
        if n > 0 {
            to_name.push(format!(".{n}"));
        }
        let to = to_dir.join(to_name);
        match rustix::fs::renameat_with(cwd, &from, cwd, &to, rustix::fs::RenameFlags::NOREPLACE) {
            Ok(()) => return Ok(to),
            Err(rustix::io::Errno::EXIST) => continue,
            // A filesystem without the flag: a name taken is checked first instead.
            Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {
                if std::fs::symlink_metadata(&to).is_ok() {
                    continue;
                }
                std::fs::rename(&from, &to)
                    .with_context(|| format!("cannot move {} aside", from.display()))?;
                return Ok(to);
            }
            Err(e) => {
                return Err(anyhow::Error::new(e))
                    .with_context(|| format!("cannot move {} aside", from.display()))
            }
        }
    }
    anyhow::bail!("no free name in {}", to_dir.display())
}

/// How many entries were set aside (none when there is no such folder).
pub fn count(dir: &Path) -> usize {
    std::fs::read_dir(folder(dir)).map_or(0, |d| d.filter_map(Result::ok).count())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_entry_set_aside_never_replaces_another() {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir(d.path().join("new")).unwrap();
        std::fs::write(d.path().join("new/m"), "first").unwrap();
        let first = set_aside(d.path(), OsStr::new("m")).unwrap();
        std::fs::write(d.path().join("new/m"), "second").unwrap();
        let second = set_aside(d.path(), OsStr::new("m")).unwrap();
        assert_ne!(first, second);
        assert_eq!(std::fs::read(&first).unwrap(), b"first");
        assert_eq!(std::fs::read(&second).unwrap(), b"second");
        assert_eq!(count(d.path()), 2);
        assert_eq!(std::fs::read_dir(d.path().join("new")).unwrap().count(), 0);
    }
}
