//! Whether the loopback mail server of scripts/mailstack.sh is there, for the tests that need it: without it they say "skipped: <why>", or fail when `PBEM_REQUIRE_MAILSTACK` is set.

use std::io::Write;
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::time::Duration;

const HOW: &str = "scripts/test.sh starts it when run as root; see scripts/mailstack.sh";

/// The stack's root folder (`PBEM_MAILSTACK_ROOT`), or `None` when there is no stack: the
/// test `test` then writes "skipped: ..." to stderr and returns. Panics instead when
/// `PBEM_REQUIRE_MAILSTACK` is set (scripts/test.sh sets it when it starts the stack), and
/// when the root is set but its server does not answer.
pub fn root(test: &str) -> Option<PathBuf> {
    match std::env::var_os("PBEM_MAILSTACK_ROOT") {
        Some(root) if !root.is_empty() => {
            let root = PathBuf::from(root);
            answers(&root);
            Some(root)
        }
        _ => {
            let why = format!("no mail server: PBEM_MAILSTACK_ROOT is not set ({HOW})");
            assert!(!required(), "PBEM_REQUIRE_MAILSTACK is set, but {why}");
            // Straight to the process's stderr: the test harness captures eprintln! and shows
            // it only for a failing test, and a skip must be seen.
            let _ = writeln!(std::io::stderr(), "skipped: {test}: {why}");
            None
        }
    }
}

/// A test that cannot run here (`why`): "skipped: ..." on stderr, or a failure when
/// `PBEM_REQUIRE_MAILSTACK` is set (the run that starts the stack must run everything).
pub fn skip(test: &str, why: &str) {
    assert!(
        !required(),
        "PBEM_REQUIRE_MAILSTACK is set, but {test} cannot run: {why}"
    );
    let _ = writeln!(std::io::stderr(), "skipped: {test}: {why}");
}

/// Whether the tests must not skip (`PBEM_REQUIRE_MAILSTACK` set, and not to `0`).
fn required() -> bool {
    std::env::var_os("PBEM_REQUIRE_MAILSTACK").is_some_and(|v| !v.is_empty() && v != "0")
}

/// Panics with the reason when the stack named by the root is not running.
fn answers(root: &Path) {
    assert!(
        root.is_dir(),
        "PBEM_MAILSTACK_ROOT is {}, which is no folder: the mail server is absent ({HOW})",
        root.display()
    );
    let port: u16 = std::env::var("PBEM_MAILSTACK_SMTP_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(2525);
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    if let Err(e) = TcpStream::connect_timeout(&addr, Duration::from_secs(5)) {
        panic!(
            "PBEM_MAILSTACK_ROOT is {}, but no mail server answers on {addr}: {e} ({HOW})",
            root.display()
        );
    }
}
