//! Names, not addresses (issue 29): a player's name by mail (`NAME`), by the GM (`pbem player name`) or at first from their From; statistics, ratings and records show names, an address only when the GM asks; an anonymous game's mails show no other player's name or address.

use crate::common::{only_to, pbem, says, World};
use pbem::games::GameKind;
use pbem::store::OutboxRow;

const ANN: &str = "ann@example.org";
const BOB: &str = "bob@example.org";

fn name_of(w: &mut World, email: &str) -> Option<String> {
    w.store.tx(|tx| tx.player_name(email)).unwrap()
}

fn set_name(w: &mut World, email: &str, name: &str) {
    let set = w
        .store
        .tx(|tx| pbem::gm::names::set_name(tx, email, Some(name)))
        .unwrap();
    assert_eq!(set, Ok(Some(name.to_string())));
}

/// A Dice Rink game between ANN (A) and BOB (B) with these options, its welcome mails read.
fn rink(w: &mut World, options: &[(&str, &str)]) -> i64 {
    let mut opts = vec![("setup", "fixed")];
    opts.extend_from_slice(options);
    let id = w.game(
        GameKind::DiceRink,
        &[("A", ANN), ("B", BOB)],
        &opts,
        None,
        None,
    );
    w.new_mail();
    id
}

/// A legal move for the seat to move.
fn a_move(w: &mut World, game: i64) -> String {
    w.load(game).game.legal_plies().into_iter().next().unwrap()
}

/// The answer to one mail from `from` to its seat in `game`.
fn answer(w: &mut World, from: &str, game: i64, seat: usize, body: &str) -> String {
    w.send_to_seat(from, game, seat, body).unwrap();
    only_to(&w.new_mail(), from).body.clone()
}

#[test]
fn name_by_mail_is_set_and_a_bad_one_is_refused_in_words() {
    let mut w = World::new();
    let id = rink(&mut w, &[]);
    let reply = answer(&mut w, ANN, id, 0, "NAME  Ann Smith ");
    assert!(says(&reply, "you are called Ann Smith"), "{reply}");
    assert_eq!(name_of(&mut w, ANN).as_deref(), Some("Ann Smith"));
    let reply = answer(&mut w, BOB, id, 1, "NAME bob@elsewhere.example");
    assert!(says(&reply, "may not hold '@'"), "{reply}");
    let reply = answer(&mut w, BOB, id, 1, &format!("NAME {}", "x".repeat(41)));
    assert!(says(&reply, "at most 40 characters"), "{reply}");
    let reply = answer(&mut w, BOB, id, 1, "name ann smith");
    assert!(
        says(&reply, "another player already has that name"),
        "{reply}"
    );
    let reply = answer(&mut w, BOB, id, 1, "NAME");
    assert!(says(&reply, "NAME needs your name"), "{reply}");
    assert_eq!(name_of(&mut w, BOB), None);
    // Not from a secret address, nor with a password: nobody's name changes.
    let raw = w.mail(BOB, "gm@pbem.example", "name", "NAME Mallory");
    w.deliver(&raw).unwrap();
    let reply = only_to(&w.new_mail(), BOB).body.clone();
    assert!(says(&reply, "secret reply address"), "{reply}");
    assert_eq!(name_of(&mut w, BOB), None);
}

#[test]
fn the_gm_sets_and_clears_a_name() {
    let w = World::new();
    let (out, code) = pbem(&w, &["player", "name", ANN, "Ann Smith"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("named Ann Smith"), "{out}");
    let (out, code) = pbem(&w, &["player", "name", BOB, "Who@ever"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("'@'"), "{out}");
    let (out, code) = pbem(&w, &["player", "name", ANN, "--clear"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("shown as ann"), "{out}");
    let mut w = w;
    assert_eq!(name_of(&mut w, ANN), None);
}

/// NEW and its confirmation, sent with this From header.
fn ask_and_confirm_as(w: &mut World, from_header: &str, from: &str, body: &str) -> Vec<OutboxRow> {
    let with_from = |raw: Vec<u8>| {
        String::from_utf8(raw)
            .unwrap()
            .replace(&format!("From: Player <{from}>"), from_header)
            .into_bytes()
    };
    let raw = with_from(w.mail(from, "gm@pbem.example", "request", body));
    w.deliver(&raw).unwrap();
    let ask = only_to(&w.new_mail(), from).clone();
    let confirm_to = ask.reply_to.clone().unwrap();
    let raw = with_from(w.mail(from, &confirm_to, "Re: confirm", "yes"));
    assert_eq!(w.deliver(&raw).unwrap().status, "done");
    w.new_mail()
}

/// The name taken from the From is the name the game's first mails give: a game against the
/// robot begins at the confirmation, and its welcome lists the new player by it.
#[test]
fn the_welcome_of_a_new_player_names_them_by_their_from() {
    let mut w = World::new();
    let mail = ask_and_confirm_as(
        &mut w,
        &format!("From: \"Ann Smith\" <{ANN}>"),
        ANN,
        "NEW dicerink robot",
    );
    let welcome = mail
        .iter()
        .find(|m| says(&m.body, "Welcome to game"))
        .expect("a welcome");
    assert!(says(&welcome.body, "A: Ann Smith"), "{}", welcome.body);
}

#[test]
fn a_new_player_takes_the_display_name_of_their_from() {
    let mut w = World::new();
    ask_and_confirm_as(
        &mut w,
        &format!("From: \"Ann Smith\" <{ANN}>"),
        ANN,
        "NEW dicerink",
    );
    assert_eq!(name_of(&mut w, ANN).as_deref(), Some("Ann Smith"));
    // A display name that cannot be a name (here the address itself) is not taken.
    ask_and_confirm_as(&mut w, &format!("From: {BOB} <{BOB}>"), BOB, "JOIN 1");
    assert_eq!(name_of(&mut w, BOB), None);
    // A player already on record keeps the name they have.
    w.store
        .tx(|tx| tx.set_player_name(ANN, Some("Annie")))
        .unwrap();
    ask_and_confirm_as(
        &mut w,
        &format!("From: \"Someone Else\" <{ANN}>"),
        ANN,
        "NEW dicerink",
    );
    assert_eq!(name_of(&mut w, ANN).as_deref(), Some("Annie"));
}

/// A game BOB resigned, ANN named: on record for statistics, ratings and export.
fn finished(w: &mut World) -> i64 {
    let id = rink(w, &[]);
    set_name(w, ANN, "Ann Smith");
    answer(w, BOB, id, 1, "RESIGN");
    id
}

#[test]
fn statistics_and_ratings_show_names_never_addresses() {
    let mut w = World::new();
    finished(&mut w);
    let (ratings, code) = pbem(&w, &["ratings", "dicerink"]);
    assert_eq!(code, 0, "{ratings}");
    assert!(ratings.contains("Ann Smith"), "{ratings}");
    assert!(ratings.contains(" bob "), "{ratings}");
    assert!(!ratings.contains('@'), "{ratings}");
    let (stats, _) = pbem(&w, &["stats"]);
    assert!(!stats.contains('@'), "{stats}");
    let raw = w.mail(BOB, "gm@pbem.example", "ratings", "RATINGS dicerink\nSTATS");
    w.deliver(&raw).unwrap();
    let reply = only_to(&w.new_mail(), BOB).body.clone();
    assert!(reply.contains("Ann Smith"), "{reply}");
    assert!(!reply.contains(ANN), "{reply}");
}

#[test]
fn an_export_names_players_and_gives_addresses_only_when_asked() {
    let mut w = World::new();
    let id = finished(&mut w);
    let id = id.to_string();
    for args in [
        vec!["export", &id],
        vec!["export", &id, "--format", "json"],
        vec!["export", "--all"],
    ] {
        let (out, code) = pbem(&w, &args);
        assert_eq!(code, 0, "{args:?}: {out}");
        assert!(out.contains("Ann Smith"), "{args:?}: {out}");
        assert!(!out.contains('@'), "{args:?}: {out}");
        let mut with = args.clone();
        with.push("--with-addresses");
        let (out, code) = pbem(&w, &with);
        assert_eq!(code, 0, "{with:?}: {out}");
        assert!(
            out.contains("Ann Smith <ann@example.org>"),
            "{with:?}: {out}"
        );
        assert!(out.contains(BOB), "{with:?}: {out}");
    }
    let (out, _) = pbem(&w, &["export", &id]);
    assert!(out.contains("[A \"Ann Smith\"]"), "{out}");
    assert!(out.contains("[B \"bob\"]"), "{out}");
}

/// In a game that is not anonymous, the players' mails name each other with the address.
#[test]
fn the_players_mails_show_the_name_beside_the_address() {
    let mut w = World::new();
    set_name(&mut w, ANN, "Ann Smith");
    let id = w.game(
        GameKind::DiceRink,
        &[("A", ANN), ("B", BOB)],
        &[],
        None,
        None,
    );
    let mail = w.new_mail();
    let welcome = &only_to(&mail, BOB).body;
    assert!(
        welcome.contains("A: Ann Smith <ann@example.org>"),
        "{welcome}"
    );
    assert!(welcome.contains("B: bob@example.org"), "{welcome}");
    let reply = answer(&mut w, ANN, id, 0, "PRESS TO B: hello");
    assert!(says(&reply, "press sent to B"), "{reply}");
    let press = w
        .store
        .tx(|tx| tx.outbox(None, i64::MAX))
        .unwrap()
        .into_iter()
        .find(|m| m.kind == "press")
        .unwrap();
    assert!(
        press
            .body
            .contains("press from A (Ann Smith <ann@example.org>)"),
        "{}",
        press.body
    );
}

/// Every mail of a short anonymous game (welcome, press, a status, the moves, the game over
/// with its record) shows a player neither the other's name nor address.
#[test]
fn an_anonymous_game_mails_no_player_the_others_name_or_address() {
    let mut w = World::new();
    set_name(&mut w, ANN, "Ann Smith");
    set_name(&mut w, BOB, "Bob Jones");
    let id = w.game(
        GameKind::DiceRink,
        &[("A", ANN), ("B", BOB)],
        &[("setup", "fixed"), ("anonymous", "yes")],
        None,
        None,
    );
    let mut mails: Vec<OutboxRow> = w.new_mail();
    let welcome = &only_to(&mails, ANN).body;
    assert!(welcome.contains("A: you"), "{welcome}");
    assert!(welcome.contains("B: anonymous"), "{welcome}");
    assert!(welcome.contains("Players: anonymous"), "{welcome}");
    let mut send = |w: &mut World, from: &str, seat: usize, body: &str| {
        w.send_to_seat(from, id, seat, body).unwrap();
        mails.extend(w.new_mail());
    };
    send(&mut w, ANN, 0, "PRESS TO B: good luck\nSTATUS");
    send(&mut w, BOB, 1, "PRESS TO A: thanks\nSTATUS");
    for _ in 0..2 {
        let m = a_move(&mut w, id);
        let (from, seat) = match w.load(id).game.to_act() {
            pbem::games::ToAct::Seat(0) => (ANN, 0),
            _ => (BOB, 1),
        };
        send(&mut w, from, seat, &m);
    }
    send(&mut w, BOB, 1, "RESIGN");
    assert!(mails.iter().any(|m| m.kind == "press"));
    assert!(mails.iter().any(|m| m.kind == "game_over"));
    for m in &mails {
        let others: &[&str] = match m.to_addr.as_str() {
            ANN => &[BOB, "Bob Jones"],
            BOB => &[ANN, "Ann Smith"],
            other => panic!("a mail to {other}"),
        };
        for text in [&m.body, &m.subject] {
            for o in others {
                assert!(
                    !text.contains(o),
                    "{} to {} shows {o}:\n{text}",
                    m.kind,
                    m.to_addr
                );
            }
        }
    }
    // The GM's own listing still shows who plays.
    let (out, _) = pbem(&w, &["game", "show", &id.to_string()]);
    assert!(out.contains("Ann Smith <ann@example.org>"), "{out}");
}

/// A hostile name: 100,000 characters by mail, control characters from the GM's command
/// line; each refused in words, the reply short, no name kept.
#[test]
fn a_huge_name_or_one_with_control_characters_is_refused() {
    let mut w = World::new();
    let id = rink(&mut w, &[]);
    let reply = answer(&mut w, BOB, id, 1, &format!("NAME {}", "x".repeat(100_000)));
    assert!(says(&reply, "at most 40 characters"), "{reply}");
    assert!(reply.len() < 10_000, "{} bytes", reply.len());
    let (out, code) = pbem(&w, &["player", "name", BOB, "Bob\u{1b}[31m"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("only printable characters"), "{out}");
    assert!(!out.contains('\u{1b}'), "{out:?}");
    assert_eq!(name_of(&mut w, BOB), None);
}
