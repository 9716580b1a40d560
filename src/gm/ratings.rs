//! Glicko-2 ratings per game kind from the finished games in the order they ended (`pbem ratings`, `RATINGS` by mail).

use std::collections::BTreeMap;

use skillratings::glicko2::{glicko2_rating_period, Glicko2Config, Glicko2Rating};
use skillratings::Outcomes;

use super::stats::GameFacts;
use crate::games::{GameKind, Outcome};
use crate::store::{GameStatus, Tx};

/// One player's rating in one game kind.
#[derive(Debug, Clone)]
pub struct Rated {
    /// The player: an address, or `robot:LEVEL` (a robot at a level is one player).
    pub player: String,
    /// What the player is called (`names`): never their address.
    pub shown: String,
    pub rating: f64,
    pub deviation: f64,
    pub games: usize,
}

/// The name shown for a player who has none (the address's local part, a robot in words):
/// `names::fallback`. A player's own name is `names::shown` (or `Rated::shown`, and
/// `GameFacts::shown` per seat).
pub fn display_name(player: &str) -> String {
    super::names::fallback(player)
}

/// Each player's result against each other player of one finished game, seen from the
/// first: the winner beats everyone; seats sharing a draw draw each other and beat those
/// left out of it; losers of a multi-player game have no result among themselves
/// (Glicko-2 rates pairwise results, so a game of N seats is its pairs, all in one rating
/// period so that the order of the pairs does not matter).
fn pairs(outcome: &Outcome, seats: usize) -> Vec<(usize, usize, Outcomes)> {
    let mut out = Vec::new();
    for a in 0..seats {
        for b in 0..seats {
            if a == b {
                continue;
            }
            let result = match outcome {
                Outcome::Win { seat, .. } if *seat == a => Some(Outcomes::WIN),
                Outcome::Win { seat, .. } if *seat == b => Some(Outcomes::LOSS),
                Outcome::Win { .. } => None,
                Outcome::Draw { seats, .. } => match (seats.contains(&a), seats.contains(&b)) {
                    (true, true) => Some(Outcomes::DRAW),
                    (true, false) => Some(Outcomes::WIN),
                    (false, true) => Some(Outcomes::LOSS),
                    (false, false) => None,
                },
            };
            if let Some(r) = result {
                out.push((a, b, r));
            }
        }
    }
    out
}

/// Each player's rating and rated games so far.
type Table = BTreeMap<String, (Glicko2Rating, usize)>;

/// Each player's rating after every game of `kind`, in the order of `games`; `seen` hears
/// each game's rated players with their rating before and after it.
fn rate(games: &[GameFacts], kind: GameKind, mut seen: impl FnMut(i64, &str, f64, f64)) -> Table {
    let mut table = Table::new();
    for f in games.iter().filter(|f| f.kind == kind) {
        rate_one(&mut table, f, &mut seen);
    }
    table
}

/// `table` moved on by one finished game (none when it has no result or an empty seat).
fn rate_one(table: &mut Table, f: &GameFacts, seen: &mut impl FnMut(i64, &str, f64, f64)) {
    let config = Glicko2Config::new();
    let Some(outcome) = &f.outcome else { return };
    let Some(players) = f.players.iter().cloned().collect::<Option<Vec<String>>>() else {
        return;
    };
    let before: Vec<Glicko2Rating> = players
        .iter()
        .map(|p| table.get(p).map_or_else(Glicko2Rating::new, |(r, _)| *r))
        .collect();
    let mut results: Vec<Vec<(Glicko2Rating, Outcomes)>> = vec![Vec::new(); players.len()];
    for (a, b, r) in pairs(outcome, players.len()) {
        // One player in two seats plays no game against themself.
        if players[a] != players[b] {
            results[a].push((before[b], r));
        }
    }
    for (i, p) in players.iter().enumerate() {
        if results[i].is_empty() {
            continue;
        }
        let after = glicko2_rating_period(&before[i], &results[i], &config);
        seen(f.id, p, before[i].rating, after.rating);
        let entry = table.entry(p.clone()).or_insert((after, 0));
        *entry = (after, entry.1 + 1);
    }
}

/// What the game `g`, just finished, did to its players' ratings (for its game-over mail),
/// each rated player's rating before and after it. Bounded by the game itself: the kind's
/// ratings as they stood before it are kept (`rating_memo`) and moved on by this game alone;
/// only when the memo does not cover every other finished game of the kind (a game brought
/// in, a database from before) are they rebuilt from the games, once.
pub fn change_at_end(
    tx: &Tx,
    g: &crate::gamelog::Loaded,
) -> anyhow::Result<BTreeMap<String, (f64, f64)>> {
    let kind = g.kind();
    let facts = super::stats::facts(g)?;
    let count = tx.finished_count(kind.name())?;
    let kept = tx
        .rating_memo(kind.name())?
        .filter(|(games, _)| *games == count - 1)
        .and_then(|(_, state)| table_from_json(&state));
    let mut table = match kept {
        Some(table) => table,
        None => {
            let mut others = finished_games(tx, kind)?;
            others.retain(|f| f.id != facts.id);
            rate(&others, kind, |_, _, _, _| {})
        }
    };
    let mut out = BTreeMap::new();
    rate_one(&mut table, &facts, &mut |_, player, before, after| {
        out.insert(player.to_string(), (before, after));
    });
    tx.set_rating_memo(kind.name(), count, &table_json(&table))?;
    Ok(out)
}

/// The table as the memo keeps it: each player's [rating, deviation, volatility, games].
fn table_json(table: &Table) -> String {
    let map: serde_json::Map<String, serde_json::Value> = table
        .iter()
        .map(|(p, (r, n))| {
            (
                p.clone(),
                serde_json::json!([r.rating, r.deviation, r.volatility, n]),
            )
        })
        .collect();
    serde_json::Value::Object(map).to_string()
}

/// The memo's table read back (None when it does not read: rebuilt instead).
fn table_from_json(text: &str) -> Option<Table> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let mut table = Table::new();
    for (player, v) in value.as_object()? {
        let num = |i: usize| v.get(i).and_then(serde_json::Value::as_f64);
        let rating = Glicko2Rating {
            rating: num(0)?,
            deviation: num(1)?,
            volatility: num(2)?,
        };
        table.insert(player.clone(), (rating, num(3)? as usize));
    }
    Some(table)
}

/// The ratings of one game kind, best first: every finished game of the kind with a
/// result and every seat played, in the order of `games` (the order they ended).
pub fn ratings(games: &[GameFacts], kind: GameKind) -> Vec<Rated> {
    // What each player is called, as their latest game of the kind shows them.
    let mut shown: BTreeMap<&str, &str> = BTreeMap::new();
    for f in games.iter().filter(|f| f.kind == kind) {
        for (p, s) in f.players.iter().zip(&f.shown) {
            if let (Some(p), Some(s)) = (p, s) {
                shown.insert(p, s);
            }
        }
    }
    let mut out: Vec<Rated> = rate(games, kind, |_, _, _, _| {})
        .into_iter()
        .map(|(player, (r, games))| Rated {
            shown: shown
                .get(player.as_str())
                .map_or_else(|| display_name(&player), |s| s.to_string()),
            player,
            rating: r.rating,
            deviation: r.deviation,
            games,
        })
        .collect();
    out.sort_by(|a, b| b.rating.total_cmp(&a.rating).then(a.shown.cmp(&b.shown)));
    out
}

/// What game `id` did to its players' ratings (for its game-over mail): each rated player
/// with their rating before and after it, as `pbem ratings` computes them (robots included:
/// they are rated, though they get no mail).
pub fn change(games: &[GameFacts], kind: GameKind, id: i64) -> BTreeMap<String, (f64, f64)> {
    let mut out = BTreeMap::new();
    rate(games, kind, |game, player, before, after| {
        if game == id {
            out.insert(player.to_string(), (before, after));
        }
    });
    out
}

/// The finished games of one kind as the ratings read them, in the order they ended (the
/// games in play have no result to rate, and are not replayed).
pub fn finished_games(tx: &Tx, kind: GameKind) -> anyhow::Result<Vec<GameFacts>> {
    let mut out = Vec::new();
    for row in tx.games(Some(GameStatus::Finished))? {
        if row.kind != kind.name() {
            continue;
        }
        out.push(super::stats::facts(&crate::gamelog::load(tx, row.id)?)?);
    }
    out.sort_by_key(|f| (f.last, f.id));
    Ok(out)
}

/// A player's own line in the game-over mail: "Your Dice Rink rating: 1540 -> 1562".
pub fn change_line(kind: GameKind, before: f64, after: f64) -> String {
    format!("Your {} rating: {before:.0} -> {after:.0}", kind.title())
}

/// The ratings as a table, for the GM's terminal and the player's mail.
pub fn report(games: &[GameFacts], kind: GameKind) -> String {
    let rated = ratings(games, kind);
    if rated.is_empty() {
        return format!(
            "No finished {} game is on record yet: nobody is rated.\n",
            kind.title()
        );
    }
    let mut out = format!(
        "{} ratings (Glicko-2, from {} finished games):\n",
        kind.title(),
        games
            .iter()
            .filter(|f| f.kind == kind && f.outcome.is_some())
            .count()
    );
    for (i, r) in rated.iter().enumerate() {
        out.push_str(&format!(
            "{:>3}. {:<24} {:>5.0} (±{:.0}) {} {}\n",
            i + 1,
            r.shown,
            r.rating,
            2.0 * r.deviation,
            r.games,
            if r.games == 1 { "game" } else { "games" }
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_draw_among_some_seats_beats_the_rest() {
        let o = Outcome::Draw {
            seats: vec![0, 1],
            reason: String::new(),
        };
        let p = pairs(&o, 3);
        assert!(p.contains(&(0, 1, Outcomes::DRAW)));
        assert!(p.contains(&(0, 2, Outcomes::WIN)));
        assert!(p.contains(&(2, 1, Outcomes::LOSS)));
    }
}
