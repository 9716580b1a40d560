//! Mail that does not arrive: a delivery report tied to the mail it returns (by its bounce address or the Message-ID it quotes), the GM told, the address's mail held past the limit, its games paused, and all of it cleared when the player writes.

use chrono::Duration;
use pbem::games::GameKind;
use pbem::store::{GameStatus, OutboxRow};

use crate::common::{pbem, says, World, ADMIN};

const ALICE: &str = "alice@example.org";
const BOB: &str = "bob@example.org";

/// One mail as it went: envelope sender, recipient, Message-ID.
#[derive(Debug, Clone)]
struct Went {
    verp: String,
    to: String,
    id: String,
}

/// Sends what is due through a recorder: what went.
fn send(w: &mut World) -> Vec<Went> {
    w.send_due()
        .into_iter()
        .map(|m| Went {
            verp: m.envelope.from().unwrap().to_string(),
            to: m.envelope.to()[0].to_string(),
            id: m.message_id.clone(),
        })
        .collect()
}

/// The mail to `to` among those that went.
fn to(went: &[Went], to: &str) -> Went {
    went.iter().find(|m| m.to == to).unwrap().clone()
}

/// A game between Alice and Bob (options given) with its welcomes sent: Bob's welcome.
fn game_with_mail_sent(w: &mut World, options: &[(&str, &str)]) -> (i64, Went) {
    let g = w.game(
        GameKind::DiceRink,
        &[("A", ALICE), ("B", BOB)],
        options,
        None,
        Some(86_400),
    );
    let went = send(w);
    w.new_mail();
    (g, to(&went, BOB))
}

/// Queues one plain notice to `to`, as pbem queues any mail, and sends what is due: the
/// notice as it went.
fn mail_and_send(w: &mut World, addr: &str) -> Option<Went> {
    let (cfg, now) = (w.cfg.clone(), w.now);
    w.store
        .tx(|tx| {
            let templates = pbem::template::Templates::load(None)?;
            let ctx = pbem::compose::Ctx::new(&cfg, &templates, now);
            pbem::compose::enqueue(
                tx,
                &ctx,
                OutboxRow {
                    kind: "notice".into(),
                    to_addr: addr.into(),
                    subject: "[pbem] a notice".into(),
                    body: "Hello\n".into(),
                    ..Default::default()
                },
                pbem::compose::Limit::Exempt,
            )
        })
        .unwrap();
    w.new_mail();
    send(w).into_iter().find(|m| m.to == addr)
}

/// An RFC 3464 report that mail to `rcpt` failed (`action`, `status`), sent to `to`,
/// quoting `original` as the returned mail's Message-ID; `n` makes its own id unique.
fn dsn(n: u32, to: &str, rcpt: &str, action: &str, status: &str, original: &str) -> Vec<u8> {
    format!(
        "From: Mail Delivery System <MAILER-DAEMON@mx.example.org>\r\n\
         To: {to}\r\n\
         Subject: Undelivered Mail Returned to Sender\r\n\
         Message-ID: <dsn.{n}@mx.example.org>\r\n\
         Auto-Submitted: auto-replied\r\n\
         MIME-Version: 1.0\r\n\
         Content-Type: multipart/report; report-type=delivery-status; boundary=\"B\"\r\n\
         \r\n--B\r\nContent-Type: text/plain\r\n\r\nYour mail could not be delivered.\r\n\
         --B\r\nContent-Type: message/delivery-status\r\n\r\n\
         Reporting-MTA: dns; mx.example.org\r\n\r\n\
         Final-Recipient: rfc822; {rcpt}\r\nAction: {action}\r\nStatus: {status}\r\n\
         Diagnostic-Code: smtp; 550 {status} mailbox unavailable\r\n\r\n\
         --B\r\nContent-Type: text/rfc822-headers\r\n\r\n\
         From: gm@pbem.example\r\nTo: {rcpt}\r\nMessage-ID: {original}\r\nSubject: welcome\r\n\r\n\
         --B--\r\n"
    )
    .into_bytes()
}

/// GM notices queued since the last look.
fn to_admin(w: &mut World) -> Vec<OutboxRow> {
    w.new_mail()
        .into_iter()
        .filter(|m| m.to_addr == ADMIN)
        .collect()
}

/// The mail's note as stored (`pbem inbox`): what became of a delivered report.
fn delivered(w: &mut World, raw: &[u8]) -> String {
    w.deliver(raw).unwrap().note
}

#[test]
fn a_bounce_to_the_mails_own_address_marks_it_and_tells_the_gm_once_a_day() {
    let mut w = World::new();
    let (_, welcome) = game_with_mail_sent(&mut w, &[]);
    assert!(
        welcome.verp.starts_with("gm+bounce-") && welcome.verp.ends_with("@pbem.example"),
        "{welcome:?}"
    );
    let note = delivered(
        &mut w,
        &dsn(1, &welcome.verp, BOB, "failed", "5.1.1", "<a@b>"),
    );
    assert!(says(&note, "bounced (for good)"), "{note}");
    let told = to_admin(&mut w);
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(
        says(&told[0].body, "Mail to bob@example.org bounces since"),
        "{}",
        told[0].body
    );
    let (list, _) = pbem(&w, &["outbox", "list", "--status", "bounced"]);
    assert!(says(&list, BOB) && says(&list, "5.1.1"), "{list}");
    let (show, _) = pbem(&w, &["player", "show", BOB]);
    assert!(
        says(&show, "Mail to this address bounces since 2026-03-01"),
        "{show}"
    );
    // The same mail reported again is not counted again; another mail's report the same day
    // is counted, and the GM is not told again.
    let again = delivered(
        &mut w,
        &dsn(2, &welcome.verp, BOB, "failed", "5.1.1", "<a@b>"),
    );
    assert!(says(&again, "bounced already"), "{again}");
    let notice = mail_and_send(&mut w, BOB).unwrap();
    delivered(
        &mut w,
        &dsn(3, &notice.verp, BOB, "failed", "5.1.1", "<a@b>"),
    );
    assert!(to_admin(&mut w).is_empty());
    let (show, _) = pbem(&w, &["player", "show", BOB]);
    assert!(says(&show, "(2 for good, 0 for now"), "{show}");
    // The next day the GM hears of it again.
    w.now += Duration::days(1);
    let notice = mail_and_send(&mut w, BOB).unwrap();
    let note = delivered(
        &mut w,
        &dsn(4, &notice.verp, BOB, "failed", "4.2.2", "<a@b>"),
    );
    assert!(says(&note, "bounced (for now)"), "{note}");
    assert_eq!(to_admin(&mut w).len(), 1);
}

#[test]
fn a_bounce_to_the_plain_address_is_tied_by_the_message_id_it_quotes() {
    let mut w = World::new();
    let (_, welcome) = game_with_mail_sent(&mut w, &[]);
    let raw = dsn(1, "gm@pbem.example", BOB, "failed", "5.1.1", &welcome.id);
    let note = delivered(&mut w, &raw);
    assert!(says(&note, "bounced (for good)"), "{note}");
    let (list, _) = pbem(&w, &["outbox", "list", "--status", "bounced"]);
    assert!(says(&list, BOB), "{list}");
}

#[test]
fn a_bounce_is_believed_only_for_the_recipient_of_a_mail_pbem_sent() {
    let mut w = World::new();
    let (_, welcome) = game_with_mail_sent(&mut w, &[]);
    // A bounce address with its MAC wrong, quoting nothing pbem sent.
    let forged = welcome.verp.replacen("gm+bounce-", "gm+bounce-1", 1);
    let note = delivered(&mut w, &dsn(1, &forged, BOB, "failed", "5.1.1", "<a@b>"));
    assert!(says(&note, "names no mail pbem sent"), "{note}");
    // The right mail, but a report about someone else.
    let note = delivered(
        &mut w,
        &dsn(
            2,
            &welcome.verp,
            "carol@example.org",
            "failed",
            "5.1.1",
            "<a@b>",
        ),
    );
    assert!(says(&note, "not about bob@example.org"), "{note}");
    // Alice's mail's id, but a report about Bob.
    let alice_id = w
        .store
        .read(|tx| tx.outbox(None, 50))
        .unwrap()
        .into_iter()
        .find(|r| r.to_addr == ALICE)
        .unwrap()
        .message_id;
    let note = delivered(
        &mut w,
        &dsn(3, "gm@pbem.example", BOB, "failed", "5.1.1", &alice_id),
    );
    assert!(says(&note, "not about alice@example.org"), "{note}");
    // Alice sees her own welcome's Message-ID; Bob's was queued beside it (the next number,
    // the same moment): she cannot write his id from hers to report his mail failed.
    let (seq, rest) = alice_id
        .trim_matches(['<', '>'])
        .strip_prefix("pbem.")
        .unwrap()
        .split_once('.')
        .unwrap();
    let millis = rest.split(['.', '@']).next().unwrap();
    let next: i64 = seq.parse::<i64>().unwrap() + 1;
    for (n, guess) in [
        (4, format!("<pbem.{next}.{millis}@pbem.example>")),
        (
            5,
            format!("<pbem.{next}.{millis}.000000000000@pbem.example>"),
        ),
    ] {
        let note = delivered(
            &mut w,
            &dsn(n, "gm@pbem.example", BOB, "failed", "5.1.1", &guess),
        );
        assert!(says(&note, "names no mail pbem sent"), "{guess}: {note}");
    }
    let (list, _) = pbem(&w, &["outbox", "list", "--status", "bounced"]);
    assert!(!says(&list, BOB) && !says(&list, ALICE), "{list}");
    let (show, _) = pbem(&w, &["player", "show", BOB]);
    assert!(!says(&show, "bounces"), "{show}");
    assert!(to_admin(&mut w).is_empty());
}

#[test]
fn a_delay_notice_is_noted_not_counted() {
    let mut w = World::new();
    let (_, welcome) = game_with_mail_sent(&mut w, &[]);
    let note = delivered(
        &mut w,
        &dsn(1, &welcome.verp, BOB, "delayed", "4.4.7", "<a@b>"),
    );
    assert!(says(&note, "delay of mail"), "{note}");
    let (list, _) = pbem(&w, &["outbox", "list", "--status", "bounced"]);
    assert!(!says(&list, BOB), "{list}");
    assert!(to_admin(&mut w).is_empty());
}

/// Three reports of failure for good on Bob's mail.
fn bounce_three_times(w: &mut World, welcome: &Went) {
    delivered(w, &dsn(1, &welcome.verp, BOB, "failed", "5.1.1", "<a@b>"));
    for n in 2..=3 {
        let notice = mail_and_send(w, BOB).unwrap();
        delivered(w, &dsn(n, &notice.verp, BOB, "failed", "5.1.1", "<a@b>"));
    }
}

#[test]
fn past_the_limit_mail_is_held_but_a_daily_probe_and_the_game_pauses_until_the_player_writes() {
    let mut w = World::new();
    let (g, welcome) = game_with_mail_sent(&mut w, &[]);
    bounce_three_times(&mut w, &welcome);
    assert_eq!(w.load(g).row.status, GameStatus::Paused);
    let told: Vec<String> = to_admin(&mut w).into_iter().map(|m| m.body).collect();
    assert!(
        told.iter().any(|b| says(b, &format!("Game {g} is paused"))),
        "{told:?}"
    );
    // Held: nothing goes to Bob the same day; Alice's mail goes.
    assert!(mail_and_send(&mut w, BOB).is_none());
    assert!(mail_and_send(&mut w, ALICE).is_some());
    // A day later one mail goes as the probe, and the next waits for the next day.
    w.now += Duration::days(1) + Duration::minutes(1);
    let went = send(&mut w);
    assert_eq!(went.iter().filter(|m| m.to == BOB).count(), 1, "{went:?}");
    assert!(send(&mut w).iter().all(|m| m.to != BOB));
    // A stranger writing with Bob's From to the plain address proves nothing: still held.
    let forged = w.mail(BOB, "gm@pbem.example", "hello", "HELP");
    w.deliver(&forged).unwrap();
    assert_eq!(w.load(g).row.status, GameStatus::Paused);
    // Bob writes: his mark goes, the game resumes, his held mail goes.
    let h = w.send_to_seat(BOB, g, 1, "HELP").unwrap();
    assert_ne!(h.status, "failed", "{}", h.note);
    assert_eq!(w.load(g).row.status, GameStatus::Active);
    let (show, _) = pbem(&w, &["player", "show", BOB]);
    assert!(!says(&show, "bounces"), "{show}");
    assert!(send(&mut w).iter().any(|m| m.to == BOB));
    let waiting = w
        .store
        .read(|tx| tx.outbox(Some(pbem::store::OutboxStatus::Pending), 50))
        .unwrap();
    assert!(waiting.iter().all(|r| r.to_addr != BOB), "{waiting:?}");
}

#[test]
fn a_game_with_the_robot_for_late_seats_plays_on() {
    let mut w = World::new();
    let (g, welcome) = game_with_mail_sent(&mut w, &[("timeout", "robot")]);
    bounce_three_times(&mut w, &welcome);
    assert_eq!(w.load(g).row.status, GameStatus::Active);
    let told: Vec<String> = to_admin(&mut w).into_iter().map(|m| m.body).collect();
    assert!(
        told.iter().any(|b| says(b, "the game plays on")),
        "{told:?}"
    );
}

#[test]
fn the_gm_may_have_every_game_play_on() {
    let mut w = World::new();
    w.cfg.bounces.unreachable = pbem::config::WhenUnreachable::PlayOn;
    let (g, welcome) = game_with_mail_sent(&mut w, &[]);
    bounce_three_times(&mut w, &welcome);
    assert_eq!(w.load(g).row.status, GameStatus::Active);
}
