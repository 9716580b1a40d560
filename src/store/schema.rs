//! Schema migrations: an ordered list applied in one transaction, tracked by `PRAGMA user_version`.

use rusqlite::Connection;

/// Each entry moves the schema from version i to i+1. Never edit a released entry: append.
const MIGRATIONS: &[&str] = &[
    // 1: games, players, seats, the move log, inbound messages, the outbox.
    r#"
    CREATE TABLE players (
        id             INTEGER PRIMARY KEY,
        email          TEXT NOT NULL UNIQUE COLLATE NOCASE,
        name           TEXT,
        password_hash  TEXT,
        vacation_until TEXT
    );
    CREATE TABLE games (
        id             INTEGER PRIMARY KEY,
        kind           TEXT NOT NULL,
        options        TEXT NOT NULL DEFAULT '{}',
        status         TEXT NOT NULL CHECK (status IN ('open', 'active', 'finished')),
        event          TEXT,
        start_position TEXT,
        result         TEXT,
        seed           TEXT,
        commitment     TEXT,
        salts          TEXT NOT NULL DEFAULT '[]',
        seed_revealed  INTEGER NOT NULL DEFAULT 0,
        move_secs      INTEGER,
        deadline       TEXT,
        reminded       INTEGER NOT NULL DEFAULT 0,
        thread_id      TEXT,
        created_at     TEXT NOT NULL,
        updated_at     TEXT NOT NULL
    );
    CREATE INDEX games_status ON games(status);
    CREATE TABLE seats (
        game_id    INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seat       INTEGER NOT NULL,
        player_id  INTEGER REFERENCES players(id),
        token      TEXT UNIQUE,
        missed     INTEGER NOT NULL DEFAULT 0,
        draw_offer INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX seats_player ON seats(player_id);
    CREATE TABLE moves (
        game_id    INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        ply        INTEGER NOT NULL,
        actor      TEXT NOT NULL,
        text       TEXT NOT NULL,
        at         TEXT NOT NULL,
        message_id INTEGER REFERENCES messages(id),
        PRIMARY KEY (game_id, ply)
    );
    CREATE TABLE pending (
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        seat    INTEGER NOT NULL,
        kind    TEXT NOT NULL CHECK (kind IN ('orders', 'plan')),
        lines   TEXT NOT NULL,
        at      TEXT NOT NULL,
        PRIMARY KEY (game_id, seat, kind)
    );
    CREATE TABLE messages (
        id          INTEGER PRIMARY KEY,
        dedupe_key  TEXT NOT NULL UNIQUE,
        raw         BLOB NOT NULL,
        received_at TEXT NOT NULL,
        status      TEXT NOT NULL DEFAULT 'new'
                    CHECK (status IN ('new', 'done', 'refused', 'failed')),
        note        TEXT,
        from_addr   TEXT,
        game_id     INTEGER
    );
    CREATE INDEX messages_status ON messages(status);
    CREATE TABLE outbox (
        id          INTEGER PRIMARY KEY,
        message_id  TEXT NOT NULL UNIQUE,
        kind        TEXT NOT NULL,
        game_id     INTEGER,
        from_addr   TEXT NOT NULL,
        to_addr     TEXT NOT NULL,
        reply_to    TEXT,
        subject     TEXT NOT NULL,
        body        TEXT NOT NULL,
        in_reply_to TEXT,
        refs        TEXT,
        status      TEXT NOT NULL DEFAULT 'pending'
                    CHECK (status IN ('pending', 'sent', 'failed')),
        attempts    INTEGER NOT NULL DEFAULT 0,
        next_try_at TEXT NOT NULL,
        last_error  TEXT,
        created_at  TEXT NOT NULL,
        sent_at     TEXT
    );
    CREATE INDEX outbox_due ON outbox(status, next_try_at);
    CREATE TABLE replies_sent (
        addr TEXT NOT NULL,
        at   TEXT NOT NULL
    );
    CREATE INDEX replies_sent_addr ON replies_sent(addr, at);
    CREATE TABLE events (
        id      INTEGER PRIMARY KEY,
        game_id INTEGER,
        at      TEXT NOT NULL,
        text    TEXT NOT NULL
    );
    "#,
    // 2: a deadline's grace period, applied once per deadline.
    r#"
    ALTER TABLE games ADD COLUMN graced INTEGER NOT NULL DEFAULT 0;
    "#,
    // 3: lighter writes per message. The raw bytes move to their own table, so marking a
    // message done no longer rewrites them; the reply rate limit counts the outbox itself
    // instead of a second log of every reply.
    r#"
    CREATE TABLE message_raw (
        id  INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
        raw BLOB NOT NULL
    );
    INSERT INTO message_raw (id, raw) SELECT id, raw FROM messages;
    ALTER TABLE messages DROP COLUMN raw;
    DROP TABLE replies_sent;
    CREATE INDEX outbox_to ON outbox(to_addr, created_at);
    "#,
];

/// The schema version this build writes.
pub const VERSION: i64 = MIGRATIONS.len() as i64;

/// Brings the database up to `VERSION`; refuses a database written by a newer pbem.
pub fn migrate(conn: &mut Connection) -> anyhow::Result<()> {
    let current: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if current > VERSION {
        anyhow::bail!(
            "the database has schema version {current}, newer than this pbem ({VERSION}): upgrade pbem"
        );
    }
    if current == VERSION {
        return Ok(());
    }
    let tx = conn.transaction()?;
    for (i, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
        tx.execute_batch(sql)?;
        tx.pragma_update(None, "user_version", (i + 1) as i64)?;
    }
    tx.commit()?;
    Ok(())
}

#[cfg(test)]
mod tests {
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
        conn.execute(
            "INSERT INTO replies_sent (addr, at) VALUES ('a@b', '2026-01-01T00:00:00.000Z')",
            [],
        )
        .unwrap();
        migrate(&mut conn).unwrap();
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
}
