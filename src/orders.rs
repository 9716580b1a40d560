//! Finds the lines a player actually wrote in a mail body: quotes, attributions, forwarded history, signatures, mobile footers and HTML leftovers are dropped.
//!
//! Players answer from every kind of client, so the body handed to `player_lines` holds, besides
//! their orders, the report they are replying to (quoted with `>` or pasted below an Outlook
//! header block), their signature and whatever their phone appends. Anything the GM mistakes for
//! an order becomes an error line in the reply, so everything here errs on the side of dropping
//! text that *looks* like client boilerplate.

use std::sync::OnceLock;

// regex-lite: these patterns are compiled in every `pbem ingest` process, and it compiles them
// ten times faster than regex; its case folding is ASCII only, so lines are lowercased first.
use regex_lite::Regex;

/// The lines the player wrote, trimmed, blank lines dropped, in order.
///
/// Quoted lines (`>`) are skipped wherever they are, so both top-posted and bottom-posted or
/// interleaved replies keep the player's own text. Reading stops for good at a signature
/// delimiter, a mobile footer, an Outlook separator or header block, or an attribution line
/// that is not followed by `>` quotes (the history below it is not marked as quoted).
pub fn player_lines(body: &str) -> Vec<String> {
    let body = body.replace("\r\n", "\n").replace('\r', "\n");
    let lines: Vec<String> = body.split('\n').map(clean_line).collect();
    let mut kept = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        let line = lines[index].as_str();
        if line.is_empty() || line.starts_with('>') {
            index += 1;
            continue;
        }
        if is_signature_delimiter(line) || is_mobile_footer(line) || is_separator(line) {
            break;
        }
        if is_header_block_start(&lines, index) {
            break;
        }
        if let Some(consumed) = attribution_length(&lines, index) {
            if next_content_is_quoted(&lines, index + consumed) {
                index += consumed;
                continue;
            }
            break;
        }
        kept.push(line.to_string());
        index += 1;
    }
    kept
}

/// The game id in a subject such as `Re: [pbem #12] Dice Rink: your move`.
///
/// Reply and forward prefixes in any number and language (`Re:`, `AW:`, `SV:`, `Fwd:` ...) may
/// come first; the tag itself is what counts, so they are simply not in the way.
pub fn subject_game_id(subject: &str) -> Option<i64> {
    static TAG: OnceLock<Regex> = OnceLock::new();
    let tag = || compiled(&TAG, r"(?i)\[\s*pbem\s*#\s*([0-9]{1,18})\s*\]");
    let captures = tag().captures(subject)?;
    captures.get(1)?.as_str().parse().ok()
}

/// The move number of a guard line `#12`: orders after it apply only if the game is at move 12.
pub fn move_guard(line: &str) -> Option<u32> {
    let digits = line.trim().strip_prefix('#')?.trim_start();
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// One line with HTML and transfer-encoding leftovers removed, trimmed.
fn clean_line(raw: &str) -> String {
    let mut line: String = raw
        .replace("&nbsp;", " ")
        .chars()
        .filter(|c| !is_invisible(*c))
        .map(|c| if is_odd_space(c) { ' ' } else { c })
        .collect();
    // A quoted-printable body that was never decoded leaks `=20` and soft line breaks (`=`).
    loop {
        let trimmed = line.trim_end();
        let shorter = trimmed
            .strip_suffix("=20")
            .or_else(|| trimmed.strip_suffix("=09"))
            .or_else(|| {
                trimmed
                    .strip_suffix('=')
                    .filter(|rest| !rest.ends_with('='))
            });
        match shorter {
            Some(rest) => line = rest.to_string(),
            None => break,
        }
    }
    line.trim().to_string()
}

/// A pattern compiled on its first use, once per process: `pbem ingest` is a process per mail,
/// and most mails never need most patterns.
fn compiled(cell: &'static OnceLock<Regex>, pattern: &str) -> &'static Regex {
    cell.get_or_init(|| Regex::new(pattern).expect("valid regex"))
}

/// Zero-width and formatting characters that HTML mail scatters through text.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{200B}'
            | '\u{200C}'
            | '\u{200D}'
            | '\u{2060}'
            | '\u{FEFF}'
            | '\u{00AD}'
            | '\u{200E}'
            | '\u{200F}'
    ) || (c.is_control() && c != '\t')
}

/// Non-breaking and other exotic spaces that should read as a plain space.
fn is_odd_space(c: char) -> bool {
    matches!(c, '\u{00A0}' | '\u{2007}' | '\u{202F}' | '\u{3000}' | '\t')
}

/// `-- ` (RFC 3676 signature delimiter), also when a client trimmed it to `--`.
fn is_signature_delimiter(line: &str) -> bool {
    line == "--"
}

/// "Sent from my iPhone" and the other footers phones and webmail append to a reply. Matched
/// by how the line starts: a footer glued to junk (a leaked soft line break) still counts.
fn is_mobile_footer(line: &str) -> bool {
    // Footers are short lines; the length check stands in for a bounded repetition, which
    // would make the pattern far slower to compile (once per `pbem ingest` process).
    // The pattern is lowercase and meets lowercased text: a case-insensitive pattern costs
    // several times as much to compile. Every alternative starts with one of these words, so
    // a line that starts with none (an order) never compiles the pattern: compiling it was a
    // sixth of a `pbem ingest` process's work.
    const FIRST_WORDS: [&str; 8] = [
        "sent ",
        "get ",
        "envoy",
        "von ",
        "gesendet ",
        "отправлено ",
        "enviado ",
        "inviato ",
    ];
    if line.len() > 120 {
        return false;
    }
    let lower = line.to_lowercase();
    static FOOTER: OnceLock<Regex> = OnceLock::new();
    let footer = || {
        compiled(
            &FOOTER,
            r"(?x)^(
                sent\ from\ my\ \S
              | sent\ (from|with|via)\ (yahoo|aol|outlook|mail\ for\ windows|samsung|blackberry|proton|gmail|sparrow|spark|airmail|the\ \S+\ app)\b
              | get\ outlook\ for\ \S
              | envoy[ée]\ (de|depuis)\ (mon|ma)\ \S
              | von\ meinem\ \S[^\n]*\ gesendet
              | gesendet\ von\ (meinem|mein)\ \S
              | отправлено\ с\ \S
              | enviado\ desde\ mi\ \S
              | inviato\ da(l)?\ (mio\ )?(iphone|ipad|android|samsung|galaxy|smartphone|cellulare|outlook|yahoo)
            )",
        )
    };
    FIRST_WORDS.iter().any(|w| lower.starts_with(w)) && footer().is_match(&lower)
}

/// Outlook's "-----Original Message-----", "________" rules and similar history separators.
fn is_separator(line: &str) -> bool {
    static ORIGINAL: OnceLock<Regex> = OnceLock::new();
    let original = || {
        compiled(
            &ORIGINAL,
            r"^[-_=*\s]{2,}\s*(original\s+message|forwarded\s+message|ursprüngliche\s+nachricht|weitergeleitete\s+nachricht|message\s+d'origine|message\s+transféré|исходное\s+сообщение|пересылаемое\s+сообщение|mensaje\s+original|messaggio\s+originale|oorspronkelijk\s+bericht|originalmeddelande|opprinnelig\s+melding)\s*[-_=*\s]{2,}$",
        )
    };
    // Outlook's "____" rule (32 underscores) and html2text's rendering of <hr> ("───"). Short
    // runs of dashes or stars are left alone: players draw those themselves.
    let rule = line.chars().count() >= 10
        && (line.chars().all(|c| c == '_') || line.chars().all(|c| matches!(c, '─' | '━')));
    // Cheap tests first: most lines are not separators, and a pattern unused is never compiled.
    let ruled_start = line
        .chars()
        .take(2)
        .filter(|c| matches!(c, '-' | '_' | '=' | '*') || c.is_whitespace())
        .count()
        == 2;
    rule || (ruled_start && original().is_match(&line.to_lowercase()))
}

/// The label of a line like `From: Bob` / `Sent: Monday` in a forwarded-history header block.
fn header_label(line: &str) -> Option<&'static str> {
    static LABEL: OnceLock<Regex> = OnceLock::new();
    let label = || {
        compiled(
            &LABEL,
            r"^\**\s*(from|sent|date|to|cc|subject|de|envoyé|à|objet|von|gesendet|an|betreff|datum|от|отправлено|кому|тема|дата|da|inviato|oggetto|enviado|para|asunto|van|verzonden|onderwerp|aan|fra|sendt|emne|til)\s*\**\s*:",
        )
    };
    if !line.contains(':') {
        return None;
    }
    let lower = line.to_lowercase();
    let found = label().captures(&lower)?.get(1)?.as_str().to_string();
    Some(match found.as_str() {
        "from" | "de" | "von" | "от" | "da" | "van" | "fra" => "from",
        "subject" | "objet" | "betreff" | "тема" | "oggetto" | "asunto" | "onderwerp" | "emne" => {
            "subject"
        }
        _ => "other",
    })
}

/// Whether the quoted history of an Outlook-style reply starts here: at least two header lines
/// (`From:`, `Sent:`, `To:`, `Subject:` or their translations), one of them `From:`/`Subject:`,
/// within the next few lines.
fn is_header_block_start(lines: &[String], index: usize) -> bool {
    if header_label(&lines[index]).is_none() {
        return false;
    }
    let block: Vec<&'static str> = lines[index..]
        .iter()
        .filter(|line| !line.is_empty())
        .take(4)
        .map_while(|line| header_label(line))
        .collect();
    block.len() >= 2 && block.iter().any(|label| *label != "other")
}

/// The number of lines (1 or 2) an attribution line such as "On Mon, Bob <b@x> wrote:" takes.
fn attribution_length(lines: &[String], index: usize) -> Option<usize> {
    let line = &lines[index];
    if is_attribution(line) {
        return Some(1);
    }
    // Clients wrap a long attribution; only a line that opens like one may be joined.
    let next = lines.get(index + 1).filter(|next| !next.is_empty())?;
    if opens_attribution(line) && is_attribution(&format!("{line} {next}")) {
        return Some(2);
    }
    None
}

/// A whole attribution line: it ends in "wrote:" or a translation, and is not too long to be one.
fn is_attribution(line: &str) -> bool {
    static WROTE: OnceLock<Regex> = OnceLock::new();
    let wrote = || {
        compiled(
            &WROTE,
            r"(\bwrote|\bwrites|a\s+écrit|schrieb|escribió|ha\s+scritto|escreveu|schreef|skrev|kirjoitti|napisał|napsal|yazdı|написал|написала|написал\(а\)|пишет|έγραψε)\s*:\s*$",
        )
    };
    static GMAIL_DATE: OnceLock<Regex> = OnceLock::new();
    // Gmail in some locales (Russian among them) writes "2014-06-26 13:53 GMT+04:00 Bob <b@x>:".
    let gmail_date = || {
        compiled(
            &GMAIL_DATE,
            r"^\d{4}-\d{2}-\d{2}\s+\d{1,2}:\d{2}\s+GMT[+-]\d{2}:\d{2}\s+.*:\s*$",
        )
    };
    static VERB_FIRST: OnceLock<Regex> = OnceLock::new();
    // German (and some clients in other languages) put the name after the verb:
    // "Am 03.01.2022 um 10:00 schrieb Bob <b@x>:".
    let verb_first = || {
        compiled(
            &VERB_FIRST,
            r"^(am|on|le|el|il|em|op)\s.*\b(schrieb|wrote|a\s+écrit|escribió|ha\s+scritto|escreveu|schreef)\b.*:\s*$",
        )
    };
    static DATED_ADDRESS: OnceLock<Regex> = OnceLock::new();
    // mail.ru and others: "Thu, 26 Jun 2014 14:00:51 +0400 от Bob <b@x.ru>:" (a time, then the
    // sender's address, then the colon).
    let dated_address = || {
        compiled(
            &DATED_ADDRESS,
            r"\d{1,2}:\d{2}.*[^\s<>@]+@[^\s<>@]+\.[^\s<>@]+>?\)?\s*:\s*$",
        )
    };
    // Every form ends in a colon: the cheap test spares the patterns (and their compiling).
    line.trim_end().ends_with(':')
        && line.chars().count() <= 300
        && (wrote().is_match(&line.to_lowercase())
            || verb_first().is_match(&line.to_lowercase())
            || gmail_date().is_match(line)
            || dated_address().is_match(line))
}

/// The opening word of an attribution line in the languages we know ("On", "Le", "Am" ...).
fn opens_attribution(line: &str) -> bool {
    static OPENER: OnceLock<Regex> = OnceLock::new();
    let opener = || {
        compiled(
            &OPENER,
            r"^(on|le|am|el|il|em|op|den|på|w\s+dniu|dne|\d{1,4}[-./])\s*\S",
        )
    };
    opener().is_match(&line.to_lowercase()) || line.contains('@')
}

/// Whether the first non-blank line at or after `index` is a `>` quote.
fn next_content_is_quoted(lines: &[String], index: usize) -> bool {
    lines
        .iter()
        .skip(index)
        .find(|line| !line.is_empty())
        .is_some_and(|line| line.starts_with('>'))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One footer for each alternative of the pattern: the first-word test in front of it
    /// must let every one through (a new alternative needs its first word there too).
    #[test]
    fn every_kind_of_footer_passes_the_first_word_test() {
        for footer in [
            "Sent from my iPhone",
            "Sent with Proton Mail secure email.",
            "Get Outlook for Android",
            "Envoyé de mon iPhone",
            "Von meinem iPhone gesendet",
            "Gesendet von meinem Samsung",
            "Отправлено с iPhone",
            "Enviado desde mi iPhone",
            "Inviato da iPhone",
        ] {
            assert!(is_mobile_footer(footer), "{footer}");
        }
        assert!(!is_mobile_footer("b1 5W6"));
    }

    #[test]
    fn top_posted_gmail_reply_keeps_only_the_orders() {
        let body =
            "b1 5W6\n#12\n\nOn Mon, 3 Jan 2022 at 10:00, Bob <b@x.org> wrote:\n> report\n> more\n";
        assert_eq!(player_lines(body), vec!["b1 5W6", "#12"]);
    }

    #[test]
    fn wrapped_attribution_is_recognised() {
        let body = "5W6\n\nOn Mon, 3 Jan 2022 at 10:00, Game Master <gm+abc@pbem.example>\nwrote:\n\n> report\n";
        assert_eq!(player_lines(body), vec!["5W6"]);
    }

    #[test]
    fn attributions_in_other_languages() {
        let attributions = [
            "Le lun. 3 janv. 2022 à 10:00, Bob <b@x.fr> a écrit :",
            "Am Mo., 3. Jan. 2022 um 10:00 Uhr schrieb Bob <b@x.de>:",
            "3 января 2022 г., 10:00 пользователь Bob <b@x.ru> написал:",
            "пн, 3 янв. 2022 г. в 10:00, Bob <b@x.ru>:",
            "El lun, 3 ene 2022 a las 10:00, Bob (<b@x.es>) escribió:",
            "Il giorno lun 3 gen 2022 alle ore 10:00 Bob <b@x.it> ha scritto:",
            "2014-06-26 13:53 GMT+04:00 Bob <b@x.ru>:",
        ];
        for attribution in attributions {
            let body = format!("5W6\n\n{attribution}\n> old\n");
            assert_eq!(player_lines(&body), vec!["5W6"], "{attribution}");
            let unquoted = format!("5W6\n{attribution}\nold report\n");
            assert_eq!(player_lines(&unquoted), vec!["5W6"], "{attribution}");
        }
    }

    #[test]
    fn bottom_posted_reply_keeps_text_below_the_quote() {
        let body = "On 03/01/2022 10:00, GM wrote:\n> Your move\n\nrotate 6(2N)\n-- \nBob\n";
        assert_eq!(player_lines(body), vec!["rotate 6(2N)"]);
    }

    #[test]
    fn unquoted_history_after_attribution_is_dropped() {
        let body = "BOARD\nAm 03.01.2022 um 10:00 schrieb GM <gm@x.de>:\nold report text\n";
        assert_eq!(player_lines(body), vec!["BOARD"]);
    }

    #[test]
    fn outlook_header_block_and_separators_stop_reading() {
        let body = "5W6\r\n\r\n-----Original Message-----\r\nFrom: GM\r\nSent: Monday\r\nold\r\n";
        assert_eq!(player_lines(body), vec!["5W6"]);
        let body = "5W6\n________________________________\nFrom: GM\nold\n";
        assert_eq!(player_lines(body), vec!["5W6"]);
        let body = "5W6\nFrom: GM <gm@x>\nSent: Monday\nTo: me\nSubject: [pbem #1]\nold\n";
        assert_eq!(player_lines(body), vec!["5W6"]);
    }

    #[test]
    fn players_own_rules_and_old_mac_line_ends_are_fine() {
        assert_eq!(
            player_lines("5W6\r-----\rBOARD\r"),
            vec!["5W6", "-----", "BOARD"]
        );
        assert_eq!(player_lines("5W6\n──────────────\nFrom: x\n"), vec!["5W6"]);
    }

    #[test]
    fn a_single_header_like_line_is_kept() {
        assert_eq!(player_lines("to: all\n5W6"), vec!["to: all", "5W6"]);
    }

    #[test]
    fn mobile_footers_and_signatures_stop_reading() {
        assert_eq!(
            player_lines("5W6\n\nSent from my iPhone\n\nold"),
            vec!["5W6"]
        );
        assert_eq!(
            player_lines("5W6\nGet Outlook for Android\nold"),
            vec!["5W6"]
        );
        assert_eq!(player_lines("5W6\n--\nBob"), vec!["5W6"]);
        assert_eq!(
            player_lines("5W6\nSent from Yahoo Mail on Android\n"),
            vec!["5W6"]
        );
    }

    #[test]
    fn html_leftovers_are_cleaned() {
        let body = "\u{200B}5W6\u{00A0}\nb1&nbsp;5W6=\n#12=20\n";
        assert_eq!(player_lines(body), vec!["5W6", "b1 5W6", "#12"]);
    }

    #[test]
    fn subject_game_ids() {
        assert_eq!(
            subject_game_id("Re: [pbem #12] Dice Rink: your move"),
            Some(12)
        );
        assert_eq!(subject_game_id("AW: Re: Re: [pbem #7] x"), Some(7));
        assert_eq!(subject_game_id("SV: Fwd: [PBEM #300]"), Some(300));
        assert_eq!(subject_game_id("Re: pbem 12"), None);
        assert_eq!(subject_game_id("[pbem #99999999999999999999]"), None);
    }

    #[test]
    fn move_guards() {
        assert_eq!(move_guard("#12"), Some(12));
        assert_eq!(move_guard("  #3 "), Some(3));
        assert_eq!(move_guard("#"), None);
        assert_eq!(move_guard("#12a"), None);
        assert_eq!(move_guard("12"), None);
        assert_eq!(move_guard("#99999999999"), None);
    }
}
