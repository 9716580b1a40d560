//! pbem's rules: every game as a pure state machine, the record format, durations, and the dice derivation; no I/O, clock or randomness (its dependencies cannot do any).

// `pub` only where another module or the application uses it.
#![warn(unreachable_pub)]

pub mod dice;
pub mod duration;
pub mod games;
pub mod invisible;
pub mod quote;
pub mod records;
pub mod robot;
