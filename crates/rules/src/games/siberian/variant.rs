//! The options (contract 3.1): the variant, the target, the players, the simultaneous rule and PURITY's length, read once into a `Config` with the dice each seat holds.

use crate::games::{options_get, OptionSpec, Options};

pub const OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "variant",
        default: "basic",
        values: &["basic", "primes", "strategic", "grossmeister", "purity"],
        duration: None,
        help: "the seed's variants: primes (13 dice, 7 perfect), strategic (an indicator die \
               one roll ahead), grossmeister (a public sequence, with primes), purity (every \
               roll published at the start)",
    },
    OptionSpec {
        name: "objective",
        default: "basic",
        values: &["basic", "primes"],
        duration: None,
        help: "the target of strategic and purity: 6 perfect dice (basic) or 7 (primes); the \
               other variants fix their own",
    },
    OptionSpec {
        name: "players",
        default: "2",
        values: &["2", "3"],
        duration: None,
        help: "2 (BLUE, RED) or 3 (BLUE, RED, GREEN; 9 dice each, 10 in strategic)",
    },
    OptionSpec {
        name: "simultaneous",
        default: "draw",
        values: &["draw", "most"],
        duration: None,
        help: "two or more players reach the target on the same move: a draw among them, or \
               the most perfect dice win (a tie at the top draws)",
    },
    OptionSpec {
        name: "length",
        default: "150",
        values: &[],
        duration: None,
        help: "purity only: how many rolls the published sequence has (1 to 9999)",
    },
];

/// This game's settings in a player's words (`GameFacts::settings`): the variant, the
/// players with their dice and target, and the rule for a shared finish; the objective and the
/// length only where the variant takes them (in the variant's line).
pub fn settings(options: &Options) -> Vec<String> {
    let Ok(c) = Config::read(options) else {
        return Vec::new();
    };
    let variant = match c.variant {
        Variant::Basic => "Variant: basic".to_string(),
        Variant::Primes => "Variant: primes".to_string(),
        Variant::Strategic => {
            "Variant: strategic: you see your next roll one turn ahead (an indicator die)".into()
        }
        Variant::Grossmeister => {
            "Variant: grossmeister: each player's dice are rolled at the start into a public \
             sequence"
                .into()
        }
        Variant::Purity => format!(
            "Variant: purity: a list of {} numbers is published at the start, one for each \
             die placed",
            c.length
        ),
    };
    let players = format!(
        "Players: {}, {} dice each; {} perfect dice win",
        c.players, c.dice, c.target
    );
    let shared = match c.simultaneous {
        Simultaneous::Draw => "a draw among them",
        Simultaneous::Most => "the most perfect dice win (a tie at the top draws)",
    };
    let shared = format!(
        "Two or more players reaching {} perfect dice on the same move: {shared}",
        c.target
    );
    vec![variant, players, shared]
}

/// PURITY's longest sequence: the whole sequence is one chance ply, rolled and mailed at once.
pub const MAX_LENGTH: usize = 9999;

/// The seed's variants; they are not combined with each other.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Variant {
    Basic,
    Primes,
    Strategic,
    Grossmeister,
    Purity,
}

impl Variant {
    pub fn name(self) -> &'static str {
        match self {
            Variant::Basic => "basic",
            Variant::Primes => "primes",
            Variant::Strategic => "strategic",
            Variant::Grossmeister => "grossmeister",
            Variant::Purity => "purity",
        }
    }

    fn parse(text: &str) -> Option<Variant> {
        [
            Variant::Basic,
            Variant::Primes,
            Variant::Strategic,
            Variant::Grossmeister,
            Variant::Purity,
        ]
        .into_iter()
        .find(|v| v.name() == text)
    }

    /// The objective a variant fixes, or `None` when the option chooses it.
    fn fixed_objective(self) -> Option<&'static str> {
        match self {
            Variant::Basic => Some("basic"),
            Variant::Primes | Variant::Grossmeister => Some("primes"),
            Variant::Strategic | Variant::Purity => None,
        }
    }
}

/// What to do when two or more seats reach the target on the same move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Simultaneous {
    Draw,
    Most,
}

/// The options of one game, read and checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    pub variant: Variant,
    pub players: usize,
    /// Perfect dice needed to win: 6 or 7.
    pub target: usize,
    pub simultaneous: Simultaneous,
    /// PURITY's number of published rolls.
    pub length: usize,
    /// The dice each seat owns (the indicator included in STRATEGIC).
    pub dice: usize,
}

impl Config {
    /// Reads the options; a combination the contract refuses is an error in words.
    pub fn read(options: &Options) -> Result<Config, String> {
        let get = |name| options_get(OPTIONS, options, name);
        let variant = Variant::parse(get("variant"))
            .ok_or_else(|| format!("option 'variant' cannot be '{}'", get("variant")))?;
        let objective = match (variant.fixed_objective(), options.get("objective")) {
            (Some(fixed), Some(given)) if given != fixed => {
                return Err(format!(
                    "variant={} plays to its own objective ({fixed}): objective={given} \
                     goes with strategic or purity only",
                    variant.name()
                ))
            }
            (Some(fixed), _) => fixed,
            (None, _) => get("objective"),
        };
        let players: usize = get("players")
            .parse()
            .ok()
            .filter(|p| (2..=3).contains(p))
            .ok_or("option 'players' is 2 or 3")?;
        if variant != Variant::Purity && options.contains_key("length") {
            return Err("option 'length' goes with variant=purity only".into());
        }
        let length: usize = get("length")
            .trim()
            .parse()
            .ok()
            .filter(|n| (1..=MAX_LENGTH).contains(n))
            .ok_or_else(|| {
                format!("option 'length' is a number of rolls from 1 to {MAX_LENGTH}")
            })?;
        let target = if objective == "primes" { 7 } else { 6 };
        Ok(Config {
            variant,
            players,
            target,
            simultaneous: match get("simultaneous") {
                "most" => Simultaneous::Most,
                _ => Simultaneous::Draw,
            },
            length,
            dice: dice_per_seat(variant, target, players),
        })
    }

    /// The values of the opening chance ply, or 0 when the variant has none.
    pub fn opening_values(&self) -> usize {
        match self.variant {
            Variant::Basic | Variant::Primes => 0,
            Variant::Strategic => self.players,
            Variant::Grossmeister => self.players * self.dice,
            Variant::Purity => self.length,
        }
    }

    /// Whether a roll follows a declaration (`from_hand`: `H` rather than a lift).
    pub fn rolls_after(&self, from_hand: bool) -> bool {
        match self.variant {
            Variant::Purity => false,
            Variant::Grossmeister => !from_hand,
            _ => true,
        }
    }
}

/// Dice per seat (contract 3.1): 12, or 13 with the primes objective, one more in STRATEGIC;
/// with three players 9, or 10 in STRATEGIC.
fn dice_per_seat(variant: Variant, target: usize, players: usize) -> usize {
    let strategic = usize::from(variant == Variant::Strategic);
    if players == 3 {
        9 + strategic
    } else {
        12 + usize::from(target == 7) + strategic
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(pairs: &[(&str, &str)]) -> Result<Config, String> {
        let options: Options = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        Config::read(&options)
    }

    #[test]
    fn dice_and_targets_per_contract() {
        let c = |pairs: &[(&str, &str)]| {
            let c = read(pairs).unwrap();
            (c.dice, c.target, c.opening_values())
        };
        assert_eq!(c(&[]), (12, 6, 0));
        assert_eq!(c(&[("variant", "primes")]), (13, 7, 0));
        assert_eq!(c(&[("variant", "strategic")]), (13, 6, 2));
        assert_eq!(
            c(&[("variant", "strategic"), ("objective", "primes")]),
            (14, 7, 2)
        );
        assert_eq!(c(&[("variant", "grossmeister")]), (13, 7, 26));
        assert_eq!(
            c(&[("variant", "grossmeister"), ("players", "3")]),
            (9, 7, 27)
        );
        assert_eq!(c(&[("variant", "purity")]), (12, 6, 150));
        assert_eq!(
            c(&[
                ("variant", "purity"),
                ("length", "40"),
                ("objective", "primes")
            ]),
            (13, 7, 40)
        );
        assert_eq!(c(&[("players", "3")]), (9, 6, 0));
        assert_eq!(c(&[("players", "3"), ("variant", "primes")]), (9, 7, 0));
        assert_eq!(c(&[("players", "3"), ("variant", "strategic")]), (10, 6, 3));
    }

    #[test]
    fn refused_combinations() {
        assert!(read(&[("variant", "primes"), ("objective", "basic")]).is_err());
        assert!(read(&[("variant", "grossmeister"), ("objective", "basic")]).is_err());
        assert!(read(&[("objective", "primes")]).is_err());
        assert!(read(&[("variant", "primes"), ("objective", "primes")]).is_ok());
        assert!(read(&[("length", "20")]).is_err());
        assert!(read(&[("variant", "purity"), ("length", "0")]).is_err());
        assert!(read(&[("variant", "purity"), ("length", "x")]).is_err());
        assert!(read(&[("variant", "purity"), ("length", "10000")]).is_err());
    }
}
