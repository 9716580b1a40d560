//! Rebuilds a stored game's position from its move log (the only way a position is ever made).

use anyhow::{anyhow, Context};

use crate::games::{Actor, AnyGame, GameKind, Options, ToAct};
use crate::records;
use crate::store::{GameRow, MoveRow, SeatRow, Tx};

mod memo;

/// A stored game with its position rebuilt.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub row: GameRow,
    pub seats: Vec<SeatRow>,
    pub moves: Vec<MoveRow>,
    pub game: AnyGame,
    /// The position before the first ply (for exports).
    pub start: AnyGame,
    /// Every die the GM rolled, in order: (sides, value). Its length is the next roll index.
    pub rolls: Vec<(u32, u32)>,
    /// A turn of orders: the seats whose orders are in (others' orders are never shown).
    pub ordered: Vec<usize>,
    /// The board of `game`, drawn once for all the mails about it; `set_game` clears it.
    board_text: std::cell::OnceCell<String>,
}

impl Loaded {
    pub fn kind(&self) -> GameKind {
        self.game.kind()
    }

    /// The board as mails show it.
    pub fn board(&self) -> &str {
        self.board_text.get_or_init(|| self.game.board())
    }

    /// Makes `game` the position (after a ply).
    pub fn set_game(&mut self, game: AnyGame) {
        self.game = game;
        self.board_text = std::cell::OnceCell::new();
        // A ply ends the turn whose orders were in: the next turn has none yet.
        self.ordered.clear();
    }

    /// The seat row of a seat.
    pub fn seat(&self, seat: usize) -> Option<&SeatRow> {
        self.seats.iter().find(|s| s.seat == seat)
    }

    /// The ply log as (actor, canonical text).
    pub fn plies(&self) -> anyhow::Result<Vec<(Actor, String)>> {
        self.moves
            .iter()
            .map(|m| {
                records::actor_by_name(&self.game, &m.actor)
                    .map(|a| (a, m.text.clone()))
                    .ok_or_else(|| anyhow!("unknown actor '{}' in the log", m.actor))
            })
            .collect()
    }
}

/// The options stored with a game.
pub fn options_of(row: &GameRow) -> anyhow::Result<Options> {
    serde_json::from_str(&row.options).context("the game's stored options are not valid JSON")
}

/// The starting position of a stored game.
pub fn start_of(row: &GameRow) -> anyhow::Result<AnyGame> {
    let kind =
        GameKind::parse(&row.kind).ok_or_else(|| anyhow!("unknown game kind {}", row.kind))?;
    let options = options_of(row)?;
    match &row.start_position {
        Some(p) => AnyGame::from_position(kind, &options, p),
        None => AnyGame::new(kind, &options),
    }
    .map_err(|e| anyhow!("game {}: {e}", row.id))
}

/// Replays a log onto a start position; a ply that does not replay means a corrupt store.
/// Returns the position and every die rolled on the way.
pub fn replay(
    start: &AnyGame,
    moves: &[MoveRow],
    id: i64,
) -> anyhow::Result<(AnyGame, Vec<(u32, u32)>)> {
    let mut game = start.clone();
    let mut rolls = Vec::new();
    replay_onto(&mut game, &mut rolls, moves, id)?;
    Ok((game, rolls))
}

/// Plays logged plies onto a position, collecting the dice rolled.
fn replay_onto(
    game: &mut AnyGame,
    rolls: &mut Vec<(u32, u32)>,
    moves: &[MoveRow],
    id: i64,
) -> anyhow::Result<()> {
    for m in moves {
        let actor = records::actor_by_name(game, &m.actor)
            .ok_or_else(|| anyhow!("game {id} ply {}: unknown actor {}", m.ply, m.actor))?;
        if let (Actor::Chance, ToAct::Chance(sides)) = (actor, game.to_act()) {
            rolls.extend(sides.into_iter().zip(chance_values(&m.text)));
        }
        game.play(actor, &m.text)
            .map_err(|e| anyhow!("game {id} ply {} ({}) does not replay: {e}", m.ply, m.text))?;
    }
    Ok(())
}

/// The rolled values a chance ply records: its integers, in order (`roll 3 5` -> 3, 5).
pub fn chance_values(text: &str) -> Vec<u32> {
    text.split(|c: char| !c.is_ascii_digit())
        .filter_map(|t| t.parse().ok())
        .collect()
}

/// Loads a game and rebuilds its position.
pub fn load(tx: &Tx, id: i64) -> anyhow::Result<Loaded> {
    let row = tx
        .game(id)?
        .ok_or_else(|| anyhow!("there is no game {id}"))?;
    let seats = tx.seats(id)?;
    let moves = tx.moves(id)?;
    let memo::Replayed { start, game, rolls } = memo::replay(&row, &moves)?;
    let ordered = match game.to_act() {
        ToAct::Orders(_) => tx
            .pending(id, crate::store::PendingKind::Orders)?
            .into_iter()
            .map(|(s, _)| s)
            .collect(),
        _ => Vec::new(),
    };
    Ok(Loaded {
        row,
        seats,
        moves,
        game,
        start,
        rolls,
        ordered,
        board_text: std::cell::OnceCell::new(),
    })
}

/// The position of game `id` after its first `plies` plies (fewer if the log is shorter), and
/// the last of those plies: from the memo of replays, so that drawing the positions of a game
/// one after another replays only the plies between them, never the whole log each time.
pub fn position_at(tx: &Tx, id: i64, plies: usize) -> anyhow::Result<(AnyGame, Option<MoveRow>)> {
    let row = tx
        .game(id)?
        .ok_or_else(|| anyhow!("there is no game {id}"))?;
    let mut moves = tx.moves(id)?;
    moves.truncate(plies);
    let memo::Replayed { game, .. } = memo::replay(&row, &moves)?;
    Ok((game, moves.pop()))
}
