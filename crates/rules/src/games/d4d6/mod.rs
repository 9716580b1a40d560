//! d4 d6 chess (seed 001): the turn as plies (declare, GM roll, choose), conditional turns, and
//! the `Rules` implementation over the board, pieces, move generation and special moves.
//!
//! A turn: the seat declares the gambling piece (and the Gata's die), optionally after a
//! special move (`Gua1-d4;Fob6`); the GM rolls (`roll 3`); the seat chooses the outcome,
//! optionally followed by a special move (`b6-a6;Gua1-d4`). In the Rinoceronte variant the
//! GM first rolls two d4 for the Rinocerontes' facings (1 NE, 2 SE, 3 SW, 4 NW; White's first).

pub mod ascii;
pub mod board;
pub mod movegen;
pub mod notation;
pub mod pieces;
pub mod position;
mod refusals;
pub mod report;
pub mod specials;
pub mod tablebase;

use board::{Dir, Sq};
use movegen::legal_moves;
use notation::{choices, parse_choice, parse_declaration, parse_rolls, pick, Choice};
use pieces::{Color, Kind};
use position::{Position, DRAW_CLOCK};
use specials::{legal_specials, Special};

use crate::games::{
    options_get, Actor, Conditional, GameFacts, OptionSpec, Options, Outcome, PlyError, Rules,
    Seat, ToAct,
};

const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "variant",
        default: "standard",
        values: &["standard", "rinoceronte"],
        duration: None,
        help: "rinoceronte: each side adds a Rinoceronte (g1 / b8), facing set by a d4 roll",
    },
    OptionSpec {
        name: "forced",
        default: "play",
        values: &["play", "ask"],
        duration: None,
        help: "a roll that leaves one legal move: the GM plays it at once (a special move \
               after it must be planned in the same mail), or asks the player whenever a \
               special move could still follow it",
    },
];

/// This game's settings in a player's words (`GameFacts::settings`).
fn settings(options: &Options) -> Vec<String> {
    let variant = match options_get(OPTIONS, options, "variant") {
        "rinoceronte" => {
            "Variant: Rinoceronte: each side adds a Rinoceronte (g1 / b8), its facing set by a \
             d4 roll"
        }
        _ => "Variant: standard",
    };
    let forced = match options_get(OPTIONS, options, "forced") {
        "ask" => {
            "A roll that leaves one legal move: the GM plays it at once, but asks you \
             instead when a special move could still follow it"
        }
        _ => {
            "A roll that leaves one legal move: the GM plays it at once (a special move \
             after it must be planned in the same mail)"
        }
    };
    vec![variant.into(), forced.into()]
}

const SEATS: &[&str] = &["WHITE", "BLACK"];

/// Where the current turn stands.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Phase {
    /// Variant start: the GM rolls two d4 for the Rinocerontes' facings.
    Facings,
    /// The side to move declares a piece (special move first, if it likes).
    Declare,
    /// The GM rolls this die for the declared piece.
    Roll { from: Sq, die: u32 },
    /// The side to move chooses among the results of this roll.
    Choose { from: Sq, roll: u32 },
}

#[derive(Debug, Clone)]
pub struct D4d6 {
    pos: Position,
    rinoceronte: bool,
    phase: Phase,
    special_used: bool,
    promoted: bool,
    outcome: Option<Outcome>,
    /// The plies of the turn under way, or of the last finished one (for the board).
    turn_plies: Vec<String>,
    last_squares: Vec<Sq>,
    report: Option<String>,
    /// Option `forced=ask`: a forced move is not played for the player while a special move
    /// could still follow it (the seed lets a special come after the move).
    forced_asks: bool,
}

fn facing_of_roll(n: u32) -> Option<Dir> {
    match n {
        1 => Some(Dir::NE),
        2 => Some(Dir::SE),
        3 => Some(Dir::SW),
        4 => Some(Dir::NW),
        _ => None,
    }
}

fn not_your_turn(msg: &str) -> PlyError {
    PlyError::NotYourTurn(msg.to_string())
}

impl D4d6 {
    fn with_position(pos: Position, rinoceronte: bool, phase: Phase) -> D4d6 {
        D4d6 {
            pos,
            rinoceronte,
            phase,
            special_used: false,
            promoted: false,
            outcome: None,
            turn_plies: Vec::new(),
            last_squares: Vec::new(),
            report: None,
            forced_asks: false,
        }
    }

    /// The options that are not the variant, read once when the game is made.
    fn with_options(mut self, options: &Options) -> D4d6 {
        self.forced_asks = options_get(OPTIONS, options, "forced") == "ask";
        self
    }

    /// The outcome the GM plays without asking: the roll's only legal move, unless the game
    /// asks when a special move could still follow it.
    fn forced_outcome(&self) -> Option<String> {
        let choices = self.current_choices();
        let [only] = choices.as_slice() else {
            return None;
        };
        if self.forced_asks && self.outcome_plies().len() > 1 {
            return None;
        }
        Some(only.text(&self.pos))
    }

    /// The position between turns (mid-turn plies not yet applied are not in it).
    pub fn position(&self) -> &Position {
        &self.pos
    }

    /// Whether this is the Rinoceronte variant.
    pub fn rinoceronte(&self) -> bool {
        self.rinoceronte
    }

    /// The last move's start and end squares (none before the first move).
    pub fn last_squares(&self) -> &[Sq] {
        &self.last_squares
    }

    /// The piece declared for the turn under way, and the roll it got once the GM rolled; none
    /// once the game is over (a resignation or draw mid-turn leaves no turn under way).
    pub fn gamble(&self) -> Option<(Sq, Option<u32>)> {
        if self.outcome.is_some() {
            return None;
        }
        match self.phase {
            Phase::Roll { from, .. } => Some((from, None)),
            Phase::Choose { from, roll } => Some((from, Some(roll))),
            Phase::Facings | Phase::Declare => None,
        }
    }

    fn mover(&self) -> Color {
        self.pos.to_move
    }

    /// The pieces the side to move may declare: gambling pieces in the playing area, and a
    /// Rinoceronte anywhere.
    fn declarable(&self) -> Vec<(Sq, Kind)> {
        self.pos
            .squares_of(self.mover())
            .filter(|(s, p)| {
                p.kind.is_gambling() && (s.is_playing() || p.kind == Kind::Rinoceronte)
            })
            .map(|(s, p)| (s, p.kind))
            .collect()
    }

    fn declaration_text(sq: Sq, kind: Kind, die: u32) -> String {
        if kind.dice().len() > 1 {
            format!("{}{}:d{}", kind.letters(), sq, die)
        } else {
            format!("{}{}", kind.letters(), sq)
        }
    }

    fn all_declarations(&self) -> Vec<String> {
        self.declarable()
            .into_iter()
            .flat_map(|(s, k)| {
                k.dice()
                    .iter()
                    .map(move |&d| Self::declaration_text(s, k, d))
            })
            .collect()
    }

    fn specials(&self) -> Vec<Special> {
        if self.special_used {
            Vec::new()
        } else {
            legal_specials(&self.pos, self.mover(), self.rinoceronte)
        }
    }

    /// Reads a special move (`Gua1-d4`, `Cah6=Ga@b2`, `Cab7-d1`, `Rib3/NW`); the waiting
    /// square of a promoted Cavalo and the piece letters may be left out when clear.
    fn parse_special(&self, text: &str) -> Result<Special, PlyError> {
        if self.special_used {
            return Err(PlyError::Illegal("only one special move a turn".into()));
        }
        let want: String = text
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_ascii_lowercase();
        let all = self.specials();
        let fits: Vec<Special> = all
            .iter()
            .filter(|s| {
                let t = s.text().to_ascii_lowercase();
                let short = &t[2..];
                [t.as_str(), short].iter().any(|c| {
                    *c == want
                        || c.strip_prefix(want.as_str())
                            .is_some_and(|r| r.starts_with('@'))
                })
            })
            .copied()
            .collect();
        pick(fits, Special::text, || {
            refusals::special(&self.pos, self.mover(), &want, &all)
        })
    }

    /// Special moves have a `-`, `=` or a facing after `/` (`Rib3/NW`); a declaration's die
    /// after `/` is not a facing.
    fn looks_special(text: &str) -> bool {
        text.contains(['-', '='])
            || text
                .split_once('/')
                .is_some_and(|(_, f)| Dir::parse(f.trim()).is_some())
    }

    fn apply_special(&mut self, special: &Special) {
        specials::apply(&mut self.pos, special);
        self.special_used = true;
        self.promoted |= special.is_promotion();
        self.check_losses(self.mover());
    }

    fn declare(&mut self, text: &str) -> Result<String, PlyError> {
        let d = parse_declaration(text, &self.pos, self.mover())?;
        let mine = self.declarable();
        let fits: Vec<(Sq, Kind)> = mine
            .iter()
            .filter(|(s, k)| d.square.is_none_or(|w| w == *s) && d.kind.is_none_or(|w| w == *k))
            .copied()
            .collect();
        let (sq, kind) = pick(
            fits,
            |(s, k)| format!("{}{}", k.letters(), s),
            || refusals::declaration(&self.pos, self.mover(), &d, &mine),
        )?;
        let die = match (d.die, kind.dice()) {
            (Some(n), dice) if dice.contains(&n) => n,
            (Some(n), _) => {
                return Err(PlyError::Illegal(format!(
                    "a {} rolls {}, not d{n}",
                    kind.name(),
                    kind.dice()
                        .iter()
                        .map(|d| format!("d{d}"))
                        .collect::<Vec<_>>()
                        .join(" or ")
                )))
            }
            (None, [one]) => *one,
            (None, _) => {
                return Err(PlyError::Illegal(format!(
                    "name the {}'s die: '{}' or '{}'",
                    kind.name(),
                    Self::declaration_text(sq, kind, 4),
                    Self::declaration_text(sq, kind, 6)
                )))
            }
        };
        self.phase = Phase::Roll { from: sq, die };
        Ok(Self::declaration_text(sq, kind, die))
    }

    fn play_declare(&mut self, text: &str) -> Result<String, PlyError> {
        let parts: Vec<&str> = text
            .split(';')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .collect();
        if parts.is_empty() || parts.len() > 2 {
            return Err(PlyError::Syntax(
                "declare a piece ('Fob6', 'Gad8:d6'), a special move, or 'special;piece'".into(),
            ));
        }
        let mut canon = Vec::new();
        let mut special = None;
        let mut declared = None;
        for (i, part) in parts.iter().enumerate() {
            let last = i + 1 == parts.len();
            if !last || Self::looks_special(part) {
                let s = self.parse_special(part)?;
                special = Some((self.pos.clone(), s));
                self.apply_special(&s);
                canon.push(s.text());
                if self.outcome.is_some() && !last {
                    return Err(PlyError::Illegal(
                        "the game ended with the special move".into(),
                    ));
                }
            } else {
                canon.push(self.declare(part)?);
                if let Phase::Roll { from, die } = self.phase {
                    let kind = self.pos.at(from).expect("declared piece").kind;
                    declared = Some((kind, from, die));
                }
            }
        }
        let canon = canon.join(";");
        self.report = Some(report::declared(
            self.mover(),
            special.as_ref().map(|(p, s)| (p, s)),
            declared,
            &canon,
        ));
        Ok(canon)
    }

    fn current_choices(&self) -> Vec<Choice> {
        match self.phase {
            Phase::Choose { from, roll } => choices(&self.pos, &legal_moves(&self.pos, from, roll)),
            _ => Vec::new(),
        }
    }

    fn play_roll(&mut self, text: &str) -> Result<String, PlyError> {
        let t = text.trim();
        let numbers = match t.get(..4) {
            Some(w) if w.eq_ignore_ascii_case("roll") => &t[4..],
            _ => t,
        };
        let values: Vec<u32> = numbers
            .split_whitespace()
            .map(|v| v.parse::<u32>())
            .collect::<Result<_, _>>()
            .ok()
            .filter(|v: &Vec<u32>| !v.is_empty())
            .ok_or_else(|| PlyError::Syntax(format!("a roll is like 'roll 3', not '{text}'")))?;
        match self.phase.clone() {
            Phase::Facings => {
                let facings: Vec<Dir> = values.iter().filter_map(|&v| facing_of_roll(v)).collect();
                if values.len() != 2 || facings.len() != 2 {
                    return Err(PlyError::Illegal("the facings need two d4 values".into()));
                }
                for (color, facing) in [(Color::White, facings[0]), (Color::Black, facings[1])] {
                    let squares: Vec<Sq> = self
                        .pos
                        .squares_of(color)
                        .filter(|(_, p)| p.kind == Kind::Rinoceronte)
                        .map(|(s, _)| s)
                        .collect();
                    for s in squares {
                        let mut r = self.pos.take(s).expect("piece");
                        r.facing = Some(facing);
                        self.pos.put(s, r);
                    }
                }
                self.phase = Phase::Declare;
                self.report = Some(format!(
                    "The GM rolled {} {}: the Rinocerontes face WHITE {}, BLACK {}.",
                    values[0],
                    values[1],
                    report::facing_words(facings[0]),
                    report::facing_words(facings[1])
                ));
                Ok(self.chance_ply(&values))
            }
            Phase::Roll { from, die } => {
                let [roll] = values[..] else {
                    return Err(PlyError::Illegal("one die is rolled".into()));
                };
                if roll < 1 || roll > die {
                    return Err(PlyError::Illegal(format!("a d{die} cannot show {roll}")));
                }
                self.phase = Phase::Choose { from, roll };
                let texts: Vec<String> = self
                    .current_choices()
                    .iter()
                    .map(|c| c.text(&self.pos))
                    .collect();
                // One legal outcome is the GM's to play (`auto_ply`): the report says so
                // rather than offering a choice that nobody will be asked for (the move's
                // own report then says what it did).
                self.report = Some(report::rolled(
                    roll,
                    die,
                    self.forced_outcome().is_some(),
                    &texts,
                    !self.special_used,
                ));
                Ok(self.chance_ply(&values))
            }
            _ => Err(not_your_turn("no roll is due")),
        }
    }

    fn play_choice(&mut self, text: &str) -> Result<String, PlyError> {
        let Phase::Choose { from, roll } = self.phase else {
            return Err(not_your_turn("no move to choose now"));
        };
        let (move_text, special_text) = match text.split_once(';') {
            Some((m, s)) => (m.trim(), Some(s.trim()).filter(|s| !s.is_empty())),
            None => (text.trim(), None),
        };
        let wanted = parse_choice(move_text)?;
        let all = self.current_choices();
        let fits: Vec<Choice> = all.iter().filter(|c| wanted.fits(c)).copied().collect();
        let pos = self.pos.clone();
        let choice = pick(
            fits,
            |c| c.text(&pos),
            || refusals::choice(&pos, from, roll, &wanted, &all),
        )?;
        let mut canon = choice.text(&self.pos);
        let mover = self.pos.at(from).expect("declared piece");
        self.apply_choice(&choice);
        let mut special = None;
        if let Some(st) = special_text {
            let s = self.parse_special(st)?;
            special = Some((self.pos.clone(), s));
            specials::apply(&mut self.pos, &s);
            self.special_used = true;
            self.promoted |= s.is_promotion();
            canon = format!("{canon};{}", s.text());
        }
        let color = self.mover();
        let special = special.as_ref().map(|(p, s)| (p, s));
        self.report = Some(report::moved(color, &pos, &choice, special, &canon));
        self.last_squares = vec![choice.mv.from, choice.mv.to];
        let resets = choice.mv.capture
            || (mover.kind == Kind::Cavalo && choice.mv.steps > 0)
            || self.promoted;
        self.pos.clock = if resets { 0 } else { self.pos.clock + 1 };
        self.check_losses(self.mover());
        if self.outcome.is_none() && self.pos.clock >= DRAW_CLOCK {
            self.outcome = Some(Outcome::Draw {
                seats: vec![0, 1],
                reason: format!(
                    "{DRAW_CLOCK} gambling moves without a capture, Cavalo step or promotion"
                ),
            });
        }
        self.end_turn();
        Ok(canon)
    }

    fn apply_choice(&mut self, choice: &Choice) {
        let mv = choice.mv;
        let mut piece = self.pos.take(mv.from).expect("piece to move");
        if mv.capture {
            let victim = self.pos.take(mv.to).expect("piece to capture");
            if victim.kind == Kind::Cavalo && mv.to.is_playing() {
                if let Some(w) = choice.wait {
                    self.pos.put(w, victim);
                }
            }
        }
        piece.facing = mv.facing;
        self.pos.put(mv.to, piece);
    }

    /// A side without a gambling piece in the playing area loses; the mover's opponent is
    /// looked at first (a capture of the last piece wins even if the mover ends outside).
    fn check_losses(&mut self, mover: Color) {
        if self.outcome.is_some() {
            return;
        }
        for loser in [mover.other(), mover] {
            if !self.pos.has_gambler_in_play(loser) {
                self.outcome = Some(Outcome::Win {
                    seat: loser.other().index(),
                    reason: format!("{} has no gambling piece in the playing area", loser.name()),
                });
                return;
            }
        }
    }

    fn end_turn(&mut self) {
        if self.pos.to_move == Color::Black {
            self.pos.fullmove += 1;
        }
        self.pos.to_move = self.pos.to_move.other();
        self.phase = Phase::Declare;
        self.special_used = false;
        self.promoted = false;
    }

    /// The position as players are shown it: before the GM's opening roll the Rinocerontes'
    /// facings are not known (the stored placeholder is no facing anybody rolled).
    pub fn shown_position(&self) -> Position {
        let mut pos = self.pos.clone();
        if self.phase == Phase::Facings {
            let rinos: Vec<Sq> = Sq::all()
                .filter(|&s| pos.at(s).is_some_and(|p| p.kind == Kind::Rinoceronte))
                .collect();
            for s in rinos {
                let mut p = pos.take(s).expect("piece");
                p.facing = None;
                pos.put(s, p);
            }
        }
        pos
    }

    fn seat_of(color: Color) -> Seat {
        color.index()
    }

    fn outcome_plies(&self) -> Vec<String> {
        let mut out = Vec::new();
        for c in self.current_choices() {
            let text = c.text(&self.pos);
            out.push(text.clone());
            if !self.special_used {
                let mut after = self.clone();
                after.apply_choice(&c);
                for s in legal_specials(&after.pos, self.mover(), self.rinoceronte) {
                    out.push(format!("{text};{}", s.text()));
                }
            }
        }
        out
    }

    /// The board as text; `last`: with the line of the turn's plies (`Last: ...`), left out
    /// where the mail's report has just told them.
    fn board_text(&self, last: bool) -> String {
        let mut notes = Vec::new();
        if last && !self.turn_plies.is_empty() {
            notes.push(format!("Last: {}", self.turn_plies.join(" ")));
        }
        if let Some((_, Some(roll))) = self.gamble() {
            notes.push(format!("Roll: {roll}"));
        }
        if self.phase == Phase::Facings {
            notes.push(
                "The GM rolls the Rinocerontes' facings first: a d4 each, WHITE's first \
                 (1 NE, 2 SE, 3 SW, 4 NW)."
                    .into(),
            );
        }
        if self.outcome.is_some() {
            // Over (by its own rules, or a resignation or draw): nobody is to act.
            notes.push(format!("Move {}: the game is over.", self.pos.fullmove));
            return ascii::render(&self.shown_position(), &self.last_squares, &notes);
        }
        notes.push(format!(
            "Move {}, {} to {}; clock {}/{DRAW_CLOCK}{}",
            self.pos.fullmove,
            self.mover().name(),
            match self.phase {
                Phase::Facings => "move after them",
                Phase::Declare => "declare",
                Phase::Roll { .. } => "wait for the roll",
                Phase::Choose { .. } => "choose",
            },
            self.pos.clock,
            if self.special_used {
                "; special move used"
            } else {
                ""
            }
        ));
        ascii::render(&self.shown_position(), &self.last_squares, &notes)
    }
}

impl Rules for D4d6 {
    const FACTS: GameFacts = GameFacts {
        name: "d4d6",
        title: "d4 d6 chess",
        rolls_dice: true,
        simultaneous: false,
        seats: SEATS,
        players: (2, 2),
        options: OPTIONS,
        settings,
        summary: "d4 d6 chess: chess with two dice. Declare a gambling piece (and the\n\
             Gata's die: Fo c1, Ga d1 d6); the GM rolls a d4 or a d6 and the piece\n\
             makes exactly that many steps if it can, fewer otherwise; then write\n\
             where it went (b6-a6, xc6). You may send the move for each roll in\n\
             advance. A side with no gambling piece in the playing area loses.",
        player_guide: include_str!("../../../../../help/d4d6.md"),
    };

    fn conclude(&mut self, outcome: &Outcome) {
        self.outcome = Some(outcome.clone());
    }

    fn new(options: &Options) -> Result<Self, String> {
        let rinoceronte = options_get(OPTIONS, options, "variant") == "rinoceronte";
        if rinoceronte {
            // Facing NE until the GM's d4 rolls turn them.
            let pos = Position::start(Some((Dir::NE, Dir::NE)));
            Ok(D4d6::with_position(pos, true, Phase::Facings).with_options(options))
        } else {
            Ok(
                D4d6::with_position(Position::start(None), false, Phase::Declare)
                    .with_options(options),
            )
        }
    }

    fn from_position(options: &Options, tag: &str) -> Result<Self, String> {
        let rinoceronte = options_get(OPTIONS, options, "variant") == "rinoceronte";
        let pos = Position::parse_tag(tag)?;
        if !rinoceronte
            && pos
                .board
                .iter()
                .flatten()
                .any(|p| p.kind == Kind::Rinoceronte)
        {
            return Err("a Rinoceronte needs the option variant=rinoceronte".into());
        }
        let mut game = D4d6::with_position(pos, rinoceronte, Phase::Declare).with_options(options);
        game.check_losses(game.pos.to_move.other());
        Ok(game)
    }

    fn position_tag(&self) -> String {
        self.pos.tag()
    }

    fn seat_names(&self) -> &'static [&'static str] {
        SEATS
    }

    fn to_act(&self) -> ToAct {
        if self.outcome.is_some() {
            return ToAct::Nobody;
        }
        match self.phase {
            Phase::Facings => ToAct::Chance(vec![4, 4]),
            Phase::Roll { die, .. } => ToAct::Chance(vec![die]),
            Phase::Declare | Phase::Choose { .. } => ToAct::Seat(Self::seat_of(self.mover())),
        }
    }

    fn play(&mut self, actor: Actor, text: &str) -> Result<String, PlyError> {
        if self.outcome.is_some() {
            return Err(not_your_turn("the game is over"));
        }
        let text = text.trim();
        let mut next = self.clone();
        // Every ply says what it did (a declaration, a roll, a move); one refused keeps the
        // last report with the position.
        next.report = None;
        let canon = match actor {
            Actor::Gm => {
                return Err(PlyError::Illegal(
                    "the GM plays only rolls and agreed draws".into(),
                ))
            }
            Actor::Seat(seat) => {
                if self.to_act() != ToAct::Seat(seat) {
                    return Err(not_your_turn(&format!(
                        "it is not {}'s turn",
                        SEATS.get(seat).unwrap_or(&"?")
                    )));
                }
                match self.phase {
                    Phase::Declare => next.play_declare(text)?,
                    _ => next.play_choice(text)?,
                }
            }
            Actor::Chance => {
                if !matches!(self.to_act(), ToAct::Chance(_)) {
                    return Err(not_your_turn("no roll is due"));
                }
                next.play_roll(text)?
            }
        };
        let turn_starts = matches!(self.phase, Phase::Declare) && !self.special_used;
        if turn_starts || self.phase == Phase::Facings {
            next.turn_plies.clear();
        }
        next.turn_plies.push(canon.clone());
        *self = next;
        Ok(canon)
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome.clone()
    }

    fn legal_plies(&self) -> Vec<String> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        match self.phase {
            Phase::Facings => (1..=4)
                .flat_map(|a| (1..=4).map(move |b| format!("roll {a} {b}")))
                .collect(),
            Phase::Roll { die, .. } => (1..=die).map(|n| format!("roll {n}")).collect(),
            Phase::Declare => {
                let mut out = self.all_declarations();
                out.extend(self.specials().iter().map(Special::text));
                out
            }
            Phase::Choose { .. } => self.outcome_plies(),
        }
    }

    fn board(&self) -> String {
        self.board_text(true)
    }

    fn board_beside_report(&self) -> String {
        self.board_text(false)
    }

    fn position_json(&self) -> serde_json::Value {
        let shown = self.shown_position();
        let pieces: Vec<serde_json::Value> = Sq::all()
            .filter_map(|s| shown.at(s).map(|p| (s, p)))
            .map(|(s, p)| {
                serde_json::json!({
                    "square": s.to_string(),
                    "colour": p.color.name(),
                    "piece": p.kind.name(),
                    "facing": p.facing.map(|f| f.name()),
                    "area": if s.is_playing() { "playing" } else { "waiting" },
                })
            })
            .collect();
        // Once the game is over no side is to move and no phase asks anything of anyone.
        let (phase, declared, roll) = match self.phase {
            _ if self.outcome.is_some() => ("over", None, None),
            Phase::Facings => ("facings", None, None),
            Phase::Declare => ("declare", None, None),
            Phase::Roll { from, die } => ("roll", Some(format!("{from} d{die}")), None),
            Phase::Choose { from, roll } => ("choose", Some(from.to_string()), Some(roll)),
        };
        serde_json::json!({
            "position": self.pos.tag(),
            "variant": if self.rinoceronte { "rinoceronte" } else { "standard" },
            "to_move": self.outcome.is_none().then(|| self.mover().name()),
            "phase": phase,
            "declared": declared,
            "roll": roll,
            "special_used": self.special_used,
            "clock": self.pos.clock,
            "move": self.pos.fullmove,
            "pieces": pieces,
        })
    }

    fn move_number(&self) -> Option<(u32, bool)> {
        match self.phase {
            Phase::Facings | Phase::Roll { .. } => None,
            Phase::Declare if !self.special_used => {
                Some((self.pos.fullmove, self.mover() == Color::White))
            }
            _ => Some((self.pos.fullmove, false)),
        }
    }

    fn last_report(&self) -> Option<String> {
        self.report.clone()
    }

    /// A declaration, a roll, a move or a pass: each says what it did in words.
    fn reports_every_ply(&self) -> bool {
        true
    }

    fn auto_ply(&self) -> Option<String> {
        if self.outcome.is_some() {
            return None;
        }
        self.forced_outcome()
    }

    /// A one-message turn: the first line declares (`Gad8:d6`, `Ga d8 d6`, optionally after
    /// a special move and `;`), each further line is `ROLLS: OUTCOME [| OUTCOME ...]` with
    /// ROLLS like `1`, `2-3`, `1,4` or `*`. Alternatives are tried in order.
    fn conditional(&self, lines: &[String]) -> Option<Conditional> {
        if self.phase != Phase::Declare || self.outcome.is_some() {
            return None;
        }
        let mut lines = lines
            .iter()
            .map(|l| l.trim())
            .filter(|l| !l.is_empty() && !l.starts_with('#'));
        let first = lines.next()?;
        let mut probe = self.clone();
        let declaration = probe
            .play(Actor::Seat(Self::seat_of(self.mover())), first)
            .ok()?;
        let Phase::Roll { die, .. } = probe.phase else {
            return None;
        };
        let mut outcomes = Vec::new();
        for line in lines {
            let (rolls, rest) = line.split_once(':')?;
            let rolls = parse_rolls(rolls, die)?;
            for alternative in rest.split('|').map(str::trim).filter(|a| !a.is_empty()) {
                outcomes.push((rolls.clone(), alternative.to_string()));
            }
        }
        Some(Conditional {
            declaration,
            outcomes,
        })
    }
}
