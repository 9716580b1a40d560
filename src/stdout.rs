//! Standard output for the commands: `print!` and `println!` in this crate write through here, so a reader that closed the pipe (`pbem inbox | head -1`) ends the command quietly instead of a panic.
//!
//! Rust ignores SIGPIPE, so a write to a closed pipe fails with `BrokenPipe`, and std's
//! `println!` panics on that failure. Restoring SIGPIPE's default action instead would need
//! `unsafe` (the workspace forbids it) and would act on every pipe, not only standard output:
//! `pbem ingest` would die on a closed stderr (breaking the MTA's exit-code contract), and a
//! command would die when a sendmail child exits before reading its input. So only standard
//! output is treated, once: the macros below shadow std's for the whole crate (this module
//! is declared first in lib.rs, `#[macro_use]`), so every command's output, whoever writes
//! it, goes through `write`, which also shows control characters escaped (`shown`).

/// Writes to standard output. A closed pipe means the reader has what it wanted: the
/// process exits 0 at once, as ripgrep does (a command prints after it committed its
/// changes, so nothing is left half done). Any other failure to write (a full disk) is an
/// error: a line on stderr and exit 2, never a panic.
pub(crate) fn write(args: std::fmt::Arguments<'_>) {
    use std::io::Write as _;
    let text = match args.as_str() {
        Some(fixed) => std::borrow::Cow::Borrowed(fixed),
        None => std::borrow::Cow::Owned(args.to_string()),
    };
    if let Err(e) = std::io::stdout().lock().write_all(shown(&text).as_bytes()) {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        let _ = writeln!(std::io::stderr(), "pbem: cannot write the output: {e}");
        std::process::exit(2);
    }
}

/// `text` as a terminal may show it: every control character but the line break and the tab
/// (and a carriage return before a line break), and every bidi or invisible format character
/// (`crate::invisible`), written as `\u{1b}`. A stranger's stored mail, subject or press can
/// hold escape sequences that would rewrite the GM's screen, set the window title or write
/// the clipboard (OSC 52) when `pbem inbox show` prints it; no command prints one raw.
pub(crate) fn shown(text: &str) -> std::borrow::Cow<'_, str> {
    use std::fmt::Write as _;
    let unsafe_at = |(i, c): (usize, char)| {
        let bare_cr = c == '\r' && !text[i + 1..].starts_with('\n');
        let control = c.is_control() && c != '\n' && c != '\t' && c != '\r';
        bare_cr || control || crate::invisible::is_invisible(c)
    };
    if !text.char_indices().any(unsafe_at) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    for (i, c) in text.char_indices() {
        if unsafe_at((i, c)) {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
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

#[cfg(test)]
mod tests {
    use super::shown;

    #[test]
    fn escapes_and_overrides_are_shown_escaped_and_line_ends_kept() {
        assert_eq!(shown("a\r\nb\tc\n"), "a\r\nb\tc\n");
        assert_eq!(shown("x\x1b[2Jy\x07"), "x\\u{1b}[2Jy\\u{7}");
        assert_eq!(shown("over\rwrite"), "over\\u{d}write");
        assert_eq!(shown("\u{9b}31m \u{202e}evil"), "\\u{9b}31m \\u{202e}evil");
        assert_eq!(shown("Grüße ☃"), "Grüße ☃");
    }
}
