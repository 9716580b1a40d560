//! IMAP intake on the loopback stack (scripts/mailstack.sh): a whole game where players send by SMTP, pbem reads its mailbox over IMAPS and then STARTTLS and answers by submission, and players read the answers over IMAP; a connection cut in the middle of a fetch; pbem killed mid-stream and restarted, then its folder made anew (a new UIDVALIDITY); `config check --connect`. Every mail is processed exactly once.
//!
//! Needs `PBEM_MAILSTACK_ROOT`; without it each test writes "skipped: <why>" and passes,
//! unless `PBEM_REQUIRE_MAILSTACK` is set. The GM is the stack's user `imapgm` (its INBOX
//! for the game, a folder of its own for each other test) and the players `erin` and `frank`,
//! so these tests never read the Maildir game test's mail, nor each other's.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

use pbem::games::Actor;
use pbem::mail::outbound::{OutMail, Transport};
use pbem::records::Record;
use pbem::store::Store;

use crate::cut_proxy::CutProxy;
use crate::imap_box::{self, PlayerBox};
use crate::mailstack;

const BIN: &str = env!("CARGO_BIN_EXE_pbem");

/// Unique across runs and within one: folder names and Message-IDs of this run.
fn unique() -> String {
    static COUNTER: AtomicU32 = AtomicU32::new(0);
    let nanos = pbem::edge::now().timestamp_nanos_opt().unwrap();
    format!(
        "{nanos:x}-{}-{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    )
}

/// pbem with a fresh database in `dir`, reading `imap`, sending into `dir`/out unless the
/// caller sets a transport.
fn pbem(dir: &Path, root: &Path, imap: &str) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(dir)
        .env("PBEM_DB", dir.join("pbem.sqlite"))
        .env("PBEM_ADDRESS", "imapgm@localhost")
        .env("PBEM_IMAP", imap)
        .env("PBEM_TLS_CA_FILE", root.join("etc/cert.pem"))
        .env(
            "PBEM_TRANSPORT",
            format!("dir:{}", dir.join("out").display()),
        )
        .env("PBEM_POLL", "1s")
        .env("PBEM_LOG", "debug")
        .env_remove("PBEM_MAILDIR")
        .env_remove("PBEM_OUTBOX_DIR")
        .env_remove("PBEM_IMAP_USER")
        .env_remove("PBEM_IMAP_PASSWORD")
        .env_remove("PBEM_IMAP_MOVE_TO")
        .env_remove("PBEM_FAULT");
    cmd
}

/// A running `pbem serve`, killed if the test ends before it stopped; its log in `log`.
struct Serve {
    child: Child,
}

impl Serve {
    fn start(mut cmd: Command, log: &Path) -> Serve {
        let err = std::fs::File::options()
            .create(true)
            .append(true)
            .open(log)
            .unwrap();
        let child = cmd
            .arg("serve")
            .stdout(Stdio::null())
            .stderr(err)
            .spawn()
            .unwrap();
        Serve { child }
    }

    fn kill9(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// SIGTERM, and a clean exit within 15 s (an IDLE must end at once).
    fn stop(mut self) {
        let status =
            crate::common::sigterm_and_wait(&mut self.child, Duration::from_secs(15), String::new);
        assert!(status.success(), "serve exited with {status:?} on SIGTERM");
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The `.eml` files of a `dir:` transport, by recipient.
fn sent_to(out: &Path) -> Vec<String> {
    let mut to = Vec::new();
    for entry in std::fs::read_dir(out).into_iter().flatten().flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if name.starts_with('.') || !name.ends_with(".eml") {
            continue;
        }
        let raw = std::fs::read(entry.path()).unwrap();
        let text = String::from_utf8_lossy(&raw).into_owned();
        if let Some(line) = text.lines().find(|l| l.starts_with("To: ")) {
            to.push(line["To: ".len()..].trim().to_string());
        }
    }
    to.sort();
    to
}

/// Waits until `done` holds, or fails with `what` and the log.
fn wait_until(what: &str, log: &Path, within: Duration, mut done: impl FnMut() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < within,
            "{what} not within {within:?}; pbem's log:\n{}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_millis(200));
    }
}

/// `count` mails from p0@localhost, p1@localhost, ... each asking HELP, into `folder`.
fn append_helps(folder: &str, tag: &str, range: std::ops::Range<usize>, pad: usize) {
    let mut s = imap_box::login("imapgm");
    for i in range {
        let raw = imap_box::mail(
            &format!("p{i}@localhost"),
            "imapgm@localhost",
            &format!("help {i}"),
            &format!("{tag}.{i}@localhost"),
            "HELP",
            pad,
        );
        imap_box::append(&mut s, folder, &raw);
    }
}

/// Every mail stored once, answered once: one message row and one reply per sender.
fn assert_each_once(dir: &Path, n: usize) {
    let messages = Store::open(&dir.join("pbem.sqlite"), false)
        .unwrap()
        .tx(|tx| tx.messages(1000))
        .unwrap();
    assert_eq!(messages.len(), n, "messages stored");
    let expected: Vec<String> = {
        let mut v: Vec<String> = (0..n).map(|i| format!("p{i}@localhost")).collect();
        v.sort();
        v
    };
    assert_eq!(sent_to(&dir.join("out")), expected, "one reply per mail");
}

#[test]
fn a_connection_cut_in_the_middle_of_a_fetch_loses_and_repeats_nothing() {
    let Some(root) = mailstack::root(
        "imap_stack::a_connection_cut_in_the_middle_of_a_fetch_loses_and_repeats_nothing",
    ) else {
        return;
    };
    let tag = unique();
    let folder = format!("cut-{tag}");
    let mut s = imap_box::login("imapgm");
    imap_box::fresh_folder(&mut s, &folder);
    // Eight mails of about 28 KB, each fetched alone: about 230 KB in all.
    append_helps(&folder, &tag, 0..8, 440);
    // The first three connections are cut inside a fetch, at different places: the first
    // in the first mail, the second after two mails, the third after about three more (a
    // mail carried before a cut is not fetched again, so each connection has less to read).
    let proxy = CutProxy::start(imap_box::imaps_port(), vec![20_000, 60_000, 100_000]);
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("serve.log");
    let url = format!(
        "imaps://imapgm:imapgm-secret@127.0.0.1:{}/{folder}",
        proxy.port
    );
    let serve = Serve::start(pbem(dir.path(), &root, &url), &log);
    wait_until("every mail marked", &log, Duration::from_secs(90), || {
        imap_box::unmarked(&mut s, &folder) == 0 && sent_to(&dir.path().join("out")).len() >= 8
    });
    assert_eq!(proxy.cut(), 3, "each planned cut happened");
    assert!(proxy.accepted() >= 4);
    // A moment more: nothing is read or answered twice.
    std::thread::sleep(Duration::from_secs(3));
    serve.stop();
    assert_each_once(dir.path(), 8);
    let text = std::fs::read_to_string(&log).unwrap();
    assert!(text.contains("IMAP round failed; retrying"), "{text}");
    imap_box::delete_folder(&mut s, &folder);
}

#[test]
fn pbem_killed_mid_stream_and_restarted_reads_every_mail_once() {
    let Some(root) =
        mailstack::root("imap_stack::pbem_killed_mid_stream_and_restarted_reads_every_mail_once")
    else {
        return;
    };
    let tag = unique();
    let folder = format!("restart-{tag}");
    let mut s = imap_box::login("imapgm");
    imap_box::fresh_folder(&mut s, &folder);
    append_helps(&folder, &tag, 0..5, 0);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let log = d.join("serve.log");
    let url = format!(
        "imaps://imapgm:imapgm-secret@127.0.0.1:{}/{folder}",
        imap_box::imaps_port()
    );
    // Killed once the first mail is durable in the spool, before it was marked.
    let status = pbem(d, &root, &url)
        .args(["serve", "--once"])
        .env("PBEM_FAULT", "imap:after-spool")
        .stderr(Stdio::null())
        .status()
        .unwrap();
    assert!(!status.success(), "the fault point kills it: {status:?}");
    assert_eq!(imap_box::unmarked(&mut s, &folder), 5, "nothing marked");
    // A daemon: the spooled one is stored, the five come again (the first found a duplicate);
    // then mail arrives while it
    // runs (IDLE), and it is killed in the middle of that stream.
    let serve = Serve::start(pbem(d, &root, &url), &log);
    wait_until(
        "the first five marked",
        &log,
        Duration::from_secs(60),
        || imap_box::unmarked(&mut s, &folder) == 0,
    );
    for i in 5..9 {
        append_helps(&folder, &tag, i..i + 1, 0);
        std::thread::sleep(Duration::from_millis(300));
    }
    serve.kill9();
    append_helps(&folder, &tag, 9..12, 0);
    let serve = Serve::start(pbem(d, &root, &url), &log);
    wait_until("all twelve answered", &log, Duration::from_secs(60), || {
        imap_box::unmarked(&mut s, &folder) == 0 && sent_to(&d.join("out")).len() >= 12
    });
    std::thread::sleep(Duration::from_secs(2));
    serve.stop();
    assert_each_once(d, 12);
    // The folder made anew with the same mails: a new UIDVALIDITY, every mail unmarked. They
    // are read again and the store's Message-ID key finds each a duplicate: none is
    // answered twice.
    let before = s.select(&folder).unwrap().uid_validity;
    imap_box::delete_folder(&mut s, &folder);
    imap_box::fresh_folder(&mut s, &folder);
    assert_ne!(s.select(&folder).unwrap().uid_validity, before);
    append_helps(&folder, &tag, 0..12, 0);
    let serve = Serve::start(pbem(d, &root, &url), &log);
    wait_until("the copies marked", &log, Duration::from_secs(60), || {
        imap_box::unmarked(&mut s, &folder) == 0
    });
    serve.stop();
    assert_each_once(d, 12);
    imap_box::delete_folder(&mut s, &folder);
}

#[test]
fn config_check_connect_logs_in_to_imap_and_says_what_failed() {
    let Some(root) =
        mailstack::root("imap_stack::config_check_connect_logs_in_to_imap_and_says_what_failed")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let plain = imap_box::imap_port();
    let check = |url: &str, ca: bool| {
        let mut cmd = pbem(d, &root, url);
        if !ca {
            cmd.env_remove("PBEM_TLS_CA_FILE");
        }
        let out = cmd
            .args(["config", "check", "--connect"])
            .env("PBEM_IMAP_USER", "imapgm")
            .env("PBEM_IMAP_PASSWORD", "imapgm-secret")
            .output()
            .unwrap();
        (out.status.code(), crate::common::output_text(&out))
    };
    let (code, text) = check(&format!("imap+starttls://localhost:{plain}"), true);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("connected to localhost:")
            && text.contains("(STARTTLS), logged in as imapgm"),
        "{text}"
    );
    assert!(text.contains("IDLE offered"), "{text}");
    let (code, text) = check(
        &format!("imaps://127.0.0.1:{}/No-Such-Box", imap_box::imaps_port()),
        true,
    );
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("cannot open the mailbox \"No-Such-Box\""),
        "{text}"
    );
    let (code, text) = check(
        &format!("imaps://127.0.0.1:{}", imap_box::imaps_port()),
        false,
    );
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("TLS handshake failed") && text.contains("tls_ca_file"),
        "{text}"
    );
    let (code, text) = check(
        &format!("imaps://imapgm:wrong@127.0.0.1:{}", imap_box::imaps_port()),
        true,
    );
    assert_eq!(code, Some(1), "{text}");
    // Given twice (URL and keys) is a problem of its own; the server's answer is still asked.
    assert!(text.contains("login as \"imapgm\" refused"), "{text}");
    assert!(
        !text.contains("wrong"),
        "the password is never printed: {text}"
    );
}

/// One ply by mail from a player: SMTP submission with STARTTLS and the player's login.
fn submit(root: &Path, user: &str, to: &str, parent: &str, subject: &str, body: &str, n: usize) {
    let smtp = Transport::from_url(
        &format!(
            "smtp://{user}:{user}-secret@127.0.0.1:{}?tls=starttls",
            imap_box::submission_port()
        ),
        Some(&root.join("etc/cert.pem")),
    )
    .unwrap();
    let mail = OutMail {
        from: format!("{user}@localhost"),
        to: vec![to.to_string()],
        reply_to: None,
        subject: subject.to_string(),
        body: format!("{body}\n\nOn Sunday, the game master wrote:\n> Your move.\n"),
        message_id: format!("<imap-e2e.{}.{n}.{user}@localhost>", unique()),
        in_reply_to: Some(format!("<{parent}>")),
        references: vec![format!("<{parent}>")],
        auto_submitted: None,
        extra_headers: vec![],
        date: None,
        html: None,
    };
    smtp.send(&mail)
        .unwrap_or_else(|e| panic!("submitting {body}: {}", e.message));
}

#[test]
fn a_game_by_mail_read_over_imaps_then_starttls() {
    let Some(root) = mailstack::root("imap_stack::a_game_by_mail_read_over_imaps_then_starttls")
    else {
        return;
    };
    // The GM's INBOX starts empty: mail of earlier runs is not this game's.
    let mut gm = imap_box::login("imapgm");
    imap_box::fresh_folder(&mut gm, "INBOX");
    let stored = format!("stored-{}", unique());
    let mut erin = PlayerBox::open("erin");
    let mut frank = PlayerBox::open("frank");
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let log = d.join("serve.log");
    let submission = format!(
        "smtp://imapgm:imapgm-secret@127.0.0.1:{}?tls=starttls",
        imap_box::submission_port()
    );
    let imaps = format!("imaps://127.0.0.1:{}", imap_box::imaps_port());
    // A long poll: the moves come back fast only if IDLE wakes pbem.
    let with = |url: &str| {
        let mut cmd = pbem(d, &root, url);
        cmd.env("PBEM_TRANSPORT", &submission)
            .env("PBEM_POLL", "45s");
        cmd
    };
    let first = || {
        let mut cmd = with(&imaps);
        cmd.env("PBEM_IMAP_USER", "imapgm")
            .env("PBEM_IMAP_PASSWORD", "imapgm-secret");
        cmd
    };
    assert!(first().arg("init").status().unwrap().success());
    let out = first()
        .args(["game", "new", "dicerink", "--player", "A=erin@localhost"])
        .args(["--player", "B=frank@localhost"])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let game: i64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    let mut serve = Some(Serve::start(first(), &log));
    let subject = format!("[pbem #{game}]");
    let within = Duration::from_secs(40);
    let wa = erin.wait_for(&subject, within);
    let wb = frank.wait_for(&subject, within);
    let reply = [wa.reply_to.clone().unwrap(), wb.reply_to.clone().unwrap()];
    assert!(reply[0].starts_with("imapgm+"), "{}", reply[0]);
    let mut last = [wa.message_id.unwrap(), wb.message_id.unwrap()];
    let mut last_mail = [None, None];
    let record = std::fs::read_to_string("tests/data/dicerink/game2.pgn").unwrap();
    let plies = Record::parse(&record).unwrap().replay().unwrap().log;
    let half = plies.len() / 2;
    let db = d.join("pbem.sqlite");
    for (n, (actor, ply)) in plies.iter().enumerate() {
        if n == half {
            // The second half over STARTTLS, the login in the URL, stored mail moved away.
            serve.take().unwrap().stop();
            let url = format!(
                "imap+starttls://imapgm:imapgm-secret@localhost:{}",
                imap_box::imap_port()
            );
            let mut cmd = with(&url);
            cmd.env("PBEM_IMAP_MOVE_TO", &stored);
            serve = Some(Serve::start(cmd, &log));
        }
        let Actor::Seat(seat) = actor else {
            unreachable!()
        };
        let (user, player) = match seat {
            0 => ("erin", &mut erin),
            _ => ("frank", &mut frank),
        };
        let s = *seat;
        submit(
            &root,
            user,
            &reply[s],
            &last[s],
            &format!("Re: {subject} Dice Rink"),
            ply,
            n,
        );
        // The winning move is answered by the game-over mail alone.
        let expect = if n + 1 == plies.len() {
            "is over:".to_string()
        } else {
            format!("ok: {ply}")
        };
        let confirm = player.wait_for(&expect, within);
        let moves = Store::open(&db, false)
            .unwrap()
            .tx(|tx| tx.moves(game))
            .unwrap();
        assert_eq!(moves.len(), n + 1, "after {ply}");
        assert_eq!(moves[n].text, *ply);
        last[s] = confirm.message_id.clone().unwrap();
        last_mail[s] = Some(confirm);
    }
    // The game's end with its record: the last confirmation itself, or a mail after it.
    for (seat, player) in [&mut erin, &mut frank].into_iter().enumerate() {
        let over = match last_mail[seat].take() {
            Some(m) if m.body.contains("[Result ") => m,
            _ => player.wait_for("[Result ", within),
        };
        assert!(over.body.contains("[Result \"B\"]"), "{}", over.body);
    }
    serve.take().unwrap().stop();
    // Every player mail stored once; the first half flagged in the INBOX, the second moved.
    let messages = Store::open(&db, false)
        .unwrap()
        .tx(|tx| tx.messages(1000))
        .unwrap();
    assert_eq!(messages.len(), plies.len(), "one stored mail per ply");
    assert_eq!(imap_box::unmarked(&mut gm, "INBOX"), 0);
    assert_eq!(imap_box::count(&mut gm, "INBOX"), half);
    assert_eq!(imap_box::count(&mut gm, &stored), plies.len() - half);
    imap_box::delete_folder(&mut gm, &stored);
}
