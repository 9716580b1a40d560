//! The `pbem` binary: parse the arguments, run the command, map errors to exit codes.

use clap::Parser;

fn main() {
    let cli = pbem::cli::Cli::parse();
    match pbem::cli::run(cli) {
        Ok(code) => std::process::exit(code),
        Err(e) => {
            eprintln!("pbem: {e:#}");
            std::process::exit(2);
        }
    }
}
