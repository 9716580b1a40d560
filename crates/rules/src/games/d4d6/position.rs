//! The position between turns: what stands where, who moves, the 100-move clock; Guarda
//! protection, the loss condition, and the `[Position]` tag text.

use super::board::{Dir, Sq};
use super::pieces::{facing_is_valid, Color, Kind, Piece};

/// Gambling moves in a row without a capture, a Cavalo step or a promotion that draw the game.
pub const DRAW_CLOCK: u32 = 100;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Position {
    pub board: [Option<Piece>; 64],
    pub to_move: Color,
    /// Gambling moves since the last capture, Cavalo step or promotion.
    pub clock: u32,
    /// The number of the current full move (White's and Black's turn).
    pub fullmove: u32,
}

impl Position {
    pub fn empty() -> Position {
        Position {
            board: [None; 64],
            to_move: Color::White,
            clock: 0,
            fullmove: 1,
        }
    }

    /// The seed's starting position; in the Rinoceronte variant with the two Rinocerontes
    /// facing as given (the seed rolls a d4 for each).
    pub fn start(rinoceronte: Option<(Dir, Dir)>) -> Position {
        let mut pos = Position::empty();
        let back = [
            ("a1", Kind::Guarda),
            ("c1", Kind::Formiga),
            ("d1", Kind::Gata),
            ("e1", Kind::Gato),
            ("f1", Kind::Formiga),
            ("h1", Kind::Guarda),
            ("c2", Kind::Rato),
            ("f2", Kind::Rato),
        ];
        for (name, kind) in back {
            let sq = Sq::parse(name).expect("square");
            pos.put(sq, Piece::new(Color::White, kind, None));
            let mirrored = Sq::new(7 - sq.file(), 7 - sq.rank()).expect("square");
            pos.put(mirrored, Piece::new(Color::Black, kind, None));
        }
        for name in ["d2", "e2"] {
            let sq = Sq::parse(name).expect("square");
            pos.put(
                sq,
                Piece::new(Color::White, Kind::Cavalo, Some(Color::White.forward())),
            );
            let black = Sq::new(sq.file(), 7 - sq.rank()).expect("square");
            pos.put(
                black,
                Piece::new(Color::Black, Kind::Cavalo, Some(Color::Black.forward())),
            );
        }
        if let Some((white, black)) = rinoceronte {
            let g1 = Sq::parse("g1").expect("square");
            let b8 = Sq::parse("b8").expect("square");
            pos.put(g1, Piece::new(Color::White, Kind::Rinoceronte, Some(white)));
            pos.put(b8, Piece::new(Color::Black, Kind::Rinoceronte, Some(black)));
        }
        pos
    }

    pub fn at(&self, sq: Sq) -> Option<Piece> {
        self.board[sq.0 as usize]
    }
    pub fn put(&mut self, sq: Sq, piece: Piece) {
        self.board[sq.0 as usize] = Some(piece);
    }
    pub fn take(&mut self, sq: Sq) -> Option<Piece> {
        self.board[sq.0 as usize].take()
    }

    /// Squares of this colour's pieces, in square order.
    pub fn squares_of(&self, color: Color) -> impl Iterator<Item = (Sq, Piece)> + '_ {
        Sq::all().filter_map(move |s| self.at(s).filter(|p| p.color == color).map(|p| (s, p)))
    }

    /// A gambling piece on `sq` is protected when an own Guarda stands orthogonally next to it
    /// in the playing area.
    pub fn is_protected(&self, sq: Sq) -> bool {
        let Some(piece) = self.at(sq) else {
            return false;
        };
        piece.kind.is_gambling()
            && Dir::ORTHOGONAL.into_iter().any(|d| {
                sq.step(d).is_some_and(|n| {
                    n.is_playing()
                        && self
                            .at(n)
                            .is_some_and(|g| g.kind == Kind::Guarda && g.color == piece.color)
                })
            })
    }

    /// Whether a `color` gambling piece may capture whatever stands on `sq`.
    pub fn capturable_by(&self, color: Color, sq: Sq) -> bool {
        self.at(sq).is_some_and(|p| p.color != color) && !self.is_protected(sq)
    }

    /// A side with no gambling piece in the playing area has lost.
    pub fn has_gambler_in_play(&self, color: Color) -> bool {
        self.squares_of(color)
            .any(|(s, p)| p.kind.is_gambling() && s.is_playing())
    }

    pub fn empty_waiting_squares(&self) -> Vec<Sq> {
        Sq::all()
            .filter(|s| s.is_waiting() && self.at(*s).is_none())
            .collect()
    }

    /// The `[Position]` tag: `W:<pieces> B:<pieces> <w|b> <clock> <move>`, each piece as
    /// letters, square and `/facing` (`Cae5/N`), separated by commas.
    pub fn tag(&self) -> String {
        let side = |c: Color| {
            self.squares_of(c)
                .map(|(s, p)| piece_text(p, s))
                .collect::<Vec<_>>()
                .join(",")
        };
        format!(
            "W:{} B:{} {} {} {}",
            side(Color::White),
            side(Color::Black),
            if self.to_move == Color::White {
                "w"
            } else {
                "b"
            },
            self.clock,
            self.fullmove
        )
    }

    /// Reads `tag` back (clock and move number may be left out).
    pub fn parse_tag(tag: &str) -> Result<Position, String> {
        let mut pos = Position::empty();
        let fields: Vec<&str> = tag.split_whitespace().collect();
        if fields.len() < 3 || fields.len() > 5 {
            return Err(format!(
                "a d4d6 position is 'W:<pieces> B:<pieces> w|b [clock] [move]', not '{tag}'"
            ));
        }
        for (field, color, prefix) in [
            (fields[0], Color::White, "W:"),
            (fields[1], Color::Black, "B:"),
        ] {
            let list = field
                .strip_prefix(prefix)
                .or_else(|| field.strip_prefix(&prefix.to_ascii_lowercase()))
                .ok_or_else(|| format!("expected '{prefix}' before the pieces, got '{field}'"))?;
            for item in list.split(',').filter(|s| !s.is_empty()) {
                let (sq, piece) = parse_piece(item, color)?;
                if pos.at(sq).is_some() {
                    return Err(format!("two pieces on {sq}"));
                }
                pos.put(sq, piece);
            }
        }
        pos.to_move = match fields[2].to_ascii_lowercase().as_str() {
            "w" | "white" => Color::White,
            "b" | "black" => Color::Black,
            other => return Err(format!("side to move must be w or b, not '{other}'")),
        };
        if let Some(c) = fields.get(3) {
            pos.clock = c.parse().map_err(|_| format!("bad move clock '{c}'"))?;
        }
        if let Some(m) = fields.get(4) {
            pos.fullmove = m.parse().map_err(|_| format!("bad move number '{m}'"))?;
        }
        Ok(pos)
    }
}

/// `Cae5/N`, `Gad8`.
pub fn piece_text(piece: Piece, sq: Sq) -> String {
    match piece.facing {
        Some(f) => format!("{}{}/{}", piece.kind.letters(), sq, f),
        None => format!("{}{}", piece.kind.letters(), sq),
    }
}

/// Reads `Cae5/N` for a piece of `color`.
pub fn parse_piece(text: &str, color: Color) -> Result<(Sq, Piece), String> {
    let (body, facing) = match text.split_once('/') {
        Some((b, f)) => (
            b,
            Some(Dir::parse(f).ok_or_else(|| format!("bad facing in '{text}'"))?),
        ),
        None => (text, None),
    };
    if body.len() != 4 || !body.is_ascii() {
        return Err(format!(
            "a piece is written like 'Gad8' or 'Cae5/N', not '{text}'"
        ));
    }
    let kind = Kind::parse(&body[..2]).ok_or_else(|| format!("unknown piece in '{text}'"))?;
    let sq = Sq::parse(&body[2..]).ok_or_else(|| format!("bad square in '{text}'"))?;
    let piece = Piece::new(color, kind, facing);
    if !facing_is_valid(piece, sq) {
        return Err(format!(
            "'{text}': wrong or missing facing for a {} there",
            kind.name()
        ));
    }
    if kind.is_gambling() && kind != Kind::Rinoceronte && kind != Kind::Cavalo && !sq.is_playing() {
        return Err(format!(
            "'{text}': a {} cannot stand in the waiting area",
            kind.name()
        ));
    }
    Ok((sq, piece))
}
