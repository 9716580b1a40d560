//! `pbem bench ingest` run `--runs` times: each run's raw commit rate, its daemon runs (all waiting, steady, a full store), then the median and range of each figure the targets name, since one run says little on a shared machine.

use std::path::Path;

use super::path::{self, Arrival, PathFigures};
use super::raw_commit_rate;
use crate::config::Config;

/// What `pbem bench ingest` was asked.
pub(super) struct IngestRun {
    pub games: usize,
    pub mails: usize,
    pub rate: Option<f64>,
    pub finished: usize,
    pub runs: usize,
}

/// One run's figures the summary names.
struct Figures {
    raw: f64,
    all: PathFigures,
    steady: PathFigures,
}

/// Runs the bench `run.runs` times in `scratch` (a folder each) and prints every run, then
/// the medians and ranges.
pub(super) fn run(scratch: &Path, cfg: &Config, run: &IngestRun) -> anyhow::Result<()> {
    let mut each = Vec::with_capacity(run.runs);
    for i in 0..run.runs {
        if run.runs > 1 {
            println!("run {} of {}:", i + 1, run.runs);
        }
        each.push(one(&scratch.join(format!("run{i}")), cfg, run)?);
    }
    if run.runs > 1 {
        summary(&each);
    }
    Ok(())
}

fn one(dir: &Path, cfg: &Config, run: &IngestRun) -> anyhow::Result<Figures> {
    std::fs::create_dir_all(dir)?;
    let (games, mails) = (run.games, run.mails);
    let raw = raw_commit_rate(&dir.join("raw.sqlite"), 1000)?;
    println!(
        "SQLite raw durable commits (one-row transactions, WAL, synchronous=FULL): {raw:.0}/s"
    );
    let all = path::run(&dir.join("all"), cfg, games, mails, 0, Arrival::AllAtOnce)?;
    all.print(&format!("all {mails} waiting"), raw);
    let rate = run.rate.unwrap_or(raw / 2.0);
    let steady = path::run(
        &dir.join("steady"),
        cfg,
        games,
        mails,
        0,
        Arrival::Steady(rate),
    )?;
    steady.print(&format!("arriving at {rate:.0}/s"), raw);
    if run.finished > 0 {
        let finished = run.finished;
        let full = path::run(
            &dir.join("full"),
            cfg,
            games,
            mails,
            finished,
            Arrival::AllAtOnce,
        )?;
        full.print(
            &format!("all waiting, store with {finished} finished games"),
            raw,
        );
        println!(
            "rate with {finished} finished games: {:.1}% of the empty-store rate",
            100.0 * full.rate / all.rate
        );
    }
    Ok(Figures { raw, all, steady })
}

/// The median and range of each target's figure over the runs.
fn summary(each: &[Figures]) {
    let line = |what: &str, unit: &str, f: &dyn Fn(&Figures) -> f64| {
        let mut v: Vec<f64> = each.iter().map(f).collect();
        v.sort_by(f64::total_cmp);
        let list: Vec<String> = each.iter().map(|x| format!("{:.2}", f(x))).collect();
        println!(
            "  {what}: median {:.2}{unit} (range {:.2}-{:.2}; runs {})",
            median(&v),
            v[0],
            v[v.len() - 1],
            list.join(", ")
        );
    };
    println!("over {} runs:", each.len());
    line("raw durable commits", "/s", &|x| x.raw);
    line("all waiting, ratio to raw commits", "x", &|x| {
        x.all.rate / x.raw
    });
    line("all waiting, replies sent", " mails/s", &|x| {
        x.all.sent_rate
    });
    line("all waiting, CPU a mail", " ms", &|x| x.all.cpu_ms());
    line("steady, ratio to raw commits", "x", &|x| {
        x.steady.rate / x.raw
    });
    line("steady, replies sent", " mails/s", &|x| x.steady.sent_rate);
    line("steady, arrival to last reply sent p50", " ms", &|x| {
        x.steady.sent_p50_ms()
    });
    line("steady, CPU a mail", " ms", &|x| x.steady.cpu_ms());
}

fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    match n % 2 {
        1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}
