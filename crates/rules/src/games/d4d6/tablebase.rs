//! The seed author's 2-men endgame table: expectimax value iteration over every placement of
//! one White and one Black gambling piece, built on the engine's own step paths (`walk`).
//!
//! Values are from White's view: +1 White wins, -1 Black wins, endless play 0. The side to move
//! picks the die for a Gata, may promote a Cavalo standing in the promotion area before rolling
//! or after its move, and (variant) may turn its Rinoceronte before or after.

use std::fmt;

use super::board::{Dir, Sq};
use super::movegen::walk;
use super::pieces::{cavalo_facings, Color, Kind, Piece};
use super::position::Position;

/// Sweeps stop once no value moved by more than this.
const TOLERANCE: f64 = 1e-12;
const MAX_SWEEPS: usize = 1_000_000;

/// Which squares a side's piece may start on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SquareColour {
    Light,
    Dark,
}

/// One side's piece in a query: its kind, and optionally a fixed square, facing, square colour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SideQuery {
    pub kind: Kind,
    pub square: Option<Sq>,
    pub facing: Option<Dir>,
    pub colour: Option<SquareColour>,
}

impl SideQuery {
    /// Reads `Ga`, `Ga@a6`, `Ca@e5/N`.
    pub fn parse(text: &str) -> Result<SideQuery, String> {
        let (kind_text, place) = match text.split_once('@') {
            Some((k, p)) => (k, Some(p)),
            None => (text, None),
        };
        let kind = Kind::parse(kind_text.trim())
            .filter(|k| k.is_gambling())
            .ok_or_else(|| format!("'{kind_text}' is not a gambling piece (Ra Ca Fo Ga Go Ri)"))?;
        let (mut square, mut facing) = (None, None);
        if let Some(place) = place {
            let (sq_text, f_text) = match place.split_once('/') {
                Some((s, f)) => (s, Some(f)),
                None => (place, None),
            };
            let sq = Sq::parse(sq_text.trim()).ok_or_else(|| format!("bad square '{sq_text}'"))?;
            if !sq.is_playing() {
                return Err(format!("{sq} is not in the playing area"));
            }
            square = Some(sq);
            if let Some(f) = f_text {
                facing = Some(Dir::parse(f.trim()).ok_or_else(|| format!("bad facing '{f}'"))?);
            }
        }
        if facing.is_some() && !kind.has_facing() {
            return Err(format!("a {} has no facing", kind.name()));
        }
        Ok(SideQuery {
            kind,
            square,
            facing,
            colour: None,
        })
    }

    /// A fixed facing must be one the table holds for that colour and square.
    fn check_facing(&self, color: Color) -> Result<(), String> {
        let (Some(sq), Some(f)) = (self.square, self.facing) else {
            return Ok(());
        };
        let ok = match self.kind {
            Kind::Cavalo => cavalo_facings(color, sq).contains(&f),
            _ => !f.is_orthogonal(),
        };
        if ok {
            Ok(())
        } else {
            Err(format!(
                "a {} {} on {sq} cannot face {f}",
                color_name(color),
                self.kind.name()
            ))
        }
    }

    fn admits(&self, state: &PieceState) -> bool {
        state.kind == self.kind
            && self.square.is_none_or(|s| s == state.sq)
            && self.facing.is_none_or(|f| Some(f) == state.facing)
            && self
                .colour
                .is_none_or(|c| (c == SquareColour::Light) == state.sq.is_light())
    }
}

/// What the worst and best cases range over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Extremes {
    /// Placements by square, as the seed names them ("White on c5, Black on d8"): a pair of
    /// squares is worth the mean over the facings its Cavalos may have there.
    Squares,
    /// Single positions, a Cavalo's facing included.
    Positions,
}

/// What to analyse: both pieces and the side to move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    pub white: SideQuery,
    pub black: SideQuery,
    pub white_to_move: bool,
    pub extremes: Extremes,
    /// The Rinoceronte variant (Cavalos may promote to one); implied by a Rinoceronte in play.
    pub rinoceronte: bool,
}

impl Query {
    /// A query from its parts (`pbem analyze d4d6` reads them from its arguments). A fixed
    /// facing must be one the table holds for that side; the Rinoceronte variant is implied
    /// by a Rinoceronte in play (`rinoceronte: None`), and cannot be refused then.
    pub fn new(
        white: SideQuery,
        black: SideQuery,
        white_to_move: bool,
        extremes: Extremes,
        rinoceronte: Option<bool>,
    ) -> Result<Query, String> {
        for (side, color) in [(&white, Color::White), (&black, Color::Black)] {
            side.check_facing(color)?;
        }
        let has_rino = white.kind == Kind::Rinoceronte || black.kind == Kind::Rinoceronte;
        let rinoceronte = match rinoceronte {
            None => has_rino,
            Some(false) if has_rino => {
                return Err("a Rinoceronte needs --variant rinoceronte".into())
            }
            Some(v) => v,
        };
        Ok(Query {
            white,
            black,
            white_to_move,
            extremes,
            rinoceronte,
        })
    }
}

fn color_name(color: Color) -> &'static str {
    match color {
        Color::White => "White",
        Color::Black => "Black",
    }
}

/// One position's value and where the two pieces stand.
#[derive(Debug, Clone, PartialEq)]
pub struct Extreme {
    pub value: f64,
    pub white: String,
    pub black: String,
}

/// The answer to a query: how many positions, their average value, the worst and best.
#[derive(Debug, Clone, PartialEq)]
pub struct Analysis {
    pub positions: usize,
    pub average: f64,
    pub min: Extreme,
    pub max: Extreme,
}

impl Analysis {
    pub fn json(&self) -> serde_json::Value {
        let ext =
            |e: &Extreme| serde_json::json!({"value": e.value, "white": e.white, "black": e.black});
        serde_json::json!({
            "positions": self.positions,
            "average": self.average,
            "min": ext(&self.min),
            "max": ext(&self.max),
        })
    }
}

impl fmt::Display for Analysis {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(f, "positions: {}", self.positions)?;
        writeln!(f, "average:   {:+.3}", self.average)?;
        writeln!(
            f,
            "min:       {:+.3} (White {}, Black {})",
            self.min.value, self.min.white, self.min.black
        )?;
        write!(
            f,
            "max:       {:+.3} (White {}, Black {})",
            self.max.value, self.max.white, self.max.black
        )
    }
}

/// Solves the table the query needs and answers it (0 positions when none fits the query).
pub fn analyze(query: &Query) -> Analysis {
    Table::solve(query.white.kind, query.black.kind, query.rinoceronte).analyze(query)
}

/// A piece on a square of the playing area, with its facing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PieceState {
    pub kind: Kind,
    pub sq: Sq,
    pub facing: Option<Dir>,
}

impl PieceState {
    fn text(&self) -> String {
        match self.facing {
            Some(f) => format!("{}/{}", self.sq, f),
            None => self.sq.to_string(),
        }
    }
}

/// White's and Black's piece when the position is one a table models (the robot asks before
/// it takes a table): one gambling piece
/// a side in the playing area, and nothing else that could act or be acted on:
/// - no Guarda anywhere (a Guarda can always step or be placed, and it guards);
/// - off the playing area only Cavalos (a Rinoceronte could step back in), at most one
///   Cavalo a side on the whole board (two waiting Cavalos could come back as the "third
///   Cavalo"; a Cavalo in play with one waiting could promote and leave both waiting);
/// - with a Rinoceronte in play, nothing in the waiting area at all: it steps there too,
///   where a waiting Cavalo would block it or be taken, which the table does not know.
pub fn modelled(pos: &Position, rinoceronte: bool) -> Option<(PieceState, PieceState)> {
    let mut in_play: [Option<PieceState>; 2] = [None, None];
    let mut cavalos = [0usize; 2];
    let mut waiting = 0usize;
    for color in [Color::White, Color::Black] {
        let c = color.index();
        for (sq, piece) in pos.squares_of(color) {
            if piece.kind == Kind::Guarda || (!sq.is_playing() && piece.kind != Kind::Cavalo) {
                return None;
            }
            cavalos[c] += usize::from(piece.kind == Kind::Cavalo);
            if !sq.is_playing() {
                waiting += 1;
                continue;
            }
            if in_play[c].is_some() {
                return None;
            }
            in_play[c] = Some(PieceState {
                kind: piece.kind,
                sq,
                facing: piece.facing,
            });
        }
    }
    let [Some(white), Some(black)] = in_play else {
        return None;
    };
    let rino_in_play = [white.kind, black.kind].contains(&Kind::Rinoceronte);
    if cavalos.iter().any(|&n| n > 1) || (rino_in_play && waiting > 0) {
        return None;
    }
    // A Rinoceronte outside its variant is no position of either table.
    if rino_in_play && !rinoceronte {
        return None;
    }
    Some((white, black))
}

/// The successor marks for a move that ends the game.
const WIN_FOR_MOVER: u32 = u32::MAX;
const LOSS_FOR_MOVER: u32 = u32::MAX - 1;

/// A side's piece on one square, with the states (facings) a query admits there.
struct Placement {
    sq: Sq,
    states: Vec<usize>,
    /// The square, and the facing when only one is admitted (`d8/S`).
    text: String,
}

/// Every state a side's piece can be in, by kind then square then facing.
struct SideStates {
    color: Color,
    states: Vec<PieceState>,
    index: Vec<u32>,
}

const NO_STATE: u32 = u32::MAX;

impl SideStates {
    fn new(color: Color, kinds: &[Kind]) -> SideStates {
        let mut states = Vec::new();
        let mut index = vec![NO_STATE; 7 * 64 * 9];
        for &kind in kinds {
            for sq in Sq::all().filter(|s| s.is_playing()) {
                let facings: Vec<Option<Dir>> = match kind {
                    Kind::Cavalo => cavalo_facings(color, sq).into_iter().map(Some).collect(),
                    Kind::Rinoceronte => Dir::DIAGONAL.into_iter().map(Some).collect(),
                    _ => vec![None],
                };
                for facing in facings {
                    index[Self::key(kind, sq, facing)] = states.len() as u32;
                    states.push(PieceState { kind, sq, facing });
                }
            }
        }
        SideStates {
            color,
            states,
            index,
        }
    }
    /// The states the query admits: one placement per square when `by_square` (a square's
    /// facings are contiguous, as states go by kind, square, facing), else one per state.
    fn placements(&self, query: &SideQuery, by_square: bool) -> Vec<Placement> {
        let mut out: Vec<Placement> = Vec::new();
        for (i, s) in self.states.iter().enumerate() {
            if !query.admits(s) {
                continue;
            }
            match out.last_mut() {
                Some(p) if by_square && p.sq == s.sq => {
                    p.states.push(i);
                    p.text = s.sq.to_string();
                }
                _ => out.push(Placement {
                    sq: s.sq,
                    states: vec![i],
                    text: s.text(),
                }),
            }
        }
        out
    }
    /// The indices of one kind's states (they are contiguous).
    fn range(&self, kind: Kind) -> std::ops::Range<usize> {
        let start = self.states.iter().position(|s| s.kind == kind);
        let start = start.expect("the kind is in the table");
        let len = self.states[start..]
            .iter()
            .take_while(|s| s.kind == kind)
            .count();
        start..start + len
    }
    fn key(kind: Kind, sq: Sq, facing: Option<Dir>) -> usize {
        let f = facing.map_or(8, |d| d as usize);
        (kind as usize * 64 + sq.0 as usize) * 9 + f
    }
    /// The state of this piece, or None when the table holds none such (another kind, a
    /// square outside the playing area, a facing the table does not hold there).
    fn lookup(&self, state: PieceState) -> Option<usize> {
        if !state.sq.is_playing() {
            return None;
        }
        let i = self.index[Self::key(state.kind, state.sq, state.facing)];
        (i != NO_STATE).then_some(i as usize)
    }
    /// The state for a piece ending a move here; a loss for its owner outside the playing area.
    fn find(&self, kind: Kind, sq: Sq, facing: Option<Dir>) -> u32 {
        if !sq.is_playing() {
            return LOSS_FOR_MOVER;
        }
        let i = self.index[Self::key(kind, sq, facing)];
        assert!(
            i != NO_STATE,
            "state {kind:?} {sq} {facing:?} missing from the table"
        );
        i
    }
    /// What one special move can make of this piece: promotion in the promotion area, a
    /// Rinoceronte's quarter turn.
    fn specials(&self, state: u32, rinoceronte: bool) -> Vec<u32> {
        let s = self.states[state as usize];
        match s.kind {
            Kind::Cavalo if s.sq.is_promotion() => Kind::promotion_choices(rinoceronte)
                .iter()
                .flat_map(|&k| {
                    let facings: Vec<Option<Dir>> = if k == Kind::Rinoceronte {
                        Dir::DIAGONAL.into_iter().map(Some).collect()
                    } else {
                        vec![None]
                    };
                    facings.into_iter().map(move |f| (k, f))
                })
                .map(|(k, f)| self.find(k, s.sq, f))
                .collect(),
            Kind::Rinoceronte => {
                let f = s.facing.expect("facing");
                [true, false]
                    .into_iter()
                    .map(|cw| self.find(s.kind, s.sq, Some(f.turned(cw))))
                    .collect()
            }
            _ => Vec::new(),
        }
    }
}

/// A piece's step paths on an empty board, by number of steps: each end state with the
/// squares every path to it must cross (including the end), and the squares it can capture on.
struct MoveTable {
    ends: Vec<Vec<(u32, u64)>>,
    captures: Vec<u64>,
}

impl MoveTable {
    fn build(side: &SideStates, state: PieceState, orthogonal_only: bool) -> MoveTable {
        let mut ends: Vec<Vec<(u32, u64)>> = vec![Vec::new(); 7];
        let mut captures = vec![0u64; 7];
        let piece = Piece::new(side.color, state.kind, state.facing);
        let longest = state.kind.dice().iter().copied().max().unwrap_or(0) as u8;
        walk(
            piece,
            state.sq,
            longest,
            orthogonal_only,
            &|_| true,
            &mut |end| {
                let k = end.steps as usize;
                if end.may_capture {
                    captures[k] |= end.to.bit();
                }
                if end.may_move {
                    let to = side.find(state.kind, end.to, end.facing);
                    let crossed = end.via | end.to.bit();
                    match ends[k].iter_mut().find(|(s, _)| *s == to) {
                        Some((_, mask)) => *mask &= crossed,
                        None => ends[k].push((to, crossed)),
                    }
                }
            },
        );
        MoveTable { ends, captures }
    }

    /// The end states of a roll of `n` with the opponent on `enemy`, or `None` for a capture.
    fn results(&self, n: usize, enemy: Sq, stay: u32) -> Option<Vec<u32>> {
        if self.captures[n] & enemy.bit() != 0 {
            return None;
        }
        for k in (1..=n).rev() {
            let found: Vec<u32> = self.ends[k]
                .iter()
                .filter(|(_, mask)| mask & enemy.bit() == 0)
                .map(|(s, _)| *s)
                .collect();
            if !found.is_empty() {
                return Some(found);
            }
        }
        Some(vec![stay])
    }
}

/// A solved table: the value of every placement for both sides to move.
pub struct Table {
    white: SideStates,
    black: SideStates,
    /// `[to_move][white state][black state]`, White to move first.
    values: Vec<f64>,
    /// The sweeps value iteration took, added up over the layers.
    pub sweeps: usize,
}

/// Solved layers of tables, by White's kind, Black's kind and variant: each layer's values
/// `[to_move][white state][black state]` over its two kinds' states in table order.
#[derive(Default)]
pub struct SolvedLayers {
    layers: std::collections::HashMap<(Kind, Kind, bool), Vec<f64>>,
}

/// The positions of one pair of kinds within a table: a range of each side's states.
struct Layer {
    kinds: (Kind, Kind),
    white: std::ops::Range<usize>,
    black: std::ops::Range<usize>,
}

impl Layer {
    fn cavalos(&self) -> usize {
        usize::from(self.kinds.0 == Kind::Cavalo) + usize::from(self.kinds.1 == Kind::Cavalo)
    }

    /// The table indices of the layer's positions, in table order (`nb` Black states).
    fn indices(&self, nw: usize, nb: usize) -> impl Iterator<Item = usize> + '_ {
        (0..2).flat_map(move |to_move| {
            self.white.clone().flat_map(move |w| {
                self.black
                    .clone()
                    .map(move |b| to_move * nw * nb + w * nb + b)
            })
        })
    }

    fn live_states(&self, graph: &Graph, nw: usize, nb: usize) -> Vec<u32> {
        self.indices(nw, nb)
            .filter(|&s| graph.live[s])
            .map(|s| s as u32)
            .collect()
    }

    fn take(&self, values: &[f64], nb: usize) -> Vec<f64> {
        let nw = values.len() / 2 / nb;
        self.indices(nw, nb).map(|s| values[s]).collect()
    }

    fn put(&self, values: &mut [f64], nb: usize, known: &[f64]) {
        let nw = values.len() / 2 / nb;
        for (s, &v) in self.indices(nw, nb).zip(known) {
            values[s] = v;
        }
    }
}

/// Solves the layers of one stage (each given by its live positions) by value iteration,
/// on up to as many threads as the machine has: (layer, its positions' values, sweeps).
fn solve_stage(
    graph: &Graph,
    values: &[f64],
    batch: &[(&Layer, Vec<u32>)],
    half: usize,
) -> Vec<(usize, Vec<f64>, usize)> {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let worker = || {
        let mut values = values.to_vec();
        let mut after_special = vec![0.0f64; values.len()];
        let mut done = Vec::new();
        loop {
            let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let Some((_, states)) = batch.get(i) else {
                return done;
            };
            // Later sweeps keep the after-special values current as they go.
            graph.update_after_special(&values, &mut after_special, states, half);
            let mut sweeps = 0;
            for _ in 0..MAX_SWEEPS {
                sweeps += 1;
                if graph.sweep(&mut values, &mut after_special, states, half) < TOLERANCE {
                    break;
                }
            }
            let layer_values = states.iter().map(|&s| values[s as usize]).collect();
            done.push((i, layer_values, sweeps));
        }
    };
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(batch.len());
    if threads <= 1 {
        return worker();
    }
    std::thread::scope(|scope| {
        let handles: Vec<_> = (0..threads).map(|_| scope.spawn(worker)).collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().expect("a table thread panicked"))
            .collect()
    })
}

/// The kinds a side's piece can become: a Cavalo promotes.
fn closure(kind: Kind, rinoceronte: bool) -> Vec<Kind> {
    if kind == Kind::Cavalo {
        let mut kinds = vec![Kind::Cavalo];
        kinds.extend_from_slice(Kind::promotion_choices(rinoceronte));
        kinds
    } else {
        vec![kind]
    }
}

impl Table {
    pub fn solve(white_kind: Kind, black_kind: Kind, rinoceronte: bool) -> Table {
        Table::solve_reusing(
            white_kind,
            black_kind,
            rinoceronte,
            &mut SolvedLayers::default(),
        )
    }

    /// Solves a table, taking the layers (pairs of kinds) `solved` already holds from there
    /// and adding those it solves: tables share layers (every table with a Cavalo holds the
    /// tables of what it promotes to), so a set of tables is solved once per layer.
    ///
    /// A piece only ever changes kind by promoting a Cavalo, so the pairs of kinds form
    /// layers: the pairs without a Cavalo first, then those with one, then two; each layer
    /// only looks at itself and the layers before. Layers of one stage are independent and
    /// solved on as many threads as the machine has, each on its own copy of the values
    /// (a layer's result does not depend on the thread or the order).
    pub fn solve_reusing(
        white_kind: Kind,
        black_kind: Kind,
        rinoceronte: bool,
        solved: &mut SolvedLayers,
    ) -> Table {
        let white = SideStates::new(Color::White, &closure(white_kind, rinoceronte));
        let black = SideStates::new(Color::Black, &closure(black_kind, rinoceronte));
        let (nw, nb) = (white.states.len(), black.states.len());
        let mut values = vec![0.0f64; 2 * nw * nb];
        let mut layers: Vec<Layer> = Vec::new();
        for &kw in &closure(white_kind, rinoceronte) {
            for &kb in &closure(black_kind, rinoceronte) {
                let layer = Layer {
                    kinds: (kw, kb),
                    white: white.range(kw),
                    black: black.range(kb),
                };
                match solved.layers.get(&(kw, kb, rinoceronte)) {
                    Some(known) => layer.put(&mut values, nb, known),
                    None => layers.push(layer),
                }
            }
        }
        let to_solve: std::collections::HashSet<(Kind, Kind)> =
            layers.iter().map(|l| l.kinds).collect();
        let graph = Graph::build(&white, &black, rinoceronte, &|kw, kb| {
            to_solve.contains(&(kw, kb))
        });
        let mut sweeps = 0;
        for stage in 0..=2 {
            let mut batch: Vec<(&Layer, Vec<u32>)> = layers
                .iter()
                .filter(|l| l.cavalos() == stage)
                .map(|l| (l, l.live_states(&graph, nw, nb)))
                .collect();
            // Biggest first, so that the threads finish together.
            batch.sort_by_key(|(_, states)| std::cmp::Reverse(states.len()));
            for (i, layer_values, layer_sweeps) in solve_stage(&graph, &values, &batch, nw * nb) {
                for (&s, v) in batch[i].1.iter().zip(layer_values) {
                    values[s as usize] = v;
                }
                sweeps += layer_sweeps;
            }
        }
        for layer in &layers {
            solved.layers.insert(
                (layer.kinds.0, layer.kinds.1, rinoceronte),
                layer.take(&values, nb),
            );
        }
        Table {
            white,
            black,
            values,
            sweeps,
        }
    }

    pub fn analyze(&self, query: &Query) -> Analysis {
        let nb = self.black.states.len();
        let offset = if query.white_to_move {
            0
        } else {
            self.white.states.len() * nb
        };
        let by_square = query.extremes == Extremes::Squares;
        let white = self.white.placements(&query.white, by_square);
        let black = self.black.placements(&query.black, by_square);
        let mut count = 0usize;
        let mut sum = 0.0;
        let mut min: Option<(f64, usize, usize)> = None;
        let mut max: Option<(f64, usize, usize)> = None;
        // Positions related by a symmetry of the board have equal values (up to rounding);
        // among them name the one the seed names: White's piece on the lowest file, then on
        // the highest rank for a minimum and the lowest for a maximum, then Black's piece on
        // the lowest file and rank.
        const TIE: f64 = 1e-9;
        let place = |w: usize, b: usize, high_rank_first: bool| {
            let (ws, bs) = (white[w].sq, black[b].sq);
            let wr = if high_rank_first {
                -ws.rank()
            } else {
                ws.rank()
            };
            (ws.file(), wr, bs.file(), bs.rank())
        };
        for (w, wp) in white.iter().enumerate() {
            for (b, bp) in black.iter().enumerate() {
                if bp.sq == wp.sq {
                    continue;
                }
                let mut pair_sum = 0.0;
                for &ws in &wp.states {
                    for &bs in &bp.states {
                        pair_sum += self.values[offset + ws * nb + bs];
                    }
                }
                let n = wp.states.len() * bp.states.len();
                count += n;
                sum += pair_sum;
                let v = pair_sum / n as f64;
                let better_min = min.is_none_or(|(m, mw, mb)| {
                    v < m - TIE || (v <= m + TIE && place(w, b, true) < place(mw, mb, true))
                });
                if better_min {
                    min = Some((v, w, b));
                }
                let better_max = max.is_none_or(|(m, mw, mb)| {
                    v > m + TIE || (v >= m - TIE && place(w, b, false) < place(mw, mb, false))
                });
                if better_max {
                    max = Some((v, w, b));
                }
            }
        }
        let ext = |e: Option<(f64, usize, usize)>| match e {
            Some((value, w, b)) => Extreme {
                value,
                white: white[w].text.clone(),
                black: black[b].text.clone(),
            },
            None => Extreme {
                value: 0.0,
                white: String::new(),
                black: String::new(),
            },
        };
        Analysis {
            positions: count,
            average: if count == 0 { 0.0 } else { sum / count as f64 },
            min: ext(min),
            max: ext(max),
        }
    }

    /// The value of one position (White's view).
    pub fn value(&self, white: PieceState, black: PieceState, white_to_move: bool) -> f64 {
        let (nw, nb) = (self.white.states.len(), self.black.states.len());
        let w = self.white.find(white.kind, white.sq, white.facing) as usize;
        let b = self.black.find(black.kind, black.sq, black.facing) as usize;
        let offset = if white_to_move { 0 } else { nw * nb };
        self.values[offset + w * nb + b]
    }

    /// The value of one position (White's view), or None when the table does not hold it (a
    /// piece it has no state for, or both pieces on one square): the robot asks of positions
    /// it has not vetted one by one.
    pub(crate) fn try_value(
        &self,
        white: PieceState,
        black: PieceState,
        white_to_move: bool,
    ) -> Option<f64> {
        if white.sq == black.sq {
            return None;
        }
        let (nw, nb) = (self.white.states.len(), self.black.states.len());
        let w = self.white.lookup(white)?;
        let b = self.black.lookup(black)?;
        let offset = if white_to_move { 0 } else { nw * nb };
        Some(self.values[offset + w * nb + b])
    }
}

/// Every state's choices in compressed rows: state -> options (a piece and die) -> rolls ->
/// successor states (indices into the value array, or a game end).
///
/// A move after which the mover may still make a special move (promote, turn a Rinoceronte)
/// has as successor the position's "after special" value: the best of the position and what
/// each special makes of it, kept in a second array refreshed once per sweep. Listing those
/// alternatives in every roll's successors instead tripled a Rinoceronte's rows.
struct Graph {
    state_options: Vec<u32>,
    option_rolls: Vec<u32>,
    roll_successors: Vec<u32>,
    successors: Vec<u32>,
    /// Successors at or above this (the number of states) index the after-special array.
    states: u32,
    /// Per state, in compressed rows: the states one special move of the side that has just
    /// moved makes of it (empty when it has none).
    special_rows: Vec<u32>,
    specials: Vec<u32>,
    /// States with both pieces on one square are skipped.
    live: Vec<bool>,
}

impl Graph {
    /// The choices of the positions whose pair of kinds `wanted` accepts (the others get none).
    fn build(
        white: &SideStates,
        black: &SideStates,
        rinoceronte: bool,
        wanted: &dyn Fn(Kind, Kind) -> bool,
    ) -> Graph {
        let (nw, nb) = (white.states.len(), black.states.len());
        // The Gata has a second table for rolls of 5 and 6, when it steps only orthogonally.
        let tables = |side: &SideStates| -> Vec<Vec<MoveTable>> {
            side.states
                .iter()
                .map(|&s| {
                    let mut t = vec![MoveTable::build(side, s, false)];
                    if s.kind == Kind::Gata {
                        t.push(MoveTable::build(side, s, true));
                    }
                    t
                })
                .collect()
        };
        let white_tables = tables(white);
        let black_tables = tables(black);
        let white_specials: Vec<Vec<u32>> = (0..nw as u32)
            .map(|s| white.specials(s, rinoceronte))
            .collect();
        let black_specials: Vec<Vec<u32>> = (0..nb as u32)
            .map(|s| black.specials(s, rinoceronte))
            .collect();
        let mut g = Graph {
            state_options: vec![0],
            option_rolls: vec![0],
            roll_successors: vec![0],
            successors: Vec::new(),
            states: (2 * nw * nb) as u32,
            special_rows: vec![0],
            specials: Vec::new(),
            live: Vec::with_capacity(2 * nw * nb),
        };
        for white_moves in [true, false] {
            for w in 0..nw {
                for b in 0..nb {
                    let live = white.states[w].sq != black.states[b].sq;
                    g.live.push(live);
                    if live && wanted(white.states[w].kind, black.states[b].kind) {
                        let (side, tabs, mover, enemy) = if white_moves {
                            (white, &white_tables, w, black.states[b].sq)
                        } else {
                            (black, &black_tables, b, white.states[w].sq)
                        };
                        // The successor index: the other side to move, the mover's new state.
                        let next = |s: u32| -> u32 {
                            if s >= LOSS_FOR_MOVER {
                                s
                            } else if white_moves {
                                (nw * nb + s as usize * nb + b) as u32
                            } else {
                                (w * nb + s as usize) as u32
                            }
                        };
                        let specials = if white_moves {
                            &white_specials
                        } else {
                            &black_specials
                        };
                        g.add_state(side, tabs, specials, mover as u32, enemy, &next);
                        // The side that has just moved into this position is the other one.
                        if white_moves {
                            let alts = black_specials[b].iter().map(|&b2| (w * nb) as u32 + b2);
                            g.specials.extend(alts);
                        } else {
                            let alts = white_specials[w]
                                .iter()
                                .map(|&w2| (nw * nb + w2 as usize * nb + b) as u32);
                            g.specials.extend(alts);
                        }
                    }
                    g.special_rows.push(g.specials.len() as u32);
                    g.state_options.push(g.option_rolls.len() as u32 - 1);
                }
            }
        }
        g
    }

    fn add_state(
        &mut self,
        side: &SideStates,
        tables: &[Vec<MoveTable>],
        specials: &[Vec<u32>],
        mover: u32,
        enemy: Sq,
        next: &dyn Fn(u32) -> u32,
    ) {
        let mut starts = vec![(mover, false)];
        starts.extend(specials[mover as usize].iter().map(|&s| (s, true)));
        for (piece, special_used) in starts {
            let kind = side.states[piece as usize].kind;
            for &die in kind.dice() {
                for roll in 1..=die as usize {
                    let table =
                        &tables[piece as usize][usize::from(kind == Kind::Gata && roll >= 5)];
                    let mut succ: Vec<u32> = match table.results(roll, enemy, piece) {
                        None => vec![WIN_FOR_MOVER],
                        Some(ends) => ends
                            .into_iter()
                            .map(|e| {
                                let may_special = !special_used
                                    && e != LOSS_FOR_MOVER
                                    && !specials[e as usize].is_empty();
                                if may_special {
                                    next(e) + self.states
                                } else {
                                    next(e)
                                }
                            })
                            .collect(),
                    };
                    succ.sort_unstable();
                    succ.dedup();
                    self.successors.extend(succ);
                    self.roll_successors.push(self.successors.len() as u32);
                }
                self.option_rolls
                    .push(self.roll_successors.len() as u32 - 1);
            }
        }
    }

    /// Refreshes the after-special values of these states: the best, for the side that has
    /// just moved, of the position and what its special moves make of it.
    fn update_after_special(
        &self,
        values: &[f64],
        after_special: &mut [f64],
        states: &[u32],
        half: usize,
    ) {
        for &s in states {
            self.refresh_after_special(values, after_special, s as usize, half);
        }
    }

    fn refresh_after_special(
        &self,
        values: &[f64],
        after_special: &mut [f64],
        s: usize,
        half: usize,
    ) {
        let white_moved = s >= half;
        after_special[s] = self.alternatives(s).iter().fold(values[s], |best, &t| {
            pick(white_moved, best, values[t as usize])
        });
    }

    fn alternatives(&self, s: usize) -> &[u32] {
        &self.specials[self.special_rows[s] as usize..self.special_rows[s + 1] as usize]
    }

    /// One Gauss-Seidel sweep; returns the largest change.
    fn sweep(
        &self,
        values: &mut [f64],
        after_special: &mut [f64],
        states: &[u32],
        half: usize,
    ) -> f64 {
        let mut delta: f64 = 0.0;
        for &s in states {
            let s = s as usize;
            let white_moves = s < half;
            let (win, loss) = if white_moves {
                (1.0, -1.0)
            } else {
                (-1.0, 1.0)
            };
            let mut best = f64::NAN;
            let options = self.state_options[s] as usize..self.state_options[s + 1] as usize;
            for o in options {
                let rolls = self.option_rolls[o] as usize..self.option_rolls[o + 1] as usize;
                let n = rolls.len() as f64;
                let mut total = 0.0;
                for r in rolls {
                    let succ = &self.successors
                        [self.roll_successors[r] as usize..self.roll_successors[r + 1] as usize];
                    let mut roll_best = f64::NAN;
                    for &t in succ {
                        let v = match t {
                            WIN_FOR_MOVER => win,
                            LOSS_FOR_MOVER => loss,
                            _ if t >= self.states => after_special[(t - self.states) as usize],
                            _ => values[t as usize],
                        };
                        roll_best = pick(white_moves, roll_best, v);
                    }
                    total += roll_best;
                }
                best = pick(white_moves, best, total / n);
            }
            delta = delta.max((values[s] - best).abs());
            values[s] = best;
            // Gauss-Seidel for the after-special values too: this position's, and those of
            // the positions a special makes it from (a Rinoceronte's quarter turns go both
            // ways; a promotion's sources are a Cavalo, in a later layer).
            self.refresh_after_special(values, after_special, s, half);
            for &t in self.alternatives(s) {
                self.refresh_after_special(values, after_special, t as usize, half);
            }
        }
        delta
    }
}

/// The better of two values for the side to move (NaN = nothing yet).
fn pick(white_moves: bool, a: f64, b: f64) -> f64 {
    if a.is_nan() || (white_moves && b > a) || (!white_moves && b < a) {
        b
    } else {
        a
    }
}
