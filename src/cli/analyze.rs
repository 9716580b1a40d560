//! `pbem analyze d4d6`: the tablebase query's arguments (clap), read once the game is known.

use clap::{Parser, ValueEnum};

use crate::games::d4d6::tablebase::{self, Extremes, Query, SideQuery, SquareColour};
use crate::games::GameKind;

use super::{say, Exit};

// Read in a second step, once the game is known (another game's analysis would have its
// own arguments); its mistakes exit as the main command line's do (`exit::of_clap`).
/// The d4 d6 chess 2-men endgame tablebase: the query.
#[derive(Debug, Parser)]
#[command(
    name = "pbem analyze d4d6",
    no_binary_name = true,
    args_override_self = true
)]
pub struct D4d6Args {
    /// White's piece (Ra Ca Fo Ga Go Ri), optionally on a square and facing: `Ga@a6`, `Ca@e5/N`.
    #[arg(long, value_name = "PIECE", value_parser = SideQuery::parse)]
    white: SideQuery,
    /// Black's piece, as for --white.
    #[arg(long, value_name = "PIECE", value_parser = SideQuery::parse)]
    black: SideQuery,
    /// The colour of the squares White's piece may start on.
    #[arg(long, value_enum, ignore_case = true)]
    white_squares: Option<Squares>,
    /// The colour of the squares Black's piece may start on.
    #[arg(long, value_enum, ignore_case = true)]
    black_squares: Option<Squares>,
    #[arg(long, value_enum, ignore_case = true, default_value = "white")]
    to_move: Side,
    /// Implied by a Rinoceronte in play.
    #[arg(long, value_enum)]
    variant: Option<Variant>,
    /// The worst and best cases by square (a Cavalo's facings averaged), or by single position.
    #[arg(long, value_enum, ignore_case = true, default_value = "squares")]
    extremes: ExtremesArg,
    /// Print the analysis as JSON.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum Squares {
    Light,
    Dark,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Side {
    #[value(alias = "w")]
    White,
    #[value(alias = "b")]
    Black,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Variant {
    Standard,
    Rinoceronte,
}

#[derive(Debug, Clone, Copy, ValueEnum)]
enum ExtremesArg {
    Squares,
    Positions,
}

impl D4d6Args {
    /// The query these arguments ask (a facing the table does not hold is refused here).
    pub fn query(&self) -> Result<Query, String> {
        let colour = |s: Option<Squares>| {
            s.map(|s| match s {
                Squares::Light => SquareColour::Light,
                Squares::Dark => SquareColour::Dark,
            })
        };
        let mut white = self.white.clone();
        let mut black = self.black.clone();
        white.colour = colour(self.white_squares);
        black.colour = colour(self.black_squares);
        let extremes = match self.extremes {
            ExtremesArg::Squares => Extremes::Squares,
            ExtremesArg::Positions => Extremes::Positions,
        };
        let rinoceronte = self.variant.map(|v| v == Variant::Rinoceronte);
        Query::new(
            white,
            black,
            self.to_move == Side::White,
            extremes,
            rinoceronte,
        )
    }
}

/// The query `pbem analyze d4d6 ARGS...` asks, or why it is refused.
pub fn d4d6_query<S: AsRef<str>>(args: &[S]) -> Result<Query, String> {
    D4d6Args::try_parse_from(args.iter().map(AsRef::as_ref))
        .map_err(|e| e.to_string())?
        .query()
}

/// `pbem analyze GAME ARGS...`: exit 1 for a query refused, 0 once answered (or for --help).
pub(super) fn run(game: &str, args: &[String]) -> anyhow::Result<Exit> {
    if GameKind::parse(game) != Some(GameKind::D4D6) {
        return Err(super::refuse(
            "analyze knows d4d6 only (its 2-men endgame tablebase)",
        ));
    }
    let parsed = match D4d6Args::try_parse_from(args) {
        Ok(parsed) => parsed,
        Err(e) if !e.use_stderr() => {
            print!("{e}");
            return Ok(0);
        }
        Err(e) => {
            // As for every command: a value it does not take is refused (1), a command line
            // that is not a query (an unknown option) is a usage error (2).
            say(e.to_string().trim_end());
            return Ok(super::exit::of_clap(&e));
        }
    };
    let query = match parsed.query() {
        Ok(q) => q,
        Err(e) => {
            say(&format!("pbem analyze d4d6: {e}"));
            return Ok(1);
        }
    };
    let analysis = tablebase::analyze(&query);
    if parsed.json {
        println!("{}", serde_json::to_string(&analysis.json())?);
    } else {
        println!("{analysis}");
    }
    Ok(0)
}
