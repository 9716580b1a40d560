//! The GM's own options of every game (its clocks: timeout, grace, salt window, early resolve; whether its players are anonymous), their meaning and checks; the rules only set them aside (`games::GM_OPTIONS`).

use crate::duration::{self, Range};
use crate::gamelog::Loaded;
use crate::games::{check_options, options_get, OptionSpec, Options};

/// The GM's options every game takes: its clocks (`games::GM_OPTIONS` names them for the rules,
/// which set them aside).
pub const COMMON_OPTIONS: &[OptionSpec] = &[
    OptionSpec {
        name: "timeout",
        default: "notify",
        values: &["notify", "forfeit", "robot"],
        duration: None,
        help: "when a player's move time runs out: tell the GM, the player forfeits, or the \
               robot plays that turn for them (the seat stays theirs)",
    },
    OptionSpec {
        name: "grace",
        default: "0",
        values: &[],
        duration: Some(Range::UP_TO_A_MONTH),
        help: "once a deadline passes with moves or orders missing, wait this much longer \
               (e.g. 12h) and remind the late players before acting",
    },
    OptionSpec {
        name: "salt_window",
        default: "24h",
        values: &[],
        duration: Some(Range::UP_TO_A_MONTH),
        help: "games with dice: how long the players have, once every seat is taken, to send \
               SALT before the first roll (sooner when every player has sent START); 0: the \
               dice roll as soon as play needs them",
    },
    OptionSpec {
        name: "early_resolve",
        default: "server",
        values: &[],
        duration: Some(Range::UP_TO_A_WEEK),
        help: "simultaneous games: once every seat has ordered, wait this long before \
               adjudicating (e.g. 10m; 0: at once); default: the server's setting",
    },
    OptionSpec {
        name: "anonymous",
        default: "no",
        values: &["no", "yes"],
        duration: None,
        help: "yes: the players' mails show the other players by seat only, never their \
               names or addresses (gunboat play; press still goes through the GM)",
    },
    OptionSpec {
        name: "min_reliability",
        default: "none",
        values: &[],
        duration: None,
        help: "a percent (e.g. 80): JOIN is refused to a player whose reliability (turns \
               made in time, `pbem player show`) is below it; a player with no record yet \
               may join",
    },
];

/// What happens when a player's move time runs out (`timeout=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum TimeoutAction {
    /// The GM is told, and decides.
    #[default]
    Notify,
    /// The player forfeits the game.
    Forfeit,
    /// The robot plays the late seat's move or orders, for that turn only.
    Robot,
}

/// The common options of a game, read once into typed values (durations as seconds, checked
/// against their ranges), the defaults applied.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CommonOptions {
    pub timeout: TimeoutAction,
    /// After a deadline passes with moves or orders missing: how much longer to wait.
    pub grace_secs: i64,
    /// How long the players may salt the dice once every seat is taken (0: no window).
    pub salt_window_secs: i64,
    /// Simultaneous games: the wait once every seat has ordered (`None`: the server's).
    pub early_resolve_secs: Option<i64>,
    /// The players see each other by seat only (`anonymous=yes`).
    pub anonymous: bool,
    /// The reliability in percent a player needs to JOIN (`None`: anyone may).
    pub min_reliability: Option<u32>,
}

impl Default for CommonOptions {
    /// The defaults of `COMMON_OPTIONS`.
    fn default() -> Self {
        CommonOptions::read(&Options::new()).expect("the defaults are valid")
    }
}

impl CommonOptions {
    /// Reads the common options out of a game's options (unknown names are the game's own).
    pub fn read(options: &Options) -> Result<CommonOptions, String> {
        let text = |name: &'static str| options_get(COMMON_OPTIONS, options, name);
        let secs = |name: &'static str| {
            duration::parse(text(name), Range::UP_TO_A_MONTH)
                .map_err(|e| format!("option '{name}': {e}"))
        };
        Ok(CommonOptions {
            timeout: match text("timeout") {
                "forfeit" => TimeoutAction::Forfeit,
                "robot" => TimeoutAction::Robot,
                _ => TimeoutAction::Notify,
            },
            grace_secs: secs("grace")?,
            salt_window_secs: secs("salt_window")?,
            early_resolve_secs: match text("early_resolve") {
                "server" => None,
                t => Some(
                    duration::parse(t, Range::UP_TO_A_WEEK)
                        .map_err(|e| format!("option 'early_resolve': {e}"))?,
                ),
            },
            anonymous: text("anonymous") == "yes",
            min_reliability: percent(text("min_reliability"))?,
        })
    }
}

/// `min_reliability`'s value: `none`, or a percent from 0 to 100 (`80` or `80%`).
fn percent(text: &str) -> Result<Option<u32>, String> {
    if text == "none" {
        return Ok(None);
    }
    match text.trim_end_matches('%').parse::<u32>() {
        Ok(p) if p <= 100 => Ok(Some(p)),
        _ => Err(format!(
            "option 'min_reliability' cannot be '{text}': a percent from 0 to 100, or none"
        )),
    }
}

/// The clock's settings of a game as its players read them in the welcome: the move time with
/// when the reminder comes, and what a missed deadline does (nothing of that without a clock);
/// in a game of orders, when the turn is resolved once every order is in.
pub fn settings(g: &Loaded, cfg: &crate::config::Config) -> Vec<String> {
    let common = of(g);
    let simultaneous = g.kind().facts().simultaneous;
    let mut out = match g.row.move_secs.filter(|&s| s > 0) {
        None => vec!["Move time: no limit".to_string()],
        Some(move_secs) => {
            deadline_settings(&common, move_secs, cfg.remind_before_secs, simultaneous)
        }
    };
    if simultaneous {
        let wait = common.early_resolve_secs.unwrap_or(cfg.early_resolve_secs);
        out.push(match wait {
            0 => "Once every player has ordered: the turn is resolved at once".into(),
            w => format!(
                "Once every player has ordered: the turn is resolved {} later",
                in_words(w)
            ),
        });
    }
    if common.anonymous {
        out.push(
            "Players: anonymous; you know the others by their seats only, and they know you \
             by yours (press goes through the GM with no name or address)"
                .into(),
        );
    }
    out
}

/// The move time, its reminder and what a missed deadline does.
fn deadline_settings(
    common: &CommonOptions,
    move_secs: i64,
    remind_lead_secs: i64,
    simultaneous: bool,
) -> Vec<String> {
    // The reminder's lead as the clock applies it (never before half the move time).
    let lead = crate::gm::clock::remind_lead(Some(move_secs), remind_lead_secs);
    let time = match lead {
        0 => format!("Move time: {}", in_words(move_secs)),
        _ => format!(
            "Move time: {}; a reminder {} before the deadline",
            in_words(move_secs),
            in_words(lead)
        ),
    };
    let then = match (common.timeout, simultaneous) {
        (TimeoutAction::Robot, false) => "the robot plays for the late player, that turn only",
        (TimeoutAction::Robot, true) => "the robot gives the late players' orders, that turn only",
        (_, true) => "the turn is resolved with the orders sent",
        (TimeoutAction::Notify, false) => "the GM is told and decides",
        (TimeoutAction::Forfeit, false) => "the late player forfeits",
    };
    let missed = match common.grace_secs {
        0 => format!("A missed deadline: {then}"),
        g => format!(
            "A missed deadline: the late players are reminded and have {} more; then {then}",
            in_words(g)
        ),
    };
    vec![time, missed]
}

/// A duration as a player reads it: "2 days", "3 days 12 hours", "24 hours", "30 minutes"
/// (under two days in hours, as people count a day's lead).
fn in_words(secs: i64) -> String {
    let units = [
        (86_400, "day"),
        (3_600, "hour"),
        (60, "minute"),
        (1, "second"),
    ];
    let units = if secs < 2 * 86_400 {
        &units[1..]
    } else {
        &units[..]
    };
    let mut left = secs.max(0);
    let mut out = Vec::new();
    for (size, unit) in units {
        let n = left / size;
        if n > 0 {
            out.push(format!("{n} {unit}{}", if n == 1 { "" } else { "s" }));
            left %= size;
        }
    }
    if out.is_empty() {
        "0 seconds".into()
    } else {
        out.join(" ")
    }
}

/// Checks the GM's options among a game's settings (the game's own are the rules' to check).
pub fn check(options: &Options) -> Result<(), String> {
    let mine: Options = options
        .iter()
        .filter(|(k, _)| COMMON_OPTIONS.iter().any(|c| c.name == k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    check_options(COMMON_OPTIONS, &mine)?;
    CommonOptions::read(options).map(drop)
}

/// A loaded game's clock options, read from its settings (a stored value that no longer reads
/// falls back to the defaults, as the game was made with checked values).
pub fn of(g: &Loaded) -> CommonOptions {
    let options = crate::gamelog::options_of(&g.row).unwrap_or_default();
    CommonOptions::read(&options).unwrap_or_else(|e| {
        tracing::warn!(game = g.row.id, error = %e, "bad clock options: the defaults apply");
        CommonOptions::default()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rules_set_aside_exactly_the_gms_options() {
        let names: Vec<&str> = COMMON_OPTIONS.iter().map(|o| o.name).collect();
        assert_eq!(names, crate::games::GM_OPTIONS);
    }

    #[test]
    fn durations_read_as_people_say_them() {
        assert_eq!(in_words(2 * 86_400), "2 days");
        assert_eq!(in_words(86_400), "24 hours");
        assert_eq!(in_words(3 * 86_400 + 12 * 3_600), "3 days 12 hours");
        assert_eq!(in_words(90 * 60), "1 hour 30 minutes");
        assert_eq!(in_words(60), "1 minute");
    }

    #[test]
    fn a_bad_clock_option_is_refused_in_words() {
        let mut o = Options::new();
        o.insert("grace".into(), "5".into());
        assert!(check(&o).unwrap_err().contains("grace"));
        o.insert("grace".into(), "12h".into());
        o.insert("timeout".into(), "never".into());
        assert!(check(&o).is_err());
        o.insert("timeout".into(), "forfeit".into());
        assert_eq!(check(&o), Ok(()));
        assert_eq!(
            CommonOptions::read(&o).unwrap().timeout,
            TimeoutAction::Forfeit
        );
    }
}
