//! The GM's desk from the command line: `inbox` (filters, duplicates, `show` line by line), `outbox` (next tries, refused retries, `show`), closed pipes, durations, `config check`, `serve`'s log.

use std::path::Path;
use std::process::{Output, Stdio};

use chrono::Duration;
use pbem::games::GameKind;
use pbem::mail::outbound::Transport;

use crate::common::{output_text as text, pbem_command, World};

const ALICE: &str = "alice@example.org";
const BOB: &str = "bob@example.org";

/// `pbem ARGS` on the World's own database.
fn desk(w: &World, args: &[&str]) -> Output {
    pbem_command(w.dir.path(), "pbem.sqlite")
        .args(args)
        .output()
        .unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

fn rink(w: &mut World, a: &str, b: &str) -> i64 {
    w.game(GameKind::DiceRink, &[("A", a), ("B", b)], &[], None, None)
}

/// `inbox show`: the mail decoded, each line's fate as the reply told it, its plies, its
/// reply and its second delivery; a missing mail is exit 1.
#[test]
fn the_gm_reads_one_mail_line_by_line() {
    let mut w = World::new();
    let id = rink(&mut w, ALICE, BOB);
    let to = w.seat_address(id, 0);
    let subject = format!("Re: [pbem #{id}] a move");
    let raw = w.mail(ALICE, &to, &subject, "hello there\nb1 5/4\nc1 3/2");
    let h = w.deliver(&raw).unwrap();
    assert_eq!(h.note, "move played: b1 5/4; 1 line refused");
    assert!(w.deliver(&raw).is_none(), "a duplicate");

    let o = desk(&w, &["inbox", "show", "1"]);
    assert!(o.status.success(), "{}", text(&o));
    let out = stdout(&o);
    for want in [
        "Mail 1, received 2026-03-01 12:00:00 UTC, about game 1\n",
        "From: Player <alice@example.org>\n",
        &format!("To: {to}\n"),
        &format!("Subject: {subject}\n"),
        "Date: Sun, 1 Mar 2026 12:00:00 +0000\n",
        "\nhello there\nb1 5/4\nc1 3/2\n",
        "What became of it: move played: b1 5/4; 1 line refused\n",
        "  hello there -> ignored: not a move or command",
        "  b1 5/4 -> played\n",
        "  c1 3/2 -> refused: not played: one move per mail (only the first move counts)\n",
        "Played: A: b1 5/4\n",
        " to alice@example.org (move_accepted, pending): Re: [pbem #1] Dice Rink\n",
        "Delivered again 2026-03-01 12:00:00 UTC (a duplicate): not processed again\n",
    ] {
        assert!(out.contains(want), "{want:?} missing from:\n{out}");
    }
    let o = desk(&w, &["inbox", "show", "99"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("no mail 99 in the inbox"), "{}", text(&o));
}

/// An auto-reply to the GM's plain address: no person's mail, so ignored.
fn auto_reply(from: &str) -> Vec<u8> {
    format!(
        "From: {from}\r\nTo: gm@pbem.example\r\nSubject: Out of office\r\n\
         Auto-Submitted: auto-replied\r\nMessage-ID: <ooo-1@example.org>\r\n\r\nAway.\r\n"
    )
    .into_bytes()
}

/// The listing filters by game, sender and fate; rows say what became of each mail, and a
/// second delivery is listed as a duplicate.
#[test]
fn the_inbox_lists_by_game_sender_and_fate() {
    let mut w = World::new();
    let first = rink(&mut w, ALICE, BOB);
    let second = rink(&mut w, "carol@example.org", "dave@example.org");
    let (a, b, c) = (
        w.seat_address(first, 0),
        w.seat_address(first, 1),
        w.seat_address(second, 0),
    );
    let moves = [
        (ALICE, a.clone(), "b1 5/4"),          // 1: played
        (BOB, b, "b4 4/2"),                    // 2: illegal: refused
        ("mallory@evil.example", a, "b1 5/4"), // 3: a forged sender: refused
        ("carol@example.org", c, "b1 5/4"),    // 4: played in the second game
    ];
    let mut raws = Vec::new();
    for (from, to, body) in moves {
        let raw = w.mail(from, &to, "Re: move", body);
        assert!(w.deliver(&raw).is_some());
        raws.push(raw);
    }
    assert!(w.deliver(&auto_reply(BOB)).is_some()); // 5: ignored
    assert!(w.deliver(&raws[0]).is_none()); // mail 1 again
                                            // 6: a mail whose processing panics, through `pbem ingest` with the fault armed.
    let mut ingest = pbem_command(w.dir.path(), "pbem.sqlite");
    ingest
        .env("PBEM_ADDRESS", "gm@pbem.example")
        .env("PBEM_FAULT", "process:panic:BOOM")
        .arg("ingest")
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    let mut child = ingest.spawn().unwrap();
    std::io::Write::write_all(
        &mut child.stdin.take().unwrap(),
        b"From: eve@example.net\r\nTo: gm@pbem.example\r\nSubject: BOOM\r\n\
          Message-ID: <boom@example.net>\r\n\r\nHELP\r\n",
    )
    .unwrap();
    assert_eq!(child.wait().unwrap().code(), Some(0));
    // Its background worker (which inherits the fault) answers it.
    crate::common::wait_for_workers(&w.dir.path().join("pbem.sqlite"));

    let rows = |args: &[&str]| -> Vec<String> {
        let o = desk(&w, &[&["inbox"], args].concat());
        assert!(o.status.success(), "{args:?}: {}", text(&o));
        stdout(&o).lines().map(str::to_string).collect()
    };
    let ids = |rows: &[String]| -> Vec<i64> {
        rows.iter()
            .map(|r| r.split_whitespace().next().unwrap().parse().unwrap())
            .collect()
    };
    let all = rows(&[]);
    assert_eq!(
        all.len(),
        7,
        "six mails and a duplicate:\n{}",
        all.join("\n")
    );
    let joined = all.join("\n");
    assert!(joined.contains("move played: b1 5/4"), "{joined}");
    assert!(
        joined.contains("duplicate of mail 1: not processed again"),
        "{joined}"
    );
    assert!(!joined.contains("line(s) answered"), "{joined}");
    let refused = rows(&["--status", "refused"]);
    assert_eq!(ids(&refused), [3, 2], "{refused:?}");
    assert!(
        refused[0].contains("refused: spoofed: mallory@evil.example"),
        "{refused:?}"
    );
    assert!(refused[1].contains("refused: "), "{refused:?}");
    let ignored = rows(&["--status", "ignored"]);
    assert_eq!(ids(&ignored), [5], "{ignored:?}");
    assert!(ignored[0].contains("ignored: auto-reply"), "{ignored:?}");
    let failed = rows(&["--status", "failed"]);
    assert_eq!(ids(&failed), [6], "{failed:?}");
    assert!(
        failed[0].contains("failed: ") && failed[0].contains("panic"),
        "{failed:?}"
    );
    assert_eq!(ids(&rows(&["--status", "done"])), [4, 1]);
    assert_eq!(ids(&rows(&["--status", "duplicate"])), [1]);
    assert_eq!(ids(&rows(&["--game", &second.to_string()])), [4]);
    assert_eq!(ids(&rows(&["--from", "BOB@example.org"])), [5, 2]);
    assert_eq!(ids(&rows(&["--from", ALICE, "--status", "done"])), [1]);
    assert_eq!(rows(&["--from", "nobody@example.org"]), ["no mail"]);
    let o = desk(&w, &["inbox", "--status", "lost"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        text(&o).contains("one of: new, done, refused"),
        "{}",
        text(&o)
    );
}

/// `outbox list` says when each mail is tried next; `retry` of a missing or sent mail is
/// refused with the reason; `show` decodes the stored bytes, or shows the columns.
#[test]
fn the_outbox_shows_next_tries_refuses_pointless_retries_and_decodes_a_mail() {
    let mut w = World::new();
    // Tomorrow, so the next try is still ahead when the command line reads the clock.
    w.now = pbem::edge::now() + Duration::days(1);
    rink(&mut w, ALICE, BOB);
    let down = Transport::from_url("smtp://127.0.0.1:1", None).unwrap();
    let t0 = w.now;
    pbem::sender::drain(&mut w.store, &w.cfg, &down, &|| t0).unwrap();
    w.store.tx(|tx| tx.mark_sent(2, t0)).unwrap();
    let next = (t0 + Duration::seconds(60))
        .format("%Y-%m-%d %H:%M")
        .to_string();

    let o = desk(&w, &["outbox", "list"]);
    let out = stdout(&o);
    let line = |id: &str| -> String {
        out.lines()
            .find(|l| l.split_whitespace().next() == Some(id))
            .unwrap_or_else(|| panic!("no row {id}:\n{out}"))
            .to_string()
    };
    assert!(line("1").contains(&format!("pending next {next}")), "{out}");
    assert!(line("2").contains(" sent    sent "), "{out}");
    assert!(
        out.contains("      last error: smtp://127.0.0.1:1"),
        "{out}"
    );

    let o = desk(&w, &["outbox", "retry", "2"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("mail 2 was sent already at "),
        "{}",
        text(&o)
    );
    let o = desk(&w, &["outbox", "retry", "99"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("no mail 99 in the outbox"),
        "{}",
        text(&o)
    );
    let row = w.store.tx(|tx| tx.outbox_mail(1)).unwrap().unwrap();
    let o = desk(&w, &["outbox", "show", "1"]);
    assert!(o.status.success(), "{}", text(&o));
    let out = stdout(&o);
    assert!(
        out.starts_with("Outbox mail 1: pending (welcome), 1 tries"),
        "{out}"
    );
    assert!(out.contains(&format!("\nTo: {ALICE}\n")), "{out}");
    assert!(
        out.contains(&format!("\nSubject: {}\n", row.subject)),
        "{out}"
    );
    assert!(out.contains("\nLast error: smtp://127.0.0.1:1"), "{out}");
    let first_line = row.body.lines().next().unwrap();
    assert!(out.contains(&format!("\n\n{first_line}\n")), "{out}");
    assert!(!out.contains("Content-Transfer-Encoding"), "decoded: {out}");

    // A retry is tried at once (README: "try again now"), through the GM's transport.
    let o = desk(&w, &["outbox", "retry", "1"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(stdout(&o).contains("mail 1 queued again"), "{}", text(&o));
    assert!(stdout(&o).contains("sent 1, retrying 0"), "{}", text(&o));
    let o = desk(&w, &["outbox", "list", "--status", "pending"]);
    assert!(!stdout(&o).contains("welcome"), "{}", text(&o));

    // A mail queued by an older pbem has no bytes: its columns are shown.
    let conn = rusqlite::Connection::open(w.dir.path().join("pbem.sqlite")).unwrap();
    conn.execute("DELETE FROM outbox_raw WHERE id = 1", [])
        .unwrap();
    let out = stdout(&desk(&w, &["outbox", "show", "1"]));
    assert!(out.contains("(no stored bytes"), "{out}");
    assert!(out.contains(&format!("\nTo: {ALICE}\n")), "{out}");
    let o = desk(&w, &["outbox", "show", "99"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
}

/// `pbem ARGS` with its standard output a pipe whose reader is already gone: every write
/// fails with EPIPE, as behind `| head -1` once head has its line.
fn with_closed_stdout(dir: &Path, args: &[&str]) -> Output {
    let mut child = pbem_command(dir, "g.sqlite")
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    child.wait_with_output().unwrap()
}

/// A reader that closes the pipe early ends the command quietly (exit 0), for every kind of
/// output; a full disk is an error (exit 2), never a panic.
#[test]
fn a_closed_pipe_ends_a_command_quietly() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let pbem = |args: &[&str]| crate::common::pbem_in(d, args);
    assert!(pbem(&["init"]).status.success());
    let new = [
        "game",
        "new",
        "dicerink",
        "--player",
        "A=a@x.org",
        "--player",
        "B=b@x.org",
    ];
    assert!(pbem(&new).status.success());
    assert!(pbem(&["game", "play", "1", "--seat", "A", "b1 5/4"])
        .status
        .success());
    for args in [
        &["inbox"][..],
        &["game", "list"],
        &["game", "show", "1"],
        &["export", "1"],
        &["outbox", "list"],
        &["--help"],
    ] {
        let o = with_closed_stdout(d, args);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{args:?}: {err}");
        assert_eq!(o.status.code(), Some(0), "{args:?}: {err}");
    }
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .unwrap();
    let o = pbem_command(d, "g.sqlite")
        .args(["export", "1"])
        .stdout(full)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("cannot write the output"), "{err}");
}
