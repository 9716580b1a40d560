//! Fault injection for crash tests: `PBEM_FAULT=<point>` kills the process with SIGKILL at that point.
//!
//! The crash-safety test runs pbem with each point in turn and checks that a restart leaves
//! every message processed exactly once and every reply sent at least once. Outside tests the
//! variable is unset and a point costs one cached lookup.

use std::sync::OnceLock;

/// The points, in the order a message passes them.
pub const POINTS: &[&str] = &[
    "ingest:before-store",
    "ingest:after-store",
    "process:before-commit",
    "process:after-commit",
    "send:after-send",
    "send:after-mark",
];

fn armed() -> Option<&'static str> {
    static FAULT: OnceLock<Option<String>> = OnceLock::new();
    FAULT
        .get_or_init(|| std::env::var("PBEM_FAULT").ok())
        .as_deref()
}

/// Dies here, at once and without cleanup, if this point is armed.
pub fn point(name: &str) {
    if armed() == Some(name) {
        let _ = signal_hook::low_level::raise(signal_hook::consts::SIGKILL);
        // SIGKILL cannot be caught; if raising failed, abort is the next best thing.
        std::process::abort();
    }
}
