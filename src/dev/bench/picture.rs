//! `pbem bench picture`: each game's board picture's drawing time and size, for a start and a mid-game position (optionally written out).

use std::path::Path;
use std::time::Instant;

use anyhow::{anyhow, Context};

use crate::games::{AnyGame, GameKind};
use crate::picture;
use crate::records::Record;

/// One recorded game per game, from the test data: the middle of each is the mid-game sample.
const RECORDS: &[(GameKind, &str)] = &[
    (
        GameKind::DiceRink,
        include_str!("../../../tests/data/dicerink/game2.pgn"),
    ),
    (
        GameKind::D4D6,
        include_str!("../../../tests/data/d4d6/seed-example-played.pgn"),
    ),
    (
        GameKind::DipTacToe,
        include_str!("../../../tests/data/diptactoe/row-claim.pgn"),
    ),
    (
        GameKind::Dicess,
        include_str!("../../../tests/data/dicess/games/light-star-win.pgn"),
    ),
    (
        GameKind::Siberian,
        include_str!("../../../tests/data/siberian/games/three-basic.pgn"),
    ),
];

/// The game after the first half of the record's plies (their actors as the replay found
/// them), its last ply a move to mark.
pub(super) fn mid_game(text: &str) -> anyhow::Result<AnyGame> {
    let record = Record::parse(text).map_err(|e| anyhow!(e))?;
    let replayed = record.replay().map_err(|e| anyhow!("{e}"))?;
    let mut game = record.start().map_err(|e| anyhow!(e))?;
    for (actor, ply) in &replayed.log[..replayed.log.len() / 2] {
        game.play(*actor, ply).map_err(|e| anyhow!("{ply}: {e}"))?;
    }
    Ok(game)
}

pub(super) fn run(rounds: u32, out: Option<&Path>) -> anyhow::Result<i32> {
    if let Some(dir) = out {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let rounds = rounds.max(1);
    println!("{rounds} pictures per position, mean time per picture:");
    for &(kind, text) in RECORDS {
        let start = AnyGame::new(kind, &Default::default()).map_err(|e| anyhow!(e))?;
        for (label, game) in [("start", start), ("mid-game", mid_game(text)?)] {
            let started = Instant::now();
            let mut png = Vec::new();
            for _ in 0..rounds {
                png = picture::board_png(&game)?;
            }
            let mean = started.elapsed().as_secs_f64() / f64::from(rounds);
            let (w, h) = picture::size(kind);
            let name = kind.facts().name;
            println!(
                "{name:<10} {label:<9} {:>7.2} ms {:>7} bytes  {w}x{h}",
                mean * 1000.0,
                png.len()
            );
            if let Some(dir) = out {
                let file = dir.join(format!("{name}-{label}.png"));
                std::fs::write(&file, &png)
                    .with_context(|| format!("writing {}", file.display()))?;
            }
        }
    }
    Ok(0)
}
