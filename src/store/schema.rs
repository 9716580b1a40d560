//! Schema migrations: an ordered list applied in one transaction, tracked by `PRAGMA user_version`.

use rusqlite::{Connection, OptionalExtension};

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
    // instead of a second log of every reply; and the status checks compare with `=`: SQLite
    // evaluates `IN` over three or more values with a temporary table, built again at every
    // insert and update of the row. (Tables are rebuilt, SQLite's way to change a CHECK.)
    r#"
    CREATE TABLE games_new (
        id             INTEGER PRIMARY KEY,
        kind           TEXT NOT NULL,
        options        TEXT NOT NULL DEFAULT '{}',
        status         TEXT NOT NULL
                       CHECK (status = 'open' OR status = 'active' OR status = 'finished'),
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
        updated_at     TEXT NOT NULL,
        graced         INTEGER NOT NULL DEFAULT 0
    );
    INSERT INTO games_new SELECT * FROM games;
    DROP TABLE games;
    ALTER TABLE games_new RENAME TO games;
    CREATE INDEX games_status ON games(status);

    CREATE TABLE messages_new (
        id          INTEGER PRIMARY KEY,
        dedupe_key  TEXT NOT NULL UNIQUE,
        received_at TEXT NOT NULL,
        status      TEXT NOT NULL DEFAULT 'new'
                    CHECK (status = 'new' OR status = 'done' OR status = 'refused'
                           OR status = 'failed'),
        note        TEXT,
        from_addr   TEXT,
        game_id     INTEGER
    );
    INSERT INTO messages_new (id, dedupe_key, received_at, status, note, from_addr, game_id)
        SELECT id, dedupe_key, received_at, status, note, from_addr, game_id FROM messages;
    CREATE TABLE message_raw (
        id  INTEGER PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
        raw BLOB NOT NULL
    );
    INSERT INTO message_raw (id, raw) SELECT id, raw FROM messages;
    DROP TABLE messages;
    ALTER TABLE messages_new RENAME TO messages;
    CREATE INDEX messages_status ON messages(status);

    CREATE TABLE outbox_new (
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
                    CHECK (status = 'pending' OR status = 'sent' OR status = 'failed'),
        attempts    INTEGER NOT NULL DEFAULT 0,
        next_try_at TEXT NOT NULL,
        last_error  TEXT,
        created_at  TEXT NOT NULL,
        sent_at     TEXT
    );
    INSERT INTO outbox_new SELECT * FROM outbox;
    DROP TABLE outbox;
    ALTER TABLE outbox_new RENAME TO outbox;
    CREATE INDEX outbox_due ON outbox(status, next_try_at);
    CREATE INDEX outbox_to ON outbox(to_addr, created_at);

    DROP TABLE replies_sent;
    "#,
    // 4: the salt window. No die is rolled before every player could add a salt: the salts
    // close when every seat has sent START (`seats.ready`), when `salts_until` passes, or when
    // the GM starts the game; `salts_fixed` records that they closed. A game that already has
    // moves played under the old rule (salts fixed at the first ply), so it counts as fixed.
    r#"
    ALTER TABLE games ADD COLUMN salts_until TEXT;
    ALTER TABLE games ADD COLUMN salts_fixed INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE seats ADD COLUMN ready INTEGER NOT NULL DEFAULT 0;
    UPDATE games SET salts_fixed = 1
        WHERE EXISTS (SELECT 1 FROM moves WHERE moves.game_id = games.id);
    "#,
    // 5: quarantine. A game whose timer or adjudication fails (an error or a panic) is set
    // aside with the reason, so its timers stop and every other game goes on; NULL is fine.
    r#"
    ALTER TABLE games ADD COLUMN quarantined TEXT;
    "#,
    // 6 (hostile mail): NEW and JOIN wait in `requests` until the address confirms them by
    // replying to a one-time code; `throttle` counts per address what must be bounded per hour
    // (answers to mail that proves no seat, failed authentications, notices already given).
    r#"
    CREATE TABLE requests (
        id         INTEGER PRIMARY KEY,
        code       TEXT NOT NULL UNIQUE,
        kind       TEXT NOT NULL CHECK (kind = 'new' OR kind = 'join'),
        address    TEXT NOT NULL COLLATE NOCASE,
        payload    TEXT NOT NULL,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL
    );
    CREATE INDEX requests_address ON requests(address);
    CREATE TABLE throttle (
        address TEXT NOT NULL COLLATE NOCASE,
        what    TEXT NOT NULL,
        at      TEXT NOT NULL
    );
    CREATE INDEX throttle_address ON throttle(address, what, at);
    "#,
    // 7: the outbox holds each mail finished, as the RFC 5322 bytes built when it was queued;
    // the sender only sends them. Rows queued before have none (NULL): the sender builds
    // those from their columns. The other columns stay, for the GM's listing and the rate
    // limit.
    r#"
    ALTER TABLE outbox ADD COLUMN raw BLOB;
    "#,
    // 8: the GM may pause a game (`pbem game pause`): a status of its own, so that every check
    // for an active game leaves a paused one alone (no clock runs, no move is played), and
    // when and why, so that resuming gives every clock back the time that was left.
    r#"
    CREATE TABLE games_new (
        id             INTEGER PRIMARY KEY,
        kind           TEXT NOT NULL,
        options        TEXT NOT NULL DEFAULT '{}',
        status         TEXT NOT NULL
                       CHECK (status = 'open' OR status = 'active' OR status = 'finished'
                              OR status = 'paused'),
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
        updated_at     TEXT NOT NULL,
        graced         INTEGER NOT NULL DEFAULT 0,
        salts_until    TEXT,
        salts_fixed    INTEGER NOT NULL DEFAULT 0,
        quarantined    TEXT,
        paused_at      TEXT,
        pause_reason   TEXT
    );
    INSERT INTO games_new SELECT *, NULL, NULL FROM games;
    DROP TABLE games;
    ALTER TABLE games_new RENAME TO games;
    CREATE INDEX games_status ON games(status);
    "#,
    // 9: the daily digest (`DIGEST ON`): a player who asked for it gets the turn reports of a
    // day as one mail; `digest_due` is when the waiting one goes (NULL: none waits), and
    // `digest_sent_at` when the last one went (at most one a day).
    r#"
    ALTER TABLE players ADD COLUMN digest INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE players ADD COLUMN digest_due TEXT;
    ALTER TABLE players ADD COLUMN digest_sent_at TEXT;
    "#,
    // 10: a mail to a player waits for its HTML part (the board as a picture), made after the
    // commit that queued it, off the inbound mail's critical section: `picture` names the
    // position to draw (`{"game": 3, "plies": 12}`, or `{}` for HTML without a board); NULL
    // once the mail is finished. Its text-only bytes are stored already: it can always go.
    r#"
    ALTER TABLE outbox ADD COLUMN picture TEXT;
    CREATE INDEX outbox_picture ON outbox(picture) WHERE picture IS NOT NULL;
    "#,
    // 11: the timers look for due digests at every pass: an index of the few that wait.
    r#"
    CREATE INDEX players_digest_due ON players(digest_due) WHERE digest_due IS NOT NULL;
    "#,
    // 12: what `serve`'s IMAP thread carried into the spool (mailbox, UIDVALIDITY, UID), so a
    // server that forgets its flags does not have the same mail fetched again and again.
    r#"
    CREATE TABLE imap_carried (
        mailbox      TEXT NOT NULL,
        uid_validity INTEGER NOT NULL,
        uid          INTEGER NOT NULL,
        PRIMARY KEY (mailbox, uid_validity, uid)
    ) WITHOUT ROWID;
    "#,
    // 13: the HTML part a mail waits for, in typed columns instead of schema 10's JSON
    // `picture` (where `{}` meant HTML without a board): `html_wait` is 'words' (its text as
    // HTML) or 'board' (with the board of game `board_game` after `board_plies` plies drawn),
    // NULL when nothing waits (a text-only mail, or its HTML part made or given up). A
    // `picture` that does not name both a game and a number of plies meant 'words'.
    r#"
    ALTER TABLE outbox ADD COLUMN html_wait TEXT CHECK (html_wait IN ('words', 'board'));
    ALTER TABLE outbox ADD COLUMN board_game INTEGER;
    ALTER TABLE outbox ADD COLUMN board_plies INTEGER;
    UPDATE outbox SET
        board_game = json_extract(picture, '$.game'),
        board_plies = json_extract(picture, '$.plies')
    WHERE json_valid(picture)
        AND json_type(picture, '$.game') = 'integer'
        AND json_type(picture, '$.plies') = 'integer'
        AND json_extract(picture, '$.plies') >= 0;
    UPDATE outbox SET html_wait = CASE WHEN board_game IS NULL THEN 'words' ELSE 'board' END
    WHERE picture IS NOT NULL;
    DROP INDEX outbox_picture;
    ALTER TABLE outbox DROP COLUMN picture;
    CREATE INDEX outbox_html_wait ON outbox(id) WHERE html_wait IS NOT NULL;
    "#,
    // 14: missed turns are counted once, by the game itself (its position, and its report):
    // the seats' own count, a second one the clock kept, goes. What a seat keeps is how many
    // of the game's count came before its player took it (a new player starts clean).
    r#"
    ALTER TABLE seats RENAME COLUMN missed TO missed_before;
    UPDATE seats SET missed_before = 0;
    "#,
    // 15: what caused a mail, for `outbox list` and serve's log (`pbem game pause 3`, the GM's
    // command); NULL for mail queued before, or with no cause to name beyond its kind.
    r#"
    ALTER TABLE outbox ADD COLUMN cause TEXT;
    "#,
    // 16: robots at the table. A seat may be played by the robot (`robot` names its level;
    // such a seat has no player, no address and gets no mail), and a ply the robot played
    // (for a robot seat, or for a late player under `timeout=robot`) is marked as such
    // (`moves.robot`: the record's comment after it, e.g. `robot for B, out of time`).
    r#"
    ALTER TABLE seats ADD COLUMN robot TEXT CHECK (robot IN ('easy', 'normal', 'strong'));
    ALTER TABLE moves ADD COLUMN robot TEXT;
    "#,
    // 17: a ply's comment, kept from a record brought in (`game new --from-record`): the
    // annotator's words after it, written back in its record.
    r#"
    ALTER TABLE moves ADD COLUMN comment TEXT;
    "#,
    // 18: reliability (the Diplomacy judges' dedication). Each turn a player owed, and each
    // game they left, as it was settled: `duties` keeps the player (a seat changes hands),
    // the game and what became of it; `seats.overdue` marks a seat whose deadline passed
    // without its move (a grace granted, or the clock stopped for the GM), so that a move
    // it makes after is known late. Games played before have no rows: no record yet.
    r#"
    CREATE TABLE duties (
        id        INTEGER PRIMARY KEY,
        player_id INTEGER NOT NULL REFERENCES players(id),
        game_id   INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        at        TEXT NOT NULL,
        kind      TEXT NOT NULL
                  CHECK (kind = 'in_time' OR kind = 'late' OR kind = 'missed' OR kind = 'left')
    );
    CREATE INDEX duties_player ON duties(player_id);
    ALTER TABLE seats ADD COLUMN overdue INTEGER NOT NULL DEFAULT 0;
    "#,
    // 19: each game kind's ratings as they stood after its `games` finished games, so that a
    // game's end moves them on by that game alone (its game-over mail's rating line) instead
    // of replaying every finished game in the mail's transaction. Rebuilt from the games when
    // it does not cover all but the game ending (a game brought in, a database from before).
    r#"
    CREATE TABLE rating_memo (
        kind  TEXT PRIMARY KEY,
        games INTEGER NOT NULL,
        state TEXT NOT NULL
    );
    "#,
    // 20: a finished game's facts as the statistics and the ratings count them (JSON: its
    // result, how it ended, its length), kept when it ends, so that STATS and RATINGS read
    // each finished game's row instead of replaying its log. NULL for a game finished before
    // (or in play): replayed, as before.
    r#"
    ALTER TABLE games ADD COLUMN facts TEXT;
    "#,
    // 21: mail that does not arrive. A delivery report tied to the mail it returns marks that
    // outbox row (`bounced_at`, the remote server's words in `bounce`); `unreachable` keeps
    // each address that bounces since when, how often for good and for now, the day the GM
    // was last told, and, once its mail is held, when the next daily probe may go. A mail
    // from the address deletes its row. `keys` holds the store's own secrets (the bounce
    // address's MAC key), made once from the OS's randomness.
    r#"
    ALTER TABLE outbox ADD COLUMN bounced_at TEXT;
    ALTER TABLE outbox ADD COLUMN bounce TEXT;
    CREATE INDEX outbox_bounced ON outbox(bounced_at) WHERE bounced_at IS NOT NULL;
    CREATE TABLE unreachable (
        addr      TEXT PRIMARY KEY COLLATE NOCASE,
        since     TEXT NOT NULL,
        last_at   TEXT NOT NULL,
        permanent INTEGER NOT NULL DEFAULT 0,
        transient INTEGER NOT NULL DEFAULT 0,
        reason    TEXT NOT NULL,
        told_on   TEXT,
        probe_at  TEXT
    );
    CREATE TABLE keys (
        name  TEXT PRIMARY KEY,
        value BLOB NOT NULL
    );
    "#,
    // 22: each position's board drawn once (`compose::illustrate`): its texts and PNG by
    // (game, plies), so both players of a move, every seat of a turn, the digest and a resend
    // attach the same bytes, whichever process draws. A picture goes with what makes it
    // untrue: the plies it shows rolled back, the game's options or start changed, the game
    // over or deleted. `keep_picture` keeps only a game's latest few.
    r#"
    CREATE TABLE pictures (
        game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        plies   INTEGER NOT NULL,
        board   TEXT NOT NULL,
        beside  TEXT NOT NULL,
        png     BLOB NOT NULL,
        PRIMARY KEY (game_id, plies)
    );
    CREATE TRIGGER pictures_rolled_back AFTER DELETE ON moves BEGIN
        DELETE FROM pictures WHERE game_id = OLD.game_id AND plies >= OLD.ply;
    END;
    CREATE TRIGGER pictures_untrue AFTER UPDATE OF status, options, start_position ON games
    WHEN NEW.status = 'finished' OR NEW.options IS NOT OLD.options
         OR NEW.start_position IS NOT OLD.start_position BEGIN
        DELETE FROM pictures WHERE game_id = NEW.id;
    END;
    "#,
    // 23: each queued mail's bytes in a table of their own, as the inbound messages' are
    // (3): SQLite writes a row whole, so marking a mail sent or illustrated rewrote its
    // bytes (a board picture's, some kilobytes) each time, and every read of the outbox's
    // columns went through them. A mail's bytes go with it.
    r#"
    CREATE TABLE outbox_raw (
        id  INTEGER PRIMARY KEY REFERENCES outbox(id) ON DELETE CASCADE,
        raw BLOB NOT NULL
    );
    INSERT INTO outbox_raw (id, raw) SELECT id, raw FROM outbox WHERE raw IS NOT NULL;
    ALTER TABLE outbox DROP COLUMN raw;
    "#,
    // 24: a part many queued mails carry the same (a board picture, in base64 as the mails
    // have it) stored once, found by its SHA-256: each of those mails' bytes are stored
    // without it, with the part's id and the offset it goes back in
    // (`Tx::illustrated_spliced`). Both players of a move, every seat of a Dip-Tac-Toe turn,
    // a refusal, a reminder and a resend showed the same picture in bytes of their own.
    r#"
    CREATE TABLE outbox_parts (
        id     INTEGER PRIMARY KEY,
        digest BLOB NOT NULL UNIQUE,
        part   BLOB NOT NULL
    );
    ALTER TABLE outbox_raw ADD COLUMN part INTEGER REFERENCES outbox_parts(id);
    ALTER TABLE outbox_raw ADD COLUMN part_at INTEGER;
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
    // A migration may rebuild a table that others reference (SQLite's way to change its
    // constraints): foreign keys are off while it runs, and checked before it commits.
    let enforced: bool = conn.query_row("PRAGMA foreign_keys", [], |r| r.get(0))?;
    conn.pragma_update(None, "foreign_keys", false)?;
    let result = (|| -> anyhow::Result<()> {
        let tx = conn.transaction()?;
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(current as usize) {
            tx.execute_batch(sql)?;
            tx.pragma_update(None, "user_version", (i + 1) as i64)?;
        }
        let broken: Option<String> = tx
            .query_row("PRAGMA foreign_key_check", [], |r| r.get(0))
            .optional()?;
        if let Some(table) = broken {
            anyhow::bail!("the migration left rows in {table} without their parent");
        }
        tx.commit()?;
        Ok(())
    })();
    conn.pragma_update(None, "foreign_keys", enforced)?;
    result
}

#[cfg(test)]
mod tests;
