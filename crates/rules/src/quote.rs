//! The start of a long input quoted back, so that a refusal or a reply never repeats a whole hostile line.

/// At most `max` characters of `text`, with "..." when it was cut.
pub fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        None => text.to_string(),
        Some((i, _)) => format!("{}...", &text[..i]),
    }
}

#[cfg(test)]
mod tests {
    use super::shorten;

    #[test]
    fn a_long_text_keeps_its_start_and_a_short_one_stays_whole() {
        assert_eq!(shorten("abc", 3), "abc");
        assert_eq!(shorten("abcd", 3), "abc...");
        assert_eq!(shorten("ééé€", 2), "éé...");
    }
}
