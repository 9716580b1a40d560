//! The GM's desk: pause and resume (clocks keep the time that was left), deadlines, options
//! changed mid-game, rollback (rolls replay identically), cancel, eject, message and resend,
//! through the GM layer on a fixed clock and through the command line.

use chrono::Duration;

use crate::common::{only_to, output_text, pbem_in, World};
use pbem::games::{GameKind, ToAct};
use pbem::gm::life::{self, Rollback};

const A: &str = "alice@example.org";
const B: &str = "bob@example.org";

fn dicerink(w: &mut World) -> i64 {
    let id = w.game(
        GameKind::DiceRink,
        &[("A", A), ("B", B)],
        &[],
        None,
        Some(2 * 86_400),
    );
    w.new_mail();
    id
}

/// The seed's d4 d6 example position, its dice rolling as soon as a declaration needs them.
fn d4d6_example(w: &mut World) -> i64 {
    let pos = std::fs::read_to_string("tests/data/d4d6/seed_example.pos").unwrap();
    w.game(
        GameKind::D4D6,
        &[("WHITE", A), ("BLACK", B)],
        &[("salt_window", "0")],
        Some(pos.trim()),
        None,
    )
}

#[test]
fn a_paused_game_refuses_moves_runs_no_clock_and_resumes_with_the_time_left() {
    let mut w = World::new();
    let id = dicerink(&mut w);
    let before = w.load(id).row.deadline.expect("a move time runs");
    // A day in, the GM pauses the game: one day is left on A's clock.
    w.now += Duration::days(1);
    let mut g = w.load(id);
    w.store
        .tx(|tx| {
            life::pause(
                &pbem::gm::Gm::new(tx, w.now, &pbem::gm::Quiet),
                &mut g,
                "a player is ill",
            )
        })
        .unwrap()
        .unwrap();
    assert_eq!(w.load(id).row.status, "paused");
    // The player's move is not played, and the reply says why and what to do.
    w.send_to_seat(A, id, 0, "a1 1/2").unwrap();
    let mail = w.new_mail();
    let reply = &only_to(&mail, A).body;
    assert!(
        reply.contains("the GM has paused the game (a player is ill)"),
        "{reply}"
    );
    assert!(reply.contains("send your move again"), "{reply}");
    assert!(w.load(id).moves.is_empty());
    // Long past the old deadline nothing fires while paused.
    w.now += Duration::days(5);
    assert_eq!(w.timers(), 0);
    assert!(w.new_mail().is_empty());
    // Resumed: the clock has the day it had left.
    let mut g = w.load(id);
    w.store
        .tx(|tx| life::resume(&pbem::gm::Gm::new(tx, w.now, &pbem::gm::Quiet), &mut g))
        .unwrap()
        .unwrap();
    let g = w.load(id);
    assert_eq!(g.row.status, "active");
    assert_eq!(g.row.deadline, Some(before + Duration::days(5)));
    assert_eq!(g.row.deadline.unwrap() - w.now, Duration::days(1));
    // Resuming twice is refused.
    let mut g = w.load(id);
    let again = w
        .store
        .tx(|tx| life::resume(&pbem::gm::Gm::new(tx, w.now, &pbem::gm::Quiet), &mut g))
        .unwrap();
    assert!(again.is_err());
}

#[test]
fn a_rollback_goes_back_to_where_a_player_acts_and_the_dice_roll_the_same() {
    let mut w = World::new();
    let id = d4d6_example(&mut w);
    // White declares; the game's own seeded dice roll.
    w.send_to_seat(A, id, 0, "Ca e5").unwrap();
    let first = w.load(id);
    assert!(first.moves.len() >= 2, "a declaration and its roll");
    let rolled: Vec<String> = first.moves.iter().map(|m| m.text.clone()).collect();
    // One ply back lands before the declaration: its roll and any forced ply go with it.
    let mut g = w.load(id);
    let back = w
        .store
        .tx(|tx| {
            life::rollback(
                &pbem::gm::Gm::new(tx, w.now, &pbem::gm::Quiet),
                &mut g,
                Rollback::Plies(1),
            )
        })
        .unwrap()
        .unwrap();
    assert_eq!(back.undone.len(), rolled.len(), "{:?}", back.undone);
    let g = w.load(id);
    assert!(g.moves.is_empty());
    assert_eq!(g.game.to_act(), ToAct::Seat(0));
    // The same declaration rolls the same die: it is derived from the seed, not redrawn.
    w.send_to_seat(A, id, 0, "Ca e5").unwrap();
    let again: Vec<String> = w.load(id).moves.iter().map(|m| m.text.clone()).collect();
    assert_eq!(again, rolled);
    // Asking for more plies than the game has is refused.
    let mut g = w.load(id);
    let too_far = w
        .store
        .tx(|tx| {
            life::rollback(
                &pbem::gm::Gm::new(tx, w.now, &pbem::gm::Quiet),
                &mut g,
                Rollback::Plies(99),
            )
        })
        .unwrap();
    assert!(too_far.is_err());
}

#[test]
fn a_finished_game_without_dice_goes_back_and_is_on_again() {
    let mut w = World::new();
    let id = dicerink(&mut w);
    w.send_to_seat(A, id, 0, "a1 1/2").unwrap();
    w.send_to_seat(B, id, 1, "RESIGN").unwrap();
    assert_eq!(w.load(id).row.status, "finished");
    let mut g = w.load(id);
    let back = w
        .store
        .tx(|tx| {
            life::rollback(
                &pbem::gm::Gm::new(tx, w.now, &pbem::gm::Quiet),
                &mut g,
                Rollback::Plies(1),
            )
        })
        .unwrap()
        .unwrap();
    assert!(back.reopened);
    let g = w.load(id);
    assert_eq!(g.row.status, "active");
    assert_eq!(g.moves.len(), 1);
    assert_eq!(g.game.to_act(), ToAct::Seat(1));
}

#[test]
fn the_gm_runs_a_game_from_the_command_line_and_every_player_is_told() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let o = pbem_in(dir.path(), args);
        (o.status.code(), output_text(&o))
    };
    assert_eq!(run(&["init"]).0, Some(0));
    let (code, out) = run(&[
        "game",
        "new",
        "dicerink",
        "--player",
        &format!("A={A}"),
        "--player",
        &format!("B={B}"),
        "--move-time",
        "2d",
    ]);
    assert_eq!(code, Some(0), "{out}");
    let mails = || std::fs::read_dir(dir.path().join("out")).unwrap().count();
    let sent = mails();
    let (code, out) = run(&["game", "pause", "1", "--reason", "holiday week"]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(mails(), sent + 2, "both players are told");
    let (_, show) = run(&["game", "show", "1"]);
    assert!(
        show.contains("(paused)") && show.contains("holiday week"),
        "{show}"
    );
    assert!(show.contains("next timer: stopped while paused"), "{show}");
    let (code, out) = run(&["game", "play", "1", "--seat", "A", "a1 1/2"]);
    assert_eq!(code, Some(1), "no move while paused: {out}");
    let (code, out) = run(&["game", "deadline", "1", "3d"]);
    assert_eq!(code, Some(1), "a paused game has no clock to set: {out}");
    assert_eq!(run(&["game", "resume", "1"]).0, Some(0));
    let (code, out) = run(&["game", "extend", "1", "12h"]);
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = run(&["game", "extend", "1", "12"]);
    assert_eq!(code, Some(1), "a bare number is no duration: {out}");
    assert!(out.contains("needs a unit"), "{out}");
    let (code, out) = run(&["game", "deadline", "1", "2000-01-01 10:00"]);
    assert_eq!(code, Some(1), "a deadline in the past: {out}");
    let (code, out) = run(&["game", "set", "1", "grace=6h"]);
    assert_eq!(code, Some(0), "{out}");
    let (code, out) = run(&["game", "set", "1", "setup=fixed"]);
    assert_eq!(
        code,
        Some(1),
        "the set-up is fixed once the game is made: {out}"
    );
    let (_, show) = run(&["game", "show", "1"]);
    assert!(show.contains("grace = 6h\n"), "{show}");
    assert!(show.contains("A       alice@example.org"), "{show}");
    assert_eq!(
        run(&["game", "play", "1", "--seat", "A", "a1 1/2"]).0,
        Some(0)
    );
    let (code, out) = run(&["game", "rollback", "1"]);
    assert_eq!(code, Some(0), "{out}");
    assert!(out.contains("rolled back to ply 0"), "{out}");
    let sent = mails();
    let (code, out) = run(&["game", "message", "1", "Please be kind to each other."]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(mails(), sent + 2);
    let (code, out) = run(&["game", "resend", "1", "--seat", "B"]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(mails(), sent + 3);
    let (code, out) = run(&["game", "eject", "1", "--seat", "B"]);
    assert_eq!(code, Some(0), "{out}");
    let (_, show) = run(&["game", "show", "1"]);
    assert!(
        show.contains("(open seat)") && show.contains("(paused)"),
        "{show}"
    );
    let (code, out) = run(&["game", "resume", "1"]);
    assert_eq!(code, Some(1), "nobody plays B: {out}");
    let (code, out) = run(&["game", "replace", "1", "--seat", "B", "carol@example.org"]);
    assert_eq!(code, Some(0), "{out}");
    assert_eq!(run(&["game", "resume", "1"]).0, Some(0));
    let (code, out) = run(&["game", "cancel", "1", "--reason", "the club closed"]);
    assert_eq!(code, Some(0), "{out}");
    let (_, record) = run(&["export", "1"]);
    assert!(record.contains("[Result \"*\"]"), "{record}");
    let (code, out) = run(&["game", "cancel", "1", "--reason", "again"]);
    assert_eq!(code, Some(1), "{out}");
    // The last mail each player got is the cancellation, in words.
    let mut last = std::fs::read_dir(dir.path().join("out"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect::<Vec<_>>();
    last.sort();
    let text = std::fs::read_to_string(last.last().unwrap()).unwrap();
    assert!(
        text.contains("The GM has cancelled the game (the club closed)"),
        "{text}"
    );
}

#[test]
fn a_move_the_gm_plays_for_a_seat_says_so_and_a_draw_the_gm_declares_is_not_an_agreement() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let o = pbem_in(dir.path(), args);
        (o.status.code(), output_text(&o))
    };
    assert_eq!(run(&["init"]).0, Some(0));
    let new = crate::common::NEW_DICERINK;
    assert_eq!(run(&new).0, Some(0));
    let newest = || {
        let mut files: Vec<_> = std::fs::read_dir(dir.path().join("out"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        files
            .iter()
            .rev()
            .take(2)
            .map(|f| std::fs::read_to_string(f).unwrap())
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(
        run(&["game", "play", "1", "--seat", "A", "a1 1/2"]).0,
        Some(0)
    );
    let mail = newest();
    assert!(mail.contains("The GM played a1 1/2 for A."), "{mail}");
    assert_eq!(run(&["game", "play", "1", "--gm", "draw"]).0, Some(0));
    let mail = newest();
    assert!(mail.contains("declared by the GM"), "{mail}");
    assert!(!mail.contains("agreed"), "{mail}");
}

#[test]
fn a_rollback_to_the_start_keeps_the_opening_roll_and_nothing_is_refused_in_silence() {
    let mut w = World::new();
    let id = w.game(
        GameKind::Dicess,
        &[("LIGHT", A), ("DARK", B)],
        &[("salt_window", "0")],
        None,
        None,
    );
    let g = w.load(id);
    assert_eq!(g.moves.len(), 1, "the opening roll");
    for seat in [0, 1] {
        let ply = w.load(id).game.legal_plies().into_iter().next().unwrap();
        let to = w.seat_address(id, seat);
        let from = if seat == 0 { A } else { B };
        let raw = w.mail(from, &to, "Re: set-up", &ply);
        w.deliver(&raw).unwrap();
    }
    assert_eq!(w.load(id).moves.len(), 3);
    let roll = w.load(id).moves[0].text.clone();
    let mut g = w.load(id);
    let back = w
        .store
        .tx(|tx| {
            life::rollback(
                &pbem::gm::Gm::new(tx, w.now, &pbem::gm::Quiet),
                &mut g,
                Rollback::To(0),
            )
        })
        .unwrap()
        .unwrap();
    assert_eq!(back.undone.len(), 2, "both placements, not the roll");
    let g = w.load(id);
    assert_eq!(g.moves.len(), 1);
    assert_eq!(g.moves[0].text, roll);
    assert_eq!(g.game.to_act(), ToAct::Seat(0), "LIGHT places again");
    // Nothing before the opening roll can go, and zero plies is no rollback.
    for how in [Rollback::To(0), Rollback::Plies(0)] {
        let mut g = w.load(id);
        let res = w
            .store
            .tx(|tx| life::rollback(&pbem::gm::Gm::new(tx, w.now, &pbem::gm::Quiet), &mut g, how))
            .unwrap();
        assert!(res.is_err(), "{how:?}");
    }
}

#[test]
fn a_finished_game_whose_seed_is_public_cannot_go_back() {
    let mut w = World::new();
    let id = d4d6_example(&mut w);
    w.send_to_seat(A, id, 0, "Ca e5").unwrap();
    w.send_to_seat(B, id, 1, "RESIGN").unwrap();
    let mut g = w.load(id);
    assert!(g.row.seed_revealed);
    let res = w
        .store
        .tx(|tx| {
            life::rollback(
                &pbem::gm::Gm::new(tx, w.now, &pbem::gm::Quiet),
                &mut g,
                Rollback::Plies(1),
            )
        })
        .unwrap();
    assert_eq!(res.unwrap_err(), pbem::gm::Refusal::SeedPublic);
}

#[test]
fn eject_mails_only_what_it_did_and_a_replacement_is_seated_in_one_go() {
    let dir = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let o = pbem_in(dir.path(), args);
        (o.status.code(), output_text(&o))
    };
    let mails = || std::fs::read_dir(dir.path().join("out")).map_or(0, |d| d.count());
    assert_eq!(run(&["init"]).0, Some(0));
    let new = [
        "game",
        "new",
        "dicerink",
        "--player",
        &format!("A={A}"),
        "--player",
        &format!("B={B}"),
    ];
    assert_eq!(run(&new).0, Some(0));
    assert_eq!(run(&["game", "cancel", "1", "--reason", "test"]).0, Some(0));
    let sent = mails();
    let (code, out) = run(&["game", "eject", "1", "--seat", "B"]);
    assert_eq!(code, Some(1), "a finished game keeps its players: {out}");
    assert!(out.contains("the game is finished"), "{out}");
    assert_eq!(mails(), sent, "a refused eject mails nobody");
    assert_eq!(run(&new).0, Some(0));
    let (code, out) = run(&[
        "game",
        "eject",
        "2",
        "--seat",
        "B",
        "--replace",
        "not an address",
    ]);
    assert_eq!(code, Some(1), "{out}");
    let (code, out) = run(&[
        "game",
        "eject",
        "2",
        "--seat",
        "B",
        "--replace",
        "carol@example.org",
    ]);
    assert_eq!(code, Some(0), "{out}");
    let (_, show) = run(&["game", "show", "2"]);
    assert!(
        show.contains("(active)") && show.contains("carol@example.org"),
        "{show}"
    );
    // A deadline must be a date a stored clock can hold, and within a year.
    let (code, out) = run(&["game", "deadline", "2", "9999-12-31 23:00"]);
    assert_eq!(code, Some(1), "{out}");
    assert!(out.contains("more than 365d away"), "{out}");
}

/// A player seated in another's place (`game replace`, `game eject --replace`) does not
/// inherit the old player's draw offer or missed turns: the offer was theirs to make.
#[test]
fn a_new_player_in_a_seat_starts_without_the_old_ones_draw_offer() {
    let mut w = World::new();
    let id = dicerink(&mut w);
    w.send_to_seat(A, id, 0, "DRAW OFFER").unwrap();
    assert!(w.load(id).seat(0).unwrap().draw_offer);
    w.store
        .tx(|tx| {
            tx.set_missed_before(id, 0, 2)?;
            let carol = tx.player_id("carol@example.org")?;
            tx.fill_seat(id, 0, carol, "newtoken0000")
        })
        .unwrap();
    let g = w.load(id);
    let seat = g.seat(0).unwrap();
    assert!(!seat.draw_offer && seat.missed_before == 0, "{seat:?}");
    // B's acceptance now draws nothing: the new player has offered nothing.
    w.send_to_seat(B, id, 1, "DRAW ACCEPT").unwrap();
    assert_eq!(w.load(id).row.status, "active");
}
