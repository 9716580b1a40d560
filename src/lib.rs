//! pbem: a play-by-email game master (library; the `pbem` binary is a thin front end).

// `pub` only where another module (or the tests, through these `pub mod`s) uses it.
#![warn(unreachable_pub)]

// The rules live in their own crate; re-exported so `crate::games` (and `pbem::games`) work.
pub use pbem_rules::{dice, duration, games, invisible, quote, records, robot};

// First: its `print!` and `println!` replace std's in every module below (a closed pipe on
// standard output ends the command quietly instead of a panic).
#[macro_use]
mod stdout;

pub mod archive;
pub mod cli;
pub mod commands;
pub mod compose;
pub mod config;
pub mod daemon;
pub mod dev;
pub mod edge;
pub mod gamelog;
pub mod gm;
pub mod help;
pub mod mail;
pub mod mailroom;
pub mod orders;
pub mod password;
pub mod picture;
pub mod sender;
pub mod store;
pub mod template;
pub mod timers;
pub mod unwind;

// The fault points are called from the player's path (`crate::fault::point`); they live with
// the other dev tooling and cost nothing in a release build without `fault-injection`.
pub(crate) use dev::fault;
