//! Refusals that name the rule: why no piece, move or special move fits what a player wrote, then at most a short list of what is legal.
//!
//! A refusal that only lists what is legal leaves the player to guess what was wrong (71 Guarda
//! moves for a Rinoceronte turned 180 degrees); each refusal here says the rule first.

use super::board::{Dir, Sq};
use super::notation::{Choice, ChoiceText, DeclarationText};
use super::pieces::{Color, Kind, Piece};
use super::position::Position;
use super::specials::Special;
use crate::games::PlyError;

/// The longest list of legal plies a refusal shows; a longer one is only counted (MOVES
/// lists it).
const SHORT: usize = 8;

/// `why`, then the legal plies when they are few, else how many there are.
fn refuse(why: String, legal: &[String], what: &str) -> PlyError {
    let tail = match legal.len() {
        0 => String::new(),
        n if n <= SHORT => format!("; legal: {}", legal.join(", ")),
        n => format!("; {n} {what} are legal (send MOVES for the list)"),
    };
    PlyError::Illegal(format!("{why}{tail}"))
}

/// `1 step`, `3 steps`.
fn count_steps(n: u32) -> String {
    format!("{n} step{}", if n == 1 { "" } else { "s" })
}

/// How each gambling piece steps, in the seed's words, for a move that cannot be made.
fn steps_of(kind: Kind) -> &'static str {
    match kind {
        Kind::Rato => "single diagonal steps",
        Kind::Formiga => "single orthogonal steps",
        Kind::Gata => "orthogonal or diagonal steps, not both in one move (orthogonal on a 5 or 6)",
        Kind::Cavalo => "steps straight ahead, capturing with a last diagonal step",
        Kind::Gato => "knight steps through empty squares",
        Kind::Rinoceronte => "diagonal steps ahead or orthogonal steps back",
        Kind::Guarda => "king steps",
    }
}

/// Why no piece of `color` fits a declaration (`Fo f3` with f3 empty): what stands on the
/// square named, or where the kind named is; then the pieces that may move (of the kind
/// named, when it has some).
pub(super) fn declaration(
    pos: &Position,
    color: Color,
    d: &DeclarationText,
    movable: &[(Sq, Kind)],
) -> PlyError {
    let why = match (d.square, d.kind) {
        (Some(s), want) => square_holds(pos, color, s, want),
        (None, Some(Kind::Guarda)) => guarda_does_not_gamble(),
        (None, Some(k)) if pos.squares_of(color).any(|(_, p)| p.kind == k) => format!(
            "your {}s are in the waiting area, where only a Rinoceronte moves",
            k.name()
        ),
        (None, Some(k)) => format!("you have no {} on the board", k.name()),
        (None, None) => "name the piece to move".to_string(),
    };
    let text = |(s, k): &(Sq, Kind)| format!("{}{s}", k.letters());
    let of_kind: Vec<String> = movable
        .iter()
        .filter(|(_, k)| Some(*k) == d.kind)
        .map(text)
        .collect();
    let shown = match of_kind.is_empty() {
        true => movable.iter().map(text).collect(),
        false => of_kind,
    };
    PlyError::Illegal(format!("{why}; you may declare {}", shown.join(", ")))
}

fn guarda_does_not_gamble() -> String {
    "a Guarda rolls no die: it moves as a special move (Gua1-b2)".to_string()
}

/// What stands on `s`, as the reason a declaration of it (as `want`) is refused.
fn square_holds(pos: &Position, color: Color, s: Sq, want: Option<Kind>) -> String {
    match pos.at(s) {
        None => format!("{s} is empty"),
        Some(p) if p.color != color => {
            format!("the {} on {s} is {}'s", p.kind.name(), p.color.name())
        }
        Some(p) if want.is_some_and(|k| k != p.kind) => format!(
            "the piece on {s} is your {}, not a {}",
            p.kind.name(),
            want.map_or("", Kind::name)
        ),
        Some(p) if p.kind == Kind::Guarda => guarda_does_not_gamble(),
        Some(p) if !s.is_playing() => format!(
            "your {} on {s} is in the waiting area, where only a Rinoceronte moves",
            p.kind.name()
        ),
        Some(_) => "no legal piece to move fits".to_string(),
    }
}

/// The roll being chosen for: the declared piece, where it stands, the roll, and how many
/// steps its legal moves make (fewer than the roll when no move of the roll's length exists).
struct Gamble {
    piece: Piece,
    from: Sq,
    roll: u32,
    steps: u32,
}

/// Why no outcome of the roll fits the move written: the declared piece, the Guarda's
/// protection, the exact number of steps a capture takes, a Cavalo's facing, the waiting
/// square; then the legal outcomes when they are few.
pub(super) fn choice(
    pos: &Position,
    from: Sq,
    roll: u32,
    wanted: &ChoiceText,
    all: &[Choice],
) -> PlyError {
    let g = Gamble {
        piece: pos.at(from).expect("the declared piece"),
        from,
        roll,
        steps: all.first().map_or(0, |c| u32::from(c.mv.steps)),
    };
    let name = g.piece.kind.name();
    let why = match (wanted.stay, wanted.to) {
        _ if wanted.from.is_some_and(|f| f != from) => {
            format!("the piece declared is the {name} on {from}")
        }
        (true, _) | (false, None) => format!(
            "the {name} on {from} can move, so it must: a piece stays put only when it \
             cannot make a single step"
        ),
        (false, Some(to)) => target_refused(pos, &g, wanted, to, all),
    };
    let legal: Vec<String> = all.iter().map(|c| c.text(pos)).collect();
    refuse(why, &legal, "moves")
}

/// Why the move to `to` is refused: the first rule it breaks.
fn target_refused(
    pos: &Position,
    g: &Gamble,
    wanted: &ChoiceText,
    to: Sq,
    all: &[Choice],
) -> String {
    let (name, from, roll, steps) = (g.piece.kind.name(), g.from, g.roll, g.steps);
    // Fewer steps than the roll: the seed's fallback, which never captures.
    let shorter = match steps {
        0 => "stays put".to_string(),
        n => format!("makes a {n}-step move"),
    };
    let there: Vec<&Choice> = all.iter().filter(|c| c.mv.to == to).collect();
    if wanted.capture == Some(true) && pos.at(to).is_none() {
        return format!("there is nothing to capture on {to}");
    }
    if let (Some(false), Some(p)) = (wanted.capture, pos.at(to)) {
        if !there.is_empty() {
            return format!(
                "{to} holds {}'s {}: a capture is written with x ({from}x{to})",
                p.color.name(),
                p.kind.name()
            );
        }
    }
    if !there.is_empty() {
        let facings: Vec<String> = there
            .iter()
            .filter_map(|c| c.mv.facing)
            .map(|f| f.to_string())
            .collect();
        let facing_fits = |f: Dir| there.iter().any(|c| c.mv.facing == Some(f));
        if let Some(f) = wanted.facing.filter(|f| !facing_fits(*f)) {
            return format!(
                "the {name} ends on {to} facing {}, not {f}",
                facings.join(" or ")
            );
        }
        if let Some(w) = wanted.wait {
            return format!(
                "{w} is not an empty square of the waiting area, where a captured Cavalo goes"
            );
        }
        return format!("the {name} cannot move to {to} that way");
    }
    let mover = g.piece.color;
    match pos.at(to) {
        Some(p) if p.color == mover && to != from => {
            format!("your own {} stands on {to}", p.kind.name())
        }
        Some(p) if p.color != mover && pos.is_protected(to) => format!(
            "the {} on {to} cannot be captured: {}'s Guarda on {} stands orthogonally next \
             to it in the playing area",
            p.kind.name(),
            p.color.name(),
            protector(pos, to, p.color).map_or_else(String::new, |s| s.to_string())
        ),
        Some(p) if p.color != mover && steps < roll => format!(
            "with {roll} rolled the {name} has no {roll}-step move, so it {shorter}, which \
             may not capture the {} on {to}",
            p.kind.name()
        ),
        Some(p) if p.color != mover => format!(
            "the {name} cannot capture the {} on {to}: a capture takes exactly {} ({}), \
             every square before the last one empty",
            p.kind.name(),
            count_steps(roll),
            steps_of(g.piece.kind)
        ),
        _ if steps < roll => format!(
            "with {roll} rolled the {name} has no {roll}-step move, so it {shorter}, and \
             none ends on {to}"
        ),
        _ => format!(
            "the {name} on {from} cannot end on {to} in exactly {} ({}, through empty \
             squares, never on one twice)",
            count_steps(roll),
            steps_of(g.piece.kind)
        ),
    }
}

/// The Guarda of `color` protecting the gambling piece on `sq`, if any.
fn protector(pos: &Position, sq: Sq, color: Color) -> Option<Sq> {
    Dir::ORTHOGONAL
        .into_iter()
        .filter_map(|d| sq.step(d))
        .find(|&n| {
            n.is_playing()
                && pos
                    .at(n)
                    .is_some_and(|g| g.kind == Kind::Guarda && g.color == color)
        })
}

/// Why no legal special move fits `want` (lower case, no spaces): the Rinoceronte's quarter
/// turn, the Guarda's step or placement, the promotion area, the third Cavalo; then the
/// legal special moves of the piece named when they are few.
pub(super) fn special(pos: &Position, color: Color, want: &str, all: &[Special]) -> PlyError {
    let rest = match want.get(..2).and_then(Kind::parse) {
        Some(_) if want.len() > 2 => &want[2..],
        _ => want,
    };
    let at = rest.get(..2).and_then(Sq::parse);
    let after = rest.get(2..).unwrap_or("");
    let mine = |kind: Kind| {
        at.and_then(|s| pos.at(s))
            .filter(|p| p.color == color && p.kind == kind)
    };
    let of = |keep: &dyn Fn(&Special) -> bool| -> Vec<String> {
        all.iter().filter(|s| keep(s)).map(Special::text).collect()
    };
    let (why, legal) = match (at, after.chars().next()) {
        (Some(s), Some('/')) => {
            let turns = of(&|x| matches!(x, Special::TurnRinoceronte { at, .. } if *at == s));
            match mine(Kind::Rinoceronte) {
                Some(r) => (rinoceronte_turn(s, r, Dir::parse(&after[1..])), turns),
                None => (
                    format!("no Rinoceronte of yours stands on {s}"),
                    of(&|x| matches!(x, Special::TurnRinoceronte { .. })),
                ),
            }
        }
        (Some(s), Some('-')) if mine(Kind::Guarda).is_some() => (
            guarda_step(pos, s, after.get(1..3).and_then(Sq::parse)),
            of(&|x| matches!(x, Special::Guarda { from, .. } if *from == s)),
        ),
        (Some(_), Some('-')) if mine(Kind::Cavalo).is_some() => (
            format!(
                "the third Cavalo comes in only when both your Cavalos are in the waiting \
                 area, onto an empty square of your starting area (rank {})",
                color.home_rank() + 1
            ),
            of(&|x| matches!(x, Special::ThirdCavalo { .. })),
        ),
        (Some(s), Some('-')) => (
            format!(
                "no Guarda of yours stands on {s} (a special move with '-' moves a Guarda, \
                 or brings in the third Cavalo)"
            ),
            Vec::new(),
        ),
        (Some(s), Some('=')) => (
            promotion(s, mine(Kind::Cavalo).is_some()),
            of(&|x| matches!(x, Special::Promote { at, .. } if *at == s)),
        ),
        _ => ("no legal special move fits".to_string(), Vec::new()),
    };
    refuse(why, &legal, "special moves")
}

/// Why the Rinoceronte on `s` cannot turn to `to`: it turns by 90 degrees and faces a
/// diagonal.
fn rinoceronte_turn(s: Sq, r: Piece, to: Option<Dir>) -> String {
    let now = r.facing.expect("a Rinoceronte has a facing");
    match to {
        Some(f) if f == now => format!("the Rinoceronte on {s} faces {now} already"),
        Some(f) if f == now.opposite() => format!(
            "a Rinoceronte turns by 90 degrees, not 180: from {now} to {} or {}",
            now.turned(true),
            now.turned(false)
        ),
        _ => "a Rinoceronte faces a diagonal direction (NE, SE, SW or NW)".to_string(),
    }
}

/// Why the Guarda on `from` cannot go to `to`: an empty square, one king step away, or any
/// empty square of the playing area from a teleportation corner.
fn guarda_step(pos: &Position, from: Sq, to: Option<Sq>) -> String {
    let Some(to) = to else {
        return "a Guarda's move names where it goes (Gua1-b2)".to_string();
    };
    if pos.at(to).is_some() {
        return format!("{to} is not empty: a Guarda moves only to an empty square");
    }
    if from.is_teleportation() {
        return format!(
            "from the corner {from} a Guarda steps one square, or is placed on an empty \
             square of the playing area, which {to} is not"
        );
    }
    "a Guarda steps one square, as a chess king; only from a teleportation corner (a1, h1, \
     a8, h8) is it placed on any empty square of the playing area"
        .to_string()
}

/// Why the promotion on `s` is refused: only a Cavalo of one's own in the promotion area
/// promotes, to another piece.
fn promotion(s: Sq, own_cavalo: bool) -> String {
    if !own_cavalo {
        format!("no Cavalo of yours stands on {s}: only a Cavalo promotes")
    } else if !s.is_promotion() {
        "a Cavalo promotes only in the promotion area (a3 to a6, h3 to h6)".to_string()
    } else {
        "a Cavalo promotes to another piece of yours (not a Cavalo or Guarda), and goes to an \
         empty square of the waiting area"
            .to_string()
    }
}
