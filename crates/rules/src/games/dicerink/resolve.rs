//! Matches a ply as written against the position: which die it names, whether it is legal, and the check of its new top.

use super::die::{Dir, Orientation};
use super::legal::{self, Move, SetupRule};
use super::notation::{rotate_text, Written};
use super::position::{front_dir, Die, Position, Square};
use crate::games::PlyError;

/// The move a written ply stands for here, or why it is refused. (`resign` and `draw` never
/// reach a game: `AnyGame` rules on them.)
pub fn resolve(pos: &Position, rule: SetupRule, written: &Written) -> Result<Move, PlyError> {
    let illegal = |e: String| PlyError::Illegal(e);
    match *written {
        Written::Place { square, top, front } => {
            let orient = Orientation::with_top_facing(top, front, front_dir(pos.to_move))
                .map_err(|e| illegal(format!("{}: {e}", written.echo())))?;
            let mv = Move::Place { square, orient };
            legal::check(pos, rule, &mv).map_err(illegal)?;
            Ok(mv)
        }
        Written::Roll {
            square,
            old_top,
            dir,
            new_top,
        } => resolve_roll(pos, rule, written, square, old_top, dir, new_top),
        Written::Rotate {
            square,
            top,
            face,
            facing,
        } => {
            let orient = Orientation::with_top_facing(top, face, facing)
                .map_err(|e| illegal(format!("{}: {e}", written.echo())))?;
            resolve_rotation(pos, rule, square, orient)
        }
        Written::Pass => {
            legal::check(pos, rule, &Move::Pass).map_err(illegal)?;
            Ok(Move::Pass)
        }
    }
}

fn resolve_roll(
    pos: &Position,
    rule: SetupRule,
    written: &Written,
    square: Option<Square>,
    old_top: Option<u8>,
    dir: Dir,
    new_top: Option<u8>,
) -> Result<Move, PlyError> {
    if !legal::setup_done(pos) {
        return Err(PlyError::Illegal(
            legal::check(pos, rule, &Move::Pass)
                .err()
                .unwrap_or_default(),
        ));
    }
    // A die named only by its top is quoted back, so the player sees which die we took.
    let named_by_top = square.is_none() && old_top.is_some();
    let quoted = |e: String| {
        if named_by_top {
            PlyError::Illegal(format!("{}: {e}", written.echo()))
        } else {
            PlyError::Illegal(e)
        }
    };
    let mover_dice: Vec<_> = pos.dice_of(pos.to_move).copied().collect();
    let from = match (square, old_top) {
        (Some(sq), _) => {
            let die = pos
                .die_at(sq)
                .ok_or_else(|| quoted(format!("there is no die on {sq}")))?;
            if let Some(t) = old_top.filter(|&t| t != die.top()) {
                return Err(quoted(format!(
                    "the die on {sq} shows {}, not {t}",
                    die.top()
                )));
            }
            sq
        }
        (None, Some(t)) => match mover_dice.iter().find(|d| d.top() == t) {
            Some(d) => d.square,
            None => {
                let yours: Vec<String> = mover_dice
                    .iter()
                    .map(|d| format!("{} on {}", d.top(), d.square))
                    .collect();
                return Err(quoted(format!(
                    "you have no die showing {t} (yours show {})",
                    yours.join(" and ")
                )));
            }
        },
        (None, None) => match pos.forced {
            Some(f) => f,
            None => the_one_that_rolls(pos, rule, &mover_dice, dir)?,
        },
    };
    let mv = Move::Roll { from, dir };
    // The obligation is the player's real problem, whatever the text: say it plainly.
    if let Some(f) = pos.forced.filter(|&f| f != from) {
        if pos.die_at(from).is_some_and(|d| d.owner == pos.to_move) {
            return Err(PlyError::Illegal(legal::obligation_error(pos, f)));
        }
    }
    legal::check(pos, rule, &mv).map_err(quoted)?;
    if let (Some(want), Ok((_, orient))) = (new_top, legal::roll_result(pos, from, dir)) {
        if orient.top() != want {
            return Err(PlyError::Illegal(format!(
                "{}: rolling {} from {from} turns up {}, not {want}",
                written.echo(),
                dir.name(),
                orient.top()
            )));
        }
    }
    Ok(mv)
}

/// The die a bare direction (`N`) rolls: the mover's only die that can; none or both is an
/// error that says why.
fn the_one_that_rolls(
    pos: &Position,
    rule: SetupRule,
    mover_dice: &[Die],
    dir: Dir,
) -> Result<Square, PlyError> {
    let roll = |d: &Die| Move::Roll {
        from: d.square,
        dir,
    };
    let able: Vec<Move> = mover_dice
        .iter()
        .map(roll)
        .filter(|m| legal::check(pos, rule, m).is_ok())
        .collect();
    match able.as_slice() {
        [Move::Roll { from, .. }] => Ok(from.to_owned()),
        [] => {
            let reasons: Vec<String> = mover_dice
                .iter()
                .filter_map(|d| legal::check(pos, rule, &roll(d)).err())
                .collect();
            Err(PlyError::Illegal(format!(
                "neither of your dice can roll {}: {}",
                dir.name(),
                reasons.join("; ")
            )))
        }
        _ => {
            let texts: Vec<String> = able.iter().map(|m| legal::canonical(pos, m)).collect();
            Err(PlyError::Ambiguous(format!(
                "both your dice can roll {}: write {}",
                dir.name(),
                texts.join(" or ")
            )))
        }
    }
}

fn resolve_rotation(
    pos: &Position,
    rule: SetupRule,
    square: Option<Square>,
    orient: Orientation,
) -> Result<Move, PlyError> {
    if !legal::setup_done(pos) {
        return Err(PlyError::Illegal(
            legal::check(pos, rule, &Move::Pass)
                .err()
                .unwrap_or_default(),
        ));
    }
    let chosen = square.or(pos.forced);
    if let Some(sq) = chosen {
        let mv = Move::Rotate { square: sq, orient };
        legal::check(pos, rule, &mv).map_err(PlyError::Illegal)?;
        return Ok(mv);
    }
    let candidates: Vec<Move> = pos
        .dice_of(pos.to_move)
        .map(|d| Move::Rotate {
            square: d.square,
            orient,
        })
        .collect();
    let (able, refused): (Vec<&Move>, Vec<&Move>) = candidates
        .iter()
        .partition(|m| legal::check(pos, rule, m).is_ok());
    match able.as_slice() {
        [one] => Ok(**one),
        [] => {
            let mut reasons: Vec<String> = refused
                .iter()
                .filter_map(|m| legal::check(pos, rule, m).err())
                .collect();
            reasons.dedup();
            Err(PlyError::Illegal(reasons.join("; ")))
        }
        _ => {
            let texts: Vec<String> = able
                .iter()
                .map(|m| match m {
                    Move::Rotate { square, orient } => rotate_text(Some(*square), *orient),
                    _ => String::new(),
                })
                .collect();
            Err(PlyError::Ambiguous(format!(
                "either of your dice could rotate to {}: write {}",
                rotate_text(None, orient),
                texts.join(" or ")
            )))
        }
    }
}
