//! End to end on a real mail server (OpenSMTPD + Dovecot from `scripts/mailstack.sh`): players
//! submit over SMTP with STARTTLS and AUTH (one move with swaks), `pbem serve` reads the GM's
//! Maildir and answers by SMTP submission, and the test reads the players' mailboxes.
//!
//! Needs `PBEM_MAILSTACK_ROOT` (`scripts/test.sh` starts the stack and sets it); without it the
//! test writes "skipped: <why>" and passes, unless `PBEM_REQUIRE_MAILSTACK` is set (then it
//! fails).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use pbem::games::Actor;
use pbem::mail::inbound;
use pbem::mail::outbound::{OutMail, Transport};
use pbem::records::Record;
use pbem::store::Store;

use crate::mailstack;

const BIN: &str = env!("CARGO_BIN_EXE_pbem");

fn files(dir: &Path) -> HashSet<PathBuf> {
    std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default()
}

struct Mailbox {
    new: PathBuf,
    seen: HashSet<PathBuf>,
}

impl Mailbox {
    fn open(root: &Path, user: &str) -> Mailbox {
        let new = root.join("vmail").join(user).join("Maildir/new");
        Mailbox {
            seen: files(&new),
            new,
        }
    }

    /// Waits for the next mail (oldest first) whose body or headers contain `needle`.
    fn wait_for(&mut self, needle: &str) -> inbound::Inbound {
        let start = Instant::now();
        loop {
            let mut fresh: Vec<PathBuf> =
                files(&self.new).difference(&self.seen).cloned().collect();
            fresh.sort();
            for p in fresh {
                let raw = std::fs::read(&p).unwrap_or_default();
                if String::from_utf8_lossy(&raw).contains(needle) {
                    self.seen.insert(p);
                    return inbound::parse(&raw);
                }
            }
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "no mail with {needle:?} in {}",
                self.new.display()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}

fn pbem_cmd(dir: &Path, root: &Path) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(dir)
        .env("PBEM_DB", dir.join("pbem.sqlite"))
        .env("PBEM_ADDRESS", "gm@localhost")
        .env("PBEM_MAILDIR", root.join("vmail/gm/Maildir"))
        .env(
            "PBEM_TRANSPORT",
            "smtp://gm:gm-secret@127.0.0.1:2587?tls=starttls",
        )
        .env("PBEM_TLS_CA_FILE", root.join("etc/cert.pem"))
        .env("PBEM_POLL", "1s")
        .env_remove("PBEM_OUTBOX_DIR")
        .env_remove("PBEM_FAULT");
    cmd
}

struct Daemon(Child);

impl Drop for Daemon {
    fn drop(&mut self) {
        let _ = self.0.kill();
    }
}

#[test]
fn a_game_by_mail_through_a_real_mail_server() {
    let Some(root) = mailstack::root("e2e_mailstack::a_game_by_mail_through_a_real_mail_server")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // Mail left in the GM's box by earlier runs is not this game's.
    let gm_new = root.join("vmail/gm/Maildir/new");
    std::fs::create_dir_all(root.join("vmail/gm/Maildir/cur")).unwrap();
    for p in files(&gm_new) {
        let _ = std::fs::rename(
            &p,
            root.join("vmail/gm/Maildir/cur")
                .join(p.file_name().unwrap()),
        );
    }
    let mut alice_box = Mailbox::open(&root, "alice");
    let mut bob_box = Mailbox::open(&root, "bob");

    assert!(pbem_cmd(d, &root)
        .arg("config")
        .arg("check")
        .status()
        .unwrap()
        .success());
    assert!(pbem_cmd(d, &root).arg("init").status().unwrap().success());
    let out = pbem_cmd(d, &root)
        .args([
            "game",
            "new",
            "dicerink",
            "--player",
            "A=alice@localhost",
            "--player",
            "B=bob@localhost",
        ])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let game: i64 = String::from_utf8_lossy(&out.stdout).trim().parse().unwrap();
    let daemon = Daemon(
        pbem_cmd(d, &root)
            .arg("serve")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap(),
    );

    // Each player's welcome gives their secret reply address.
    let subject = format!("[pbem #{game}]");
    let wa = alice_box.wait_for(&subject);
    let wb = bob_box.wait_for(&subject);
    let reply_a = wa.reply_to.clone().expect("welcome has a Reply-To");
    let reply_b = wb.reply_to.clone().expect("welcome has a Reply-To");
    assert!(
        reply_a.starts_with("gm+") && reply_a.ends_with("@localhost"),
        "{reply_a}"
    );
    let mut last_a = wa.message_id.clone().unwrap();
    let mut last_b = wb.message_id.clone().unwrap();
    // The winner's one mail at the end (the game-over), taken as its move's answer.
    let mut winners_over = None;

    let record = std::fs::read_to_string("tests/data/dicerink/game2.pgn").unwrap();
    let plies = Record::parse(&record).unwrap().replay().unwrap().log;
    let ca = root.join("etc/cert.pem");
    let submit = |user: &str| {
        Transport::from_url(
            &format!("smtp://{user}:{user}-secret@127.0.0.1:2587?tls=starttls"),
            Some(&ca),
        )
        .unwrap()
    };
    let (alice_smtp, bob_smtp) = (submit("alice"), submit("bob"));
    let db = d.join("pbem.sqlite");
    for (n, (actor, ply)) in plies.iter().enumerate() {
        let Actor::Seat(seat) = actor else {
            unreachable!()
        };
        let (user, to, parent) = if *seat == 0 {
            ("alice", &reply_a, &last_a)
        } else {
            ("bob", &reply_b, &last_b)
        };
        if n == 5 {
            // One move from a client nobody here wrote.
            let status = Command::new("scripts/swaks-move.sh")
                .args([
                    "-f",
                    &format!("{user}@localhost"),
                    "-a",
                    user,
                    "-r",
                    &format!("<{parent}>"),
                    to,
                    &format!("Re: {subject} Dice Rink"),
                    ply,
                ])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .unwrap();
            assert!(status.success(), "swaks failed");
        } else {
            let mail = OutMail {
                from: format!("{user}@localhost"),
                to: vec![to.clone()],
                reply_to: None,
                subject: format!("Re: {subject} Dice Rink"),
                body: format!("{ply}\n\nOn Sunday, the game master wrote:\n> Your move.\n"),
                message_id: format!("<e2e.{}.{n}.{user}@localhost>", std::process::id()),
                in_reply_to: Some(format!("<{parent}>")),
                references: vec![format!("<{parent}>")],
                auto_submitted: None,
                extra_headers: vec![],
                date: None,
                html: None,
            };
            let smtp = if *seat == 0 { &alice_smtp } else { &bob_smtp };
            smtp.send(&mail)
                .unwrap_or_else(|e| panic!("submitting {ply}: {}", e.message));
        }
        // The mover's confirmation (for the winning move, the game-over mail, which is the
        // winner's one mail about it), then the game has the ply.
        let expect = if n + 1 == plies.len() {
            "is over: B wins".to_string()
        } else {
            format!("ok: {ply}")
        };
        let confirm = if *seat == 0 {
            alice_box.wait_for(&expect)
        } else {
            bob_box.wait_for(&expect)
        };
        let moves = Store::open(&db, false)
            .unwrap()
            .tx(|tx| tx.moves(game))
            .unwrap();
        assert_eq!(moves.len(), n + 1, "after {ply}");
        assert_eq!(moves[n].text, *ply);
        if n + 1 == plies.len() {
            winners_over = Some((*seat, confirm.clone()));
        }
        if *seat == 0 {
            last_a = confirm.message_id.unwrap();
        } else {
            last_b = confirm.message_id.unwrap();
        }
    }
    let (over_a, over_b) = match winners_over {
        Some((0, over)) => (over, bob_box.wait_for("is over: B wins")),
        Some((_, over)) => (alice_box.wait_for("is over: B wins"), over),
        None => (
            alice_box.wait_for("is over: B wins"),
            bob_box.wait_for("is over: B wins"),
        ),
    };
    // Dice Rink rolls no dice: no seed to reveal.
    assert!(!over_a.body.contains("[DiceSeed"), "{}", over_a.body);
    assert!(over_b.subject.contains(&subject));

    // A clean shutdown on SIGTERM.
    let mut daemon = daemon;
    let status =
        crate::common::sigterm_and_wait(&mut daemon.0, Duration::from_secs(15), String::new);
    assert!(status.success(), "serve exited with {status:?} on SIGTERM");
}
