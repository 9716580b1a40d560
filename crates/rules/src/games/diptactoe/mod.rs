//! Dip-Tac-Toe (seed 002): four players, 4x4x4 tic-tac-toe with Diplomacy's simultaneous orders.
//!
//! A turn is one `Actor::Gm` ply holding every seat's order lines, built by `turn_ply`:
//! `BLUE:I.A.1-II.F.2;RED:II.G.2(S)BLUE(I.A.1-II.F.2);GREEN:VICTORY;YELLOW:`. Seats are
//! separated by `;`, a seat's lines by `,`; each line is in canonical order notation
//! (`notation/diptactoe.md`), or `?` and the line as sent, percent-encoded, when it could not be
//! read (it is void, but its reason belongs in the report): only letters, digits and
//! `-._~!*'+/=@` stay as written, so a player's words hold no `;` `,` `:`, nothing a record
//! reads, no white space.
//! Other plies: exactly `BLUE:resign` (the seat's units hold for the rest of the game) and
//! `draw`; a turn ply names four seats, so it is never one of them.
//!
//! Position tag: `turn=3 BLUE=I.A.1,II.F.2/6 RED=II.H.1/7 GREEN=III.M.4/7 YELLOW=IV.N.4/7`
//! (units, then the reserve after `/`), with ` resigned=BLUE,RED` when somebody resigned and
//! ` missed=GREEN:2` for seats that sent no orders in the last turns (the NMR count).

pub mod adjudicate;
pub mod board;
pub mod lines;
pub mod order;
pub mod position;
pub mod report;
pub mod space;
pub mod whatif;

use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::games::{
    options_get, Actor, GameFacts, Leaving, Missed, OptionSpec, Options, Outcome, PlyError, Press,
    Rules, Seat, ToAct,
};
use adjudicate::{run_turn, Verdict};
use order::{parse_line, read_player_lines, Line, LineReading, Order};
use position::{seat_by_name, Position};
use space::Space;

/// The seats, in seat order.
pub const SEATS: [&str; 4] = ["BLUE", "RED", "GREEN", "YELLOW"];

const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "support_hold",
        default: "off",
        values: &["off", "on"],
        duration: None,
        help: "allow support to hold (the rulings have none: such orders are void)",
    },
    OptionSpec {
        name: "press",
        default: "named",
        values: &["named", "anonymous"],
        duration: None,
        help: "press between players is relayed with the sender's seat (BLUE ...), or anonymously",
    },
    OptionSpec {
        name: "nmr_limit",
        default: "3",
        values: &[],
        duration: None,
        help: "missed turns (1-99) before the GM is told; until then the player's units hold",
    },
];

/// This game's settings in a player's words (`GameFacts::settings`).
fn settings(options: &Options) -> Vec<String> {
    let support = match options_get(OPTIONS, options, "support_hold") {
        "on" => "Support to hold: allowed",
        _ => "Support to hold: not allowed (such orders are void)",
    };
    let press = match options_get(OPTIONS, options, "press") {
        "anonymous" => "Press between players: relayed anonymously",
        _ => "Press between players: relayed with the sender's seat",
    };
    let limit = options_get(OPTIONS, options, "nmr_limit");
    vec![
        support.into(),
        press.into(),
        format!("Missed turns: the player's units hold; the GM is told after {limit} in a row"),
    ]
}

/// A game of Dip-Tac-Toe: the position, the turn number and who has resigned.
#[derive(Debug, Clone)]
pub struct DipTacToe {
    position: Position,
    turn: u32,
    resigned: [bool; 4],
    /// Turns in a row each seat sent no lines at all (reset by any line).
    missed: [u32; 4],
    nmr_limit: u32,
    press: Press,
    support_hold: bool,
    outcome: Option<Outcome>,
    report: Option<String>,
    last: Option<LastTurn>,
}

/// What the last turn did, for the board picture: every valid order with its result, and the
/// units dislodged (back in their owners' reserves).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LastTurn {
    pub orders: Vec<(Seat, Order, Verdict)>,
    pub dislodged: Vec<(Space, Seat)>,
}

impl DipTacToe {
    fn with_options(options: &Options, position: Position) -> Result<Self, String> {
        crate::games::check_options(OPTIONS, options)?;
        let nmr = options_get(OPTIONS, options, "nmr_limit");
        let nmr_limit = match nmr.trim().parse::<u32>() {
            Ok(n) if (1..=99).contains(&n) => n,
            _ => {
                return Err(format!(
                    "option 'nmr_limit' must be a number 1-99, not '{nmr}'"
                ))
            }
        };
        Ok(DipTacToe {
            position,
            turn: 1,
            resigned: [false; 4],
            missed: [0; 4],
            nmr_limit,
            press: match options_get(OPTIONS, options, "press") {
                "anonymous" => Press::Anonymous,
                _ => Press::Named,
            },
            support_hold: options_get(OPTIONS, options, "support_hold") == "on",
            outcome: None,
            report: None,
            last: None,
        })
    }

    /// How many turns in a row the seat has sent no orders.
    pub fn missed_turns(&self, seat: Seat) -> u32 {
        self.missed.get(seat).copied().unwrap_or(0)
    }

    /// The units and reserves now.
    pub fn position(&self) -> &Position {
        &self.position
    }

    /// What the last turn did (none before the first turn).
    pub fn last_turn(&self) -> Option<&LastTurn> {
        self.last.as_ref()
    }

    /// Every legal order of a seat now, canonical (placements onto any space, moves to every
    /// neighbour, supports of every foreign move or placement a unit can reach).
    pub fn legal_orders(&self, seat: Seat) -> Vec<String> {
        let pos = &self.position;
        let mut orders = Vec::new();
        if pos.reserves[seat] > 0 {
            orders.extend(Space::all().map(|to| Order::Place { to }));
        }
        for unit in pos.units_of(seat) {
            orders.extend(
                unit.neighbours()
                    .into_iter()
                    .map(|to| Order::Move { from: unit, to }),
            );
            for (&other, &owner) in &pos.units {
                if owner == seat {
                    continue;
                }
                for to in other.neighbours() {
                    if unit.is_adjacent(to) {
                        orders.push(Order::SupportMove {
                            supporter: unit,
                            colour: Some(owner),
                            from: other,
                            to,
                        });
                    }
                }
                if self.support_hold && unit.is_adjacent(other) {
                    orders.push(Order::SupportHold {
                        supporter: unit,
                        colour: Some(owner),
                        held: other,
                    });
                }
            }
            for placer in (0..4).filter(|p| *p != seat && pos.reserves[*p] > 0) {
                for to in unit.neighbours() {
                    orders.push(Order::SupportPlace {
                        supporter: unit,
                        colour: Some(placer),
                        to,
                    });
                }
            }
        }
        orders.iter().map(Order::to_string).collect()
    }

    /// A line's form in a turn ply: canonical when it can be read, else `?` + percent-encoded.
    fn ply_line(&self, seat: Seat, text: &str) -> String {
        match parse_line(text) {
            Ok(Line::Claim) => "VICTORY".into(),
            Ok(Line::Order(mut order)) => {
                // Filling in the supported unit's colour; a void order keeps what was written.
                let _ = order.validate(seat, &self.position, self.support_hold);
                order.to_string()
            }
            Err(_) => format!("?{}", percent_encode(text.trim())),
        }
    }

    fn play_turn(&mut self, text: &str) -> Result<String, PlyError> {
        let mut lines: [Vec<String>; 4] = Default::default();
        let mut seen = [false; 4];
        for segment in text.split(';').filter(|s| !s.trim().is_empty()) {
            let Some((name, body)) = segment.split_once(':') else {
                return Err(PlyError::Syntax(format!(
                    "'{segment}': a turn reads SEAT:order,order;SEAT:..."
                )));
            };
            let seat = seat_by_name(name).map_err(PlyError::Syntax)?;
            if std::mem::replace(&mut seen[seat], true) {
                return Err(PlyError::Syntax(format!("{} appears twice", SEATS[seat])));
            }
            for item in body.split(',').filter(|l| !l.trim().is_empty()) {
                let line = match item.strip_prefix('?') {
                    Some(raw) => percent_decode(raw).map_err(PlyError::Syntax)?,
                    None => item.to_string(),
                };
                lines[seat].push(line);
            }
            if self.resigned[seat] && !lines[seat].is_empty() {
                return Err(PlyError::Illegal(format!(
                    "{} has resigned and gives no orders",
                    SEATS[seat]
                )));
            }
        }
        let canonical: Vec<String> = (0..4)
            .map(|seat| {
                let items: Vec<String> =
                    lines[seat].iter().map(|l| self.ply_line(seat, l)).collect();
                format!("{}:{}", SEATS[seat], items.join(","))
            })
            .collect();
        let turn = run_turn(&self.position, &lines, self.support_hold);
        self.last = Some(LastTurn {
            orders: turn.orders.clone(),
            dislodged: turn.dislodged.clone(),
        });
        let mut report = report::render(&turn, &format!("Turn {}", self.turn));
        for seat in 0..4 {
            if self.resigned[seat] {
                continue;
            }
            self.missed[seat] = if lines[seat].is_empty() {
                self.missed[seat] + 1
            } else {
                0
            };
            if self.missed[seat] > 1 {
                report.push_str(&format!(
                    "{} has sent no orders for {} turns in a row.\n",
                    SEATS[seat], self.missed[seat]
                ));
            }
        }
        self.report = Some(report);
        let winners = turn.winners();
        self.position = turn.after;
        self.turn += 1;
        self.outcome = match winners.as_slice() {
            [] => None,
            [one] => Some(Outcome::Win {
                seat: *one,
                reason: "a valid claim of four in a row".into(),
            }),
            many => Some(Outcome::Draw {
                seats: many.to_vec(),
                reason: "valid claims of four in a row in the same turn".into(),
            }),
        };
        Ok(canonical.join(";"))
    }
}

/// Whether a byte of a player's line is written as itself in a turn ply: ASCII letters, digits
/// and a little punctuation that means nothing in a ply (as `;` `,` `:` `?` `%` do) nor in a
/// record (as `{` `}` `[` `]` `(` `)` `"` `\` `>` and white space do). Everything else is
/// `%XX`, so the free text of a turn can never be taken for its structure.
fn written_as_itself(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || b"-._~!*'+/=@".contains(&byte)
}

/// Percent-encodes a line that could not be read, byte by byte (UTF-8), upper-case hex.
fn percent_encode(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if written_as_itself(byte) {
            out.push(byte as char);
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// Decodes `%XX` (two hex digits). Any other character stands for itself: plies logged before
/// the encoding took in `:` `{` `"` and the like still replay (their canonical text is then
/// re-encoded).
fn percent_decode(text: &str) -> Result<String, String> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = bytes
                .get(i + 1..i + 3)
                .filter(|h| h.iter().all(u8::is_ascii_hexdigit))
                .ok_or_else(|| format!("'{text}': bad %-escape"))?;
            // Two ASCII hex digits: always a valid number below 256.
            let digits = std::str::from_utf8(hex).map_err(|e| e.to_string())?;
            out.push(u8::from_str_radix(digits, 16).map_err(|e| e.to_string())?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    String::from_utf8(out).map_err(|_| format!("'{text}' is not UTF-8"))
}

impl Rules for DipTacToe {
    const FACTS: GameFacts = GameFacts {
        name: "diptactoe",
        title: "Dip-Tac-Toe",
        rolls_dice: false,
        simultaneous: true,
        seats: &SEATS,
        players: (4, 4),
        options: OPTIONS,
        settings,
        summary: "Dip-Tac-Toe: four players on a 4x4x4 cube give one order a turn (place\n\
             from the reserve, move one step, or support another player), all\n\
             resolved together as in Diplomacy. Claim VICTORY with your orders when\n\
             you hold four in a line.",
        player_guide: include_str!("../../../../../help/diptactoe.md"),
    };

    fn conclude(&mut self, outcome: &Outcome) {
        self.outcome = Some(outcome.clone());
    }

    fn new(options: &Options) -> Result<Self, String> {
        DipTacToe::with_options(options, Position::start())
    }

    fn from_position(options: &Options, tag: &str) -> Result<Self, String> {
        let mut units: [Vec<Space>; 4] = Default::default();
        let mut reserves = [0u32; 4];
        let mut seen = [false; 4];
        let mut turn = None;
        let mut resigned = [false; 4];
        let mut missed = [0u32; 4];
        for field in tag.split_whitespace() {
            let (key, value) = field
                .split_once('=')
                .ok_or_else(|| format!("'{field}': position fields read key=value"))?;
            if key.eq_ignore_ascii_case("turn") {
                turn = Some(
                    value
                        .parse::<u32>()
                        .ok()
                        .filter(|t| *t >= 1)
                        .ok_or_else(|| format!("'{value}' is not a turn number"))?,
                );
            } else if key.eq_ignore_ascii_case("missed") {
                for item in value.split(',').filter(|n| !n.is_empty()) {
                    let (name, count) = item
                        .split_once(':')
                        .ok_or_else(|| format!("'{item}': write missed=SEAT:N"))?;
                    missed[seat_by_name(name)?] = count
                        .parse()
                        .map_err(|_| format!("'{count}' is not a number of missed turns"))?;
                }
            } else if key.eq_ignore_ascii_case("resigned") {
                for name in value.split(',').filter(|n| !n.is_empty()) {
                    resigned[seat_by_name(name)?] = true;
                }
            } else {
                let seat = seat_by_name(key)?;
                seen[seat] = true;
                let (spaces, reserve) = value
                    .split_once('/')
                    .ok_or_else(|| format!("'{field}': write {key}=spaces/reserve"))?;
                for s in spaces.split(',').filter(|s| !s.is_empty()) {
                    units[seat].push(Space::parse(s)?);
                }
                reserves[seat] = reserve
                    .parse()
                    .map_err(|_| format!("'{reserve}' is not a reserve count"))?;
            }
        }
        if let Some(missing) = (0..4).find(|s| !seen[*s]) {
            return Err(format!("the position does not give {}", SEATS[missing]));
        }
        let mut game = DipTacToe::with_options(options, Position::from_parts(&units, reserves)?)?;
        game.turn = turn.ok_or("the position does not give turn=N")?;
        game.resigned = resigned;
        game.missed = missed;
        Ok(game)
    }

    fn position_tag(&self) -> String {
        let mut fields = vec![format!("turn={}", self.turn)];
        for (seat, name) in SEATS.iter().enumerate() {
            let spaces: Vec<String> = self
                .position
                .units_of(seat)
                .iter()
                .map(Space::to_string)
                .collect();
            fields.push(format!(
                "{name}={}/{}",
                spaces.join(","),
                self.position.reserves[seat]
            ));
        }
        let resigned: Vec<&str> = (0..4)
            .filter(|s| self.resigned[*s])
            .map(|s| SEATS[s])
            .collect();
        if !resigned.is_empty() {
            fields.push(format!("resigned={}", resigned.join(",")));
        }
        let missed: Vec<String> = (0..4)
            .filter(|s| self.missed[*s] > 0)
            .map(|s| format!("{}:{}", SEATS[s], self.missed[s]))
            .collect();
        if !missed.is_empty() {
            fields.push(format!("missed={}", missed.join(",")));
        }
        fields.join(" ")
    }

    fn seat_names(&self) -> &'static [&'static str] {
        &SEATS
    }

    /// Orders are owed by every seat that has not resigned, until the game ends.
    fn to_act(&self) -> ToAct {
        if self.outcome.is_some() {
            return ToAct::Nobody;
        }
        ToAct::Orders((0..4).filter(|s| !self.resigned[*s]).collect())
    }

    fn play(&mut self, actor: Actor, text: &str) -> Result<String, PlyError> {
        if self.outcome.is_some() {
            return Err(PlyError::NotYourTurn("the game is over".into()));
        }
        let text = text.trim();
        match actor {
            Actor::Gm => self.play_turn(text),
            _ => Err(PlyError::NotYourTurn(
                "orders go to the GM, who adjudicates the turn for everybody".into(),
            )),
        }
    }

    fn outcome(&self) -> Option<Outcome> {
        self.outcome.clone()
    }

    /// A sample of turn plies: each seat's every legal order with the others holding.
    fn legal_plies(&self) -> Vec<String> {
        if self.outcome.is_some() {
            return Vec::new();
        }
        (0..4)
            .filter(|s| !self.resigned[*s])
            .flat_map(|seat| {
                self.legal_orders(seat)
                    .into_iter()
                    .map(move |o| format!("{}:{o}", SEATS[seat]))
            })
            .collect()
    }

    fn board(&self) -> String {
        board::render(&self.position)
    }

    fn position_json(&self) -> serde_json::Value {
        let mut value = self.position.json();
        value["turn"] = serde_json::json!(self.turn);
        value
    }

    fn move_number(&self) -> Option<(u32, bool)> {
        Some((self.turn, true))
    }

    fn is_notation(&self, line: &str) -> bool {
        order::looks_like_order(line)
    }

    fn check_orders(&self, seat: Seat, lines: &[String]) -> Vec<Result<String, String>> {
        if self.outcome.is_some() || self.resigned.get(seat).copied().unwrap_or(true) {
            let why = if self.outcome.is_some() {
                "the game is over"
            } else if seat >= SEATS.len() {
                "there is no such player"
            } else {
                "you have resigned: your units hold"
            };
            return lines.iter().map(|_| Err(why.to_string())).collect();
        }
        read_player_lines(seat, lines, &self.position, self.support_hold)
            .into_iter()
            .map(|reading| match reading {
                LineReading::Claim => Ok("VICTORY".into()),
                LineReading::Order(order) => Ok(order.to_string()),
                LineReading::Void(reason) => Err(reason),
            })
            .collect()
    }

    fn turn_ply(&self, orders: &BTreeMap<Seat, Vec<String>>) -> Result<String, String> {
        if self.outcome.is_some() {
            return Err("the game is over".into());
        }
        let segments: Vec<String> = (0..4)
            .map(|seat| {
                let lines: Vec<String> = if self.resigned[seat] {
                    Vec::new()
                } else {
                    orders
                        .get(&seat)
                        .into_iter()
                        .flatten()
                        .filter(|l| !l.trim().is_empty())
                        .map(|l| self.ply_line(seat, l))
                        .collect()
                };
                format!("{}:{}", SEATS[seat], lines.join(","))
            })
            .collect();
        let mut trial = self.clone();
        trial
            .play(Actor::Gm, &segments.join(";"))
            .map_err(|e| e.to_string())
    }

    fn last_report(&self) -> Option<String> {
        self.report.clone()
    }

    fn press(&self) -> Option<Press> {
        Some(self.press)
    }

    fn missed(&self, seat: Seat) -> Option<Missed> {
        Some(Missed {
            turns: self.missed_turns(seat),
            limit: self.nmr_limit,
        })
    }

    /// A resigning seat's units hold for the rest of the game; it owes no more orders.
    const LEAVING: Leaving = Leaving::UnitsHold;
    /// Its plies are the GM's, so a resignation names its seat: `BLUE:resign`.
    const RESIGN_NAMES_SEAT: bool = true;

    fn retire(&mut self, seat: Seat) -> Option<String> {
        self.resigned[seat] = true;
        None
    }

    fn retired(&self) -> Vec<Seat> {
        (0..4).filter(|s| self.resigned[*s]).collect()
    }
}
