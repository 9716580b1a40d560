//! Dicess (seed 003): the `Rules` implementation tying the set-up, turns, the impasse rule, the tag, the board and the JSON together.

pub mod board;
pub mod help;
pub mod impasse;
pub mod json;
pub mod notation;
pub mod position;
pub mod report;
pub mod setup;
pub mod steps;
pub mod tag;
pub mod turn;

#[cfg(test)]
mod tests;

use crate::games::{
    check_options, Actor, GameFacts, Options, Outcome, PlyError, Rules, Seat, ToAct,
};
use impasse::Watch;
use notation::Written;
use position::{opponent, Board, Square, DARK, LIGHT, SEAT_NAMES};
use setup::Phase;

/// A game of Dicess: the board, the phase, and what the impasse rule needs of the past.
#[derive(Debug, Clone)]
pub struct Dicess {
    phase: Phase,
    board: Board,
    /// Each side's 16 rolled numbers, from the roll until the set-up is complete.
    rolled: Option<[Vec<u8>; 2]>,
    watch: Watch,
    outcome: Option<Outcome>,
    /// The last turn: who played it and its canonical text.
    last_turn: Option<(Seat, String)>,
    /// The squares the last turn's paths touched, marked on the board.
    last_path: Vec<Square>,
    /// Each path of the last turn, square by square from its start (the board picture draws
    /// them).
    last_paths: Vec<Vec<Square>>,
    report: Option<String>,
}

fn not_your_turn(text: impl Into<String>) -> PlyError {
    PlyError::NotYourTurn(text.into())
}

impl Dicess {
    fn with(phase: Phase, board: Board, rolled: Option<[Vec<u8>; 2]>) -> Dicess {
        let watch = Watch::start(board.scores());
        Dicess {
            phase,
            board,
            rolled,
            watch,
            outcome: None,
            last_turn: None,
            last_path: Vec::new(),
            last_paths: Vec::new(),
            report: None,
        }
    }

    /// The board as it stands.
    pub fn position(&self) -> &Board {
        &self.board
    }

    /// The last turn's paths, each from its start square through every square it stepped
    /// onto (none before the first turn and after a pass).
    pub fn last_paths(&self) -> &[Vec<Square>] {
        &self.last_paths
    }

    /// Checks the actor against the phase: the GM rolls, each side places and moves in turn.
    fn check_actor(&self, actor: Actor) -> Result<(), PlyError> {
        let due = match self.phase {
            Phase::Roll => {
                return match actor {
                    Actor::Chance => Ok(()),
                    _ => Err(not_your_turn(
                        "the GM rolls the set-up dice first: nobody moves before the roll",
                    )),
                }
            }
            Phase::Place(s) | Phase::Turn(s) => s,
        };
        match actor {
            Actor::Seat(s) if s == due => Ok(()),
            Actor::Seat(s) => Err(not_your_turn(format!(
                "it is {}'s turn, not {}'s",
                SEAT_NAMES[due],
                SEAT_NAMES.get(s).copied().unwrap_or("?")
            ))),
            Actor::Chance => Err(not_your_turn(format!(
                "no roll is due: it is {}'s turn",
                SEAT_NAMES[due]
            ))),
            Actor::Gm => Err(not_your_turn(format!(
                "it is {}'s turn: only {} plays it",
                SEAT_NAMES[due], SEAT_NAMES[due]
            ))),
        }
    }

    fn play_roll(&mut self, written: Written) -> Result<String, PlyError> {
        let Written::Roll(values) = written else {
            return Err(PlyError::Syntax(
                "the GM's ply is the set-up roll: 'roll' and 32 numbers from 1 to 6".into(),
            ));
        };
        let rolled = setup::split_roll(&values).map_err(PlyError::Illegal)?;
        self.report = Some(report::roll(&rolled));
        self.rolled = Some(rolled);
        self.phase = Phase::Place(LIGHT);
        Ok(self.chance_ply(&values))
    }

    fn play_placement(&mut self, side: Seat, written: Written) -> Result<String, PlyError> {
        let rolled = self.rolled.as_ref().expect("a placement follows the roll");
        let Written::Setup(rows) = written else {
            let [back, front] = setup::home_ranks(side);
            return Err(PlyError::Illegal(format!(
                "{}'s set-up is due: place your rolled numbers ({}) as R{back}: ... / R{front}: ...",
                SEAT_NAMES[side],
                setup::spaced(&setup::sorted(&rolled[side]))
            )));
        };
        let dice = setup::placement(side, &rows, &rolled[side]).map_err(PlyError::Illegal)?;
        for (sq, die) in dice {
            self.board.put(sq, die);
        }
        let canonical = setup::canonical(side, &self.board);
        self.report = Some(report::placement(side, &canonical));
        if side == LIGHT {
            self.phase = Phase::Place(DARK);
        } else {
            // Round 0 of the impasse rule is the end of the set-up.
            self.watch = Watch::start(self.board.scores());
            self.rolled = None;
            self.phase = Phase::Turn(LIGHT);
        }
        Ok(canonical)
    }

    fn play_turn(&mut self, side: Seat, written: Written) -> Result<String, PlyError> {
        let (played, canonical) = match written {
            Written::Pass => {
                if steps::has_legal_step(&self.board, side) {
                    let example = help::sample_turns(&self.board, side).swap_remove(0);
                    return Err(PlyError::Illegal(format!(
                        "{} can still move (for example {example}; MOVES lists the steps): \
                         pass is only for a side with no legal step",
                        SEAT_NAMES[side]
                    )));
                }
                (None, "pass".to_string())
            }
            Written::Turn(paths) => {
                let played = turn::play(&self.board, side, &paths).map_err(PlyError::Illegal)?;
                let canonical = notation::write_turn(&played.paths);
                (Some(played), canonical)
            }
            Written::Roll(_) | Written::Setup(_) => {
                return Err(PlyError::Illegal(format!(
                    "the set-up is over: {} plays a turn like e2-e3-e4; f2-f3",
                    SEAT_NAMES[side]
                )))
            }
        };
        self.apply_turn(side, played.as_ref(), &canonical);
        Ok(canonical)
    }

    /// Applies a checked turn (`None`: a pass) and settles a star win or an impasse.
    fn apply_turn(&mut self, side: Seat, played: Option<&turn::Played>, canonical: &str) {
        if let Some(p) = played {
            self.board = p.board.clone();
        }
        self.last_path = played.map(|p| p.touched.clone()).unwrap_or_default();
        self.last_paths = played
            .map(|p| {
                let squares = |path: &notation::Path| {
                    std::iter::once(path.start)
                        .chain(path.steps.iter().map(|s| s.to))
                        .collect()
                };
                p.paths.iter().map(squares).collect()
            })
            .unwrap_or_default();
        self.last_turn = Some((side, canonical.to_string()));
        self.phase = Phase::Turn(opponent(side));
        let win = played.and_then(|p| p.win);
        let progress = played.is_some_and(turn::Played::progress);
        let impasse = if win.is_some() {
            None
        } else {
            self.watch.turn(side, progress, self.board.scores())
        };
        if let Some(sq) = win {
            self.outcome = Some(Outcome::Win {
                seat: side,
                reason: format!("entered the star square {sq}"),
            });
        } else if let Some(i) = &impasse {
            self.outcome = Some(Outcome::Win {
                seat: i.winner,
                reason: i.reason(),
            });
        }
        let blocked = self.outcome.is_none() && !steps::has_legal_step(&self.board, opponent(side));
        self.report = Some(report::turn(
            side,
            canonical,
            played,
            impasse.as_ref(),
            blocked,
        ));
    }

    /// The lines under the board: the phase, the rolls during the set-up, the last turn, the
    /// scores and the impasse count.
    /// The lines under the board; `last`: with the lines of the last ply (the roll right after
    /// it, the last turn), left out where the mail's report has just told it.
    fn status_lines(&self, last: bool) -> Vec<String> {
        let mut lines = Vec::new();
        let head = match (&self.outcome, self.phase) {
            (Some(Outcome::Win { seat, reason }), _) => {
                format!("Dicess: game over, {} wins ({reason}).", SEAT_NAMES[*seat])
            }
            (Some(Outcome::Draw { reason, .. }), _) => format!("Dicess: game over, {reason}."),
            (None, Phase::Roll) => "Dicess, set-up: the GM rolls all 32 dice.".to_string(),
            (None, Phase::Place(s)) => {
                let [back, front] = setup::home_ranks(s);
                format!(
                    "Dicess, set-up: {} places its 16 dice on ranks {back} and {front}.",
                    SEAT_NAMES[s]
                )
            }
            (None, Phase::Turn(s)) => format!(
                "Dicess, round {}: {} to move (1 to 6 points).",
                self.watch.round(),
                SEAT_NAMES[s]
            ),
        };
        lines.push(head);
        // Once LIGHT has placed, DARK still places from its roll: the roll's lines stay.
        let just_rolled = self.phase == Phase::Place(LIGHT);
        if let Some(rolled) = self.rolled.as_ref().filter(|_| last || !just_rolled) {
            for side in [LIGHT, DARK] {
                lines.push(format!(
                    "{} rolled {}",
                    SEAT_NAMES[side],
                    setup::spaced(&rolled[side])
                ));
                lines.push(format!(
                    "  (sorted: {})",
                    setup::spaced(&setup::sorted(&rolled[side]))
                ));
            }
        }
        if let Some((side, text)) = self.last_turn.as_ref().filter(|_| last) {
            lines.push(format!("Last turn, {}: {text}", SEAT_NAMES[*side]));
        }
        if matches!(self.phase, Phase::Turn(_)) {
            let [l, d] = self.board.scores();
            lines.push(format!("Scores: LIGHT {l}, DARK {d}."));
        }
        if let (None, Phase::Turn(s)) = (&self.outcome, self.phase) {
            lines.extend(self.watch.status(s, self.board.scores()));
            if !steps::has_legal_step(&self.board, s) {
                lines.push(format!(
                    "{} has no legal step: the turn is pass.",
                    SEAT_NAMES[s]
                ));
            }
        }
        lines
    }
}

impl Rules for Dicess {
    const FACTS: GameFacts = GameFacts {
        name: "dicess",
        title: "Dicess",
        rolls_dice: true,
        simultaneous: false,
        seats: &position::SEAT_NAMES,
        players: (2, 2),
        options: &[],
        settings: |_| Vec::new(),
        summary: "Dicess: two players, 16 dice each on a chess board. The GM rolls all 32\n\
             dice; LIGHT places its numbers on ranks 1-2, files a to h, as in\n\
             R1: 6 2 4 1 1 3 5 5 / R2: 2 6 4 3 1 2 6 5, then DARK on ranks 8-7.\n\
             Each turn spend 1 to 6 points: a step to an orthogonal neighbour costs\n\
             the die's number (e2-e3-e4; f2-f3). Capture by stepping onto an enemy\n\
             die when your die plus your dice next to it reach its number (d5xd6;\n\
             it ends the turn); promote on entering the last row (c7-c8=6). Win by\n\
             entering a star square of the opponent (d8 or e8 for LIGHT, d1 or e1\n\
             for DARK), or by the better score at an impasse (5 rounds without a\n\
             capture, a promotion or a side's advance).",
        player_guide: include_str!("../../../../../help/dicess.md"),
    };

    fn conclude(&mut self, outcome: &Outcome) {
        self.outcome = Some(outcome.clone());
    }

    fn new(options: &Options) -> Result<Self, String> {
        check_options(&[], options)?;
        Ok(Dicess::with(Phase::Roll, Board::default(), None))
    }

    fn from_position(options: &Options, tag: &str) -> Result<Self, String> {
        check_options(&[], options)?;
        let t = tag::read(tag)?;
        Ok(Dicess::with(t.phase, t.board, t.rolled))
    }

    fn position_tag(&self) -> String {
        tag::write(&tag::Tag {
            board: self.board.clone(),
            phase: self.phase,
            rolled: self.rolled.clone(),
        })
    }

    fn seat_names(&self) -> &'static [&'static str] {
        &SEAT_NAMES
    }

    fn to_act(&self) -> ToAct {
        match (&self.outcome, self.phase) {
            (Some(_), _) => ToAct::Nobody,
            (None, Phase::Roll) => ToAct::Chance(vec![6; 32]),
            (None, Phase::Place(s) | Phase::Turn(s)) => ToAct::Seat(s),
        }
    }

    fn play(&mut self, actor: Actor, text: &str) -> Result<String, PlyError> {
        if self.outcome.is_some() {
            return Err(not_your_turn("the game is over"));
        }
        // Read first: a line that is no Dicess notation at all is a syntax error whoever
        // sends it, so the mail layer can ignore prose instead of answering "not your turn".
        let written = notation::parse(text).map_err(PlyError::Syntax)?;
        self.check_actor(actor)?;
        let mut next = self.clone();
        let canonical = match next.phase {
            Phase::Roll => next.play_roll(written)?,
            Phase::Place(side) => next.play_placement(side, written)?,
            Phase::Turn(side) => next.play_turn(side, written)?,
        };
        *self = next;
        Ok(canonical)
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome.clone()
    }

    fn legal_plies(&self) -> Vec<String> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        match self.phase {
            // 6^32 rolls: a sample of six, each die showing a different number in each.
            Phase::Roll => (0..6)
                .map(|i| {
                    let values: Vec<u32> = (0..32).map(|j| (i + j) % 6 + 1).collect();
                    self.chance_ply(&values)
                })
                .collect(),
            // One of the many permutations: the numbers in the order rolled.
            Phase::Place(side) => {
                let rolled = self.rolled.as_ref().expect("rolled before placing");
                let [back, front] = setup::home_ranks(side);
                let row = |v: &[u8]| setup::spaced(v);
                vec![format!(
                    "R{back}: {} / R{front}: {}",
                    row(&rolled[side][..8]),
                    row(&rolled[side][8..])
                )]
            }
            Phase::Turn(side) => help::sample_turns(&self.board, side),
        }
    }

    fn board(&self) -> String {
        board::render(&self.board, &self.last_path, &self.status_lines(true))
    }

    fn board_beside_report(&self) -> String {
        board::render(&self.board, &self.last_path, &self.status_lines(false))
    }

    fn position_json(&self) -> serde_json::Value {
        json::position(&json::View {
            board: &self.board,
            phase: self.phase,
            over: self.outcome.is_some(),
            rolled: self.rolled.as_ref(),
            watch: &self.watch,
            last_turn: self.last_turn.as_ref(),
        })
    }

    fn move_number(&self) -> Option<(u32, bool)> {
        match self.phase {
            Phase::Turn(s) => Some((self.watch.round(), s == LIGHT)),
            Phase::Roll | Phase::Place(_) => None,
        }
    }

    fn split_plies(&self, text: &str) -> Vec<String> {
        notation::split_plies(text)
    }

    fn last_report(&self) -> Option<String> {
        self.report.clone()
    }

    /// The roll, a placement and a turn (or pass) each say what they did in words.
    fn reports_every_ply(&self) -> bool {
        true
    }

    fn auto_ply(&self) -> Option<String> {
        match (&self.outcome, self.phase) {
            (None, Phase::Turn(s)) if !steps::has_legal_step(&self.board, s) => Some("pass".into()),
            _ => None,
        }
    }

    fn moves_help(&self) -> Option<String> {
        match (&self.outcome, self.phase) {
            (None, Phase::Turn(s)) => Some(help::moves_help(&self.board, s)),
            // Not the sample rolls of `legal_plies`: nobody but the GM acts before the roll.
            (None, Phase::Roll) => Some(
                "The GM rolls all 32 dice first (16 for each side): nobody moves\n\
                 before the roll. Then LIGHT places its numbers on ranks 1-2, and DARK\n\
                 on ranks 8-7."
                    .to_string(),
            ),
            (None, Phase::Place(s)) => {
                let rolled = self.rolled.as_ref().expect("rolled before placing");
                let [back, front] = setup::home_ranks(s);
                Some(format!(
                    "{} places its 16 rolled numbers in any order on files a to h of\n\
                     ranks {back} and {front}. Sorted, they are {}.\n\
                     For example, in the order rolled:\n  {}",
                    SEAT_NAMES[s],
                    setup::spaced(&setup::sorted(&rolled[s])),
                    self.legal_plies().join("")
                ))
            }
            _ => None,
        }
    }
}
