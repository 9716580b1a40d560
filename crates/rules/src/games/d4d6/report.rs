//! What a ply did, in words beside its notation for the turn report: a declaration, the GM's roll, a move with its capture, a captured Cavalo's waiting square, a promotion, a facing.

use super::board::{Dir, Sq};
use super::notation::Choice;
use super::pieces::{Color, Kind};
use super::position::Position;
use super::specials::Special;

/// A facing as a player says it ("north", "southwest").
pub fn facing_words(d: Dir) -> &'static str {
    match d {
        Dir::N => "north",
        Dir::E => "east",
        Dir::S => "south",
        Dir::W => "west",
        Dir::NE => "northeast",
        Dir::SE => "southeast",
        Dir::SW => "southwest",
        Dir::NW => "northwest",
    }
}

/// A special move in words, from the position before it: `Gua1-d4` is "the Guarda from a1
/// to d4".
pub fn special_words(pos: &Position, special: &Special) -> String {
    match *special {
        Special::Guarda { from, to } => format!("moved the Guarda from {from} to {to}"),
        Special::Promote {
            at,
            kind,
            facing,
            cavalo_to,
        } => {
            let mut s = format!("promoted the Cavalo on {at} to a {}", kind.name());
            if let Some(f) = facing {
                s.push_str(&format!(" facing {}", facing_words(f)));
            }
            match cavalo_to {
                Some(w) => s.push_str(&format!("; the Cavalo waits on {w}")),
                None => s.push_str("; the waiting area is full, so the Cavalo leaves the board"),
            }
            s
        }
        Special::ThirdCavalo { from, to } => {
            let facing = pos.at(from).map_or(Color::White, |p| p.color).forward();
            format!(
                "placed its third Cavalo: the Cavalo from {from} to {to}, facing {}, and the \
                 other Cavalo leaves the board",
                facing_words(facing)
            )
        }
        Special::TurnRinoceronte { at, facing } => {
            format!(
                "turned the Rinoceronte on {at} to face {}",
                facing_words(facing)
            )
        }
    }
}

/// A declaration (`Cae2`, after a special move if any: `Gua1-d4;Fob6`), in words. `special`
/// comes with the position before it; `declared` is the piece, its square, its die.
pub fn declared(
    mover: Color,
    special: Option<(&Position, &Special)>,
    declared: Option<(Kind, Sq, u32)>,
    canonical: &str,
) -> String {
    let mut parts = Vec::new();
    if let Some((pos, s)) = special {
        parts.push(special_words(pos, s));
    }
    let verb = match declared {
        Some((kind, sq, die)) if parts.is_empty() => {
            parts.push(format!("the {} on {sq}, rolling the d{die}", kind.name()));
            "declared"
        }
        Some((kind, sq, die)) => {
            parts.push(format!(
                "declared the {} on {sq}, rolling the d{die}",
                kind.name()
            ));
            "played"
        }
        None => "played",
    };
    format!(
        "{} {verb} {canonical} ({}).",
        mover.name(),
        parts.join(", then ")
    )
}

/// The GM's roll for the declared piece: the value, then the one move the GM plays for the
/// player or the moves the player may choose from.
pub fn rolled(
    roll: u32,
    die: u32,
    forced: bool,
    legal: &[String],
    special_may_follow: bool,
) -> String {
    let head = format!("The GM rolled {roll} (d{die}).");
    if forced {
        return format!("{head} One move is legal: the GM plays it.");
    }
    format!(
        "{head} Legal: {}.{}",
        legal.join(", "),
        if special_may_follow {
            " A special move may follow after ';'."
        } else {
            ""
        }
    )
}

/// A move chosen after the roll (`pos` is the position before it), with what it captured,
/// where a captured Cavalo waits, the Cavalo's new facing, and the special move after it.
pub fn moved(
    mover: Color,
    pos: &Position,
    choice: &Choice,
    special: Option<(&Position, &Special)>,
    canonical: &str,
) -> String {
    let mv = choice.mv;
    let name = mover.name();
    let piece = pos.at(mv.from).map_or("piece", |p| p.kind.name());
    let mut words = if mv.steps == 0 {
        format!("the {piece} on {} stays", mv.from)
    } else {
        format!("the {piece} from {} to {}", mv.from, mv.to)
    };
    if piece == Kind::Cavalo.name() && mv.steps > 0 {
        if let Some(f) = mv.facing {
            words.push_str(&format!(", facing {}", facing_words(f)));
        }
    }
    if mv.capture {
        if let Some(victim) = pos.at(mv.to) {
            words.push_str(&format!(
                ", captures {}'s {}",
                victim.color.name(),
                victim.kind.name()
            ));
            if victim.kind == Kind::Cavalo && mv.to.is_playing() {
                match choice.wait {
                    Some(w) => words.push_str(&format!(", which waits on {w}")),
                    None => words.push_str(", which leaves the board (the waiting area is full)"),
                }
            }
        }
    }
    let mut out = format!("{name} played {canonical} ({words}");
    if let Some((before, s)) = special {
        out.push_str(&format!("; then {}", special_words(before, s)));
    }
    out.push_str(").");
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::d4d6::pieces::Piece;
    use crate::games::d4d6::specials;

    /// The third Cavalo's words name the facing the move gives it, for either side.
    #[test]
    fn the_third_cavalo_is_said_to_face_as_it_comes_in() {
        let sq = |s: &str| Sq::parse(s).unwrap();
        for (color, waiting, to, words) in [
            (Color::White, ["a1", "b1"], "d1", "facing north"),
            (Color::Black, ["a8", "b8"], "d8", "facing south"),
        ] {
            let mut pos = Position::empty();
            for w in waiting {
                pos.put(sq(w), Piece::new(color, Kind::Cavalo, Some(Dir::E)));
            }
            let special = Special::ThirdCavalo {
                from: sq(waiting[0]),
                to: sq(to),
            };
            assert!(special_words(&pos, &special).contains(words), "{color:?}");
            specials::apply(&mut pos, &special);
            let facing = pos.at(sq(to)).and_then(|p| p.facing).unwrap();
            assert!(words.ends_with(facing_words(facing)), "{color:?}");
        }
    }
}
