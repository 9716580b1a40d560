use pbem_rules::games::*;
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
    let cases: Vec<(&str, Vec<(&str, &str)>)> = vec![
        ("dicerink", vec![]),
        ("dicerink", vec![("setup", "fixed")]),
        ("d4d6", vec![]),
        ("d4d6", vec![("variant", "rinoceronte")]),
        ("diptactoe", vec![]),
        ("dicess", vec![]),
        ("siberian", vec![]),
        ("siberian", vec![("variant", "primes")]),
        ("siberian", vec![("variant", "strategic")]),
        ("siberian", vec![("variant", "grossmeister")]),
        ("siberian", vec![("variant", "purity")]),
        ("siberian", vec![("players", "3")]),
    ];
    let verbose = std::env::args().nth(1);
    for (name, opts) in cases {
        let kind = GameKind::parse(name).unwrap();
        let options: Options = opts
            .iter()
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .collect();
        let mut rng = Lcg(7);
        let t = Instant::now();
        let mut plies = 0;
        let mut maxlegal = 0;
        let mut games = 0;
        let mut wins = std::collections::BTreeMap::new();
        for g in 0..20 {
            let mut game = AnyGame::new(kind, &options).unwrap();
            let mut n = 0;
            loop {
                n += 1;
                if n > 3000 {
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
                        if g == 0 && verbose.as_deref() == Some(name) {
                            println!("CHANCE {p}");
                        }
                        game.play(Actor::Chance, &p).unwrap();
                    }
                    ToAct::Seat(s) => {
                        let l = game.legal_plies();
                        maxlegal = maxlegal.max(l.len());
                        if g == 0 && verbose.as_deref() == Some(name) {
                            println!("seat {s} {} {:?}", l.len(), &l[..l.len().min(12)]);
                        }
                        let p = &l[rng.pick(l.len())];
                        game.play(Actor::Seat(s), p).unwrap();
                    }
                    ToAct::Orders(seats) => {
                        let l = game.legal_plies();
                        if g == 0 && verbose.as_deref() == Some(name) {
                            println!("orders {seats:?} {} {:?}", l.len(), &l[..l.len().min(20)]);
                        }
                        let mut m = std::collections::BTreeMap::new();
                        for s in seats {
                            m.insert(s, vec![]);
                        }
                        let p = game.turn_ply(&m).unwrap();
                        game.play(Actor::Gm, &p).unwrap();
                    }
                }
                plies += 1;
            }
            games += 1;
            *wins
                .entry(format!(
                    "{:?}",
                    game.outcome().map(|o| match o {
                        Outcome::Win { seat, .. } => seat as i64,
                        _ => -1,
                    })
                ))
                .or_insert(0) += 1;
        }
        println!(
            "{name} {opts:?}: {games} games {plies} plies, {:?}/game, maxlegal {maxlegal}, {:?}",
            t.elapsed() / games,
            wins
        );
    }
}
