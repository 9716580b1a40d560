//! Renders the outgoing mail texts in `templates/`: embedded defaults, each overridable by a file in the GM's folder.

use std::path::Path;

use anyhow::anyhow;
use minijinja::Environment;

/// Every mail kind pbem sends, with its embedded default text.
pub const DEFAULTS: &[(&str, &str)] = &[
    ("welcome", include_str!("../templates/welcome.txt")),
    (
        "move_accepted",
        include_str!("../templates/move_accepted.txt"),
    ),
    (
        "order_refused",
        include_str!("../templates/order_refused.txt"),
    ),
    ("turn_report", include_str!("../templates/turn_report.txt")),
    ("game_over", include_str!("../templates/game_over.txt")),
    ("reminder", include_str!("../templates/reminder.txt")),
    ("help", include_str!("../templates/help.txt")),
    (
        "auth_refusal",
        include_str!("../templates/auth_refusal.txt"),
    ),
    ("press", include_str!("../templates/press.txt")),
    ("gm_notice", include_str!("../templates/gm_notice.txt")),
    ("held", include_str!("../templates/held.txt")),
    ("confirm", include_str!("../templates/confirm.txt")),
    (
        "dice_revealed",
        include_str!("../templates/dice_revealed.txt"),
    ),
    ("digest", include_str!("../templates/digest.txt")),
];

/// How a point in time reads in mail and in the GM's game commands: `2026-12-01 18:00 UTC`
/// (the inbox and outbox listings keep their seconds).
pub fn date(d: chrono::DateTime<chrono::Utc>) -> String {
    d.format("%Y-%m-%d %H:%M UTC").to_string()
}

/// The loaded templates.
#[derive(Clone)]
pub struct Templates {
    env: Environment<'static>,
}

impl Templates {
    /// The defaults, with `<dir>/<kind>.txt` replacing a default where such a file exists.
    /// Each is compiled the first time it is used (a `pbem ingest` process uses two or three
    /// of them); `check` compiles them all.
    pub fn load(dir: Option<&Path>) -> anyhow::Result<Templates> {
        let mut env = Environment::new();
        // Mail is plain text: no HTML escaping, and keep the text's own line breaks.
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::None);
        env.set_syntax(
            minijinja::syntax::SyntaxConfig::builder()
                .keep_trailing_newline(true)
                .trim_blocks(true)
                .build()
                .map_err(|e| anyhow!("template syntax: {e}"))?,
        );
        let dir = dir.map(Path::to_path_buf);
        env.set_loader(move |kind| {
            let Some((_, default)) = DEFAULTS.iter().find(|(k, _)| *k == kind) else {
                return Ok(None);
            };
            match dir.as_ref().map(|d| d.join(format!("{kind}.txt"))) {
                Some(p) if p.exists() => std::fs::read_to_string(&p).map(Some).map_err(|e| {
                    minijinja::Error::new(
                        minijinja::ErrorKind::InvalidOperation,
                        format!("cannot read {}: {e}", p.display()),
                    )
                }),
                _ => Ok(Some(default.to_string())),
            }
        });
        Ok(Templates { env })
    }

    /// Loads and compiles every template now, saying which one is wrong (`config check`).
    pub fn check(dir: Option<&Path>) -> anyhow::Result<Templates> {
        let t = Templates::load(dir)?;
        for (kind, _) in DEFAULTS {
            t.env
                .get_template(kind)
                .map_err(|e| anyhow!("template {kind}: {e}"))?;
        }
        Ok(t)
    }

    /// Renders a mail kind with its variables (`compose::letters`: one struct per kind).
    pub fn render(&self, kind: &str, ctx: &impl serde::Serialize) -> anyhow::Result<String> {
        let t = self
            .env
            .get_template(kind)
            .map_err(|e| anyhow!("no template {kind}: {e}"))?;
        let text = t
            .render(minijinja::value::Serde(ctx))
            .map_err(|e| anyhow!("template {kind}: {e}"))?;
        Ok(tidy(&text))
    }
}

/// The widest a line of mail text is: a longer line is refilled to this width.
pub const WIDTH: usize = 76;

/// Refills every line of `text` longer than `WIDTH` characters to `WIDTH`, each continuation
/// indented as its line was, words never broken; a line of `keep` (boards, records: text
/// whose columns or tokens mean something) stays as it is. Shorter lines are untouched, so
/// the templates' own text and lists already laid out keep their breaks.
pub fn wrap(text: &str, keep: &[&str]) -> String {
    let long = |l: &str| l.chars().count() > WIDTH;
    let kept: std::collections::HashSet<&str> = keep
        .iter()
        .flat_map(|k| k.lines())
        .map(str::trim_end)
        .filter(|l| long(l))
        .collect();
    if !text
        .lines()
        .any(|l| long(l) && !kept.contains(l.trim_end()))
    {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len() + 64);
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        if !long(body) || kept.contains(body.trim_end()) {
            out.push_str(line);
            continue;
        }
        let words = body.trim_start();
        let indent = &body[..body.len() - words.len()];
        let options = textwrap::Options::new(WIDTH)
            .initial_indent(indent)
            .subsequent_indent(indent)
            .break_words(false)
            // A move (`b6-a7`) or a date (`2026-11-29`) is never split at its hyphens.
            .word_splitter(textwrap::WordSplitter::NoHyphenation);
        let joined = unbreakable(words.trim_end());
        out.push_str(&textwrap::fill(&joined, options).replace(NBSP, " "));
        out.push_str(end);
    }
    out
}

/// Stands for a space that must not become a line break while a line is refilled.
const NBSP: char = '\u{a0}';

/// Joins with `NBSP` the spaces inside what a reader must see on one line: a date with its
/// time (`2026-11-29 16:48 UTC`) and a Dip-Tac-Toe move (`I.A.1 - II.F.2`).
fn unbreakable(text: &str) -> std::borrow::Cow<'_, str> {
    static TOKENS: std::sync::OnceLock<regex_lite::Regex> = std::sync::OnceLock::new();
    let re = TOKENS.get_or_init(|| {
        regex_lite::Regex::new(
            r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}(:\d{2})?( UTC)?|[IV]+\.[A-R]\.[1-4] - [IV]+\.[A-R]\.[1-4]",
        )
        .expect("a valid pattern")
    });
    re.replace_all(text, |c: &regex_lite::Captures| c[0].replace(' ', "\u{a0}"))
}

/// Collapses runs of blank lines that optional template sections leave behind.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    for line in text.trim_start_matches('\n').lines() {
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {

    /// A refilled line never breaks a date from its time, nor a Dip-Tac-Toe move.
    #[test]
    fn wrapping_keeps_a_date_and_a_move_whole() {
        let pad = "word ".repeat(12);
        let text = format!("{pad}due: 2026-11-29 16:48 UTC for all of you, and more.\n");
        let out = wrap(&text, &[]);
        assert!(out.contains("2026-11-29 16:48 UTC"), "{out}");
        assert!(!out.contains('\u{a0}'), "{out}");
        let text = format!("{pad}go: I.A.1 - II.F.2 then the rest of it, and more.\n");
        let out = wrap(&text, &[]);
        assert!(out.contains("I.A.1 - II.F.2"), "{out}");
    }

    use super::*;

    #[test]
    fn long_lines_are_refilled_with_their_indent_and_kept_lines_stay() {
        let prose = "word ".repeat(30);
        let board = format!("  {}|", "=".repeat(90));
        let text = format!("short line\n    {}\n{board}\nend\n", prose.trim_end());
        let out = wrap(&text, &[&board]);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines[0], "short line");
        assert!(
            lines[1..3].iter().all(|l| l.starts_with("    word")),
            "{out}"
        );
        assert!(
            lines.iter().all(|l| l.len() <= WIDTH || *l == board),
            "{out}"
        );
        assert!(out.ends_with(&format!("{board}\nend\n")), "{out}");
        assert_eq!(out.split_whitespace().filter(|w| *w == "word").count(), 30);
        // A word longer than the width is not broken.
        let hex = "ab".repeat(50);
        assert_eq!(
            wrap(&format!("seed: {hex}\n"), &[]),
            format!("seed:\n{hex}\n")
        );
    }

    #[test]
    fn every_default_renders_and_a_folder_overrides() {
        let t = Templates::load(None).unwrap();
        let ctx = serde_json::json!({"game": {"id": 3, "title": "Dice Rink", "to_act": "A to move"},
            "seat": "A", "lines": [{"status": "ok", "text": "5w6", "canonical": "5W6"}],
            "board": "BOARD", "players": [], "games": "dicerink", "text": "hello"});
        for (kind, _) in DEFAULTS {
            t.render(kind, &ctx).unwrap();
        }
        let body = t.render("move_accepted", &ctx).unwrap();
        assert!(body.contains("ok: 5w6  (read as 5W6)"), "{body}");
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("help.txt"), "Hilfe: {{ games }}").unwrap();
        let t = Templates::check(Some(dir.path())).unwrap();
        assert_eq!(t.render("help", &ctx).unwrap(), "Hilfe: dicerink\n");
        std::fs::write(dir.path().join("help.txt"), "{% if %}").unwrap();
        assert!(Templates::check(Some(dir.path())).is_err());
    }
}
