//! The CPU of every process a bench starts and of theirs: the bench is their subreaper, so a background worker that `pbem ingest` detached (its parent gone) is reparented to the bench and counted when reaped.

use std::time::{Duration, Instant};

use anyhow::Context;

/// Makes this process the reaper of its orphaned descendants (Linux's child subreaper): a
/// worker whose `pbem ingest` exited becomes this process's child, not init's, and its CPU
/// joins this process's children's CPU (`children_cpu`) when `reap` waits for it.
pub(super) fn adopt_descendants() -> anyhow::Result<()> {
    rustix::process::set_child_subreaper(Some(rustix::process::getpid()))
        .context("cannot become the subreaper of the bench's processes")
}

/// Waits for every child that has ended (adopted ones included) without blocking; how many.
/// Only while no `std::process::Child` of the caller's is to be waited for but ones it kills
/// and ignores the status of: this may reap any child.
pub(super) fn reap_ended() -> usize {
    let mut n = 0;
    while let Ok(Some(_)) = rustix::process::wait(rustix::process::WaitOptions::NOHANG) {
        n += 1;
    }
    n
}

/// Waits until this process has no child left (a lingering worker ends a few seconds after
/// its last mail), at most `limit`.
pub(super) fn reap_all(limit: Duration) -> anyhow::Result<()> {
    let t = Instant::now();
    loop {
        match rustix::process::wait(rustix::process::WaitOptions::NOHANG) {
            Ok(Some(_)) => continue,
            Err(rustix::io::Errno::CHILD) => return Ok(()),
            Ok(None) if t.elapsed() < limit => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => anyhow::bail!("the bench's processes still run after {limit:?}"),
            Err(e) => return Err(anyhow::Error::new(e).context("cannot wait for a child")),
        }
    }
}

/// User and system CPU seconds of this process's children that were waited for, theirs
/// included (`/proc/self/stat`, fields 16 and 17, in the kernel's fixed 100 ticks a second).
pub(super) fn children_cpu() -> anyhow::Result<(f64, f64)> {
    let stat = std::fs::read_to_string("/proc/self/stat")?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = stat
        .rsplit_once(')')
        .map(|(_, r)| r)
        .context("unreadable /proc/self/stat")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state): field k is fields[k - 3].
    let tick = |k: usize| -> anyhow::Result<f64> {
        Ok(fields
            .get(k - 3)
            .context("short /proc/self/stat")?
            .parse::<f64>()?
            / 100.0)
    };
    Ok((tick(16)?, tick(17)?))
}
