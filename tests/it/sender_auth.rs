//! Forged mail refused on the receiving server's word: `Authentication-Results` from a trusted authserv-id (DMARC, else DKIM and SPF aligned) refuses a seat's mail; an untrusted or duplicated field changes nothing.

use crate::common::{only_to, pbem, World};

const ALICE: &str = "alice@example.org";
const BOB: &str = "bob@example.org";
const TRUSTED: &str = "mx.example.net";
const DMARC_FAILS: &str = "mx.example.net; dmarc=fail header.from=example.org";

/// A Dice Rink game of alice (A) and bob, `mx.example.net` trusted.
fn rink() -> (World, i64) {
    let mut w = World::new();
    w.cfg.trusted_authserv_ids = vec![TRUSTED.into()];
    let id = w.rink(ALICE, BOB);
    (w, id)
}

/// Alice's move to her seat's secret address, under these `Authentication-Results` fields
/// (the MTA's come first, as it prepends them).
fn move_with(w: &mut World, id: i64, fields: &[&str]) -> pbem::mailroom::Handled {
    let to = w.seat_address(id, 0);
    let mail = w.mail(ALICE, &to, "Re: move", "b1 5/4");
    let mut raw = Vec::new();
    for field in fields {
        raw.extend_from_slice(format!("Authentication-Results: {field}\r\n").as_bytes());
    }
    raw.extend_from_slice(&mail);
    w.deliver(&raw).unwrap()
}

fn assert_played(w: &mut World, id: i64, h: &pbem::mailroom::Handled) {
    assert_eq!(h.status, "done", "{h:?}");
    assert_eq!(w.load(id).moves.len(), 1, "the move was played");
    assert!(only_to(&w.new_mail(), ALICE).body.contains("ok: b1 5/4"));
}

fn assert_refused(w: &mut World, id: i64, h: &pbem::mailroom::Handled, why: &str) {
    assert_eq!(h.status, "refused", "{h:?}");
    assert!(h.note.contains(why), "{h:?}");
    assert!(w.load(id).moves.is_empty(), "nothing was played");
}

#[test]
fn a_seats_move_failing_dmarc_is_refused_and_its_owner_told_once() {
    let (mut w, id) = rink();
    for _ in 0..2 {
        let h = move_with(&mut w, id, &[DMARC_FAILS]);
        assert_refused(&mut w, id, &h, "DMARC fails for example.org");
    }
    let mail = w.new_mail();
    let notice = only_to(&mail, ALICE);
    assert_eq!(notice.kind, "auth_refusal");
    // The notice names the rule: the receiving server's DMARC check, not a wrong address.
    assert!(
        notice
            .body
            .contains("says that sender was\nforged: DMARC fails for example.org"),
        "{}",
        notice.body
    );
    assert!(
        !notice.body.contains("secret reply address"),
        "{}",
        notice.body
    );
    assert_eq!(mail.iter().filter(|m| m.to_addr == ALICE).count(), 1);
    assert!(mail.iter().all(|m| m.to_addr != BOB), "{mail:#?}");
    // The GM's log names the reason.
    let (listing, code) = pbem(&w, &["inbox", "show", "1"]);
    assert_eq!(code, 0, "{listing}");
    assert!(listing.contains("DMARC fails for example.org"), "{listing}");
}

#[test]
fn the_same_field_from_an_untrusted_server_is_judged_as_before() {
    let (mut w, id) = rink();
    let h = move_with(&mut w, id, &[DMARC_FAILS]);
    assert_refused(&mut w, id, &h, "DMARC");
    w.new_mail();
    let untrusted = "mx.elsewhere.example; dmarc=fail header.from=example.org";
    let h = move_with(&mut w, id, &[untrusted]);
    assert_played(&mut w, id, &h);
}

#[test]
fn with_no_trusted_ids_the_field_is_never_believed() {
    let (mut w, id) = rink();
    let h = move_with(&mut w, id, &[DMARC_FAILS]);
    assert_refused(&mut w, id, &h, "DMARC");
    w.new_mail();
    w.cfg.trusted_authserv_ids.clear();
    let h = move_with(&mut w, id, &[DMARC_FAILS]);
    assert_played(&mut w, id, &h);
}

#[test]
fn without_dmarc_failing_dkim_and_spf_is_refused_and_an_aligned_dkim_pass_played() {
    let (mut w, id) = rink();
    let fails = "mx.example.net; dkim=fail header.d=example.org; \
                 spf=fail smtp.mailfrom=alice@example.org";
    let h = move_with(&mut w, id, &[fails]);
    assert_refused(&mut w, id, &h, "neither DKIM nor SPF passes aligned");
    w.new_mail();
    let passes = "mx.example.net; dkim=pass header.d=mail.example.org; spf=fail";
    let h = move_with(&mut w, id, &[passes]);
    assert_played(&mut w, id, &h);
}

#[test]
fn an_spf_pass_for_another_domain_without_dkim_is_refused() {
    let (mut w, id) = rink();
    let field = "mx.example.net; spf=pass smtp.mailfrom=mallory@evil.example; dkim=none";
    let h = move_with(&mut w, id, &[field]);
    assert_refused(&mut w, id, &h, "neither DKIM nor SPF passes aligned");
}

#[test]
fn two_fields_of_the_trusted_id_are_ignored() {
    let (mut w, id) = rink();
    let h = move_with(&mut w, id, &[DMARC_FAILS]);
    assert_refused(&mut w, id, &h, "DMARC");
    w.new_mail();
    // One is a stranger's; pbem cannot tell which, so neither counts.
    let passes = "mx.example.net; dmarc=pass header.from=example.org";
    let h = move_with(&mut w, id, &[passes, DMARC_FAILS]);
    assert_played(&mut w, id, &h);
}

#[test]
fn a_password_mail_failing_dmarc_is_refused() {
    let (mut w, id) = rink();
    let hash = pbem::password::hash("correct horse", &[9u8; 16]).unwrap();
    w.store
        .tx(|tx| tx.set_password_hash(ALICE, Some(&hash)))
        .unwrap();
    let subject = format!("[pbem #{id}] move");
    let mail = w.mail(
        ALICE,
        "gm@pbem.example",
        &subject,
        "PASSWORD correct horse\nb1 5/4",
    );
    let mut raw = format!("Authentication-Results: {DMARC_FAILS}\r\n").into_bytes();
    raw.extend_from_slice(&mail);
    let h = w.deliver(&raw).unwrap();
    assert_refused(&mut w, id, &h, "DMARC fails for example.org");
    assert_eq!(only_to(&w.new_mail(), ALICE).kind, "auth_refusal");
    // Without the field, the same words play.
    let mail = w.mail(
        ALICE,
        "gm@pbem.example",
        &subject,
        "PASSWORD correct horse\nb1 5/4",
    );
    let h = w.deliver(&mail).unwrap();
    assert_played(&mut w, id, &h);
}
