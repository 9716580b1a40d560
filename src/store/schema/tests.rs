//! The migrations tried on databases written by older schemas.

use super::*;

/// A database written by schema 2 keeps its messages, raw bytes included, through the
/// later migrations.
#[test]
fn version_2_store_migrates_with_its_messages() {
    let mut conn = Connection::open_in_memory().unwrap();
    for sql in &MIGRATIONS[..2] {
        conn.execute_batch(sql).unwrap();
    }
    conn.pragma_update(None, "user_version", 2).unwrap();
    conn.execute(
        "INSERT INTO messages (dedupe_key, raw, received_at, status) \
         VALUES ('k1', x'48690a', '2026-01-01T00:00:00.000Z', 'done')",
        [],
    )
    .unwrap();
    conn.execute_batch(
        "INSERT INTO replies_sent (addr, at) VALUES ('a@b', '2026-01-01T00:00:00.000Z');
         INSERT INTO games (id, kind, status, created_at, updated_at, graced)
             VALUES (7, 'dicerink', 'active', 'c', 'u', 1);
         INSERT INTO moves (game_id, ply, actor, text, at, message_id)
             VALUES (7, 1, 'white', '1N4', 't', 1);
         INSERT INTO outbox (message_id, kind, from_addr, to_addr, subject, body,
                             next_try_at, created_at, status)
             VALUES ('<m1>', 'reply', 'gm@x', 'a@b', 's', 'b', 'n', 'c', 'sent');",
    )
    .unwrap();
    conn.pragma_update(None, "foreign_keys", true).unwrap();
    migrate(&mut conn).unwrap();
    let fk: bool = conn
        .query_row("PRAGMA foreign_keys", [], |r| r.get(0))
        .unwrap();
    assert!(fk, "foreign keys are enforced again after the migration");
    let count = |sql: &str| -> i64 { conn.query_row(sql, [], |r| r.get(0)).unwrap() };
    assert_eq!(
        count("SELECT graced FROM games WHERE id = 7 AND status = 'active'"),
        1
    );
    assert_eq!(
        count("SELECT COUNT(*) FROM moves WHERE game_id = 7 AND message_id = 1"),
        1
    );
    // A game with moves played when the salts closed at the first ply: they stay closed.
    assert_eq!(
        count("SELECT salts_fixed FROM games WHERE id = 7 AND salts_until IS NULL"),
        1
    );
    assert_eq!(
        count("SELECT COUNT(*) FROM outbox WHERE to_addr = 'a@b' AND status = 'sent'"),
        1
    );
    // The rewritten checks still refuse what the old ones did.
    // ('paused' became a status in schema 8; a made-up one is still refused.)
    assert!(conn
        .execute("UPDATE games SET status = 'sleeping'", [])
        .is_err());
    assert_eq!(
        conn.execute("UPDATE games SET status = 'paused' WHERE id = 7", [])
            .unwrap(),
        1
    );
    assert!(conn
        .execute("UPDATE messages SET status = 'lost'", [])
        .is_err());
    assert!(conn
        .execute("UPDATE outbox SET status = 'gone'", [])
        .is_err());
    // And references still hold: a move cannot point at a message that does not exist.
    assert!(conn
        .execute(
            "INSERT INTO moves (game_id, ply, actor, text, at, message_id) \
             VALUES (7, 2, 'black', '1S4', 't', 99)",
            [],
        )
        .is_err());
    let version: i64 = conn
        .query_row("PRAGMA user_version", [], |r| r.get(0))
        .unwrap();
    assert_eq!(version, VERSION);
    let (key, raw): (String, Vec<u8>) = conn
        .query_row(
            "SELECT m.dedupe_key, r.raw FROM messages m JOIN message_raw r ON r.id = m.id",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((key.as_str(), raw.as_slice()), ("k1", &b"Hi\n"[..]));
    assert!(conn.prepare("SELECT raw FROM messages").is_err());
    // Running it again changes nothing.
    migrate(&mut conn).unwrap();
}

/// Mail queued under schema 6 is still there under 7, with no bytes (the sender builds it).
#[test]
fn version_6_outbox_rows_migrate_without_raw_bytes() {
    let mut conn = Connection::open_in_memory().unwrap();
    for sql in &MIGRATIONS[..6] {
        conn.execute_batch(sql).unwrap();
    }
    conn.pragma_update(None, "user_version", 6).unwrap();
    conn.execute(
        "INSERT INTO outbox (message_id, kind, from_addr, to_addr, subject, body, \
         next_try_at, created_at) VALUES ('<m1@x>', 'reply', 'gm@x', 'a@b', 's', 'b', 'n', 'c')",
        [],
    )
    .unwrap();
    migrate(&mut conn).unwrap();
    let (status, raw): (String, Option<Vec<u8>>) = conn
        .query_row(
            "SELECT status, r.raw FROM outbox LEFT JOIN outbox_raw r ON r.id = outbox.id",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert_eq!((status.as_str(), raw), ("pending", None));
}

/// Mail queued under schema 22 keeps its bytes under 23, in their own table, and they go
/// with the mail.
#[test]
fn version_22_outbox_bytes_move_to_their_own_table() {
    let mut conn = Connection::open_in_memory().unwrap();
    for sql in &MIGRATIONS[..22] {
        conn.execute_batch(sql).unwrap();
    }
    conn.pragma_update(None, "user_version", 22).unwrap();
    for (id, raw) in [(1, Some(&b"Subject: one"[..])), (2, None)] {
        conn.execute(
            "INSERT INTO outbox (id, message_id, kind, from_addr, to_addr, subject, body, \
             next_try_at, created_at, raw) VALUES (?1, ?2, 'reply', 'gm@x', 'a@b', 's', 'b', \
             'n', 'c', ?3)",
            rusqlite::params![id, format!("<m{id}@x>"), raw],
        )
        .unwrap();
    }
    migrate(&mut conn).unwrap();
    let bytes = |conn: &Connection| -> Vec<(i64, Vec<u8>)> {
        let mut st = conn
            .prepare("SELECT id, raw FROM outbox_raw ORDER BY id")
            .unwrap();
        let rows = st.query_map([], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
        rows.map(Result::unwrap).collect()
    };
    assert_eq!(bytes(&conn), vec![(1, b"Subject: one".to_vec())]);
    assert!(conn.prepare("SELECT raw FROM outbox").is_err());
    conn.pragma_update(None, "foreign_keys", true).unwrap();
    conn.execute("DELETE FROM outbox WHERE id = 1", []).unwrap();
    assert_eq!(bytes(&conn), vec![]);
}

/// Mail waiting for its HTML part under schema 12 (a JSON `picture`) still waits for the
/// same part under 13, in typed columns.
#[test]
fn version_12_pictures_become_typed_html_waits() {
    let mut conn = Connection::open_in_memory().unwrap();
    for sql in &MIGRATIONS[..12] {
        conn.execute_batch(sql).unwrap();
    }
    conn.pragma_update(None, "user_version", 12).unwrap();
    for (id, picture) in [
        (1, Some(r#"{"game":3,"plies":12}"#)),
        (2, Some("{}")),
        (3, None),
        (4, Some("not json")),
        (5, Some(r#"{"game":3}"#)),
    ] {
        conn.execute(
            "INSERT INTO outbox (id, message_id, kind, from_addr, to_addr, subject, body, \
             next_try_at, created_at, picture) \
             VALUES (?1, ?2, 'reply', 'gm@x', 'a@b', 's', 'b', 'n', 'c', ?3)",
            rusqlite::params![id, format!("<m{id}@x>"), picture],
        )
        .unwrap();
    }
    migrate(&mut conn).unwrap();
    let mut st = conn
        .prepare("SELECT html_wait, board_game, board_plies FROM outbox ORDER BY id")
        .unwrap();
    let rows: Vec<(Option<String>, Option<i64>, Option<i64>)> = st
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let words = (Some("words".to_string()), None, None);
    assert_eq!(
        rows,
        [
            (Some("board".to_string()), Some(3), Some(12)),
            words.clone(),
            (None, None, None),
            words.clone(),
            words,
        ]
    );
    assert!(conn.prepare("SELECT picture FROM outbox").is_err());
}
