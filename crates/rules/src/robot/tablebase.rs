//! The d4 d6 robot's endgame: in a position the 2-men table models, the ply whose value is the table's.
//!
//! The table (`games::d4d6::tablebase`) knows one White and one Black gambling piece in the
//! playing area on an otherwise empty board: their steps, a Gata's die, a Cavalo's promotion
//! and a Rinoceronte's quarter turn before or after the move, a capture winning at once and a
//! piece ending outside the playing area losing. The robot plays the game's own plies (its
//! `legal_plies`, every roll of the die) and judges where they lead by the table, so the ply
//! it picks keeps the table's value exactly: at a declaration the average over the die of the
//! best outcome, after the roll the best outcome. Only exact ties are ties.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use super::rng::Rng;
use crate::games::d4d6::pieces::{Color, Kind};
use crate::games::d4d6::tablebase::{modelled, PieceState, Table};
use crate::games::{Actor, AnyGame, GameRef, Outcome, Seat, ToAct};

/// A table's key: White's kind, Black's kind, the Rinoceronte variant.
type Key = (Kind, Kind, bool);

/// One key's table, solved by whichever thread asks first.
type Cell = Arc<OnceLock<Arc<Table>>>;

/// The tables solved so far in this process, one cell a key. A deterministic cache with no
/// I/O: a table is a pure function of its key, so keeping it changes only how long the first
/// ask takes (a solve takes up to seconds, once per process and key). The map's lock is held
/// only to find a key's cell; the solve runs in the cell, so two keys solve side by side and
/// one key is solved once however many threads ask.
static TABLES: OnceLock<Mutex<HashMap<Key, Cell>>> = OnceLock::new();

/// The solved table for White's `white` kind against Black's `black` kind (it also holds the
/// kinds a Cavalo promotes to), solved on first use and kept for the process.
pub fn endgame_table(white: Kind, black: Kind, rinoceronte: bool) -> Arc<Table> {
    let key = (white, black, rinoceronte);
    let cell = {
        let mut map = TABLES
            .get_or_init(Mutex::default)
            .lock()
            // Nothing can panic while the map is held; a poisoned map is still whole.
            .unwrap_or_else(|e| e.into_inner());
        Arc::clone(map.entry(key).or_default())
    };
    Arc::clone(cell.get_or_init(|| Arc::new(Table::solve(white, black, rinoceronte))))
}

/// The ply the table picks for `me`, to move in `game`; None when the position is not one the
/// table models (or not d4 d6), and the search decides. Draws from `rng` only to choose among
/// exactly equal plies, and only when it answers.
pub(super) fn best_ply(game: &AnyGame, me: Seat, rng: &mut Rng) -> Option<String> {
    let GameRef::D4D6(d4d6) = game.game() else {
        return None;
    };
    let rinoceronte = d4d6.rinoceronte();
    let (white, black) = modelled(d4d6.position(), rinoceronte)?;
    let table = endgame_table(white.kind, black.kind, rinoceronte);
    let judge = Judge {
        table: &table,
        mover: me,
    };
    let plies = game.legal_plies();
    let values = judge.plies(game, &plies)?;
    let best = judge.best(values.iter().copied())?;
    let ties: Vec<usize> = (0..plies.len()).filter(|&i| values[i] == best).collect();
    Some(plies[ties[rng.below(ties.len())]].clone())
}

/// Values positions from White's view by the table, the turn of `mover` played out.
struct Judge<'a> {
    table: &'a Table,
    mover: Seat,
}

impl Judge<'_> {
    /// The values of these plies of the mover. Plies that differ only in the waiting square
    /// they send a Cavalo to (`@b7`: a promoted one, or a captured one) are worth the same,
    /// as the table knows no waiting area; so one of them is played out for all (a promotion
    /// has up to sixteen squares to send its Cavalo to). Not a promotion to a Rinoceronte
    /// before the move: that Rinoceronte steps this turn, where the Cavalo waits.
    fn plies(&self, game: &AnyGame, plies: &[String]) -> Option<Vec<f64>> {
        let mut seen: HashMap<String, f64> = HashMap::new();
        let mut values = Vec::with_capacity(plies.len());
        for ply in plies {
            let key = waiting_blind(ply);
            let known = key.as_ref().and_then(|k| seen.get(k).copied());
            let value = match known {
                Some(v) => v,
                None => self.ply(game, ply)?,
            };
            if let Some(k) = key {
                seen.insert(k, value);
            }
            values.push(value);
        }
        Some(values)
    }

    /// The value of playing `ply` for the mover in `game` (mid-turn).
    fn ply(&self, game: &AnyGame, ply: &str) -> Option<f64> {
        let mut child = game.clone();
        child.play(Actor::Seat(self.mover), ply).ok()?;
        self.node(&child)
    }

    /// A position within the mover's turn: the roll averaged, the mover's next ply (after a
    /// special before the declaration, or after the roll) its best; once the turn is over or
    /// the game ended, the position's own value.
    fn node(&self, game: &AnyGame) -> Option<f64> {
        if game.outcome().is_some() {
            return self.leaf(game);
        }
        match game.to_act() {
            ToAct::Chance(sides) => {
                let [die] = sides[..] else {
                    return None;
                };
                // Summed in the roll's order and divided once, as the table does.
                let mut total = 0.0;
                for roll in 1..=die {
                    let mut child = game.clone();
                    child.play(Actor::Chance, &game.chance_ply(&[roll])).ok()?;
                    total += self.node(&child)?;
                }
                Some(total / f64::from(die))
            }
            ToAct::Seat(s) if s == self.mover => {
                let values = self.plies(game, &game.legal_plies())?;
                self.best(values.into_iter())
            }
            ToAct::Seat(_) => self.leaf(game),
            ToAct::Orders(_) | ToAct::Nobody => None,
        }
    }

    /// A position between turns: a win counts 1 for White and -1 for Black; otherwise the
    /// table's value, which knows no move clock (a draw by the clock is valued as the table
    /// values the pieces, so that the ply chosen keeps the table's value).
    fn leaf(&self, game: &AnyGame) -> Option<f64> {
        match game.outcome() {
            Some(Outcome::Win { seat, .. }) if seat == Color::White.index() => return Some(1.0),
            Some(Outcome::Win { .. }) => return Some(-1.0),
            Some(Outcome::Draw { .. }) | None => {}
        }
        let GameRef::D4D6(d4d6) = game.game() else {
            return None;
        };
        let pos = d4d6.position();
        let piece_of = |color: Color| {
            let mut pieces = pos
                .squares_of(color)
                .filter(|(s, p)| s.is_playing() && p.kind.is_gambling());
            let (sq, piece) = pieces.next()?;
            pieces.next().is_none().then_some(PieceState {
                kind: piece.kind,
                sq,
                facing: piece.facing,
            })
        };
        let white_to_move = pos.to_move == Color::White;
        self.table.try_value(
            piece_of(Color::White)?,
            piece_of(Color::Black)?,
            white_to_move,
        )
    }

    /// The mover's best of these values (White's view): the highest for White, the lowest for
    /// Black; None for none.
    fn best(&self, values: impl Iterator<Item = f64>) -> Option<f64> {
        let white = self.mover == Color::White.index();
        values.reduce(|a, b| if white { a.max(b) } else { a.min(b) })
    }
}

/// The ply without its waiting squares (`@b7`), when where a Cavalo waits cannot change what
/// the table makes of the ply; None for a promotion to a Rinoceronte before the move (the
/// only ply with a special alone starting `Ca` and making a Rinoceronte).
fn waiting_blind(ply: &str) -> Option<String> {
    if !ply.contains('@') {
        return None;
    }
    if ply.starts_with("Ca") && !ply.contains(';') && ply.contains("=Ri") {
        return None;
    }
    let mut out = String::with_capacity(ply.len());
    let mut skip = 0;
    for c in ply.chars() {
        if c == '@' {
            // The square after it: two characters.
            skip = 2;
        } else if skip > 0 {
            skip -= 1;
        } else {
            out.push(c);
        }
    }
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plies_differing_in_a_waiting_square_are_one() {
        let blind = |p: &str| waiting_blind(p);
        assert_eq!(blind("Caa4=Go@g8"), Some("Caa4=Go".into()));
        assert_eq!(
            blind("a4-a3/E;Caa3=Ri/NE@b7"),
            Some("a4-a3/E;Caa3=Ri/NE".into())
        );
        assert_eq!(blind("c5xd8@h8"), Some("c5xd8".into()));
        assert_eq!(blind("Caa4=Ri/NE@b7"), None);
        assert_eq!(blind("Goc5"), None);
    }
}
