//! Long pseudo-random games: every listed legal ply plays and reads back as itself, the
//! `[Position]` tag round-trips between turns, and the game always ends or goes on cleanly.

use crate::lcg::Lcg;
use pbem_rules::games::d4d6::D4d6;
use pbem_rules::games::{Actor, Options, Rules, ToAct};

fn playout(options: &Options, seed: u64, plies: usize) -> D4d6 {
    let mut rng = Lcg(seed);
    let mut g = D4d6::new(options).unwrap();
    for _ in 0..plies {
        let actor = match g.to_act() {
            ToAct::Seat(s) => Actor::Seat(s),
            ToAct::Chance(_) => Actor::Chance,
            ToAct::Nobody => break,
            other => panic!("unexpected {other:?}"),
        };
        let legal = g.legal_plies();
        assert!(!legal.is_empty(), "nothing legal:\n{}", g.board());
        // Prefer plain moves now and then so games progress rather than shuffle Guardas.
        let plain: Vec<&String> = legal
            .iter()
            .filter(|p| !p.contains('-') || !p.starts_with("Gu"))
            .collect();
        let ply = if rng.pick(4) > 0 && !plain.is_empty() {
            plain[rng.pick(plain.len())].clone()
        } else {
            legal[rng.pick(legal.len())].clone()
        };
        let before = g.clone();
        let canon = g
            .play(actor, &ply)
            .unwrap_or_else(|e| panic!("listed ply '{ply}' refused: {e}\n{}", before.board()));
        assert_eq!(canon, ply, "canonical form differs from the listed ply");
        if let (ToAct::Seat(_), Some((_, true))) = (g.to_act(), g.move_number()) {
            let tag = g.position_tag();
            let again = D4d6::from_position(options, &tag).unwrap();
            assert_eq!(again.position_tag(), tag);
        }
        for line in g.board().lines() {
            assert!(line.chars().count() <= 72, "{line}");
        }
    }
    g
}

#[test]
fn standard_games_play_out() {
    let mut ended = 0;
    for seed in 1..=6 {
        let g = playout(&Options::new(), seed, 1500);
        if g.outcome().is_some() {
            ended += 1;
        }
    }
    assert!(ended > 0, "no game ended in 1500 plies");
}

#[test]
fn rinoceronte_games_play_out() {
    let mut o = Options::new();
    o.insert("variant".into(), "rinoceronte".into());
    for seed in 1..=3 {
        playout(&o, seed, 900);
    }
}
