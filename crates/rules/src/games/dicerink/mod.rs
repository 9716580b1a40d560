//! Dice Rink (seed 000): the `Rules` implementation tying the die, position, notation, legality and board together.

pub mod board;
pub mod die;
pub mod legal;
pub mod notation;
pub mod position;
pub mod resolve;

use serde_json::json;

use crate::games::{
    check_options, options_get, Actor, GameFacts, OptionSpec, Options, Outcome, PlyError, Rules,
    ToAct,
};
use legal::{Move, SetupRule};
use position::{goal_rank, opponent, Position, Square, SEAT_NAMES};

const OPTION_SPECS: &[OptionSpec] = &[
    OptionSpec {
        name: "setup",
        default: "free",
        values: &["free", "fixed"],
        duration: None,
        help: "free: each side places its two dice on any squares of its home rank; fixed: A \
               on b1 and c1, B on b4 and c4 (tops and fronts are still chosen)",
    },
    OptionSpec {
        name: "movecap",
        default: "off",
        values: &[],
        duration: None,
        help: "off, or a number N: the game is drawn after N full moves",
    },
];

/// A game of Dice Rink: the position plus what replaying the plies has established.
#[derive(Debug, Clone)]
pub struct DiceRink {
    setup: SetupRule,
    move_cap: Option<u32>,
    pos: Position,
    /// Plies since the set-up ended; a `[Position]` start with B to move counts as one.
    plies: u32,
    outcome: Option<Outcome>,
    report: Option<String>,
    /// What the last move touched: a placement's or rotation's square, a roll's start and
    /// end, nothing after a pass (the board picture marks them).
    last_squares: Vec<Square>,
}

/// This game's settings in a player's words (`GameFacts::settings`).
fn settings(options: &Options) -> Vec<String> {
    let setup = match options_get(OPTION_SPECS, options, "setup") {
        "fixed" => {
            "Set-up: fixed: A on b1 and c1, B on b4 and c4 (tops and fronts are still chosen)"
        }
        _ => "Set-up: free: each side places its two dice on any squares of its home rank",
    };
    let cap = match options_get(OPTION_SPECS, options, "movecap") {
        "off" => "Move limit: none".to_string(),
        n => format!("Move limit: the game is drawn after {n} full moves"),
    };
    vec![setup.into(), cap]
}

/// Reads and checks the options (the move cap is free text, checked here).
fn read_options(options: &Options) -> Result<(SetupRule, Option<u32>), String> {
    check_options(OPTION_SPECS, options)?;
    let setup = match options_get(OPTION_SPECS, options, "setup") {
        "fixed" => SetupRule::Fixed,
        _ => SetupRule::Free,
    };
    let cap_text = options_get(OPTION_SPECS, options, "movecap").trim();
    let move_cap = if cap_text.eq_ignore_ascii_case("off") {
        None
    } else {
        match cap_text.parse::<u32>() {
            Ok(n) if n >= 1 => Some(n),
            _ => {
                return Err(format!(
                    "option 'movecap' must be off or a number of full moves (1 or more), not \
                     '{cap_text}'"
                ))
            }
        }
    };
    Ok((setup, move_cap))
}

impl DiceRink {
    /// The current position (dice, side to move, obligation).
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// The die the side to move must move, if any: none once the game is over, whatever the
    /// last roll matched (the board, the JSON and the picture all read it here).
    pub fn must_move(&self) -> Option<Square> {
        self.pos.forced.filter(|_| self.outcome.is_none())
    }

    /// The squares the last move touched (none at the start and after a pass).
    pub fn last_squares(&self) -> &[Square] {
        &self.last_squares
    }

    /// Plays a resolved, legal move and settles what follows from it.
    fn apply_move(&mut self, mv: Move) {
        let mover = self.pos.to_move;
        self.last_squares = match mv {
            Move::Place { square, .. } | Move::Rotate { square, .. } => vec![square],
            Move::Roll { from, dir } => std::iter::once(from).chain(from.step(dir)).collect(),
            Move::Pass => Vec::new(),
        };
        let in_setup = !legal::setup_done(&self.pos);
        self.pos = legal::apply(&self.pos, &mv);
        if in_setup {
            self.report =
                legal::setup_done(&self.pos).then(|| "set-up complete: A moves first".to_string());
            return;
        }
        self.plies += 1;
        let goal = goal_rank(mover);
        if self.pos.dice_of(mover).all(|d| d.square.rank() == goal) {
            self.outcome = Some(Outcome::Win {
                seat: mover,
                reason: format!("both dice on rank {}", goal + 1),
            });
            self.report = Some(format!(
                "{} wins: both dice on rank {}",
                SEAT_NAMES[mover],
                goal + 1
            ));
            return;
        }
        if let Some(cap) = self.move_cap {
            if self.plies % 2 == 0 && self.plies / 2 >= cap {
                self.outcome = Some(Outcome::Draw {
                    seats: vec![0, 1],
                    reason: format!("the move cap of {cap} full moves was reached"),
                });
                self.report = Some(format!(
                    "drawn: the move cap of {cap} full moves was reached"
                ));
                return;
            }
        }
        let passed = (mv == Move::Pass).then(|| format!("{} passes", SEAT_NAMES[mover]));
        let lines: Vec<String> = passed.into_iter().chain(self.situation()).collect();
        self.report = (!lines.is_empty()).then(|| lines.join("; "));
    }

    /// What the side to move is bound to, when it is more than a free roll.
    fn situation(&self) -> Option<String> {
        if self.outcome.is_some() || !legal::setup_done(&self.pos) {
            return None;
        }
        let seat = self.pos.to_move;
        let name = SEAT_NAMES[seat];
        let moves = legal::legal_moves(&self.pos, self.setup);
        let rotating = moves.iter().any(|m| matches!(m, Move::Rotate { .. }));
        if let Some(f) = self.pos.forced {
            let value = self.pos.die_at(f).map(|d| d.value());
            let matched = self
                .pos
                .dice_of(opponent(seat))
                .find(|d| Some(d.value()) == value)
                .map(|d| d.top())
                .unwrap_or(0);
            let mut text = format!(
                "{name} must move the die on {f} (it matches {}'s {matched})",
                SEAT_NAMES[opponent(seat)]
            );
            if rotating {
                text.push_str("; it cannot roll, so it must be rotated");
            }
            return Some(text);
        }
        if moves == [Move::Pass] {
            Some(format!("{name} has no legal move and must pass"))
        } else if rotating {
            Some(format!("{name} cannot roll either die and may rotate one"))
        } else {
            None
        }
    }

    fn status_lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let head = match (&self.outcome, self.move_number()) {
            (Some(o), _) => match o {
                Outcome::Win { seat, reason } => {
                    format!(
                        "Dice Rink: game over, {} wins ({reason})",
                        SEAT_NAMES[*seat]
                    )
                }
                Outcome::Draw { reason, .. } => format!("Dice Rink: game over, drawn ({reason})"),
            },
            (None, None) => format!(
                "Dice Rink: set-up, {} places a die on rank {}",
                SEAT_NAMES[self.pos.to_move],
                position::home_rank(self.pos.to_move) + 1
            ),
            (None, Some((n, first))) => format!(
                "Dice Rink: move {n}{}, {} to move",
                if first { "" } else { "..." },
                SEAT_NAMES[self.pos.to_move]
            ),
        };
        lines.push(head);
        if self.outcome.is_none() {
            lines.extend(self.situation());
        }
        lines
    }
}

impl Rules for DiceRink {
    const FACTS: GameFacts = GameFacts {
        name: "dicerink",
        title: "Dice Rink",
        rolls_dice: false,
        simultaneous: false,
        seats: &SEAT_NAMES,
        players: (2, 2),
        options: OPTION_SPECS,
        settings,
        summary: "Dice Rink: two players, two dice each on a 4x4 board. A places on rank\n\
             1, B on rank 4, each die as square, top and front (b1 5/4); the four\n\
             tops show four different values (low 1-2, high 4-5, 3, 6). Each turn\n\
             roll one die over an edge (5W6: the die showing 5 rolls west and shows\n\
             6). Your two dice never show the same value; matching an opponent's\n\
             value forces them to move that die. Win with both dice on the opponent's\n\
             home rank.",
        player_guide: include_str!("../../../../../help/dicerink.md"),
    };

    fn new(options: &Options) -> Result<Self, String> {
        let (setup, move_cap) = read_options(options)?;
        Ok(DiceRink {
            setup,
            move_cap,
            pos: Position::empty(),
            plies: 0,
            outcome: None,
            report: None,
            last_squares: Vec::new(),
        })
    }

    fn from_position(options: &Options, tag: &str) -> Result<Self, String> {
        let (setup, move_cap) = read_options(options)?;
        let pos = Position::parse_tag(tag)?;
        for (seat, name) in SEAT_NAMES.iter().enumerate() {
            let goal = goal_rank(seat);
            if pos.dice_of(seat).all(|d| d.square.rank() == goal) {
                return Err(format!(
                    "{name} already has both dice on rank {}: that game is over",
                    goal + 1
                ));
            }
        }
        let plies = u32::from(pos.to_move == 1);
        Ok(DiceRink {
            setup,
            move_cap,
            pos,
            plies,
            outcome: None,
            report: None,
            last_squares: Vec::new(),
        })
    }

    fn position_tag(&self) -> String {
        self.pos.tag()
    }

    fn seat_names(&self) -> &'static [&'static str] {
        &SEAT_NAMES
    }

    fn to_act(&self) -> ToAct {
        if self.outcome.is_some() {
            ToAct::Nobody
        } else {
            ToAct::Seat(self.pos.to_move)
        }
    }

    fn play(&mut self, actor: Actor, text: &str) -> Result<String, PlyError> {
        if self.outcome.is_some() {
            return Err(PlyError::NotYourTurn("the game is over".into()));
        }
        let written = notation::parse(text).map_err(PlyError::Syntax)?;
        let to_move = self.pos.to_move;
        match actor {
            Actor::Seat(seat) if seat == to_move => {}
            Actor::Seat(seat) => {
                return Err(PlyError::NotYourTurn(format!(
                    "it is {}'s turn, not {}'s",
                    SEAT_NAMES[to_move],
                    SEAT_NAMES.get(seat).copied().unwrap_or("?")
                )))
            }
            _ => {
                return Err(PlyError::NotYourTurn(format!(
                    "it is {}'s turn: only {} makes this move",
                    SEAT_NAMES[to_move], SEAT_NAMES[to_move]
                )))
            }
        }
        let mv = resolve::resolve(&self.pos, self.setup, &written)?;
        let canonical = legal::canonical(&self.pos, &mv);
        self.apply_move(mv);
        Ok(canonical)
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome.clone()
    }

    fn legal_plies(&self) -> Vec<String> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        legal::legal_moves(&self.pos, self.setup)
            .iter()
            .map(|m| legal::canonical(&self.pos, m))
            .collect()
    }

    fn conclude(&mut self, outcome: &Outcome) {
        self.outcome = Some(outcome.clone());
    }

    fn board(&self) -> String {
        board::render(&self.pos, self.must_move(), &self.status_lines())
    }

    /// The report just said what binds the side to move ("A must move the die on c1"): the
    /// board beside it keeps its heading and its `!` mark, not that line again.
    fn board_beside_report(&self) -> String {
        let mut lines = self.status_lines();
        lines.truncate(1);
        board::render(&self.pos, self.must_move(), &lines)
    }

    fn position_json(&self) -> serde_json::Value {
        let dice: Vec<serde_json::Value> = self
            .pos
            .dice()
            .iter()
            .map(|d| {
                json!({
                    "player": SEAT_NAMES[d.owner],
                    "square": d.square.to_string(),
                    "top": d.top(),
                    "front": d.front(),
                })
            })
            .collect();
        json!({
            "to_move": if self.outcome.is_some() { None } else { Some(SEAT_NAMES[self.pos.to_move]) },
            "forced": self.must_move().map(|s| s.to_string()),
            "dice": dice,
        })
    }

    fn move_number(&self) -> Option<(u32, bool)> {
        legal::setup_done(&self.pos).then_some((self.plies / 2 + 1, self.plies % 2 == 0))
    }

    fn split_plies(&self, text: &str) -> Vec<String> {
        notation::split_plies(text)
    }

    fn last_report(&self) -> Option<String> {
        self.report.clone()
    }

    fn auto_ply(&self) -> Option<String> {
        // The moves themselves, not their written forms: writing each legal move out was most
        // of the time a move's mail spent here.
        let only_pass =
            self.outcome.is_none() && legal::legal_moves(&self.pos, self.setup) == [Move::Pass];
        only_pass.then(|| "pass".to_string())
    }
}
