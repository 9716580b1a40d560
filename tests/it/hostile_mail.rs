//! Hostile mail hurts no one: each finding of the attacker's test, reproduced through the mail path, with the bound that now holds.

use crate::common::{only_to, World, ADMIN};
use chrono::Duration;
use pbem::games::GameKind;
use pbem::store::OutboxRow;

const ALICE: &str = "alice@example.org";
const BOB: &str = "bob@example.org";
const MALLORY: &str = "mallory@evil.example";

const DIP: [(&str, &str); 4] = [
    ("BLUE", "blue@example.org"),
    ("RED", "red@example.org"),
    ("GREEN", "green@example.org"),
    ("YELLOW", "yellow@example.org"),
];

fn rink(w: &mut World) -> i64 {
    let id = w.game(
        GameKind::DiceRink,
        &[("A", ALICE), ("B", BOB)],
        &[],
        None,
        None,
    );
    w.new_mail();
    id
}

fn dip(w: &mut World) -> i64 {
    let id = w.game(GameKind::DipTacToe, &DIP, &[], None, Some(2 * 86400));
    w.new_mail();
    id
}

/// Every mail one inbound mail caused stays within the limits.
fn assert_bounded(w: &World, mail: &[OutboxRow]) {
    assert!(
        mail.len() <= w.cfg.max_mails_per_message,
        "{} mails queued: {:#?}",
        mail.len(),
        mail.iter()
            .map(|m| (&m.to_addr, &m.kind))
            .collect::<Vec<_>>()
    );
    for m in mail {
        assert!(
            m.body.len() <= w.cfg.max_reply_bytes,
            "{} bytes to {}",
            m.body.len(),
            m.to_addr
        );
    }
}

/// Finding 1: an option too large for any clock is refused in words, and nothing is created.
#[test]
fn an_overflowing_salt_window_is_refused_with_a_line_not_a_panic() {
    let mut w = World::new();
    let raw = w.mail(
        MALLORY,
        "gm@pbem.example",
        "new",
        "NEW d4d6 salt_window=9999999999999999",
    );
    let h = w.deliver(&raw).unwrap();
    assert_eq!(h.status, "done");
    // The reason is kept for the GM; a stranger's answer repeats none of the stranger's
    // words (issue 25, point 7), so a reason quoting the value is said in general words.
    let reasons = format!("{:?}", h.detail.lines);
    assert!(reasons.contains("needs a unit"), "{reasons}");
    let reply = only_to(&w.new_mail(), MALLORY).body.clone();
    assert!(reply.contains("refused: NEW d4d6 salt_window=…"), "{reply}");
    assert!(!reply.contains("9999999999999999"), "{reply}");
    // A newcomer's plain slip is told in the checker's words.
    let raw = w.mail(MALLORY, "gm@pbem.example", "new", "NEW d4d6 grace=30");
    w.deliver(&raw).unwrap();
    let reply = only_to(&w.new_mail(), MALLORY).body.clone();
    assert!(reply.contains("needs a unit"), "{reply}");
    for opt in [
        "salt_window=9999999999999999s",
        "grace=400d",
        "salt_window=30",
    ] {
        let raw = w.mail(
            MALLORY,
            "gm@pbem.example",
            "new",
            &format!("NEW d4d6 {opt}"),
        );
        assert_eq!(w.deliver(&raw).unwrap().status, "done", "{opt}");
        let reply = only_to(&w.new_mail(), MALLORY).body.clone();
        assert!(reply.contains("refused:"), "{opt}: {reply}");
    }
    assert!(w.store.tx(|tx| tx.games(None)).unwrap().is_empty());
}

/// Finding 17: a negative grace is answered, not marked failed in silence.
#[test]
fn a_negative_grace_is_answered_with_the_reason() {
    let mut w = World::new();
    let raw = w.mail(ALICE, "gm@pbem.example", "new", "NEW dicerink grace=-1h");
    let h = w.deliver(&raw).unwrap();
    assert_eq!(h.status, "done", "{h:?}");
    let reply = only_to(&w.new_mail(), ALICE).body.clone();
    assert!(reply.contains("option 'grace'"), "{reply}");
}

/// Finding 3: HELP with 100,000 lines after it gets one bounded reply.
#[test]
fn help_and_a_hundred_thousand_lines_get_one_bounded_reply() {
    let mut w = World::new();
    let body = format!("HELP\n{}", "x\n".repeat(100_000));
    let raw = w.mail(ALICE, "gm@pbem.example", "help", &body);
    assert_eq!(w.deliver(&raw).unwrap().status, "done");
    let mail = w.new_mail();
    assert_bounded(&w, &mail);
    let reply = only_to(&mail, ALICE);
    assert!(reply.body.contains("more lines"), "{}", reply.body);
    assert!(reply.body.contains("Dice Rink"), "{}", reply.body);
}

/// Finding 3, HTML: a table of 90,000 cells is read cheaply, and answered within bounds.
#[test]
fn an_html_mail_of_ninety_thousand_cells_is_bounded() {
    let mut w = World::new();
    let cells = "<td>x</td>".repeat(90_000);
    let raw = format!(
        "From: <{ALICE}>\r\nTo: gm@pbem.example\r\nSubject: t\r\nMessage-ID: <html@x.example>\r\n\
         MIME-Version: 1.0\r\nContent-Type: text/html; charset=utf-8\r\n\r\n\
         <html><body><p>HELP</p><table><tr>{cells}</tr></table></body></html>\r\n"
    );
    assert_eq!(w.deliver(raw.as_bytes()).unwrap().status, "done");
    let mail = w.new_mail();
    assert_bounded(&w, &mail);
}

/// Finding 4: forged mail "from" a player cannot lock the player out: only a few are
/// answered, and the player's real move is played and answered at once.
#[test]
fn forged_help_mails_do_not_lock_a_player_out() {
    let mut w = World::new();
    let id = rink(&mut w);
    // (Each text differs: the same text is answered once a day anyway, issue 25 point 6.)
    for n in 0..60 {
        let raw = w.mail(
            ALICE,
            "gm@pbem.example",
            "help",
            &format!("HELP\nthanks {n}"),
        );
        w.deliver(&raw).unwrap();
    }
    let answered = w.new_mail().len() as i64;
    assert_eq!(answered, w.cfg.unauth_replies_per_hour);
    let to = w.seat_address(id, 0);
    let raw = w.mail(ALICE, &to, "Re: move", "b1 5/4");
    assert_eq!(w.deliver(&raw).unwrap().status, "done");
    assert_eq!(w.load(id).moves.len(), 1, "the move was played");
    let mail = w.new_mail();
    let reply = only_to(&mail, ALICE);
    // (Each mail gets its HTML part first, as the sender does before it sends.)
    pbem::compose::illustrate::run(&mut w.store, &w.cfg).unwrap();
    let due = w.store.tx(|tx| tx.outbox_due(w.now, 1000)).unwrap();
    assert!(due.iter().any(|d| d.id == reply.id), "the answer goes now");
}

/// Finding 5: thousands of press, draw and board lines in one mail cost what one costs.
#[test]
fn repeated_press_draw_and_board_lines_send_each_mail_once() {
    let mut w = World::new();
    let id = dip(&mut w);
    let to = w.seat_address(id, 0);
    let body = "PRESS TO ALL: hello\n".repeat(2000);
    let raw = w.mail(DIP[0].1, &to, "Re: press", &body);
    assert_eq!(w.deliver(&raw).unwrap().status, "done");
    let mail = w.new_mail();
    assert_bounded(&w, &mail);
    assert_eq!(mail.iter().filter(|m| m.kind == "press").count(), 3);

    let raw = w.mail(DIP[0].1, &to, "Re: draw", &"DRAW OFFER\n".repeat(1000));
    w.deliver(&raw).unwrap();
    let mail = w.new_mail();
    assert_bounded(&w, &mail);
    assert_eq!(mail.len(), 4, "the reply and one notice to each other seat");

    let raw = w.mail(DIP[0].1, &to, "Re: board", &"BOARD\n".repeat(1000));
    w.deliver(&raw).unwrap();
    let mail = w.new_mail();
    assert_bounded(&w, &mail);
    let reply = only_to(&mail, DIP[0].1);
    assert!(
        reply.body.contains("already answered above"),
        "{}",
        reply.body
    );
}

/// Finding 6: eight thousand SALT lines add a bounded number of salts, and no answer lists
/// the salts once per line.
#[test]
fn eight_thousand_salts_are_bounded() {
    let mut w = World::new();
    let id = w.game(
        GameKind::D4D6,
        &[("WHITE", ALICE), ("BLACK", BOB)],
        &[],
        None,
        None,
    );
    w.new_mail();
    let to = w.seat_address(id, 0);
    let body: String = (0..8000)
        .map(|i| format!("SALT pebble number {i}\n"))
        .collect();
    let raw = w.mail(ALICE, &to, "Re: salts", &body);
    assert_eq!(w.deliver(&raw).unwrap().status, "done");
    let mail = w.new_mail();
    assert_bounded(&w, &mail);
    let salts = pbem::gm::salt_pairs(&w.load(id).row).unwrap();
    assert!(salts.len() <= w.cfg.max_salts_per_game, "{}", salts.len());
    assert!(!salts.is_empty());
    // A second mail cannot pass the game's limit either.
    w.cfg.max_commands = 1000;
    let raw = w.mail(ALICE, &to, "Re: salts", &body);
    w.deliver(&raw).unwrap();
    let salts = pbem::gm::salt_pairs(&w.load(id).row).unwrap();
    assert_eq!(salts.len(), w.cfg.max_salts_per_game);
    let mail = w.new_mail();
    assert_bounded(&w, &mail);
}

/// Finding 7: a password in any spelling is never an order, never mailed, never kept.
#[test]
fn a_password_line_is_never_published_or_kept() {
    let mut w = World::new();
    let id = dip(&mut w);
    let to = w.seat_address(id, 0);
    let raw = w.mail(
        DIP[0].1,
        &to,
        "Re: orders",
        "I.A.1 - II.F.2\nPASSWORD:hunter2secret",
    );
    assert_eq!(w.deliver(&raw).unwrap().status, "done");
    let mail = w.new_mail();
    for m in &mail {
        assert!(!m.body.contains("hunter2secret"), "mailed: {}", m.body);
    }
    let pending = w
        .store
        .tx(|tx| tx.pending(id, pbem::store::PendingKind::Orders))
        .unwrap();
    assert!(!format!("{pending:?}").contains("hunter2"), "{pending:?}");
    let stored = w
        .store
        .tx(|tx| {
            let ids: Vec<i64> = tx.messages(10)?.iter().map(|m| m.id).collect();
            tx.message(ids[0])
        })
        .unwrap()
        .unwrap();
    let raw = String::from_utf8_lossy(&stored.raw);
    assert!(!raw.contains("hunter2"), "{raw}");
    assert!(raw.contains("I.A.1 - II.F.2"), "{raw}");
    // The adjudicated turn and the record carry no trace of it either.
    w.now += Duration::days(3);
    w.timers();
    let g = w.load(id);
    assert!(!pbem::gm::export(&g).unwrap().contains("hunter2"));
    for m in w.new_mail() {
        assert!(!m.body.contains("hunter2"), "{}", m.body);
    }
}

/// Finding 8: a forged NEW and JOINs make no game; only a reply from the address itself to
/// its own code does; one mail of many NEW lines makes one request.
#[test]
fn new_and_join_need_the_address_to_confirm() {
    let mut w = World::new();
    let raw = w.mail(ALICE, "gm@pbem.example", "new", "NEW diptactoe");
    w.deliver(&raw).unwrap();
    let ask = only_to(&w.new_mail(), ALICE).clone();
    let code_address = ask.reply_to.clone().unwrap();
    assert!(code_address.starts_with("gm+confirm-"), "{code_address}");
    assert!(w.store.tx(|tx| tx.games(None)).unwrap().is_empty());
    // Somebody else replying to the code (had they seen it) is refused and not answered.
    let raw = w.mail(MALLORY, &code_address, "Re: confirm", "yes");
    assert_eq!(w.deliver(&raw).unwrap().status, "refused");
    assert!(w.new_mail().is_empty());
    assert!(w.store.tx(|tx| tx.games(None)).unwrap().is_empty());
    // The address itself confirms: now the game exists. The code works once.
    let raw = w.mail(ALICE, &code_address, "Re: confirm", "yes");
    assert_eq!(w.deliver(&raw).unwrap().status, "done");
    assert_eq!(w.store.tx(|tx| tx.games(None)).unwrap().len(), 1);
    w.new_mail();
    let raw = w.mail(ALICE, &code_address, "Re: confirm", "yes again");
    assert_eq!(w.deliver(&raw).unwrap().status, "refused");
    assert_eq!(w.store.tx(|tx| tx.games(None)).unwrap().len(), 1);

    // Forged JOINs fill no seat.
    for who in ["a@x.example", "b@x.example", "c@x.example"] {
        let raw = w.mail(who, "gm@pbem.example", "join", "JOIN 1");
        w.deliver(&raw).unwrap();
    }
    let g = w.load(1);
    assert_eq!(g.seats.iter().filter(|s| s.email.is_some()).count(), 1);
    assert!(w.new_mail().iter().all(|m| m.kind != "welcome"));

    // 5,000 NEW lines: one request, the rest refused; and the pending allowance holds.
    let raw = w.mail(
        BOB,
        "gm@pbem.example",
        "new",
        &"NEW dicerink\n".repeat(5000),
    );
    w.deliver(&raw).unwrap();
    let mail = w.new_mail();
    assert_bounded(&w, &mail);
    assert!(only_to(&mail, BOB)
        .body
        .contains("one NEW or JOIN per mail"));
    for _ in 0..5 {
        let raw = w.mail(BOB, "gm@pbem.example", "new", "NEW dicerink");
        w.deliver(&raw).unwrap();
    }
    let mail = w.new_mail();
    let last = mail.last().unwrap();
    assert!(last.body.contains("waiting (at most 3)"), "{}", last.body);
    // Unconfirmed requests expire.
    w.now += Duration::days(4);
    let raw = w.mail(BOB, &code_address_of(&mail[0]), "Re: confirm", "yes");
    w.deliver(&raw).unwrap();
    assert!(only_to(&w.new_mail(), BOB).body.contains("expired"));
    assert_eq!(w.store.tx(|tx| tx.games(None)).unwrap().len(), 1);
}

fn code_address_of(m: &OutboxRow) -> String {
    m.reply_to.clone().expect("a confirmation address")
}

/// Finding 11: a mail over the size limit is kept as its headers; a seat's own is answered.
#[test]
fn a_mail_over_the_limit_is_kept_as_headers_and_its_sender_told() {
    let mut w = World::new();
    let id = rink(&mut w);
    let to = w.seat_address(id, 0);
    let mut raw = w.mail(ALICE, &to, "Re: move", "b1 5/4\n");
    raw.extend(std::iter::repeat_n(b'x', 3 << 20));
    let kept = pbem::mail::intake::read_bounded(&mut &raw[..], w.cfg.max_message_bytes).unwrap();
    assert!(kept.len() < 4096, "{} bytes kept", kept.len());
    let h = w.deliver(&kept).unwrap();
    assert_eq!(h.status, "refused");
    assert!(h.note.contains("too-large"), "{h:?}");
    let reply = only_to(&w.new_mail(), ALICE).body.clone();
    assert!(reply.contains("was not read"), "{reply}");
    assert!(w.load(id).moves.is_empty());
}

/// Finding 13: GM notices never go to pbem's own address; without an admin address they
/// stay in the event log.
#[test]
fn gm_notices_go_to_the_admin_address_or_stay_in_the_log() {
    let mut w = World::new();
    w.cfg.admin_address = None;
    let id = w.game(
        GameKind::DiceRink,
        &[("A", ALICE), ("B", BOB)],
        &[],
        None,
        Some(86400),
    );
    w.new_mail();
    w.now += Duration::days(3);
    w.timers();
    w.timers();
    let mail = w.new_mail();
    assert!(
        mail.iter().all(|m| m.to_addr != "gm@pbem.example"),
        "{mail:#?}"
    );
    let events = w.store.tx(|tx| tx.events(Some(id))).unwrap();
    assert!(
        events.iter().any(|(_, t)| t.contains("did not move")),
        "{events:?}"
    );
    let mut cfg = w.cfg.clone();
    cfg.admin_address = Some("GM@pbem.example".to_ascii_lowercase());
    assert!(cfg.problems().iter().any(|p| p.contains("admin_address")));
    let _ = ADMIN;
}

/// Finding 14: a forger's subject is never quoted to the seat's owner, who is told at most
/// once an hour however many forgeries arrive.
#[test]
fn a_forgers_words_are_not_quoted_and_the_owner_is_told_once() {
    let mut w = World::new();
    let id = rink(&mut w);
    let to = w.seat_address(id, 0);
    for _ in 0..3 {
        let raw = w.mail(
            MALLORY,
            &to,
            "URGENT: your account is closed, visit evil.example",
            "b1 5/4",
        );
        assert_eq!(w.deliver(&raw).unwrap().status, "refused");
    }
    let mail = w.new_mail();
    let notice = only_to(&mail, ALICE);
    assert_eq!(notice.kind, "auth_refusal");
    assert!(
        !notice.body.contains("evil.example visit"),
        "{}",
        notice.body
    );
    assert!(!notice.body.contains("URGENT"), "{}", notice.body);
    assert!(
        notice
            .body
            .contains("from mallory@evil.example to your\nsecret reply address"),
        "{}",
        notice.body
    );
    assert!(mail.iter().all(|m| m.to_addr != MALLORY));
    assert!(w.load(id).moves.is_empty());
}

/// Failed authentications are throttled per address, and the GM is told once.
#[test]
fn repeated_failed_authentication_is_throttled_and_reported() {
    let mut w = World::new();
    let id = rink(&mut w);
    let to = w.seat_address(id, 0);
    for n in 0..8 {
        let raw = w.mail(MALLORY, &to, &format!("try {n}"), "b1 5/4");
        let h = w.deliver(&raw).unwrap();
        assert_eq!(h.status, "refused");
        if n >= w.cfg.max_auth_failures {
            assert!(h.note.contains("throttled"), "{n}: {h:?}");
        }
    }
    let mail = w.new_mail();
    let to_admin: Vec<_> = mail.iter().filter(|m| m.to_addr == ADMIN).collect();
    assert_eq!(to_admin.len(), 1, "{mail:#?}");
    assert!(to_admin[0].body.contains(MALLORY), "{}", to_admin[0].body);
}

/// Finding 16: a malformed Message-ID does not make the reply unsendable.
#[test]
fn a_malformed_message_id_is_not_quoted_in_the_reply() {
    let mut w = World::new();
    let raw = format!(
        "From: <{ALICE}>\r\nTo: gm@pbem.example\r\nSubject: hi\r\n\
         Message-ID: <a b ü@x.example>\r\nMIME-Version: 1.0\r\n\
         Content-Type: text/plain; charset=utf-8\r\n\r\nHELP\r\n"
    );
    assert_eq!(w.deliver(raw.as_bytes()).unwrap().status, "done");
    let reply = only_to(&w.new_mail(), ALICE).clone();
    assert_eq!(reply.in_reply_to, None);
    assert!(reply.refs.as_deref().unwrap_or("").is_ascii());
    let transport = w.cfg.transport().unwrap();
    let sent = pbem::sender::drain(&mut w.store, &w.cfg, &transport, &|| w.now).unwrap();
    assert_eq!(sent.failed, 0);
    assert_eq!(sent.sent, 1);
}

/// Finding 18: passwords are argon2id, and a right password logs in; a legacy hash is
/// replaced after its first use.
#[test]
fn passwords_are_argon2id_and_legacy_hashes_are_upgraded() {
    use sha2::Digest;
    let mut w = World::new();
    let id = rink(&mut w);
    let legacy = format!(
        "sha256$s${}",
        hex::encode(sha2::Sha256::digest("s\0opensesame"))
    );
    w.store
        .tx(|tx| tx.set_password_hash(ALICE, Some(&legacy)))
        .unwrap();
    let raw = w.mail(
        ALICE,
        "gm@pbem.example",
        &format!("[pbem #{id}]"),
        "password = opensesame\nSTATUS",
    );
    assert_eq!(w.deliver(&raw).unwrap().status, "done");
    let reply = only_to(&w.new_mail(), ALICE).body.clone();
    assert!(reply.contains("you play A"), "{reply}");
    assert!(!reply.contains("opensesame"), "{reply}");
    let stored = w.store.tx(|tx| tx.password_hash(ALICE)).unwrap().unwrap();
    assert!(stored.starts_with("$argon2id$"), "{stored}");
}

/// Finding 1 on the command line: an overflowing duration is refused with a line (exit 2),
/// not a panic (exit 101), and a bare number is refused too.
#[test]
fn the_command_line_refuses_overflowing_and_bare_durations() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        crate::common::pbem_command(dir.path(), "g.sqlite")
            .args(args)
            .output()
            .unwrap()
    };
    assert!(run(&["init"]).status.success());
    for (args, needle) in [
        (vec!["--move-time", "9999999999999999s"], "out of range"),
        (vec!["--move-time", "30"], "needs a unit"),
        (vec!["--option", "grace=9999999999999999999d"], "grace"),
        (vec!["--option", "salt_window=-1h"], "salt_window"),
    ] {
        let mut all = vec![
            "game",
            "new",
            "d4d6",
            "--player",
            "WHITE=w@example.org",
            "--player",
            "BLACK=b@example.org",
        ];
        all.extend(args.iter().copied());
        let o = run(&all);
        let text = String::from_utf8_lossy(&o.stderr).to_string();
        assert_ne!(o.status.code(), Some(101), "{args:?} panicked: {text}");
        assert!(!o.status.success(), "{args:?} was accepted");
        assert!(text.contains(needle), "{args:?}: {text}");
    }
    // The config file: a move time that overflows is a clear error.
    std::fs::write(
        dir.path().join("pbem.toml"),
        "[time]\nmove_time = \"9999999999999999s\"\n",
    )
    .unwrap();
    let o = run(&["config", "check"]);
    let text = String::from_utf8_lossy(&o.stderr).to_string();
    assert_ne!(o.status.code(), Some(101), "{text}");
    assert!(text.contains("move_time"), "{text}");
}

/// Failures forged in a player's name throttle that address's unproven mail only: the
/// player's own mail from the seat's secret address is still played.
#[test]
fn failures_forged_in_a_players_name_do_not_lock_the_player_out() {
    let mut w = World::new();
    let id = rink(&mut w);
    let other = rink(&mut w);
    // "Alice" writes to Bob's seat address ten times: her address is throttled.
    let bobs = w.seat_address(other, 1);
    for _ in 0..10 {
        let raw = w.mail(ALICE, &bobs, "x", "b1 5/4");
        assert_eq!(w.deliver(&raw).unwrap().status, "refused");
    }
    let raw = w.mail(ALICE, "gm@pbem.example", "x", "PASSWORD guess");
    let h = w.deliver(&raw).unwrap();
    assert!(h.note.contains("throttled"), "{h:?}");
    // Her real move, from her seat's secret address, is played.
    w.new_mail();
    let to = w.seat_address(id, 0);
    let raw = w.mail(ALICE, &to, "Re: move", "b1 5/4");
    assert_eq!(w.deliver(&raw).unwrap().status, "done");
    assert_eq!(w.load(id).moves.len(), 1);
    assert!(only_to(&w.new_mail(), ALICE).body.contains("ok: b1 5/4"));
}

/// The limits' tables keep only what still counts: expired requests and day-old throttle
/// entries are forgotten (the daemon prunes hourly).
#[test]
fn expired_requests_and_old_throttles_are_pruned() {
    let mut w = World::new();
    let now = w.now;
    let gone = w
        .store
        .tx(|tx| {
            tx.insert_request("old", "new", ALICE, "{}", now, now + Duration::hours(1))?;
            tx.insert_request("live", "new", BOB, "{}", now, now + Duration::days(3))?;
            tx.note_throttle(ALICE, "auth_failure", now)?;
            tx.note_throttle(BOB, "auth_failure", now + Duration::hours(47))?;
            tx.prune_requests_and_throttles(now + Duration::hours(48))
        })
        .unwrap();
    assert_eq!(gone, 2);
    let later = now + Duration::hours(48);
    let (alice, bob) = w
        .store
        .tx(|tx| {
            Ok((
                tx.pending_requests(ALICE, now)?,
                tx.pending_requests(BOB, later)?,
            ))
        })
        .unwrap();
    assert_eq!((alice, bob), (0, 1));
}

/// A refusal that quotes its line (the rules' readers do) keeps no more than the start of a
/// hundred-thousand-character line: in the reply, the stored note and the log alike.
#[test]
fn a_huge_line_is_quoted_by_its_start_in_the_reason_and_the_note() {
    let mut w = World::new();
    let id = w.game(
        GameKind::Siberian,
        &[("BLUE", ALICE), ("RED", BOB)],
        &[("salt_window", "0")],
        None,
        None,
    );
    w.new_mail();
    let to = w.seat_address(id, 0);
    let line = format!("a1 {}", "9".repeat(100_000));
    let raw = w.mail(ALICE, &to, "Re: move", &line);
    let handled = w.deliver(&raw).unwrap();
    let note = handled.detail.to_json();
    assert!(note.len() < 2_000, "a {}-byte note", note.len());
    let mail = w.new_mail();
    let reply = &only_to(&mail, ALICE).body;
    assert!(reply.len() < 4_000, "a {}-byte reply", reply.len());
    assert_bounded(&w, &mail);
}

const CAROL: &str = "carol@example.org";

/// A Dice Rink game of carol (A, password "correct horse") and bob.
fn carol_with_a_password() -> (World, i64) {
    let mut w = World::new();
    let id = w.game(
        GameKind::DiceRink,
        &[("A", CAROL), ("B", BOB)],
        &[],
        None,
        None,
    );
    w.new_mail();
    let hash = pbem::password::hash("correct horse", &[9u8; 16]).unwrap();
    w.store
        .tx(|tx| tx.set_password_hash(CAROL, Some(&hash)))
        .unwrap();
    (w, id)
}

/// Issue 25, point 5: six forged wrong-PASSWORD mails "from" carol cost only the forged-mail
/// allowance: her own right password and move, right after, are played and answered.
#[test]
fn forged_password_failures_do_not_refuse_the_right_password() {
    let (mut w, id) = carol_with_a_password();
    let subject = format!("[pbem #{id}] move");
    for n in 0..6 {
        let body = format!("PASSWORD wrong guess {n}\nb1 5/4");
        let raw = w.mail(CAROL, "gm@pbem.example", &subject, &body);
        assert_eq!(w.deliver(&raw).unwrap().status, "refused", "forgery {n}");
    }
    assert!(w.load(id).moves.is_empty());
    w.new_mail();
    let raw = w.mail(
        CAROL,
        "gm@pbem.example",
        &subject,
        "PASSWORD correct horse\nb1 5/4",
    );
    let h = w.deliver(&raw).unwrap();
    assert_eq!(h.status, "done", "{h:?}");
    assert_eq!(w.load(id).moves.len(), 1, "the move was played");
    let mail = w.new_mail();
    assert!(
        only_to(&mail, CAROL).body.contains("ok: b1 5/4"),
        "{}",
        only_to(&mail, CAROL).body
    );
    // A wrong password from the throttled address is still refused, unanswered.
    let raw = w.mail(CAROL, "gm@pbem.example", &subject, "PASSWORD nope\nSTATUS");
    let h = w.deliver(&raw).unwrap();
    assert!(h.note.contains("throttled"), "{h:?}");
    assert!(w.new_mail().iter().all(|m| m.to_addr != CAROL));
}

/// Point 5, the secret address: failures forged "from" carol (to another seat's address)
/// never throttle her right address from her right sender.
#[test]
fn forged_failures_do_not_throttle_the_right_secret_address() {
    let mut w = World::new();
    let id = w.game(
        GameKind::DiceRink,
        &[("A", CAROL), ("B", BOB)],
        &[],
        None,
        None,
    );
    w.new_mail();
    let bobs = w.seat_address(id, 1);
    for _ in 0..6 {
        let raw = w.mail(CAROL, &bobs, "Re: move", "b1 5/4");
        assert_eq!(w.deliver(&raw).unwrap().status, "refused");
    }
    w.new_mail();
    let h = w.send_to_seat(CAROL, id, 0, "b1 5/4").unwrap();
    assert_eq!(h.status, "done", "{h:?}");
    assert_eq!(w.load(id).moves.len(), 1);
    assert!(only_to(&w.new_mail(), CAROL).body.contains("ok: b1 5/4"));
}

/// A vacation auto-reply as a person writes it: no Auto-Submitted, no Precedence, no
/// X-Autoreply, a subject like any reply's.
const VACATION: &str = "Thank you for your message.\n\nI am away until 20 March with \
                        little access to my mail, and will answer when I am back.\n\nAlice";

/// Issue 25, point 6: a plain vacation auto-reply (no robot header: it looks like a person)
/// to a seat's secret address, 61 times in a few seconds and then through the day, whatever
/// its subject and Message-ID: answered at most once a day, each repeat stored with its fate.
#[test]
fn a_plain_vacation_reply_sent_sixty_one_times_is_answered_once_a_day() {
    let mut w = World::new();
    let id = rink(&mut w);
    let to = w.seat_address(id, 0);
    let start = w.now;
    let mut last = None;
    for n in 0..61 {
        let subject = format!("Re: [pbem #{id}] Dice Rink: your move ({n})");
        let raw = w.mail(ALICE, &to, &subject, VACATION);
        last = w.deliver(&raw);
    }
    let last = last.unwrap();
    assert_eq!(last.status, "refused", "{last:?}");
    assert!(last.note.contains("repeat"), "{last:?}");
    // Then once every twenty minutes for the rest of the day, under a subject that only
    // its words mark as automatic: from the seat's own address it is read, and the repeat
    // rule is what keeps it unanswered.
    for n in 0..60 {
        w.now = start + Duration::minutes(20 * (n + 1));
        let raw = w.mail(ALICE, &to, &format!("Automatic reply {n}"), VACATION);
        w.deliver(&raw);
    }
    let answered = w.new_mail().iter().filter(|m| m.to_addr == ALICE).count();
    assert_eq!(answered, 1, "answered once in the first day");
    // A day after the last of them, it is answered once more (a person's mail never
    // goes unanswered for ever).
    w.now = start + Duration::hours(49);
    let raw = w.mail(ALICE, &to, "Re: hello", VACATION);
    w.deliver(&raw);
    let answered = w.new_mail().iter().filter(|m| m.to_addr == ALICE).count();
    assert_eq!(answered, 1);
    // Alice's own move, from the same address, is played and answered as ever.
    let h = w.send_to_seat(ALICE, id, 0, "b1 5/4").unwrap();
    assert_eq!(h.status, "done", "{h:?}");
    assert_eq!(w.load(id).moves.len(), 1);
    assert!(only_to(&w.new_mail(), ALICE).body.contains("ok: b1 5/4"));
}

/// Point 6, what "identical" excludes: a move re-sent after its refusal is answered once the
/// game has changed, and orders sent again after others replaced them are recorded and
/// answered; a second identical STATUS in an unchanged game is stored, not answered.
#[test]
fn identical_text_that_plays_or_meets_a_new_position_is_answered() {
    let mut w = World::new();
    let id = rink(&mut w);
    // Bob's move before his turn: refused, answered.
    w.send_to_seat(BOB, id, 1, "b4 2/4");
    assert!(only_to(&w.new_mail(), BOB).body.contains("not your turn"));
    w.send_to_seat(ALICE, id, 0, "b1 5/4");
    w.new_mail();
    // The same text again, now that the position changed: answered.
    w.send_to_seat(BOB, id, 1, "b4 2/4");
    only_to(&w.new_mail(), BOB);
    // STATUS twice in the same position: the second is not answered.
    w.send_to_seat(ALICE, id, 0, "STATUS");
    only_to(&w.new_mail(), ALICE);
    let h = w.send_to_seat(ALICE, id, 0, "STATUS").unwrap();
    assert!(h.note.contains("repeat"), "{h:?}");
    assert!(w.new_mail().is_empty());

    let d = dip(&mut w);
    let to = w.seat_address(d, 0);
    for orders in ["I.A.1 - II.F.2", "I.A.1 - I.B.1", "I.A.1 - II.F.2"] {
        let raw = w.mail(DIP[0].1, &to, "Re: orders", orders);
        assert_eq!(w.deliver(&raw).unwrap().status, "done", "{orders}");
        let mail = w.new_mail();
        assert!(only_to(&mail, DIP[0].1).body.contains(orders), "{orders}");
    }
}

/// Issue 25, point 7: 300 forged senders each asking for HELP, a game and the forger's
/// advertisement: at most `stranger_replies_per_hour` are answered, no answer quotes any of
/// the forger's words (subject, lines, options), the bytes are bounded and the GM is told once.
#[test]
fn three_hundred_forged_strangers_get_few_short_replies_quoting_nothing() {
    let mut w = World::new();
    rink(&mut w);
    let words = [
        "CHEAPPILLS",
        "spamvertised",
        "WINNER",
        "Bitcoinz",
        "clickhere",
    ];
    for n in 0..300 {
        let from = format!("victim{n}@target.example");
        let body = "HELP\nWINNER! Buy CHEAPPILLS at spamvertised.example\n\
                    NEW dicerink grace=clickhere\nJOIN 1 Bitcoinz\nLIST Bitcoinz";
        let raw = w.mail(&from, "gm@pbem.example", "Bitcoinz WINNER clickhere", body);
        w.deliver(&raw).unwrap();
    }
    let mail = w.new_mail();
    let replies: Vec<_> = mail.iter().filter(|m| m.to_addr != ADMIN).collect();
    let cap = w.cfg.stranger_replies_per_hour as usize;
    assert!(!replies.is_empty());
    assert!(replies.len() <= cap, "{} replies", replies.len());
    let bytes: usize = replies.iter().map(|m| m.body.len() + m.subject.len()).sum();
    assert!(bytes <= cap * 6000, "{bytes} bytes");
    for m in &replies {
        for word in words {
            let low = word.to_ascii_lowercase();
            assert!(
                !m.body.to_ascii_lowercase().contains(&low)
                    && !m.subject.to_ascii_lowercase().contains(&low),
                "{word} quoted to {}:\n{}\n{}",
                m.to_addr,
                m.subject,
                m.body
            );
        }
    }
    let notices: Vec<_> = mail.iter().filter(|m| m.to_addr == ADMIN).collect();
    assert_eq!(notices.len(), 1, "{notices:#?}");
    // An hour on, strangers are answered again; a player's proven mail never waited.
    w.now += Duration::minutes(61);
    let raw = w.mail("newcomer@example.org", "gm@pbem.example", "hi", "HELP");
    assert_eq!(w.deliver(&raw).unwrap().status, "done");
    only_to(&w.new_mail(), "newcomer@example.org");
}

/// Point 5's other side: past the throttle a right password still works, but guessing stays
/// bounded. Once twice the limit more passwords were checked in the hour, none is checked,
/// right or wrong, so a forger cannot try passwords without end; the seat's secret address
/// still works.
#[test]
fn guessing_past_the_throttle_is_bounded_and_the_secret_address_still_works() {
    let (mut w, id) = carol_with_a_password();
    let subject = format!("[pbem #{id}] move");
    let limit = w.cfg.max_auth_failures;
    // The limit's failures, then twice the limit guesses past the throttle: all refused.
    for n in 0..3 * limit {
        let body = format!("PASSWORD guess {n}\nRESIGN");
        let raw = w.mail(CAROL, "gm@pbem.example", &subject, &body);
        assert_eq!(w.deliver(&raw).unwrap().status, "refused", "guess {n}");
    }
    // The next one is not checked at all, even when it is right.
    let raw = w.mail(
        CAROL,
        "gm@pbem.example",
        &subject,
        "PASSWORD correct horse\nRESIGN",
    );
    let h = w.deliver(&raw).unwrap();
    assert!(h.note.contains("throttled"), "{h:?}");
    assert!(
        w.load(id).row.result.is_none(),
        "no resignation went through"
    );
    // Carol's own secret address is never closed.
    let to = w.seat_address(id, 0);
    let raw = w.mail(CAROL, &to, "Re: move", "b1 5/4");
    assert_eq!(w.deliver(&raw).unwrap().status, "done");
    assert_eq!(w.load(id).moves.len(), 1);
}

/// A subject alone is a weak sign of a robot: a player's real move headed "Vacation notice"
/// or "Out of office from Monday", to the seat's secret address from its registered sender,
/// is played; the same subject from a stranger is still ignored.
#[test]
fn a_move_under_an_auto_reply_subject_from_its_seat_is_played() {
    let mut w = World::new();
    let id = w.game(
        GameKind::DiceRink,
        &[("A", CAROL), ("B", BOB)],
        &[],
        None,
        None,
    );
    w.new_mail();
    let to = w.seat_address(id, 0);
    let raw = w.mail(CAROL, &to, "Vacation notice", "b1 5/4\nVACATION 7");
    let h = w.deliver(&raw).unwrap();
    assert_eq!(h.status, "done", "{h:?}");
    assert_eq!(w.load(id).moves.len(), 1, "the move was played");
    let raw = w.mail(
        "eve@example.net",
        "gm@pbem.example",
        "Out of office",
        "HELP",
    );
    let h = w.deliver(&raw).unwrap();
    assert!(h.note.contains("auto-reply"), "{h:?}");
}

/// A player who asks for the board after each move of a brisk game is answered every time
/// the position changed, however often in a day: the robot rule is for repeated prose that
/// asks for nothing, not for a person's questions.
#[test]
fn a_board_asked_after_every_move_is_answered_every_time() {
    let mut w = World::new();
    let id = rink(&mut w);
    w.new_mail();
    let players = [ALICE, BOB];
    for turn in 0..6 {
        let g = w.load(id);
        let pbem::games::ToAct::Seat(seat) = g.game.to_act() else {
            panic!("Dice Rink waits for a seat");
        };
        let ply = g.game.legal_plies()[0].clone();
        let h = w.send_to_seat(players[seat], id, seat, &ply).unwrap();
        assert_eq!(h.status, "done", "turn {turn}: {h:?}");
        w.new_mail();
        let h = w.send_to_seat(ALICE, id, 0, "BOARD").unwrap();
        assert!(!h.note.contains("repeat"), "turn {turn}: {h:?}");
        only_to(&w.new_mail(), ALICE);
    }
}
