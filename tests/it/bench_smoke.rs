//! `pbem bench` on tiny workloads: each mode runs to the end and prints its figures (the figures themselves are never judged in a test).

use crate::common::{output_text, pbem_command};

fn bench(args: &[&str]) -> String {
    let dir = tempfile::tempdir().unwrap();
    let out = pbem_command(dir.path(), "unused.sqlite")
        .arg("bench")
        .args(args)
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    let text = output_text(&out);
    assert!(out.status.success(), "{text}");
    text
}

#[test]
fn bench_pipe_times_ingest_alone_and_beside_serve() {
    let text = bench(&["pipe", "--games", "2", "--mails", "6", "--history", "2"]);
    assert!(
        text.contains("one `pbem ingest` per mail, no daemon: 6 mails"),
        "{text}"
    );
    assert!(text.contains("`pbem serve` running: 6 mails"), "{text}");
    assert!(text.contains("bare process start"), "{text}");
    let text = bench(&[
        "pipe",
        "--game",
        "d4d6",
        "--games",
        "2",
        "--mails",
        "4",
        "--history",
        "6",
        "--alone",
    ]);
    assert!(text.contains("d4 d6 chess order workload"), "{text}");
    assert!(!text.contains("serve` running"), "{text}");
}

#[test]
fn bench_pipe_at_a_pace_counts_the_cpu_of_every_process() {
    let text = bench(&[
        "pipe",
        "--games",
        "2",
        "--mails",
        "4",
        "--history",
        "2",
        "--pace",
        "20ms",
    ]);
    assert!(
        text.contains("no daemon: 4 mails (one every 20 ms)"),
        "{text}"
    );
    assert!(
        text.contains("CPU per mail of every process pbem started (`pbem ingest`, its workers): "),
        "{text}"
    );
    assert!(
        text.contains("(`pbem ingest`, its workers, `pbem serve`): "),
        "{text}"
    );
}

#[test]
fn bench_deadline_adjudicates_every_game() {
    let text = bench(&["deadline", "--games", "3", "--history", "1"]);
    assert!(
        text.contains("deadline: 3 Dip-Tac-Toe turns adjudicated"),
        "{text}"
    );
    assert!(text.contains("12 reports queued"), "{text}");
}

#[test]
fn bench_ingest_runs_all_waiting_and_steady() {
    let text = bench(&[
        "ingest",
        "--games",
        "4",
        "--mails",
        "12",
        "--finished",
        "0",
        "--rate",
        "500",
    ]);
    assert!(
        text.contains("mail path, all 12 waiting: 12 mails"),
        "{text}"
    );
    assert!(
        text.contains("mail path, arriving at 500/s: 12 mails"),
        "{text}"
    );
}

#[test]
fn bench_picture_draws_one_games_positions_and_writes_them_out() {
    let dir = tempfile::tempdir().unwrap();
    let pictures = dir.path().join("pictures");
    let out = pbem_command(dir.path(), "unused.sqlite")
        .args([
            "bench", "picture", "--game", "dicess", "--passes", "1", "--out",
        ])
        .arg(&pictures)
        .output()
        .unwrap();
    let text = output_text(&out);
    assert!(out.status.success(), "{text}");
    assert!(text.contains("dicess     standard"), "{text}");
    assert!(
        !text.contains("dicerink"),
        "only the game asked for: {text}"
    );
    // The start and four positions on: five pictures, each a PNG.
    let written: Vec<_> = std::fs::read_dir(&pictures).unwrap().collect();
    assert_eq!(written.len(), 5, "{text}");
    for f in written {
        let bytes = std::fs::read(f.unwrap().path()).unwrap();
        assert!(bytes.starts_with(b"\x89PNG\r\n\x1a\n"));
    }
}
