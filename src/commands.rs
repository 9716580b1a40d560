//! The email command language: reads a player's lines into commands and game lines (pure).
//!
//! A line whose first word is a command keyword is that command; any other line is game text
//! (a move, an order, a claim) for the game's own notation. `#12` before a move (or alone on a
//! line) is a guard: the mail's moves are refused unless the game is at that ply.

/// One thing a player's mail asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// Game text: a move, an order, a claim, a conditional outcome line.
    Game(String),
    /// `#12`: the moves in this mail are for a game at ply 12.
    Guard(u32),
    Board,
    Status,
    History,
    Moves,
    Resign,
    DrawOffer,
    DrawAccept,
    DrawDecline,
    Help(HelpTopic),
    List,
    /// `STATS [game]`: the games on record, counted (a game's name, lower-cased).
    Stats(Option<String>),
    /// `RATINGS game`: the players' ratings in a game.
    Ratings(String),
    New {
        game: String,
        options: Vec<String>,
    },
    Join {
        game: i64,
        seat: Option<String>,
    },
    /// `GAME 12`: the lines below are for game 12.
    UseGame(i64),
    /// `VACATION 7` (days), `VACATION OFF`.
    Vacation(Option<u32>),
    /// `DIGEST ON` / `DIGEST OFF`: turn reports as one mail a day, or one mail per event.
    Digest(bool),
    /// `NAME Ann Smith`: the name the player is shown by (as written; checked by the GM).
    Name(String),
    /// `PASSWORD secret`: authenticates a mail sent without the secret reply address.
    Password(String),
    Salt(String),
    /// `START` (or `READY`): the player has no more salts to add; once every player has said
    /// so, the salts are fixed and the dice may roll.
    Start,
    /// `COMMENT text`: the player's comment on the move of this mail, kept in the record.
    Comment(String),
    /// `PRESS TO RED, BLUE: text`, `PRESS TO ALL: text`.
    Press {
        to: Vec<String>,
        text: String,
    },
    /// A command word with unusable arguments: the reason.
    Bad {
        line: String,
        reason: String,
    },
}

/// What a `HELP` line asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HelpTopic {
    /// `HELP`: the commands.
    Commands,
    /// `HELP RULES`: the player's guide to the game the mail is about.
    Rules,
    /// `HELP dicerink`: a game's player's guide, by the name written (lower-cased).
    Game(String),
}

impl HelpTopic {
    /// Reads the words after `HELP` (only the first counts).
    fn read(args: &[&str]) -> HelpTopic {
        match args.first().map(|a| a.to_ascii_lowercase()) {
            None => HelpTopic::Commands,
            Some(word) if word == "rules" => HelpTopic::Rules,
            Some(word) => HelpTopic::Game(word),
        }
    }
}

impl Command {
    /// Commands that act on one game (and so need a seat in it).
    pub fn needs_game(&self) -> bool {
        !matches!(
            self,
            Command::Help(_)
                | Command::List
                | Command::Stats(_)
                | Command::Ratings(_)
                | Command::New { .. }
                | Command::Join { .. }
                | Command::UseGame(_)
                | Command::Vacation(_)
                | Command::Digest(_)
                | Command::Name(_)
                | Command::Password(_)
                | Command::Bad { .. }
        )
    }
}

/// Reads the player's lines (already stripped of quotes and signatures) into commands.
pub fn parse(lines: &[String]) -> Vec<Command> {
    lines.iter().flat_map(|l| parse_line(l)).collect()
}

fn parse_line(line: &str) -> Vec<Command> {
    let line = line.trim();
    if line.is_empty() {
        return vec![];
    }
    // `#12 5W6`: a guard, then the move.
    if let Some(rest) = line.strip_prefix('#') {
        let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() {
            let after = rest[digits.len()..].trim();
            let mut out = vec![match digits.parse() {
                Ok(n) => Command::Guard(n),
                Err(_) => bad(line, "that move number is too large"),
            }];
            if !after.is_empty() {
                out.extend(parse_line(after));
            }
            return out;
        }
    }
    // A password attempt in any spelling (`PASSWORD:x`, `password = x`) is never game text: it
    // would be echoed, published to the other players and kept in the record.
    if let Some(pw) = password_attempt(line) {
        return vec![match pw {
            "" => bad("PASSWORD", "PASSWORD needs the password after it"),
            pw => Command::Password(pw.to_string()),
        }];
    }
    let (word, rest) = match line.split_once(char::is_whitespace) {
        Some((w, r)) => (w, r.trim()),
        None => (line, ""),
    };
    let word_uc = word.trim_end_matches([':', '.', '!']).to_ascii_uppercase();
    let args: Vec<&str> = rest.split_whitespace().collect();
    let one = |c: Command| -> Vec<Command> {
        if args.is_empty() {
            vec![c]
        } else {
            vec![bad(line, &format!("{word_uc} takes nothing after it"))]
        }
    };
    match word_uc.as_str() {
        "DRAW" | "NEW" | "JOIN" | "GAME" | "VACATION" | "DIGEST" => {
            vec![with_args(line, &word_uc, &args)]
        }
        "BOARD" => one(Command::Board),
        "STATUS" => one(Command::Status),
        "HISTORY" => one(Command::History),
        "MOVES" => one(Command::Moves),
        "RESIGN" => one(Command::Resign),
        "LIST" => one(Command::List),
        "START" | "READY" => one(Command::Start),
        "HELP" => vec![Command::Help(HelpTopic::read(&args))],
        "STATS" => match args.as_slice() {
            [] => vec![Command::Stats(None)],
            [game] => vec![Command::Stats(Some(game.to_ascii_lowercase()))],
            _ => vec![bad(
                line,
                "STATS takes one game's name at most, e.g. STATS dicerink",
            )],
        },
        "RATINGS" => match args.as_slice() {
            [game] => vec![Command::Ratings(game.to_ascii_lowercase())],
            _ => vec![bad(
                line,
                "RATINGS needs one game's name, e.g. RATINGS dicerink",
            )],
        },
        "NAME" => match rest {
            "" => vec![bad(
                line,
                "NAME needs your name after it, e.g. NAME Ann Smith",
            )],
            n => vec![Command::Name(n.to_string())],
        },
        "SALT" => match rest {
            "" => vec![bad(line, "SALT needs some text after it")],
            s => vec![Command::Salt(s.to_string())],
        },
        "COMMENT" => match rest {
            "" => vec![bad(line, "COMMENT needs some words after it")],
            c => vec![Command::Comment(c.to_string())],
        },
        "PRESS" => parse_press(line, rest),
        _ => vec![Command::Game(line.to_string())],
    }
}

/// A command whose arguments say what it is (`DRAW ACCEPT`, `JOIN 12 B`, `VACATION 10`).
fn with_args(line: &str, word: &str, args: &[&str]) -> Command {
    match word {
        // `DRAW ACCEPT.` as written at the end of a sentence.
        "DRAW" => match args
            .first()
            .map(|a| a.trim_end_matches(['.', '!', ',']).to_ascii_uppercase())
            .as_deref()
        {
            Some("OFFER") | None => Command::DrawOffer,
            Some("ACCEPT") | Some("AGREE") => Command::DrawAccept,
            Some("DECLINE") | Some("REFUSE") => Command::DrawDecline,
            Some(other) => bad(
                line,
                &format!("DRAW {other}? write DRAW OFFER, DRAW ACCEPT or DRAW DECLINE"),
            ),
        },
        "NEW" => match args.split_first() {
            Some((game, options)) => Command::New {
                game: game.to_ascii_lowercase(),
                options: options.iter().map(|s| s.to_string()).collect(),
            },
            None => bad(line, "NEW needs a game name, e.g. NEW dicerink"),
        },
        "JOIN" => match args
            .first()
            .map(|a| a.trim_start_matches('#').parse::<i64>())
        {
            Some(Ok(game)) => Command::Join {
                game,
                seat: args.get(1).map(|s| s.to_ascii_uppercase()),
            },
            _ => bad(line, "JOIN needs a game number, e.g. JOIN 12"),
        },
        "GAME" => match args
            .first()
            .map(|a| a.trim_start_matches('#').parse::<i64>())
        {
            Some(Ok(game)) if args.len() == 1 => Command::UseGame(game),
            _ => bad(line, "GAME needs a game number, e.g. GAME 12"),
        },
        "VACATION" => match args.first().map(|a| a.to_ascii_uppercase()).as_deref() {
            Some("OFF") | Some("END") => Command::Vacation(None),
            Some(n) => match n.trim_end_matches('D').parse::<u32>() {
                Ok(days) if (1..=60).contains(&days) => Command::Vacation(Some(days)),
                _ => bad(line, "VACATION takes a number of days from 1 to 60, or OFF"),
            },
            None => Command::Vacation(Some(7)),
        },
        "DIGEST" => match args.first().map(|a| a.to_ascii_uppercase()).as_deref() {
            Some("ON") if args.len() == 1 => Command::Digest(true),
            Some("OFF") if args.len() == 1 => Command::Digest(false),
            _ => bad(line, "write DIGEST ON or DIGEST OFF"),
        },
        _ => Command::Game(line.to_string()),
    }
}

/// The words that start a password line, in the spellings players use.
const PASSWORD_WORDS: [&str; 4] = ["password", "passwort", "passwd", "passphrase"];

/// When a line starts with a password word (any case) followed by anything but a letter or
/// digit (`PASSWORD secret`, `password:secret`, `Password = secret`): what follows it, trimmed
/// of separators (maybe empty).
pub fn password_attempt(line: &str) -> Option<&str> {
    let line = line.trim_start();
    PASSWORD_WORDS.iter().find_map(|word| {
        let head = line.get(..word.len())?;
        if !head.eq_ignore_ascii_case(word) {
            return None;
        }
        let rest = &line[word.len()..];
        if rest.starts_with(|c: char| c.is_alphanumeric()) {
            return None;
        }
        Some(
            rest.trim_start_matches(|c: char| c.is_whitespace() || ":=-".contains(c))
                .trim_end(),
        )
    })
}

fn parse_press(line: &str, rest: &str) -> Vec<Command> {
    let Some(after_to) = rest
        .strip_prefix("TO ")
        .or_else(|| rest.strip_prefix("to "))
        .or_else(|| rest.strip_prefix("To "))
    else {
        return vec![bad(line, "write PRESS TO <players|ALL>: <text>")];
    };
    let Some((who, text)) = after_to.split_once(':') else {
        return vec![bad(
            line,
            "write PRESS TO <players|ALL>: <text> (the ':' is missing)",
        )];
    };
    let to: Vec<String> = who
        .split([',', ' '])
        .map(|s| s.trim().to_ascii_uppercase())
        .filter(|s| !s.is_empty() && s != "AND")
        .collect();
    if to.is_empty() || text.trim().is_empty() {
        return vec![bad(line, "PRESS needs players (or ALL) and some text")];
    }
    vec![Command::Press {
        to,
        text: text.trim().to_string(),
    }]
}

fn bad(line: &str, reason: &str) -> Command {
    Command::Bad {
        line: line.to_string(),
        reason: reason.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(lines: &[&str]) -> Vec<Command> {
        parse(&lines.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    /// A command at the end of a sentence keeps its meaning, and a refusal never quotes a
    /// word with the sentence's full stop glued to it ("DRAW ACCEPT.? write ...").
    #[test]
    fn a_draw_command_ending_a_sentence_is_read() {
        assert_eq!(p(&["Draw accept."]), vec![Command::DrawAccept]);
        assert_eq!(p(&["DRAW DECLINE!"]), vec![Command::DrawDecline]);
        let Command::Bad { reason, .. } = &p(&["draw maybe."])[0] else {
            panic!("not refused");
        };
        assert!(reason.starts_with("DRAW MAYBE? write"), "{reason}");
    }

    #[test]
    fn commands_and_moves() {
        assert_eq!(
            p(&["#12 5W6", "board", "Draw offer", "rotate 6(2N)"]),
            vec![
                Command::Guard(12),
                Command::Game("5W6".into()),
                Command::Board,
                Command::DrawOffer,
                Command::Game("rotate 6(2N)".into()),
            ]
        );
        assert_eq!(p(&["#7"]), vec![Command::Guard(7)]);
        assert_eq!(
            p(&["JOIN #4 b", "GAME 9", "NEW dicerink setup=fixed"]),
            vec![
                Command::Join {
                    game: 4,
                    seat: Some("B".into())
                },
                Command::UseGame(9),
                Command::New {
                    game: "dicerink".into(),
                    options: vec!["setup=fixed".into()]
                }
            ]
        );
    }

    #[test]
    fn press_and_errors() {
        assert_eq!(
            p(&["PRESS TO red, Blue: let us ally"]),
            vec![Command::Press {
                to: vec!["RED".into(), "BLUE".into()],
                text: "let us ally".into()
            }]
        );
        assert!(matches!(p(&["PRESS TO ALL"])[0], Command::Bad { .. }));
        assert!(matches!(p(&["BOARD please"])[0], Command::Bad { .. }));
        assert!(matches!(p(&["VACATION 400"])[0], Command::Bad { .. }));
        assert_eq!(p(&["vacation off"]), vec![Command::Vacation(None)]);
        assert_eq!(p(&["stats"]), vec![Command::Stats(None)]);
        assert_eq!(
            p(&["Stats DiceRink"]),
            vec![Command::Stats(Some("dicerink".into()))]
        );
        assert_eq!(p(&["RATINGS d4d6"]), vec![Command::Ratings("d4d6".into())]);
        assert!(matches!(p(&["RATINGS"])[..], [Command::Bad { .. }]));
        assert_eq!(p(&["help"]), vec![Command::Help(HelpTopic::Commands)]);
        assert_eq!(p(&["Help Rules"]), vec![Command::Help(HelpTopic::Rules)]);
        assert_eq!(
            p(&["HELP DiceRink"]),
            vec![Command::Help(HelpTopic::Game("dicerink".into()))]
        );
        assert_eq!(p(&["Victory!"]), vec![Command::Game("Victory!".into())]);
    }

    #[test]
    fn a_password_in_any_spelling_is_never_game_text() {
        for line in [
            "PASSWORD secret",
            "PASSWORD:secret",
            "password=secret",
            "Password - secret",
            "  passwd: secret ",
        ] {
            assert_eq!(
                p(&[line]),
                vec![Command::Password("secret".into())],
                "{line}"
            );
        }
        assert!(matches!(&p(&["PASSWORD:"])[0], Command::Bad { line, .. } if line == "PASSWORD"));
        assert_eq!(
            p(&["passwords are silly"]),
            vec![Command::Game("passwords are silly".into())]
        );
    }
}
