//! pbem: a play-by-email game master (library; the `pbem` binary is a thin front end).

pub mod dice;
pub mod games;
pub mod mail;
pub mod orders;
