//! `pbem bench tablebase`: how long the d4 d6 chess endgame tables take to solve, every pair.

use std::time::Instant;

use crate::games::d4d6::pieces::Kind;
use crate::games::d4d6::tablebase::{SolvedLayers, Table};

/// For the standard game (25 pairs of pieces) and the Rinoceronte variant (36): the whole set
/// of tables, sharing the layers they have in common, then the biggest table on its own (what
/// one `pbem analyze d4d6` of two Cavalos costs).
pub(super) fn run() -> anyhow::Result<i32> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("{threads} threads");
    for rinoceronte in [false, true] {
        let name = if rinoceronte {
            "Rinoceronte variant"
        } else {
            "standard game"
        };
        let kinds: Vec<Kind> = Kind::ALL
            .into_iter()
            .filter(|k| k.is_gambling() && (rinoceronte || *k != Kind::Rinoceronte))
            .collect();
        let started = Instant::now();
        let (mut tables, mut sweeps) = (0, 0);
        let mut solved = SolvedLayers::default();
        for &white in &kinds {
            for &black in &kinds {
                sweeps += Table::solve_reusing(white, black, rinoceronte, &mut solved).sweeps;
                tables += 1;
            }
        }
        println!(
            "{name}: all {tables} tables in {:.2} s ({sweeps} sweeps)",
            started.elapsed().as_secs_f64()
        );
        let started = Instant::now();
        let alone = Table::solve(Kind::Cavalo, Kind::Cavalo, rinoceronte);
        println!(
            "{name}: Cavalo v Cavalo alone in {:.2} s ({} sweeps)",
            started.elapsed().as_secs_f64(),
            alone.sweeps
        );
    }
    Ok(0)
}
