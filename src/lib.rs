//! pbem: a play-by-email game master (library; the `pbem` binary is a thin front end).

pub mod cli;
pub mod config;
pub mod demo;
pub mod dice;
pub mod gamelog;
pub mod games;
pub mod mail;
pub mod gm;
pub mod orders;
pub mod records;
pub mod store;
pub mod template;
