//! `pbem demo --html DIR`: every mail of the demo written out as files a browser opens: its text part (`NN-<kind>-<to>.txt`), its HTML part (`.html`, each `cid:` turned into the file name of its picture) and its pictures (`NN-board.png`).

use std::path::{Path, PathBuf};

use anyhow::Context;
use mail_parser::{MessageParser, MimeHeaders, PartType};

use crate::config::Config;
use crate::store::Store;

/// The parts of one finished mail.
#[derive(Debug, Default)]
struct Parts {
    text: String,
    html: Option<String>,
    /// Each inline picture: its Content-ID (no angle brackets), its file extension, its bytes.
    pictures: Vec<(String, String, Vec<u8>)>,
}

/// Writes every mail in the outbox to `dir` (made if missing), after giving each waiting mail
/// its HTML part; returns the paths of the HTML files written.
pub(super) fn write_all(
    store: &mut Store,
    cfg: &Config,
    dir: &Path,
) -> anyhow::Result<Vec<PathBuf>> {
    crate::compose::illustrate::run(store, cfg)?;
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let mut rows = store.read(|tx| tx.outbox(None, i64::MAX))?;
    rows.reverse();
    let mut pages = Vec::new();
    for (n, row) in rows.iter().enumerate() {
        let Some(raw) = store.read(|tx| tx.outbox_raw(row.id))? else {
            continue;
        };
        let parts = parts(&raw);
        let stem = format!("{:02}-{}-{}", n + 1, row.kind, file_safe(&row.to_addr));
        let write = |name: &str, bytes: &[u8]| {
            let path = dir.join(name);
            std::fs::write(&path, bytes).with_context(|| format!("cannot write {}", path.display()))
        };
        write(&format!("{stem}.txt"), parts.text.as_bytes())?;
        let Some(mut html) = parts.html else {
            continue;
        };
        for (k, (cid, ext, bytes)) in parts.pictures.iter().enumerate() {
            let name = match k {
                0 => format!("{:02}-board.{ext}", n + 1),
                k => format!("{:02}-board-{}.{ext}", n + 1, k + 1),
            };
            write(&name, bytes)?;
            html = html.replace(&format!("cid:{cid}"), &name);
        }
        write(&format!("{stem}.html"), html.as_bytes())?;
        pages.push(dir.join(format!("{stem}.html")));
    }
    Ok(pages)
}

/// The text part, the HTML part and the inline pictures of a finished mail.
fn parts(raw: &[u8]) -> Parts {
    let mut out = Parts::default();
    let Some(msg) = MessageParser::default().parse(raw) else {
        return out;
    };
    for part in &msg.parts {
        match &part.body {
            PartType::Text(text) if out.text.is_empty() => out.text = text.replace("\r\n", "\n"),
            PartType::Html(html) if out.html.is_none() => out.html = Some(html.to_string()),
            PartType::Binary(bytes) | PartType::InlineBinary(bytes) => {
                let Some(cid) = part.content_id() else {
                    continue;
                };
                let ext = part
                    .content_type()
                    .and_then(|ct| ct.subtype())
                    .unwrap_or("bin")
                    .to_ascii_lowercase();
                let cid = cid.trim_matches(['<', '>']).to_string();
                out.pictures.push((cid, file_safe(&ext), bytes.to_vec()));
            }
            _ => {}
        }
    }
    out
}

/// A name for a file: letters, digits and `@._-` kept, anything else `_`.
fn file_safe(name: &str) -> String {
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || "@._-".contains(c) {
                c
            } else {
                '_'
            }
        })
        .collect()
}
