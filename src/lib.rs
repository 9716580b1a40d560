//! pbem: a play-by-email game master (library; the `pbem` binary is a thin front end).

pub mod bench;
pub mod cli;
pub mod commands;
pub mod compose;
pub mod config;
pub mod daemon;
pub mod demo;
pub mod dice;
pub mod duration;
pub mod fault;
pub mod gamelog;
pub mod games;
pub mod gm;
pub mod help;
pub mod inbox;
pub mod mail;
pub mod orders;
pub mod password;
pub mod records;
pub mod sender;
pub mod store;
pub mod template;
pub mod timers;
pub mod unwind;
