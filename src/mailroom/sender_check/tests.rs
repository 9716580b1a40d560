//! The verdict on the receiving server's word: trusted ids only, duplicates ignored, DMARC first, then DKIM and SPF alignment.

use super::*;
use crate::mail::inbound;

const TRUSTED: &str = "mx.example.net";

fn mail(from: &str, fields: &[&str]) -> Inbound {
    let mut raw = String::new();
    for f in fields {
        raw.push_str(&format!("Authentication-Results: {f}\r\n"));
    }
    raw.push_str(&format!(
        "From: <{from}>\r\nTo: gm@pbem.example\r\nSubject: s\r\n\r\nb1\r\n"
    ));
    inbound::parse(raw.as_bytes())
}

fn verdict(fields: &[&str]) -> Option<String> {
    forged(&mail("alice@example.org", fields), &[TRUSTED.to_string()])
}

#[test]
fn dmarc_decides_when_it_speaks_of_the_from() {
    let fail = verdict(&["mx.example.net; dmarc=fail header.from=example.org"]).unwrap();
    assert!(fail.contains("DMARC fails for example.org"), "{fail}");
    assert_eq!(
        verdict(&["mx.example.net; dmarc=pass header.from=Example.ORG; dkim=fail; spf=fail"]),
        None
    );
    // A DMARC verdict on another From says nothing of this one.
    assert!(verdict(&["mx.example.net; dmarc=pass header.from=evil.example; spf=fail"]).is_some());
}

#[test]
fn without_dmarc_dkim_or_spf_must_pass_aligned() {
    let both_fail = verdict(&[
        "mx.example.net; dkim=fail header.d=example.org; spf=fail smtp.mailfrom=a@example.org",
    ]);
    assert!(both_fail.unwrap().contains("neither DKIM nor SPF"));
    for passing in [
        "mx.example.net; dkim=pass header.d=example.org; spf=fail",
        "mx.example.net; dkim=pass header.d=mail.example.org; spf=none",
        "mx.example.net; dkim=pass header.i=@example.org",
        "mx.example.net; spf=pass smtp.mailfrom=bounce@lists.example.org; dkim=none",
        "mx.example.net; spf=pass smtp.mailfrom=example.org",
        "mx.example.net; dkim=temperror header.d=example.org; spf=fail",
        "mx.example.net; none",
        "mx.example.net; iprev=pass smtp.remote-ip=192.0.2.1",
    ] {
        assert_eq!(verdict(&[passing]), None, "{passing}");
    }
    for failing in [
        "mx.example.net; spf=pass smtp.mailfrom=a@evil.example; dkim=none",
        "mx.example.net; dkim=pass header.d=evil.example",
        "mx.example.net; dkim=pass header.d=example.org.evil.example",
    ] {
        assert!(verdict(&[failing]).is_some(), "{failing}");
    }
}

#[test]
fn only_a_trusted_id_found_once_counts() {
    let fail = "mx.example.net; dmarc=fail header.from=example.org";
    assert_eq!(
        verdict(&["other.example; dmarc=fail header.from=example.org"]),
        None
    );
    assert_eq!(verdict(&[" dmarc=fail header.from=example.org"]), None);
    assert_eq!(
        verdict(&["mx.example.net; dmarc=pass header.from=example.org", fail]),
        None
    );
    assert!(verdict(&[fail, "other.example; dmarc=pass header.from=example.org"]).is_some());
    assert_eq!(forged(&mail("alice@example.org", &[fail]), &[]), None);
}

#[test]
fn trusted_ids_pool_their_results() {
    let ids = [
        "dkim.example.net".to_string(),
        "dmarc.example.net".to_string(),
    ];
    let inb = mail(
        "alice@example.org",
        &[
            "dkim.example.net; dkim=pass header.d=example.org",
            "dmarc.example.net; dmarc=fail header.from=example.org",
        ],
    );
    assert!(forged(&inb, &ids).is_some());
}

#[test]
fn alignment_is_relaxed_but_never_across_a_public_suffix() {
    assert!(aligned("example.org", "EXAMPLE.org."));
    assert!(aligned("mail.example.org", "example.org"));
    assert!(aligned("mail.example.org", "www.example.org"));
    assert!(aligned("a.example.co.uk", "b.example.co.uk"));
    assert!(!aligned("example.co.uk", "evil.co.uk"));
    assert!(!aligned("example.org", "example.com"));
    assert!(!aligned("example.org", ""));
    assert!(!aligned("org", "evil.org"));
    assert!(!aligned("co.uk", "evil.co.uk"));
    assert!(aligned("ab.de", "ab.de"));
}
