//! The letters' variables as the default templates read them.

use super::*;

fn game() -> GameVars {
    GameVars {
        id: 7,
        kind: "d4d6",
        title: "d4 d6 chess",
        status: GameStatus::Active,
        to_act: "WHITE to move".into(),
        deadline: None,
        ply: 3,
        commitment: None,
        dice: true,
        salts: vec![],
        salts_fixed: true,
        salts_until: None,
        seed: None,
        result: None,
    }
}

/// A seat's mail puts its own kind's variables beside `game`, `seat` and `board`, and the
/// default templates read them.
#[test]
fn a_seat_mail_flattens_its_letter_beside_the_common_variables() {
    let letter = TurnReport {
        plies: vec![PlyVars {
            actor: "BLACK".into(),
            text: "Fob6".into(),
            said: "BLACK played Fob6".into(),
        }],
        reports: vec!["a report".into()],
        your_turn: true,
        orders: false,
        headline: None,
        urgent: false,
    };
    let mail = SeatMail {
        game: game(),
        seat: "WHITE",
        headline: "Your move.".into(),
        board: "THE BOARD",
        letter: &letter,
    };
    let value = serde_json::to_value(&mail).unwrap();
    assert_eq!(value["game"]["id"], 7);
    assert_eq!(value["your_turn"], true);
    assert_eq!(value["plies"][0]["text"], "Fob6");
    let templates = crate::template::Templates::load(None).unwrap();
    let body = templates.render(letter.template(), &mail).unwrap();
    assert!(
        body.contains("Game #7, d4 d6 chess: you play WHITE."),
        "{body}"
    );
    assert!(body.contains("BLACK played Fob6"), "{body}");
    assert!(body.contains("THE BOARD"), "{body}");
    assert!(body.contains("It is your move"), "{body}");
}

#[test]
fn a_reply_is_a_refusal_only_when_every_line_was_refused() {
    let mut reply = Reply {
        refused_only: true,
        headline: None,
        lines: vec![],
        reports: vec![],
        extra: String::new(),
    };
    assert_eq!(reply.kind(), "order_refused");
    reply.refused_only = false;
    assert_eq!(reply.kind(), "move_accepted");
    assert!(serde_json::to_value(&reply)
        .unwrap()
        .get("refused_only")
        .is_none());
}
