//! `pbem bench picture`: each game's and variant's board pictures, every position of a seeded game drawn once in order as its mails would show them, from a cold start: the median time per picture and the sizes (optionally written out).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant;

use anyhow::{anyhow, Context};

use super::lcg::Lcg;
use super::{ms, percentile};
use crate::games::{Actor, AnyGame, GameKind, GameRef, Options, ToAct};
use crate::picture;

/// A game's options, as (name, value) pairs.
type Opts = &'static [(&'static str, &'static str)];

/// Every game and variant that has a picture of its own (a variant that draws differently:
/// its panel, its pieces or its size).
const GAMES: &[(GameKind, &str, Opts)] = &[
    (GameKind::DiceRink, "free", &[]),
    (GameKind::D4D6, "standard", &[]),
    (GameKind::D4D6, "rinoceronte", &[("variant", "rinoceronte")]),
    (GameKind::DipTacToe, "standard", &[]),
    (GameKind::Dicess, "standard", &[]),
    (GameKind::Siberian, "basic", &[]),
    (GameKind::Siberian, "strategic", &[("variant", "strategic")]),
    (
        GameKind::Siberian,
        "grossmeister",
        &[("variant", "grossmeister")],
    ),
    (GameKind::Siberian, "purity", &[("variant", "purity")]),
    (GameKind::Siberian, "3 players", &[("players", "3")]),
];

/// A seeded game stops here (Dice Rink played at random may go on for ever).
const PLY_CAP: usize = 240;

/// The positions drawn: the start and these fractions of the seeded game's plies.
const FRACTIONS: [f64; 4] = [0.25, 0.5, 0.75, 1.0];

/// The next ply of a game played by uniformly random legal plies and dice (a Dip-Tac-Toe
/// seat gives one random legal order); `None` once nobody is to act.
fn next_ply(game: &AnyGame, lcg: &mut Lcg) -> anyhow::Result<Option<(Actor, String)>> {
    Ok(Some(match game.to_act() {
        ToAct::Nobody => return Ok(None),
        ToAct::Chance(sides) => {
            let roll: Vec<u32> = sides
                .iter()
                .map(|s| lcg.below(*s as usize) as u32 + 1)
                .collect();
            (Actor::Chance, game.chance_ply(&roll))
        }
        ToAct::Seat(s) => {
            let legal = game.legal_plies();
            anyhow::ensure!(!legal.is_empty(), "{:?}: no legal ply", game.kind());
            (Actor::Seat(s), legal[lcg.below(legal.len())].clone())
        }
        ToAct::Orders(seats) => {
            let GameRef::DipTacToe(d) = game.game() else {
                anyhow::bail!("{:?} asks for orders", game.kind());
            };
            let mut orders = BTreeMap::new();
            for s in seats {
                let legal = d.legal_orders(s);
                let pick = (!legal.is_empty()).then(|| legal[lcg.below(legal.len())].clone());
                orders.insert(s, pick.into_iter().collect::<Vec<String>>());
            }
            (Actor::Gm, game.turn_ply(&orders).map_err(|e| anyhow!(e))?)
        }
    }))
}

/// A game's options as `GAMES` gives them.
fn options_of(opts: Opts) -> Options {
    opts.iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Every position of a seeded random game, in order (at most `PLY_CAP` plies).
fn game_positions(kind: GameKind, options: &Options) -> anyhow::Result<Vec<AnyGame>> {
    let mut game = AnyGame::new(kind, options).map_err(|e| anyhow!(e))?;
    let mut all = vec![game.clone()];
    let mut lcg = Lcg(0x0916_7e5e);
    while all.len() <= PLY_CAP {
        let Some((actor, ply)) = next_ply(&game, &mut lcg)? else {
            break;
        };
        game.play(actor, &ply)
            .map_err(|e| anyhow!("{kind:?}: {ply}: {e}"))?;
        all.push(game.clone());
    }
    Ok(all)
}

/// Which of a game's positions are shown by their sizes (and tested): its start and those at
/// `FRACTIONS` of its plies.
fn picks(positions: usize) -> Vec<usize> {
    let last = positions - 1;
    let mut picks = vec![0];
    for f in FRACTIONS {
        let k = (last as f64 * f).round() as usize;
        if !picks.contains(&k) {
            picks.push(k);
        }
    }
    picks
}

/// The positions whose pictures are shown by size: a seeded random game's start and its
/// positions at `FRACTIONS` of its plies (each position once).
#[cfg(test)]
fn positions(kind: GameKind, options: &Options) -> anyhow::Result<Vec<AnyGame>> {
    let all = game_positions(kind, options)?;
    Ok(picks(all.len())
        .into_iter()
        .map(|k| all[k].clone())
        .collect())
}

/// A pass draws every position of each game once, in order, as a game's mails would show
/// them; each pass starts cold, with nothing kept, as a process just started does.
pub(super) fn run(passes: u32, out: Option<&Path>, only: Option<GameKind>) -> anyhow::Result<i32> {
    if let Some(dir) = out {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let passes = passes.max(1);
    println!(
        "every position of a seeded game drawn once in order, in {passes} pass(es) each from a cold \
         start; per game the median time per picture, p10-p90, and the sizes at the start and \
         at a quarter, half, three quarters and the end of the game:"
    );
    for &(kind, variant, opts) in GAMES.iter().filter(|g| only.is_none_or(|k| k == g.0)) {
        let all = game_positions(kind, &options_of(opts))?;
        let picks = picks(all.len());
        let mut times = Vec::new();
        let mut sizes = Vec::new();
        for pass in 0..passes {
            picture::forget_kept();
            for (i, game) in all.iter().enumerate() {
                let started = Instant::now();
                let png = picture::board_png(game)?;
                times.push(started.elapsed());
                if pass == 0 && picks.contains(&i) {
                    sizes.push(png.len().to_string());
                    if let Some(dir) = out {
                        let k = picks.iter().position(|&p| p == i).unwrap_or(i);
                        let name = format!("{}-{variant}-{k}.png", kind.name()).replace(' ', "-");
                        let file = dir.join(name);
                        std::fs::write(&file, &png)
                            .with_context(|| format!("writing {}", file.display()))?;
                    }
                }
            }
        }
        times.sort();
        let at = |q: f64| ms(percentile(&times, q));
        println!(
            "{:<10} {variant:<12} {:>6.2} ms ({:.2}-{:.2}) over {} positions, bytes {}",
            kind.name(),
            at(0.5),
            at(0.1),
            at(0.9),
            all.len(),
            sizes.join(" ")
        );
    }
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every game's and variant's pictures at the bench's positions are, byte for byte, the
    /// pictures drawn in one pass: the kept fixed layer changes no pixel (drawn twice, the
    /// second picture is drawn over the kept layer).
    #[test]
    fn the_layered_pictures_are_the_pictures_drawn_in_one_pass() {
        for &(kind, variant, opts) in GAMES {
            let games = positions(kind, &options_of(opts)).unwrap();
            assert!(games.len() >= 3, "{variant}: {} positions", games.len());
            for (i, game) in games.iter().enumerate() {
                let whole = picture::board_png_in_one_pass(game).unwrap();
                for _ in 0..2 {
                    let layered = picture::board_png(game).unwrap();
                    assert!(layered == whole, "{kind:?} {variant} position {i}");
                }
            }
        }
    }

    /// Every position of a game (of one kind, variant and size) is drawn over one fixed
    /// layer: what changes from move to move, a perfect die's gold hex included, is drawn
    /// over it, so no position pays for drawing the layer again (a gold hex in the layer
    /// was drawn anew each time a die became perfect, the slowest tenth of Siberian Dice's
    /// pictures).
    #[test]
    fn every_position_of_a_game_is_drawn_over_one_fixed_layer() {
        for &(kind, variant, opts) in GAMES {
            let games = game_positions(kind, &options_of(opts)).unwrap();
            let layers: std::collections::HashSet<String> =
                games.iter().map(picture::fixed_layer).collect();
            assert_eq!(
                layers.len(),
                1,
                "{kind:?} {variant}: {} fixed layers",
                layers.len()
            );
        }
    }

    /// Pictures drawn in any order on one thread (positions far apart in turn, as of two
    /// games of one kind, and another kind's between them, as a send round takes its
    /// positions) are the pictures drawn in one pass: a canvas cleared after another
    /// position's picture keeps nothing of it.
    #[test]
    fn pictures_drawn_in_any_order_are_the_pictures_drawn_in_one_pass() {
        let none = Options::new();
        let rink = game_positions(GameKind::DiceRink, &none).unwrap();
        let tac = game_positions(GameKind::DipTacToe, &none).unwrap();
        let n = rink.len().min(tac.len());
        assert!(n > 100, "{n} positions");
        for i in (0..n).step_by(12) {
            for game in [&rink[i], &rink[n - 1 - i], &tac[i], &rink[(i + 2) % n]] {
                let whole = picture::board_png_in_one_pass(game).unwrap();
                assert!(picture::board_png(game).unwrap() == whole, "position {i}");
            }
        }
    }
}
