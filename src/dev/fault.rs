//! Fault injection for crash tests: `PBEM_FAULT=<point>` kills the process with SIGKILL at that point.
//!
//! The crash-safety test runs pbem with each point in turn and checks that a restart leaves
//! every message processed exactly once and every reply sent at least once. The points are in
//! a debug build (the tests run one) and in a release build with the `fault-injection`
//! feature; in any other release build each is an empty function the compiler removes, and
//! the variable is never read. Where they are in, an unset variable costs one cached lookup.
//!
//! Forms of the variable:
//! - `<point>`: die the first time the process passes the point;
//! - `<point>:<N>`: die the Nth time (`send:after-send:5`: after the fifth mail went out);
//! - `<fault>:<key>` for the keyed faults that test failure isolation (`process:panic:<text>`
//!   panics while processing a mail whose subject holds the text, `ingest:kill:<text>` kills
//!   the process while it reads such a mail into the store (`ingest:panic:<text>` panics
//!   there, outside the isolation of processing); `timer:panic:<game>` and
//!   `timer:error:<game>` make that game's timer panic or fail; `picture:panic:<game>` makes
//!   drawing that game's board panic).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::OnceLock;

/// The points, in the order a message passes them.
pub const POINTS: &[&str] = &[
    "ingest:before-handover",
    "ingest:before-store",
    "ingest:after-store",
    "process:before-commit",
    "process:after-commit",
    "send:after-send",
    "send:after-mark",
];

/// Whether this build has the fault points.
const BUILT_IN: bool = cfg!(any(debug_assertions, feature = "fault-injection"));

fn armed() -> Option<&'static str> {
    static FAULT: OnceLock<Option<String>> = OnceLock::new();
    FAULT
        .get_or_init(|| std::env::var("PBEM_FAULT").ok())
        .as_deref()
}

/// The armed point and after how many passes it fires (1 unless it ends in `:N`).
fn armed_point() -> Option<(&'static str, usize)> {
    let a = armed()?;
    match a.rsplit_once(':') {
        Some((name, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            Some((name, n.parse().ok()?))
        }
        _ => Some((a, 1)),
    }
}

/// Dies here, at once and without cleanup, if this point is armed (and, for `point:N`, this
/// is the Nth time the process passes it).
#[inline]
pub fn point(name: &str) {
    if !BUILT_IN {
        return;
    }
    static PASSES: AtomicUsize = AtomicUsize::new(0);
    let Some((armed, nth)) = armed_point() else {
        return;
    };
    if armed == name && PASSES.fetch_add(1, Ordering::SeqCst) + 1 == nth {
        kill();
    }
}

/// Dies here, at once and without cleanup, as the system's OOM killer ends a process.
pub fn kill() -> ! {
    let _ = signal_hook::low_level::raise(signal_hook::consts::SIGKILL);
    // SIGKILL cannot be caught; if raising failed, abort is the next best thing.
    std::process::abort();
}

/// The key of a keyed fault (`<fault>:<key>`) when that fault is armed.
#[inline]
pub fn keyed(fault: &str) -> Option<&'static str> {
    if !BUILT_IN {
        return None;
    }
    armed()?
        .strip_prefix(fault)?
        .strip_prefix(':')
        .filter(|k| !k.is_empty())
}
