//! Runs every Dip-Tac-Toe adjudication case in tests/data/diptactoe (DATC translations,
//! placements, claims, malformed orders) through the GM's what-if tool.

use std::path::{Path, PathBuf};

use pbem_rules::games::diptactoe::whatif::adjudicate_request;
use serde_json::Value;

fn case_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            case_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "json") {
            out.push(path);
        }
    }
}

/// The differences between one case's expectations and the what-if answer.
fn check_case(path: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(path).expect("readable case file");
    let case: Value = serde_json::from_str(&text).expect("case file is JSON");
    let expected = &case["expected"];
    let mut problems = Vec::new();
    let whatif = match adjudicate_request(&text) {
        Ok(w) => w,
        Err(e) => return vec![format!("request refused: {e}")],
    };
    let actual = whatif.json();
    for key in ["results", "dislodged", "after", "outcome"] {
        let want = &expected[key];
        if key != "after" && want.is_null() {
            problems.push(format!("the case gives no expected \"{key}\""));
            continue;
        }
        if !want.is_null() && *want != actual[key] {
            problems.push(format!("{key}: expected {want}, got {}", actual[key]));
        }
    }
    // One result word per input line, for every player.
    for (player, lines) in case["orders"].as_object().expect("orders object") {
        let words = actual["results"][player].as_array().map_or(0, Vec::len);
        let count = lines.as_array().map_or(0, Vec::len);
        if words != count {
            problems.push(format!("{player}: {count} lines but {words} results"));
        }
    }
    let report = whatif.report();
    for needle in expected["report_excludes"].as_array().into_iter().flatten() {
        let needle = needle.as_str().expect("string");
        if report.contains(needle) {
            problems.push(format!("the report reveals '{needle}':\n{report}"));
        }
    }
    for needle in expected["report_contains"].as_array().into_iter().flatten() {
        let needle = needle.as_str().expect("string");
        if !report.contains(needle) {
            problems.push(format!("the report lacks '{needle}':\n{report}"));
        }
    }
    // DATC files are named after the case they translate.
    if path.parent().is_some_and(|p| p.ends_with("datc")) {
        let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or("");
        if case["case"].as_str() != Some(stem) {
            problems.push(format!(
                "the file names case {stem} but says {}",
                case["case"]
            ));
        }
    }
    problems
}

#[test]
fn every_adjudication_case_matches() {
    let root = crate::workspace_root().join("tests/data/diptactoe");
    let mut files = Vec::new();
    case_files(&root, &mut files);
    assert!(files.len() >= 30, "only {} case files found", files.len());
    let mut failures = Vec::new();
    for path in &files {
        for problem in check_case(path) {
            failures.push(format!(
                "{}: {problem}",
                path.strip_prefix(&root).unwrap().display()
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} cases differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
}
