//! The `pbem` binary: parse the arguments, set up logging, run the command, map errors to exit codes (`cli::failed`).

use std::io::IsTerminal as _;

/// Logs go to stderr, but a failed write is dropped: a closed or full stderr must not make
/// pbem fail (tracing's own fallback would `eprintln!`, which panics there).
struct QuietStderr;

impl std::io::Write for QuietStderr {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let _ = std::io::stderr().write_all(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let _ = std::io::stderr().flush();
        Ok(())
    }
}

fn main() {
    let cli = pbem::cli::Cli::parse_with_games();
    // `serve` says what it does at info: its start, each mail in and its fate, each ply,
    // timer and mail sent. The other commands print their own results, which warnings only
    // should join. PBEM_LOG (an env filter: `debug`, `pbem::sender=debug,info`) overrides.
    let default = match cli.command {
        pbem::cli::Command::Serve { .. } => "warn,pbem=info",
        _ => "warn",
    };
    // Colours are for a person at a terminal, not for a log file or journald.
    let ansi = std::io::stderr().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    tracing_subscriber::fmt()
        .with_writer(|| QuietStderr)
        .with_ansi(ansi)
        .log_internal_errors(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("PBEM_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(default)),
        )
        .init();
    match pbem::cli::run(cli) {
        Ok(code) => std::process::exit(code),
        Err(e) => std::process::exit(pbem::cli::failed(&e)),
    }
}
