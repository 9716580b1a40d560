//! `pbem bench`: throughput and latency of the mail path, against the raw durable commit rate.

use std::path::Path;

use clap::Subcommand;

use crate::config::Config;

#[derive(Debug, Subcommand)]
pub enum BenchCmd {
    /// N games, M order mails through the whole path into an .eml outbox.
    Ingest {
        #[arg(long, default_value_t = 20)]
        games: usize,
        #[arg(long, default_value_t = 400)]
        mails: usize,
    },
}

pub fn run(cmd: BenchCmd, db: &Path, cfg: Config) -> anyhow::Result<i32> {
    let _ = (cmd, db, cfg);
    anyhow::bail!("bench: not yet")
}
