//! Every delivery report of the mail corpus (and OpenSMTPD's own) tied to the mail it returns, through the whole path: by the bounce address it came to, and by the Message-ID it quotes; the mail marked, the GM told, the seat handled as the report's severity says.

use std::fs;

use pbem::games::GameKind;
use pbem::mail::inbound::{parse, Severity};
use pbem::store::GameStatus;

use crate::common::{pbem, says, World, ADMIN};

const ALICE: &str = "alice@example.org";

/// The corpus's reports with a failed recipient, as the reader's table has them: file path,
/// recipient, severity, whether it quotes a Message-ID.
fn reports() -> Vec<(String, String, Severity, bool)> {
    let table = fs::read_to_string("tests/data/bounces/expected.tsv").unwrap();
    let mut out = Vec::new();
    for line in table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let f: Vec<&str> = line.split('\t').collect();
        let severity = match f[3] {
            "permanent" => Severity::Permanent,
            "transient" => Severity::Transient,
            "delayed" => Severity::Delayed,
            _ => continue,
        };
        let path = match f[0].strip_prefix("bounces/") {
            Some(ours) => format!("tests/data/bounces/{ours}"),
            None => format!("tests/data/mail/corpus/bounces/{}", f[0]),
        };
        out.push((path, f[1].to_string(), severity, f[4] != "-"));
    }
    assert!(out.len() >= 25, "{out:?}");
    out
}

/// A game of Alice's with `rcpt` at B, one failure for good holding an address; its
/// welcomes sent: the game and the envelope sender of the mail to `rcpt`.
fn game_with(rcpt: &str) -> (World, i64, String, i64) {
    let mut w = World::new();
    w.cfg.bounces.limit = 1;
    let g = w.game(
        GameKind::DiceRink,
        &[("A", ALICE), ("B", rcpt)],
        &[],
        None,
        Some(86_400),
    );
    let sent = w.send_due();
    let mail = sent
        .iter()
        .find(|m| m.envelope.to()[0].to_string() == rcpt)
        .unwrap();
    let row = w
        .store
        .read(|tx| tx.outbox(None, 50))
        .unwrap()
        .into_iter()
        .find(|r| r.to_addr == rcpt)
        .unwrap()
        .id;
    w.new_mail();
    (w, g, mail.envelope.from().unwrap().to_string(), row)
}

/// What the report did, as the GM sees it.
fn judged(w: &mut World, g: i64, note: &str, rcpt: &str, severity: Severity, file: &str) {
    let (list, _) = pbem(w, &["outbox", "list", "--status", "bounced"]);
    let told = w.new_mail().into_iter().any(|m| m.to_addr == ADMIN);
    let status = w.load(g).row.status;
    match severity {
        Severity::Delayed => {
            assert!(says(note, "delay of mail"), "{file}: {note}");
            assert!(!says(&list, rcpt) && !told, "{file}: {list}");
        }
        Severity::Transient => {
            assert!(says(note, "bounced (for now)"), "{file}: {note}");
            assert!(says(&list, rcpt) && told, "{file}: {list}");
            assert_eq!(status, GameStatus::Active, "{file}");
        }
        Severity::Permanent => {
            assert!(says(note, "bounced (for good)"), "{file}: {note}");
            assert!(says(&list, rcpt) && told, "{file}: {list}");
            assert_eq!(status, GameStatus::Paused, "{file}");
        }
    }
}

#[test]
fn every_report_is_tied_by_the_bounce_address_it_came_to() {
    for (file, rcpt, severity, _) in reports() {
        let (mut w, g, verp, _) = game_with(&rcpt);
        // As the MTA delivers it to the mail's own bounce address.
        let mut raw = format!("Delivered-To: {verp}\r\n").into_bytes();
        raw.extend(fs::read(&file).unwrap());
        let note = w.deliver(&raw).unwrap().note;
        judged(&mut w, g, &note, &rcpt, severity, &file);
    }
}

#[test]
fn every_report_quoting_the_mail_is_tied_by_its_message_id() {
    let mut tied = 0;
    for (file, rcpt, severity, quotes) in reports() {
        if !quotes {
            continue;
        }
        let raw = fs::read(&file).unwrap();
        let quoted = parse(&raw).bounce.unwrap().original_ids[0].clone();
        let (mut w, g, _, row) = game_with(&rcpt);
        let db = rusqlite::Connection::open(w.dir.path().join("pbem.sqlite")).unwrap();
        db.execute(
            "UPDATE outbox SET message_id = ?2 WHERE id = ?1",
            rusqlite::params![row, format!("<{quoted}>")],
        )
        .unwrap();
        let note = w.deliver(&raw).unwrap().note;
        judged(&mut w, g, &note, &rcpt, severity, &file);
        tied += 1;
    }
    assert!(tied >= 15, "{tied}");
}
