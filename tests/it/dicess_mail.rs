//! Dicess by email, through delivered raw mail only: the salts and START, the GM's one roll of
//! 32 dice mailed to both players, the two placements, turns of several paths in one line,
//! captures with support, a promotion, refusals that name the failing step, `MOVES`, a star
//! win whose game-over mail reveals the dice seed, and an export that `pbem verify` accepts.

use crate::common::{only_to, output_text, pbem_command, says, World};
use pbem::dice::{self, Seed};
use pbem::games::{GameKind, ToAct};

const LIGHT: &str = "light@example.org";
const DARK: &str = "dark@example.org";

/// The roll the game's own dice give game 1 of a fresh store with the harness's seed (seven
/// 7s) and the salts below; `the_set_up_roll_...` checks it against `dice::roll`.
const ROLL: &str = "6 2 6 5 1 5 6 4 6 5 6 5 2 1 3 6 5 5 1 5 1 3 5 1 5 2 5 6 5 3 1 1";
const LIGHT_ROLLED: &str = "LIGHT rolled 6 2 6 5 1 5 6 4 6 5 6 5 2 1 3 6";
const DARK_ROLLED: &str = "DARK rolled 5 5 1 5 1 3 5 1 5 2 5 6 5 3 1 1";
/// A permutation of each side's 16 numbers: LIGHT's 1s on d2 and e2, DARK's weak c7, c8, d7
/// and its 5s on the star squares d8 and e8.
const LIGHT_SETUP: &str = "R1: 6 6 5 3 4 5 6 6 / R2: 6 5 2 1 1 2 5 6";
const DARK_SETUP: &str = "R8: 5 5 1 5 5 3 5 6 / R7: 5 5 1 1 2 3 1 1";

fn address(seat: usize) -> &'static str {
    [LIGHT, DARK][seat]
}

/// Mails `body` from a seat to its secret reply address, with the game's own (seeded) dice.
fn send(w: &mut World, id: i64, seat: usize, body: &str) {
    let to = w.seat_address(id, seat);
    let raw = w.mail(
        address(seat),
        &to,
        &format!("Re: [pbem #{id}] Dicess"),
        body,
    );
    assert_eq!(w.deliver(&raw).unwrap().status, "done", "{body}");
}

/// The body of the one mail to `to` among the mail queued since the last look.
fn reply(w: &mut World, to: &str) -> String {
    only_to(&w.new_mail(), to).body.clone()
}

/// A seat's ply that the GM accepts: the mover's reply (kind, body) and the other seat's
/// report (kind, body), both checked to be about this ply.
fn accepted(w: &mut World, id: i64, seat: usize, ply: &str) -> (String, String) {
    let before = w.load(id).moves.len();
    send(w, id, seat, ply);
    let mail = w.new_mail();
    let (mine, theirs) = (
        only_to(&mail, address(seat)),
        only_to(&mail, address(1 - seat)),
    );
    assert!(says(&mine.body, &format!("ok: {ply}")), "{}", mine.body);
    let g = w.load(id);
    assert_eq!(g.moves.len(), before + 1, "{ply}: one ply logged");
    assert_eq!(g.moves.last().unwrap().text, ply);
    (mine.body.clone(), theirs.body.clone())
}

/// A seat's line that the GM refuses: nothing is logged; the reply (returned) says why.
fn refused(w: &mut World, id: i64, seat: usize, line: &str) -> String {
    let before = w.load(id).moves.len();
    send(w, id, seat, line);
    let body = reply(w, address(seat));
    assert!(says(&body, &format!("refused: {line}\n")), "{body}");
    assert_eq!(w.load(id).moves.len(), before, "{line}: nothing logged");
    body
}

/// A new game with both players' salts: after DARK's START the GM has rolled.
fn rolled_game(w: &mut World) -> i64 {
    let id = w.game(
        GameKind::Dicess,
        &[("LIGHT", LIGHT), ("DARK", DARK)],
        &[],
        None,
        None,
    );
    assert_eq!(id, 1, "ROLL is the roll of game 1");
    w.new_mail();
    send(w, id, 0, "SALT light's pebble\nSTART");
    send(w, id, 1, "SALT 42\nSTART");
    w.new_mail();
    id
}

/// A game whose set-up is done: LIGHT to move in round 1.
fn placed_game(w: &mut World) -> i64 {
    let id = rolled_game(w);
    accepted(w, id, 0, LIGHT_SETUP);
    accepted(w, id, 1, DARK_SETUP);
    assert_eq!(w.load(id).game.to_act(), ToAct::Seat(0));
    id
}

#[test]
fn the_set_up_roll_is_mailed_to_both_players_and_each_places_its_own_numbers() {
    let mut w = World::new();
    let id = w.game(
        GameKind::Dicess,
        &[("LIGHT", LIGHT), ("DARK", DARK)],
        &[],
        None,
        None,
    );
    let g = w.load(id);
    assert_eq!(g.game.to_act(), ToAct::Chance(vec![6; 32]));
    assert!(g.moves.is_empty(), "nothing is rolled before the salts");
    // The welcome tells how to salt and start, and what the GM will roll.
    let welcome = w.new_mail();
    for to in [LIGHT, DARK] {
        let body = &only_to(&welcome, to).body;
        for needle in ["SALT <any text>", "send START", "R1: ", "the GM rolls 32d6"] {
            assert!(says(body, needle), "{needle}: {body}");
        }
    }

    // LIGHT salts and is ready; the roll waits for DARK.
    send(&mut w, id, 0, "SALT light's pebble\nSTART");
    let body = reply(&mut w, LIGHT);
    assert!(says(&body, "salt recorded (1 of at most 32)"), "{body}");
    assert!(says(&body, "still to come from DARK"), "{body}");
    assert!(w.load(id).moves.is_empty());
    // Placing before the roll is refused, saying what the game waits for.
    let body = refused(&mut w, id, 0, LIGHT_SETUP);
    assert!(
        says(
            &body,
            "not your turn (the GM rolls 32d6 once the salts are fixed"
        ),
        "{body}"
    );

    // DARK salts and starts: the salts are fixed and the GM rolls the 32 dice, one ply.
    send(&mut w, id, 1, "SALT 42\nSTART");
    let g = w.load(id);
    let salts = pbem::gm::salts(&g.row).unwrap();
    assert_eq!(salts, ["light's pebble", "42"]);
    let seed = Seed::from_bytes([7u8; 32]);
    let want: Vec<String> = (0..32)
        .map(|k| dice::roll(&seed, &salts, &id.to_string(), k, 6).to_string())
        .collect();
    assert_eq!(want.join(" "), ROLL, "the game's own dice");
    let texts: Vec<&str> = g.moves.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(texts, [format!("roll {ROLL}")]);
    assert_eq!(g.game.to_act(), ToAct::Seat(0), "LIGHT places first");
    // Both players are told the roll, and whose 16 numbers are whose: LIGHT in a report that
    // asks for its placement, DARK in the reply to its START.
    let mail = w.new_mail();
    let (to_light, to_dark) = (only_to(&mail, LIGHT), only_to(&mail, DARK));
    assert_eq!(to_light.kind, "turn_report");
    assert_eq!(to_dark.kind, "move_accepted");
    for body in [&to_light.body, &to_dark.body] {
        for needle in [
            // The GM's roll, told once in words by the report (not as the record's
            // `roll ...` ply, nor again as a line of its own or under the board).
            "The set-up roll:",
            "the salts are fixed: light's pebble | 42",
            LIGHT_ROLLED,
            "(sorted: 1 1 2 2 3 4 5 5 5 5 6 6 6 6 6 6)",
            DARK_ROLLED,
            "(sorted: 1 1 1 1 1 2 3 3 5 5 5 5 5 5 5 6)",
            "LIGHT places first, on ranks 1 and 2 (R1: ... / R2: ...)",
            "Dicess, set-up: LIGHT places its 16 dice on ranks 1 and 2.",
        ] {
            assert!(says(body, needle), "{needle}: {body}");
        }
        // Issue 27, point 21: each fact once: the roll by the report alone.
        assert_eq!(body.matches(LIGHT_ROLLED).count(), 1, "{body}");
        assert!(!body.contains("The GM rolled"), "{body}");
    }
    assert!(says(&to_light.body, "It is your move"), "{}", to_light.body);
    assert!(!says(&to_dark.body, "It is your move"), "{}", to_dark.body);

    // MOVES during the set-up says what to write.
    send(&mut w, id, 0, "MOVES");
    let body = reply(&mut w, LIGHT);
    assert!(
        says(&body, "Sorted, they are 1 1 2 2 3 4 5 5 5 5 6 6 6 6 6 6."),
        "{body}"
    );
    assert!(
        says(&body, "R1: 6 2 6 5 1 5 6 4 / R2: 6 5 6 5 2 1 3 6"),
        "{body}"
    );
    // A placement that is not a permutation of LIGHT's roll, DARK placing out of turn, and
    // LIGHT writing DARK's ranks are refused, each with its reason.
    let body = refused(&mut w, id, 0, "R1: 6 6 6 6 6 6 6 6 / R2: 1 1 2 2 3 4 5 5");
    assert!(
        says(
            &body,
            "LIGHT must place exactly the numbers it rolled (1 1 2 2 3 4 5 5 5 5 6 6 6 6 6 6): \
             5s: 2 placed, 4 rolled, 6s: 8 placed, 6 rolled"
        ),
        "{body}"
    );
    let body = refused(&mut w, id, 1, DARK_SETUP);
    assert!(says(&body, "not your turn (LIGHT to move)"), "{body}");
    let body = refused(&mut w, id, 0, "R8: 6 6 5 3 4 5 6 6 / R7: 6 5 2 1 1 2 5 6");
    assert!(
        says(
            &body,
            "LIGHT places its dice on ranks 1 and 2: write R1: ... / R2: ..."
        ),
        "{body}"
    );
    // Half a placement is not read as one; the reply quotes it as written.
    send(&mut w, id, 0, "R1: 6 6 5 3 4 5 6 6");
    let body = reply(&mut w, LIGHT);
    assert!(
        says(&body, "ignored: R1: 6 6 5 3 4 5 6 6\n")
            && says(
                &body,
                "'R1: 6 6 5 3 4 5 6 6': a set-up is two rows separated by '/'"
            ),
        "{body}"
    );

    // LIGHT places; DARK is asked for its own.
    let (_, to_dark) = accepted(&mut w, id, 0, LIGHT_SETUP);
    for needle in [
        &format!("LIGHT placed {LIGHT_SETUP}. DARK places next, on ranks 8 and 7") as &str,
        "  2  L6   L5   L2   L1   L1   L2   L5   L6   2",
        "  1  L6   L6   L5   L3*  L4*  L5   L6   L6   1",
        "It is your move",
    ] {
        assert!(says(&to_dark, needle), "{needle}: {to_dark}");
    }
    assert_eq!(w.load(id).game.to_act(), ToAct::Seat(1));
    // DARK places; the set-up is complete and LIGHT moves first.
    let (_, to_light) = accepted(&mut w, id, 1, DARK_SETUP);
    for needle in [
        "The set-up is complete: LIGHT moves first.",
        "  8  D5   D5   D1   D5*  D5*  D3   D5   D6   8",
        "  7  D5   D5   D1   D1   D2   D3   D1   D1   7",
        "Dicess, round 1: LIGHT to move (1 to 6 points).",
        "Scores: LIGHT 184, DARK 184.",
        "It is your move",
    ] {
        assert!(says(&to_light, needle), "{needle}: {to_light}");
    }
    assert_eq!(w.load(id).game.to_act(), ToAct::Seat(0));
}

#[test]
fn a_dicess_game_by_mail_ends_with_a_star_win_and_its_record_verifies() {
    let mut w = World::new();
    let id = placed_game(&mut w);

    // Round 1. A turn over budget is refused at the step that breaks it, with the cost so far.
    let body = refused(&mut w, id, 0, "b2-b3-b4; c2-c3");
    assert!(
        says(
            &body,
            "b3-b4: the die shows 5, and a step of it costs 5: that makes 10, more than 6 \
             (5 of 6 points spent before it)"
        ),
        "{body}"
    );
    // Two paths in one line; the report says what it cost.
    let (_, to_dark) = accepted(&mut w, id, 0, "d2-d3-d4-d5; e2-e3-e4");
    assert!(
        says(
            &to_dark,
            "LIGHT played d2-d3-d4-d5; e2-e3-e4 (5 of 6 points)."
        ),
        "{to_dark}"
    );
    assert!(says(&to_dark, "It is your move"), "{to_dark}");
    assert_eq!(w.load(id).game.to_act(), ToAct::Seat(1));
    accepted(&mut w, id, 1, "h7-h6-h5; g7-g6");

    // Round 2: steps, then a capture that ends the turn.
    let (_, to_dark) = accepted(&mut w, id, 0, "d5-d6xd7");
    assert!(
        says(
            &to_dark,
            "LIGHT played d5-d6xd7 (2 of 6 points). d6xd7 took DARK's 1 with 1."
        ),
        "{to_dark}"
    );
    accepted(&mut w, id, 1, "h5-h4");

    // Round 3: a capture with support from the die on d7.
    let (mine, _) = accepted(&mut w, id, 0, "e4-e5-e6xe7");
    assert!(
        says(&mine, "e6xe7 took DARK's 2 with 1 + 1 (d7) = 2."),
        "{mine}"
    );
    accepted(&mut w, id, 1, "h4-h3");

    // Round 4. MOVES lists the single steps per die and the captures with their strength.
    send(&mut w, id, 0, "MOVES");
    let body = reply(&mut w, LIGHT);
    for needle in [
        "LIGHT to move: up to 6 points this turn",
        "  d7 (1): d6\n",
        "  c2 (2): c3 d2\n",
        "Captures now (your die plus your dice next to the captured one):",
        "  d7xc7: 1 against a 1\n",
        "  h2xh3: 6 against a 1\n",
        "Too weak now (moving support in first may change that):",
        "  d7xd8: 1 against a 5\n",
        "  e7xe8: 1 against a 5\n",
    ] {
        assert!(says(&body, needle), "{needle}: {body}");
    }
    assert_eq!(w.load(id).moves.len(), 9, "MOVES plays nothing");
    // A capture too weak, after a first path: the step, why, and the points spent before it.
    let body = refused(&mut w, id, 0, "e7-e6; d7xd8");
    assert!(
        says(
            &body,
            "d7xd8: your 1 alone, not enough to take a 5 (1 of 6 points spent before it)"
        ),
        "{body}"
    );
    accepted(&mut w, id, 0, "d7xc7");
    accepted(&mut w, id, 1, "h3-g3");

    // Round 5: a capture into the last row promotes the 1 to a 6.
    let (_, to_dark) = accepted(&mut w, id, 0, "c7xc8=6");
    assert!(
        says(
            &to_dark,
            "c7xc8 took DARK's 1 with 1. Promotion: the 1 on c8 became a 6."
        ),
        "{to_dark}"
    );
    assert!(says(&to_dark, "  8  D5   D5  [L6 ] D5*"), "{to_dark}");
    accepted(&mut w, id, 1, "g3-f3");

    // Round 6: the 6 takes the 5 on the star square d8 and wins.
    send(&mut w, id, 0, "c8xd8");
    let g = w.load(id);
    assert_eq!(g.row.status, "finished");
    assert_eq!(g.game.to_act(), ToAct::Nobody);
    assert_eq!(
        g.game.outcome_text().as_deref(),
        Some("LIGHT wins: entered the star square d8")
    );
    let texts: Vec<&str> = g.moves.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(
        texts,
        [
            &format!("roll {ROLL}") as &str,
            LIGHT_SETUP,
            DARK_SETUP,
            "d2-d3-d4-d5; e2-e3-e4",
            "h7-h6-h5; g7-g6",
            "d5-d6xd7",
            "h5-h4",
            "e4-e5-e6xe7",
            "h4-h3",
            "d7xc7",
            "h3-g3",
            "c7xc8=6",
            "g3-f3",
            "c8xd8",
        ]
    );
    // Both players get the game-over mail: the win, the revealed seed, the whole record.
    let seed = g.row.seed.clone().unwrap();
    assert_eq!(seed, "07".repeat(32));
    let mail = w.new_mail();
    let overs: Vec<_> = mail.iter().filter(|m| m.kind == "game_over").collect();
    assert_eq!(overs.len(), 2, "{mail:#?}");
    // The winner gets one mail, the game-over, not also an "ok" reply to the winning move.
    assert_eq!(only_to(&mail, LIGHT).kind, "game_over");
    for to in [LIGHT, DARK] {
        let over = overs.iter().find(|m| m.to_addr == to).unwrap();
        for needle in [
            "The game is over: LIGHT wins: entered the star square d8.",
            "c8xd8 took DARK's 5 with 6. LIGHT entered the star square d8 and wins.",
            &format!("The dice seed is now revealed: {seed}") as &str,
            &format!("[DiceSeed \"{seed}\"]"),
            "[Result \"LIGHT\"]",
            // The first move starts a line: it does not read as a ninth number of R7.
            &format!("{DARK_SETUP}\n1. d2-d3-d4-d5; e2-e3-e4"),
        ] {
            assert!(says(&over.body, needle), "{needle}: {}", over.body);
        }
    }
    // A move after the end is refused.
    let body = refused(&mut w, id, 1, "g6-g5");
    assert!(says(&body, "the game is finished"), "{body}");

    // The GM exports the game; `pbem verify` checks the 32 dice against the revealed seed.
    let d = w.dir.path();
    let export = pbem_command(d, "pbem.sqlite")
        .args(["export", &id.to_string()])
        .output()
        .unwrap();
    assert!(export.status.success(), "{}", output_text(&export));
    let record = String::from_utf8(export.stdout).unwrap();
    assert!(
        record.contains(&format!("[DiceSeed \"{seed}\"]")),
        "{record}"
    );
    let again = pbem::records::Record::parse(&record)
        .unwrap()
        .replay()
        .unwrap();
    assert_eq!(again.game.position_tag(), g.game.position_tag());
    std::fs::write(d.join("dicess.pgn"), &record).unwrap();
    let verify = pbem_command(d, "pbem.sqlite")
        .args(["verify", "dicess.pgn"])
        .output()
        .unwrap();
    let out = output_text(&verify);
    assert!(verify.status.success(), "{out}");
    assert!(out.contains("rolls: 32 of 32 match"), "{out}");
    // Another seed is caught: it matches neither the commitment nor the rolls.
    let forged = record.replace(&seed, &"08".repeat(32));
    assert_ne!(forged, record);
    std::fs::write(d.join("forged.pgn"), &forged).unwrap();
    let bad = pbem_command(d, "pbem.sqlite")
        .args(["verify", "forged.pgn"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(1), "{}", output_text(&bad));
}

/// Issue 27, point 14: the impasse forecast follows the engine's own count. LIGHT's step
/// forward in round 1 raises its score above round 0's mark, so round 5 can no longer end the
/// game: both reports name round 6 from then on, never round 5.
#[test]
fn the_impasse_forecast_moves_on_when_a_score_rises() {
    let mut w = World::new();
    let id = w.game(
        GameKind::Dicess,
        &[("LIGHT", LIGHT), ("DARK", DARK)],
        &[],
        Some("LIGHT:a1=1,h1=1 DARK:a8=1,h8=1 move=LIGHT"),
        None,
    );
    w.new_mail();
    let (_, to_dark) = accepted(&mut w, id, 0, "a1-a2");
    assert!(
        says(
            &to_dark,
            "If no die is captured or promoted and the scores stay as they are, it comes \
             after round 6."
        ),
        "{to_dark}"
    );
    assert!(!to_dark.contains("after round 5"), "{to_dark}");
    let (_, to_light) = accepted(&mut w, id, 1, "h8-g8");
    assert!(
        says(
            &to_light,
            "It comes after round 6 unless a die is captured or promoted, or a score rises \
             above its mark (LIGHT 23, DARK 22)."
        ),
        "{to_light}"
    );
}
