//! DKIM signatures checked by an independent verifier: Python's `dkimpy`, the public key served from the test's own "DNS" (a stub `dnsfunc`). Real pbem mails (a move's report with its HTML picture part, a plain answer) are signed as the sender sends them, with an ed25519 key and an RSA-2048 key (PKCS#8 and PKCS#1) made by `openssl`; a mail changed after signing fails. Without dkimpy or openssl the test says it is skipped, and fails instead under `PBEM_REQUIRE_DKIMPY` (which `scripts/test.sh` sets once it installed dkimpy).

use std::path::{Path, PathBuf};
use std::process::Command;

use pbem::config;

use crate::html_mail::{turn_report, TURN_REPORTS};

/// Reads each mail file named after the zone file, and prints per mail whether dkimpy
/// verifies it, the zone answering the key's TXT query.
const VERIFY: &str = r#"
import json, sys, dkim
zone = json.load(open(sys.argv[1]))
def dnsfunc(name, timeout=5):
    n = name.decode() if isinstance(name, bytes) else name
    return zone.get(n.rstrip('.'), '').encode()
for path in sys.argv[2:]:
    try:
        print(dkim.verify(open(path, 'rb').read(), dnsfunc=dnsfunc))
    except Exception as e:  # a key of another kind: PyNaCl raises rather than say False
        print('Error', e, file=sys.stderr)
        print(False)
"#;

/// A Python with `dkim` (dkimpy) to import: `PBEM_DKIMPY_PYTHON`, the venv `scripts/test.sh`
/// makes under target/, or the system's python3; None (skipped) when there is none, a
/// failure under `PBEM_REQUIRE_DKIMPY`.
fn dkimpy_or_skip(test: &str) -> Option<PathBuf> {
    let venv = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/dkimpy-venv/bin/python");
    let candidates = [
        std::env::var_os("PBEM_DKIMPY_PYTHON").map(PathBuf::from),
        Some(venv),
        Some(PathBuf::from("python3")),
    ];
    let found = candidates.into_iter().flatten().find(|py| {
        Command::new(py)
            .args(["-c", "import dkim, nacl"])
            .output()
            .is_ok_and(|o| o.status.success())
    });
    let openssl = Command::new("openssl")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if found.is_none() || !openssl {
        assert!(
            std::env::var_os("PBEM_REQUIRE_DKIMPY").is_none(),
            "PBEM_REQUIRE_DKIMPY is set but there is no python with dkimpy and PyNaCl, or no openssl"
        );
        eprintln!(
            "{test} skipped: no python with dkimpy (pip install 'dkimpy[ed25519]') or no openssl"
        );
        return None;
    }
    found
}

/// Runs `openssl` with `args` in `dir`.
fn openssl(dir: &Path, args: &[&str]) {
    let out = Command::new("openssl")
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "openssl {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The keys the test signs with, made in `dir`: (file, what it is).
fn make_keys(dir: &Path) -> Vec<(PathBuf, &'static str)> {
    openssl(dir, &["genpkey", "-algorithm", "ed25519", "-out", "ed.pem"]);
    openssl(
        dir,
        &[
            "genpkey",
            "-algorithm",
            "RSA",
            "-pkeyopt",
            "rsa_keygen_bits:2048",
            "-out",
            "rsa8.pem",
        ],
    );
    openssl(
        dir,
        &["rsa", "-in", "rsa8.pem", "-traditional", "-out", "rsa1.pem"],
    );
    vec![
        (dir.join("ed.pem"), "ed25519 PKCS#8"),
        (dir.join("rsa8.pem"), "RSA-2048 PKCS#8"),
        (dir.join("rsa1.pem"), "RSA-2048 PKCS#1"),
    ]
}

/// A config that signs with `key` as selector `sel`.
fn signing_config(dir: &Path, key: &Path, sel: &str) -> config::Config {
    let file = dir.join(format!("{sel}.toml"));
    std::fs::write(
        &file,
        format!(
            "address = \"gm@pbem.example\"\ndkim_selector = \"{sel}\"\ndkim_key = \"{}\"\n",
            key.display()
        ),
    )
    .unwrap();
    config::load(Some(&file), &|_| None).unwrap().0
}

/// dkimpy's verdict on each mail.
fn verify(py: &Path, dir: &Path, zone: &serde_json::Value, mails: &[Vec<u8>]) -> Vec<bool> {
    std::fs::write(dir.join("zone.json"), zone.to_string()).unwrap();
    std::fs::write(dir.join("verify.py"), VERIFY).unwrap();
    let mut cmd = Command::new(py);
    cmd.arg(dir.join("verify.py")).arg(dir.join("zone.json"));
    for (i, m) in mails.iter().enumerate() {
        let path = dir.join(format!("mail{i}.eml"));
        std::fs::write(&path, m).unwrap();
        cmd.arg(path);
    }
    let out = cmd.output().unwrap();
    assert!(
        out.status.success(),
        "dkimpy: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(|l| l == "True")
        .collect()
}

/// A world with a move's report (with its HTML part once drawn) and a plain answer to a
/// stranger queued, sent through the sender with `cfg`'s signer: the bytes the relay took.
fn signed_mails(cfg: &config::Config) -> Vec<Vec<u8>> {
    let (mut w, _report) = turn_report(TURN_REPORTS[1].1);
    let stranger = w.mail("stranger@example.org", "gm@pbem.example", "help", "HELP");
    w.deliver(&stranger);
    w.cfg.dkim = cfg.dkim.clone();
    w.send_due().into_iter().map(|m| m.bytes).collect()
}

#[test]
fn pbem_s_signatures_verify_with_dkimpy_and_a_changed_mail_fails() {
    let Some(py) = dkimpy_or_skip("pbem_s_signatures_verify_with_dkimpy_and_a_changed_mail_fails")
    else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    for (n, (key, what)) in make_keys(dir.path()).into_iter().enumerate() {
        let sel = format!("sel{n}");
        let cfg = signing_config(dir.path(), &key, &sel);
        let signer = cfg.dkim.clone().expect("a signer");
        assert_eq!(
            signer.record_name(),
            format!("{sel}._domainkey.pbem.example")
        );
        let zone = serde_json::json!({ signer.record_name(): signer.record_text() });
        let mails = signed_mails(&cfg);
        let texts: Vec<String> = mails
            .iter()
            .map(|m| String::from_utf8_lossy(m).into_owned())
            .collect();
        assert!(
            texts.iter().any(|t| t.contains("image/png")),
            "{what}: a mail with its picture"
        );
        assert!(
            texts.iter().any(|t| !t.contains("image/png")),
            "{what}: a mail without a picture"
        );
        assert!(
            texts.iter().all(|t| t.starts_with("DKIM-Signature: v=1;")),
            "{what}"
        );
        let verdicts = verify(&py, dir.path(), &zone, &mails);
        assert_eq!(
            verdicts,
            vec![true; mails.len()],
            "{what}: dkimpy verifies every mail"
        );
        // One changed letter in the body, or a changed subject, and the signature fails.
        let changed: Vec<Vec<u8>> = texts
            .iter()
            .take(2)
            .flat_map(|t| {
                let body_at = t.find("\r\n\r\n").unwrap() + 4;
                let mut body = t.clone();
                let c = body[body_at..]
                    .find(|c: char| c.is_ascii_alphabetic())
                    .unwrap()
                    + body_at;
                body.replace_range(c..c + 1, if &t[c..c + 1] == "x" { "y" } else { "x" });
                [
                    body.into_bytes(),
                    t.replacen("Subject: ", "Subject: Re: ", 1).into_bytes(),
                ]
            })
            .collect();
        assert_eq!(
            verify(&py, dir.path(), &zone, &changed),
            [false; 4],
            "{what}"
        );
        // A key other than the one published fails too.
        let other = serde_json::json!({ signer.record_name(): "v=DKIM1; k=ed25519; p=11qYAYKxCrfVS/7TyWQHOg7hcvPapiMlrwIaaPcHURo=" });
        assert_eq!(
            verify(&py, dir.path(), &other, &mails[..1]),
            [false],
            "{what}"
        );
    }
}

#[test]
fn a_key_that_does_not_load_stops_the_config() {
    let dir = tempfile::tempdir().unwrap();
    let load = |text: &str| {
        let file = dir.path().join("pbem.toml");
        std::fs::write(&file, text).unwrap();
        config::load(Some(&file), &|_| None)
            .map(|_| ())
            .map_err(|e| format!("{e:#}"))
    };
    std::fs::write(dir.path().join("junk.pem"), "not a key\n").unwrap();
    let junk = dir.path().join("junk.pem");
    let e = load(&format!(
        "dkim_selector = \"s1\"\ndkim_key = \"{}\"\n",
        junk.display()
    ))
    .unwrap_err();
    assert!(
        e.contains("dkim_key") && e.contains("no PEM private key"),
        "{e}"
    );
    let e = load("dkim_selector = \"s1\"\ndkim_key = \"/no/such/key.pem\"\n").unwrap_err();
    assert!(e.contains("cannot read it"), "{e}");
    let e = load("dkim_selector = \"s1\"\n").unwrap_err();
    assert!(e.contains("dkim_key is not"), "{e}");
    let e = load(&format!("dkim_key = \"{}\"\n", junk.display())).unwrap_err();
    assert!(e.contains("dkim_selector is not"), "{e}");
    assert!(load("").is_ok());
}

/// The public keys of tests/data/dkim's keys as openssl gives them (`openssl pkey -pubout
/// -outform DER`: ed25519's last 32 bytes, RSA's whole SubjectPublicKeyInfo), in base64.
const ED25519_PUBLIC: &str = "uYD5VRJ9+JbiaIqTituFEE9BdEXMTIl8ltA4x6B+454=";
const RSA_PUBLIC: &str = "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAmbdciIUZDD0RPxqsknbhrMEthrcpNJwKZSZvscH0CoJH8+08p1Jhycs0D5u8Q7EIXHn8AAJW99iDA8/Qr6X9b87wxC2lXJSNsWhwHy5p0DN8REH+L71zMMYI6l5Nwm0Srdylk1Hf3I+xUj+9LTK/uaSsuiLgXLxaUDTXR0hAFRqo3Gixk+0v0NZEHDusGnk4Do6mN2cxAHXugRZkclfG7lCYAYTnfX0mvtHwYCKvkkH8g+7NLvxTb+wZ2tIomq/kML2tW4lxjb3UnTjPqRoFdj4TjTwqaqZvnbM+OCqaQI1ZQKNEJrSsJjsCIznMsr9LXiwD+EGMpnSBelFRteZURQIDAQAB";

/// `pbem config check` with `toml` in `dir`: its exit code and what it printed.
fn config_check(dir: &Path, toml: &str) -> (i32, String) {
    std::fs::write(dir.join("pbem.toml"), toml).unwrap();
    let o = crate::common::pbem_command(dir, "g.sqlite")
        .env_remove("PBEM_ADDRESS")
        .env_remove("PBEM_OUTBOX_DIR")
        .args(["--config", "pbem.toml", "config", "check"])
        .output()
        .unwrap();
    (
        o.status.code().unwrap_or(-1),
        crate::common::output_text(&o),
    )
}

/// `config check` says in words what SPF, DKIM and DMARC ask of the GM's domain, with the
/// records to publish: the DKIM one computed from the key it was given (an RSA key's text
/// split into strings of 255), and that it cannot check what is published.
#[test]
fn config_check_shows_the_dns_records_to_publish() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let keys = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/dkim");
    let base = "address = \"gm@games.example\"\ntransport = \"smtp+starttls://smtp.relay.example:587\"\n                smtp_user = \"gm\"\nsmtp_password = \"pw\"\nadmin_address = \"me@home.example\"\n";
    let (code, out) = config_check(d, base);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("cannot check what is published"), "{out}");
    assert!(
        out.contains("games.example. IN TXT \"v=spf1 mx a:smtp.relay.example -all\""),
        "{out}"
    );
    assert!(out.contains("DKIM: pbem does not sign"), "{out}");
    assert!(out.contains("openssl genpkey"), "{out}");
    assert!(
        out.contains(
            "_dmarc.games.example. IN TXT \"v=DMARC1; p=quarantine; rua=mailto:me@home.example\""
        ),
        "{out}"
    );
    let ed = format!(
        "{base}dkim_selector = \"pbem1\"\ndkim_key = \"{}\"\n",
        keys.join("ed25519.pem").display()
    );
    let (code, out) = config_check(d, &ed);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(&format!(
            "pbem1._domainkey.games.example. IN TXT \"v=DKIM1; k=ed25519; p={ED25519_PUBLIC}\""
        )),
        "{out}"
    );
    assert!(out.contains("do not check ed25519"), "{out}");
    let rsa = format!(
        "{base}dkim_selector = \"pbem2\"\ndkim_key = \"{}\"\ndkim_domain = \"mail.games.example\"\n",
        keys.join("rsa2048.pem").display()
    );
    let (code, out) = config_check(d, &rsa);
    assert_eq!(code, 0, "{out}");
    let text = format!("v=DKIM1; k=rsa; p={RSA_PUBLIC}");
    let line = format!(
        "pbem2._domainkey.mail.games.example. IN TXT \"{}\" \"{}\"",
        &text[..255],
        &text[255..]
    );
    assert!(out.contains(&line), "{out}\nwanted {line}");
    // A key that does not load: the check says so and fails.
    std::fs::write(
        d.join("bad.pem"),
        "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n",
    )
    .unwrap();
    let (code, out) = config_check(
        d,
        &format!("{base}dkim_selector = \"s\"\ndkim_key = \"bad.pem\"\n"),
    );
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("dkim_key = \"bad.pem\""), "{out}");
}
