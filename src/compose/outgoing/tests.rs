//! Tests of queuing one outgoing mail: the record stored with its finished bytes, built by `bytes` alone.

use super::*;
use crate::config::Config;
use crate::mail::outbound::Picture;
use crate::template::Templates;
use chrono::TimeZone;
use mail_parser::{MessageParser, MimeHeaders};

fn setup() -> (Store, Config, Templates, DateTime<Utc>) {
    let (mut cfg, _) = crate::config::load(None, &|_| None).unwrap();
    cfg.address = "gm@pbem.example".into();
    let now = Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap();
    (
        Store::memory().unwrap(),
        cfg,
        Templates::load(None).unwrap(),
        now,
    )
}

fn mail(to: &str) -> OutboxRow {
    OutboxRow {
        kind: "turn_report".into(),
        game_id: Some(12),
        to_addr: to.into(),
        reply_to: Some("gm+tok1g12@pbem.example".into()),
        subject: "[pbem #12] Dice Rink".into(),
        body: "Your move.\n  a b c\n1 . \u{265e} .\n".into(),
        in_reply_to: Some("<move-7@player.example>".into()),
        refs: Some("<pbem.game12@pbem.example>".into()),
        ..Default::default()
    }
}

/// Queues `m` and returns its row with the raw bytes stored for it.
fn queued(store: &mut Store, ctx: &Ctx, m: OutboxRow) -> OutboxRow {
    store
        .tx(|tx| {
            enqueue(tx, ctx, m, Limit::Applies)?;
            let mut row = tx.outbox(None, 1)?.remove(0);
            row.raw = tx.outbox_raw(row.id)?;
            Ok(row)
        })
        .unwrap()
}

#[test]
fn a_queued_mail_is_stored_as_the_mail_it_was() {
    let (mut store, cfg, templates, now) = setup();
    let ctx = Ctx::new(&cfg, &templates, now);
    let row = queued(&mut store, &ctx, mail("alice@example.org"));
    assert_eq!(row.status, OutboxStatus::Pending);
    let raw = row.raw.as_deref().expect("the finished message is stored");
    let msg = MessageParser::default().parse(raw).expect("parses");
    let from = msg.from().and_then(|a| a.first()).unwrap();
    assert_eq!(
        (from.name(), from.address()),
        (Some(cfg.name.as_str()), Some("gm@pbem.example"))
    );
    let to = msg.to().and_then(|a| a.first()).and_then(|a| a.address());
    assert_eq!(to, Some("alice@example.org"));
    let reply_to = msg
        .reply_to()
        .and_then(|a| a.first())
        .and_then(|a| a.address());
    assert_eq!(reply_to, Some("gm+tok1g12@pbem.example"));
    assert_eq!(msg.subject(), Some("[pbem #12] Dice Rink"));
    assert_eq!(
        msg.message_id(),
        row.message_id
            .strip_prefix('<')
            .and_then(|m| m.strip_suffix('>'))
    );
    assert_eq!(msg.in_reply_to().as_text(), Some("move-7@player.example"));
    let refs: Vec<&str> = msg
        .references()
        .as_text_list()
        .unwrap()
        .iter()
        .map(|r| r.as_ref())
        .collect();
    assert_eq!(refs, ["pbem.game12@pbem.example", "move-7@player.example"]);
    assert_eq!(
        row.refs.as_deref(),
        Some("<pbem.game12@pbem.example> <move-7@player.example>")
    );
    let header = |name: &'static str| msg.header_raw(name).map(str::trim);
    assert_eq!(header("Auto-Submitted"), Some("auto-replied"));
    assert_eq!(header("X-Auto-Response-Suppress"), Some("All"));
    assert_eq!(header("X-Pbem-Game"), Some("12"));
    // Dated when it was queued, by the clock passed in.
    assert_eq!(msg.date().unwrap().to_timestamp(), now.timestamp());
    let ctype = msg.content_type().unwrap();
    assert_eq!((ctype.ctype(), ctype.subtype()), ("text", Some("plain")));
    assert_eq!(msg.body_text(0).unwrap().replace("\r\n", "\n"), row.body);
    assert!(!String::from_utf8_lossy(raw).contains("multipart"));
    // The same bytes as the one builder makes from the stored row.
    assert_eq!(raw, bytes(&row, now, None).unwrap());
}

/// The bytes of a queued mail with an HTML part (as `compose::illustrate` makes them): the
/// text and the HTML as alternatives, the HTML and its picture related.
#[test]
fn a_mail_with_html_and_a_picture_is_built_as_alternative_and_related() {
    let (mut store, cfg, templates, now) = setup();
    let ctx = Ctx::new(&cfg, &templates, now);
    let row = queued(&mut store, &ctx, mail("alice@example.org"));
    let html = Html {
        body: "<p>Your move.</p><img src=\"cid:board.12@pbem.example\">".into(),
        pictures: vec![Picture {
            content_id: "board.12@pbem.example".into(),
            mime: "image/png".into(),
            bytes: b"\x89PNG\r\n\x1a\n\0\xff".to_vec(),
        }],
    };
    let raw = bytes(&row, now, Some(html)).unwrap();
    let msg = MessageParser::default().parse(&raw).unwrap();
    let ctype = msg.content_type().unwrap();
    assert_eq!(
        (ctype.ctype(), ctype.subtype()),
        ("multipart", Some("alternative"))
    );
    assert_eq!(msg.body_text(0).unwrap().replace("\r\n", "\n"), row.body);
    assert!(msg
        .body_html(0)
        .unwrap()
        .contains("cid:board.12@pbem.example"));
    let picture = msg
        .parts
        .iter()
        .find(|p| p.content_id() == Some("board.12@pbem.example"))
        .expect("the picture with its Content-ID");
    assert_eq!(picture.contents(), b"\x89PNG\r\n\x1a\n\0\xff");
    assert_eq!(picture.content_type().unwrap().ctype(), "image");
}

/// The HTML part a mail wants is stored with it, typed, until it is made.
#[test]
fn the_html_part_a_mail_wants_is_stored_with_it() {
    let (mut store, cfg, templates, now) = setup();
    let ctx = Ctx::new(&cfg, &templates, now);
    for html in [
        HtmlPart::None,
        HtmlPart::Words,
        HtmlPart::Board { game: 12, plies: 7 },
    ] {
        let row = queued(
            &mut store,
            &ctx,
            OutboxRow {
                html,
                ..mail("alice@example.org")
            },
        );
        assert_eq!(row.html, html);
    }
}

/// A mail that cannot be built does not fail the inbound mail: it is stored failed, with
/// the reason, and the GM's log says so.
#[test]
fn an_unbuildable_mail_is_stored_failed_with_the_reason() {
    let (mut store, cfg, templates, now) = setup();
    let ctx = Ctx::new(&cfg, &templates, now);
    let row = queued(&mut store, &ctx, mail("not an address"));
    assert_eq!(row.status, OutboxStatus::Failed);
    assert_eq!(row.raw, None);
    let error = row.last_error.unwrap();
    assert!(error.contains("bad To address"), "{error}");
    let events = store.read(|tx| tx.events(Some(12))).unwrap();
    assert!(
        events
            .iter()
            .any(|(_, e)| e.contains("not an address") && e.contains("not sent")),
        "{events:?}"
    );
    assert!(store.read(|tx| tx.outbox_due(now, 10)).unwrap().is_empty());
}

/// A mail keeps what caused it: the context's cause (the GM's command), unless it names its
/// own; the notice that mail is held names the limit, not the command whose mail it holds.
#[test]
fn a_queued_mail_keeps_its_cause() {
    let (mut store, mut cfg, templates, now) = setup();
    cfg.replies_per_hour = 1;
    let mut ctx = Ctx::new(&cfg, &templates, now);
    assert_eq!(
        queued(&mut store, &ctx, mail("ann@example.org")).cause,
        None
    );
    ctx.cause = Some("pbem game pause 12".into());
    let row = queued(&mut store, &ctx, mail("bob@example.org"));
    assert_eq!(row.cause.as_deref(), Some("pbem game pause 12"));
    let own = OutboxRow {
        cause: Some("a timer".into()),
        ..mail("cat@example.org")
    };
    assert_eq!(
        queued(&mut store, &ctx, own).cause.as_deref(),
        Some("a timer")
    );
    // A second mail to bob within the hour is held, and he is told why, once.
    let rows = store
        .tx(|tx| {
            enqueue(tx, &ctx, mail("bob@example.org"), Limit::Applies)?;
            tx.outbox(None, 10)
        })
        .unwrap();
    let notice = rows.iter().find(|r| r.kind == "held").expect("the notice");
    assert_eq!(
        notice.cause.as_deref(),
        Some("the hourly limit per recipient (1 an hour)")
    );
    let held = rows
        .iter()
        .find(|r| r.to_addr == "bob@example.org" && r.next_try_at > Some(now))
        .unwrap();
    assert_eq!(held.cause.as_deref(), Some("pbem game pause 12"));
}
