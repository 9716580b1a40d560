//! The reading of `Authentication-Results`: real fields from the large providers and the common MTAs, and hostile ones.

use super::*;
use proptest::prelude::*;

fn read(text: &str) -> AuthResults {
    parse(text.as_bytes())
}

/// (method, result, the named properties) of each result.
fn summary(ar: &AuthResults, keys: &[&str]) -> Vec<(String, String, Vec<Option<String>>)> {
    ar.results
        .iter()
        .map(|r| {
            let props = keys.iter().map(|k| r.prop(k).map(str::to_string)).collect();
            (r.method.clone(), r.result.clone(), props)
        })
        .collect()
}

#[test]
fn gmails_field_is_read() {
    let ar = read(
        " mx.google.com;\r\n       dkim=pass header.i=@fastmail.com header.s=fm3 header.b=Kx4aUZ2Z;\r\n       \
         arc=pass (i=1 spf=pass spfdomain=fastmail.com dkim=pass dkdomain=fastmail.com dmarc=pass fromdomain=fastmail.com);\r\n       \
         spf=pass (google.com: domain of alice@fastmail.com designates 103.168.172.150 as permitted sender) smtp.mailfrom=alice@fastmail.com;\r\n       \
         dmarc=pass (p=NONE sp=NONE dis=NONE) header.from=fastmail.com",
    );
    assert_eq!(ar.authserv_id.as_deref(), Some("mx.google.com"));
    let s = summary(&ar, &["header.i", "smtp.mailfrom", "header.from"]);
    let methods: Vec<_> = s.iter().map(|(m, r, _)| format!("{m}={r}")).collect();
    assert_eq!(methods, ["dkim=pass", "arc=pass", "spf=pass", "dmarc=pass"]);
    assert_eq!(s[0].2[0].as_deref(), Some("@fastmail.com"));
    assert_eq!(s[2].2[1].as_deref(), Some("alice@fastmail.com"));
    assert_eq!(s[3].2[2].as_deref(), Some("fastmail.com"));
    // A comment's words are no properties.
    assert!(ar.results[1].props.is_empty(), "{:?}", ar.results[1]);
}

#[test]
fn fastmails_field_is_read_with_its_policy_properties() {
    let ar = read(
        "mx6.messagingengine.com;\n    dkim=pass (2048-bit rsa key sha256) header.d=gmail.com \
         header.i=@gmail.com header.b=Q1w2E3r4 header.a=rsa-sha256 header.s=20230601 x-bits=2048;\n    \
         dmarc=pass policy.published-domain-policy=none policy.applied-disposition=none \
         policy.evaluated-disposition=none (p=none,d=none,d.eval=none) policy.policy-from=p header.from=gmail.com;\n    \
         iprev=pass smtp.remote-ip=209.85.128.41 (mail-wm1-f41.google.com);\n    \
         spf=pass smtp.mailfrom=bob@gmail.com smtp.helo=mail-wm1-f41.google.com;\n    \
         x-aligned-from=pass (Address match);\n    x-me-sender=none;\n    \
         x-tls=pass smtp.version=TLSv1.3 smtp.cipher=TLS_AES_256_GCM_SHA384 smtp.bits=256/256;\n    \
         x-vs=clean score=-100 state=0",
    );
    assert_eq!(ar.authserv_id.as_deref(), Some("mx6.messagingengine.com"));
    let dkim = ar.of("dkim").next().unwrap();
    assert_eq!(dkim.prop("header.d"), Some("gmail.com"));
    assert_eq!(dkim.prop("header.i"), Some("@gmail.com"));
    let dmarc = ar.of("dmarc").next().unwrap();
    assert_eq!(dmarc.result, "pass");
    assert_eq!(dmarc.prop("policy.published-domain-policy"), Some("none"));
    assert_eq!(dmarc.prop("header.from"), Some("gmail.com"));
    let spf = ar.of("spf").next().unwrap();
    assert_eq!(spf.prop("smtp.mailfrom"), Some("bob@gmail.com"));
    assert_eq!(spf.prop("smtp.helo"), Some("mail-wm1-f41.google.com"));
    assert_eq!(ar.of("x-me-sender").next().unwrap().result, "none");
    assert_eq!(ar.results.len(), 8);
}

#[test]
fn microsofts_field_has_no_authserv_id() {
    let ar = read(
        " spf=pass (sender IP is 209.85.221.41) smtp.mailfrom=example.org; dkim=pass (signature was \
         verified) header.d=example.org;dmarc=pass action=none header.from=example.org;compauth=pass reason=100",
    );
    assert_eq!(ar.authserv_id, None);
    let s = summary(&ar, &["smtp.mailfrom", "header.d", "header.from", "action"]);
    let methods: Vec<_> = s.iter().map(|(m, r, _)| format!("{m}={r}")).collect();
    assert_eq!(
        methods,
        ["spf=pass", "dkim=pass", "dmarc=pass", "compauth=pass"]
    );
    assert_eq!(s[0].2[0].as_deref(), Some("example.org"));
    assert_eq!(s[1].2[1].as_deref(), Some("example.org"));
    assert_eq!(s[2].2[2].as_deref(), Some("example.org"));
    assert_eq!(s[2].2[3].as_deref(), Some("none"));
    assert_eq!(ar.results[3].reason.as_deref(), Some("100"));
}

#[test]
fn rspamds_field_behind_opensmtpd_is_read() {
    let ar = read(
        "mail.example.net;\n\tdkim=pass header.d=example.org header.s=default header.b=abcd1234;\n\t\
         spf=pass (mail.example.net: domain of \"alice@example.org\" designates 192.0.2.1 as permitted sender) \
         smtp.mailfrom=alice@example.org;\n\tdmarc=fail reason=\"No valid SPF, No valid DKIM\" \
         header.from=example.org (policy=reject)",
    );
    assert_eq!(ar.authserv_id.as_deref(), Some("mail.example.net"));
    let dmarc = ar.of("dmarc").next().unwrap();
    assert_eq!(dmarc.result, "fail");
    assert_eq!(dmarc.reason.as_deref(), Some("No valid SPF, No valid DKIM"));
    assert_eq!(dmarc.prop("header.from"), Some("example.org"));
    assert_eq!(
        ar.of("spf").next().unwrap().prop("smtp.mailfrom"),
        Some("alice@example.org")
    );
}

#[test]
fn postfix_opendkim_and_opendmarc_fields_are_read() {
    let dkim = read(
        "mail.example.net; dkim=pass (2048-bit key; unprotected) header.d=example.org \
         header.i=@example.org header.b=\"AbCd+/Ef\"; dkim-atps=neutral",
    );
    assert_eq!(dkim.authserv_id.as_deref(), Some("mail.example.net"));
    assert_eq!(dkim.results.len(), 2);
    assert_eq!(dkim.results[0].prop("header.b"), Some("AbCd+/Ef"));
    assert_eq!(dkim.results[1].method, "dkim-atps");
    let dmarc = read("mail.example.net; dmarc=fail (p=reject dis=none) header.from=example.org");
    assert_eq!(dmarc.results[0].result, "fail");
    assert_eq!(dmarc.results[0].prop("header.from"), Some("example.org"));
    let spf = read("mail.example.net; spf=pass smtp.mailfrom=example.org");
    assert_eq!(spf.results[0].prop("smtp.mailfrom"), Some("example.org"));
}

#[test]
fn the_grammars_corners_are_read() {
    // A version after the id, a quoted id, keywords in capitals, a method version, spaces
    // around `=` and `.`, a comment inside a comment, and `none`.
    let ar = read("\"Mx.Example.NET\" 1; DKIM/1 = Pass header . D = Example.org (a (nested) note); SPF=NEUTRAL");
    assert_eq!(ar.authserv_id.as_deref(), Some("mx.example.net"));
    assert_eq!(ar.results.len(), 2, "{ar:?}");
    assert_eq!(ar.results[0].method, "dkim");
    assert_eq!(ar.results[0].result, "pass");
    assert_eq!(ar.results[0].prop("header.d"), Some("Example.org"));
    assert_eq!(ar.results[1].result, "neutral");
    let none = read("mx.example.net 1; none");
    assert_eq!(none.authserv_id.as_deref(), Some("mx.example.net"));
    assert!(none.results.is_empty());
    // An id of digits is an id, not a version.
    assert_eq!(
        read("12345; spf=pass").authserv_id.as_deref(),
        Some("12345")
    );
}

#[test]
fn junk_between_results_is_skipped_to_the_next_semicolon() {
    let ar =
        read("mx.example.net; ))) === \"open; dkim=fail\"; =pass; spf=pass smtp.mailfrom=a@b.c");
    assert_eq!(ar.authserv_id.as_deref(), Some("mx.example.net"));
    let spf = ar.of("spf").next().unwrap();
    assert_eq!(spf.prop("smtp.mailfrom"), Some("a@b.c"));
    assert!(ar.of("dkim").next().is_none(), "{ar:?}");
}

#[test]
fn a_huge_field_is_read_only_so_far_and_so_many_results() {
    let many = format!(
        "mx.example.net{}",
        "; dkim=pass header.d=x.example".repeat(100_000)
    );
    let ar = read(&many);
    assert!(ar.results.len() <= MAX_RESULTS);
    let props = format!(
        "mx.example.net; dkim=pass{}",
        " header.d=x.example".repeat(1000)
    );
    assert!(read(&props).results[0].props.len() <= MAX_PROPS);
    let nested = format!("mx.example.net; {}", "(".repeat(1 << 20));
    assert!(read(&nested).results.is_empty());
    let fields: Vec<&[u8]> = vec![b"a; spf=pass"; 1000];
    assert_eq!(parse_all(fields.into_iter()).len(), MAX_HEADERS);
}

proptest! {
    #[test]
    fn any_bytes_are_read_without_panic(bytes in proptest::collection::vec(any::<u8>(), 0..2000)) {
        let ar = parse(&bytes);
        prop_assert!(ar.results.len() <= MAX_RESULTS);
        prop_assert!(ar.results.iter().all(|r| r.props.len() <= MAX_PROPS));
    }

    #[test]
    fn fields_of_its_own_alphabet_are_read_without_panic(
        text in "[a-z.; =()\"\\\\/@0-9\t\r\n-]{0,400}"
    ) {
        let ar = read(&text);
        prop_assert!(ar.results.iter().all(|r| !r.method.is_empty() && !r.result.is_empty()));
    }
}
