//! The variables of every mail kind as typed structs, one per template (templates/<kind>.txt), so that what a template may read is fixed where the mail is made.

use serde::Serialize;

use crate::gamelog::Loaded;
use crate::games::Actor;
use crate::store::GameStatus;
use crate::template::date as when;

/// A mail kind's variables; `kind` names the outbox row's kind and, unless `template` says
/// otherwise, its template.
pub trait Letter: Serialize {
    fn kind(&self) -> &'static str;

    /// The template that writes it: its kind's own, unless the kind is a variant of another
    /// letter (`news` is written as a `turn_report`).
    fn template(&self) -> &'static str {
        self.kind()
    }

    /// Text the mail carries as it is, never refilled (`template::wrap`): a record, boards.
    fn verbatim(&self) -> Vec<&str> {
        Vec::new()
    }

    /// Whether a player who takes the daily digest may get this as part of it instead of at
    /// once: only news of plies, which the digest lists (never a reply, an offer or notice).
    fn may_wait(&self) -> bool {
        false
    }

    /// The mail's first line when its reader must know something the game's state does not
    /// say (orders all void); `None`: the state's own (`headline`).
    fn headline(&self) -> Option<String> {
        None
    }

    /// Whether its reader waits for it to act (a report that it is their turn, the game's
    /// end): such a mail is never held by the hourly limit, however brisk the game.
    fn awaited(&self) -> bool {
        false
    }

    /// The texts of the mail that tell what was played (reports), so that the board beside
    /// them does not tell the last ply again (`board_for`).
    fn told(&self) -> Vec<&str> {
        Vec::new()
    }
}

/// The board a seat's mail shows: where the mail's text has just told the last ply by its
/// report, without the board's own line for that ply (the board shown alone keeps it).
pub fn board_for(g: &Loaded, letter: &impl Letter) -> String {
    let told = g
        .game
        .last_report()
        .is_some_and(|r| letter.told().iter().any(|t| t.contains(r.trim())));
    match told {
        true => g.game.board_beside_report(),
        false => g.board().to_string(),
    }
}

/// The game as every template about a game sees it (`game.*`).
#[derive(Debug, Clone, Serialize)]
pub struct GameVars {
    pub id: i64,
    pub kind: &'static str,
    pub title: &'static str,
    pub status: GameStatus,
    pub to_act: String,
    pub deadline: Option<String>,
    /// The number the next ply will have (players may guard a move with `#n`).
    pub ply: usize,
    pub commitment: Option<String>,
    pub dice: bool,
    pub salts: Vec<String>,
    pub salts_fixed: bool,
    pub salts_until: Option<String>,
    /// The dice seed, once revealed.
    pub seed: Option<String>,
    pub result: Option<String>,
}

impl GameVars {
    pub fn of(g: &Loaded) -> GameVars {
        GameVars {
            id: g.row.id,
            kind: g.kind().name(),
            title: g.kind().title(),
            status: g.row.status,
            to_act: crate::gm::to_act_text(g),
            // Once all orders are in, the time of adjudication is said in `to_act`.
            // The clock's deadline: a vacation moves it before the timer does.
            deadline: crate::gm::clock::deadline(g)
                .filter(|_| !crate::gm::all_ordered(g))
                .map(when),
            ply: g.moves.len() + 1,
            commitment: g.row.commitment.clone(),
            dice: g.kind().rolls_dice() && g.row.commitment.is_some(),
            salts: crate::gm::salts(&g.row).unwrap_or_default(),
            salts_fixed: g.row.salts_fixed,
            salts_until: g.row.salts_until.map(when),
            seed: if g.row.seed_revealed && g.kind().rolls_dice() {
                g.row.seed.clone()
            } else {
                None
            },
            // The stored result says how it ended, in words (a game the GM cancelled or
            // declared drawn has no outcome of its own that says so).
            result: match g.row.status {
                GameStatus::Finished => g.row.result.clone().or_else(|| g.game.outcome_text()),
                _ => g.game.outcome_text(),
            },
        }
    }
}

/// The first line of every mail to a seat: what its reader must do now, if anything.
pub fn headline(g: &Loaded, seat: usize) -> String {
    use crate::games::ToAct;
    match g.row.status {
        GameStatus::Finished => {
            let result = g
                .row
                .result
                .clone()
                .or_else(|| g.game.outcome_text())
                .unwrap_or_else(|| "it has ended".into());
            return format!("The game is over: {result}.");
        }
        GameStatus::Paused => return "Nothing to do: the GM has paused the game.".into(),
        GameStatus::Open => {
            return "Nothing to do yet: the game starts when every seat is taken.".into()
        }
        GameStatus::Active => {}
    }
    if !g.game.playing().contains(&seat) {
        return "Nothing to do: you have left this game.".into();
    }
    match g.game.to_act() {
        ToAct::Seat(s) if s == seat => "Your move.".into(),
        ToAct::Seat(s) => format!("Nothing to do: waiting for {}.", g.game.seat_name(s)),
        ToAct::Orders(seats) if seats.contains(&seat) && !g.ordered.contains(&seat) => {
            "Your orders are due.".into()
        }
        ToAct::Orders(_) if crate::gm::all_ordered(g) => "Nothing to do: all orders are in.".into(),
        ToAct::Orders(_) => "Nothing to do: your orders are in; waiting for the others.".into(),
        ToAct::Chance(_) if crate::gm::waiting_for_salts(g) => {
            if g.seat(seat).is_some_and(|s| s.ready) {
                "Nothing to do: the first roll waits for the other players' START.".into()
            } else {
                "Send START once you have no more salts to add: the first roll waits for it.".into()
            }
        }
        ToAct::Chance(_) | ToAct::Nobody => "Nothing to do for now.".into(),
    }
}

/// What every mail to a seat has (`game`, `seat`, `board`, `headline`), and its own kind's
/// variables.
#[derive(Serialize)]
pub struct SeatMail<'a, L: Letter> {
    pub game: GameVars,
    pub seat: &'static str,
    /// What the reader must do now, if anything (the mail's first line).
    pub headline: String,
    pub board: &'a str,
    #[serde(flatten)]
    pub letter: &'a L,
}

/// A seat and who plays it.
#[derive(Debug, Clone, Serialize)]
pub struct PlayerVars {
    pub seat: &'static str,
    /// The player as the reader may see them (`names::seat_holder`); none: an open seat.
    pub who: Option<String>,
}

/// `welcome`: the rules summary and the players.
#[derive(Debug, Serialize)]
pub struct Welcome {
    pub players: Vec<PlayerVars>,
    pub rules: String,
    /// This game's settings in plain words, one per line ("Move time: 2 days; a reminder 24
    /// hours before the deadline", "Variant: purity: ..."): the values, never the options'
    /// names or what other values would do; what does not apply to this game is left out.
    pub settings: Vec<String>,
}

/// The welcome's settings: the clock's (the GM's options) and the game's own, each line
/// refilled to the letter's width with a hanging indent.
pub fn settings(cfg: &crate::config::Config, g: &Loaded) -> Vec<String> {
    let given = crate::gamelog::options_of(&g.row).unwrap_or_default();
    let mut lines = crate::gm::options::settings(g, cfg);
    lines.extend(g.kind().settings(&given));
    let wrap = textwrap::Options::new(72).subsequent_indent("    ");
    lines.iter().map(|l| textwrap::fill(l, &wrap)).collect()
}

impl Letter for Welcome {
    fn kind(&self) -> &'static str {
        "welcome"
    }
}

/// One ply as a report lists it.
#[derive(Debug, Clone, Serialize)]
pub struct PlyVars {
    pub actor: String,
    pub text: String,
    /// The ply as a sentence a player reads ("RED played b2", "The GM rolled 4.").
    pub said: String,
}

impl PlyVars {
    pub fn list(g: &Loaded, plies: &[(Actor, String)]) -> Vec<PlyVars> {
        plies
            .iter()
            .map(|(a, t)| PlyVars {
                actor: crate::records::actor_name(&g.game, *a),
                text: t.clone(),
                said: said(g, *a, t),
            })
            .collect()
    }
}

/// A ply in a player's words: the GM's own plies (rolls, a turn's adjudication, a draw) are
/// told as what happened, never in the record's syntax.
pub fn said(g: &Loaded, actor: Actor, text: &str) -> String {
    // A resignation or a draw is told by its report ("B resigns; A wins"), not as a move.
    let by_name = |n: &str| g.game.seat_by_name(n);
    if let Some(Ok(_)) = crate::games::standing::read(actor, text, by_name) {
        return String::new();
    }
    // A game whose reports tell each ply in words (its notation beside) is told by them:
    // listing the ply as well would say it twice.
    if g.game.reports_every_ply() {
        return String::new();
    }
    match actor {
        Actor::Seat(s) => format!("{} played {text}", g.game.seat_name(s)),
        Actor::Chance => {
            let values: Vec<String> = crate::gamelog::chance_values(text)
                .iter()
                .map(u32::to_string)
                .collect();
            format!("The GM rolled {}.", values.join(" "))
        }
        // A turn's adjudication: its report (which follows) says it all; any other ply of the
        // GM's (`game play --gm`) comes with its report "The GM played ..." (gm::play_as_gm).
        Actor::Gm => String::new(),
    }
}

/// `turn_report`: what was played since the seat last heard, and whether it must act now.
#[derive(Debug, Clone, Serialize)]
pub struct TurnReport {
    pub plies: Vec<PlyVars>,
    pub reports: Vec<String>,
    pub your_turn: bool,
    /// The reader's turn is a turn of orders (not a move).
    pub orders: bool,
    /// The first line when the game's state does not say it (a player taken out of the game).
    #[serde(skip)]
    pub headline: Option<String>,
    /// It carries news beside its plies (a draw offer with a move): that cannot wait for a
    /// digest, nor be dropped as stale (`kind`).
    #[serde(skip)]
    pub urgent: bool,
}

impl Letter for TurnReport {
    /// A report of plies, or `news` when none was played (a draw offer, the GM's word) or
    /// when it carries news beside its plies (a draw offer with a move): the outbox tells
    /// them apart, so a held report the game has moved past can be dropped while news (which
    /// the newer report does not repeat) never is.
    fn kind(&self) -> &'static str {
        match self.plies.is_empty() || self.urgent {
            true => "news",
            false => "turn_report",
        }
    }

    fn template(&self) -> &'static str {
        "turn_report"
    }

    fn may_wait(&self) -> bool {
        !self.plies.is_empty() && !self.urgent
    }

    fn awaited(&self) -> bool {
        self.your_turn
    }

    fn headline(&self) -> Option<String> {
        self.headline.clone()
    }

    fn told(&self) -> Vec<&str> {
        self.reports.iter().map(String::as_str).collect()
    }
}

/// `game_over`: the last plies and the whole record (with the revealed seed).
#[derive(Debug, Clone, Serialize)]
pub struct GameOver {
    pub plies: Vec<PlyVars>,
    pub reports: Vec<String>,
    pub record: String,
    /// The player's own rating line ("Your Dice Rink rating: 1540 -> 1562"), when the game
    /// rated them.
    pub rating: Option<String>,
}

impl Letter for GameOver {
    fn kind(&self) -> &'static str {
        "game_over"
    }

    fn verbatim(&self) -> Vec<&str> {
        vec![&self.record]
    }

    fn awaited(&self) -> bool {
        true
    }

    fn told(&self) -> Vec<&str> {
        self.reports.iter().map(String::as_str).collect()
    }
}

/// `reminder`: a deadline is near; `orders` when the seat owes orders, not a move.
#[derive(Debug, Serialize)]
pub struct Reminder {
    pub orders: bool,
}

impl Letter for Reminder {
    fn kind(&self) -> &'static str {
        "reminder"
    }
}

/// `press`: a message from a seat (none: anonymous) to seats.
#[derive(Debug, Serialize)]
pub struct Press<'a> {
    pub from: Option<&'static str>,
    /// The sender's name and address, when the game shows them.
    pub from_who: Option<String>,
    pub to: String,
    pub text: &'a str,
    /// The other players the reader may write to (every seat but the reader's and the
    /// sender's).
    pub others: String,
}

impl Letter for Press<'_> {
    fn kind(&self) -> &'static str {
        "press"
    }
}

/// `dice_revealed`: the GM revealed the seed (it is in `game.seed`).
#[derive(Debug, Serialize)]
pub struct DiceRevealed {}

impl Letter for DiceRevealed {
    fn kind(&self) -> &'static str {
        "dice_revealed"
    }
}

/// What became of one line of a mail, as the reply says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum LineStatus {
    /// Played, recorded or answered.
    #[default]
    Ok,
    /// Not played, with the reason.
    Refused,
    /// A Dip-Tac-Toe order that was understood as void (it holds), with the reason.
    Void,
    /// Not a move or command at all (a greeting); does not count.
    Ignored,
    /// Past the mail's limit of lines or commands.
    Unread,
}

/// A line of the sender's mail and what became of it.
#[derive(Debug, Clone, Serialize)]
pub struct LineVars {
    pub status: LineStatus,
    pub text: String,
    pub canonical: Option<String>,
    pub reason: Option<String>,
}

/// The answer to a mail: each line's fate and what the commands produced. `move_accepted`
/// when anything was done, `order_refused` when every line was refused.
#[derive(Debug, Clone, Serialize)]
pub struct Reply {
    #[serde(skip)]
    pub refused_only: bool,
    #[serde(skip)]
    pub headline: Option<String>,
    pub lines: Vec<LineVars>,
    pub reports: Vec<String>,
    pub extra: String,
}

impl Letter for Reply {
    fn kind(&self) -> &'static str {
        if self.refused_only {
            "order_refused"
        } else {
            "move_accepted"
        }
    }

    fn headline(&self) -> Option<String> {
        self.headline.clone()
    }

    fn told(&self) -> Vec<&str> {
        // The reply carries what the GM played on the mail among its other texts.
        self.reports
            .iter()
            .map(String::as_str)
            .chain([self.extra.as_str()])
            .collect()
    }
}

/// `held`: the sender's mail comes late, held by the hourly limit.
#[derive(Debug, Serialize)]
pub struct Held {
    pub limit: i64,
    pub until: String,
}

impl Letter for Held {
    fn kind(&self) -> &'static str {
        "held"
    }
}

/// `gm_notice`: something for the GM to look at.
#[derive(Debug, Serialize)]
pub struct GmNotice<'a> {
    pub game: Option<GameVars>,
    pub text: &'a str,
}

impl Letter for GmNotice<'_> {
    fn kind(&self) -> &'static str {
        "gm_notice"
    }
}

/// `auth_refusal`: a mail for the seat's game was refused; from whom.
#[derive(Debug, Serialize)]
pub struct AuthRefusal {
    pub game_id: i64,
    /// The refused mail's sender, when it is a plain address worth naming.
    pub sender: Option<String>,
    /// The receiving mail server's word that its From was forged (DMARC), when that is why.
    pub verdict: Option<String>,
}

impl Letter for AuthRefusal {
    fn kind(&self) -> &'static str {
        "auth_refusal"
    }
}

/// `confirm`: a NEW or JOIN waits for the address to confirm it.
#[derive(Debug, Serialize)]
pub struct Confirm {
    /// `new` or `join`.
    pub kind: &'static str,
    pub title: String,
    pub options: String,
    pub game_id: Option<i64>,
    pub seat: Option<String>,
    pub expires: String,
}

impl Letter for Confirm {
    fn kind(&self) -> &'static str {
        "confirm"
    }
}

/// `help`: the commands and the games, or one game's player's guide when asked for.
#[derive(Debug, Serialize)]
pub struct Help {
    pub games: String,
    pub game_help: Option<&'static str>,
}

impl Letter for Help {
    fn kind(&self) -> &'static str {
        "help"
    }
}

#[cfg(test)]
mod tests;

/// One game of a digest: where it stands and how to move in it.
#[derive(Debug, Clone, Serialize)]
pub struct DigestGame {
    pub id: i64,
    pub title: &'static str,
    pub seat: &'static str,
    /// The plies played since the last digest, as "RED played b2".
    pub since: Vec<String>,
    pub board: String,
    pub to_act: String,
    pub deadline: Option<String>,
    /// The seat's secret address: the digest's Reply-To when it lists this game alone, never
    /// in its body (a secret is never in a mail body).
    #[serde(skip)]
    pub reply_to: String,
}

/// `digest`: a player's games where it is their turn, once a day (`DIGEST ON`).
#[derive(Debug, Serialize)]
pub struct Digest {
    pub games: Vec<DigestGame>,
}

impl Letter for Digest {
    fn kind(&self) -> &'static str {
        "digest"
    }

    fn verbatim(&self) -> Vec<&str> {
        self.games.iter().map(|g| g.board.as_str()).collect()
    }
}
