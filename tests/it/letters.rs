//! Letters a careful GM would write (issue 27): prose is never "refused", all-void orders are
//! warned of in the first line, a plan followed by a sign-off is still a plan.

use crate::common::{only_to, World};
use pbem::games::GameKind;

const A: &str = "ann@example.org";
const B: &str = "bob@example.org";

/// Prose is not a move, whoever's turn it is: it is ignored, and only a line that reads as a
/// move is refused for not being the sender's turn.
#[test]
fn prose_is_ignored_and_only_a_move_is_refused_out_of_turn() {
    let mut w = World::new();
    let id = w.game(GameKind::DiceRink, &[("A", A), ("B", B)], &[], None, None);
    w.new_mail();
    // A is to place a die first; B writes.
    w.send_to_seat(B, id, 1, "Good luck!\nBack in 2 hours\nb4\nBob")
        .unwrap();
    let mail = w.new_mail();
    let reply = &only_to(&mail, B).body;
    assert!(reply.contains("ignored: Good luck!"), "{reply}");
    assert!(reply.contains("ignored: Bob"), "{reply}");
    assert!(
        reply.contains("ignored: Back in 2 hours"),
        "a sentence with a digit: {reply}"
    );
    assert!(reply.contains("refused: b4"), "{reply}");
    assert!(!reply.contains("refused: Good luck!"), "{reply}");
}

/// Orders that are all void leave the units holding: the reply's first line says so, not
/// "your orders are in".
#[test]
fn orders_that_are_all_void_are_warned_of_first() {
    let players = [
        ("BLUE", "blue@example.org"),
        ("RED", "red@example.org"),
        ("GREEN", "green@example.org"),
        ("YELLOW", "yellow@example.org"),
    ];
    let mut w = World::new();
    let id = w.game(GameKind::DipTacToe, &players, &[], None, Some(2 * 86400));
    w.new_mail();
    // A move from a space BLUE holds nothing on: void.
    w.send_to_seat(players[0].1, id, 0, "II.F.2 - II.F.3")
        .unwrap();
    let mail = w.new_mail();
    let reply = &only_to(&mail, players[0].1).body;
    assert!(
        reply.starts_with("Your orders are all void: your units hold"),
        "{reply}"
    );
    // A valid order: the first line is the usual one.
    w.send_to_seat(players[0].1, id, 0, "Reserve - I.A.2")
        .unwrap();
    let mail = w.new_mail();
    let reply = &only_to(&mail, players[0].1).body;
    assert!(
        reply.starts_with("Nothing to do: your orders are in"),
        "{reply}"
    );
}

/// A player the GM takes out of the game is told so in the first line, whatever the game was
/// waiting for (never "Send START" or "Your move").
#[test]
fn a_player_taken_out_reads_so_first() {
    let mut w = World::new();
    let id = w.game(GameKind::DiceRink, &[("A", A), ("B", B)], &[], None, None);
    w.new_mail();
    let mut g = w.load(id);
    let ctx = pbem::compose::Ctx::new(&w.cfg, &w.templates, w.now);
    w.store
        .tx(|tx| pbem::gm::life::eject(&ctx.gm(tx), &mut g, 0, None))
        .unwrap()
        .unwrap();
    let mail = w.new_mail();
    let notice = &only_to(&mail, A).body;
    assert!(
        notice.starts_with("Nothing to do: you no longer play in this game."),
        "{notice}"
    );
    assert!(notice.contains("The GM has taken you out of A"), "{notice}");
}

/// A sentence with a digit in it is prose, ignored without the notation reader's puzzling
/// reason; a mistyped move keeps the reason that helps its writer.
#[test]
fn a_sentence_is_ignored_in_plain_words_and_a_typo_gets_its_reason() {
    let mut w = World::new();
    let id = w.game(GameKind::DiceRink, &[("A", A), ("B", B)], &[], None, None);
    w.new_mail();
    w.send_to_seat(A, id, 0, "Going out tonight, back in 2 hours\n5X6")
        .unwrap();
    let mail = w.new_mail();
    let reply = &only_to(&mail, A).body;
    assert!(
        reply.contains("ignored: Going out tonight, back in 2 hours"),
        "{reply}"
    );
    assert!(!reply.contains("cannot read it: 'Going out"), "{reply}");
    assert!(
        reply.contains("cannot read it: '5X6'"),
        "the typo's reason: {reply}"
    );
}

/// A legal move for the seat to move (the first the game lists).
fn a_move(w: &mut World, game: i64) -> String {
    w.load(game).game.legal_plies().into_iter().next().unwrap()
}

/// A Dice Rink game past its set-up, its mails read: A is to move.
fn rink_in_play(w: &mut World, move_secs: Option<i64>) -> i64 {
    let id = w.game(
        GameKind::DiceRink,
        &[("A", A), ("B", B)],
        &[("setup", "fixed")],
        None,
        move_secs,
    );
    w.new_mail();
    id
}

/// One mail per action: a draw offer or decline written with a move reaches the other player
/// inside the turn report of that move, not as a second mail on its heels.
#[test]
fn a_draw_offer_or_decline_with_a_move_is_one_mail() {
    let mut w = World::new();
    let id = rink_in_play(&mut w, None);
    let m = a_move(&mut w, id);
    w.send_to_seat(A, id, 0, &format!("{m}\nDRAW")).unwrap();
    let mail = w.new_mail();
    let to_b: Vec<_> = mail.iter().filter(|x| x.to_addr == B).collect();
    assert_eq!(to_b.len(), 1, "one mail to B: {mail:#?}");
    let report = &to_b[0].body;
    assert!(report.contains(&format!("A played {m}")), "{report}");
    assert!(report.contains("A offers a draw"), "{report}");
    assert!(report.contains("It is your move"), "{report}");
    // B declines and moves in one mail: A reads both in one turn report.
    let m = a_move(&mut w, id);
    w.send_to_seat(B, id, 1, &format!("DRAW DECLINE\n{m}"))
        .unwrap();
    let mail = w.new_mail();
    let to_a: Vec<_> = mail.iter().filter(|x| x.to_addr == A).collect();
    assert_eq!(to_a.len(), 1, "one mail to A: {mail:#?}");
    let report = &to_a[0].body;
    assert!(report.contains("B declines the draw."), "{report}");
    assert!(report.contains(&format!("B played {m}")), "{report}");
    // A decline alone is still told, in a mail of its own.
    w.send_to_seat(A, id, 0, "DRAW").unwrap();
    w.new_mail();
    w.send_to_seat(B, id, 1, "DRAW DECLINE").unwrap();
    let mail = w.new_mail();
    assert!(only_to(&mail, A).body.contains("B declines the draw."));
}

/// A digest player gets a draw offer at once, and the mail that brings it is the whole turn
/// report: the move that came with it and the `#N` guard line.
#[test]
fn a_digest_players_immediate_mail_carries_the_move_and_the_guard_line() {
    let mut w = World::new();
    let id = rink_in_play(&mut w, Some(7 * 86_400));
    w.send_to_seat(B, id, 1, "DIGEST ON").unwrap();
    w.new_mail();
    // A plain move waits for B's digest.
    let m = a_move(&mut w, id);
    w.send_to_seat(A, id, 0, &m).unwrap();
    assert!(w.new_mail().iter().all(|x| x.to_addr != B));
    let m = a_move(&mut w, id);
    w.send_to_seat(B, id, 1, &m).unwrap();
    w.new_mail();
    // A move with a draw offer goes at once, and tells the move and the guard.
    let m = a_move(&mut w, id);
    w.send_to_seat(A, id, 0, &format!("{m}\nDRAW")).unwrap();
    let mail = w.new_mail();
    let report = &only_to(&mail, B).body;
    assert!(report.contains("A offers a draw"), "{report}");
    assert!(report.contains(&format!("A played {m}")), "{report}");
    let ply = w.load(id).moves.len() + 1;
    assert!(report.contains(&format!("#{ply}")), "{report}");
}

/// The welcome lists this game's settings in plain words: the values, not what each option
/// could be; an option that does not apply to the game (purity's length in a basic game, the
/// clock's options in a game without a clock) is not listed.
#[test]
fn the_welcome_lists_this_games_settings_in_plain_words() {
    let players = [("BLUE", A), ("RED", B)];
    let mut w = World::new();
    w.game(GameKind::Siberian, &players, &[], None, Some(3 * 86400));
    let mail = w.new_mail();
    let welcome = &only_to(&mail, A).body;
    assert!(
        welcome.contains("Move time: 3 days; a reminder 24 hours before the deadline"),
        "{welcome}"
    );
    assert!(welcome.contains("Variant: basic\n"), "{welcome}");
    for word in [
        "purity",
        "the seed's variants",
        "rulings",
        "grace",
        "timeout",
        " = ",
    ] {
        assert!(!welcome.contains(word), "{word:?} in {welcome}");
    }

    let purity = [
        ("variant", "purity"),
        ("length", "40"),
        ("timeout", "forfeit"),
    ];
    w.game(GameKind::Siberian, &players, &purity, None, Some(86400));
    let mail = w.new_mail();
    let welcome = &only_to(&mail, A).body;
    assert!(
        welcome.contains("Variant: purity: a list of 40 numbers"),
        "{welcome}"
    );
    assert!(
        welcome.contains("reminder 12 hours before"),
        "half the move time: {welcome}"
    );
    assert!(
        welcome.contains("A missed deadline: the late player forfeits"),
        "{welcome}"
    );

    w.game(
        GameKind::DiceRink,
        &[("A", A), ("B", B)],
        &[("setup", "fixed")],
        None,
        None,
    );
    let mail = w.new_mail();
    let welcome = &only_to(&mail, A).body;
    assert!(welcome.contains("Move time: no limit"), "{welcome}");
    assert!(!welcome.contains("missed deadline"), "no clock: {welcome}");
    assert!(
        welcome.contains("Set-up: fixed: A on b1 and c1"),
        "{welcome}"
    );
}

/// Issue 27, point 20: a command's answer is said below the line, not as what the line was
/// "read as" (`ok: DRAW  (read as draw offered; ...)`).
#[test]
fn a_commands_answer_is_not_what_the_line_was_read_as() {
    let mut w = World::new();
    let id = w.game(GameKind::DiceRink, &[("A", A), ("B", B)], &[], None, None);
    w.new_mail();
    w.send_to_seat(A, id, 0, "DRAW").unwrap();
    let mail = w.new_mail();
    let reply = &only_to(&mail, A).body;
    assert!(!reply.contains("read as"), "{reply}");
    assert!(
        reply.contains("ok: DRAW OFFER\n    draw offered;"),
        "{reply}"
    );
}

/// Issue 27, point 20: a game named without a title is "game #1", never "game #1 ()" (the
/// confirmation a JOIN asks for).
#[test]
fn a_join_confirmation_names_the_game_without_empty_parentheses() {
    let mut w = World::new();
    w.ask_and_confirm(A, "NEW dicerink");
    w.new_mail();
    let raw = w.mail(B, "gm@pbem.example", "join", "JOIN 1");
    w.deliver(&raw).unwrap();
    let mail = w.new_mail();
    let ask = &only_to(&mail, B).body;
    assert!(ask.contains("game #1"), "{ask}");
    assert!(!ask.contains("()"), "{ask}");
}

/// Each fact once per mail: Dice Rink's report says which die must move; the board beside it
/// marks the die with its `!` and does not say it again.
#[test]
fn dice_rink_says_the_die_that_must_move_once() {
    let mut w = World::new();
    let id = w.game(GameKind::DiceRink, &[("A", A), ("B", B)], &[], None, None);
    w.new_mail();
    for (seat, from, line) in [
        (0, A, "b1 5/4"),
        (1, B, "c4 2/4"),
        (0, A, "c1 3/2"),
        (1, B, "b4 6/4"),
        // A's die rolls to a1 and shows 6: B's 6 on b4 must move.
        (0, A, "5W6"),
    ] {
        w.new_mail();
        w.send_to_seat(from, id, seat, line).unwrap();
    }
    let mail = w.new_mail();
    let report = &only_to(&mail, B).body;
    let told = report.matches("must move the die on b4").count();
    assert_eq!(told, 1, "{report}");
    assert!(
        report.contains("B 6!"),
        "the board still marks it: {report}"
    );
    // The board shown alone keeps the line.
    let board = w.load(id).game.board();
    assert!(board.contains("B must move the die on b4"), "{board}");
}

/// Each fact once per mail: a Siberian move (declaration, the GM's roll, the placement) is told
/// by its reports alone, each once, not again as "BLUE played d4" or "the move planned for it".
#[test]
fn a_siberian_move_is_told_once() {
    let mut w = World::new();
    let id = w.game(
        GameKind::Siberian,
        &[("BLUE", A), ("RED", B)],
        &[("salt_window", "0")],
        None,
        None,
    );
    w.new_mail();
    w.send_scripted(A, id, 0, "H d4", &[1]);
    let mail = w.new_mail();
    let report = &only_to(&mail, B).body;
    assert_eq!(report.matches("placed a 1 on d4").count(), 1, "{report}");
    assert_eq!(report.matches("rolled 1").count(), 1, "{report}");
    assert!(report.contains("BLUE declared H"), "{report}");
    assert!(!report.contains("played d4"), "{report}");
    assert!(!report.contains("The move planned for it"), "{report}");
}
