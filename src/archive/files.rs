//! The archive's files written only when their content changed, and counted.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::Context;

/// The archive's folder, what this run wrote into it and what it found already right.
pub(super) struct Files {
    root: PathBuf,
    pub(super) written: usize,
    pub(super) unchanged: usize,
    /// Every file this run stands behind (written, unchanged or kept): what a game's folder
    /// holds beyond them is stale and goes.
    pub(super) kept: BTreeSet<PathBuf>,
}

impl Files {
    pub(super) fn new(root: &Path) -> anyhow::Result<Files> {
        std::fs::create_dir_all(root)
            .with_context(|| format!("cannot create the archive folder {}", root.display()))?;
        Ok(Files {
            root: root.to_path_buf(),
            written: 0,
            unchanged: 0,
            kept: BTreeSet::new(),
        })
    }

    pub(super) fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Writes `bytes` at `rel` unless the file already holds exactly them (a rerun over an
    /// unchanged store writes nothing, so a web server's caches and a sync stay quiet). The
    /// file is replaced whole (a temporary beside it, then renamed): a reader never sees half.
    pub(super) fn put(&mut self, rel: &str, bytes: &[u8]) -> anyhow::Result<()> {
        let path = self.path(rel);
        self.kept.insert(path.clone());
        if std::fs::read(&path).is_ok_and(|old| old == bytes) {
            self.unchanged += 1;
            return Ok(());
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        let tmp = path.with_extension("tmp~");
        std::fs::write(&tmp, bytes).with_context(|| format!("cannot write {}", tmp.display()))?;
        std::fs::rename(&tmp, &path).with_context(|| format!("cannot write {}", path.display()))?;
        self.written += 1;
        Ok(())
    }

    /// Marks a file as still right without reading it (a game skipped, a picture kept).
    pub(super) fn keep(&mut self, rel: &str) {
        self.kept.insert(self.path(rel));
    }

    /// Whether a file is there (a picture drawn by an earlier run).
    pub(super) fn exists(&self, rel: &str) -> bool {
        self.path(rel).is_file()
    }

    /// Removes the files of a folder that this run did not stand behind (the plies a
    /// rollback took back); returns how many went.
    pub(super) fn prune(&mut self, rel_dir: &str) -> anyhow::Result<usize> {
        let dir = self.path(rel_dir);
        let Ok(entries) = std::fs::read_dir(&dir) else {
            return Ok(0);
        };
        let mut removed = 0;
        for e in entries.flatten() {
            let p = e.path();
            if p.is_file() && !self.kept.contains(&p) {
                std::fs::remove_file(&p)
                    .with_context(|| format!("cannot remove {}", p.display()))?;
                removed += 1;
            }
        }
        Ok(removed)
    }
}
