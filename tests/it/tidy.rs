//! Tidy: the architecture's structural invariants as tests: the rules crate depends on nothing impure, the application's modules import only downward (no cycle), no function outside tests (before or after a file's test module) is over 100 lines, and no application file over 600.

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
    &["timers", "mailroom", "sender", "archive"],
    &["daemon"],
    &["dev"],
    &["cli"],
    &["main", "lib"],
];

/// Modules that belong to the rules crate, re-exported by the app: below every layer.
const RULES: &[&str] = &[
    "games",
    "records",
    "dice",
    "duration",
    "quote",
    "invisible",
    "robot",
];

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

/// The lines of a file that are not test code, numbered from 1: each item marked
/// `#[cfg(test)]` (a `mod tests { ... }`, a test-only helper, a `mod tests;` declaration) is
/// left out up to its closing brace or semicolon, and what follows it is read again.
fn code_outside_tests(text: &str) -> Vec<(usize, &str)> {
    let mut kept = Vec::new();
    let mut lines = text.lines().enumerate();
    while let Some((n, line)) = lines.next() {
        if line.trim() != "#[cfg(test)]" {
            kept.push((n + 1, line));
            continue;
        }
        let (mut depth, mut opened) = (0i64, false);
        for (_, item) in lines.by_ref() {
            for c in item.chars() {
                match c {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => depth -= 1,
                    _ => {}
                }
            }
            if (opened && depth <= 0) || (!opened && item.trim_end().ends_with(';')) {
                break;
            }
        }
    }
    kept
}

/// Whether a line starts a function item: `fn`, after any visibility (`pub`, `pub(crate)`,
/// ...) and qualifiers (`const`, `async`, `unsafe`, `extern "C"`).
fn starts_a_function(line: &str) -> bool {
    let mut t = line.trim_start();
    if let Some(rest) = t.strip_prefix("pub") {
        t = match rest.strip_prefix('(') {
            Some(scope) => scope.split_once(')').map_or("", |(_, after)| after),
            None => rest,
        };
        if !t.starts_with(' ') {
            return false;
        }
        t = t.trim_start();
    }
    loop {
        if let Some(rest) = ["const ", "async ", "unsafe ", "extern \"C\" "]
            .iter()
            .find_map(|q| t.strip_prefix(q))
        {
            t = rest;
        } else {
            return t.starts_with("fn ");
        }
    }
}

/// The functions outside tests longer than `max` lines, as (lines, `name:line` of its `fn`):
/// a brace count from each line that starts a function, over the file's lines that are not
/// test code (`code_outside_tests`: unit tests may be long, the code after them may not).
/// Strings holding braces are rare in this code base and would only make a count longer,
/// never hide a long function.
fn functions_longer_than(max: usize, name: &str, text: &str) -> Vec<(usize, String)> {
    let lines = code_outside_tests(text);
    let mut long = Vec::new();
    for (i, &(start, line)) in lines.iter().enumerate() {
        if !starts_a_function(line) {
            continue;
        }
        let (mut depth, mut opened, mut end) = (0i64, false, start);
        for &(n, body) in &lines[i..] {
            end = n;
            for c in body.chars() {
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
            if (opened && depth <= 0) || (!opened && body.trim_end().ends_with(';')) {
                break;
            }
        }
        let length = end - start + 1;
        if length > max {
            long.push((length, format!("{name}:{start}")));
        }
    }
    long
}

/// Whether a source file is a test module of its own (`tests.rs`, declared `#[cfg(test)] mod
/// tests;` beside its parent).
fn is_test_module(file: &Path) -> bool {
    file.file_name().is_some_and(|n| n == "tests.rs")
}

#[test]
fn no_function_outside_tests_is_longer_than_100_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    rust_files(&root.join("crates/rules/src"), &mut files);
    // A wrong path must not make the check pass on nothing.
    assert!(files.len() > 100, "only {} source files found", files.len());
    let long: Vec<(usize, String)> = files
        .iter()
        .filter(|f| !is_test_module(f))
        .flat_map(|f| {
            let text = std::fs::read_to_string(f).unwrap();
            functions_longer_than(100, &f.display().to_string(), &text)
        })
        .collect();
    assert!(long.is_empty(), "functions over 100 lines: {long:?}");
}

/// SQL lives in the store: no other module of the application names rusqlite (its
/// connection, statements or rows), so every query is a typed method of `store::Tx`.
#[test]
fn only_the_store_touches_sqlite() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    assert!(files.len() > 100, "only {} source files found", files.len());
    let store = root.join("src/store");
    let bad: Vec<String> = files
        .iter()
        .filter(|f| !f.starts_with(&store))
        .filter(|f| std::fs::read_to_string(f).unwrap().contains("rusqlite"))
        .map(|f| f.display().to_string())
        .collect();
    assert!(bad.is_empty(), "rusqlite outside src/store: {bad:?}");
}

/// One concept per file: no file of the application is over 600 lines (a file's tests beside
/// it, in a `tests.rs`, count apart).
#[test]
fn no_application_file_is_longer_than_600_lines() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut files = Vec::new();
    rust_files(&root.join("src"), &mut files);
    assert!(files.len() > 100, "only {} source files found", files.len());
    let long: Vec<(usize, String)> = files
        .iter()
        .filter(|f| !is_test_module(f))
        .map(|f| (std::fs::read_to_string(f).unwrap().lines().count(), f))
        .filter(|(n, _)| *n > 600)
        .map(|(n, f)| (n, f.display().to_string()))
        .collect();
    assert!(long.is_empty(), "files over 600 lines: {long:?}");
}

/// A function after a test module is measured; the test module's own functions, a test-only
/// helper and a function's lines counted across a skipped item are not.
#[test]
fn the_tidy_measure_reads_past_a_test_module() {
    let body = |n: usize| "    x();\n".repeat(n);
    let text = format!(
        "fn short() {{\n{}}}\n#[cfg(test)]\nmod tests {{\n    #[test]\n    fn long_test() {{\n{}    }}\n}}\n\
         #[cfg(test)]\nfn helper() {{\n{}}}\n#[cfg(test)]\nmod more;\n\
         pub(crate) const fn after() {{\n{}}}\nimpl A {{\n    pub async fn method(&self) {{\n{}    }}\n}}\n",
        body(3),
        body(20),
        body(20),
        body(10),
        body(10)
    );
    let long = functions_longer_than(5, "f.rs", &text);
    let after = 1 + text.lines().position(|l| l.contains("fn after")).unwrap();
    let method = 1 + text.lines().position(|l| l.contains("fn method")).unwrap();
    assert_eq!(
        long,
        [
            (12, format!("f.rs:{after}")),
            (12, format!("f.rs:{method}"))
        ]
    );
    for line in [
        "fn f()",
        "pub fn f()",
        "pub(super) fn f()",
        "pub(in crate::a) unsafe fn f()",
    ] {
        assert!(starts_a_function(line), "{line}");
    }
    for line in ["fnord()", "pubfn f()", "// fn f()", "let f = fn_ptr;"] {
        assert!(!starts_a_function(line), "{line}");
    }
}
