//! The postal group's records: `pbem stats` and `STATS` over played and imported games, the ratings, collections exported, replayed and verified, and a record brought in and continued by mail.

use std::path::{Path, PathBuf};

use crate::common::{pbem, says, World};
use pbem::games::GameKind;

const ANN: &str = "ann@example.org";
const BOB: &str = "bob@example.org";
const CARL: &str = "carl@example.org";

/// A seed record of Dice Rink kept with the tests.
fn seed_record(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("tests/data/dicerink/{name}.pgn"))
}

/// `pbem game new dicerink --from-record FILE` with ANN at A and BOB at B: its output and
/// exit code.
fn from_record(w: &World, file: &Path) -> (String, i32) {
    pbem(
        w,
        &[
            "game",
            "new",
            "dicerink",
            "--from-record",
            file.to_str().unwrap(),
            "--player",
            &format!("A={ANN}"),
            "--player",
            &format!("B={BOB}"),
        ],
    )
}

/// A record file brought in as a game (as `from_record`); the new game's id.
fn brought_in(w: &World, file: &Path) -> i64 {
    let (out, code) = from_record(w, file);
    assert_eq!(code, 0, "{out}");
    out.lines().next().unwrap().trim().parse().unwrap()
}

/// Brings a seed record in as a game between ANN (A) and BOB (B); its id.
fn bring_in(w: &World, name: &str) -> i64 {
    brought_in(w, &seed_record(name))
}

/// The seed's four recorded Dice Rink games (3 won by A, 1 by B) brought in, and two played
/// by mail: one B resigns (A wins), one agreed drawn.
fn postal_group() -> World {
    let mut w = World::new();
    for name in ["game1", "game2", "endgame", "figure4"] {
        bring_in(&w, name);
    }
    // The games by mail are played after the records were brought in (by the CLI, on the
    // wall clock), as in life: the ratings are moved on in the order games end.
    w.now = pbem::edge::now() + chrono::Duration::days(1);
    let resigned = dicerink(&mut w, ANN, CARL);
    assert_eq!(
        w.send_to_seat(CARL, resigned, 1, "RESIGN").unwrap().status,
        "done"
    );
    let drawn = dicerink(&mut w, CARL, BOB);
    w.send_to_seat(CARL, drawn, 0, "DRAW OFFER").unwrap();
    w.send_to_seat(BOB, drawn, 1, "DRAW ACCEPT").unwrap();
    dicerink(&mut w, ANN, BOB);
    w
}

/// A Dice Rink game by mail between `a` (A) and `b` (B); its id.
fn dicerink(w: &mut World, a: &str, b: &str) -> i64 {
    w.game(GameKind::DiceRink, &[("A", a), ("B", b)], &[], None, None)
}

/// A stranger's mail to pbem with `body`: how it was handled and the body of the one reply.
fn stranger_asks(w: &mut World, subject: &str, body: &str) -> (pbem::store::MessageStatus, String) {
    const STRANGER: &str = "stranger@example.net";
    w.new_mail();
    let raw = w.mail(STRANGER, "gm@pbem.example", subject, body);
    let status = w.deliver(&raw).unwrap().status;
    let mail = w.new_mail();
    (status, crate::common::only_to(&mail, STRANGER).body.clone())
}

#[test]
fn stats_read_like_the_seeds_sentence() {
    let w = postal_group();
    let (out, code) = pbem(&w, &["stats", "dicerink"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        says(
            &out,
            "Dice Rink: 7 games on record: 5 won, 1 drawn, 0 cancelled, 1 in play."
        ),
        "{out}"
    );
    assert!(
        says(
            &out,
            "Of the 6 finished games 4 have been wins for the first player (A), 1 draw \
             (1 by agreement) and 1 is a win by the second player (B)."
        ),
        "{out}"
    );
    assert!(
        says(
            &out,
            "How they ended: 3 by the win condition, 2 by resignation, 1 by agreement."
        ),
        "{out}"
    );
    let (other, code) = pbem(&w, &["stats", "d4d6"]);
    assert_eq!(
        (other.trim(), code),
        ("No d4 d6 chess game is on record yet.", 0)
    );
    let (unknown, code) = pbem(&w, &["stats", "chess"]);
    assert_eq!(code, 1, "{unknown}");
}

#[test]
fn stats_and_ratings_by_mail() {
    let mut w = postal_group();
    let (status, reply) = stranger_asks(&mut w, "records", "STATS dicerink\nRATINGS dicerink");
    assert_eq!(status, "done");
    assert!(
        says(&reply, "4 have been wins for the first player (A)"),
        "{reply}"
    );
    assert!(says(&reply, "Dice Rink ratings (Glicko-2"), "{reply}");
    let (_, reply) = stranger_asks(&mut w, "r", "RATINGS chess");
    // A stranger's refused line is quoted in no words of theirs (the mailroom's rule).
    assert!(says(&reply, "refused"), "{reply}");
    assert!(!reply.contains("Glicko-2"), "{reply}");
}

/// A player's rating in `pbem ratings` output.
fn rating_of(out: &str, name: &str) -> f64 {
    let line = out
        .lines()
        .find(|l| l.split_whitespace().nth(1) == Some(name))
        .unwrap_or_else(|| panic!("{name} not rated: {out}"));
    line.split_whitespace().nth(2).unwrap().parse().unwrap()
}

#[test]
fn a_seed_record_keeps_its_comments_when_brought_in_and_exported() {
    let w = World::new();
    let id = bring_in(&w, "game1");
    let (record, code) = pbem(&w, &["export", &id.to_string()]);
    assert_eq!(code, 0, "{record}");
    for words in [
        "1E3 {mistake, better would have been 1N5 keeping b4 on the back rank} 3N6",
        "{4S5 would have been better}",
        "{the seed prints 6W5, a misprint: the die stands on a1; better would have been 6N3}",
    ] {
        assert!(says(&record, words), "{words}: {record}");
    }
    // Exported, the record brings in again with the same comments, none twice.
    let file = w.dir.path().join("again.pgn");
    std::fs::write(&file, &record).unwrap();
    let again = brought_in(&w, &file);
    let (second, _) = pbem(&w, &["export", &again.to_string()]);
    let moves = |r: &str| r.split("\n\n").nth(1).unwrap_or_default().to_string();
    assert_eq!(moves(&second), moves(&record));
}

#[test]
fn a_winners_rating_rises() {
    let w = postal_group();
    let (out, code) = pbem(&w, &["ratings", "dicerink"]);
    assert_eq!(code, 0, "{out}");
    // ANN won 4 of her 5 games, CARL resigned one and drew one.
    assert!(rating_of(&out, "ann") > 1500.0, "{out}");
    assert!(rating_of(&out, "carl") < 1500.0, "{out}");
    assert!(
        out.lines().nth(1).unwrap().contains("ann"),
        "best first: {out}"
    );
    assert!(!out.contains('@'), "no address in the ratings: {out}");
}

#[test]
fn a_robot_at_a_level_is_rated_as_one_player() {
    let mut w = World::new();
    for _ in 0..2 {
        let id = dicerink(&mut w, ANN, "robot:easy");
        assert_eq!(w.send_to_seat(ANN, id, 0, "RESIGN").unwrap().status, "done");
    }
    let (out, code) = pbem(&w, &["ratings", "dicerink"]);
    assert_eq!(code, 0, "{out}");
    assert!(says(&out, "from 2 finished games"), "{out}");
    let robot = out.lines().find(|l| l.contains("robot (easy)")).unwrap();
    assert!(robot.ends_with("2 games"), "{out}");
    assert!(rating_of(&out, "ann") < 1500.0, "{out}");
}

#[test]
fn a_collection_is_exported_replayed_and_verified() {
    let w = postal_group();
    let (all, code) = pbem(&w, &["export", "--all"]);
    assert_eq!(code, 0, "{all}");
    let file = w.dir.path().join("all.pgn");
    std::fs::write(&file, &all).unwrap();
    let (out, code) = pbem(&w, &["replay", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(says(&out, "7 games: 7 replay, 0 do not"), "{out}");
    let (out, code) = pbem(&w, &["verify", file.to_str().unwrap()]);
    assert_eq!(code, 0, "{out}");
    assert!(
        says(
            &out,
            "7 games: 0 with every roll checked, 7 without dice to check, 0 failed"
        ),
        "{out}"
    );
    let (finished, _) = pbem(&w, &["export", "--all", "--finished", "--game", "dicerink"]);
    std::fs::write(&file, &finished).unwrap();
    let (out, _) = pbem(&w, &["replay", file.to_str().unwrap()]);
    assert!(says(&out, "6 games: 6 replay, 0 do not"), "{out}");
    // One record of the collection that does not replay: said by name, exit 1.
    let misprint = std::fs::read_to_string(seed_record("game1-misprint")).unwrap();
    std::fs::write(&file, format!("{finished}\n{misprint}")).unwrap();
    let (out, code) = pbem(&w, &["replay", file.to_str().unwrap()]);
    assert_eq!(code, 1, "{out}");
    assert!(says(&out, "game 7 (dicerink, "), "{out}");
    assert!(says(&out, "ply 27 (6W5)"), "{out}");
    assert!(says(&out, "7 games: 6 replay, 1 do not"), "{out}");
}

#[test]
fn a_record_brought_in_is_continued_by_mail() {
    let mut w = World::new();
    // Illustrative game 1 up to move 5, still in play on paper.
    let record = "[Game \"dicerink\"]\n[Event \"postal game in progress\"]\n[Result \"*\"]\n\n\
                  b1 5/4 b4 2/4 d1 3/6 d4 6/4\n1. 5W6 6S3 2. 3W2 2E1 3. 2N1 {B traps c4} 1W2 \
                  4. 1E3 3N6 5. 6E5 2S3\n";
    let file = w.dir.path().join("paper.pgn");
    std::fs::write(&file, record).unwrap();
    let id = brought_in(&w, &file);
    let g = w.load(id);
    assert_eq!(
        g.moves.len(),
        14,
        "the record's plies are the game's move log"
    );
    assert_eq!(g.row.event.as_deref(), Some("postal game in progress"));
    // The annotator's comment stays with its ply, in the move log and the record.
    assert_eq!(g.moves[8].text, "2N1");
    assert_eq!(g.moves[8].comment.as_deref(), Some("B traps c4"));
    let (record, _) = pbem(&w, &["export", &id.to_string()]);
    assert!(says(&record, "2N1 {B traps c4} 1W2"), "{record}");
    w.new_mail();
    assert_eq!(w.send_to_seat(ANN, id, 0, "3W1").unwrap().status, "done");
    let g = w.load(id);
    assert_eq!(g.moves.len(), 15);
    assert_eq!(g.moves.last().unwrap().text, "3W1");
    // A record that does not replay is refused with its own error, and no game is made.
    let (out, code) = from_record(&w, &seed_record("game1-misprint"));
    assert_eq!(code, 1, "{out}");
    assert!(
        says(&out, "ply 27 (6W5): 6W5: the die on a1 cannot roll west"),
        "{out}"
    );
    let (list, _) = pbem(&w, &["game", "list"]);
    assert_eq!(
        list.lines().filter(|l| l.contains("dicerink")).count(),
        1,
        "{list}"
    );
}

#[test]
fn a_rolls_dice_comment_is_not_kept_as_an_annotators_when_brought_in_again() {
    let w = World::new();
    // Dicess's opening roll of 32 dice is written `{32 d6}`, as pbem writes it.
    let bring = |file: &Path| {
        let (out, code) = pbem(
            &w,
            &[
                "game",
                "new",
                "dicess",
                "--from-record",
                file.to_str().unwrap(),
                "--player",
                &format!("LIGHT={ANN}"),
                "--player",
                &format!("DARK={BOB}"),
            ],
        );
        assert_eq!(code, 0, "{out}");
        out.lines().next().unwrap().trim().to_string()
    };
    let seed = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dicess/games/impasse.pgn");
    let (record, _) = pbem(&w, &["export", &bring(&seed)]);
    assert!(says(&record, "{32 d6}"), "{record}");
    let file = w.dir.path().join("again.pgn");
    std::fs::write(&file, &record).unwrap();
    let (second, _) = pbem(&w, &["export", &bring(&file)]);
    let moves = |r: &str| r.split("\n\n").nth(1).unwrap_or_default().to_string();
    assert_eq!(moves(&second), moves(&record));
}

/// The postal group with one more game, cancelled.
fn with_a_cancelled_game() -> World {
    let mut w = postal_group();
    let cancelled = dicerink(&mut w, BOB, CARL).to_string();
    let (out, code) = pbem(&w, &["game", "cancel", &cancelled, "--reason", "abandoned"]);
    assert_eq!(code, 0, "{out}");
    w
}

/// `pbem stats` and `pbem ratings dicerink`.
fn stats_and_ratings(w: &World) -> (String, String) {
    let (stats, code) = pbem(w, &["stats"]);
    assert_eq!(code, 0, "{stats}");
    let (ratings, code) = pbem(w, &["ratings", "dicerink"]);
    assert_eq!(code, 0, "{ratings}");
    (stats, ratings)
}

/// Runs SQL on the World's database behind pbem's back.
fn sql(w: &World, batch: &str) {
    let db = rusqlite::Connection::open(w.dir.path().join("pbem.sqlite")).unwrap();
    db.execute_batch(batch).unwrap();
}

/// A finished game is counted from the facts kept at its end: `pbem stats`, `pbem ratings`
/// and STATS/RATINGS by mail read the same with every finished game's record made
/// unreadable (a replay of one would fail), and the same as a replay of every game reads.
#[test]
fn finished_games_are_counted_from_their_kept_facts_without_replaying() {
    let mut w = with_a_cancelled_game();
    let (stats, ratings) = stats_and_ratings(&w);
    assert!(says(&stats, "1 cancelled, 1 in play"), "{stats}");
    assert!(says(&ratings, "from 6 finished games"), "{ratings}");
    // No finished game is replayed (the ratings' memo gone, they are rebuilt from the facts).
    sql(
        &w,
        "UPDATE moves SET text = 'no such move'
           WHERE game_id IN (SELECT id FROM games WHERE status = 'finished');
         DELETE FROM rating_memo;",
    );
    assert_eq!(stats_and_ratings(&w), (stats.clone(), ratings.clone()));
    let (status, reply) = stranger_asks(&mut w, "records", "STATS\nRATINGS dicerink");
    assert_eq!(status, "done", "{reply}");
    // The mail's lines are wrapped: its words are the same.
    let words = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        words(&reply).contains(&words(&stats)),
        "{reply}\n---\n{stats}"
    );
    assert!(
        words(&reply).contains(&words(&ratings)),
        "{reply}\n---\n{ratings}"
    );
    // Without the facts (a game finished before they were kept), each game is replayed and
    // reads as its facts did.
    let replayed = with_a_cancelled_game();
    sql(
        &replayed,
        "UPDATE games SET facts = NULL; DELETE FROM rating_memo;",
    );
    assert_eq!(stats_and_ratings(&replayed), (stats, ratings));
}

/// The ratings kept as games end and the ratings rebuilt from the games read the same: Ann's
/// game with Bob begins first and is resigned last, after her game with Carl, begun and lost
/// later; both are rated in the order they ended, whether moved on one game at a time or
/// rebuilt (the memo gone, then the kept facts too).
#[test]
fn ratings_rebuilt_follow_the_order_games_ended_not_their_last_ply() {
    let mut w = World::new();
    let resigned_last = dicerink(&mut w, ANN, BOB);
    w.now += chrono::Duration::days(1);
    let lost = dicerink(&mut w, ANN, CARL);
    w.send_to_seat(ANN, lost, 0, "RESIGN").unwrap();
    w.now += chrono::Duration::days(1);
    w.send_to_seat(BOB, resigned_last, 1, "RESIGN").unwrap();
    let (_, kept) = stats_and_ratings(&w);
    assert!(says(&kept, "from 2 finished games"), "{kept}");
    sql(&w, "DELETE FROM rating_memo;");
    assert_eq!(stats_and_ratings(&w).1, kept);
    sql(
        &w,
        "UPDATE games SET facts = NULL; DELETE FROM rating_memo;",
    );
    assert_eq!(stats_and_ratings(&w).1, kept);
}
