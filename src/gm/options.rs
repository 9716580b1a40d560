//! The GM's own options of every game (its clocks: timeout, grace, salt window, early resolve), their meaning and checks; the rules only set them aside (`games::GM_OPTIONS`).

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
        })
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
