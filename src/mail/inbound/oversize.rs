//! A mail over the size limit: only its headers are kept, with its real size in a header of pbem's own.

/// The header pbem adds to the headers it keeps of a mail over the size limit: the mail's
/// real size in bytes (the body itself was never read into memory or stored).
pub const OVERSIZE_HEADER: &str = "X-Pbem-Oversize";

/// At most this much of a too-large mail's header block is kept.
const MAX_KEPT_HEADERS: usize = 64 * 1024;

/// The size a mail had: its bytes, or more if it is the kept headers of a larger mail.
pub(super) fn declared_size(oversize: Option<&str>, len: usize) -> usize {
    oversize
        .and_then(|v| v.trim().parse::<usize>().ok())
        .map_or(len, |n| n.max(len))
}

/// What is stored of a mail over the size limit: its header block (at most 64 KiB of it) and
/// `X-Pbem-Oversize` with the real size, so it can be refused, answered and deduplicated
/// like any other mail without its body ever being kept. `head` is the first bytes read.
pub fn oversize_stub(head: &[u8], total: u64) -> Vec<u8> {
    let window = &head[..head.len().min(MAX_KEPT_HEADERS)];
    let end = find(window, b"\r\n\r\n")
        .or_else(|| find(window, b"\n\n"))
        .or_else(|| window.iter().rposition(|b| *b == b'\n'))
        .unwrap_or(0);
    let mut out = window[..end].to_vec();
    if !out.is_empty() && !out.ends_with(b"\n") {
        out.extend_from_slice(b"\r\n");
    }
    out.extend_from_slice(format!("{OVERSIZE_HEADER}: {total}\r\n\r\n").as_bytes());
    out
}

pub(super) fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}
