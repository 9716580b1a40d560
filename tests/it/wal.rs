//! The WAL between processes: one process per mail, each opening the database alone, must not let it grow.

use pbem::store::Store;

/// Every `pbem ingest` without a daemon opens the database alone, rebuilds the WAL's index
/// from the file, writes its mail and closes. SQLite then never starts the WAL over (each
/// new process believes no frame is in the database yet), so before `Store` emptied it at
/// close it grew by every commit's pages for good, and every start read it whole.
#[test]
fn the_wal_stays_small_when_every_process_opens_the_database_alone() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("pbem.sqlite");
    let wal = dir.path().join("pbem.sqlite-wal");
    let mut largest = 0;
    for _ in 0..300 {
        let mut store = Store::open(&db, true).unwrap();
        store.bench_raw_commits(1).unwrap();
        drop(store);
        largest = largest.max(std::fs::metadata(&wal).map_or(0, |m| m.len()));
    }
    // 300 commits of at least two pages each would be over 2 MB; the store keeps about 64.
    assert!(largest > 0, "the WAL is kept between processes");
    assert!(largest <= 80 * 4120, "the WAL grew to {largest} bytes");
    // Every commit is still there, folded into the database.
    let store = Store::open(&db, false).unwrap();
    assert_eq!(store.bench_raw_count().unwrap(), 300);
}
