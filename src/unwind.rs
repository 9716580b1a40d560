//! Panics turned into errors at the boundaries where one failure must not take the rest down.

use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `f`, a panic becoming an error that carries its message. Callers use it where the
/// work is undone anyway after a failure (a rolled-back savepoint or transaction, a step
/// that is tried again), so state a panic left half-changed is never seen; hence
/// `AssertUnwindSafe`.
pub fn catch<T>(f: impl FnOnce() -> anyhow::Result<T>) -> anyhow::Result<T> {
    catch_unwind(AssertUnwindSafe(f))
        .unwrap_or_else(|payload| Err(anyhow::anyhow!("panic: {}", text(payload.as_ref()))))
}

/// The message a panic carried, when it is text.
pub fn text(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "(no message)".to_string())
}
