//! The pieces: colours, kinds, their dice, letters, and how a Cavalo turns on the squares it visits.

use super::board::{Dir, Sq};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Color {
    White,
    Black,
}

impl Color {
    pub fn other(self) -> Color {
        match self {
            Color::White => Color::Black,
            Color::Black => Color::White,
        }
    }
    pub fn index(self) -> usize {
        self as usize
    }
    pub fn from_index(i: usize) -> Color {
        if i == 0 {
            Color::White
        } else {
            Color::Black
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Color::White => "WHITE",
            Color::Black => "BLACK",
        }
    }
    /// The rank index (0 = rank 1) of this side's "sixth rank": 6 for White, 3 for Black.
    pub fn sixth_rank(self) -> i8 {
        match self {
            Color::White => 5,
            Color::Black => 2,
        }
    }
    /// The rank index of this side's starting area (rank 1 / rank 8).
    pub fn home_rank(self) -> i8 {
        match self {
            Color::White => 0,
            Color::Black => 7,
        }
    }
    /// Toward the other side: the way a Cavalo faces from the starting area (north for
    /// White), at the start and when the third Cavalo comes in.
    pub fn forward(self) -> Dir {
        match self {
            Color::White => Dir::N,
            Color::Black => Dir::S,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Kind {
    Rato,
    Cavalo,
    Formiga,
    Gata,
    Gato,
    Guarda,
    Rinoceronte,
}

impl Kind {
    pub const ALL: [Kind; 7] = [
        Kind::Rato,
        Kind::Cavalo,
        Kind::Formiga,
        Kind::Gata,
        Kind::Gato,
        Kind::Guarda,
        Kind::Rinoceronte,
    ];

    /// The two-letter abbreviation used in notation and on the board.
    pub fn letters(self) -> &'static str {
        match self {
            Kind::Rato => "Ra",
            Kind::Cavalo => "Ca",
            Kind::Formiga => "Fo",
            Kind::Gata => "Ga",
            Kind::Gato => "Go",
            Kind::Guarda => "Gu",
            Kind::Rinoceronte => "Ri",
        }
    }
    pub fn name(self) -> &'static str {
        match self {
            Kind::Rato => "Rato",
            Kind::Cavalo => "Cavalo",
            Kind::Formiga => "Formiga",
            Kind::Gata => "Gata",
            Kind::Gato => "Gato",
            Kind::Guarda => "Guarda",
            Kind::Rinoceronte => "Rinoceronte",
        }
    }
    /// Reads `Ga`, `gata`, `GATA` ...
    pub fn parse(text: &str) -> Option<Kind> {
        Kind::ALL
            .into_iter()
            .find(|k| k.letters().eq_ignore_ascii_case(text) || k.name().eq_ignore_ascii_case(text))
    }
    /// Every piece but the Guarda gambles: it moves by a die roll.
    pub fn is_gambling(self) -> bool {
        self != Kind::Guarda
    }
    /// Pieces whose facing matters.
    pub fn has_facing(self) -> bool {
        matches!(self, Kind::Cavalo | Kind::Rinoceronte)
    }
    /// The die sides this piece may use (the Gata's owner picks one of two).
    pub fn dice(self) -> &'static [u32] {
        match self {
            Kind::Rato | Kind::Cavalo | Kind::Gato => &[4],
            Kind::Formiga | Kind::Rinoceronte => &[6],
            Kind::Gata => &[4, 6],
            Kind::Guarda => &[],
        }
    }
    /// Kinds a Cavalo may promote to.
    pub fn promotion_choices(rinoceronte: bool) -> &'static [Kind] {
        if rinoceronte {
            &[
                Kind::Rato,
                Kind::Formiga,
                Kind::Gata,
                Kind::Gato,
                Kind::Rinoceronte,
            ]
        } else {
            &[Kind::Rato, Kind::Formiga, Kind::Gata, Kind::Gato]
        }
    }
}

/// One piece: a Cavalo faces an orthogonal direction, a Rinoceronte a diagonal one.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Piece {
    pub color: Color,
    pub kind: Kind,
    pub facing: Option<Dir>,
}

impl Piece {
    pub fn new(color: Color, kind: Kind, facing: Option<Dir>) -> Piece {
        Piece {
            color,
            kind,
            facing,
        }
    }
}

/// The facing a Cavalo of this colour must take on arriving at `sq` with `facing`: one facing,
/// or two when it reaches its sixth rank facing north or south (east or west, owner's choice).
/// In the border area it turns vertically toward its own sixth rank.
pub fn cavalo_turns(color: Color, sq: Sq, facing: Dir) -> Vec<Dir> {
    if sq.is_border() {
        vec![toward_sixth(color, sq)]
    } else if sq.rank() == color.sixth_rank() && facing.is_vertical() {
        vec![Dir::E, Dir::W]
    } else {
        vec![facing]
    }
}

/// The vertical direction from `sq` toward this colour's sixth rank (never called on it).
fn toward_sixth(color: Color, sq: Sq) -> Dir {
    if sq.rank() < color.sixth_rank() {
        Dir::N
    } else {
        Dir::S
    }
}

/// The facings a Cavalo of this colour may have on `sq` without contradicting the turning
/// rules (the seed's "semi-legal" positions): a vertical facing always points toward its sixth
/// rank, the border forces it, and on the sixth rank only east or west.
pub fn cavalo_facings(color: Color, sq: Sq) -> Vec<Dir> {
    if sq.is_border() {
        vec![toward_sixth(color, sq)]
    } else if sq.rank() == color.sixth_rank() {
        vec![Dir::E, Dir::W]
    } else {
        vec![toward_sixth(color, sq), Dir::E, Dir::W]
    }
}

/// Whether a piece may stand on `sq` with its facing (Cavalo rules above; a Rinoceronte faces
/// a diagonal; other pieces have none).
pub fn facing_is_valid(piece: Piece, sq: Sq) -> bool {
    match (piece.kind, piece.facing) {
        (Kind::Cavalo, Some(f)) => !sq.is_playing() || cavalo_facings(piece.color, sq).contains(&f),
        (Kind::Rinoceronte, Some(f)) => !f.is_orthogonal(),
        (Kind::Cavalo | Kind::Rinoceronte, None) => false,
        (_, f) => f.is_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Sq {
        Sq::parse(s).unwrap()
    }

    #[test]
    fn cavalo_turns_on_sixth_rank_and_border() {
        assert_eq!(
            cavalo_turns(Color::White, sq("e6"), Dir::N),
            vec![Dir::E, Dir::W]
        );
        assert_eq!(cavalo_turns(Color::White, sq("d6"), Dir::W), vec![Dir::W]);
        assert_eq!(cavalo_turns(Color::White, sq("f7"), Dir::E), vec![Dir::S]);
        assert_eq!(cavalo_turns(Color::White, sq("c1"), Dir::W), vec![Dir::N]);
        assert_eq!(
            cavalo_turns(Color::Black, sq("c3"), Dir::S),
            vec![Dir::E, Dir::W]
        );
        assert_eq!(cavalo_turns(Color::Black, sq("c2"), Dir::W), vec![Dir::N]);
        assert_eq!(cavalo_turns(Color::Black, sq("c7"), Dir::W), vec![Dir::S]);
    }

    #[test]
    fn semi_legal_cavalo_facings() {
        assert_eq!(
            cavalo_facings(Color::White, sq("g3")),
            vec![Dir::N, Dir::E, Dir::W]
        );
        assert_eq!(cavalo_facings(Color::White, sq("g6")), vec![Dir::E, Dir::W]);
        assert_eq!(
            cavalo_facings(Color::White, sq("d7")),
            vec![Dir::S, Dir::E, Dir::W]
        );
        assert_eq!(cavalo_facings(Color::Black, sq("d8")), vec![Dir::S]);
        let count = |c| {
            Sq::all()
                .filter(|s| s.is_playing())
                .map(|s| cavalo_facings(c, s).len())
                .sum::<usize>()
        };
        assert_eq!(count(Color::White), 112);
        assert_eq!(count(Color::Black), 112);
    }
}
