//! The player's guides by mail: `HELP <game>` and `HELP RULES` mail the game's guide, and no guide, summary, help or welcome mail names pbem's insides (files, command lines, developer terms).
//!
//! That each move a guide shows is legal is checked by the rules crate's tests
//! (`crates/rules/tests/it/guides.rs`), beside the example lists it takes them from.

use crate::common::{only_to, World};
use pbem::games::GameKind;
use pbem::store::OutboxRow;

/// What a player's text must not contain (compared in lower case): file names and paths,
/// the command line, developer terms.
const INTERNALS: &[&str] = &[
    "notation/",
    ".md",
    "pbem ",
    "position_json",
    "cargo",
    "seed 00",
    "src/",
    "tests/",
    "[position",
    "adjudicate",
];

/// The widest line of a guide or summary, for mail.
const WIDTH: usize = 72;

/// The internals `text` names.
fn internals(text: &str) -> Vec<&'static str> {
    let lower = text.to_lowercase();
    INTERNALS
        .iter()
        .copied()
        .filter(|p| lower.contains(p))
        .collect()
}

fn assert_no_internals(what: &str, text: &str) {
    let found = internals(text);
    assert!(found.is_empty(), "{what} names {found:?}:\n{text}");
}

/// The seats of a game of `kind` with its fewest players, each with an address.
fn players(kind: GameKind) -> Vec<(&'static str, String)> {
    let facts = kind.facts();
    facts.seats[..facts.players.0]
        .iter()
        .map(|s| (*s, format!("{}@example.org", s.to_lowercase())))
        .collect()
}

/// A new game of `kind` (its welcome mails returned) and its players.
fn new_game(w: &mut World, kind: GameKind) -> (i64, Vec<(&'static str, String)>, Vec<OutboxRow>) {
    let seats = players(kind);
    let pairs: Vec<(&str, &str)> = seats.iter().map(|(s, e)| (*s, e.as_str())).collect();
    let id = w.game(kind, &pairs, &[], None, None);
    (id, seats, w.new_mail())
}

/// The answer to `body` mailed by the first seat from its secret address.
fn ask(w: &mut World, id: i64, email: &str, body: &str) -> String {
    let to = w.seat_address(id, 0);
    let raw = w.mail(email, &to, &format!("Re: game {id}"), body);
    assert_eq!(w.deliver(&raw).unwrap().status, "done", "{body}");
    only_to(&w.new_mail(), email).body.clone()
}

#[test]
fn help_game_and_help_rules_mail_the_players_guide_to_a_seated_player() {
    for &kind in GameKind::ALL {
        let mut w = World::new();
        let (id, seats, _) = new_game(&mut w, kind);
        let email = seats[0].1.clone();
        let guide = pbem::help::guide(kind).trim();
        let title = guide.lines().next().unwrap();
        for body in [format!("HELP {}", kind.name()), "help rules".to_string()] {
            let answer = ask(&mut w, id, &email, &body);
            assert!(
                answer.contains(guide),
                "{kind:?}: '{body}' did not mail the whole guide:\n{answer}"
            );
            assert_eq!(answer.matches(title).count(), 1, "{kind:?}: {answer}");
            assert!(!answer.contains("no such game"), "{answer}");
            assert_no_internals(&format!("{kind:?}: the answer to {body}"), &answer);
        }
    }
}

#[test]
fn help_rules_is_about_the_game_the_mail_is_about() {
    let mut w = World::new();
    let (rink, seats, _) = new_game(&mut w, GameKind::DiceRink);
    let answer = ask(&mut w, rink, &seats[0].1, "HELP RULES");
    assert!(answer.contains("DICE RINK: A PLAYER'S GUIDE"), "{answer}");
    let (dip, seats, _) = new_game(&mut w, GameKind::DipTacToe);
    let answer = ask(&mut w, dip, &seats[0].1, "HELP RULES");
    assert!(answer.contains("DIP-TAC-TOE: A PLAYER'S GUIDE"), "{answer}");
    assert!(!answer.contains("DICE RINK"), "{answer}");
}

#[test]
fn help_rules_without_a_game_asks_which_and_sends_the_commands() {
    let mut w = World::new();
    let stranger = "someone@example.net";
    let raw = w.mail(stranger, "gm@pbem.example", "rules?", "HELP RULES");
    w.deliver(&raw).unwrap();
    let answer = only_to(&w.new_mail(), stranger).body.clone();
    assert!(answer.contains("which game?"), "{answer}");
    assert!(answer.contains("HELP <game>"), "{answer}");
    assert!(!answer.contains("A PLAYER'S GUIDE"), "{answer}");
    assert_no_internals("HELP RULES without a game", &answer);
}

#[test]
fn the_commands_help_names_no_internals_and_fits_the_width() {
    let mut w = World::new();
    let stranger = "someone@example.net";
    for body in ["HELP", "HELP nosuchgame"] {
        let raw = w.mail(stranger, "gm@pbem.example", "help", body);
        w.deliver(&raw).unwrap();
        let answer = only_to(&w.new_mail(), stranger).body.clone();
        assert!(answer.contains("HELP RULES"), "{answer}");
        for kind in GameKind::ALL {
            assert!(
                answer.contains(kind.name()),
                "{kind:?} not listed: {answer}"
            );
        }
        assert_no_internals(body, &answer);
        for line in answer.lines() {
            assert!(line.chars().count() <= WIDTH, "{body}: too wide: {line}");
        }
    }
}

#[test]
fn welcome_mails_give_the_summary_point_to_help_rules_and_name_no_internals() {
    for &kind in GameKind::ALL {
        let mut w = World::new();
        let (_, seats, mail) = new_game(&mut w, kind);
        for (_, email) in &seats {
            let welcome = only_to(&mail, email);
            assert_eq!(welcome.kind, "welcome");
            assert!(
                welcome.body.contains(pbem::help::summary(kind)),
                "{kind:?}: {}",
                welcome.body
            );
            assert!(welcome.body.contains("HELP RULES"), "{}", welcome.body);
            assert_no_internals(&format!("{kind:?}: the welcome mail"), &welcome.body);
        }
    }
}

#[test]
fn guides_and_summaries_are_plain_text_of_at_most_72_columns_without_internals() {
    for &kind in GameKind::ALL {
        for (what, text) in [
            ("guide", pbem::help::guide(kind)),
            ("summary", pbem::help::summary(kind)),
        ] {
            let at = format!("{kind:?}'s {what}");
            assert_no_internals(&at, text);
            assert!(!text.contains('`'), "{at}: Markdown quotes");
            assert!(!text.contains("**"), "{at}: Markdown emphasis");
            assert!(!text.contains('\t'), "{at}: a tab");
            for (n, line) in text.lines().enumerate() {
                let n = n + 1;
                assert!(
                    line.chars().count() <= WIDTH,
                    "{at}, line {n}: longer than {WIDTH}: {line}"
                );
                assert!(line == line.trim_end(), "{at}, line {n}: trailing spaces");
                assert!(
                    !line.starts_with('#') && !line.contains("|--") && !line.contains("| --"),
                    "{at}, line {n}: a Markdown heading or table: {line}"
                );
            }
        }
        assert!(
            pbem::help::guide(kind).len() > 4 * pbem::help::summary(kind).len(),
            "{kind:?}: the guide is no more than its summary"
        );
    }
}

#[test]
fn the_internals_check_finds_every_pattern_and_the_developers_pages() {
    for p in INTERNALS {
        let text = format!("Some words, then {} and more.", p.to_uppercase());
        assert_eq!(internals(&text), [*p], "{text}");
    }
    assert!(internals("Send HELP RULES; pbem, the game master").is_empty());
    // The developers' notation pages are what `HELP <game>` used to mail: each is caught.
    for kind in GameKind::ALL {
        let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("notation")
            .join(format!("{}.md", kind.name()));
        let page = std::fs::read_to_string(&path).unwrap();
        assert!(!internals(&page).is_empty(), "{}", path.display());
    }
}
