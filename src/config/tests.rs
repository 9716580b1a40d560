//! The config's tests: loading, overriding, and the checks' messages.

use super::*;

fn env_of(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
    move |k| {
        pairs
            .iter()
            .find(|(n, _)| *n == k)
            .map(|(_, v)| v.to_string())
    }
}

#[test]
fn environment_overrides_and_seat_addresses() {
    let (c, _) = load(
        None,
        &env_of(&[
            ("PBEM_ADDRESS", "GM@Example.org"),
            ("PBEM_OUTBOX_DIR", "/tmp/o"),
        ]),
    )
    .unwrap();
    assert_eq!(c.address, "gm@example.org");
    assert_eq!(c.transport, "dir:/tmp/o");
    assert_eq!(c.seat_address("abc"), "gm+abc@example.org");
    assert_eq!(c.token_in("GM+AbC@example.org").as_deref(), Some("abc"));
    assert_eq!(c.token_in("gm+abc@other.org"), None);
    assert_eq!(c.token_in("gm@example.org"), None);
    assert!(c.is_ours("gm@example.org"));
    assert!(!c.is_ours("alice@example.org"));
}

#[test]
fn imap_keys_make_an_account_and_their_problems_are_named() {
    let (c, _) = load(
        None,
        &env_of(&[
            ("PBEM_IMAP", "imaps://imap.example.org/Games"),
            ("PBEM_IMAP_USER", "gm@example.org"),
            ("PBEM_IMAP_PASSWORD", "app-password"),
            ("PBEM_IMAP_MOVE_TO", "Done"),
        ]),
    )
    .unwrap();
    let a = c.imap_account().unwrap().unwrap();
    assert_eq!(
        a.to_string(),
        "imaps://gm@example.org@imap.example.org:993/Games"
    );
    assert_eq!(a.move_to.as_deref(), Some("Done"));
    assert!(!format!("{c:?}").contains("app-password"));
    assert!(c.problems().is_empty(), "{:?}", c.problems());
    let (c, _) = load(None, &env_of(&[("PBEM_IMAP", "imap://gm:pw@host")])).unwrap();
    let problems = c.problems().join("\n");
    assert!(
        problems.contains("imap = \"imap://gm:***@host\""),
        "{problems}"
    );
    assert!(problems.contains("in clear"), "{problems}");
    let (c, _) = load(
        None,
        &env_of(&[
            ("PBEM_IMAP", "imaps://gm:pw@host"),
            ("PBEM_IMAP_PASSWORD", "other"),
        ]),
    )
    .unwrap();
    let problems = c.problems().join("\n");
    assert!(
        problems.contains("the password both in the URL"),
        "{problems}"
    );
    let (c, _) = load(None, &env_of(&[("PBEM_IMAP", "imaps://host")])).unwrap();
    assert!(c.problems().join("\n").contains("no IMAP login"));
}

#[test]
fn bad_file_says_what_is_wrong() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("pbem.toml");
    std::fs::write(&p, "adress = \"x\"\n").unwrap();
    let e = load(Some(&p), &|_| None).unwrap_err().to_string();
    assert!(e.contains("adress"), "{e}");
    std::fs::write(
        &p,
        "address = \"gm+x@example.org\"\n[time]\nmove_time = \"3 fortnights\"\n",
    )
    .unwrap();
    let e = load(Some(&p), &|_| None).unwrap_err().to_string();
    assert!(e.contains("move_time"), "{e}");
    std::fs::write(
        &p,
        "address = \"gm+x@example.org\"\ntransport = \"carrier-pigeon://x\"\n",
    )
    .unwrap();
    let (c, _) = load(Some(&p), &|_| None).unwrap();
    let problems = c.problems().join("\n");
    assert!(problems.contains("must not contain '+'"), "{problems}");
    assert!(problems.contains("transport"), "{problems}");
}

#[test]
fn the_cap_on_answers_to_strangers_is_read_checked_and_overridden() {
    let (c, _) = load(None, &|_| None).unwrap();
    assert_eq!(c.stranger_replies_per_hour, 30);
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("pbem.toml");
    std::fs::write(&p, "[limits]\nstranger_replies_per_hour = 4\n").unwrap();
    let (c, _) = load(Some(&p), &|_| None).unwrap();
    assert_eq!(c.stranger_replies_per_hour, 4);
    let problems = c.problems().join("\n");
    assert!(
        problems.contains("stranger_replies_per_hour = 4 is below unauth_replies_per_hour"),
        "{problems}"
    );
    let env = env_of(&[("PBEM_STRANGER_REPLIES_PER_HOUR", "0")]);
    let (c, _) = load(Some(&p), &env).unwrap();
    assert_eq!(c.stranger_replies_per_hour, 0);
    assert!(c.problems().is_empty(), "{:?}", c.problems());
    std::fs::write(&p, "[limits]\nstranger_replies_per_hour = -1\n").unwrap();
    let e = load(Some(&p), &|_| None).unwrap_err().to_string();
    assert!(
        e.contains("stranger_replies_per_hour = -1: must be from 0"),
        "{e}"
    );
    let env = env_of(&[("PBEM_STRANGER_REPLIES_PER_HOUR", "many")]);
    let e = load(None, &env).unwrap_err().to_string();
    assert!(e.contains("is not a number"), "{e}");
}

#[test]
fn passwords_are_not_printed() {
    assert_eq!(
        super::hide_password("smtp://gm:s3cret@127.0.0.1:2587?tls=starttls"),
        "smtp://gm:***@127.0.0.1:2587?tls=starttls"
    );
    assert_eq!(super::hide_password("dir:/tmp/out"), "dir:/tmp/out");
    assert_eq!(
        super::hide_password("smtps://relay.example"),
        "smtps://relay.example"
    );
}

#[test]
fn trusted_authserv_ids_are_read_from_the_file_or_the_environment() {
    let (c, _) = load(None, &|_| None).unwrap();
    assert!(c.trusted_authserv_ids.is_empty());
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("pbem.toml");
    std::fs::write(
        &p,
        "trusted_authserv_ids = [\"MX.Google.com\", \" \", \"mail.example.net\"]\n",
    )
    .unwrap();
    let (c, _) = load(Some(&p), &|_| None).unwrap();
    assert_eq!(
        c.trusted_authserv_ids,
        ["mx.google.com", "mail.example.net"]
    );
    let env = env_of(&[("PBEM_TRUSTED_AUTHSERV_IDS", "a.example, B.example")]);
    let (c, _) = load(Some(&p), &env).unwrap();
    assert_eq!(c.trusted_authserv_ids, ["a.example", "b.example"]);
    std::fs::write(&p, "trusted_authserv_ids = \"mx.google.com\"\n").unwrap();
    let e = load(Some(&p), &|_| None).unwrap_err().to_string();
    assert!(e.contains("trusted_authserv_ids"), "{e}");
}
