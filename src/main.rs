//! The `pbem` binary: parse the arguments, run the command, map errors to exit codes.

use clap::Parser;

fn main() {
    // Logs go to stderr; PBEM_LOG sets the level (e.g. PBEM_LOG=info for `pbem serve`).
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("PBEM_LOG")
                .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .init();
    let cli = pbem::cli::Cli::parse();
    match pbem::cli::run(cli) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("pbem: {e:#}");
            std::process::exit(2);
        }
    }
}
