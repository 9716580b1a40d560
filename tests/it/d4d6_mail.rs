//! d4 d6 chess by email: the GM's roll, a two-phase choice, a forced outcome, a one-message
//! conditional turn, and dice that `pbem verify` checks against the revealed seed.

use crate::common::{only_to, says, World};
use pbem::games::{GameKind, ToAct};

const WHITE: &str = "white@example.org";
const BLACK: &str = "black@example.org";

fn example_game(w: &mut World) -> i64 {
    let pos = std::fs::read_to_string("tests/data/d4d6/seed_example.pos").unwrap();
    // No salt window: the dice roll as soon as a declaration needs them (the window has
    // tests of its own below).
    let id = w.game(
        GameKind::D4D6,
        &[("WHITE", WHITE), ("BLACK", BLACK)],
        &[("salt_window", "0")],
        Some(pos.trim()),
        None,
    );
    w.new_mail();
    id
}

fn send(w: &mut World, game: i64, seat: usize, body: &str, rolls: &[u32]) {
    let from = if seat == 0 { WHITE } else { BLACK };
    w.send_scripted(from, game, seat, body, rolls);
}

#[test]
fn a_roll_with_a_real_choice_is_mailed_and_the_choice_awaited() {
    let mut w = World::new();
    let id = example_game(&mut w);
    send(&mut w, id, 0, "Fo b6", &[1]);
    let g = w.load(id);
    let texts: Vec<&str> = g.moves.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["Fob6", "roll 1"]);
    assert_eq!(g.game.to_act(), ToAct::Seat(0), "White chooses");
    let mail = w.new_mail();
    let reply = only_to(&mail, WHITE);
    for outcome in ["b6-a6", "b6xb5", "b6xc6"] {
        assert!(reply.body.contains(outcome), "{}", reply.body);
    }
    let report = only_to(&mail, BLACK);
    assert!(
        says(&report.body, "The GM rolled 1 (d6)."),
        "{}",
        report.body
    );
    send(&mut w, id, 0, "b6xc6", &[]);
    let g = w.load(id);
    assert_eq!(g.moves.last().unwrap().text, "b6xc6");
    assert_eq!(g.game.to_act(), ToAct::Seat(1));
    let mail = w.new_mail();
    assert!(only_to(&mail, BLACK).body.contains("It is your move"));
}

#[test]
fn a_forced_outcome_is_played_without_asking() {
    let mut w = World::new();
    let id = example_game(&mut w);
    send(&mut w, id, 0, "Ca e5", &[3]);
    let g = w.load(id);
    let texts: Vec<&str> = g.moves.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["Cae5", "roll 3", "e5xc7/S"]);
    assert_eq!(g.game.to_act(), ToAct::Seat(1));
    // The report says the move was forced; it offers no choice nobody is asked for.
    let mail = w.new_mail();
    for to in [WHITE, BLACK] {
        let body = &only_to(&mail, to).body;
        assert!(
            says(
                body,
                "The GM rolled 3 (d4). One move is legal: the GM plays it. WHITE played e5xc7/S \
                 (the Cavalo from e5 to c7, facing south, captures BLACK's Rato)."
            ),
            "{body}"
        );
        assert!(!body.contains("Legal:"), "{body}");
    }
}

#[test]
fn a_conditional_turn_in_one_message() {
    let mut w = World::new();
    let id = example_game(&mut w);
    send(&mut w, id, 0, "Ga d8 d4\n1-4: d8xc7 | stay", &[2]);
    let g = w.load(id);
    let texts: Vec<&str> = g.moves.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, ["Gad8:d4", "roll 2", "d8xc7"]);
    assert_eq!(g.game.to_act(), ToAct::Seat(1));
    // Neither player is offered a choice the plan already made.
    let mail = w.new_mail();
    for to in [WHITE, BLACK] {
        let body = &only_to(&mail, to).body;
        assert!(!body.contains("Legal:"), "{body}");
        assert!(!body.contains("A special move may follow"), "{body}");
        assert!(
            crate::common::says(body, "The GM rolled 2 (d4). WHITE played d8xc7"),
            "{body}"
        );
    }
    // A roll the plan does not cover falls back to asking.
    let id = example_game(&mut w);
    send(&mut w, id, 0, "Fo b6\n2-6: b6-a6", &[1]);
    let g = w.load(id);
    assert_eq!(
        g.game.to_act(),
        ToAct::Seat(0),
        "roll 1 has no line: White is asked"
    );
    assert_eq!(g.moves.len(), 2);
}

#[test]
fn salts_and_the_revealed_seed_let_anyone_verify_the_rolls() {
    let mut w = World::new();
    let id = example_game(&mut w);
    let (tw, tb) = (w.seat_address(id, 0), w.seat_address(id, 1));
    // A bidi override would show the others a salt that is not the one rolled with: taken out.
    let raw = w.mail(
        WHITE,
        &tw,
        "salt",
        "SALT white's \u{202E}lucky\u{202C} pebble\u{200B}",
    );
    w.deliver(&raw).unwrap();
    let raw = w.mail(BLACK, &tb, "salt", "SALT 42");
    w.deliver(&raw).unwrap();
    let salts = pbem::gm::salts(&w.load(id).row).unwrap();
    // The documented order: by seat, then by bytes.
    assert_eq!(salts, ["white's lucky pebble", "42"]);
    // Play a few turns with the game's own seeded dice (no script), choosing legal outcomes.
    for _ in 0..6 {
        let g = w.load(id);
        let ToAct::Seat(seat) = g.game.to_act() else {
            break;
        };
        let ply = g
            .game
            .legal_plies()
            .into_iter()
            .next()
            .expect("a legal ply");
        let (from, to) = (
            if seat == 0 { WHITE } else { BLACK },
            w.seat_address(id, seat),
        );
        let raw = w.mail(from, &to, "Re: move", &ply);
        w.deliver(&raw).unwrap();
    }
    // After the first ply salts are fixed.
    let raw = w.mail(WHITE, &tw, "salt", "SALT too late");
    w.deliver(&raw).unwrap();
    assert_eq!(pbem::gm::salts(&w.load(id).row).unwrap().len(), 2);
    let raw = w.mail(BLACK, &tb, "bye", "RESIGN");
    w.deliver(&raw).unwrap();
    let g = w.load(id);
    assert_eq!(g.row.status, "finished");
    assert!(!g.rolls.is_empty(), "the GM rolled");
    let record = pbem::gm::export(&g).unwrap();
    assert!(record.contains("[DiceSeed \""), "{record}");
    // Issue 27, point 27: the salts are plain tags, one a salt, not an escaped JSON list.
    assert!(
        record.contains("[DiceSalt1 \"white's lucky pebble\"]\n[DiceSalt2 \"42\"]\n"),
        "{record}"
    );
    assert!(!record.contains("DiceSalts"), "{record}");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("game.pgn");
    std::fs::write(&file, &record).unwrap();
    let verify = |f: &std::path::Path| {
        std::process::Command::new(env!("CARGO_BIN_EXE_pbem"))
            .arg("verify")
            .arg(f)
            .output()
            .unwrap()
    };
    let ok = verify(&file);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stdout)
    );
    let out = String::from_utf8_lossy(&ok.stdout);
    assert!(
        out.contains(&format!("rolls: {n} of {n} match", n = g.rolls.len())),
        "{out}"
    );
    // A record exported before the plain tags, its salts a JSON list, still verifies.
    let old = record.replace(
        "[DiceSalt1 \"white's lucky pebble\"]\n[DiceSalt2 \"42\"]\n",
        "[DiceSalts \"[\\\"white's lucky pebble\\\",\\\"42\\\"]\"]\n",
    );
    assert!(old.contains(r#"[DiceSalts "[\"white's"#), "{old}");
    std::fs::write(&file, &old).unwrap();
    let ok = verify(&file);
    let out = String::from_utf8_lossy(&ok.stdout);
    assert!(ok.status.success(), "{out}");
    assert!(
        out.contains(&format!("rolls: {n} of {n} match", n = g.rolls.len())),
        "{out}"
    );
    // Another seed is caught: it does not match the commitment, nor the rolls.
    let seed = g.row.seed.clone().unwrap();
    let other = format!(
        "{}{}",
        if seed.starts_with('0') { "1" } else { "0" },
        &seed[1..]
    );
    std::fs::write(&file, record.replace(&seed, &other)).unwrap();
    let bad = verify(&file);
    assert_eq!(bad.status.code(), Some(1));
}

/// A plan is private: when a planned move cannot be played, only its author reads why; the
/// opponent learns what was played, nothing of what was planned.
#[test]
fn a_plan_that_fails_is_told_to_its_author_only() {
    let mut w = World::new();
    // The first choice for roll 1 cannot be played; the second can.
    let id = example_game(&mut w);
    send(&mut w, id, 0, "Fo b6\n1: b6-a7 | b6xc6", &[1]);
    assert_eq!(w.load(id).moves.last().unwrap().text, "b6xc6");
    let mail = w.new_mail();
    let mine = &only_to(&mail, WHITE).body;
    assert!(mine.contains("b6-a7 cannot be played"), "{mine}");
    let theirs = &only_to(&mail, BLACK).body;
    assert!(
        says(
            theirs,
            "WHITE played b6xc6 (the Formiga from b6 to c6, captures"
        ),
        "{theirs}"
    );
    assert!(
        !theirs.contains("b6-a7"),
        "the opponent reads the plan: {theirs}"
    );
    // Nothing planned for the roll can be played: the author is asked, the opponent waits.
    let id = example_game(&mut w);
    send(&mut w, id, 0, "Fo b6\n1: b6-a7", &[1]);
    assert_eq!(w.load(id).game.to_act(), ToAct::Seat(0));
    let mail = w.new_mail();
    let mine = &only_to(&mail, WHITE).body;
    assert!(
        says(mine, "None of the planned moves can be played"),
        "{mine}"
    );
    let theirs = &only_to(&mail, BLACK).body;
    assert!(
        !theirs.contains("b6-a7"),
        "the opponent reads the plan: {theirs}"
    );
    assert!(!theirs.contains("planned"), "{theirs}");
}

/// A plan followed by a sign-off is still a plan: the closing words are not moves.
#[test]
fn a_plan_followed_by_a_sign_off_is_a_plan() {
    let mut w = World::new();
    let id = example_game(&mut w);
    send(&mut w, id, 0, "Fo b6\n1: b6xc6\n\nCheers,\nBoris", &[1]);
    let texts: Vec<String> = w.load(id).moves.iter().map(|m| m.text.clone()).collect();
    assert_eq!(texts, ["Fob6", "roll 1", "b6xc6"]);
    let mail = w.new_mail();
    let reply = &only_to(&mail, WHITE).body;
    assert!(reply.contains("ignored: Cheers,"), "{reply}");
    assert!(!reply.contains("refused"), "{reply}");
}

/// Issue 27, point 12: a refused move names the rule that forbids it (the Guarda's
/// protection, an empty square declared), then at most a short list of what is legal.
#[test]
fn a_refusal_names_the_rule_that_forbids_the_move() {
    let mut w = World::new();
    let id = example_game(&mut w);
    send(&mut w, id, 0, "Fo f3", &[]);
    let body = only_to(&w.new_mail(), WHITE).body.clone();
    assert!(
        says(
            &body,
            "refused: Fo f3\n    f3 is empty; you may declare Fob6\n"
        ),
        "{body}"
    );
    // BLACK's Formiga on a6 stands next to its Guarda on a5: White's 1 cannot take it.
    let id = w.game(
        GameKind::D4D6,
        &[("WHITE", WHITE), ("BLACK", BLACK)],
        &[("salt_window", "0")],
        Some("W:Fob6,Gad8 B:Foa6,Gua5,Raf7 w 0 1"),
        None,
    );
    w.new_mail();
    send(&mut w, id, 0, "Fo b6", &[1]);
    w.new_mail();
    send(&mut w, id, 0, "b6xa6", &[]);
    let body = only_to(&w.new_mail(), WHITE).body.clone();
    assert!(
        says(
            &body,
            "refused: b6xa6\n    the Formiga on a6 cannot be captured: BLACK's Guarda on a5 \
             stands orthogonally next to it in the playing area; legal: b6-b5, b6-c6\n"
        ),
        "{body}"
    );
    assert_eq!(
        w.load(id).game.to_act(),
        ToAct::Seat(0),
        "White chooses again"
    );
}

/// One move per mail holds across a command between two moves: after the declaration and
/// its roll it is still White's choice, yet a second move line of the same mail is refused.
#[test]
fn a_second_move_after_a_command_is_refused_as_one_move_per_mail() {
    let mut w = World::new();
    let id = example_game(&mut w);
    send(&mut w, id, 0, "Fo b6\nBOARD\nb6xc6", &[1]);
    let texts: Vec<String> = w.load(id).moves.iter().map(|m| m.text.clone()).collect();
    assert_eq!(
        texts,
        ["Fob6", "roll 1"],
        "the choice waits for White's next mail"
    );
    let mail = w.new_mail();
    let reply = &only_to(&mail, WHITE).body;
    assert!(says(reply, "refused: b6xc6"), "{reply}");
    assert!(says(reply, "one move per mail"), "{reply}");
}

/// Issue 27, points 21 and 24: the turn report says the roll and the move once, in words
/// beside the notation (the capture named), and the board beside it has no `Last:` line.
#[test]
fn a_turn_report_says_the_roll_and_the_move_once_in_words() {
    let mut w = World::new();
    let id = example_game(&mut w);
    send(&mut w, id, 0, "Ca e5", &[3]);
    let mail = w.new_mail();
    let body = &only_to(&mail, BLACK).body;
    assert_eq!(body.matches("rolled 3").count(), 1, "{body}");
    assert_eq!(body.matches("e5xc7/S").count(), 1, "{body}");
    assert!(!body.contains("Last:"), "{body}");
    assert!(says(body, "captures BLACK's Rato"), "{body}");
    assert!(
        says(
            body,
            "WHITE declared Cae5 (the Cavalo on e5, rolling the d4)."
        ),
        "{body}"
    );
}
