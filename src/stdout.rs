//! Standard output for the commands: `print!` and `println!` in this crate write through here, so a reader that closed the pipe (`pbem inbox | head -1`) ends the command quietly instead of a panic.
//!
//! Rust ignores SIGPIPE, so a write to a closed pipe fails with `BrokenPipe`, and std's
//! `println!` panics on that failure. Restoring SIGPIPE's default action instead would need
//! `unsafe` (the workspace forbids it) and would act on every pipe, not only standard output:
//! `pbem ingest` would die on a closed stderr (breaking the MTA's exit-code contract), and a
//! command would die when a sendmail child exits before reading its input. So only standard
//! output is treated, once: the macros below shadow std's for the whole crate (this module
//! is declared first in lib.rs, `#[macro_use]`), so every command's output, whoever writes
//! it, goes through `write`.

/// Writes to standard output. A closed pipe means the reader has what it wanted: the
/// process exits 0 at once, as ripgrep does (a command prints after it committed its
/// changes, so nothing is left half done). Any other failure to write (a full disk) is an
/// error: a line on stderr and exit 2, never a panic.
pub(crate) fn write(args: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    if let Err(e) = std::io::stdout().lock().write_fmt(args) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        let _ = writeln!(std::io::stderr(), "pbem: cannot write the output: {e}");
        std::process::exit(2);
    }
}

/// std's `print!`, through `write`.
macro_rules! print {
    ($($arg:tt)*) => {
        $crate::stdout::write(format_args!($($arg)*))
    };
}

/// std's `println!`, through `write`.
macro_rules! println {
    () => {
        $crate::stdout::write(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::stdout::write(format_args!("{}\n", format_args!($($arg)*)))
    };
}
