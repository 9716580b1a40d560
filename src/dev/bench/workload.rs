//! Bench games with a history (Dip-Tac-Toe turns, d4 d6 chess plies) and the next legal order mail for each, made untimed from the store as it stands.

use anyhow::anyhow;

use crate::compose::Ctx;
use crate::config::Config;
use crate::edge;
use crate::gamelog::{self, Loaded};
use crate::games::{Actor, GameKind, ToAct};
use crate::gm::{self, GameSpec, Secrets};
use crate::store::{Store, Tx};
use crate::template::Templates;

/// A bench game: its id and, per seat, the player's address and secret reply token.
pub(super) struct BenchGame {
    pub id: i64,
    pub seats: Vec<(String, String)>,
}

/// A small deterministic generator (SplitMix64): the same orders on every run.
pub(super) struct Picker(u64);

impl Picker {
    pub(super) fn new(seed: u64) -> Picker {
        Picker(seed)
    }

    fn index(&mut self, n: usize) -> usize {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        ((z ^ (z >> 31)) % n.max(1) as u64) as usize
    }
}

/// Makes `n` games of `kind` (Dip-Tac-Toe or d4 d6 chess), each with `history` turns
/// (Dip-Tac-Toe) or plies (d4 d6) already played, every mail they caused marked sent.
pub(super) fn make_games(
    store: &mut Store,
    cfg: &Config,
    kind: GameKind,
    n: usize,
    history: usize,
    picker: &mut Picker,
) -> anyhow::Result<Vec<BenchGame>> {
    let templates = Templates::load(None)?;
    let now = edge::now();
    let mut games = Vec::with_capacity(n);
    for i in 0..n {
        let game = store.tx(|tx| {
            let ctx = Ctx::new(cfg, &templates, now);
            let game = new_game(&mut ctx.gm(tx), kind, i)?;
            let mut g = gamelog::load(tx, game.id)?;
            for _ in 0..history {
                if !advance(tx, &ctx, &mut g, picker)? {
                    break;
                }
            }
            tx.bench_settle_outbox(now)?;
            Ok(game)
        })?;
        games.push(game);
    }
    Ok(games)
}

fn new_game(gm: &mut gm::Gm, kind: GameKind, i: usize) -> anyhow::Result<BenchGame> {
    let names = crate::games::AnyGame::new(kind, &Default::default())
        .map_err(|e| anyhow!(e))?
        .seat_names();
    let mut spec = GameSpec {
        kind: Some(kind),
        players: names
            .iter()
            .map(|s| {
                (
                    s.to_string(),
                    format!("{}{i}@players.example", s.to_lowercase()),
                )
            })
            .collect(),
        // A deadline a week out, as a real game has; no salt window, so dice roll at once.
        move_secs: Some(7 * 86_400),
        ..Default::default()
    };
    if kind.rolls_dice() {
        spec.options.insert("salt_window".into(), "0".into());
    }
    let secrets = Secrets::generate(names.len())?;
    let id = gm::create_game(gm, &spec, &secrets)?;
    let seats = spec
        .players
        .iter()
        .map(|(_, email)| email.clone())
        .zip(secrets.tokens)
        .collect();
    Ok(BenchGame { id, seats })
}

/// A seat's one order for a made-up turn, through the GM as any seat's orders go.
pub(super) fn give_orders(
    tx: &Tx,
    g: &mut Loaded,
    seat: usize,
    order: String,
    now: chrono::DateTime<chrono::Utc>,
    early: chrono::Duration,
) -> anyhow::Result<()> {
    let lines = [order];
    let turn = gm::Turn {
        seat,
        lines: &lines,
        guard: None,
        moved: false,
        by: gm::By::Gm,
        intent: gm::Intent::Orders,
        early,
    };
    let sub = gm::submit(&mut gm::Gm::new(tx, now, &gm::Quiet), g, &turn)?;
    match sub.lines.first() {
        Some(gm::LineOutcome::Refused(why)) => Err(anyhow!("{why}")),
        _ => Ok(()),
    }
}

/// Plays one step of history: a whole Dip-Tac-Toe turn (every seat's orders, then the
/// adjudication), or one d4 d6 ply (and the roll after it). False once the game is over.
fn advance(tx: &Tx, ctx: &Ctx, g: &mut Loaded, picker: &mut Picker) -> anyhow::Result<bool> {
    match g.game.to_act() {
        ToAct::Orders(seats) => {
            for &s in &seats {
                let order = pick_order(g, s, picker)?;
                give_orders(tx, g, s, order, ctx.now, chrono::Duration::zero())?;
            }
            gm::clock::adjudicate(&mut ctx.gm(tx), g, &seats)?;
        }
        ToAct::Seat(s) => {
            let ply = pick_ply(g, picker)?;
            // The history is made up: nobody is told of its moves.
            let mut quiet = gm::Gm::new(tx, ctx.now, &gm::Quiet);
            gm::play(&mut quiet, g, Actor::Seat(s), &ply, None)?.map_err(|e| anyhow!("{e}"))?;
        }
        _ => return Ok(false),
    }
    Ok(g.game.outcome().is_none())
}

/// One legal Dip-Tac-Toe order of `seat` (never a claim: bench games do not end).
pub(super) fn pick_order(g: &Loaded, seat: usize, picker: &mut Picker) -> anyhow::Result<String> {
    let prefix = format!("{}:", g.game.seat_name(seat));
    let orders: Vec<String> = g
        .game
        .legal_plies()
        .into_iter()
        .filter_map(|p| p.strip_prefix(&prefix).map(str::to_string))
        .collect();
    if orders.is_empty() {
        anyhow::bail!("game {}: {prefix} has no legal order", g.row.id);
    }
    Ok(orders[picker.index(orders.len())].clone())
}

/// One legal ply of the side to move.
fn pick_ply(g: &Loaded, picker: &mut Picker) -> anyhow::Result<String> {
    let plies = g.game.legal_plies();
    if plies.is_empty() {
        anyhow::bail!("game {}: no legal ply", g.row.id);
    }
    Ok(plies[picker.index(plies.len())].clone())
}

/// The next order mail for `game` as its player would write it: a legal move of the side to
/// move, or orders from a seat that has none in yet. A Dip-Tac-Toe turn whose orders are all
/// in is adjudicated first, as the daemon would at its deadline (untimed: not the mail's work).
pub(super) fn next_mail(
    store: &mut Store,
    cfg: &Config,
    game: &BenchGame,
    n: usize,
    picker: &mut Picker,
) -> anyhow::Result<Vec<u8>> {
    let templates = Templates::load(None)?;
    let (seat, body) = store.tx(|tx| {
        let mut g = gamelog::load(tx, game.id)?;
        if let ToAct::Orders(seats) = g.game.to_act() {
            if gm::all_ordered(&g) {
                let ctx = Ctx::new(cfg, &templates, edge::now());
                gm::clock::adjudicate(&mut ctx.gm(tx), &mut g, &seats)?;
            }
        }
        match g.game.to_act() {
            ToAct::Orders(seats) => {
                let s = *seats
                    .iter()
                    .find(|s| !g.ordered.contains(s))
                    .ok_or_else(|| anyhow!("game {}: every order is in", game.id))?;
                Ok((s, pick_order(&g, s, picker)?))
            }
            ToAct::Seat(s) => Ok((s, pick_ply(&g, picker)?)),
            other => Err(anyhow!("game {}: nobody to move ({other:?})", game.id)),
        }
    })?;
    let (from, token) = &game.seats[seat];
    let title = store
        .read(|tx| Ok(tx.game(game.id)?.map(|r| r.kind)))?
        .and_then(|k| GameKind::parse(&k))
        .map_or("game", |k| k.title());
    Ok(format!(
        "From: {from}\r\nTo: {to}\r\nSubject: Re: [pbem #{id}] {title}\r\n\
         Message-ID: <bench.{id}.{n}@players.example>\r\n\r\n{body}\r\n",
        to = cfg.seat_address(token),
        id = game.id
    )
    .into_bytes())
}
