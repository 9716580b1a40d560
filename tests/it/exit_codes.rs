//! Issue 27, point 34: the same kind of mistake exits the same code in every command (README's table: 0 done, 1 refused, 2 error).

use crate::common::{output_text as text, pbem_in as pbem};

/// Runs each command line and checks its exit code, naming the kind of mistake on failure.
fn expect(d: &std::path::Path, kind: &str, code: i32, lines: &[&[&str]]) {
    for args in lines {
        let o = pbem(d, args);
        assert_eq!(
            o.status.code(),
            Some(code),
            "{kind}: pbem {}: {}",
            args.join(" "),
            text(&o)
        );
        assert!(
            !text(&o).contains("panicked"),
            "{kind}: {args:?}: {}",
            text(&o)
        );
    }
}

#[test]
fn each_kind_of_mistake_exits_the_same_code_in_every_command() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    expect(d, "done", 0, &[&["init"], &["--help"], &["--version"]]);
    let new = [
        "game",
        "new",
        "dicerink",
        "--player",
        "A=a@x.org",
        "--player",
        "B=b@x.org",
    ];
    expect(d, "done", 0, &[&new]);

    // A game, seat or mail that is not there: refused, whatever the command.
    expect(
        d,
        "unknown game id",
        1,
        &[
            &["game", "show", "99"],
            &["game", "pause", "99"],
            &["game", "play", "99", "--seat", "A", "a1 1/2"],
            &["game", "message", "99", "hello"],
            &["game", "history", "99"],
            &["game", "unquarantine", "99"],
            &["game", "reveal", "99"],
            &["export", "99"],
        ],
    );
    expect(
        d,
        "unknown seat",
        1,
        &[
            &["game", "play", "1", "--seat", "Z", "a1 1/2"],
            &["game", "resign", "1", "--seat", "Z"],
            &["game", "eject", "1", "--seat", "Z"],
            &["game", "legal", "1", "--seat", "Z"],
            &["game", "new", "dicerink", "--player", "Z=z@x.org"],
        ],
    );
    expect(
        d,
        "unknown mail id",
        1,
        &[
            &["outbox", "show", "99"],
            &["outbox", "retry", "99"],
            &["inbox", "show", "99"],
        ],
    );
    // A value the command does not take, whether clap or pbem reads it: refused.
    expect(
        d,
        "bad value",
        1,
        &[
            &["game", "new", "chess", "--player", "A=a@x.org"],
            &["game", "new", "dicerink", "--move-time", "3"],
            &["game", "new", "dicerink", "--option", "foo=bar"],
            &["game", "new", "dicerink", "--option", "setup=sideways"],
            &["game", "new", "dicerink", "--player", "A=not an address"],
            &["game", "extend", "1", "12"],
            &["game", "deadline", "1", "tomorrow"],
            &["game", "set", "1", "grace=soon"],
            &["game", "set", "1", "grace"],
            &["game", "replace", "1", "--seat", "A", "not an address"],
            &["game", "list", "--status", "lost"],
            &["game", "show", "abc"],
            &["inbox", "--status", "lost"],
            &["outbox", "list", "--status", "lost"],
            &["player", "vacation", "a@x.org", "--days", "99"],
            &["analyze", "chess"],
            &["analyze", "d4d6", "--white", "Zz", "--black", "Ra"],
            &["adjudicate", "chess", "orders.json"],
        ],
    );
    // What the game's state or rules forbid: refused.
    expect(
        d,
        "refused by the game",
        1,
        &[
            &["game", "play", "1", "--seat", "A", "zzz"],
            &["game", "resume", "1"],
        ],
    );
    expect(
        d,
        "done",
        0,
        &[&["game", "cancel", "1", "--reason", "the club closed"]],
    );
    expect(
        d,
        "refused by the game",
        1,
        &[
            &["game", "pause", "1"],
            &["game", "cancel", "1", "--reason", "again"],
            &["game", "eject", "1", "--seat", "A"],
            &["game", "start", "1"],
            &["game", "resign", "1", "--seat", "A"],
            &["game", "message", "1", ""],
        ],
    );
    // A command line that is no command: a usage error.
    expect(
        d,
        "usage",
        2,
        &[
            &[],
            &["nosuch"],
            &["game", "show"],
            &["game", "pause", "1", "--bogus"],
            &["player", "vacation", "a@x.org"],
            &["analyze", "d4d6", "--bogus"],
        ],
    );
    // A file that cannot be read, a configuration that does not load, no database: errors.
    expect(
        d,
        "missing file",
        2,
        &[
            &["replay", "missing.pgn"],
            &["verify", "missing.pgn"],
            &["adjudicate", "diptactoe", "missing.json"],
        ],
    );
    std::fs::write(d.join("bad.toml"), "address = [\n").unwrap();
    expect(
        d,
        "unreadable config",
        2,
        &[
            &["--config", "missing.toml", "game", "list"],
            &["--config", "bad.toml", "game", "show", "1"],
            &["--config", "bad.toml", "config", "check"],
            &["--config", "bad.toml", "outbox", "list"],
        ],
    );
    expect(
        d,
        "no database",
        2,
        &[
            &["--db", "nowhere/x.sqlite", "game", "list"],
            &["--db", "nowhere/x.sqlite", "export", "1"],
            &["--db", "nowhere/x.sqlite", "outbox", "list"],
        ],
    );
}
