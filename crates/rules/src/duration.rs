//! Durations as people write them (`90m`, `3d`, `2h 30m`), read with humantime and checked against a range (pure).
//!
//! Every duration that enters pbem (a game option from a mail or the command line, the config,
//! `--move-time`) is read here, so none can overflow a clock computation: each use names the
//! range that makes sense for it, and anything outside is refused with a line for whoever sent it.

use std::fmt;

/// The durations a setting accepts: `min..=max` seconds; `zero` also allows `0` (or `off`),
/// meaning "none", where a setting has such a meaning.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Range {
    pub min_secs: i64,
    pub max_secs: i64,
    pub zero: bool,
}

const MINUTE: i64 = 60;
const HOUR: i64 = 3600;
const DAY: i64 = 86_400;

impl Range {
    /// A time per move or per turn: one minute to a year.
    pub const MOVE_TIME: Range = Range::new(MINUTE, 365 * DAY, false);
    /// A grace period after a deadline, a salt window, a reminder lead: none up to 30 days.
    pub const UP_TO_A_MONTH: Range = Range::new(MINUTE, 30 * DAY, true);
    /// A short delay such as early resolution: none up to a week.
    pub const UP_TO_A_WEEK: Range = Range::new(1, 7 * DAY, true);
    /// The daemon's poll interval: a second to an hour.
    pub const POLL: Range = Range::new(1, HOUR, false);
    /// The outbox's first retry delay: a second to a day.
    pub const RETRY: Range = Range::new(1, DAY, false);

    pub const fn new(min_secs: i64, max_secs: i64, zero: bool) -> Range {
        Range {
            min_secs,
            max_secs,
            zero,
        }
    }
}

/// Why a duration was refused, in words for whoever wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DurationError(pub String);

impl fmt::Display for DurationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DurationError {}

/// Reads a duration (`45s`, `90m`, `36h`, `3d`, `2w`, `2h 30m`) into whole seconds within
/// `range`. A bare number is refused (is `30` minutes or days?), and so is anything too long,
/// too short or too large to compute with.
pub fn parse(text: &str, range: Range) -> Result<i64, DurationError> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    if range.zero && matches!(lower.as_str(), "0" | "off" | "none") {
        return Ok(0);
    }
    if t.is_empty() {
        return Err(DurationError(
            "a duration is missing (e.g. 3d, 36h, 90m)".into(),
        ));
    }
    // A bare 0 means "none" only where a setting has a none (above); elsewhere it is no
    // length at all, not a number missing its unit.
    if t.chars().all(|c| c == '0') {
        return Err(DurationError(format!(
            "'{}' is out of range: {}",
            shorten(t),
            describe(range)
        )));
    }
    if t.chars().all(|c| c.is_ascii_digit()) {
        return Err(DurationError(format!(
            "'{}' needs a unit: write e.g. {t}m, {t}h or {t}d",
            shorten(t)
        )));
    }
    let d = humantime::parse_duration(&lower).map_err(|_| {
        DurationError(format!(
            "'{}' is not a duration like 3d, 36h, 90m or 2h 30m",
            shorten(t)
        ))
    })?;
    let secs = i64::try_from(d.as_secs()).unwrap_or(i64::MAX);
    if secs == 0 && d.is_zero() && range.zero {
        return Ok(0);
    }
    if secs < range.min_secs || secs > range.max_secs {
        return Err(DurationError(format!(
            "'{}' is out of range: {}",
            shorten(t),
            describe(range)
        )));
    }
    Ok(secs)
}

/// The range in words: "from 1m to 365d", "0 (none) or from 1m to 30d".
pub fn describe(range: Range) -> String {
    let span = format!(
        "from {} to {}",
        format_secs(range.min_secs),
        format_secs(range.max_secs)
    );
    if range.zero {
        format!("0 (none) or {span}")
    } else {
        span
    }
}

/// Whole seconds as a person would write them (`3d`, `1h 30m`, `0`): days, hours, minutes,
/// seconds (humantime's own formatter counts months and years of 30.44 and 365.25 days).
pub fn format_secs(secs: i64) -> String {
    if secs <= 0 {
        return "0".into();
    }
    let parts = [(DAY, "d"), (HOUR, "h"), (MINUTE, "m"), (1, "s")];
    let mut left = secs;
    let mut out = Vec::new();
    for (size, unit) in parts {
        if left >= size {
            out.push(format!("{}{unit}", left / size));
            left %= size;
        }
    }
    out.join(" ")
}

/// The start of a long input (40 characters at most), so a refusal never repeats a whole
/// hostile line.
fn shorten(t: &str) -> String {
    if t.chars().count() <= 40 {
        t.to_string()
    } else {
        crate::quote::shorten(t, 37)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: Range = Range::UP_TO_A_MONTH;

    #[test]
    fn people_write_durations_these_ways() {
        assert_eq!(parse("90m", R), Ok(5400));
        assert_eq!(parse("3d", R), Ok(3 * DAY));
        assert_eq!(parse("2h 30m", R), Ok(2 * HOUR + 30 * MINUTE));
        assert_eq!(parse(" 36H ", R), Ok(36 * HOUR));
        assert_eq!(parse("1w", R), Ok(7 * DAY));
        assert_eq!(parse("0", R), Ok(0));
        assert_eq!(parse("off", R), Ok(0));
    }

    #[test]
    fn bare_numbers_overflow_and_ranges_are_refused() {
        assert!(parse("30", R).unwrap_err().0.contains("needs a unit"));
        assert!(parse("9999999999999999s", R).is_err());
        assert!(parse("9999999999999999999999999999d", R).is_err());
        assert!(parse("-1h", R).is_err());
        assert!(parse("31d", R).unwrap_err().0.contains("out of range"));
        assert!(parse("0", Range::MOVE_TIME)
            .unwrap_err()
            .0
            .contains("out of range: from 1m to 365d"));
        assert!(parse("30s", Range::MOVE_TIME).is_err());
        assert!(parse("", R).is_err());
        assert!(parse("soon", R).is_err());
    }

    #[test]
    fn a_refusal_never_repeats_a_long_line() {
        let long = "x".repeat(10_000);
        assert!(parse(&long, R).unwrap_err().0.len() < 200);
    }

    #[test]
    fn ranges_read_in_words() {
        assert_eq!(describe(R), "0 (none) or from 1m to 30d");
        assert_eq!(format_secs(5400), "1h 30m");
    }
}
