//! `pbem demo`: a fresh database where two players play a seed game to the end.

use std::path::Path;

/// Runs the demo in `dir` (a new temporary folder when `None`).
pub fn run(dir: Option<&Path>) -> anyhow::Result<i32> {
    let _ = dir;
    anyhow::bail!("the demo needs the Dice Rink engine")
}
