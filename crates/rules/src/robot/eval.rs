//! The robot's judgement of a position no search has ended: per game, the few features that win it, squashed into (-1, 1) from the robot's seat.

use super::siberian as siberian_search;
use crate::games::d4d6::pieces::{Color, Kind};
use crate::games::{d4d6, dicerink, dicess, siberian, AnyGame, GameRef, Seat};

/// How good `game` looks for `me`: above 0 better for `me`, in (-1, 1) so that any ended game
/// (1 or -1) counts for more than any judgement.
pub(super) fn evaluate(game: &AnyGame, me: Seat) -> f64 {
    let raw = match game.game() {
        GameRef::DiceRink(g) => dice_rink(g, me),
        GameRef::D4D6(g) => d4d6_material(g, me),
        GameRef::Dicess(g) => dicess_material(g, me),
        GameRef::Siberian(g) => siberian_perfection(g, me),
        GameRef::DipTacToe(_) => 0.0,
    };
    0.95 * raw.tanh()
}

/// Dice Rink, judged on its position (the search's own plies have no game around them).
fn dice_rink(g: &dicerink::DiceRink, me: Seat) -> f64 {
    dice_rink_position(g.position(), me)
}

/// Dice Rink is a race: the ranks each side's dice still have to go to the far rank, how
/// free each side's dice are to roll (a die that cannot roll is held back until the other
/// side lets it go), and the tempo a die forced to answer a match loses. Unsquashed: the
/// callers squash it.
pub(super) fn dice_rink_position(pos: &dicerink::position::Position, me: Seat) -> f64 {
    let mut score = 0.0;
    for die in pos.dice() {
        let goal = dicerink::position::goal_rank(die.owner);
        let to_go = f64::from(goal.abs_diff(die.square.rank()));
        // The last rank to go is worth the most: a die home is half the win.
        let value = -(to_go * to_go * 0.5 + to_go);
        // The robot's own progress counts for more than holding the other back: holding back
        // alone can hold both sides in a cycle, and a game nobody wins is worth little.
        score += if die.owner == me { value } else { -0.6 * value };
    }
    if let Some(sq) = pos.forced {
        let forced_owner = pos.die_at(sq).map(|d| d.owner);
        score += if forced_owner == Some(me) {
            -0.05
        } else {
            0.05
        };
    }
    score / 8.0
}

/// The worth of a d4 d6 chess piece in play (the Gato included: a side loses with no gambling
/// piece in the playing area, so every gambler counts; the Gata's two dice make it the best).
fn d4d6_worth(kind: Kind) -> f64 {
    match kind {
        Kind::Gata => 5.0,
        Kind::Rinoceronte => 4.5,
        Kind::Formiga => 4.0,
        Kind::Cavalo => 3.0,
        Kind::Rato => 3.0,
        Kind::Gato => 3.5,
        Kind::Guarda => 1.5,
    }
}

/// Material in the playing area, each side's gamblers counted with their worth.
fn d4d6_material(g: &d4d6::D4d6, me: Seat) -> f64 {
    let pos = g.position();
    let mut score = 0.0;
    for color in [Color::White, Color::Black] {
        let sign = if color.index() == me { 1.0 } else { -1.0 };
        for (sq, piece) in pos.squares_of(color) {
            if sq.is_playing() {
                score += sign * d4d6_worth(piece.kind);
            }
        }
    }
    score / 10.0
}

/// Dicess: the seed's score (10 a die plus its row: material and advance), the numbers on the
/// dice (strength to capture), the fastest die's points to a star square, the guard of the own
/// star squares, and a die that reaches a star square this turn (judged with whose turn it is).
fn dicess_material(g: &dicess::Dicess, me: Seat) -> f64 {
    use crate::games::{Rules, ToAct};
    let to_move = matches!(g.to_act(), ToAct::Seat(s) if s == me);
    let cells = super::dicess::cells(g.position(), me);
    super::dicess::judge(&cells, me, to_move) / 30.0
}

/// Siberian Dice: the robot's perfect dice against the best of the others', toward the target.
fn siberian_perfection(g: &siberian::Siberian, me: Seat) -> f64 {
    let counts = g.perfect_counts();
    let mine = counts.get(me).copied().unwrap_or(0) as f64;
    let best_other = counts
        .iter()
        .enumerate()
        .filter(|(s, _)| *s != me)
        .map(|(_, c)| *c)
        .max()
        .unwrap_or(0) as f64;
    let target = g.config().target as f64;
    // Nearer the target each perfect die matters more.
    let weight = |c: f64| c + c * c / target;
    (weight(mine) - weight(best_other)) / target
}

/// Siberian Dice for the normal and strong robots, on the search's compact board: each seat's
/// perfect dice, those nobody else can break (no vacant neighbour to be filled, no other
/// seat's neighbour to be lifted), the dice one neighbour from perfect, and for the seat to
/// move the chance that its next die finds a hex where it is perfect at once. Nearer the
/// target each counts for more.
pub(super) fn siberian_board(
    b: &siberian_search::Lite,
    ctx: &siberian_search::Ctx,
    to_move: Seat,
    pips: Option<u8>,
) -> f64 {
    let mut worth = [0.0f64; 3];
    let mut spots = 0u32;
    for i in 0..siberian::hex::HEXES {
        if b.vacant(i) {
            spots |= 1 << b.filled[i];
            continue;
        }
        let seat = usize::from(b.owner[i]);
        let (p, n) = (b.pips[i], b.filled[i]);
        let own = b.by_seat[seat][i];
        let vacant = siberian_search::neighbours(i).len() as u8 - n;
        let foreign = n - own;
        worth[seat] += if p == n {
            if vacant == 0 && foreign == 0 {
                SIB_SECURE
            } else {
                1.0
            }
        } else if p == n + 1 && vacant > 0 {
            SIB_NEAR
        } else if n == p + 1 && own > 0 {
            SIB_NEAR / 2.0
        } else {
            0.0
        };
    }
    let chance = match pips {
        Some(p) => f64::from(spots >> p & 1),
        None => f64::from((spots & 0b111_1110).count_ones()) / 6.0,
    };
    worth[to_move] += SIB_TEMPO * chance;
    let target = ctx.target as f64;
    let weight = |c: f64| c + c * c / target;
    let best_other = (0..ctx.players)
        .filter(|&s| s != ctx.me && ctx.playing[s])
        .map(|s| weight(worth[s]))
        .fold(0.0, f64::max);
    0.95 * (1.5 * (weight(worth[ctx.me]) - best_other) / target).tanh()
}

/// A perfect die nobody else can break, against 1 for any perfect die.
const SIB_SECURE: f64 = 1.5;
/// A die one neighbour from perfect.
const SIB_NEAR: f64 = 0.3;
/// The seat to move, by its chance of a die perfect at once.
const SIB_TEMPO: f64 = 0.6;
