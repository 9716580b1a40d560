//! Runs notation/diptactoe.valid and notation/diptactoe.invalid: every example line is read as
//! its seat would mail it, in its position, and must give the listed canonical form or reason.

use std::path::Path;

use pbem::games::diptactoe::order::parse_line;
use pbem::games::diptactoe::{DipTacToe, SEATS};
use pbem::games::{Options, Rules};

/// One example: the line as mailed, the expected text, the seat and the position.
struct Example {
    line_no: usize,
    text: String,
    expected: String,
    seat: usize,
    game: DipTacToe,
}

/// `start`, or a position tag preceded by any `option=value` words the game knows.
fn position(spec: &str) -> DipTacToe {
    let mut options = Options::new();
    let mut tag = Vec::new();
    for word in spec.split_whitespace() {
        match word.split_once('=') {
            Some((key, value)) if DipTacToe::option_specs().iter().any(|o| o.name == key) => {
                options.insert(key.to_string(), value.to_string());
            }
            _ if word == "start" => {}
            _ => tag.push(word),
        }
    }
    if tag.is_empty() {
        DipTacToe::new(&options).expect("start position")
    } else {
        DipTacToe::from_position(&options, &tag.join(" ")).expect("valid position tag")
    }
}

fn examples(file: &str) -> Vec<Example> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("notation")
        .join(file);
    let text = std::fs::read_to_string(&path).expect("example list");
    let mut game: Option<DipTacToe> = None;
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        if raw.trim().is_empty() || raw.trim_start().starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = raw.split('|').collect();
        assert_eq!(fields.len(), 4, "{file}:{}: four fields expected", i + 1);
        let seat = SEATS
            .iter()
            .position(|s| *s == fields[2].trim())
            .unwrap_or_else(|| panic!("{file}:{}: unknown seat", i + 1));
        if !fields[3].trim().is_empty() {
            game = Some(position(fields[3]));
        }
        out.push(Example {
            line_no: i + 1,
            text: fields[0].trim().to_string(),
            expected: fields[1].trim().to_string(),
            seat,
            game: game.clone().expect("the first example names its position"),
        });
    }
    out
}

#[test]
fn valid_examples_read_as_their_canonical_form_and_read_back() {
    let list = examples("diptactoe.valid");
    assert!(list.len() >= 30);
    for ex in list {
        let got = ex
            .game
            .check_orders(ex.seat, std::slice::from_ref(&ex.text));
        assert_eq!(
            got,
            vec![Ok(ex.expected.clone())],
            "diptactoe.valid:{}: '{}'",
            ex.line_no,
            ex.text
        );
        // The canonical form reads back to itself.
        let again = ex
            .game
            .check_orders(ex.seat, std::slice::from_ref(&ex.expected));
        assert_eq!(
            again,
            vec![Ok(ex.expected.clone())],
            "diptactoe.valid:{}",
            ex.line_no
        );
        assert!(!ex.expected.contains(char::is_whitespace));
        assert!(parse_line(&ex.expected).is_ok());
    }
}

#[test]
fn invalid_examples_are_void_with_their_reason() {
    let list = examples("diptactoe.invalid");
    assert!(list.len() >= 30);
    for ex in list {
        let got = ex
            .game
            .check_orders(ex.seat, std::slice::from_ref(&ex.text));
        match &got[..] {
            [Err(reason)] => assert!(
                reason.contains(&ex.expected),
                "diptactoe.invalid:{}: '{}' is void for '{reason}', not '{}'",
                ex.line_no,
                ex.text,
                ex.expected
            ),
            other => panic!(
                "diptactoe.invalid:{}: '{}' was accepted: {other:?}",
                ex.line_no, ex.text
            ),
        }
    }
}
