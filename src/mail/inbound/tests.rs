//! The reading of mail: format=flowed, HTML to text, bare headers, mailbox comparison.

use super::html::HtmlBudget;
use super::*;

#[test]
fn unflow_joins_soft_breaks_and_keeps_hard_ones() {
    let text = "b1 5W6 and then a long \nline\n> quoted soft \n> end\n-- \nsig";
    assert_eq!(
        unflow(text, false),
        "b1 5W6 and then a long line\n> quoted soft end\n-- \nsig"
    );
}

#[test]
fn unflow_delsp_removes_the_break_space() {
    assert_eq!(unflow("rot \nate 6(2N)\n", true), "rotate 6(2N)\n");
}

#[test]
fn unflow_removes_space_stuffing() {
    assert_eq!(
        unflow(" From here\n >not a quote", false),
        "From here\n>not a quote"
    );
}

#[test]
fn unparseable_input_still_gives_an_inbound() {
    let inbound = parse(b"");
    assert_eq!(inbound.size, 0);
    assert!(inbound.body.is_empty());
    assert_eq!(inbound.content_hash.len(), 64);
}

fn html_to_text(html: &str) -> String {
    HtmlBudget::per_mail().convert(html)
}

#[test]
fn deeply_nested_html_is_stripped_not_rendered() {
    let html = format!("{}5W6{}", "<div>".repeat(5000), "</div>".repeat(5000));
    assert_eq!(html_to_text(&html).trim(), "5W6");
}

#[test]
fn layout_tables_give_one_cell_per_line() {
    let html = "<table><tr><td>5W6</td><td>BOARD</td></tr></table>";
    let text = html_to_text(html);
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    assert_eq!(lines, vec!["5W6", "BOARD"]);
}

#[test]
fn blockquotes_become_quoted_lines() {
    let text = html_to_text(
        "<div>5W6</div><blockquote><div>old</div><blockquote>older</blockquote></blockquote>",
    );
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    assert_eq!(lines, vec!["5W6", "> old", "> ", "> > older"]);
}

#[test]
fn bare_headers_are_read_when_the_parser_gives_up() {
    let raw = b"From: Bob <BOB@Example.org>\nSubject: Re: [pbem #4]\n folded\n\
Message-ID: <x1@example.org>\nTo: gm+t@pbem.example, c@example.org\n\nbody";
    let inbound = from_bare_headers(raw, "hash".to_string());
    assert_eq!(inbound.from.as_deref(), Some("bob@example.org"));
    assert_eq!(inbound.subject, "Re: [pbem #4] folded");
    assert_eq!(inbound.message_id.as_deref(), Some("x1@example.org"));
    assert_eq!(inbound.to, vec!["gm+t@pbem.example", "c@example.org"]);
    assert!(inbound.body.is_empty());
}

#[test]
fn same_mailbox_ignores_detail_and_case() {
    assert!(same_mailbox("gm@pbem.example", "GM+abc@Pbem.Example"));
    assert!(!same_mailbox("gm@pbem.example", "bob@pbem.example"));
}

#[test]
fn authentication_results_fields_are_read_in_order_and_capped() {
    let mut raw = String::from(
        "Authentication-Results: mx.example.net;\r\n\tdmarc=fail header.from=example.org\r\n\
         Authentication-Results: other.example; spf=pass smtp.mailfrom=a@example.org\r\n",
    );
    raw.push_str(&"Authentication-Results: x.example; none\r\n".repeat(100));
    raw.push_str("From: a@example.org\r\nSubject: s\r\n\r\nbody\r\n");
    let inbound = parse(raw.as_bytes());
    assert_eq!(inbound.authentication.len(), 16);
    assert_eq!(
        inbound.authentication[0].authserv_id.as_deref(),
        Some("mx.example.net")
    );
    assert_eq!(inbound.authentication[0].results[0].result, "fail");
    assert_eq!(
        inbound.authentication[1].results[0].prop("smtp.mailfrom"),
        Some("a@example.org")
    );
}
