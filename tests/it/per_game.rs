//! A suite's per-game scenario table, run over the registry: every game of `GameKind::ALL` by its entry, each on a thread named after the game, and a game without an entry named in the failure.

use pbem::games::GameKind;

/// A suite's scenarios: an entry for each game of `GameKind::ALL`.
pub type Table<T> = [(GameKind, T)];

/// Fails unless `table` has exactly one entry for each game of `GameKind::ALL`, naming each
/// game without one (a game added to the registry needs a scenario in every suite).
pub fn assert_covers<T>(suite: &str, table: &Table<T>) {
    let entries = |kind: GameKind| table.iter().filter(|(k, _)| *k == kind).count();
    let missing: Vec<&str> = GameKind::ALL
        .iter()
        .filter(|&&k| entries(k) == 0)
        .map(|k| k.name())
        .collect();
    assert!(
        missing.is_empty(),
        "{suite}: no scenario for {}: add one to its table",
        missing.join(", ")
    );
    let twice: Vec<&str> = GameKind::ALL
        .iter()
        .filter(|&&k| entries(k) > 1)
        .map(|k| k.name())
        .collect();
    assert!(
        twice.is_empty(),
        "{suite}: more than one scenario for {}",
        twice.join(", ")
    );
}

/// Runs `check` on every game's scenario, in the registry's order, each game on its own
/// thread named after it (as separate tests ran them, side by side; a panic names the game);
/// then fails naming every game whose check failed, and every game the table lacks.
pub fn run_each<T: Sync>(suite: &str, table: &Table<T>, check: impl Fn(GameKind, &T) + Sync) {
    let check = &check;
    let failed: Vec<&str> = std::thread::scope(|s| {
        let running: Vec<_> = GameKind::ALL
            .iter()
            .filter_map(|&kind| {
                let (_, scenario) = table.iter().find(|(k, _)| *k == kind)?;
                let thread = std::thread::Builder::new()
                    .name(kind.name().to_string())
                    .spawn_scoped(s, move || check(kind, scenario))
                    .expect("a thread for the game");
                Some((kind, thread))
            })
            .collect();
        running
            .into_iter()
            .filter_map(|(kind, thread)| thread.join().is_err().then_some(kind.name()))
            .collect()
    });
    assert!(
        failed.is_empty(),
        "{suite} failed for {} (each game's panic is above)",
        failed.join(", ")
    );
    assert_covers(suite, table);
}
