//! `pbem bench deadline`: many Dip-Tac-Toe games whose turn falls due at one deadline, adjudicated by one timers run as the daemon makes it.

use std::path::Path;
use std::time::Instant;

use super::bench_config;
use super::workload::{self, Picker};
use crate::compose::Ctx;
use crate::config::Config;
use crate::edge;
use crate::gamelog;
use crate::games::{GameKind, ToAct};
use crate::store::Store;
use crate::template::Templates;

/// Makes `games` games with `history` turns played and every order of the next turn in, all
/// due at once; times the timers run that adjudicates them and prints the figures.
pub(super) fn run(dir: &Path, cfg: &Config, games: usize, history: usize) -> anyhow::Result<()> {
    std::fs::create_dir_all(dir)?;
    let cfg = bench_config(cfg, dir);
    let mut store = Store::open(&dir.join("pbem.sqlite"), true)?;
    let mut picker = Picker::new(0xdead_beef);
    let t = Instant::now();
    let made = workload::make_games(
        &mut store,
        &cfg,
        GameKind::DipTacToe,
        games,
        history,
        &mut picker,
    )?;
    let templates = Templates::load(None)?;
    let now = edge::now();
    store.tx(|tx| {
        for game in &made {
            let mut g = gamelog::load(tx, game.id)?;
            let ToAct::Orders(seats) = g.game.to_act() else {
                anyhow::bail!("game {}: not a turn of orders", game.id);
            };
            for s in seats {
                let order = workload::pick_order(&g, s, &mut picker)?;
                workload::give_orders(tx, &mut g, s, order, now, chrono::Duration::days(1))?;
            }
            // The deadline passed a moment ago, reminders already sent.
            tx.set_deadline(game.id, Some(now - chrono::Duration::seconds(1)))?;
            tx.set_reminded(game.id)?;
        }
        tx.bench_settle_outbox(now)
    })?;
    eprintln!(
        "(made {games} Dip-Tac-Toe games with {history} turns of history and every order in, \
         in {:.1} s)",
        t.elapsed().as_secs_f64()
    );
    let ctx = Ctx::new(&cfg, &templates, edge::now());
    let t = Instant::now();
    let acted = crate::timers::run(&mut store, &ctx)?;
    let took = t.elapsed();
    let queued = store.read(|tx| tx.outbox_pending_count())?;
    if acted != games {
        anyhow::bail!("{acted} of {games} games were adjudicated");
    }
    println!(
        "deadline: {games} Dip-Tac-Toe turns adjudicated in one timers run: {:.2} s \
         ({:.2} ms a game, each its own commit), {queued} reports queued",
        took.as_secs_f64(),
        took.as_secs_f64() * 1000.0 / games as f64
    );
    Ok(())
}
