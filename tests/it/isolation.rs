//! Failure isolation: a mail whose processing panics fails alone, and its batch still commits;
//! a game whose timer fails is quarantined, and every other game goes on.

use std::io::Write;
use std::path::Path;
use std::process::{Output, Stdio};

use crate::common::World;
use chrono::Duration;
use pbem::games::GameKind;
use pbem::store::Store;

/// Runs pbem in `dir` (database, outbox folder and Maildir there), with `fault` armed.
fn pbem(dir: &Path, args: &[&str], fault: Option<&str>, stdin: Option<&[u8]>) -> Output {
    let mut cmd = crate::common::pbem_command(dir, "pbem.sqlite");
    cmd.args(args)
        .env("PBEM_MAILDIR", dir.join("Maildir"))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(f) = fault {
        cmd.env("PBEM_FAULT", f);
    }
    let mut child = cmd.spawn().unwrap();
    if let Some(bytes) = stdin {
        child.stdin.take().unwrap().write_all(bytes).unwrap();
    }
    drop(child.stdin.take());
    child.wait_with_output().unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "{:?}\n{}{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

fn help_mail(n: usize, subject: &str) -> String {
    format!(
        "From: player{n}@example.net\r\nTo: gm@example.org\r\nSubject: {subject}\r\n\
         Message-ID: <iso-{n}@example.net>\r\n\r\nHELP\r\n"
    )
}

#[test]
fn a_mail_that_panics_fails_alone_and_the_rest_of_its_maildir_batch_is_answered() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(pbem(d, &["init"], None, None).status.success());
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(d.join("Maildir").join(sub)).unwrap();
    }
    // Five mails in one Maildir batch; the third one's processing panics.
    for n in 0..5 {
        let subject = if n == 2 { "help BOOM-7" } else { "help" };
        std::fs::write(
            d.join(format!("Maildir/new/{n:03}.mail")),
            help_mail(n, subject),
        )
        .unwrap();
    }
    let fault = Some("process:panic:BOOM-7");
    let o = pbem(d, &["serve", "--once"], fault, None);
    assert!(o.status.success(), "{}", text(&o));

    let mut store = Store::open(&d.join("pbem.sqlite"), false).unwrap();
    let (messages, outbox) = store
        .read(|tx| Ok((tx.messages(100)?, tx.outbox(None, 100)?)))
        .unwrap();
    assert_eq!(messages.len(), 5, "every mail of the batch is stored");
    for m in &messages {
        let from = m.from_addr.clone().unwrap_or_default();
        if m.dedupe_key == "mid:iso-2@example.net" {
            assert_eq!(m.status, "failed", "{m:?}");
            assert!(
                m.note.as_deref().unwrap_or("").contains("panic"),
                "the reason is kept for the GM: {m:?}"
            );
        } else {
            assert_eq!(m.status, "done", "{m:?}");
            assert!(
                outbox
                    .iter()
                    .any(|r| r.to_addr == from && r.status == "sent"),
                "{from} is answered: {outbox:?}"
            );
        }
    }
    assert_eq!(outbox.len(), 4, "no reply to the mail that failed");
    assert_eq!(crate::common::out_files(d).len(), 4);
    assert_eq!(
        std::fs::read_dir(d.join("Maildir/new")).unwrap().count(),
        0,
        "every mail left new/ once stored"
    );

    // A failed mail is final: later passes neither retry it nor stop on it.
    std::fs::write(d.join("Maildir/new/005.mail"), help_mail(5, "help")).unwrap();
    let o = pbem(d, &["serve", "--once"], fault, None);
    assert!(o.status.success(), "{}", text(&o));
    let messages = store.read(|tx| tx.messages(100)).unwrap();
    assert_eq!(messages.len(), 6);
    assert_eq!(
        messages.iter().filter(|m| m.status == "failed").count(),
        1,
        "{messages:?}"
    );
    assert_eq!(messages[0].status, "done", "the next mail is processed");
    let inbox = pbem(d, &["inbox"], None, None);
    assert!(
        String::from_utf8_lossy(&inbox.stdout).contains("failed"),
        "the GM sees it: {}",
        text(&inbox)
    );
}

#[test]
fn ingest_stores_a_mail_whose_processing_panics_and_exits_0() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(pbem(d, &["init"], None, None).status.success());
    let fault = Some("process:panic:BOOM-7");
    let bad = help_mail(1, "help BOOM-7");
    let o = pbem(d, &["ingest"], fault, Some(bad.as_bytes()));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // The next mail goes through as usual, and the failed one is not tried again.
    let good = help_mail(2, "help");
    let o = pbem(d, &["ingest"], fault, Some(good.as_bytes()));
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    // Answering is the background worker's, which inherits the fault.
    crate::common::wait_for_workers(&d.join("pbem.sqlite"));
    let mut store = Store::open(&d.join("pbem.sqlite"), false).unwrap();
    let messages = store.read(|tx| tx.messages(100)).unwrap();
    let status: Vec<&str> = messages.iter().map(|m| m.status.as_str()).collect();
    assert_eq!(status, ["done", "failed"], "{messages:?}");
    // The reply is sent in the background; a sender run now waits for that one's turn.
    assert!(pbem(d, &["outbox", "send"], None, None).status.success());
    assert_eq!(crate::common::out_files(d).len(), 1);
}

const FOUR: [&str; 4] = ["BLUE", "RED", "GREEN", "YELLOW"];

fn four_players(game: usize) -> Vec<(String, String)> {
    FOUR.iter()
        .map(|s| {
            (
                s.to_string(),
                format!("{}{game}@example.org", s.to_lowercase()),
            )
        })
        .collect()
}

/// A game whose log no longer replays (a corrupt store) fails at its deadline: it is
/// quarantined, and the other game's deadline is still adjudicated, then and later.
#[test]
fn a_game_whose_timer_fails_is_quarantined_and_the_others_still_adjudicate() {
    let mut w = World::new();
    let mut ids = Vec::new();
    for n in 0..2 {
        let players = four_players(n);
        let players: Vec<(&str, &str)> = players
            .iter()
            .map(|(s, e)| (s.as_str(), e.as_str()))
            .collect();
        ids.push(w.game(GameKind::DipTacToe, &players, &[], None, Some(86400)));
    }
    let (bad, good) = (ids[0], ids[1]);
    let now = w.now;
    w.store
        .tx(|tx| {
            tx.append_move(bad, "gm", "no such turn", now, None)
                .map(|_| ())
        })
        .unwrap();
    w.now += Duration::days(2);
    w.timers();
    let (bad_row, good_moves, events) = w
        .store
        .read(|tx| {
            Ok((
                tx.game(bad)?.unwrap(),
                tx.moves(good)?,
                tx.events(Some(bad))?,
            ))
        })
        .unwrap();
    let why = bad_row
        .quarantined
        .expect("the failing game is quarantined");
    assert!(!why.is_empty());
    assert!(
        events.iter().any(|(_, e)| e.contains("quarantined")),
        "{events:?}"
    );
    assert_eq!(good_moves.len(), 1, "the other game's turn was adjudicated");
    // From then on its timers are skipped, and the other game's next deadline still counts.
    w.now += Duration::days(2);
    w.timers();
    let good_moves = w.store.read(|tx| tx.moves(good)).unwrap();
    assert_eq!(good_moves.len(), 2, "{good_moves:?}");
    let events_after = w.store.read(|tx| tx.events(Some(bad))).unwrap();
    assert_eq!(
        events_after.len(),
        events.len(),
        "the quarantined game is left alone"
    );
}

/// The same for a timer that panics, through the daemon; the GM sees the quarantine in
/// `pbem game show` and clears it with `pbem game unquarantine`.
#[test]
fn a_game_whose_timer_panics_is_quarantined_until_the_gm_clears_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    assert!(pbem(d, &["init"], None, None).status.success());
    std::fs::create_dir_all(d.join("Maildir")).unwrap();
    for n in 0..2 {
        let mut args = vec!["game", "new", "diptactoe", "--move-time", "1h"];
        let players: Vec<String> = four_players(n)
            .iter()
            .map(|(s, e)| format!("{s}={e}"))
            .collect();
        for p in &players {
            args.extend(["--player", p.as_str()]);
        }
        let o = pbem(d, &args, None, None);
        assert!(o.status.success(), "{}", text(&o));
    }
    // Both turns are overdue (a move time is at least a minute; the clock is not waited on).
    let mut store = pbem::store::Store::open(&d.join("pbem.sqlite"), false).unwrap();
    let past = pbem::edge::now() - chrono::Duration::minutes(5);
    store
        .tx(|tx| {
            tx.set_deadline(1, Some(past))?;
            tx.set_deadline(2, Some(past))
        })
        .unwrap();
    drop(store);
    let fault = Some("timer:panic:1");
    let o = pbem(d, &["serve", "--once"], fault, None);
    assert!(o.status.success(), "{}", text(&o));
    let moves = |n: &str| {
        let o = pbem(d, &["game", "moves", n], None, None);
        String::from_utf8_lossy(&o.stdout)
            .lines()
            .filter(|l| !l.contains("no moves"))
            .count()
    };
    assert_eq!(moves("1"), 0);
    assert_eq!(moves("2"), 1, "game 2 was adjudicated");
    let show = pbem(d, &["game", "show", "1"], None, None);
    assert!(
        text(&show).contains("QUARANTINED") && text(&show).contains("panic"),
        "{}",
        text(&show)
    );
    // Still quarantined on the next pass, even with the fault gone.
    assert!(pbem(d, &["serve", "--once"], None, None).status.success());
    assert_eq!(moves("1"), 0);
    let o = pbem(d, &["game", "unquarantine", "1"], None, None);
    assert!(o.status.success(), "{}", text(&o));
    assert!(!text(&pbem(d, &["game", "show", "1"], None, None)).contains("QUARANTINED"));
    assert!(pbem(d, &["serve", "--once"], None, None).status.success());
    assert_eq!(moves("1"), 1, "released, its deadline is adjudicated");
}

#[test]
fn a_board_picture_that_panics_sends_its_mail_as_text_and_holds_no_other() {
    let dir = tempfile::tempdir().unwrap();
    let run = |fault: Option<&str>, args: &[&str]| {
        let mut cmd = crate::common::pbem_command(dir.path(), "g.sqlite");
        if let Some(f) = fault {
            cmd.env("PBEM_FAULT", f);
        }
        let o = cmd.args(args).output().unwrap();
        assert!(o.status.success(), "{}", crate::common::output_text(&o));
    };
    run(None, &["init"]);
    let new = [
        "game",
        "new",
        "dicerink",
        "--player",
        "A=a@example.org",
        "--player",
        "B=b@example.org",
    ];
    // Game 1's drawing panics; game 2, made in the same process run after it, is fine.
    run(Some("picture:panic:1"), &new);
    run(Some("picture:panic:1"), &new);
    let mut mails: Vec<String> = std::fs::read_dir(dir.path().join("out"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
        .collect();
    mails.sort_by_key(|m| m.contains("[pbem #2]"));
    assert_eq!(mails.len(), 4, "every welcome went");
    for m in &mails[..2] {
        assert!(
            m.contains("[pbem #1]") && !m.contains("image/png"),
            "game 1 as text: {m}"
        );
    }
    for m in &mails[2..] {
        assert!(
            m.contains("[pbem #2]") && m.contains("image/png"),
            "game 2 with its picture"
        );
    }
}
