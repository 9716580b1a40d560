//! Developer tooling, kept off the player's path: benchmarks (`pbem bench`), the demo (`pbem demo`) and the fault points of the crash tests.

pub mod bench;
pub mod demo;
pub mod fault;
