//! `pbem bench robots`: the robots' strength (games against a uniformly random player and against the easy robot) and their time per decision.

use std::collections::BTreeMap;
use std::time::Instant;

use super::lcg::Lcg;
use crate::games::{Actor, AnyGame, GameKind, GameRef, Options, Outcome, Seat, ToAct};
use crate::robot::{decide, Decision, Level, View};

/// A game past this many plies stops and counts as a draw (Dice Rink without a move cap,
/// like two players who never agree to stop, can go on for ever).
const PLY_CAP: usize = 3_000;

/// A player in a bench game: a robot at a level, or a uniformly random legal player.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Player {
    Robot(Level),
    Random,
}

impl Player {
    fn name(self) -> &'static str {
        match self {
            Player::Robot(level) => level.name(),
            Player::Random => "random",
        }
    }
}

/// A game's options, as (name, value) pairs.
type Opts = &'static [(&'static str, &'static str)];

/// Every game and variant the bench plays, with its options.
const GAMES: &[(&str, &str, Opts)] = &[
    ("dicerink", "free", &[]),
    ("dicerink", "fixed", &[("setup", "fixed")]),
    ("d4d6", "standard", &[]),
    ("d4d6", "rinoceronte", &[("variant", "rinoceronte")]),
    ("dicess", "standard", &[]),
    ("siberian", "basic", &[]),
    ("siberian", "primes", &[("variant", "primes")]),
    ("siberian", "strategic", &[("variant", "strategic")]),
    ("siberian", "grossmeister", &[("variant", "grossmeister")]),
    ("siberian", "purity", &[("variant", "purity")]),
    ("siberian", "3 players", &[("players", "3")]),
    ("diptactoe", "standard", &[]),
];

/// One pairing's games: player `a` in one seat (alternating), `b` in every other.
struct Tally {
    game: &'static str,
    variant: &'static str,
    a: Player,
    b: Player,
    games: usize,
    wins: usize,
    draws: usize,
    losses: usize,
    /// Milliseconds per decision of player `a`.
    times: Vec<f64>,
}

impl Tally {
    fn score(&self) -> f64 {
        (self.wins as f64 + self.draws as f64 / 2.0) / self.games.max(1) as f64
    }

    fn percentile(&self, q: f64) -> f64 {
        let mut t = self.times.clone();
        t.sort_by(f64::total_cmp);
        t.get(((t.len().max(1) - 1) as f64 * q).round() as usize)
            .copied()
            .unwrap_or(0.0)
    }

    fn json(&self) -> serde_json::Value {
        serde_json::json!({
            "game": self.game, "variant": self.variant, "a": self.a.name(), "b": self.b.name(),
            "games": self.games, "a_score": self.score(), "draws": self.draws,
            "p50_ms": self.percentile(0.5), "p99_ms": self.percentile(0.99),
        })
    }

    fn line(&self) -> String {
        format!(
            "{:<10} {:<12} {:>6} {:>6} {:>5} {:>4} {:>4} {:>4} {:>6.1}% {:>8.1} {:>8.1}",
            self.game,
            self.variant,
            self.a.name(),
            self.b.name(),
            self.games,
            self.wins,
            self.draws,
            self.losses,
            100.0 * self.score(),
            self.percentile(0.5),
            self.percentile(0.99)
        )
    }
}

/// Plays `games` games of every pairing of every game and prints the table (or JSON lines).
pub(super) fn run(games: usize, json: bool, only: Option<GameKind>) -> anyhow::Result<i32> {
    if !json {
        println!(
            "{:<10} {:<12} {:>6} {:>6} {:>5} {:>4} {:>4} {:>4} {:>7} {:>8} {:>8}",
            "game",
            "variant",
            "a",
            "b",
            "games",
            "won",
            "drew",
            "lost",
            "score",
            "p50 ms",
            "p99 ms"
        );
    }
    for &(game, variant, options) in GAMES {
        let kind = GameKind::parse(game).ok_or_else(|| anyhow::anyhow!("no game {game}"))?;
        if only.is_some_and(|o| o != kind) {
            continue;
        }
        let options: Options = options
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let strong = Player::Robot(Level::Strong);
        let easy = Player::Robot(Level::Easy);
        let pairings = if AnyGame::new(kind, &options)
            .map_err(anyhow::Error::msg)?
            .playing()
            .len()
            > 2
        {
            vec![(strong, Player::Random), (easy, Player::Random)]
        } else {
            vec![
                (strong, Player::Random),
                (strong, easy),
                (easy, Player::Random),
            ]
        };
        for (a, b) in pairings {
            let mut tally = Tally {
                game,
                variant,
                a,
                b,
                games: 0,
                wins: 0,
                draws: 0,
                losses: 0,
                times: Vec::new(),
            };
            play_all(kind, &options, games, &mut tally)?;
            if json {
                println!("{}", tally.json());
            } else {
                println!("{}", tally.line());
            }
        }
    }
    Ok(0)
}

/// How one game ended for player `a`.
enum Ending {
    Won,
    Drew,
    Lost,
}

/// The pairing's games, spread over the machine's cores (each game is independent and its
/// dice and random player are seeded by its number, so the table is the same on any machine);
/// results and times go to the tally in game order.
fn play_all(
    kind: GameKind,
    options: &Options,
    games: usize,
    tally: &mut Tally,
) -> anyhow::Result<()> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (a, b) = (tally.a, tally.b);
    let mut done: Vec<(usize, Ending, Vec<f64>)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads.min(games.max(1)))
            .map(|_| {
                scope.spawn(|| -> anyhow::Result<Vec<(usize, Ending, Vec<f64>)>> {
                    let mut mine = Vec::new();
                    loop {
                        let g = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if g >= games {
                            return Ok(mine);
                        }
                        let mut times = Vec::new();
                        let result = play_one(kind, options, g, (a, b), &mut times)?;
                        mine.push((g, result, times));
                    }
                })
            })
            .collect();
        let mut all = Vec::new();
        for w in workers {
            all.extend(
                w.join()
                    .map_err(|_| anyhow::anyhow!("a bench game panicked"))??,
            );
        }
        anyhow::Ok(all)
    })?;
    done.sort_by_key(|d| d.0);
    for (_, result, times) in done {
        tally.games += 1;
        match result {
            Ending::Won => tally.wins += 1,
            Ending::Drew => tally.draws += 1,
            Ending::Lost => tally.losses += 1,
        }
        tally.times.extend(times);
    }
    Ok(())
}

/// One game of the pairing, `a` in seat `g` modulo the seats: how it ended for `a`, whose
/// decisions' times go to `times`.
fn play_one(
    kind: GameKind,
    options: &Options,
    g: usize,
    (a, b): (Player, Player),
    times: &mut Vec<f64>,
) -> anyhow::Result<Ending> {
    let mut game = AnyGame::new(kind, options).map_err(anyhow::Error::msg)?;
    let a_seat = g % game.playing().len();
    let mut lcg = Lcg(0x5eed_0000 + g as u64);
    let id = g as i64 + 1;
    let player = |s: Seat| if s == a_seat { a } else { b };
    for _ in 0..PLY_CAP {
        match game.to_act() {
            ToAct::Nobody => break,
            ToAct::Chance(sides) => {
                let roll: Vec<u32> = sides
                    .iter()
                    .map(|s| lcg.below(*s as usize) as u32 + 1)
                    .collect();
                let ply = game.chance_ply(&roll);
                game.play(Actor::Chance, &ply).map_err(anyhow::Error::msg)?;
            }
            ToAct::Seat(s) => {
                let times = (s == a_seat).then_some(&mut *times);
                let ply = match decision(&game, id, s, player(s), &mut lcg, times) {
                    Some(Decision::Ply(p)) => p,
                    other => anyhow::bail!("{} {} gave {other:?}", kind.name(), player(s).name()),
                };
                game.play(Actor::Seat(s), &ply)
                    .map_err(|e| anyhow::anyhow!("{}: {ply}: {e}", kind.name()))?;
            }
            ToAct::Orders(seats) => {
                let mut orders = BTreeMap::new();
                for s in seats {
                    let times = (s == a_seat).then_some(&mut *times);
                    let lines = match decision(&game, id, s, player(s), &mut lcg, times) {
                        Some(Decision::Orders(lines)) => lines,
                        other => {
                            anyhow::bail!("{} {} gave {other:?}", kind.name(), player(s).name())
                        }
                    };
                    orders.insert(s, lines);
                }
                let ply = game.turn_ply(&orders).map_err(anyhow::Error::msg)?;
                game.play(Actor::Gm, &ply).map_err(anyhow::Error::msg)?;
            }
        }
    }
    Ok(match game.outcome() {
        Some(Outcome::Win { seat, .. }) if seat == a_seat => Ending::Won,
        Some(Outcome::Draw { seats, .. }) if seats.contains(&a_seat) => Ending::Drew,
        Some(_) => Ending::Lost,
        None => Ending::Drew,
    })
}

/// What `player` does for `seat` now, a ply or orders as the game asks. A robot's time in
/// milliseconds goes to `times` if given (player `a`'s decisions are timed); the random
/// player picks uniformly among the legal plies, or one legal order (none when it has none).
fn decision(
    game: &AnyGame,
    id: i64,
    seat: Seat,
    player: Player,
    lcg: &mut Lcg,
    times: Option<&mut Vec<f64>>,
) -> Option<Decision> {
    let level = match player {
        Player::Robot(level) => level,
        Player::Random => return Some(random(game, seat, lcg)),
    };
    let started = Instant::now();
    let decision = decide(&View::new(game, id), seat, level);
    if let Some(times) = times {
        times.push(started.elapsed().as_secs_f64() * 1000.0);
    }
    decision
}

/// A uniformly random legal ply, or for a Dip-Tac-Toe seat a random legal order.
fn random(game: &AnyGame, seat: Seat, lcg: &mut Lcg) -> Decision {
    if let GameRef::DipTacToe(d) = game.game() {
        let legal = d.legal_orders(seat);
        let orders = if legal.is_empty() {
            Vec::new()
        } else {
            vec![legal[lcg.below(legal.len())].clone()]
        };
        return Decision::Orders(orders);
    }
    let legal = game.legal_plies();
    Decision::Ply(legal[lcg.below(legal.len())].clone())
}
