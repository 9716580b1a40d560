//! Legal plies: set-up placements, rolls, rotations, the forced-move obligation and passing, each refusal with its reason.

use super::die::{Dir, Orientation};
use super::notation::{place_text, roll_text, rotate_text};
use super::position::{home_rank, opponent, Die, Position, Square, SEAT_NAMES};
use crate::games::Seat;

/// A ply resolved against a position (resign and draw are not moves and live in `mod.rs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Move {
    /// A set-up placement.
    Place { square: Square, orient: Orientation },
    /// Tip the die on `from` over to the neighbouring square toward `dir`.
    Roll { from: Square, dir: Dir },
    /// Lift the die on `square` and set it down again showing another top.
    Rotate { square: Square, orient: Orientation },
    /// Nothing else is legal.
    Pass,
}

/// How the game was set up: each side places freely on its home rank, or only on b and c.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SetupRule {
    Free,
    Fixed,
}

/// Both sides have placed both dice.
pub fn setup_done(pos: &Position) -> bool {
    pos.dice().len() == 4
}

/// The squares a seat may place on under this set-up rule.
pub fn setup_squares(seat: Seat, rule: SetupRule) -> Vec<Square> {
    let files: &[u8] = match rule {
        SetupRule::Free => &[0, 1, 2, 3],
        SetupRule::Fixed => &[1, 2],
    };
    files
        .iter()
        .filter_map(|&f| Square::new(f, home_rank(seat)))
        .collect()
}

/// Why a placement is refused, if it is.
pub fn check_place(
    pos: &Position,
    rule: SetupRule,
    square: Square,
    orient: Orientation,
) -> Result<(), String> {
    let seat = pos.to_move;
    let allowed = setup_squares(seat, rule);
    if !allowed.contains(&square) {
        let names: Vec<String> = allowed.iter().map(Square::to_string).collect();
        return Err(match rule {
            SetupRule::Free => format!(
                "{square} is not on your home rank: {} places on rank {}",
                SEAT_NAMES[seat],
                home_rank(seat) + 1
            ),
            SetupRule::Fixed => format!(
                "with the fixed set-up {} places only on {}",
                SEAT_NAMES[seat],
                names.join(" and ")
            ),
        });
    }
    if let Some(d) = pos.die_at(square) {
        return Err(format!(
            "{square} already holds {}'s die",
            SEAT_NAMES[d.owner]
        ));
    }
    if let Some(d) = pos.dice().iter().find(|d| d.value() == orient.value()) {
        let whose = if d.owner == seat {
            "your".to_string()
        } else {
            format!("{}'s", SEAT_NAMES[d.owner])
        };
        return Err(format!(
            "a top of {} would repeat the value of {whose} die on {} ({}): the four tops must \
             show four different values (low 1-2, high 4-5, 3, 6)",
            orient.top(),
            d.square,
            d.top()
        ));
    }
    Ok(())
}

/// Every legal placement for the side to place.
pub fn placements(pos: &Position, rule: SetupRule) -> Vec<Move> {
    // `check_place`'s tests without the words of its refusals, which it would write for
    // each of the many placements refused (the forced-move test lists these at every ply
    // of the set-up): on a set-up square, an empty one, a top no die on the board shows.
    let tops: Vec<_> = pos.dice().iter().map(|d| d.value()).collect();
    let mut moves = Vec::new();
    for square in setup_squares(pos.to_move, rule) {
        if pos.die_at(square).is_some() {
            continue;
        }
        for orient in Orientation::all() {
            let legal = !tops.contains(&orient.value());
            debug_assert_eq!(legal, check_place(pos, rule, square, orient).is_ok());
            if legal {
                moves.push(Move::Place { square, orient });
            }
        }
    }
    moves
}

/// Where the die on `from` lands and how, if it can roll toward `dir` (ignoring the
/// obligation, which `check` handles).
pub fn roll_result(
    pos: &Position,
    from: Square,
    dir: Dir,
) -> Result<(Square, Orientation), String> {
    let Some(die) = pos.die_at(from) else {
        return Err(format!("there is no die on {from}"));
    };
    let cannot = format!("the die on {from} cannot roll {}", dir.name());
    let Some(to) = from.step(dir) else {
        return Err(format!("{cannot}: off the board"));
    };
    if let Some(blocker) = pos.die_at(to) {
        return Err(format!(
            "{cannot}: {to} is taken by {}'s die",
            SEAT_NAMES[blocker.owner]
        ));
    }
    let orient = die.orient.rolled(dir);
    check_own_value(pos, die, orient).map_err(|e| format!("{cannot}: {e}"))?;
    Ok((to, orient))
}

/// The own-dice rule: a player's two dice never show the same value.
fn check_own_value(pos: &Position, die: &Die, orient: Orientation) -> Result<(), String> {
    match pos.other_die(die.owner, die.square) {
        Some(other) if other.value() == orient.value() => Err(format!(
            "{} would match your other die ({})",
            orient.top(),
            other.top()
        )),
        _ => Ok(()),
    }
}

/// Whether the own-dice rule lets `die` show `orient`: `check_own_value`'s test without the
/// words of its refusal.
fn own_value_free(pos: &Position, die: &Die, orient: Orientation) -> bool {
    pos.other_die(die.owner, die.square)
        .is_none_or(|other| other.value() != orient.value())
}

/// Where `die` lands and how, if it may roll toward `dir` (obligation aside): `roll_result`'s
/// tests without the words of its refusals, which it would write for each roll refused. The
/// move lists and `apply` ask at every ply, and the robot's search at every node.
fn roll_to(pos: &Position, die: &Die, dir: Dir) -> Option<(Square, Orientation)> {
    let to = die
        .square
        .step(dir)
        .filter(|&to| pos.die_at(to).is_none())?;
    let orient = die.orient.rolled(dir);
    let found = own_value_free(pos, die, orient).then_some((to, orient));
    debug_assert_eq!(found, roll_result(pos, die.square, dir).ok());
    found
}

/// Why the die on `square` may not be rotated to `orient` (rotation permission aside).
pub fn rotation_result(pos: &Position, square: Square, orient: Orientation) -> Result<(), String> {
    let Some(die) = pos.die_at(square) else {
        return Err(format!("there is no die on {square}"));
    };
    if orient.top() == die.top() {
        return Err(format!(
            "a rotation must change the top: the die on {square} already shows {}",
            die.top()
        ));
    }
    check_own_value(pos, die, orient)
        .map_err(|e| format!("the die on {square} cannot rotate to {}: {e}", orient.top()))
}

/// The rotations open to the die on `square`, permission aside (`rotation_result`'s tests
/// without its words).
pub fn rotations_of(pos: &Position, square: Square) -> Vec<Move> {
    let Some(die) = pos.die_at(square) else {
        return Vec::new();
    };
    Orientation::all()
        .into_iter()
        .filter(|&orient| {
            let open = orient.top() != die.top() && own_value_free(pos, die, orient);
            debug_assert_eq!(open, rotation_result(pos, square, orient).is_ok());
            open
        })
        .map(|orient| Move::Rotate { square, orient })
        .collect()
}

/// The opposing die the forced die matches, for messages.
fn matched_die(pos: &Position, forced: Square) -> Option<&Die> {
    let value = pos.die_at(forced)?.value();
    pos.dice_of(opponent(pos.to_move))
        .find(|d| d.value() == value)
}

/// "you must move the die on d4: it matches your opponent's 5"
pub fn obligation_error(pos: &Position, forced: Square) -> String {
    match matched_die(pos, forced) {
        Some(m) => format!(
            "you must move the die on {forced}: it matches your opponent's {}",
            m.top()
        ),
        None => format!("you must move the die on {forced}"),
    }
}

/// The mover's legal rolls: of the forced die only, or of either die (into one list: the
/// robot's search asks at every node).
fn mover_rolls(pos: &Position) -> Vec<Move> {
    let mut out = Vec::new();
    for die in pos.dice_of(pos.to_move) {
        if pos.forced.is_some_and(|f| f != die.square) {
            continue;
        }
        for dir in Dir::ALL {
            if roll_to(pos, die, dir).is_some() {
                out.push(Move::Roll {
                    from: die.square,
                    dir,
                });
            }
        }
    }
    out
}

/// Whether the die on `square` may rotate now: the forced die when it cannot roll, or either
/// die when there is no obligation and no legal roll at all.
pub fn rotation_permitted(pos: &Position, square: Square) -> Result<(), String> {
    if let Some(f) = pos.forced {
        if f != square {
            return Err(obligation_error(pos, f));
        }
    }
    let rolls = mover_rolls(pos);
    if rolls.is_empty() {
        return Ok(());
    }
    let examples = list(pos, &rolls);
    Err(match pos.forced {
        Some(f) => format!(
            "the die on {f} can roll ({examples}), so it may not rotate: a die rotates only \
             when it cannot roll"
        ),
        None => {
            format!("you may rotate only when neither die can roll, and you can roll ({examples})")
        }
    })
}

/// A few moves in canonical notation, for messages.
fn list(pos: &Position, moves: &[Move]) -> String {
    let texts: Vec<String> = moves.iter().take(4).map(|m| canonical(pos, m)).collect();
    let more = if moves.len() > 4 { ", ..." } else { "" };
    format!("{}{more}", texts.join(", "))
}

/// Every legal move for the side to move (placements during set-up); `[Pass]` when nothing
/// else is legal. Writes no words (the refusals' checks are asked only in debug builds, to
/// hold the two to the same rules): the robot's search lists the moves at every node.
pub fn legal_moves(pos: &Position, rule: SetupRule) -> Vec<Move> {
    if !setup_done(pos) {
        return placements(pos, rule);
    }
    let rolls = mover_rolls(pos);
    if !rolls.is_empty() {
        return rolls;
    }
    let rotating: Vec<Square> = match pos.forced {
        Some(f) => vec![f],
        None => pos.dice_of(pos.to_move).map(|d| d.square).collect(),
    };
    let rotations: Vec<Move> = rotating
        .into_iter()
        .flat_map(|sq| rotations_of(pos, sq))
        .collect();
    if rotations.is_empty() {
        vec![Move::Pass]
    } else {
        rotations
    }
}

/// Why a move is refused in this position, if it is.
pub fn check(pos: &Position, rule: SetupRule, mv: &Move) -> Result<(), String> {
    let seat = pos.to_move;
    let in_setup = !setup_done(pos);
    match *mv {
        Move::Place { square, orient } => {
            if !in_setup {
                return Err("the set-up is over: dice are placed only at the start".into());
            }
            check_place(pos, rule, square, orient)
        }
        _ if in_setup => Err(format!(
            "the set-up is not finished: {} places a die on rank {} first (e.g. {})",
            SEAT_NAMES[seat],
            home_rank(seat) + 1,
            placements(pos, rule)
                .first()
                .map(|m| canonical(pos, m))
                .unwrap_or_default()
        )),
        Move::Roll { from, dir } => {
            own_die(pos, from)?;
            if let Some(f) = pos.forced {
                if f != from {
                    return Err(obligation_error(pos, f));
                }
            }
            roll_result(pos, from, dir).map(|_| ())
        }
        Move::Rotate { square, orient } => {
            own_die(pos, square)?;
            rotation_permitted(pos, square)?;
            rotation_result(pos, square, orient)
        }
        Move::Pass => {
            let moves = legal_moves(pos, rule);
            if moves == [Move::Pass] {
                Ok(())
            } else {
                Err(format!(
                    "you cannot pass while you have a legal move ({})",
                    list(pos, &moves)
                ))
            }
        }
    }
}

/// The die on `square` must be the mover's.
fn own_die(pos: &Position, square: Square) -> Result<&Die, String> {
    match pos.die_at(square) {
        None => Err(format!("there is no die on {square}")),
        Some(d) if d.owner != pos.to_move => Err(format!(
            "the die on {square} is {}'s, not yours",
            SEAT_NAMES[d.owner]
        )),
        Some(d) => Ok(d),
    }
}

/// The position after a legal move: the turn passes, and the die just moved forces the
/// opposing die of the same value, if any. The move must have passed `check` (or come from
/// `legal_moves`). Writes no words: the robot's search applies a move at every node.
pub fn apply(pos: &Position, mv: &Move) -> Position {
    let mut next = pos.clone();
    let mover = pos.to_move;
    next.to_move = opponent(mover);
    next.forced = None;
    let moved = match *mv {
        Move::Place { square, orient } => {
            next.place(Die {
                owner: mover,
                square,
                orient,
            });
            // Placements never create obligations: play starts with a free move.
            None
        }
        Move::Roll { from, dir } => {
            pos.die_at(from)
                .and_then(|die| roll_to(pos, die, dir))
                .map(|(to, orient)| {
                    next.relocate(from, to, orient);
                    orient
                })
        }
        Move::Rotate { square, orient } => {
            next.relocate(square, square, orient);
            Some(orient)
        }
        Move::Pass => None,
    };
    if let Some(orient) = moved {
        let matched = next
            .dice_of(next.to_move)
            .find(|d| d.value() == orient.value())
            .map(|d| d.square);
        next.forced = matched;
    }
    next
}

/// The canonical text of a legal move in this position (`5W6`, `R6(2N)` or `b1 R6(2N)` when
/// either die could make that rotation, `b1 5/4`, `pass`).
pub fn canonical(pos: &Position, mv: &Move) -> String {
    match *mv {
        Move::Place { square, orient } => {
            let front = Die {
                owner: pos.to_move,
                square,
                orient,
            }
            .front();
            place_text(square, orient.top(), front)
        }
        Move::Roll { from, dir } => {
            let old = pos.die_at(from).map(Die::top).unwrap_or(0);
            let new = pos
                .die_at(from)
                .map(|d| d.orient.rolled(dir).top())
                .unwrap_or(0);
            roll_text(old, dir, new)
        }
        Move::Rotate { square, orient } => {
            let other_could = pos.other_die(pos.to_move, square).is_some_and(|other| {
                rotation_permitted(pos, other.square).is_ok()
                    && rotation_result(pos, other.square, orient).is_ok()
            });
            rotate_text(other_could.then_some(square), orient)
        }
        Move::Pass => "pass".into(),
    }
}
