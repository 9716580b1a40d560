//! The statistics of the games on record (`pbem stats`, `STATS` by mail): counted from the games as the store has them, written as a postal group's GM would.

mod kept;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use chrono::{DateTime, Utc};

use crate::gamelog::{self, Loaded};
use crate::games::{Actor, Ended, GameKind, Outcome, Why};
use crate::store::{GameStatus, SeatRow, Tx};

pub(crate) use kept::keep;

/// How a game came to an end: the shared ply that ended it (`AnyGame::ended_by`), else its
/// own rules.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Ending {
    /// The game's own goal reached (both dice home, the star square, a line of four, ...).
    WinCondition,
    Resignation,
    /// A player ran out of time (or left).
    Time,
    /// The players agreed a draw.
    Agreement,
    /// The GM declared the game drawn.
    Declared,
    /// No way on: a move cap, a sequence used up, a position nobody can win.
    Impasse,
}

impl Ending {
    /// A game's ending: `by` the shared ply that ended it, when one did, else its own rules
    /// (a draw of theirs is an impasse).
    pub fn of(outcome: &Outcome, by: Option<Ended>) -> Ending {
        match (by, outcome) {
            (Some(Ended::Left(Why::Resigned)), _) => Ending::Resignation,
            (Some(Ended::Left(Why::OutOfTime)), _) => Ending::Time,
            (Some(Ended::Agreed), _) => Ending::Agreement,
            (Some(Ended::Declared), _) => Ending::Declared,
            (None, Outcome::Draw { .. }) => Ending::Impasse,
            (None, Outcome::Win { .. }) => Ending::WinCondition,
        }
    }

    fn words(self) -> &'static str {
        match self {
            Ending::WinCondition => "by the win condition",
            Ending::Resignation => "by resignation",
            Ending::Time => "on time",
            Ending::Agreement => "by agreement",
            Ending::Declared => "declared by the GM",
            Ending::Impasse => "at an impasse",
        }
    }
}

/// Where one game stands, for counting.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Standing {
    InPlay,
    Won { seat: usize, ending: Ending },
    Drawn { ending: Ending },
    Cancelled,
}

/// One game on record, as the statistics and the ratings need it.
#[derive(Debug, Clone)]
pub struct GameFacts {
    pub id: i64,
    pub kind: GameKind,
    /// The `variant` option, when the game has one.
    pub variant: Option<String>,
    pub seat_names: Vec<String>,
    pub standing: Standing,
    /// The outcome itself (for the ratings: a draw among some seats only).
    pub outcome: Option<Outcome>,
    /// Full moves: the seats' plies over the number of seats, rounded up.
    pub moves: usize,
    /// Whole days from the game's creation to its last ply.
    pub days: i64,
    /// When the game was last played (its order for the ratings).
    pub last: DateTime<Utc>,
    /// Each seat's player: an address, `robot:LEVEL`, or None for an empty seat.
    pub players: Vec<Option<String>>,
    /// What each seat's player is called (`names::seat_holder` with names only): never an
    /// address.
    pub shown: Vec<Option<String>>,
}

/// Every game that has begun (open games wait for players and are on no record yet), only
/// of `kind` when given, in the order they were last played.
pub fn games_on_record(tx: &Tx, kind: Option<GameKind>) -> anyhow::Result<Vec<GameFacts>> {
    on_record(tx, kind, |status| status != GameStatus::Open)
}

/// The games of `kind` (every kind when None) whose status `wanted`, in the order they were
/// last played. A finished game is read from the facts kept at its end (`kept`); the rest
/// (in play, or finished before facts were kept) are replayed from their logs, the games
/// of other kinds left out before that, not after.
pub(super) fn on_record(
    tx: &Tx,
    kind: Option<GameKind>,
    wanted: impl Fn(GameStatus) -> bool,
) -> anyhow::Result<Vec<GameFacts>> {
    let kept = tx.finished_facts()?;
    let mut out = Vec::new();
    for row in tx.games(None)? {
        if !wanted(row.status) || kind.is_some_and(|k| k.name() != row.kind) {
            continue;
        }
        let from_kept = match kept.get(&row.id) {
            Some(text) => kept::read(&row, &tx.seats(row.id)?, text),
            None => None,
        };
        out.push(match from_kept {
            Some(f) => f,
            None => facts(&gamelog::load(tx, row.id)?)?,
        });
    }
    out.sort_by_key(|f| (f.last, f.id));
    Ok(out)
}

/// One loaded game's facts.
pub fn facts(g: &Loaded) -> anyhow::Result<GameFacts> {
    let outcome = g.game.outcome();
    let by = g.game.ended_by();
    let standing = match (&outcome, g.row.status) {
        (Some(o @ Outcome::Win { seat, .. }), _) => Standing::Won {
            seat: *seat,
            ending: Ending::of(o, by),
        },
        (Some(o @ Outcome::Draw { .. }), _) => Standing::Drawn {
            ending: Ending::of(o, by),
        },
        (None, GameStatus::Finished) => Standing::Cancelled,
        (None, _) => Standing::InPlay,
    };
    let seats = g.game.seat_names().len().max(1);
    let seat_plies = g
        .plies()?
        .iter()
        .filter(|(a, _)| matches!(a, Actor::Seat(_)))
        .count();
    let last = g.moves.last().map_or(g.row.created_at, |m| m.at);
    let (players, shown) = holders(&g.seats, seats);
    Ok(GameFacts {
        id: g.row.id,
        kind: g.kind(),
        variant: gamelog::options_of(&g.row)?.get("variant").cloned(),
        seat_names: g.game.seat_names().iter().map(|s| s.to_string()).collect(),
        standing,
        outcome,
        moves: seat_plies.div_ceil(seats),
        days: (last - g.row.created_at).num_days(),
        last,
        players,
        shown,
    })
}

/// Who holds each of `seats` seats: the player (an address, `robot:LEVEL`, None for an
/// empty seat) and what they are called (`names::seat_holder` with names only).
type Holders = (Vec<Option<String>>, Vec<Option<String>>);
fn holders(rows: &[SeatRow], seats: usize) -> Holders {
    let mut players = vec![None; seats];
    let mut shown = vec![None; seats];
    for s in rows {
        if let (Some(p), Some(n)) = (players.get_mut(s.seat), shown.get_mut(s.seat)) {
            *p = match (&s.email, &s.robot) {
                (Some(email), _) => Some(email.to_ascii_lowercase()),
                (None, Some(level)) => Some(format!("robot:{level}")),
                (None, None) => None,
            };
            *n = super::names::seat_holder(s, super::names::Reveal::Names);
        }
    }
    (players, shown)
}

/// The statistics of every kind and variant among `games` (only `kind` when given), one
/// paragraph each, and one for each number of seats where a kind's games differ in it (a
/// win is counted by seat); a line saying so when there is none.
pub fn report(games: &[GameFacts], kind: Option<GameKind>) -> String {
    type Key<'a> = (&'a str, Option<&'a str>, usize);
    let mut groups: BTreeMap<Key, Vec<&GameFacts>> = BTreeMap::new();
    for f in games.iter().filter(|f| kind.is_none_or(|k| f.kind == k)) {
        let key = (f.kind.name(), f.variant.as_deref(), f.seat_names.len());
        groups.entry(key).or_default().push(f);
    }
    if groups.is_empty() {
        return match kind {
            Some(k) => format!("No {} game is on record yet.\n", k.title()),
            None => "No game is on record yet.\n".into(),
        };
    }
    let counts_differ = |(name, variant, _): &Key| {
        let same = |(n, v, _): &&Key| (n, v) == (name, variant);
        groups.keys().filter(same).count() > 1
    };
    let paragraphs: Vec<String> = groups
        .iter()
        .map(|(key, g)| paragraph(g, counts_differ(key)))
        .collect();
    paragraphs.join("\n")
}

/// `n thing` or `n things`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// One kind's (and variant's, and number of seats') paragraph; `players`: the title says how
/// many seats.
fn paragraph(games: &[&GameFacts], players: bool) -> String {
    let first = games[0];
    let seats = &first.seat_names;
    let mut about: Vec<String> = first.variant.iter().cloned().collect();
    if players {
        about.push(format!("{} players", seats.len()));
    }
    let title = if about.is_empty() {
        first.kind.title().to_string()
    } else {
        format!("{} ({})", first.kind.title(), about.join(", "))
    };
    let mut wins = vec![0usize; seats.len()];
    let (mut drawn, mut cancelled, mut in_play) = (0, 0, 0);
    let mut endings: BTreeMap<Ending, usize> = BTreeMap::new();
    let mut draw_endings: BTreeMap<Ending, usize> = BTreeMap::new();
    for f in games {
        match &f.standing {
            Standing::Won { seat, ending } => {
                if let Some(w) = wins.get_mut(*seat) {
                    *w += 1;
                }
                *endings.entry(*ending).or_default() += 1;
            }
            Standing::Drawn { ending } => {
                drawn += 1;
                *endings.entry(*ending).or_default() += 1;
                *draw_endings.entry(*ending).or_default() += 1;
            }
            Standing::Cancelled => cancelled += 1,
            Standing::InPlay => in_play += 1,
        }
    }
    let won: usize = wins.iter().sum();
    let decided = won + drawn;
    let mut out = format!(
        "{title}: {} on record: {} won, {drawn} drawn, {cancelled} cancelled, {in_play} in play.\n",
        count(games.len(), "game", "games"),
        won
    );
    if decided > 0 {
        out.push_str(&results_sentence(
            seats,
            &wins,
            drawn,
            &draw_endings,
            decided,
        ));
        let finished: Vec<&&GameFacts> = games
            .iter()
            .filter(|f| matches!(f.standing, Standing::Won { .. } | Standing::Drawn { .. }))
            .collect();
        let moves: Vec<i64> = finished.iter().map(|f| f.moves as i64).collect();
        let days: Vec<i64> = finished.iter().map(|f| f.days).collect();
        let _ = writeln!(
            out,
            "Length: {}, {}.",
            spread(&moves, "move", "moves"),
            spread(&days, "day", "days")
        );
        let how: Vec<String> = endings
            .iter()
            .map(|(e, n)| format!("{n} {}", e.words()))
            .collect();
        let _ = writeln!(out, "How they ended: {}.", how.join(", "));
    }
    out
}

/// "Of the 30 games on record 15 have been wins for the first player (A), 2 draws (agreed)
/// and 13 are wins by the second player (B)." (the seed's sentence); for more seats, the
/// wins of each.
fn results_sentence(
    seats: &[String],
    wins: &[usize],
    drawn: usize,
    draw_endings: &BTreeMap<Ending, usize>,
    decided: usize,
) -> String {
    let draws = match drawn {
        0 => "no draws".to_string(),
        _ => {
            let how: Vec<String> = draw_endings
                .iter()
                .map(|(e, n)| format!("{n} {}", e.words()))
                .collect();
            format!("{} ({})", count(drawn, "draw", "draws"), how.join(", "))
        }
    };
    let lead = format!(
        "Of the {decided} finished {}",
        if decided == 1 { "game" } else { "games" }
    );
    if let ([first, second], [w1, w2]) = (seats, wins) {
        return format!(
            "{lead} {} {} been {} for the first player ({first}), {draws} and {} {} by the second \
             player ({second}).\n",
            w1,
            match *w1 {
                1 => "has",
                _ => "have",
            },
            if *w1 == 1 { "a win" } else { "wins" },
            w2,
            match *w2 {
                1 => "is a win",
                _ => "are wins",
            }
        );
    }
    let per_seat: Vec<String> = seats
        .iter()
        .zip(wins)
        .map(|(s, w)| format!("{s} {w}"))
        .collect();
    format!("{lead}, wins by seat: {}; {draws}.\n", per_seat.join(", "))
}

/// "12 to 51 moves (median 25)", or the one figure when all agree.
fn spread(values: &[i64], one: &str, many: &str) -> String {
    let mut v = values.to_vec();
    v.sort_unstable();
    let (lo, hi) = (v[0], v[v.len() - 1]);
    let median = v[v.len() / 2];
    if lo == hi {
        count(lo as usize, one, many)
    } else {
        format!("{lo} to {hi} {many} (median {median})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn won(seat: usize, ending: Ending) -> GameFacts {
        GameFacts {
            id: 1,
            kind: GameKind::DiceRink,
            variant: None,
            seat_names: vec!["A".into(), "B".into()],
            standing: Standing::Won { seat, ending },
            outcome: None,
            moves: 20,
            days: 3,
            last: DateTime::<Utc>::MIN_UTC,
            players: vec![],
            shown: vec![],
        }
    }

    #[test]
    fn the_seeds_sentence() {
        let mut games: Vec<GameFacts> = (0..15).map(|_| won(0, Ending::WinCondition)).collect();
        games.extend((0..13).map(|_| won(1, Ending::WinCondition)));
        for _ in 0..2 {
            let mut d = won(0, Ending::Agreement);
            d.standing = Standing::Drawn {
                ending: Ending::Agreement,
            };
            games.push(d);
        }
        let text = report(&games, Some(GameKind::DiceRink));
        assert!(
            text.contains(
                "Of the 30 finished games 15 have been wins for the first player (A), 2 draws \
                 (2 by agreement) and 13 are wins by the second player (B)."
            ),
            "{text}"
        );
    }

    #[test]
    fn games_of_a_kind_with_other_seat_counts_are_counted_apart() {
        let game = |seats: &[&str], winner: usize| GameFacts {
            kind: GameKind::Siberian,
            seat_names: seats.iter().map(|s| s.to_string()).collect(),
            ..won(winner, Ending::WinCondition)
        };
        let games = [
            game(&["RED", "BLUE"], 1),
            game(&["RED", "BLUE", "GREEN"], 2),
        ];
        let text = report(&games, None);
        assert_eq!(text.matches(" 1 won, ").count(), 2, "{text}");
        assert!(text.contains("(2 players): 1 game on record"), "{text}");
        assert!(text.contains("(3 players): 1 game on record"), "{text}");
        assert!(text.contains("GREEN 1"), "{text}");
    }

    #[test]
    fn endings_from_the_shared_ply_that_ended_the_game_else_its_rules() {
        let win = Outcome::Win {
            seat: 0,
            reason: "both dice on rank 4".into(),
        };
        let resigned = Some(Ended::Left(Why::Resigned));
        assert_eq!(Ending::of(&win, resigned), Ending::Resignation);
        let timed_out = Some(Ended::Left(Why::OutOfTime));
        assert_eq!(Ending::of(&win, timed_out), Ending::Time);
        assert_eq!(Ending::of(&win, None), Ending::WinCondition);
        let draw = Outcome::Draw {
            seats: vec![0, 1],
            reason: "the move cap of 60 full moves was reached".into(),
        };
        assert_eq!(Ending::of(&draw, Some(Ended::Agreed)), Ending::Agreement);
        assert_eq!(Ending::of(&draw, Some(Ended::Declared)), Ending::Declared);
        assert_eq!(Ending::of(&draw, None), Ending::Impasse);
    }

    /// The ending of a game played: the shared ply that ended it is known by type, whatever
    /// its reason says.
    #[test]
    fn a_played_game_knows_which_shared_ply_ended_it() {
        let options = crate::games::Options::default();
        let mut g = crate::games::AnyGame::new(GameKind::DiceRink, &options).unwrap();
        assert_eq!(g.ended_by(), None);
        g.time_out(1).unwrap();
        let o = g.outcome().unwrap();
        assert_eq!(Ending::of(&o, g.ended_by()), Ending::Time);
        let mut g = crate::games::AnyGame::new(GameKind::DiceRink, &options).unwrap();
        g.declare_draw().unwrap();
        let o = g.outcome().unwrap();
        assert_eq!(Ending::of(&o, g.ended_by()), Ending::Declared);
    }
}
