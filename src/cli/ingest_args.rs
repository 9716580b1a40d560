//! `pbem ingest`'s own small parser: an MTA starts one `pbem ingest` per mail, and building every command's arguments costs more than the rest of parsing.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// `pbem [--db DB] [--config FILE] ingest`, and nothing else: the same options as `Cli`'s,
/// read the same way (flags, then PBEM_DB and PBEM_CONFIG). Any other command line, help and
/// version included, fails here and goes to the full parser. (Clap builds the whole command
/// tree before it parses; for `Cli` that was a fifth of an `ingest` process's instructions.)
#[derive(Debug, Parser)]
#[command(name = "pbem", disable_help_flag = true, disable_version_flag = true)]
pub(super) struct IngestOnly {
    #[arg(long, global = true, env = "PBEM_DB")]
    pub db: Option<PathBuf>,
    #[arg(long, global = true, env = "PBEM_CONFIG")]
    pub config: Option<PathBuf>,
    #[command(subcommand)]
    command: OnlyIngest,
}

#[derive(Debug, Subcommand)]
#[command(disable_help_subcommand = true)]
enum OnlyIngest {
    Ingest,
}

impl IngestOnly {
    /// The options of an `ingest` command line; `None` for any other.
    pub(super) fn parse<I, T>(args: I) -> Option<IngestOnly>
    where
        I: IntoIterator<Item = T>,
        T: Into<std::ffi::OsString> + Clone,
    {
        IngestOnly::try_parse_from(args).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_an_ingest_command_line_parses() {
        let db = |args: &[&str]| IngestOnly::parse(args).map(|c| c.db);
        let some = |p: &str| Some(Some(PathBuf::from(p)));
        assert_eq!(
            db(&["pbem", "--db", "a.sqlite", "ingest"]),
            some("a.sqlite")
        );
        assert_eq!(
            db(&["pbem", "ingest", "--db", "b.sqlite"]),
            some("b.sqlite")
        );
        assert_eq!(db(&["pbem", "ingest", "--db=c.sqlite"]), some("c.sqlite"));
        let config = IngestOnly::parse(["pbem", "--config", "p.toml", "ingest"]).unwrap();
        assert_eq!(config.config, Some(PathBuf::from("p.toml")));
        for other in [
            &["pbem", "init"][..],
            &["pbem", "ingest", "extra"],
            &["pbem", "ingest", "--help"],
            &["pbem", "--help"],
            &["pbem", "--version"],
            &["pbem", "ingest", "--bogus"],
            &["pbem", "help", "ingest"],
            &["pbem"],
        ] {
            assert!(IngestOnly::parse(other).is_none(), "{other:?}");
        }
    }
}
