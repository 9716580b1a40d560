//! The `pbem` binary: parse the arguments, run the command, map errors to exit codes.

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
    // PBEM_LOG sets the level (e.g. PBEM_LOG=info for `pbem serve`).
    tracing_subscriber::fmt()
        .with_writer(|| QuietStderr)
        .log_internal_errors(false)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("PBEM_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let cli = pbem::cli::Cli::parse_with_games();
    match pbem::cli::run(cli) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            pbem::cli::say(&format!("pbem: {e:#}"));
            std::process::exit(2);
        }
    }
}
