//! Tidy: the architecture's two structural invariants as tests. The rules crate depends on nothing impure, and the application's modules import only downward (no cycle).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Crates the rules crate must never reach, directly or through another: storage, mail, TLS,
/// the clock, OS randomness, file-system helpers and logging back-ends.
const FORBIDDEN_IN_RULES: &[&str] = &[
    "rusqlite",
    "libsqlite3-sys",
    "lettre",
    "mail-parser",
    "rustls",
    "native-tls",
    "openssl",
    "chrono",
    "time",
    "getrandom",
    "rand",
    "rand_core",
    "tempfile",
    "walkdir",
    "tracing",
    "tracing-subscriber",
    "log",
    "env_logger",
    "signal-hook",
    "rustix",
    "libc",
];

#[test]
fn the_rules_crate_depends_on_nothing_impure() {
    let out = Command::new(env!("CARGO"))
        .args([
            "tree",
            "-p",
            "pbem-rules",
            "-e",
            "normal",
            "--prefix",
            "none",
            "--offline",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let tree = String::from_utf8_lossy(&out.stdout);
    let names: BTreeSet<&str> = tree
        .lines()
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert!(names.contains("pbem-rules"), "{tree}");
    let bad: Vec<&&str> = FORBIDDEN_IN_RULES
        .iter()
        .filter(|f| names.contains(**f))
        .collect();
    assert!(bad.is_empty(), "pbem-rules depends on {bad:?}:\n{tree}");
}

/// The application's modules from the bottom up: a module may use only modules of a lower
/// rank (and the rules crate, below them all). The order is ARCHITECTURE.md's.
const LAYERS: &[&[&str]] = &[
    &["edge"],
    &[
        "unwind", "fault", "password", "commands", "orders", "template", "help", "mail", "stdout",
        "picture",
    ],
    &["store"],
    &["config"],
    &["gamelog"],
    &["gm"],
    &["compose"],
    &["timers", "mailroom", "sender"],
    &["daemon"],
    &["dev"],
    &["cli"],
    &["main", "lib"],
];

/// Modules that belong to the rules crate, re-exported by the app: below every layer.
const RULES: &[&str] = &["games", "records", "dice", "duration", "quote", "invisible"];

fn rank(module: &str) -> Option<usize> {
    if RULES.contains(&module) {
        return Some(0);
    }
    LAYERS
        .iter()
        .position(|layer| layer.contains(&module))
        .map(|i| i + 1)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let p = entry.path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "rs") {
            out.push(p);
        }
    }
}

/// The top-level module a file under src/ belongs to.
fn module_of(src: &Path, file: &Path) -> String {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel
        .components()
        .next()
        .unwrap()
        .as_os_str()
        .to_string_lossy();
    first.trim_end_matches(".rs").to_string()
}

/// Every `crate::name` a source file refers to, in paths and in `use crate::{a, b::c}`.
fn crate_refs(text: &str) -> BTreeSet<String> {
    let mut refs = BTreeSet::new();
    let code: String = text
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n");
    let mut rest = code.as_str();
    while let Some(i) = rest.find("crate::") {
        rest = &rest[i + "crate::".len()..];
        if let Some(group) = rest.strip_prefix('{') {
            let end = group.find('}').unwrap_or(group.len());
            for item in group[..end].split(',') {
                let name: String = item
                    .trim()
                    .chars()
                    .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                    .collect();
                if !name.is_empty() && name != "self" {
                    refs.insert(name);
                }
            }
        } else {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            refs.insert(name);
        }
    }
    refs
}

#[test]
fn application_modules_import_only_downward() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    let mut wrong = Vec::new();
    for file in &files {
        let module = module_of(&src, file);
        let Some(own) = rank(&module) else {
            wrong.push(format!(
                "{}: module {module} has no layer in tests/it/tidy.rs",
                file.display()
            ));
            continue;
        };
        let text = std::fs::read_to_string(file).unwrap();
        for used in crate_refs(&text) {
            if used == module {
                continue;
            }
            match rank(&used) {
                Some(r) if r < own => {}
                Some(_) => wrong.push(format!(
                    "{}: {module} uses crate::{used}, which is not below it",
                    file.display()
                )),
                None => wrong.push(format!(
                    "{}: crate::{used} is not a known module",
                    file.display()
                )),
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the layering:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn the_tidy_reader_sees_grouped_and_nested_imports() {
    let refs = crate_refs(
        "use crate::{fault, help::x, self};\nuse crate::store::Tx;\n// crate::cli\nfn f() { crate::gm::play(); }",
    );
    let refs: Vec<&str> = refs.iter().map(String::as_str).collect();
    assert_eq!(refs, ["fault", "gm", "help", "store"]);
}

/// The longest function outside tests, as (lines, file:line of its `fn`) per function over
/// `max`: a brace count from each `fn` line at the start of an item, up to the file's
/// `#[cfg(test)]` module (unit tests may be long). Strings holding braces are rare in this
/// code base and would only make a count longer, never hide a long function.
fn functions_longer_than(max: usize, file: &Path) -> Vec<(usize, String)> {
    let text = std::fs::read_to_string(file).unwrap();
    let lines: Vec<&str> = text
        .lines()
        .take_while(|l| l.trim() != "#[cfg(test)]")
        .collect();
    let mut long = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let t = lines[i].trim_start();
        let is_fn = [
            "fn ",
            "pub fn ",
            "pub(crate) fn ",
            "pub(super) fn ",
            "const fn ",
        ]
        .iter()
        .any(|p| t.starts_with(p));
        if !is_fn {
            i += 1;
            continue;
        }
        let (mut depth, mut opened, mut j) = (0i64, false, i);
        while j < lines.len() {
            for c in lines[j].chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            // A declaration without a body (`fn f();` in a trait) ends at its semicolon.
            if (opened && depth <= 0) || (!opened && lines[j].trim_end().ends_with(';')) {
                break;
            }
            j += 1;
        }
        let length = j - i + 1;
        if length > max {
            long.push((length, format!("{}:{}", file.display(), i + 1)));
        }
        i += 1;
    }
    long
}

#[test]
fn no_function_outside_tests_is_longer_than_120_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("crates/rules/src"), &mut files);
    // A wrong path must not make the check pass on nothing.
    assert!(files.len() > 100, "only {} source files found", files.len());
    let long: Vec<(usize, String)> = files
        .iter()
        .flat_map(|f| functions_longer_than(120, f))
        .collect();
    assert!(long.is_empty(), "functions over 120 lines: {long:?}");
}
