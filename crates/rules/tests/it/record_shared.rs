//! The plies every game shares as a record writes and reads them: a forfeit on time (`SEAT:timeout`), a resignation (old records' too), the GM's `draw`; and records whose move text stays within 78 columns, salts as plain tags.

use pbem_rules::games::{Actor, AnyGame, GameKind, Options, Outcome, ToAct};
use pbem_rules::records::{self, Record};

/// The tags of a record of `game`.
fn tags(game: &AnyGame) -> Vec<(String, String)> {
    vec![
        ("Game".to_string(), game.kind().name().to_string()),
        ("Result".to_string(), records::result_tag(game)),
    ]
}

/// The seat a forfeit is ruled against: the seat to move, else the second seat.
fn late_seat(game: &AnyGame) -> usize {
    match game.to_act() {
        ToAct::Seat(s) => s,
        _ => 1,
    }
}

#[test]
fn a_forfeit_on_time_is_written_read_and_replayed_in_every_game() {
    for &kind in GameKind::ALL {
        let start = AnyGame::new(kind, &Options::new()).unwrap();
        let mut game = start.clone();
        let seat = late_seat(&game);
        let name = game.seat_name(seat);
        let ply = game.time_out(seat).unwrap();
        assert_eq!(ply, format!("{name}:timeout"), "{kind:?}");
        let report = game.last_report().unwrap();
        assert!(
            report.starts_with(&format!("{name} ran out of time")),
            "{kind:?}: {report}"
        );
        assert!(!report.contains("resign"), "{kind:?}: {report}");
        let log = vec![(Actor::Gm, ply.clone())];
        let text = records::write_with_dice(&tags(&game), &start, &log).unwrap();
        // The GM's ply is written with its actor unless the position implies the GM.
        let written = match records::implied_actor(&start) {
            Some(Actor::Gm) => ply.clone(),
            _ => format!("GM>{ply}"),
        };
        let last = text.lines().last().unwrap_or("");
        assert!(
            last == written || last == format!("1. {written}"),
            "{kind:?}:\n{text}"
        );
        let again = Record::parse(&text).unwrap().replay().unwrap();
        assert_eq!(again.log, log, "{kind:?}");
        assert_eq!(again.game.outcome(), game.outcome(), "{kind:?}");
        assert_eq!(again.game.playing(), game.playing(), "{kind:?}");
        if let Some(Outcome::Win { reason, .. }) = game.outcome() {
            assert_eq!(reason, format!("{name} ran out of time"), "{kind:?}");
        }
    }
}

#[test]
fn a_player_cannot_write_that_they_ran_out_of_time() {
    for &kind in GameKind::ALL {
        let mut game = AnyGame::new(kind, &Options::new()).unwrap();
        let name = game.seat_name(0);
        assert!(
            game.play(Actor::Seat(0), &format!("{name}:timeout"))
                .is_err(),
            "{kind:?}"
        );
        assert_eq!(game.playing().len(), game.seat_names().len(), "{kind:?}");
    }
}

/// Records written before the timeout ply, whose forfeits read `resign`, still replay.
#[test]
fn old_resignations_still_replay() {
    let old = "[Game \"dicerink\"]\n[Result \"A\"]\n\nb1 5/4 b4 2/4 B>resign\n";
    let r = Record::parse(old).unwrap().replay().unwrap();
    assert_eq!(r.game.outcome_text().as_deref(), Some("A wins: B resigned"));
    let old = "[Game \"dicerink\"]\n[Result \"B\"]\n\nGM>A:resign\n";
    let r = Record::parse(old).unwrap().replay().unwrap();
    assert_eq!(r.game.outcome_text().as_deref(), Some("B wins: A resigned"));
}

/// `records.md`: a ply by an actor the position does not imply is written `GM>draw`.
#[test]
fn a_draw_is_written_as_the_record_format_documents_it() {
    let start = AnyGame::new(GameKind::DiceRink, &Options::new()).unwrap();
    let mut game = start.clone();
    let draw = game.agree_draw().unwrap();
    let log = vec![(Actor::Gm, draw)];
    let text = records::write(&tags(&game), &start, &log).unwrap();
    assert!(text.contains("[Result \"draw\"]"), "{text}");
    assert!(text.ends_with("\nGM>draw\n"), "{text}");
    let again = Record::parse(&text).unwrap().replay().unwrap();
    assert!(matches!(again.game.outcome(), Some(Outcome::Draw { .. })));
}

/// No move-text line is over 78 characters: Dicess's 32 dice named in a short comment,
/// Siberian PURITY's 60 published numbers broken at their spaces, and both replay the same.
#[test]
fn move_text_lines_stay_within_78_characters() {
    let mut purity = Options::new();
    purity.insert("variant".into(), "purity".into());
    for (kind, options) in [
        (GameKind::Dicess, Options::new()),
        (GameKind::Siberian, purity),
    ] {
        let start = AnyGame::new(kind, &options).unwrap();
        let mut game = start.clone();
        let ToAct::Chance(sides) = game.to_act() else {
            panic!("{kind:?} opens with a roll");
        };
        let values: Vec<u32> = sides.iter().map(|s| 1 + (*s - 1) % 6).collect();
        let roll = game.chance_ply(&values);
        let roll = game.play(Actor::Chance, &roll).unwrap();
        let log = vec![(Actor::Chance, roll)];
        let mut tags = tags(&game);
        tags.push(("Options".into(), records::format_options(&options)));
        let text = records::write_with_dice(&tags, &start, &log).unwrap();
        for line in text.lines().filter(|l| !l.starts_with('[')) {
            assert!(line.chars().count() <= 78, "{kind:?}: {line}");
        }
        let n = sides.len();
        assert!(text.contains(&format!("{{{n} d6}}")), "{kind:?}:\n{text}");
        let again = Record::parse(&text).unwrap().replay().unwrap();
        assert_eq!(again.log, log, "{kind:?}");
    }
}

/// Salts are plain tags, one a salt in order; a record written before reads its JSON list.
#[test]
fn salts_are_plain_tags_and_old_json_lists_still_read() {
    let salts = vec!["light's \"pebble\"".to_string(), "42".to_string()];
    let mut tags = vec![("Game".to_string(), "dicess".to_string())];
    tags.extend(records::dice_salt_tags(&salts));
    let start = AnyGame::new(GameKind::Dicess, &Options::new()).unwrap();
    let text = records::write(&tags, &start, &[]).unwrap();
    assert!(
        text.contains("[DiceSalt1 \"light's \\\"pebble\\\"\"]\n[DiceSalt2 \"42\"]\n"),
        "{text}"
    );
    assert_eq!(
        Record::parse(&text).unwrap().dice_salts(),
        Ok(salts.clone())
    );

    let old = r#"[Game "dicess"]
[DiceSalts "[\"light's pebble\",\"42\"]"]
"#;
    let want = vec!["light's pebble".to_string(), "42".to_string()];
    assert_eq!(Record::parse(old).unwrap().dice_salts(), Ok(want));
    let none = Record::parse("[Game \"dicess\"]\n").unwrap();
    assert_eq!(none.dice_salts(), Ok(vec![]));
    let gap = Record::parse("[Game \"dicess\"]\n[DiceSalt2 \"x\"]\n").unwrap();
    assert!(gap.dice_salts().is_err());
}
