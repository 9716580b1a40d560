//! Siberian Dice by email: a three-player game opened with NEW and JOIN and played in turn
//! order, the one-message forms (`H d4`, `c3 d4`, `c3: 1>a1 3-5>d4 *>e5`), the two-message
//! form (`ROLL c3`, then `PLACE d4`), refusals in words, MOVES, a resignation that leaves two
//! seats to agree a draw (or the last seat to win), and variants whose opening roll waits
//! for the salts. Every move goes through a delivered raw mail.

use crate::common::{only_to, says, World};
use pbem::games::{GameKind, ToAct};
use pbem::store::OutboxRow;

const BLUE: &str = "blue@example.org";
const RED: &str = "red@example.org";
const GREEN: &str = "green@example.org";
const ADDR: [&str; 3] = [BLUE, RED, GREEN];

/// Mails `body` from a seat to its secret address, with scripted dice (each one rolled).
fn send(w: &mut World, game: i64, seat: usize, body: &str, rolls: &[u32]) {
    w.send_scripted(ADDR[seat], game, seat, body, rolls);
}

fn plies(w: &mut World, id: i64) -> Vec<String> {
    w.load(id).moves.iter().map(|m| m.text.clone()).collect()
}

fn to_act(w: &mut World, id: i64) -> ToAct {
    w.load(id).game.to_act()
}

/// The mail queued since the last look (printed with `SIB_SHOW=1 ... --nocapture`).
fn fresh(w: &mut World) -> Vec<OutboxRow> {
    let mail = w.new_mail();
    if std::env::var_os("SIB_SHOW").is_some() {
        for m in &mail {
            eprintln!("===== to {} ({}) =====\n{}", m.to_addr, m.kind, m.body);
        }
    }
    mail
}

/// The body of the one mail to `to` among the mail queued since the last look.
fn reply_to(w: &mut World, to: &str) -> String {
    only_to(&fresh(w), to).body.clone()
}

fn has(body: &str, needles: &[&str]) {
    for n in needles {
        assert!(says(body, n), "{n:?} not in:\n{body}");
    }
}

/// A basic game of three opened by BLUE with NEW and joined by RED and GREEN, all by mail; the
/// dice roll at once (no salt window).
fn three_by_mail(w: &mut World) -> i64 {
    w.ask_and_confirm(BLUE, "NEW siberian players=3 salt_window=0");
    has(
        &reply_to(w, BLUE),
        &["game #1 created; you play BLUE", "they send JOIN 1"],
    );
    let id = 1;
    assert_eq!(w.load(id).row.status, "open");
    w.ask_and_confirm(RED, "JOIN 1");
    assert_eq!(w.load(id).row.status, "open", "GREEN's seat is still open");
    w.ask_and_confirm(GREEN, "JOIN 1");
    let mail = fresh(w);
    let g = w.load(id);
    assert_eq!(g.row.status, "active");
    assert_eq!(g.game.seat_names(), ["BLUE", "RED", "GREEN"]);
    let welcomes: Vec<OutboxRow> = mail.into_iter().filter(|m| m.kind == "welcome").collect();
    assert_eq!(welcomes.len(), 3);
    for (seat, addr) in ADDR.iter().enumerate() {
        let body = &only_to(&welcomes, addr).body;
        let name = g.game.seat_name(seat);
        has(
            body,
            &[
                &format!("You play {name}."),
                "Siberian Dice, basic (3 players)",
                "GREEN  hand  9",
                "c3: 1>a1 3-5>d4 *>e5",
            ],
        );
    }
    assert_eq!(g.game.to_act(), ToAct::Seat(0));
    id
}

#[test]
fn three_players_open_by_mail_move_in_turn_then_one_resigns_and_two_agree_a_draw() {
    let mut w = World::new();
    let id = three_by_mail(&mut w);
    first_round(&mut w, id);
    second_round(&mut w, id);
    resign_then_agree_a_draw(&mut w, id);
}

/// BLUE `H d4`, RED `H c3`, GREEN `ROLL H` then (after a refused `PLACE d4`) `PLACE c2`.
fn first_round(w: &mut World, id: i64) {
    // BLUE: a whole move in one line; the GM rolls, then places the die where BLUE said.
    send(w, id, 0, "H d4", &[1]);
    assert_eq!(plies(w, id), ["H", "roll 1", "d4"]);
    assert_eq!(to_act(w, id), ToAct::Seat(1), "RED moves second");
    let mail = fresh(w);
    has(
        &only_to(&mail, BLUE).body,
        &[
            "ok: H d4",
            "BLUE declared H (a die from the hand); the GM rolls it.",
            "The GM rolled 1 for BLUE's die from the hand.",
            "BLUE placed a 1 on d4",
        ],
    );
    for to in [RED, GREEN] {
        has(
            &only_to(&mail, to).body,
            &["BLUE placed a 1 on d4 (from the hand)", "RED to move"],
        );
    }
    assert!(only_to(&mail, RED).body.contains("It is your move"));
    assert!(!only_to(&mail, GREEN).body.contains("It is your move"));

    // RED: its 1 on c3 touches BLUE's 1 on d4: both dice become perfect.
    send(w, id, 1, "H c3", &[1]);
    assert_eq!(to_act(w, id), ToAct::Seat(2), "GREEN moves third");
    has(
        &reply_to(w, RED),
        &[
            "Perfect dice: BLUE 1, RED 1, GREEN 0 of 6.",
            "GREEN to move.",
        ],
    );

    // GREEN: two messages. The roll is mailed; the placement follows in a second mail.
    send(w, id, 2, "ROLL H", &[6]);
    assert_eq!(plies(w, id)[6..], ["H", "roll 6"]);
    assert_eq!(to_act(w, id), ToAct::Seat(2), "GREEN places");
    let mail = fresh(w);
    has(
        &only_to(&mail, GREEN).body,
        &["The GM rolled 6 for GREEN's die from the hand. GREEN places it, a 6, on any vacant hex."],
    );
    has(
        &only_to(&mail, BLUE).body,
        &["GREEN declared H: place the 6"],
    );
    // An occupied hex is refused in words, and nothing is played.
    send(w, id, 2, "PLACE d4", &[]);
    has(
        &reply_to(w, GREEN),
        &["refused: PLACE d4", "d4 is taken by BLUE's 1"],
    );
    assert_eq!(plies(w, id).len(), 8);
    send(w, id, 2, "PLACE c2", &[]);
    assert_eq!(plies(w, id)[6..], ["H", "roll 6", "c2"]);
    has(
        &reply_to(w, GREEN),
        &[
            "GREEN placed a 6 on c2 (from the hand). No longer perfect: c3 (RED 1).",
            "Perfect dice: BLUE 1, RED 0, GREEN 0 of 6.",
        ],
    );
    assert_eq!(to_act(w, id), ToAct::Seat(0), "back to BLUE");
}

/// A refused lift of RED's die, BLUE `H e4`, RED's conditional with an occupied entry, and
/// GREEN's conditional that does not cover its roll.
fn second_round(w: &mut World, id: i64) {
    // BLUE may not lift another seat's die.
    send(w, id, 0, "c3 e5", &[]);
    has(
        &reply_to(w, BLUE),
        &["refused: c3 e5", "c3 is RED's 1, not one of your dice"],
    );
    assert_eq!(plies(w, id).len(), 9);
    // BLUE takes a 3 to e4: its 1 on d4 now has two neighbours.
    send(w, id, 0, "H e4", &[3]);
    has(
        &reply_to(w, BLUE),
        &["No longer perfect: d4 (BLUE 1).", "RED to move."],
    );

    // RED's conditional: 4 falls in 3-5, but d4 is taken, so the next entry (*>e5) is played.
    send(w, id, 1, "c3: 1>a1 3-5>d4 *>e5", &[4]);
    assert_eq!(plies(w, id)[12..], ["c3", "roll 4", "e5"]);
    has(
        &reply_to(w, RED),
        &[
            "ok: c3: 1>a1 3-5>d4 *>e5",
            "RED placed a 4 on e5 (lifted from c3). Now perfect: d4 (BLUE 1).",
        ],
    );
    let tag = w.load(id).game.position_tag();
    assert!(tag.contains("RED:e5=4"), "{tag}");

    // GREEN's conditional does not cover the 5 it rolls: the GM asks GREEN.
    send(w, id, 2, "c2: 1,2>a1 6>a1", &[5]);
    assert_eq!(plies(w, id)[15..], ["c2", "roll 5"]);
    assert_eq!(to_act(w, id), ToAct::Seat(2));
    has(
        &reply_to(w, GREEN),
        &[
            "The GM rolled 5 for GREEN's die lifted from c2",
            "None of the outcomes you planned can be played: reply with your choice.",
        ],
    );
    send(w, id, 2, "a1", &[]);
    assert_eq!(plies(w, id)[15..], ["c2", "roll 5", "a1"]);
    assert_eq!(to_act(w, id), ToAct::Seat(0));
    fresh(w);
}

/// RED resigns out of turn; BLUE and GREEN play on, then agree a draw.
fn resign_then_agree_a_draw(w: &mut World, id: i64) {
    // RED resigns out of turn: it leaves the turn order, its dice stay.
    send(w, id, 1, "RESIGN", &[]);
    let mail = fresh(w);
    for to in [BLUE, GREEN] {
        has(
            &only_to(&mail, to).body,
            &[
                "RED resigns and leaves the game; BLUE, GREEN play on",
                "perfect 0 of 6   (left the game)",
            ],
        );
    }
    let g = w.load(id);
    assert_eq!(g.row.status, "active");
    assert!(
        g.game.position_tag().contains("RED:e5=4"),
        "{}",
        g.game.position_tag()
    );
    send(w, id, 0, "H g1", &[2]);
    assert_eq!(to_act(w, id), ToAct::Seat(2), "RED is skipped");
    fresh(w);
    send(w, id, 1, "H g4", &[]);
    has(
        &reply_to(w, RED),
        &["refused: H g4", "it is not your turn (GREEN to move)"],
    );

    // The two seats still playing agree a draw; the last mail reveals the seed.
    send(w, id, 2, "DRAW OFFER", &[]);
    assert_eq!(w.load(id).row.status, "active");
    fresh(w);
    send(w, id, 0, "DRAW ACCEPT", &[]);
    let g = w.load(id);
    assert_eq!(g.row.status, "finished");
    assert!(g.row.seed_revealed);
    let seed = g.row.seed.clone().unwrap();
    let over: Vec<OutboxRow> = fresh(w)
        .into_iter()
        .filter(|m| m.kind == "game_over")
        .collect();
    for to in ADDR {
        has(
            &only_to(&over, to).body,
            &[
                "is over: draw between BLUE, GREEN: agreed by all players",
                &format!("The dice seed is now revealed: {seed}"),
                "[Game \"siberian\"]",
            ],
        );
    }
    replays_to_the_same_end(w, id);
}

/// The game's record, as exported, replays to the same position and outcome.
fn replays_to_the_same_end(w: &mut World, id: i64) {
    let g = w.load(id);
    let export = pbem::gm::export(&g).unwrap();
    let again = pbem::records::Record::parse(&export)
        .unwrap()
        .replay()
        .unwrap_or_else(|e| panic!("{e}\n{export}"));
    assert_eq!(again.game.position_tag(), g.game.position_tag(), "{export}");
    assert_eq!(again.game.outcome_text(), g.game.outcome_text(), "{export}");
}

/// BLUE's 2 on c3 and RED's 4 on e2, GREEN's 3 on a1: BLUE to move.
const THREE_DICE: &str = "BLUE:c3=2 RED:e2=4 GREEN:a1=3 move=BLUE";

fn from_position(w: &mut World) -> i64 {
    let id = w.game(
        GameKind::Siberian,
        &[("BLUE", BLUE), ("RED", RED), ("GREEN", GREEN)],
        &[("players", "3"), ("salt_window", "0")],
        Some(THREE_DICE),
        None,
    );
    w.new_mail();
    id
}

#[test]
fn a_lift_in_one_mail_or_in_two_with_moves_between() {
    let mut w = World::new();
    // `c3 d4`: BLUE lifts its die from c3; the GM rolls it; it goes to d4.
    let id = from_position(&mut w);
    send(&mut w, id, 0, "c3 d4", &[5]);
    assert_eq!(plies(&mut w, id), ["c3", "roll 5", "d4"]);
    assert_eq!(to_act(&mut w, id), ToAct::Seat(1));
    has(
        &reply_to(&mut w, BLUE),
        &["BLUE placed a 5 on d4 (lifted from c3)."],
    );
    let tag = w.load(id).game.position_tag();
    assert!(tag.contains("BLUE:d4=5"), "{tag}");

    // The same move in two mails, with MOVES before the roll and after it.
    let id = from_position(&mut w);
    send(&mut w, id, 0, "MOVES", &[]);
    let body = reply_to(&mut w, BLUE);
    has(
        &body,
        &[
            "BLUE to move. Perfect dice now: BLUE 0, RED 0, GREEN 0 of 6.",
            "If the roll is 1:\n  H a2     BLUE 1 (+a2)  RED 0  GREEN 0\n",
            "If the roll is 2:\n  H b2     BLUE 1 (+b2)  RED 0  GREEN 0\n  \
             H d3     BLUE 1 (+d3)  RED 0  GREEN 0\n\n",
            "If the roll is 6:\n  none makes a die of BLUE's perfect or stops another's\n",
        ],
    );
    assert!(plies(&mut w, id).is_empty(), "MOVES plays nothing");
    send(&mut w, id, 0, "ROLL c3", &[1]);
    assert_eq!(plies(&mut w, id), ["c3", "roll 1"]);
    assert_eq!(to_act(&mut w, id), ToAct::Seat(0), "BLUE places");
    let mail = fresh(&mut w);
    has(
        &only_to(&mail, BLUE).body,
        &["The GM rolled 1 for BLUE's die lifted from c3. BLUE places it, a 1, on any vacant hex (or back on c3)."],
    );
    for to in [RED, GREEN] {
        has(&only_to(&mail, to).body, &["BLUE declared c3: place the 1"]);
    }
    send(&mut w, id, 0, "MOVES", &[]);
    let body = reply_to(&mut w, BLUE);
    has(
        &body,
        &["Placing the rolled die, a 1:\n  a2       BLUE 1 (+a2)"],
    );
    assert!(!body.contains("If the roll is"), "{body}");
    // Another seat may not place BLUE's die, nor ask for a new declaration meanwhile.
    send(&mut w, id, 1, "H f1", &[]);
    has(&reply_to(&mut w, RED), &["refused: H f1", "not your turn"]);
    send(&mut w, id, 0, "PLACE d4", &[]);
    assert_eq!(plies(&mut w, id), ["c3", "roll 1", "d4"]);
    assert_eq!(to_act(&mut w, id), ToAct::Seat(1));
    has(
        &reply_to(&mut w, BLUE),
        &["BLUE placed a 1 on d4 (lifted from c3)."],
    );
}

#[test]
fn when_two_of_three_resign_the_last_seat_wins() {
    let mut w = World::new();
    let id = from_position(&mut w);
    send(&mut w, id, 0, "H d4", &[2]);
    send(&mut w, id, 0, "RESIGN", &[]);
    let g = w.load(id);
    assert_eq!(g.row.status, "active");
    assert_eq!(g.game.to_act(), ToAct::Seat(1), "RED is to move");
    assert!(
        g.game.position_tag().contains("BLUE:c3=2,d4=2"),
        "{}",
        g.game.position_tag()
    );
    fresh(&mut w);
    // RED declares, then resigns with the roll made: its move is dropped, and GREEN wins.
    send(&mut w, id, 1, "ROLL e2", &[6]);
    send(&mut w, id, 1, "RESIGN", &[]);
    let g = w.load(id);
    assert_eq!(g.row.status, "finished");
    assert_eq!(
        g.game.outcome_text().unwrap(),
        "GREEN wins: every other player resigned"
    );
    assert!(
        g.game.position_tag().contains("RED:e2=4"),
        "{}",
        g.game.position_tag()
    );
    let over: Vec<OutboxRow> = fresh(&mut w)
        .into_iter()
        .filter(|m| m.kind == "game_over")
        .collect();
    let body = &only_to(&over, GREEN).body;
    has(
        body,
        &[
            "is over: GREEN wins: every other player resigned",
            &format!(
                "The dice seed is now revealed: {}",
                g.row.seed.clone().unwrap()
            ),
        ],
    );
    replays_to_the_same_end(&mut w, id);
}

#[test]
fn a_grossmeister_game_by_mail_waits_for_the_salts_then_places_the_head() {
    let mut w = World::new();
    w.ask_and_confirm(BLUE, "NEW siberian variant=grossmeister");
    w.ask_and_confirm(RED, "JOIN 1");
    let id = 1;
    let g = w.load(id);
    assert_eq!(g.row.status, "active");
    assert_eq!(
        g.game.to_act(),
        ToAct::Chance(vec![6; 26]),
        "13 dice for each seat"
    );
    assert!(g.moves.is_empty(), "nothing is rolled before the salts");
    let welcome: Vec<OutboxRow> = fresh(&mut w)
        .into_iter()
        .filter(|m| m.kind == "welcome")
        .collect();
    has(
        &only_to(&welcome, BLUE).body,
        &[
            "Siberian Dice, grossmeister (2 players)",
            "SALT",
            "START",
            "The GM rolls each seat's sequence first.",
            "the GM rolls 26d6 once the salts are fixed",
        ],
    );
    // A move before the opening roll is refused, saying why.
    send(&mut w, id, 0, "H d4", &[]);
    has(
        &reply_to(&mut w, BLUE),
        &[
            "refused: H d4",
            "not your turn (the GM rolls 26d6 once the salts are fixed",
        ],
    );
    send(&mut w, id, 0, "SALT blue pebble\nSTART", &[]);
    assert!(plies(&mut w, id).is_empty(), "RED is not ready yet");
    fresh(&mut w);
    // RED's START fixes the salts: the GM rolls both sequences, BLUE's first.
    let seqs: Vec<u32> = (0..26).map(|k| k % 6 + 1).collect();
    send(&mut w, id, 1, "START", &seqs);
    let texts = plies(&mut w, id);
    assert_eq!(texts.len(), 1);
    assert!(texts[0].starts_with("roll 1 2 3 4 5 6 1"), "{texts:?}");
    let mail = fresh(&mut w);
    has(
        &only_to(&mail, BLUE).body,
        &[
            "The sequences, head first: BLUE 1234561234561, RED 2345612345612.",
            "Dice salts (fixed): blue pebble",
            "It is your move",
        ],
    );
    // `H d4` in GROSSMEISTER: nothing is rolled, the head of BLUE's sequence (a 1) is placed.
    send(&mut w, id, 0, "H d4", &[]);
    assert_eq!(plies(&mut w, id)[1..], ["H", "d4"]);
    assert_eq!(to_act(&mut w, id), ToAct::Seat(1));
    has(
        &reply_to(&mut w, BLUE),
        &[
            "BLUE declared H and places the head of the sequence, a 1, on any vacant hex.",
            "BLUE placed a 1 on d4 (from the hand).",
            "sequence 234561234561",
        ],
    );
}

#[test]
fn a_purity_game_of_three_by_mail_rolls_its_sequence_after_the_salts() {
    let mut w = World::new();
    w.ask_and_confirm(BLUE, "NEW siberian variant=purity length=6 players=3");
    w.ask_and_confirm(RED, "JOIN 1");
    w.ask_and_confirm(GREEN, "JOIN 1");
    let id = 1;
    assert_eq!(to_act(&mut w, id), ToAct::Chance(vec![6; 6]));
    fresh(&mut w);
    send(&mut w, id, 0, "START", &[]);
    send(&mut w, id, 2, "START", &[]);
    assert!(plies(&mut w, id).is_empty(), "RED is not ready yet");
    send(&mut w, id, 1, "START", &[3, 1, 4, 1, 5, 2]);
    assert_eq!(plies(&mut w, id), ["roll 3 1 4 1 5 2"]);
    fresh(&mut w);
    // Nothing is rolled in PURITY: BLUE places the next published number, a 3.
    send(&mut w, id, 0, "H d4", &[]);
    assert_eq!(plies(&mut w, id)[1..], ["H", "d4"]);
    has(
        &reply_to(&mut w, BLUE),
        &["BLUE placed a 3 on d4 (from the hand)."],
    );
    // RED's plan, read when the value (a 1) is known: d4 is taken, so d5 is played.
    send(&mut w, id, 1, "H: 1>d4 1>d5 2>a1", &[]);
    assert_eq!(plies(&mut w, id)[3..], ["H", "d5"]);
    has(
        &reply_to(&mut w, RED),
        &["RED placed a 1 on d5 (from the hand)."],
    );
    assert_eq!(to_act(&mut w, id), ToAct::Seat(2), "GREEN moves third");
}

/// Issue 27, point 13: a move with a hex off the board or a die value out of 1 to 6 is
/// refused naming that word (the column's real length), not ignored as "not a declaration".
#[test]
fn a_bad_hex_or_roll_value_is_named_in_the_refusal() {
    let mut w = World::new();
    let id = from_position(&mut w);
    for (line, why) in [
        ("h d8", "d8: column d has 7 hexes, d1 to d7"),
        ("H: 1>a1 3-5>d4 7>e5", "7: a die shows 1 to 6"),
    ] {
        send(&mut w, id, 0, line, &[]);
        let body = reply_to(&mut w, BLUE);
        has(&body, &[&format!("refused: {line}\n    {why}\n")]);
        assert!(!body.contains("not a declaration"), "{body}");
        assert_eq!(
            plies(&mut w, id),
            Vec::<String>::new(),
            "{line}: nothing played"
        );
    }
}

/// Issue 27, point 13: a plan over several lines with a bad hex or roll value on a later line
/// is refused as a whole, naming the word: its first line is not played alone.
#[test]
fn a_plan_over_several_lines_with_a_bad_value_is_refused_as_a_whole() {
    let mut w = World::new();
    let id = from_position(&mut w);
    for (body, why) in [
        ("H: 1>a1\n3-5>d4 7>e5\nCheers", "7: a die shows 1 to 6"),
        ("H\n1: a1\n2-6 > d9", "d9: column d has 7 hexes, d1 to d7"),
    ] {
        send(&mut w, id, 0, body, &[]);
        let body_sent = body.lines().next().unwrap();
        let reply = reply_to(&mut w, BLUE);
        has(&reply, &[&format!("refused: {body_sent}\n    {why}\n")]);
        assert!(!reply.contains("placed a"), "{reply}");
        assert_eq!(
            plies(&mut w, id),
            Vec::<String>::new(),
            "{body}: nothing played"
        );
    }
}
