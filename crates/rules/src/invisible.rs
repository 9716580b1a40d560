//! Characters that change how text around them is shown without being seen: bidi controls and invisible format characters, which one player's text must not use on another's screen.
//!
//! A right-to-left override (U+202E) in a press message or a salt reorders what follows it,
//! so "a1 resigns" can be made to read as something else; zero-width spaces make two texts
//! that look the same differ. These are taken out of what players write to each other. The
//! zero-width joiner and non-joiner (U+200C, U+200D) stay: scripts such as Persian and emoji
//! sequences need them, and they move nothing.

/// Whether `c` is a bidi control or an invisible format character taken out of players' text.
pub fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{061C}'               // Arabic letter mark
            | '\u{180E}'         // Mongolian vowel separator
            | '\u{200B}'         // zero-width space
            | '\u{200E}'..='\u{200F}' // left-to-right and right-to-left marks
            | '\u{2028}'..='\u{2029}' // line and paragraph separators
            | '\u{202A}'..='\u{202E}' // embeddings and overrides
            | '\u{2060}'..='\u{2064}' // word joiner, invisible operators
            | '\u{2066}'..='\u{2069}' // isolates
            | '\u{206A}'..='\u{206F}' // deprecated format characters
            | '\u{FEFF}'         // zero-width no-break space (BOM)
            | '\u{FFF9}'..='\u{FFFB}' // interlinear annotation
    )
}

/// `text` without its invisible characters (`is_invisible`) and control characters other than
/// line breaks and tabs, which a mail would carry to the other player's screen as they are.
pub fn visible(text: &str) -> String {
    text.chars()
        .filter(|&c| !is_invisible(c) && (!c.is_control() || c == '\n' || c == '\t'))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overrides_and_zero_width_characters_are_taken_out() {
        let sneaky = "I offer \u{202E}werd a\u{202C} draw\u{200B}\u{2066}!\u{2069}\u{1b}[2J";
        assert_eq!(visible(sneaky), "I offer werd a draw![2J");
    }

    #[test]
    fn ordinary_text_of_every_script_is_kept_whole() {
        for text in [
            "Schach! Äpfel",
            "ход конём",
            "شاه\u{200C}مات",
            "👨\u{200D}👩\u{200D}👧",
            "a\tb\nc",
        ] {
            assert_eq!(visible(text), text);
        }
    }
}
