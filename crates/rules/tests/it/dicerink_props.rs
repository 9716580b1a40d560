//! Property tests: every listed legal ply of randomly played Dice Rink games plays and reads back as itself; notation round-trips.

use pbem_rules::games::dicerink::die::Dir;
use pbem_rules::games::dicerink::notation::{parse, Written};
use pbem_rules::games::dicerink::position::Square;
use pbem_rules::games::dicerink::DiceRink;
use pbem_rules::games::{Actor, Options, Rules, ToAct};
use proptest::prelude::*;

/// Checks every legal ply of `game`: it plays, its canonical text is itself, and that text
/// played again from the same position gives the same position.
fn check_all_legal(game: &DiceRink) -> Result<(), TestCaseError> {
    let ToAct::Seat(seat) = game.to_act() else {
        prop_assert!(game.legal_plies().is_empty());
        return Ok(());
    };
    let legal = game.legal_plies();
    prop_assert!(!legal.is_empty(), "no legal ply in {}", game.position_tag());
    for ply in &legal {
        let mut after = game.clone();
        let canonical = after
            .play(Actor::Seat(seat), ply)
            .map_err(|e| TestCaseError::fail(format!("{ply} in {}: {e}", game.position_tag())))?;
        prop_assert_eq!(&canonical, ply);
        // The other seat may not play it.
        prop_assert!(game.clone().play(Actor::Seat(1 - seat), ply).is_err());
        if after.outcome().is_none() && after.move_number().is_some() {
            // The position tag reads back to the same game.
            let reread = DiceRink::from_position(&Options::new(), &after.position_tag())
                .map_err(|e| TestCaseError::fail(format!("{}: {e}", after.position_tag())))?;
            prop_assert_eq!(reread.position_tag(), after.position_tag());
            prop_assert_eq!(reread.legal_plies(), after.legal_plies());
        }
    }
    Ok(())
}

fn options(fixed: bool) -> Options {
    let mut o = Options::new();
    if fixed {
        o.insert("setup".into(), "fixed".into());
    }
    o
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn legal_plies_of_random_games_play_and_read_back(
        fixed in any::<bool>(),
        choices in prop::collection::vec(any::<u16>(), 0..80),
    ) {
        let mut game = DiceRink::new(&options(fixed)).unwrap();
        for choice in choices {
            check_all_legal(&game)?;
            let ToAct::Seat(seat) = game.to_act() else { break };
            let legal = game.legal_plies();
            let ply = &legal[usize::from(choice) % legal.len()];
            let before = game.move_number();
            game.play(Actor::Seat(seat), ply).unwrap();
            // Set-up plies have no number; play alternates A then B from move 1.
            if let (Some((n, first)), Some((m, next_first))) = (before, game.move_number()) {
                prop_assert_eq!(next_first, !first);
                prop_assert_eq!(m, if first { n } else { n + 1 });
            }
        }
        check_all_legal(&game)?;
    }

    #[test]
    fn rolls_read_back_in_any_case_and_spacing(
        square in prop::option::of((0u8..4, 0u8..4)),
        old_top in prop::option::of(1u8..=6),
        dir in 0usize..4,
        new_top in prop::option::of(1u8..=6),
        upper in any::<bool>(),
        spaces in any::<bool>(),
    ) {
        let square = square.and_then(|(f, r)| Square::new(f, r));
        // A roll must name its die by square or old top.
        prop_assume!(square.is_some() || old_top.is_some());
        let dir = Dir::ALL[dir];
        let mut text = String::new();
        if let Some(sq) = square { text.push_str(&sq.to_string()); text.push(' '); }
        if let Some(t) = old_top { text.push_str(&t.to_string()); }
        if spaces { text.push(' '); }
        text.push(dir.letter());
        if spaces { text.push(' '); }
        if let Some(t) = new_top { text.push_str(&t.to_string()); }
        let text = if upper { text.to_uppercase() } else { text.to_lowercase() };
        let written = parse(&text).map_err(TestCaseError::fail)?;
        prop_assert_eq!(&written, &Written::Roll { square, old_top, dir, new_top });
        prop_assert_eq!(parse(&written.echo()).unwrap(), written);
    }

    #[test]
    fn rotations_and_placements_read_back(
        square in (0u8..4, 0u8..4),
        top in 1u8..=6,
        face in 1u8..=6,
        dir in 0usize..4,
        long in any::<bool>(),
    ) {
        let square = Square::new(square.0, square.1).unwrap();
        let dir = Dir::ALL[dir];
        let keyword = if long { "rotate " } else { "R" };
        let text = format!("{keyword}{top}({face}{})", dir.letter());
        let want = Written::Rotate { square: None, top, face, facing: dir };
        prop_assert_eq!(parse(&text).unwrap(), want.clone());
        prop_assert_eq!(parse(&want.echo()).unwrap(), want);
        let placed = format!("{square} {top}/{face}");
        let want = Written::Place { square, top, front: face };
        prop_assert_eq!(parse(&placed).unwrap(), want.clone());
        prop_assert_eq!(want.echo(), placed);
    }

    #[test]
    fn the_reader_never_panics(text in "[a-z0-9/() NESWRnesw]{0,12}") {
        let _ = parse(&text);
        let game = DiceRink::from_position(
            &Options::new(),
            "A:b1=5/4,d1=3/6 B:b4=2/4,d4=6/4 move=A forced=-",
        ).unwrap();
        let _ = game.clone().play(Actor::Seat(0), &text);
    }
}
