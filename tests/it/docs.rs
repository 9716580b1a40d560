//! Issue 27, point 35: README names every command `pbem --help` has, and the pages a GM reads (README, ARCHITECTURE, notation) point only at files in the repository.

use std::path::Path;

use clap::CommandFactory;
use pbem::games::GameKind;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// Every visible command as its words after `pbem` (`game new`, `outbox list`, `init`).
fn commands() -> Vec<String> {
    fn walk(cmd: &clap::Command, path: &str, out: &mut Vec<String>) {
        let subs: Vec<_> = cmd
            .get_subcommands()
            .filter(|c| !c.is_hide_set() && c.get_name() != "help")
            .collect();
        if subs.is_empty() && !path.is_empty() {
            out.push(path.trim().to_string());
        }
        for c in subs {
            walk(c, &format!("{path} {}", c.get_name()), out);
        }
    }
    let mut out = Vec::new();
    walk(&pbem::cli::Cli::command(), "", &mut out);
    out
}

#[test]
fn readme_lists_every_command_pbem_help_has() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let cmds = commands();
    assert!(cmds.len() > 40, "{cmds:?}");
    let missing: Vec<&String> = cmds
        .iter()
        .filter(|c| {
            let (parent, last) = c.rsplit_once(' ').unwrap_or(("", c));
            // `pbem game list | show ID | moves ID` lists three commands on one line.
            !readme.lines().any(|l| {
                let l = l.trim_start();
                l.starts_with(&format!("pbem {c}"))
                    || (!parent.is_empty()
                        && l.starts_with(&format!("pbem {parent} "))
                        && l.split(" | ")
                            .any(|part| part.split(' ').next() == Some(last)))
            })
        })
        .collect();
    assert!(
        missing.is_empty(),
        "README's command list lacks: {missing:?}"
    );
}

/// The path-like spans of a page: markdown link targets and `code` spans that name a file
/// or a folder (a slash, or a file's extension), with `<game>` read as each game.
fn paths(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    for (i, _) in text.match_indices("](") {
        let rest = &text[i + 2..];
        let target = &rest[..rest.find(')').unwrap_or(rest.len())];
        if !target.contains(':') && !target.starts_with('#') {
            found.push(target.split('#').next().unwrap().to_string());
        }
    }
    for (n, span) in text.split('`').enumerate() {
        let looks_like_a_path = span.contains('/') || has_extension(span);
        let plain = span
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-/<>|".contains(c));
        // `.valid` alone is an extension, not a file.
        let a_file = !span.starts_with('/') && (!span.starts_with('.') || span.contains('/'));
        if n % 2 == 1 && looks_like_a_path && plain && a_file {
            found.push(span.split('|').next().unwrap().to_string());
        }
    }
    found
        .into_iter()
        .flat_map(|p| match p.contains("<game>") {
            true => GameKind::ALL
                .iter()
                .map(|k| p.replace("<game>", k.name()))
                .collect(),
            false => vec![p],
        })
        .collect()
}

fn has_extension(span: &str) -> bool {
    const EXT: [&str; 11] = [
        ".md", ".rs", ".py", ".txt", ".toml", ".pgn", ".json", ".valid", ".invalid", ".sh",
        ".service",
    ];
    EXT.iter().any(|e| span.ends_with(e))
}

/// Whether a path a page names must be in the repository, and is not: a path into one of the
/// repository's own folders, one that climbs out of it, or a file named by its extension
/// (the GM's own files, named in the README's instructions, are not the repository's).
fn outside(page: &Path, path: &str) -> bool {
    const THE_GMS: [&str; 3] = ["pbem.toml", "mail.eml", "message.eml"];
    if path.contains('<') || THE_GMS.contains(&path) || path.starts_with("target/") {
        return false;
    }
    let first = path.split('/').next().unwrap();
    let ours = root().join(first).exists() && !first.is_empty();
    let must = ours || first == ".." || has_extension(path) || path.starts_with("shared/");
    let here = page.parent().unwrap().join(path);
    // A path that climbs out of the repository is outside, whatever this machine has there.
    if !within(&root().join(path)) || !within(&here) {
        return true;
    }
    // A bare file name (`gm.rs` in ARCHITECTURE's map of `src/`) is one of the repository's.
    let somewhere = !path.contains('/') && named_somewhere(root(), path);
    must && !root().join(path).exists() && !here.exists() && !somewhere
}

/// Whether a path, its `..` resolved by its words alone, stays inside the repository.
fn within(path: &Path) -> bool {
    let mut parts: Vec<std::path::Component> = Vec::new();
    for c in path.components() {
        match c {
            std::path::Component::ParentDir => {
                parts.pop();
            }
            std::path::Component::CurDir => {}
            c => parts.push(c),
        }
    }
    parts
        .iter()
        .collect::<std::path::PathBuf>()
        .starts_with(root())
}

/// Whether a file of this name is anywhere in the repository (the build output aside).
fn named_somewhere(dir: &Path, name: &str) -> bool {
    std::fs::read_dir(dir).unwrap().any(|e| {
        let p = e.unwrap().path();
        let skip = p.ends_with("target") || p.ends_with(".git");
        match p.is_dir() {
            true => !skip && named_somewhere(&p, name),
            false => p.file_name().is_some_and(|n| n == name),
        }
    })
}

#[test]
fn the_pages_point_only_at_files_in_the_repository() {
    let mut pages = vec![root().join("README.md"), root().join("ARCHITECTURE.md")];
    for e in std::fs::read_dir(root().join("notation")).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_some_and(|x| x == "md") {
            pages.push(p);
        }
    }
    let mut bad = Vec::new();
    for page in &pages {
        let text = std::fs::read_to_string(page).unwrap();
        for path in paths(&text) {
            if outside(page, &path) {
                bad.push(format!(
                    "{}: {path}",
                    page.strip_prefix(root()).unwrap().display()
                ));
            }
        }
        // Bare file names in prose too (`RULES.md` once named a file outside the repository).
        for word in text.split(|c: char| c.is_whitespace() || "()\",;".contains(c)) {
            let word = word.trim_end_matches(['.', ':']);
            if word.ends_with(".md") && !word.contains(['`', '<', '/']) && outside(page, word) {
                bad.push(format!(
                    "{}: {word}",
                    page.strip_prefix(root()).unwrap().display()
                ));
            }
        }
    }
    assert!(
        bad.is_empty(),
        "paths that are not in the repository: {bad:#?}"
    );
    // The check itself finds what it is for.
    let notation = root().join("notation/dicess.md");
    assert!(outside(&notation, "shared/contracts/dicess-siberian.md"));
    assert!(outside(&notation, "../shared/RULES.md"));
    assert!(outside(&notation, "RULES.md"));
    assert!(outside(&notation, "src/games/dicerink/"));
    assert!(!outside(&notation, "lists.md"));
    assert!(!outside(&notation, "notation/dicess.md"));
}
