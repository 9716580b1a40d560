//! A seat's game lines for its game, decided once: the game's status, a `#N` guard, whose turn, and orders vs a planned declaration vs one move; whoever sends them (a mail, the GM's command line).

use chrono::Duration;

use super::turn::{play_planned, record_orders, LineCheck};
use super::{play, to_act_text, Gm, News, Played, Refusal};
use crate::gamelog::Loaded;
use crate::games::{Actor, Conditional, PlyError, ToAct};
use crate::store::GameStatus;

/// Who sends a seat's lines: the seat's own mail (its reply tells it what happened, so the
/// other seats are told and it is not), the GM for the seat (every seat is told), the robot
/// playing its own seat (told like any opponent's move), or the robot standing in for a late
/// player (`timeout=robot`: every seat is told, the late one too).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum By {
    Mail(i64),
    Gm,
    Robot,
    StandIn,
}

/// What the sender says the lines are: a mail's lines are whatever the turn allows; the GM's
/// `game play`, `game orders` and `game plan` each name theirs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Intent {
    /// Orders, a planned declaration or one move, as the turn allows (a mail).
    AsTheTurnAllows,
    /// One ply (`pbem game play --seat`): in a turn of orders, the rules refuse it.
    Move,
    /// The turn's orders (`pbem game orders`).
    Orders,
    /// A declaration with its outcomes planned per roll (`pbem game plan`).
    Plan,
}

/// A seat's lines for one game, as one mail (or one command) gives them.
pub struct Turn<'l> {
    pub seat: usize,
    pub lines: &'l [String],
    /// The `#N` the sender wrote: the lines are played only if the game is at ply N.
    pub guard: Option<u32>,
    /// A move was already played for this mail (one move per mail).
    pub moved: bool,
    pub by: By,
    pub intent: Intent,
    /// How soon a turn of orders is adjudicated once every seat has sent its orders (the
    /// game's `early_resolve` comes first).
    pub early: Duration,
}

/// Why a line was not played.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnRefusal {
    Guard {
        wrote: u32,
        at: u32,
    },
    Paused(String),
    NotActive(GameStatus),
    NoOrders,
    NotOrders(String),
    NotAPlan,
    NotYourTurn(String),
    OneMovePerMail,
    OnlyTheFirstMove,
    DeclarationRefused,
    /// The rules refused it (illegal, ambiguous, not this seat's ply), or the game's state.
    Play(Refusal),
}

impl TurnRefusal {
    /// The reason itself, as the GM's command line prints it; a player's reply reads it after
    /// "not played: " (`Display`), except the rules' own words.
    pub fn reason(&self) -> String {
        match self {
            TurnRefusal::Guard { wrote, at } => format!(
                "you wrote #{wrote}, but the game is at #{at} (the position changed since; see \
                 the board below)"
            ),
            TurnRefusal::Paused(why) => format!(
                "the GM has paused the game ({why}); you will be told when it resumes, then \
                 send your move again"
            ),
            TurnRefusal::NotActive(status) => format!("the game is {status}"),
            TurnRefusal::NoOrders => "you have no orders to give this turn".into(),
            TurnRefusal::NotOrders(who) => format!("this is not a turn of orders ({who})"),
            TurnRefusal::NotAPlan => {
                "these lines are not a declaration with planned outcomes in this game".into()
            }
            TurnRefusal::NotYourTurn(who) => format!("it is not your turn ({who})"),
            TurnRefusal::OneMovePerMail => "one move per mail".into(),
            TurnRefusal::OnlyTheFirstMove => {
                "one move per mail (only the first move counts)".into()
            }
            TurnRefusal::DeclarationRefused => "the declaration was refused".into(),
            TurnRefusal::Play(why) => why.to_string(),
        }
    }
}

impl std::fmt::Display for TurnRefusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TurnRefusal::Play(why) => write!(f, "{why}"),
            other => write!(f, "not played: {}", other.reason()),
        }
    }
}

/// What became of one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineOutcome {
    /// The move (or a plan's declaration) was played: the first ply played, when it says
    /// more than the line did.
    Played(Option<String>),
    /// A planned outcome, kept until the roll.
    Planned,
    /// An order, in its canonical form.
    Ordered(String),
    /// Written as an order but void (the unit holds): why.
    Void(String),
    /// Not a move (prose, or a line the game cannot read: its reason when it may be a
    /// mistyped move).
    NotAMove(Option<PlyError>),
    /// Not an order: prose among orders, only its sender sees it.
    NotAnOrder,
    Refused(TurnRefusal),
}

/// What a seat's lines did.
#[derive(Debug, Default)]
pub struct Submission {
    /// Each line's outcome, in the order of the lines.
    pub lines: Vec<LineOutcome>,
    /// The plies played (the seat's, then what followed: rolls, forced plies, a plan's).
    pub played: Option<Played>,
    /// Orders were recorded for this turn.
    pub ordered: bool,
    /// A plan was played but none of its outcomes could be: the seat is asked for its choice.
    pub unplanned: bool,
    /// The number of the seat's own ply, when one was played (a comment is kept with it).
    pub ply: Option<i64>,
}

impl Submission {
    /// A move was played or orders recorded (one move per mail counts it).
    pub fn moved(&self) -> bool {
        self.ordered || self.played.is_some()
    }
}

/// Decides a seat's lines for its game, once, and tells the players what was played (all
/// of them when the GM sent the lines; the others when the seat's own mail is answered).
pub fn submit(gm: &mut Gm, g: &mut Loaded, turn: &Turn) -> anyhow::Result<Submission> {
    let mut out = Submission::default();
    if let Some(why) = refusal(g, turn) {
        // Only a line that reads as a move is refused; prose is not a move, whenever it comes.
        out.lines = turn
            .lines
            .iter()
            .map(|l| match reads_as_a_move(g, l) {
                true => LineOutcome::Refused(why.clone()),
                false => LineOutcome::NotAMove(None),
            })
            .collect();
        return Ok(out);
    }
    // Judged before the move moves the clock on (reliability: in time or late).
    let late = super::reliability::late_now(gm.tx, g, turn.seat, gm.now)?;
    let orders_turn = matches!(g.game.to_act(), ToAct::Orders(_));
    // A declaration with outcomes planned per roll over several lines (d4 d6 chess), maybe
    // followed by a sign-off ("Cheers, / Boris"): the plan is the lines before it.
    let moves = &turn.lines[..turn.lines.len() - signoff_lines(turn.lines)];
    let plan = match turn.intent {
        Intent::Plan | Intent::AsTheTurnAllows if moves.len() > 1 => g
            .game
            .conditional(turn.lines)
            .map(|p| (p, turn.lines))
            .or_else(|| g.game.conditional(moves).map(|p| (p, moves))),
        Intent::Plan => g.game.conditional(turn.lines).map(|p| (p, turn.lines)),
        _ => None,
    };
    // A plan a word spoils (a bad hex or roll on its second line) is refused as a whole,
    // naming the word, rather than its first line played alone.
    let spoiled = match turn.intent {
        _ if plan.is_some() || orders_turn => None,
        Intent::Plan | Intent::AsTheTurnAllows if moves.len() > 1 => g.game.plan_refusal(moves),
        Intent::Plan => g.game.plan_refusal(turn.lines),
        _ => None,
    };
    if let Some(e) = spoiled {
        out.lines
            .push(LineOutcome::Refused(TurnRefusal::Play(e.into())));
        let rest = LineOutcome::Refused(TurnRefusal::DeclarationRefused);
        out.lines.extend(vec![rest; moves.len().max(1) - 1]);
        let signoff = turn.lines.len() - out.lines.len();
        out.lines.extend(vec![LineOutcome::NotAMove(None); signoff]);
        return Ok(out);
    }
    match (turn.intent, orders_turn, plan) {
        // (`refusal` turned away orders outside a turn of orders.)
        (Intent::Orders | Intent::AsTheTurnAllows, true, _) | (Intent::Orders, false, _) => {
            orders(gm, g, turn, &mut out)?
        }
        (Intent::Plan, _, None) => {
            out.lines = vec![LineOutcome::Refused(TurnRefusal::NotAPlan); turn.lines.len()];
        }
        (_, _, Some((plan, lines))) => {
            planned(gm, g, turn, &plan, lines, &mut out)?;
            // The sign-off after the plan: not a move.
            let rest = turn.lines.len() - out.lines.len();
            out.lines.extend(vec![LineOutcome::NotAMove(None); rest]);
        }
        (Intent::AsTheTurnAllows | Intent::Move, _, None) => first_move(gm, g, turn, &mut out)?,
    }
    if let Some(played) = &mut out.played {
        settled(gm, g, turn, late)?;
        tell_played(gm, g, turn, played)?;
    }
    Ok(out)
}

/// The seat's turn was played: its player's reliability records how (a turn of orders is
/// recorded when it is adjudicated). The robot's own seat owes nothing; the GM's move for a
/// seat counts against its player only once the seat was late.
fn settled(gm: &Gm, g: &Loaded, turn: &Turn, late: bool) -> anyhow::Result<()> {
    use super::reliability::{missed, moved};
    match turn.by {
        By::Mail(_) => moved(gm.tx, g, turn.seat, late, gm.now),
        By::StandIn => missed(gm.tx, g, turn.seat, gm.now),
        By::Gm if late => missed(gm.tx, g, turn.seat, gm.now),
        By::Gm | By::Robot => Ok(()),
    }
}

/// How many of the last lines are a sign-off: lines of one or two words of letters (a
/// closing word, a name: "Cheers,", "Best, Wanda"), with no digit or sign a move would have.
fn signoff_lines(lines: &[String]) -> usize {
    let is_signoff = |l: &String| {
        let words: Vec<&str> = l.split_whitespace().collect();
        (1..=2).contains(&words.len())
            && words.iter().all(|w| {
                w.chars().next().is_some_and(char::is_alphabetic)
                    && w.chars()
                        .all(|c| c.is_alphabetic() || matches!(c, ',' | '.' | '!' | '\'' | '-'))
            })
    };
    lines.iter().rev().take_while(|l| is_signoff(l)).count()
}

/// Whether a line may be a move, judged without playing it: every move of every game has a
/// digit (a greeting or a sign-off has none), and a game of orders knows its notation.
fn reads_as_a_move(g: &Loaded, line: &str) -> bool {
    line.chars().any(|c| c.is_ascii_digit()) && !is_a_sentence(line) && g.game.is_notation(line)
}

/// A sentence ("back in 2 hours") is prose even with a digit in it: two or more words of
/// three letters or more, which no move of any game has.
fn is_a_sentence(line: &str) -> bool {
    let word = |w: &&str| w.chars().count() >= 3 && w.chars().all(char::is_alphabetic);
    line.split_whitespace().filter(word).count() >= 2
}

/// Why none of the seat's lines can be played now, if so: checked before any is tried.
fn refusal(g: &Loaded, turn: &Turn) -> Option<TurnRefusal> {
    let at = g.moves.len() as u32 + 1;
    if let Some(wrote) = turn.guard.filter(|n| *n != at) {
        return Some(TurnRefusal::Guard { wrote, at });
    }
    if turn.intent == Intent::Move {
        // The GM's one ply for a seat: the game's state and its rules say whether it may be
        // played (a resignation or a draw is any seat's, whoever is to move).
        return None;
    }
    match g.row.status {
        GameStatus::Active => {}
        GameStatus::Paused => {
            let why = g.row.pause_reason.as_deref().unwrap_or("no reason given");
            return Some(TurnRefusal::Paused(why.to_string()));
        }
        other => return Some(TurnRefusal::NotActive(other)),
    }
    let orders_turn = matches!(g.game.to_act(), ToAct::Orders(_));
    if turn.intent == Intent::Orders && !orders_turn {
        return Some(TurnRefusal::NotOrders(to_act_text(g)));
    }
    match g.game.to_act() {
        ToAct::Orders(seats) if seats.contains(&turn.seat) => None,
        ToAct::Orders(_) => Some(TurnRefusal::NoOrders),
        ToAct::Seat(s) if s == turn.seat && turn.moved => Some(TurnRefusal::OneMovePerMail),
        ToAct::Seat(s) if s == turn.seat => None,
        _ => Some(TurnRefusal::NotYourTurn(to_act_text(g))),
    }
}

/// A simultaneous turn: the seat's orders (each understood or void) replace any it sent
/// before; prose among them is nobody's business but its sender's.
fn orders(gm: &Gm, g: &mut Loaded, turn: &Turn, out: &mut Submission) -> anyhow::Result<()> {
    let checked = record_orders(gm.tx, g, turn.seat, turn.lines, gm.now, turn.early)?;
    out.ordered = checked.iter().any(|c| *c != LineCheck::Prose);
    out.lines = checked
        .into_iter()
        .map(|c| match c {
            LineCheck::Order(c) => LineOutcome::Ordered(c),
            LineCheck::Void(why) => LineOutcome::Void(why),
            LineCheck::Prose => LineOutcome::NotAnOrder,
        })
        .collect();
    Ok(())
}

/// A declaration with its outcomes planned per roll: the plan kept, the declaration played.
fn planned(
    gm: &mut Gm,
    g: &mut Loaded,
    turn: &Turn,
    plan: &Conditional,
    lines: &[String],
    out: &mut Submission,
) -> anyhow::Result<()> {
    let seat = turn.seat;
    let at = g.moves.len() as i64 + 1;
    let played = match play_planned(gm, g, seat, plan, message(turn))? {
        Ok(p) => p,
        Err(e) => {
            out.lines.push(LineOutcome::Refused(TurnRefusal::Play(e)));
            let rest = LineOutcome::Refused(TurnRefusal::DeclarationRefused);
            out.lines.extend(vec![rest; lines.len() - 1]);
            return Ok(());
        }
    };
    // A one-line plan (`H d4`, `c3: 1>a1 *>e5`) is not echoed as its declaration alone:
    // what it played follows in the reply.
    let first = played.plies.first().map(|p| p.1.clone());
    out.lines
        .push(LineOutcome::Played(first.filter(|_| lines.len() > 1)));
    out.lines
        .extend(vec![LineOutcome::Planned; lines.len() - 1]);
    // The seat is still to act and none of its planned outcomes was played (no entry for the
    // roll, or none legal): the GM asks for its choice.
    let none_played = played
        .plies
        .iter()
        .skip(1)
        .all(|p| p.0 != Actor::Seat(seat));
    out.unplanned = none_played && g.game.to_act() == ToAct::Seat(seat);
    out.played = Some(played);
    out.ply = Some(at);
    Ok(())
}

/// The first line that reads as a move is the move; prose that is not notation is not a
/// move; once a move was tried, later move lines are not.
fn first_move(
    gm: &mut Gm,
    g: &mut Loaded,
    turn: &Turn,
    out: &mut Submission,
) -> anyhow::Result<()> {
    let seat = turn.seat;
    let mut tried = false;
    // The position the lines were written against (a later line is read on it).
    let before = (turn.lines.len() > 1).then(|| g.game.clone());
    for line in turn.lines {
        if tried || out.moved() {
            let reads_as_move = before.as_ref().is_none_or(|b| {
                !matches!(
                    b.clone().play(Actor::Seat(seat), line),
                    Err(PlyError::Syntax(_))
                )
            });
            out.lines.push(match reads_as_move {
                true => LineOutcome::Refused(TurnRefusal::OnlyTheFirstMove),
                false => LineOutcome::NotAMove(None),
            });
            continue;
        }
        // A comment in parentheses after the move is the record's, never part of the move.
        let (line, comment) = match super::comments::split(g, seat, line) {
            Some((mv, c)) => (mv, Some(c)),
            None => (line.clone(), None),
        };
        let at = g.moves.len() as i64 + 1;
        // A whole move or a conditional on one line (Siberian Dice: `H d4`, `c3: 1>a1 *>e5`);
        // a lone declaration with nothing planned is a plain move.
        let one = std::slice::from_ref(&line);
        if let Some(plan) = g.game.conditional(one).filter(|p| !p.outcomes.is_empty()) {
            planned(gm, g, turn, &plan, one, out)?;
            if let (Some(ply), Some(c)) = (out.ply, &comment) {
                super::comments::keep(gm.tx, g.row.id, ply, c)?;
            }
            tried = true;
            continue;
        }
        match play(gm, g, Actor::Seat(seat), &line, message(turn))? {
            Ok(played) => {
                let first = played.plies.first().map(|p| p.1.clone());
                out.lines.push(LineOutcome::Played(first));
                out.played = Some(played);
                out.ply = Some(at);
                if let Some(c) = &comment {
                    super::comments::keep(gm.tx, g.row.id, at, c)?;
                }
            }
            // The reader's reason helps a mistyped move, and only puzzles prose.
            Err(Refusal::Rules(e @ PlyError::Syntax(_))) => out.lines.push(LineOutcome::NotAMove(
                reads_as_a_move(g, &line).then_some(e),
            )),
            Err(e) => {
                out.lines.push(LineOutcome::Refused(TurnRefusal::Play(e)));
                tried = true;
            }
        }
    }
    Ok(())
}

fn message(turn: &Turn) -> Option<i64> {
    match turn.by {
        By::Mail(id) => Some(id),
        By::Gm | By::Robot | By::StandIn => None,
    }
}

/// The other seats hear what was played; a seat's own mail is answered by its reply, and a
/// move the GM played for a seat is said to be the GM's doing.
fn tell_played(gm: &Gm, g: &Loaded, turn: &Turn, played: &mut Played) -> anyhow::Result<()> {
    let except = match turn.by {
        By::Mail(_) => Some(turn.seat),
        By::Gm => {
            // Said first, to the players and to the GM who reads what was played.
            let line = turn.lines.first().map(String::as_str).unwrap_or_default();
            let said = format!("The GM played {line} for {}.", g.game.seat_name(turn.seat));
            played.reports.insert(0, said);
            None
        }
        // A robot seat has no address: every player hears of its move as of anyone's.
        By::Robot => None,
        By::StandIn => {
            let line = turn.lines.join(", ");
            let name = g.game.seat_name(turn.seat);
            let said = format!("The robot played for {name} (out of time): {line}.");
            played.reports.insert(0, said);
            None
        }
    };
    gm.tell(News::Played { g, played, except })
}
