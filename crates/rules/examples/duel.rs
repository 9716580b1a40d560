use pbem_rules::games::*;
use pbem_rules::robot::{decide, Decision, Level, View};
use std::time::Instant;
struct Lcg(u64);
impl Lcg {
    fn pick(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) % n as u64) as usize
    }
}
fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = &args[1];
    let n: usize = args[2].parse().unwrap();
    let a = Level::parse(&args[3]);
    let b = Level::parse(&args[4]);
    let opts: Options = args[5..]
        .iter()
        .map(|kv| {
            let (k, v) = kv.split_once('=').unwrap();
            (k.to_string(), v.to_string())
        })
        .collect();
    let kind = GameKind::parse(name).unwrap();
    let mut rng = Lcg(12345);
    let mut score = 0.0;
    let mut times = vec![];
    let mut draws = 0;
    for g in 0..n {
        let mut game = AnyGame::new(kind, &opts).unwrap();
        let nseats = game.playing().len();
        let a_seat = g % nseats;
        let mut plies = 0;
        let mut hist: Vec<String> = vec![];
        loop {
            plies += 1;
            if plies > 5000 {
                break;
            }
            match game.to_act() {
                ToAct::Nobody => break,
                ToAct::Chance(sides) => {
                    let v: Vec<u32> = sides
                        .iter()
                        .map(|s| rng.pick(*s as usize) as u32 + 1)
                        .collect();
                    let p = game.chance_ply(&v);
                    game.play(Actor::Chance, &p).unwrap();
                }
                ToAct::Seat(s) => {
                    let lvl = if s == a_seat { a } else { b };
                    let p = match lvl {
                        Some(l) => {
                            let t = Instant::now();
                            let d = decide(&View::new(&game, g as i64), s, l);
                            if s == a_seat {
                                times.push(t.elapsed().as_secs_f64() * 1000.0);
                            }
                            match d {
                                Some(Decision::Ply(p)) => p,
                                x => panic!("{x:?}"),
                            }
                        }
                        None => {
                            let l = game.legal_plies();
                            l[rng.pick(l.len())].clone()
                        }
                    };
                    hist.push(p.clone());
                    game.play(Actor::Seat(s), &p)
                        .unwrap_or_else(|e| panic!("{p}: {e}"));
                }
                ToAct::Orders(seats) => {
                    let mut m = std::collections::BTreeMap::new();
                    for s in seats {
                        let lvl = if s == a_seat { a } else { b };
                        let lines = match lvl {
                            Some(l) => {
                                let t = Instant::now();
                                let d = decide(&View::new(&game, g as i64), s, l);
                                if s == a_seat {
                                    times.push(t.elapsed().as_secs_f64() * 1000.0);
                                }
                                match d {
                                    Some(Decision::Orders(o)) => o,
                                    x => panic!("{x:?}"),
                                }
                            }
                            None => {
                                let GameRef::DipTacToe(d) = game.game() else {
                                    panic!()
                                };
                                let l = d.legal_orders(s);
                                if l.is_empty() {
                                    vec![]
                                } else {
                                    vec![l[rng.pick(l.len())].clone()]
                                }
                            }
                        };
                        m.insert(s, lines);
                    }
                    let p = game.turn_ply(&m).unwrap();
                    game.play(Actor::Gm, &p).unwrap();
                }
            }
        }
        if std::env::var("DBG").is_ok() {
            println!(
                "game {g} a_seat {a_seat} plies {plies} {:?}",
                game.outcome()
            );
            if game.outcome().is_none() {
                println!("{}\n{:?}", game.board(), &hist[hist.len() - 12..]);
            }
        }
        match game.outcome() {
            Some(Outcome::Win { seat, .. }) if seat == a_seat => score += 1.0,
            Some(Outcome::Draw { seats, .. }) => {
                draws += 1;
                if seats.contains(&a_seat) {
                    score += 0.5;
                }
            }
            _ => {}
        }
    }
    times.sort_by(|x, y| x.partial_cmp(y).unwrap());
    let p = |q: f64| {
        times
            .get(((times.len() as f64 - 1.0) * q) as usize)
            .copied()
            .unwrap_or(0.0)
    };
    println!("{name} {:?} {:?} vs {:?}: score {:.1}% draws {draws} n {n} p50 {:.2}ms p99 {:.2}ms max {:.2}ms", &args[5..], a, b, 100.0*score/n as f64, p(0.5), p(0.99), p(1.0));
}
