//! Exit codes: the same kind of mistake exits the same code in every command (README's table).
//!
//! 0 done; 1 refused: pbem read the command and will not do it (a value it does not take, a
//! game, seat or mail that is not there, an operation the game's state or rules forbid, a
//! record or configuration that its check finds faulty); 2 error: the command line is not
//! a command (clap's usage errors: an unknown command or option, a missing argument) or pbem
//! could not work (a file it cannot read, a configuration that does not load, a database
//! missing or unusable, output that cannot be written); 75: `pbem ingest` only (sysexits).

/// Exit status of a command (see the module's table).
pub type Exit = i32;

/// Done.
const DONE: Exit = 0;
/// Refused: the reason is on standard error and nothing changed.
const REFUSED: Exit = 1;
/// An error: the command could not be read, or pbem could not work.
const ERROR: Exit = 2;

/// A command pbem read and refuses (exit 1), as against an error (exit 2): what a command
/// returns as an error when what it was given is wrong, not the machine.
#[derive(Debug)]
pub struct Refused(pub String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// A refusal as an error, to return with `?` from inside a transaction (which it rolls back).
pub(crate) fn refuse(why: impl std::fmt::Display) -> anyhow::Error {
    anyhow::Error::new(Refused(why.to_string()))
}

/// Says why a command failed and gives its exit code: 1 for a refusal, 2 for anything else.
pub fn failed(e: &anyhow::Error) -> Exit {
    match e.downcast_ref::<Refused>() {
        Some(why) => {
            super::say(&format!("refused: {why}"));
            REFUSED
        }
        None => {
            super::say(&format!("pbem: {e:#}"));
            ERROR
        }
    }
}

/// The exit code for what clap could not read: a value an argument does not take (`--status
/// lost`, an id that is no number) is refused as pbem refuses a value it checks itself (1);
/// a command line that is not a command (unknown command or option, missing argument) is a
/// usage error (2); `--help` and `--version` are done (0).
pub(crate) fn of_clap(e: &clap::Error) -> Exit {
    use clap::error::ErrorKind;
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => DONE,
        ErrorKind::InvalidValue | ErrorKind::ValueValidation | ErrorKind::InvalidUtf8 => REFUSED,
        _ => ERROR,
    }
}

/// Prints clap's message and exits with `of_clap`'s code.
pub(crate) fn clap_exit(e: &clap::Error) -> ! {
    let _ = e.print();
    std::process::exit(of_clap(e))
}
