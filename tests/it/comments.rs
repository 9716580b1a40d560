//! Issue 29: a player's comment on their move by mail (`COMMENT ...`, or a parenthesis after the move) is kept as that ply's comment in the record, never read as a move; notation with parentheses in it still plays whole.

use pbem::games::GameKind;
use pbem::records::Record;

use crate::common::{only_to, says, World};

const ANN: &str = "ann@example.org";
const BOB: &str = "bob@example.org";

/// A Dice Rink game by mail between ANN (A) and BOB (B); its id.
fn rink(w: &mut World) -> i64 {
    w.game(
        GameKind::DiceRink,
        &[("A", ANN), ("B", BOB)],
        &[],
        None,
        None,
    )
}

#[test]
fn a_comment_line_and_a_parenthesis_reach_the_record_and_the_moves_are_played() {
    let mut w = World::new();
    let id = rink(&mut w);
    w.new_mail();
    w.send_to_seat(ANN, id, 0, "b1 5/4 (a solid start)")
        .unwrap();
    let mail = w.new_mail();
    let reply = &only_to(&mail, ANN).body;
    assert!(!reply.contains("not a move"), "{reply}");
    // A comment before the move it goes with, and one more in parentheses.
    w.send_to_seat(
        BOB,
        id,
        1,
        "COMMENT keeps the 4 in front\nb4 2/4 (mirroring her)",
    )
    .unwrap();
    let mail = w.new_mail();
    let reply = &only_to(&mail, BOB).body;
    assert!(says(reply, "COMMENT keeps the 4 in front"), "{reply}");
    let g = w.load(id);
    let plies: Vec<&str> = g.moves.iter().map(|m| m.text.as_str()).collect();
    assert_eq!(plies, ["b1 5/4", "b4 2/4"]);
    assert_eq!(g.moves[0].comment.as_deref(), Some("a solid start"));
    assert_eq!(
        g.moves[1].comment.as_deref(),
        Some("mirroring her; keeps the 4 in front")
    );
    let record = pbem::gm::export(&g).unwrap();
    assert!(record.contains("b1 5/4 {a solid start}"), "{record}");
    assert!(
        record.contains("b4 2/4 {mirroring her; keeps the 4 in front}"),
        "{record}"
    );
    // The record replays: the comments are comments, not moves.
    let done = Record::parse(&record).unwrap().replay().unwrap();
    assert_eq!(done.game.to_act(), g.game.to_act());
    // The other player sees the comment in the record of the game's end, not as a move.
    assert!(
        !mail
            .iter()
            .any(|m| m.to_addr == ANN && m.body.contains("mirroring")),
        "a comment is the record's, not news"
    );
}

#[test]
fn a_comment_without_a_move_is_not_kept_and_says_why() {
    let mut w = World::new();
    let id = rink(&mut w);
    w.new_mail();
    w.send_to_seat(ANN, id, 0, "COMMENT thinking it over")
        .unwrap();
    let mail = w.new_mail();
    let reply = &only_to(&mail, ANN).body;
    assert!(
        says(
            reply,
            "not kept: a comment goes into the record with your move"
        ),
        "{reply}"
    );
    assert!(w.load(id).moves.is_empty());
}

/// Dice Rink's rotation is written with parentheses (`rotate 6 (2N)`): read whole, as before.
#[test]
fn notation_with_parentheses_is_still_one_move() {
    let mut w = World::new();
    let id = w.game(
        GameKind::DiceRink,
        &[("A", ANN), ("B", BOB)],
        &[],
        Some("A:d3=2/3,d4=4/5 B:a3=5/1,c4=6/4 move=A forced=d4"),
        None,
    );
    w.new_mail();
    w.send_to_seat(ANN, id, 0, "Rotate 6 (2N)").unwrap();
    let g = w.load(id);
    assert_eq!(g.moves.len(), 1);
    assert_eq!(g.moves[0].text, "R6(2N)");
    assert_eq!(g.moves[0].comment, None);
    // And with a comment after it, the rotation is played and the words kept.
    w.send_to_seat(BOB, id, 1, "6S3 (what else)").unwrap();
    let g = w.load(id);
    assert_eq!(g.moves.len(), 2, "{:?}", g.moves);
    assert_eq!(g.moves[1].comment.as_deref(), Some("what else"));
}

/// A mail of many long COMMENT lines keeps the start of them: a ply's comments together
/// hold at most `MAX_PLY_CHARS` characters.
#[test]
fn many_long_comments_on_one_ply_keep_their_start() {
    let mut w = World::new();
    let id = rink(&mut w);
    w.new_mail();
    let mut body = String::from("b1 5/4 (first words)\n");
    for i in 0..30 {
        body.push_str(&format!("COMMENT {i} {}\n", "x".repeat(2_000)));
    }
    assert_eq!(w.send_to_seat(ANN, id, 0, &body).unwrap().status, "done");
    let g = w.load(id);
    assert_eq!(g.moves.len(), 1);
    let kept = g.moves[0].comment.clone().unwrap_or_default();
    assert_eq!(
        kept.chars().count(),
        pbem::gm::comments::MAX_PLY_CHARS,
        "{kept}"
    );
    assert!(kept.starts_with("first words; 0 xxx"), "{kept}");
}
