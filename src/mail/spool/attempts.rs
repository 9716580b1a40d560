//! The attempt marker of the spool (and of the Maildir `serve` reads): which mail each reader had in hand, so that a mail whose reading kills its readers is not read a third time.
//!
//! A reader (one at a time: the spool's lock, or the one daemon that reads its Maildir)
//! appends `+NAME` to `<folder>/reading`
//! before it parses a mail and `=` before its batch commits, and cuts the file back once the
//! batch is acknowledged or failed with an error. So whatever a new reader finds past the
//! kept part was left by a reader that died (killed, out of memory) or panicked, and the last
//! `+NAME` with no `=` after it is the mail it had in hand: that mail gets a death, kept as a
//! `!NAME` line while it waits in `new/`. A death between a batch's `=` and its
//! acknowledgement is no mail's fault, and counts for none.
//!
//! Nothing here is synced: the marker guards against a process's death, which loses no write
//! the kernel took (one small write a mail, no fsync, on the mail path). A power cut may forget
//! it, which costs the mail in hand one more attempt.

use std::collections::HashMap;
use std::fs::{File, OpenOptions, Permissions};
use std::io::{Read as _, Write as _};
use std::os::unix::fs::{OpenOptionsExt as _, PermissionsExt as _};
use std::path::Path;

use anyhow::Context;

/// The deaths a mail may cause: the reader that finds this many reads it no more.
pub const MAX_DEATHS: u32 = 2;

/// The marker of the spool a reader holds the lock of.
pub struct Attempts {
    file: File,
    /// The length of the `!NAME` lines: what the file is cut back to after a batch.
    kept: u64,
    deaths: HashMap<String, u32>,
}

impl Attempts {
    /// Opens the marker of the spool `dir` (made if need be) and reads what dead readers
    /// left; `waiting` are the names in `new/` (deaths of mails gone from it are forgotten).
    pub fn open(dir: &Path, waiting: &[String]) -> anyhow::Result<Attempts> {
        let mut file = open_marker(dir)?;
        let mut text = Vec::new();
        file.read_to_end(&mut text)?;
        let (mut deaths, left) = tally(&String::from_utf8_lossy(&text));
        let known = deaths.len();
        deaths.retain(|name, _| waiting.contains(name));
        let forgotten = deaths.len() < known;
        let mut attempts = Attempts {
            file,
            kept: text.len() as u64,
            deaths,
        };
        if left || forgotten {
            attempts.rewrite()?;
        }
        Ok(attempts)
    }

    /// How many readers died with this mail in hand.
    pub fn deaths(&self, name: &str) -> u32 {
        self.deaths.get(name).copied().unwrap_or(0)
    }

    /// This reader takes the mail `name` in hand (parses and stores it).
    pub fn begin(&mut self, name: &str) -> anyhow::Result<()> {
        self.write(&format!("+{name}\n"))
    }

    /// No mail in hand: the batch commits now (or failed with an error).
    pub fn put_down(&mut self) -> anyhow::Result<()> {
        self.write("=\n")
    }

    /// The batch is acknowledged: its lines go.
    pub fn settle(&mut self) -> anyhow::Result<()> {
        self.file
            .set_len(self.kept)
            .context("cannot cut back the spool's attempt marker")
    }

    fn write(&mut self, line: &str) -> anyhow::Result<()> {
        self.file
            .write_all(line.as_bytes())
            .context("cannot write the spool's attempt marker")
    }

    /// The file as the deaths alone (a death between the cut and the write forgets them:
    /// one more attempt for those mails, no more).
    fn rewrite(&mut self) -> anyhow::Result<()> {
        let mut names: Vec<(&String, &u32)> = self.deaths.iter().collect();
        names.sort();
        let text: String = names
            .into_iter()
            .flat_map(|(name, n)| std::iter::repeat_n(format!("!{name}\n"), *n as usize))
            .collect();
        self.file.set_len(0)?;
        self.file.write_all(text.as_bytes())?;
        self.kept = text.len() as u64;
        Ok(())
    }
}

/// The marker file, made if need be: as open as the spool's lock file, since in a spool shared
/// with an MTA's user a worker of that user reads the spool too (only its maker may change its
/// mode).
fn open_marker(dir: &Path) -> anyhow::Result<File> {
    let path = dir.join("reading");
    let mut options = OpenOptions::new();
    options.read(true).append(true);
    match options.open(&path) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            let file = options
                .create(true)
                .mode(0o600)
                .open(&path)
                .with_context(|| format!("cannot make {}", path.display()))?;
            if super::shared(dir) {
                file.set_permissions(Permissions::from_mode(0o660))?;
            }
            Ok(file)
        }
        opened => opened.with_context(|| format!("cannot open {}", path.display())),
    }
}

/// The deaths the marker's text records, and whether it holds lines of a reader that did not
/// settle (to be rewritten as deaths alone).
fn tally(text: &str) -> (HashMap<String, u32>, bool) {
    let mut deaths: HashMap<String, u32> = HashMap::new();
    let (mut in_hand, mut left) = (None, false);
    // Only whole lines: a line cut short by a power cut says nothing sure.
    for line in text
        .split_inclusive('\n')
        .filter_map(|l| l.strip_suffix('\n'))
    {
        if let Some(name) = line.strip_prefix('!') {
            *deaths.entry(name.to_string()).or_default() += 1;
        } else if let Some(name) = line.strip_prefix('+') {
            (in_hand, left) = (Some(name), true);
        } else {
            (in_hand, left) = (None, true);
        }
    }
    if let Some(name) = in_hand {
        *deaths.entry(name.to_string()).or_default() += 1;
    }
    (deaths, left)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(n: &[&str]) -> Vec<String> {
        n.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn the_mail_in_hand_at_a_death_is_blamed_and_no_other() {
        let d = tempfile::tempdir().unwrap();
        let waiting = names(&["a", "b", "c"]);
        let mut first = Attempts::open(d.path(), &waiting).unwrap();
        first.begin("a").unwrap();
        first.begin("b").unwrap();
        drop(first); // died with b in hand
        let mut second = Attempts::open(d.path(), &waiting).unwrap();
        assert_eq!((second.deaths("a"), second.deaths("b")), (0, 1));
        second.begin("b").unwrap();
        second.begin("c").unwrap();
        second.put_down().unwrap();
        drop(second); // died while committing: no mail's fault
        let third = Attempts::open(d.path(), &waiting).unwrap();
        assert_eq!((third.deaths("b"), third.deaths("c")), (1, 0));
    }

    /// In a spool shared with an MTA's user, that user's worker writes the marker too.
    #[test]
    fn in_a_shared_spool_the_marker_is_the_groups_too() {
        let d = tempfile::tempdir().unwrap();
        std::fs::set_permissions(d.path(), Permissions::from_mode(0o2770)).unwrap();
        drop(Attempts::open(d.path(), &[]).unwrap());
        let mode = std::fs::metadata(d.path().join("reading"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o660);
        assert!(
            Attempts::open(d.path(), &[]).is_ok(),
            "opened again as it is"
        );
    }

    #[test]
    fn a_settled_batch_leaves_only_the_deaths_and_a_gone_mail_is_forgotten() {
        let d = tempfile::tempdir().unwrap();
        let mut first = Attempts::open(d.path(), &names(&["a", "b"])).unwrap();
        first.begin("a").unwrap();
        drop(first);
        let mut second = Attempts::open(d.path(), &names(&["a", "b"])).unwrap();
        second.begin("a").unwrap();
        drop(second);
        let mut third = Attempts::open(d.path(), &names(&["a", "b"])).unwrap();
        assert_eq!(third.deaths("a"), MAX_DEATHS);
        third.begin("b").unwrap();
        third.put_down().unwrap();
        third.settle().unwrap();
        assert_eq!(
            std::fs::read_to_string(d.path().join("reading")).unwrap(),
            "!a\n!a\n"
        );
        drop(third);
        let fourth = Attempts::open(d.path(), &names(&["b"])).unwrap();
        assert_eq!(fourth.deaths("a"), 0);
        drop(fourth);
        assert_eq!(
            std::fs::read_to_string(d.path().join("reading")).unwrap(),
            ""
        );
    }
}
