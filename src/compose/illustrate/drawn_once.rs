//! Tests: each position drawn once and kept, whichever pass shows it again (a second player, a resend), and dropped when the log is rolled back.

use chrono::{TimeZone, Utc};
use mail_parser::MimeHeaders;

use super::{run, run_each, DRAWN, FIRST};
use crate::compose::{enqueue, resent, Ctx, Limit};
use crate::config::Config;
use crate::gamelog;
use crate::games::{Actor, GameKind, ToAct};
use crate::gm::{self, GameSpec, Secrets};
use crate::store::{GameStatus, HtmlPart, OutboxRow, Store};
use crate::template::Templates;

fn config() -> Config {
    let (mut cfg, _) = crate::config::load(None, &|_| None).unwrap();
    cfg.address = "gm@pbem.example".into();
    cfg
}

/// A Dice Rink game between alice and bob (their welcomes queued, each showing the start).
fn game(store: &mut Store, cfg: &Config, templates: &Templates) -> i64 {
    let now = Utc.with_ymd_and_hms(2026, 3, 1, 12, 0, 0).unwrap();
    let mut spec = GameSpec {
        kind: Some(GameKind::DiceRink),
        players: vec![
            ("A".into(), "alice@example.org".into()),
            ("B".into(), "bob@example.org".into()),
        ],
        ..Default::default()
    };
    spec.options.insert("salt_window".into(), "0".into());
    store
        .tx(|tx| {
            let ctx = Ctx::new(cfg, templates, now);
            gm::create_game(&mut ctx.gm(tx), &spec, &Secrets::generate(2)?)
        })
        .unwrap()
}

/// The base64 lines of a mail's PNG part.
fn png_of(raw: &[u8]) -> String {
    let raw = String::from_utf8(raw.to_vec()).unwrap();
    let at = raw.find("Content-Type: image/png").expect("a picture");
    let body = &raw[at..];
    let start = body.find("\r\n\r\n").unwrap() + 4;
    let end = start + body[start..].find("\r\n--").unwrap();
    body[start..end].to_string()
}

/// Every mail's bytes about game `id` to `to`, oldest first.
fn mails_to(store: &mut Store, id: i64, to: &str) -> Vec<Vec<u8>> {
    let rows = store.read(|tx| tx.outbox(None, i64::MAX)).unwrap();
    rows.iter()
        .filter(|r| r.game_id == Some(id) && r.to_addr == to)
        .map(|r| store.read(|tx| tx.outbox_raw(r.id)).unwrap().unwrap())
        .collect()
}

/// The config, templates and an empty store in memory each test starts from.
fn fixture() -> (Config, Templates, Store) {
    (
        config(),
        Templates::load(None).unwrap(),
        Store::memory().unwrap(),
    )
}

fn drawn() -> usize {
    DRAWN.with(|d| d.get())
}

/// Both players' welcomes show the start: one drawing, the same bytes in both, kept; a resend
/// in a later pass (as another process would make it) attaches them again without drawing.
#[test]
fn one_position_is_drawn_once_for_every_mail_and_a_resend() {
    let (cfg, templates, mut store) = fixture();
    let id = game(&mut store, &cfg, &templates);
    let before = drawn();
    run(&mut store, &cfg).unwrap();
    assert_eq!(drawn() - before, 1, "one drawing for both welcomes");
    assert_eq!(store.read(|tx| tx.pictures_kept(id)).unwrap(), vec![0]);
    let alice = png_of(&mails_to(&mut store, id, "alice@example.org")[0]);
    let bob = png_of(&mails_to(&mut store, id, "bob@example.org")[0]);
    assert_eq!(alice, bob);
    let bobs = store
        .read(|tx| tx.last_outbox_to(id, "bob@example.org"))
        .unwrap();
    let (parts, _) = store.read(|tx| tx.stored_sizes(bobs.unwrap().id)).unwrap();
    assert_eq!(parts, 1);

    let now = Utc.with_ymd_and_hms(2026, 3, 1, 13, 0, 0).unwrap();
    store
        .tx(|tx| {
            let last = tx.last_outbox_to(id, "bob@example.org")?.unwrap();
            assert_eq!(last.html, HtmlPart::Board { game: id, plies: 0 });
            enqueue(
                tx,
                &Ctx::new(&cfg, &templates, now),
                resent(&last),
                Limit::Exempt,
            )
        })
        .unwrap();
    run(&mut store, &cfg).unwrap();
    assert_eq!(drawn() - before, 1, "the resend draws nothing");
    let again = mails_to(&mut store, id, "bob@example.org");
    assert_eq!(again.len(), 2);
    assert_eq!(png_of(&again[1]), bob, "the resend attaches the same bytes");
    let resend = store
        .read(|tx| tx.last_outbox_to(id, "bob@example.org"))
        .unwrap();
    let (parts, _) = store
        .read(|tx| tx.stored_sizes(resend.unwrap().id))
        .unwrap();
    assert_eq!(parts, 1, "and they are stored once");
}

/// The picture both welcomes carry is stored once: each welcome's row holds its bytes
/// without it, and each reads back whole, as the sender sends it, with the picture kept of
/// the position.
#[test]
fn the_picture_mails_share_is_stored_once_and_each_reads_back_whole() {
    let (cfg, templates, mut store) = fixture();
    let id = game(&mut store, &cfg, &templates);
    run(&mut store, &cfg).unwrap();
    let rows = store.read(|tx| tx.outbox(None, i64::MAX)).unwrap();
    let welcomes: Vec<_> = rows.iter().filter(|r| r.game_id == Some(id)).collect();
    assert_eq!(welcomes.len(), 2);
    let kept = store.read(|tx| tx.picture(id, 0)).unwrap().unwrap().png;
    let far = Utc.with_ymd_and_hms(2030, 1, 1, 0, 0, 0).unwrap();
    let due = store.read(|tx| tx.outbox_due(far, 10)).unwrap();
    for row in welcomes {
        let whole = store.read(|tx| tx.outbox_raw(row.id)).unwrap().unwrap();
        let sent = due.iter().find(|d| d.id == row.id).unwrap();
        assert_eq!(
            sent.raw.as_ref(),
            Some(&whole),
            "the sender reads the same bytes"
        );
        let parsed = mail_parser::MessageParser::default().parse(&whole).unwrap();
        let png = parsed
            .attachments()
            .find(|a| a.content_type().is_some_and(|t| t.ctype() == "image"))
            .expect("a picture")
            .contents();
        assert_eq!(png, &kept[..], "the picture is the position's");
        let (parts, stored) = store.read(|tx| tx.stored_sizes(row.id)).unwrap();
        assert_eq!(parts, 1, "one part for both welcomes");
        assert!(
            (stored as usize) + kept.len() < whole.len(),
            "stored without the picture: {stored} of {} bytes",
            whole.len()
        );
    }
}

/// A picture kept of a position goes when the log is rolled back past it, and every picture
/// of a game goes when the game is over.
#[test]
fn a_rollback_drops_the_pictures_of_the_plies_undone() {
    let (cfg, templates, mut store) = fixture();
    let id = game(&mut store, &cfg, &templates);
    let now = Utc.with_ymd_and_hms(2026, 3, 1, 12, 5, 0).unwrap();
    let plies = store
        .tx(|tx| {
            let mut g = gamelog::load(tx, id)?;
            let ToAct::Seat(s) = g.game.to_act() else {
                panic!("a seat moves first")
            };
            let ply = g.game.legal_plies()[0].clone();
            gm::play(
                &mut gm::Gm::new(tx, now, &gm::Quiet),
                &mut g,
                Actor::Seat(s),
                &ply,
                None,
            )?
            .map_err(|e| anyhow::anyhow!("{e:?}"))?;
            let plies = tx.moves(id)?.len();
            let mail = OutboxRow {
                kind: "turn_report".into(),
                game_id: Some(id),
                to_addr: "alice@example.org".into(),
                subject: "[pbem] a move".into(),
                body: "A move.\n".into(),
                html: HtmlPart::Board { game: id, plies },
                ..Default::default()
            };
            enqueue(tx, &Ctx::new(&cfg, &templates, now), mail, Limit::Exempt)?;
            Ok(plies)
        })
        .unwrap();
    run(&mut store, &cfg).unwrap();
    assert_eq!(
        store.read(|tx| tx.pictures_kept(id)).unwrap(),
        vec![0, plies]
    );
    store.tx(|tx| tx.truncate_moves(id, 0)).unwrap();
    assert_eq!(store.read(|tx| tx.pictures_kept(id)).unwrap(), vec![0]);
    store
        .tx(|tx| tx.set_game_status(id, GameStatus::Finished, Some("1-0"), now))
        .unwrap();
    assert!(store.read(|tx| tx.pictures_kept(id)).unwrap().is_empty());
}

/// A burst over several batches: each batch is handed on (to be sent) once it is stored,
/// with the mails after it still waiting; a position shown in two batches is drawn once; and
/// every mail gets its part.
#[test]
fn a_burst_goes_a_batch_at_a_time_each_position_drawn_once() {
    let (cfg, templates, mut store) = fixture();
    // Two welcomes a game: the first batch ends with a whole number of games.
    let games: Vec<i64> = (0..FIRST / 2 + 5)
        .map(|_| game(&mut store, &cfg, &templates))
        .collect();
    // One more mail showing the first game's start, queued after all the welcomes: it is in
    // the second batch, its position drawn in the first.
    let now = Utc.with_ymd_and_hms(2026, 3, 1, 13, 0, 0).unwrap();
    store
        .tx(|tx| {
            let last = tx.last_outbox_to(games[0], "bob@example.org")?.unwrap();
            let ctx = Ctx::new(&cfg, &templates, now);
            enqueue(tx, &ctx, resent(&last), Limit::Exempt)
        })
        .unwrap();
    let waiting = |store: &mut Store| store.read(|tx| tx.outbox_to_illustrate(0, 1000)).unwrap();
    let total = waiting(&mut store).len();
    assert_eq!(total, games.len() * 2 + 1);
    let before = drawn();
    let mut handed = Vec::new();
    let done = run_each(&mut store, &cfg, &mut |store| {
        handed.push(waiting(store).len())
    })
    .unwrap();
    assert_eq!(done, total);
    assert_eq!(
        handed,
        [total - FIRST as usize, 0],
        "handed on after each batch"
    );
    assert_eq!(
        drawn() - before,
        games.len(),
        "each game's start drawn once"
    );
    let first = mails_to(&mut store, games[0], "bob@example.org");
    assert_eq!(
        png_of(&first[0]),
        png_of(&first[1]),
        "the same picture in both batches"
    );
}
