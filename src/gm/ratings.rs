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

/// A kind's ratings as they stand, best first, and how many finished games with a result
/// they come from.
#[derive(Debug, Clone)]
pub struct Standings {
    pub rated: Vec<Rated>,
    pub games: usize,
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

/// A kind's ratings after so many games: the table, and how many of the games had a result
/// (the rest were cancelled). What `rating_memo` keeps.
#[derive(Debug, Default)]
struct Memo {
    table: Table,
    results: usize,
}

/// The ratings after every game of `kind`, in the order of `games`.
fn rate(games: &[GameFacts], kind: GameKind) -> Memo {
    let mut memo = Memo::default();
    for f in games.iter().filter(|f| f.kind == kind) {
        memo.results += usize::from(f.outcome.is_some());
        rate_one(&mut memo.table, f, &mut |_, _, _| {});
    }
    memo
}

/// `table` moved on by one finished game (none when it has no result or an empty seat).
fn rate_one(table: &mut Table, f: &GameFacts, seen: &mut impl FnMut(&str, f64, f64)) {
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
        seen(p, before[i].rating, after.rating);
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
    let mut memo = match kept(tx, kind, count - 1)? {
        Some(memo) => memo,
        None => {
            let mut others = finished_games(tx, kind)?;
            others.retain(|f| f.id != facts.id);
            rate(&others, kind)
        }
    };
    let mut out = BTreeMap::new();
    memo.results += usize::from(facts.outcome.is_some());
    rate_one(&mut memo.table, &facts, &mut |player, before, after| {
        out.insert(player.to_string(), (before, after));
    });
    tx.set_rating_memo(kind.name(), count, &memo_json(&memo))?;
    Ok(out)
}

/// The kind's ratings as `rating_memo` keeps them, when the memo covers `games` finished
/// games (None when it covers other games, or does not read: they are rebuilt instead).
fn kept(tx: &Tx, kind: GameKind, games: i64) -> anyhow::Result<Option<Memo>> {
    Ok(tx
        .rating_memo(kind.name())?
        .filter(|(covered, _)| *covered == games)
        .and_then(|(_, state)| memo_from_json(&state)))
}

/// The memo as it is kept: the games with a result, and each player's [rating, deviation,
/// volatility, games].
fn memo_json(memo: &Memo) -> String {
    let players: serde_json::Map<String, serde_json::Value> = memo
        .table
        .iter()
        .map(|(p, (r, n))| {
            (
                p.clone(),
                serde_json::json!([r.rating, r.deviation, r.volatility, n]),
            )
        })
        .collect();
    serde_json::json!({ "results": memo.results, "players": players }).to_string()
}

/// The memo read back (None when it does not read: rebuilt instead).
fn memo_from_json(text: &str) -> Option<Memo> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let mut table = Table::new();
    for (player, v) in value.get("players")?.as_object()? {
        let num = |i: usize| v.get(i).and_then(serde_json::Value::as_f64);
        let rating = Glicko2Rating {
            rating: num(0)?,
            deviation: num(1)?,
            volatility: num(2)?,
        };
        table.insert(player.clone(), (rating, num(3)? as usize));
    }
    let results = value.get("results")?.as_u64()? as usize;
    Some(Memo { table, results })
}

/// The ratings of one game kind as they stand now: from `rating_memo` when it covers every
/// finished game of the kind (no game is replayed, however many are on record), else from
/// the finished games replayed (the games in play are not). Players are shown by their
/// names as they are now.
pub fn standings(tx: &Tx, kind: GameKind) -> anyhow::Result<Standings> {
    let memo = match kept(tx, kind, tx.finished_count(kind.name())?)? {
        Some(memo) => memo,
        None => rate(&finished_games(tx, kind)?, kind),
    };
    let names = super::names::Names::load(tx)?;
    Ok(ranked(memo, |p| names.of(p)))
}

/// The memo's players as `Rated`, best first, each shown as `shown` says.
fn ranked(memo: Memo, shown: impl Fn(&str) -> String) -> Standings {
    let mut rated: Vec<Rated> = memo
        .table
        .into_iter()
        .map(|(player, (r, games))| Rated {
            shown: shown(&player),
            player,
            rating: r.rating,
            deviation: r.deviation,
            games,
        })
        .collect();
    rated.sort_by(|a, b| b.rating.total_cmp(&a.rating).then(a.shown.cmp(&b.shown)));
    Standings {
        rated,
        games: memo.results,
    }
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
    let memo = rate(games, kind);
    ranked(memo, |p| {
        shown
            .get(p)
            .map_or_else(|| super::names::fallback(p), |s| s.to_string())
    })
    .rated
}

/// The finished games of one kind as the ratings read them, in the order they ended (the
/// games in play have no result to rate, and are not read).
pub fn finished_games(tx: &Tx, kind: GameKind) -> anyhow::Result<Vec<GameFacts>> {
    super::stats::on_record(tx, Some(kind), |status| status == GameStatus::Finished)
}

/// A player's own line in the game-over mail: "Your Dice Rink rating: 1540 -> 1562".
pub fn change_line(kind: GameKind, before: f64, after: f64) -> String {
    format!("Your {} rating: {before:.0} -> {after:.0}", kind.title())
}

/// The ratings as a table, for the GM's terminal and the player's mail.
pub fn report(standings: &Standings, kind: GameKind) -> String {
    let rated = &standings.rated;
    if rated.is_empty() {
        return format!(
            "No finished {} game is on record yet: nobody is rated.\n",
            kind.title()
        );
    }
    let mut out = format!(
        "{} ratings (Glicko-2, from {} finished games):\n",
        kind.title(),
        standings.games
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
