//! The common game interface: the `Rules` trait every game implements, and `AnyGame`, its text-in/text-out dispatcher.
//!
//! Everything outside `games/` talks to a game through `AnyGame` and plain strings: plies go in
//! as notation text and come back in canonical notation, so the store, the records, the mail
//! path and the CLI never match on a particular game.
//!
//! A game is a sequence of *plies*. Each ply has an `Actor`:
//! - `Actor::Seat(s)`: a player's move (a Dice Rink roll, a set-up placement, a d4 d6 chess
//!   declaration or choice, a Siberian Dice placement, RESIGN ...);
//! - `Actor::Chance`: the GM's dice roll, asked for by `ToAct::Chance` and logged like any ply;
//! - `Actor::Gm`: a ply the GM makes for everybody, e.g. the adjudication of one simultaneous
//!   Dip-Tac-Toe turn (built from every seat's orders by `Rules::turn_ply`).
//!
//! The game state is always exactly what replaying its plies from `Rules::new` (or a
//! `[Position]` start) gives; no other state exists.

pub mod d4d6;
pub mod dicerink;
pub mod dicess;
pub mod diptactoe;
pub mod siberian;
pub mod standing;

use standing::Shared;
pub use standing::{Ended, Leaving, Standing, Why};

use crate::duration::Range;
use std::collections::BTreeMap;
use std::fmt;

use serde::Serialize;

/// A seat at the table, by its index in `Rules::seat_names` (A/B, WHITE/BLACK, BLUE/RED/...).
pub type Seat = usize;

/// Who makes a ply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Actor {
    Seat(Seat),
    Chance,
    Gm,
}

/// Whose turn it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ToAct {
    /// These seats may make the next ply; one seat in a sequential game.
    Seat(Seat),
    /// Simultaneous orders: these seats owe orders for this turn; the turn is resolved by an
    /// `Actor::Gm` ply built by `Rules::turn_ply` (at the deadline or when all have ordered).
    Orders(Vec<Seat>),
    /// The GM must roll dice with these numbers of sides; the rolled values are then played as
    /// an `Actor::Chance` ply whose text `Rules::chance_ply` gives.
    Chance(Vec<u32>),
    /// Nobody: the game is over.
    Nobody,
}

/// How a game ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum Outcome {
    Win {
        seat: Seat,
        reason: String,
    },
    /// A draw among these seats (all seats for an agreed draw in a two-player game).
    Draw {
        seats: Vec<Seat>,
        reason: String,
    },
}

/// How press between players is relayed, in a game that has press (`press=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Press {
    /// With the sender's seat named.
    Named,
    /// Without it (gunboat-style press).
    Anonymous,
}

/// A seat's turns in a row without orders (the no-move-received count) and the game's limit
/// (`nmr_limit`) at which the GM is told.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Missed {
    pub turns: u32,
    pub limit: u32,
}

/// A declared move with outcomes chosen in advance for each roll (d4 d6 chess, Siberian Dice).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Conditional {
    /// The declaring ply (e.g. `Ga d6`), played by the seat before the roll.
    pub declaration: String,
    /// For each listed roll value, the outcome plies to try in order after the roll; the first
    /// legal one is played. Rolls not listed (or with no legal entry) fall back to asking.
    pub outcomes: Vec<(Vec<u32>, String)>,
}

/// A per-game option a GM (or a player's `NEW` mail) may set; the default is the RULES.md ruling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OptionSpec {
    pub name: &'static str,
    pub default: &'static str,
    /// The values allowed, or empty for free text checked by the game.
    pub values: &'static [&'static str],
    /// A duration option: the range it must fall in (a bare number or an overflow is refused).
    pub duration: Option<Range>,
    pub help: &'static str,
}

/// Options as given: name -> value. Games read them through `options_get` so defaults apply.
pub type Options = BTreeMap<String, String>;

/// The most characters of a game's refusal that `AnyGame` passes on (a ply's, a plan's).
const REFUSAL_CHARS: usize = 300;

/// Why a ply was not played; the position is unchanged.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlyError {
    /// The text is not the game's notation (where, and what was expected).
    Syntax(String),
    /// Well formed, but not legal here (the reason, as a player should read it).
    Illegal(String),
    /// Well formed, but fits more than one legal ply; the candidates are named.
    Ambiguous(String),
    /// It is not this actor's turn.
    NotYourTurn(String),
}

impl PlyError {
    /// The same refusal with its words cut to `max` characters: a reader may quote the line it
    /// refuses, and a hostile line can be as long as a mail.
    pub fn shortened(self, max: usize) -> PlyError {
        let cut = |s: String| crate::quote::shorten(&s, max);
        match self {
            PlyError::Syntax(s) => PlyError::Syntax(cut(s)),
            PlyError::Illegal(s) => PlyError::Illegal(cut(s)),
            PlyError::Ambiguous(s) => PlyError::Ambiguous(cut(s)),
            PlyError::NotYourTurn(s) => PlyError::NotYourTurn(cut(s)),
        }
    }
}

impl fmt::Display for PlyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlyError::Syntax(s) => write!(f, "cannot read it: {s}"),
            PlyError::Illegal(s) | PlyError::Ambiguous(s) | PlyError::NotYourTurn(s) => {
                f.write_str(s)
            }
        }
    }
}

impl std::error::Error for PlyError {}

/// The rules of one game: a pure state machine, no I/O, clock or randomness.
pub trait Rules: Clone + Sized {
    /// Everything pbem knows about the game besides its rules, stated once.
    const FACTS: GameFacts;

    /// The starting position for these options (unknown or bad options are an error).
    fn new(options: &Options) -> Result<Self, String>;

    /// A position given by a record's `[Position "..."]` tag (the format is the game's own,
    /// documented in `notation/<game>.md`).
    fn from_position(options: &Options, tag: &str) -> Result<Self, String>;

    /// The position as a `[Position "..."]` tag value; `from_position` reads it back.
    fn position_tag(&self) -> String;

    /// Seat names, in seat order (e.g. `["A", "B"]`).
    fn seat_names(&self) -> &'static [&'static str];

    /// Who acts next.
    fn to_act(&self) -> ToAct;

    /// Play one ply given as text. On success returns the ply's canonical notation (which
    /// parses back to the same ply from the same position); on error nothing changes.
    fn play(&mut self, actor: Actor, text: &str) -> Result<String, PlyError>;

    /// The game's result, once it is over.
    fn outcome(&self) -> Option<Outcome>;

    /// Every legal ply for the actor to move, canonical (may be empty; used by `MOVES` mails
    /// and by tests). Games where the list is huge may return a sample and say so in docs.
    fn legal_plies(&self) -> Vec<String>;

    /// The board as plain text for mail, at most 72 columns.
    fn board(&self) -> String;

    /// The board for a mail whose text has just told the last ply by its report: without the
    /// board's own line for that ply (`Last: ...`), which would say it again. Where the board
    /// is shown alone (`game show`, a welcome, a status) it keeps that line. Default `board`.
    fn board_beside_report(&self) -> String {
        self.board()
    }

    /// The position as JSON for `pbem replay --json` and tools.
    fn position_json(&self) -> serde_json::Value;

    /// The current move number and whether the next ply is the first of that numbered move
    /// (`12.` before it) rather than a later one (`12...`). `None` while numbering does not
    /// apply (set-up, chance plies).
    fn move_number(&self) -> Option<(u32, bool)>;

    /// Splits a record's move text (numbers and comments already removed) into plies. The
    /// default splits on white space, keeping the default chance ply (`roll 3 5`) whole;
    /// games whose own plies contain spaces override it.
    fn split_plies(&self, text: &str) -> Vec<String> {
        split_roll_plies(text)
    }

    /// The text of the `Actor::Chance` ply that records these rolled values (after
    /// `ToAct::Chance(sides)`); default `roll 3 5`. Override together with `play`; whatever
    /// the form, its integers in order must be exactly the values (dice are verified by them).
    fn chance_ply(&self, values: &[u32]) -> String {
        let v: Vec<String> = values.iter().map(u32::to_string).collect();
        format!("roll {}", v.join(" "))
    }

    /// Simultaneous games: whether a line is written in the game's order notation at all (a
    /// mistaken order is void; a line of prose, "Sorry, only this one:", is no order and is
    /// only ignored). Sequential games: unused.
    fn is_notation(&self, line: &str) -> bool {
        let _ = line;
        true
    }

    /// Simultaneous games: check one seat's order lines for the current turn, line by line,
    /// giving each line's canonical form or the reason it is void. Sequential games: unused.
    fn check_orders(&self, seat: Seat, lines: &[String]) -> Vec<Result<String, String>> {
        let _ = seat;
        lines
            .iter()
            .map(|_| Err("this game takes one move at a time, not orders".to_string()))
            .collect()
    }

    /// Simultaneous games: the `Actor::Gm` ply that adjudicates the current turn from each
    /// seat's order lines (seats missing from the map sent none). Sequential games: unused.
    fn turn_ply(&self, orders: &BTreeMap<Seat, Vec<String>>) -> Result<String, String> {
        let _ = orders;
        Err("this game has no simultaneous turns".to_string())
    }

    /// What the last ply did, as players should read it in a turn report (the adjudication of
    /// a simultaneous turn with every order's result; a roll and what it allows). `None` when
    /// the ply needs no more words than its notation.
    fn last_report(&self) -> Option<String> {
        None
    }

    /// Whether `last_report` tells every ply of the seats and the dice in words, its notation
    /// beside: a mail then says each ply once, by its report, and not also as "RED played
    /// ...". Default false: some plies have no report, so a mail lists every ply.
    fn reports_every_ply(&self) -> bool {
        false
    }

    /// A ply the GM may play at once without asking anybody, because it is the only legal one
    /// and the rules leave no choice (after a roll with a single legal outcome). Default none.
    fn auto_ply(&self) -> Option<String> {
        None
    }

    /// How press is relayed in this game; `None`: a game without press.
    fn press(&self) -> Option<Press> {
        None
    }

    /// Games of orders: the seat's missed turns in a row and the limit at which the GM is
    /// told (the one count of them: the position's). `None`: the game counts none.
    fn missed(&self, seat: Seat) -> Option<Missed> {
        let _ = seat;
        None
    }

    /// Games where the GM rolls for a declared move: reads one message's lines as a
    /// declaration with conditional outcomes per roll (notation in `notation/<game>.md`).
    /// `None` when the lines are not such a plan.
    fn conditional(&self, lines: &[String]) -> Option<Conditional> {
        let _ = lines;
        None
    }

    /// Lines that start as such a plan but that a word spoils (Siberian Dice: a hex off the
    /// board, a die value out of 1 to 6): the refusal naming that word, so the whole plan is
    /// refused rather than its first line played alone. `None`: a plan, or no plan at all
    /// (prose after a plan is not a spoiled plan). Default none.
    fn plan_refusal(&self, lines: &[String]) -> Option<PlyError> {
        let _ = lines;
        None
    }

    /// The answer to a player's `MOVES` when a list of every legal ply is not what a player
    /// needs (Dicess: the single steps and the captures with their strength; Siberian Dice:
    /// which hexes make which dice perfect for each roll). `None`: `MOVES` lists `legal_plies`.
    fn moves_help(&self) -> Option<String> {
        None
    }

    /// A seat has left the game (it resigned or forfeited; `AnyGame` rules on what that ends,
    /// the same way for every game). A game whose turn order must skip the seat from now on,
    /// or whose own end rules must no longer count it as a possible winner (three-player
    /// Siberian Dice), updates its state here, and returns what the players should hear of
    /// it beyond the resignation (a move under way dropped, who moves now). Default: nothing
    /// (two-player games end).
    fn retire(&mut self, seat: Seat) -> Option<String> {
        let _ = seat;
        None
    }

    /// What a seat's resignation does in this game (`AnyGame` rules on it, the same way for
    /// every game). Default: the seat is out, and the last seat left wins.
    const LEAVING: Leaving = Leaving::LastSeatWins;

    /// Whether this game's resignation ply names the seat (`BLUE:resign`, in games whose plies
    /// are the GM's) rather than being a seat's bare `resign`.
    const RESIGN_NAMES_SEAT: bool = false;

    /// The seats that had left before this position (a `[Position]` that says so); default none.
    fn retired(&self) -> Vec<Seat> {
        Vec::new()
    }

    /// The game ended by a ply every game shares (a resignation, an agreed draw): the game
    /// keeps that outcome as its own, so its board, report and JSON say it is over and name
    /// nobody to move, as for an ending by its own rules. Every game must.
    fn conclude(&mut self, outcome: &Outcome);
}

/// What a game states once about itself: its names, whether it rolls dice, its options
/// and the words players read about it. `GameKind` reads everything from here.
#[derive(Debug)]
pub struct GameFacts {
    /// The name in storage, records (`[Game "dicerink"]`), mail subjects and the CLI.
    pub name: &'static str,
    /// The name players read ("Dice Rink").
    pub title: &'static str,
    /// Whether the GM rolls dice in this game: it then has a salt window before the first roll.
    pub rolls_dice: bool,
    /// Whether every seat orders each turn at once and the GM's ply adjudicates the turn
    /// (Dip-Tac-Toe), rather than the seats moving one after another.
    pub simultaneous: bool,
    /// Every seat's name, in seat order; a game of fewer players than seats named uses the
    /// first ones (an option says how many play).
    pub seats: &'static [&'static str],
    /// How many players a game of it may have: the fewest and the most.
    pub players: (usize, usize),
    /// The options this game understands, with their defaults (the RULES.md rulings).
    pub options: &'static [OptionSpec],
    /// This game's own settings as a player reads them in the welcome, one line each, from the
    /// game's options as given (defaults applied; the GM's clock options are not here): the
    /// value in plain words, never the option's name; an option that does not apply to these
    /// values (a purity-only length in a basic game) is left out.
    pub settings: fn(&Options) -> Vec<String>,
    /// A few lines on how the game is played and written, for the welcome mail.
    pub summary: &'static str,
    /// The player's guide (`help/<game>.md`): the rules in words, how each move is written,
    /// the board and the mail commands; mailed for `HELP <game>` and `HELP RULES`. Plain
    /// text of at most 72 columns naming nothing of pbem's insides (no file, no command
    /// line). The developers' notation page, `notation/<game>.md`, is not mailed.
    pub player_guide: &'static str,
}

impl GameKind {
    /// The name in storage, records (`[Game "dicerink"]`), mail subjects and the CLI.
    pub fn name(self) -> &'static str {
        self.facts().name
    }

    /// The name players read ("Dice Rink").
    pub fn title(self) -> &'static str {
        self.facts().title
    }

    /// Whether the GM rolls dice in this game: it then has a salt window before the first roll.
    pub fn rolls_dice(self) -> bool {
        self.facts().rolls_dice
    }

    /// Reads a storage name (case-insensitive; `dice-rink` and `dice_rink` also accepted).
    pub fn parse(name: &str) -> Option<GameKind> {
        let n: String = name
            .chars()
            .filter(|c| c.is_ascii_alphanumeric())
            .collect::<String>()
            .to_ascii_lowercase();
        GameKind::ALL.iter().copied().find(|k| k.name() == n)
    }

    /// The options this kind understands.
    pub fn option_specs(self) -> &'static [OptionSpec] {
        self.facts().options
    }

    /// This game's own settings in a player's words (`GameFacts::settings`); the GM's options
    /// among `options` are set aside unread.
    pub fn settings(self, options: &Options) -> Vec<String> {
        (self.facts().settings)(&own_options(options))
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Options a game's settings (and its record's `[Options]`) may carry that belong to the GM, not
/// to the game: its clocks (`timeout`, `grace`, `salt_window`, `early_resolve`), whether its
/// players are anonymous (`anonymous`) and who may join (`min_reliability`). The rules set them
/// aside unread; the application gives them their meaning and checks them.
pub const GM_OPTIONS: &[&str] = &[
    "timeout",
    "grace",
    "salt_window",
    "early_resolve",
    "anonymous",
    "min_reliability",
];

/// The game's own options out of a game's settings (the GM's set aside), checked.
fn game_options(kind: GameKind, options: &Options) -> Result<Options, String> {
    let own = own_options(options);
    check_options(kind.option_specs(), &own)?;
    Ok(own)
}

/// A game's settings without the GM's options.
fn own_options(options: &Options) -> Options {
    options
        .iter()
        .filter(|(k, _)| !GM_OPTIONS.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// Reads an option with its default applied; unknown names are a programming error caught by
/// `check_options` before any game is built.
pub fn options_get<'a>(specs: &'a [OptionSpec], options: &'a Options, name: &str) -> &'a str {
    if let Some(v) = options.get(name) {
        return v;
    }
    specs
        .iter()
        .find(|s| s.name == name)
        .map(|s| s.default)
        .unwrap_or("")
}

/// Checks option names and enumerated values against the specs, saying exactly what is wrong.
pub fn check_options(specs: &[OptionSpec], options: &Options) -> Result<(), String> {
    for (name, value) in options {
        let Some(spec) = specs.iter().find(|s| s.name == name) else {
            let known: Vec<&str> = specs.iter().map(|s| s.name).collect();
            return Err(if known.is_empty() {
                format!("unknown option '{name}': this game has no options")
            } else {
                format!("unknown option '{name}' (options: {})", known.join(", "))
            });
        };
        // A default is always allowed, even one that is a word ("server") among durations.
        if let (Some(range), false) = (spec.duration, value == spec.default) {
            crate::duration::parse(value, range).map_err(|e| format!("option '{name}': {e}"))?;
        }
        if !spec.values.is_empty() && !spec.values.contains(&value.as_str()) {
            return Err(format!(
                "option '{name}' cannot be '{value}' (one of: {})",
                spec.values.join(", ")
            ));
        }
    }
    Ok(())
}

/// The registry: each game is one line here (its variant and its type); the macro makes
/// `GameKind` (with `ALL` and `facts`), `AnyGame` and the dispatch between them.
macro_rules! registry {
    ($d:tt $($variant:ident => $ty:ty),+ $(,)?) => {
        /// The games pbem knows.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
        pub enum GameKind {
            $($variant),+
        }

        impl GameKind {
            pub const ALL: &'static [GameKind] = &[$(GameKind::$variant),+];

            /// What the game states about itself.
            pub fn facts(self) -> &'static GameFacts {
                match self {
                    $(GameKind::$variant => &<$ty as Rules>::FACTS),+
                }
            }
        }

        /// Whichever game's own rules, behind one type; `AnyGame` holds it with the standing.
        #[derive(Debug, Clone)]
        enum Engine {
            $($variant($ty)),+
        }

        /// One game's own value, borrowed from an `AnyGame` (`AnyGame::game`): for what shows
        /// a position in the game's own terms (the app's board pictures), never for playing.
        #[derive(Debug, Clone, Copy)]
        pub enum GameRef<'a> {
            $($variant(&'a $ty)),+
        }

        impl Engine {
            fn game(&self) -> GameRef<'_> {
                match self {
                    $(Engine::$variant(g) => GameRef::$variant(g)),+
                }
            }
        }

        /// Calls the same method on whichever game is inside.
        macro_rules! dispatch {
            ($d self_:expr, $d g:ident => $d e:expr) => {
                match $d self_ {
                    $(Engine::$variant($d g) => $d e),+
                }
            };
        }

        /// Calls an associated item of whichever game's type is inside.
        macro_rules! dispatch_type {
            ($d self_:expr, $d t:ident => $d e:expr) => {
                match $d self_ {
                    $(Engine::$variant(_) => { type $d t = $ty; $d e }),+
                }
            };
        }

        impl Engine {
            fn new(kind: GameKind, options: &Options) -> Result<Engine, String> {
                let options = &game_options(kind, options)?;
                Ok(match kind {
                    $(GameKind::$variant => Engine::$variant(<$ty as Rules>::new(options)?)),+
                })
            }

            fn from_position(kind: GameKind, options: &Options, tag: &str) -> Result<Engine, String> {
                let options = &game_options(kind, options)?;
                Ok(match kind {
                    $(GameKind::$variant => {
                        Engine::$variant(<$ty as Rules>::from_position(options, tag)?)
                    }),+
                })
            }

            fn kind(&self) -> GameKind {
                match self {
                    $(Engine::$variant(_) => GameKind::$variant),+
                }
            }
        }
    };
}

registry! {$
    DiceRink => dicerink::DiceRink,
    D4D6 => d4d6::D4d6,
    DipTacToe => diptactoe::DipTacToe,
    Siberian => siberian::Siberian,
    Dicess => dicess::Dicess,
}

/// Any game, behind text in / text out: the only type outside `games/` that holds a
/// position. It rules on the plies every game shares (a seat's resignation, the GM's agreed
/// draw: `standing.rs`) before the game's own rules see a ply.
#[derive(Debug, Clone)]
pub struct AnyGame {
    engine: Engine,
    standing: Standing,
}

impl AnyGame {
    /// A new game of this kind with these options.
    pub fn new(kind: GameKind, options: &Options) -> Result<AnyGame, String> {
        Ok(AnyGame::around(Engine::new(kind, options)?))
    }

    /// A game of this kind from a `[Position]` tag.
    pub fn from_position(kind: GameKind, options: &Options, tag: &str) -> Result<AnyGame, String> {
        let game = AnyGame::around(Engine::from_position(kind, options, tag)?);
        // A game with one seat left would have ended when the last but one left: such a
        // position never arises in play, and nothing could end it.
        if game.playing().len() < 2 {
            return Err("the position leaves fewer than two players in the game".into());
        }
        Ok(game)
    }

    fn around(engine: Engine) -> AnyGame {
        let seats = dispatch!(&engine, g => g.seat_names().len());
        let left = dispatch!(&engine, g => g.retired());
        AnyGame {
            engine,
            standing: Standing::new(seats, left),
        }
    }

    pub fn kind(&self) -> GameKind {
        self.engine.kind()
    }
    /// The game's own value, to read its position in its own terms (a board picture).
    pub fn game(&self) -> GameRef<'_> {
        self.engine.game()
    }
    pub fn position_tag(&self) -> String {
        dispatch!(&self.engine, g => g.position_tag())
    }
    pub fn seat_names(&self) -> &'static [&'static str] {
        dispatch!(&self.engine, g => g.seat_names())
    }
    /// The seat index for a name (case-insensitive).
    pub fn seat_by_name(&self, name: &str) -> Option<Seat> {
        self.seat_names()
            .iter()
            .position(|s| s.eq_ignore_ascii_case(name.trim()))
    }
    pub fn seat_name(&self, seat: Seat) -> &'static str {
        self.seat_names().get(seat).copied().unwrap_or("?")
    }
    /// The seats still playing (not resigned or forfeited), in seat order.
    pub fn playing(&self) -> Vec<Seat> {
        self.standing.playing()
    }
    pub fn to_act(&self) -> ToAct {
        if self.standing.ended().is_some() {
            return ToAct::Nobody;
        }
        dispatch!(&self.engine, g => g.to_act())
    }
    /// Plays one ply: the shared ones (resign, draw) are ruled on here, the rest by the game.
    pub fn play(&mut self, actor: Actor, text: &str) -> Result<String, PlyError> {
        if self.outcome().is_some() {
            return Err(PlyError::NotYourTurn("the game is over".into()));
        }
        match standing::read(actor, text, |n| self.seat_by_name(n)) {
            // The GM's resignation for a seat names the seat, so that it reads back as one.
            Some(Ok(Shared::Resign(seat))) => self.leave(seat, Why::Resigned, actor == Actor::Gm),
            Some(Ok(Shared::Timeout(seat))) => self.leave(seat, Why::OutOfTime, true),
            Some(Ok(Shared::Draw)) => self.agree_draw(),
            Some(Err(e)) => Err(e),
            None => {
                // Every game's refusal, however much of the line it quotes, stays short.
                let canonical = dispatch!(&mut self.engine, g => g.play(actor, text))
                    .map_err(|e| e.shortened(REFUSAL_CHARS))?;
                self.standing.game_played();
                Ok(canonical)
            }
        }
    }
    /// The seat resigns (or forfeits): it leaves the game, and the game's `Leaving` rule says
    /// what that ends. Returns the ply to log.
    pub fn resign(&mut self, seat: Seat) -> Result<String, PlyError> {
        self.leave(seat, Why::Resigned, false)
    }
    /// The seat ran out of time under a forfeit clock: it leaves as by resigning, and the
    /// report, the outcome and the ply (`SEAT:timeout`, the GM's) say it ran out of time.
    pub fn time_out(&mut self, seat: Seat) -> Result<String, PlyError> {
        self.leave(seat, Why::OutOfTime, true)
    }
    /// The seat leaves; a resignation's ply names the seat when `by_gm` or when the game's
    /// always do.
    fn leave(&mut self, seat: Seat, why: Why, by_gm: bool) -> Result<String, PlyError> {
        if self.outcome().is_some() {
            return Err(PlyError::NotYourTurn("the game is over".into()));
        }
        let names = self.seat_names();
        let (rule, named) = dispatch_type!(&self.engine, T => (T::LEAVING, T::RESIGN_NAMES_SEAT));
        let named = named || by_gm;
        let canonical = self.standing.leave(seat, why, rule, names, named)?;
        let said = dispatch!(&mut self.engine, g => g.retire(seat));
        if let (Some(said), None) = (said, self.standing.ended()) {
            self.standing.add_to_report(&said);
        }
        self.conclude();
        Ok(canonical)
    }
    /// Every seat still playing agreed a draw. Returns the ply to log.
    pub fn agree_draw(&mut self) -> Result<String, PlyError> {
        self.draw(Standing::agree_draw)
    }
    /// The GM declares the game drawn (see `Standing::declare_draw`). Returns the ply to log.
    pub fn declare_draw(&mut self) -> Result<String, PlyError> {
        self.draw(Standing::declare_draw)
    }
    fn draw(&mut self, how: fn(&mut Standing) -> String) -> Result<String, PlyError> {
        if self.outcome().is_some() {
            return Err(PlyError::NotYourTurn("the game is over".into()));
        }
        let canonical = how(&mut self.standing);
        self.conclude();
        Ok(canonical)
    }
    /// Tells the game an ending ruled on here, if the last shared ply made one.
    fn conclude(&mut self) {
        if let Some(outcome) = self.standing.ended().cloned() {
            dispatch!(&mut self.engine, g => g.conclude(&outcome));
        }
    }
    /// Which shared ply ended the game (a resignation, a seat out of time, a draw agreed or
    /// declared); None when the game's own rules ended it, or it is not over.
    pub fn ended_by(&self) -> Option<Ended> {
        self.standing.ended_by()
    }
    pub fn outcome(&self) -> Option<Outcome> {
        match self.standing.ended() {
            Some(o) => Some(o.clone()),
            None => dispatch!(&self.engine, g => g.outcome()),
        }
    }
    pub fn legal_plies(&self) -> Vec<String> {
        if self.standing.ended().is_some() {
            return Vec::new();
        }
        dispatch!(&self.engine, g => g.legal_plies())
    }
    pub fn board(&self) -> String {
        dispatch!(&self.engine, g => g.board())
    }
    pub fn board_beside_report(&self) -> String {
        dispatch!(&self.engine, g => g.board_beside_report())
    }
    pub fn position_json(&self) -> serde_json::Value {
        let mut json = dispatch!(&self.engine, g => g.position_json());
        // A game ended by a shared ply has nobody to move, whatever its own rules say.
        if self.standing.ended().is_some() {
            if let Some(to_move) = json.get_mut("to_move") {
                *to_move = serde_json::Value::Null;
            }
        }
        json
    }
    pub fn move_number(&self) -> Option<(u32, bool)> {
        dispatch!(&self.engine, g => g.move_number())
    }
    pub fn split_plies(&self, text: &str) -> Vec<String> {
        dispatch!(&self.engine, g => g.split_plies(text))
    }
    pub fn chance_ply(&self, values: &[u32]) -> String {
        dispatch!(&self.engine, g => g.chance_ply(values))
    }
    pub fn is_notation(&self, line: &str) -> bool {
        dispatch!(&self.engine, g => g.is_notation(line))
    }
    pub fn check_orders(&self, seat: Seat, lines: &[String]) -> Vec<Result<String, String>> {
        dispatch!(&self.engine, g => g.check_orders(seat, lines))
    }
    pub fn turn_ply(&self, orders: &BTreeMap<Seat, Vec<String>>) -> Result<String, String> {
        dispatch!(&self.engine, g => g.turn_ply(orders))
    }
    pub fn last_report(&self) -> Option<String> {
        match self.standing.report() {
            Some(r) => Some(r.to_string()),
            None => dispatch!(&self.engine, g => g.last_report()),
        }
    }
    pub fn reports_every_ply(&self) -> bool {
        dispatch!(&self.engine, g => g.reports_every_ply())
    }
    pub fn auto_ply(&self) -> Option<String> {
        if self.standing.ended().is_some() {
            return None;
        }
        dispatch!(&self.engine, g => g.auto_ply())
    }
    pub fn conditional(&self, lines: &[String]) -> Option<Conditional> {
        dispatch!(&self.engine, g => g.conditional(lines))
    }
    /// A spoiled plan's refusal, kept short as a ply's is: it names a word of the mail.
    pub fn plan_refusal(&self, lines: &[String]) -> Option<PlyError> {
        dispatch!(&self.engine, g => g.plan_refusal(lines)).map(|e| e.shortened(REFUSAL_CHARS))
    }
    pub fn press(&self) -> Option<Press> {
        dispatch!(&self.engine, g => g.press())
    }
    /// A seat that resigned or left counts no missed turns.
    pub fn missed(&self, seat: Seat) -> Option<Missed> {
        if !self.playing().contains(&seat) {
            return None;
        }
        dispatch!(&self.engine, g => g.missed(seat))
    }
    pub fn moves_help(&self) -> Option<String> {
        dispatch!(&self.engine, g => g.moves_help())
    }

    /// The outcome for tools (`pbem replay --json`): the winner's name or null, whether the
    /// game ended drawn, and the seats sharing the draw in seat order.
    pub fn outcome_json(&self) -> serde_json::Value {
        let (winner, drawn) = match self.outcome() {
            Some(Outcome::Win { seat, .. }) => (Some(self.seat_name(seat)), None),
            Some(Outcome::Draw { mut seats, .. }) => {
                seats.sort_unstable();
                let names: Vec<&str> = seats.iter().map(|s| self.seat_name(*s)).collect();
                (None, Some(names))
            }
            None => (None, None),
        };
        serde_json::json!({
            "winner": winner,
            "draw": drawn.is_some(),
            "drawn": drawn.unwrap_or_default(),
        })
    }

    /// The outcome as players read it ("A wins: both dice on rank 4").
    pub fn outcome_text(&self) -> Option<String> {
        self.outcome().map(|o| match o {
            Outcome::Win { seat, reason } => format!("{} wins: {reason}", self.seat_name(seat)),
            Outcome::Draw { seats, reason } => {
                let names: Vec<&str> = seats.iter().map(|s| self.seat_name(*s)).collect();
                format!("draw between {}: {reason}", names.join(", "))
            }
        })
    }

    /// Whose turn it is, as players read it.
    pub fn to_act_text(&self) -> String {
        match self.to_act() {
            ToAct::Seat(s) => format!("{} to move", self.seat_name(s)),
            ToAct::Orders(seats) => {
                let names: Vec<&str> = seats.iter().map(|s| self.seat_name(*s)).collect();
                format!("orders due from {}", names.join(", "))
            }
            ToAct::Chance(sides) => format!("the GM rolls {}", dice_text(&sides)),
            ToAct::Nobody => self.outcome_text().unwrap_or_else(|| "game over".into()),
        }
    }
}

/// A board's status line broken at spaces so that none exceeds `width` columns, each as full
/// as it can be (first fit), no word broken, continuations indented by two: every game's
/// board text.
pub fn wrap_status(line: &str, width: usize) -> Vec<String> {
    let options = textwrap::Options::new(width)
        .subsequent_indent("  ")
        .break_words(false)
        .word_separator(textwrap::WordSeparator::AsciiSpace)
        .wrap_algorithm(textwrap::WrapAlgorithm::FirstFit);
    textwrap::wrap(line, options)
        .into_iter()
        .map(|l| l.into_owned())
        .collect()
}

/// A record's move text split on white space, except that `roll` keeps its numbers
/// (`Fob6 roll 3 b6-a6` -> `Fob6`, `roll 3`, `b6-a6`): the default `Rules::split_plies`.
pub fn split_roll_plies(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut tokens = text.split_whitespace().peekable();
    while let Some(tok) = tokens.next() {
        if tok.eq_ignore_ascii_case("roll") {
            let mut ply = "roll".to_string();
            while let Some(n) = tokens
                .peek()
                .filter(|t| t.chars().all(|c| c.is_ascii_digit()))
            {
                ply.push(' ');
                ply.push_str(n);
                tokens.next();
            }
            out.push(ply);
        } else {
            out.push(tok.to_string());
        }
    }
    out
}

/// The dice of a roll in words: `d4 d6`, `d4 d4`; three or more alike in a row are counted
/// (`26d6`), so that a long opening roll (a Siberian sequence) stays one short phrase.
fn dice_text(sides: &[u32]) -> String {
    let mut parts: Vec<String> = Vec::new();
    for run in sides.chunk_by(|a, b| a == b) {
        match run.len() {
            n @ 3.. => parts.push(format!("{n}d{}", run[0])),
            _ => parts.extend(run.iter().map(|s| format!("d{s}"))),
        }
    }
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    #[test]
    fn many_dice_of_a_kind_are_counted() {
        assert_eq!(super::dice_text(&[6]), "d6");
        assert_eq!(super::dice_text(&[4, 4]), "d4 d4");
        assert_eq!(super::dice_text(&[6; 32]), "32d6");
        assert_eq!(super::dice_text(&[4, 6, 6, 6]), "d4 3d6");
    }
}
