//! A sendmail-compatible program as a transport: the envelope on its command line, the mail's bytes on its input, its exit code classified.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};

use super::{RawMail, SendError};

/// sysexits.h codes meaning the mail itself or its addresses are wrong: EX_USAGE,
/// EX_DATAERR, EX_NOUSER, EX_NOHOST. Others (EX_TEMPFAIL, EX_UNAVAILABLE, ...) are transient.
const SENDMAIL_PERMANENT_EXITS: &[i32] = &[64, 65, 67, 68];

pub(super) fn send_with_sendmail(program: &Path, mail: &RawMail) -> Result<(), SendError> {
    let envelope = &mail.envelope;
    let from = envelope.from().map(|a| a.to_string()).unwrap_or_default();
    let mut child = Command::new(program)
        .arg("-i")
        .arg("-f")
        .arg(&from)
        .arg("--")
        .args(envelope.to().iter().map(|a| a.to_string()))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| SendError::transient(format!("cannot run {}: {e}", program.display())))?;
    let written = child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(&mail.bytes);
    let output = child
        .wait_with_output()
        .map_err(|e| SendError::transient(format!("{}: {e}", program.display())))?;
    if output.status.success() {
        // A program that exits 0 without reading all its input still took the mail.
        return Ok(());
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    let text = format!(
        "{} failed ({}): {}{}",
        program.display(),
        output.status,
        stderr.trim(),
        written
            .err()
            .map(|e| format!(" (writing: {e})"))
            .unwrap_or_default()
    );
    match output.status.code() {
        Some(code) if SENDMAIL_PERMANENT_EXITS.contains(&code) => Err(SendError::permanent(text)),
        _ => Err(SendError::transient(text)),
    }
}
