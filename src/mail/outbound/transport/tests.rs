//! Tests of the transports: URLs read, a folder, sendmail, memory.

use std::fs;

use super::*;
use crate::mail::outbound::message::tests::sample;
use crate::mail::outbound::smtp::{split_url, UrlParts};
use crate::mail::outbound::{build, url_credentials};
#[test]
fn the_memory_transport_takes_the_bytes_and_fails_when_told() {
    let recorder = Recorder::default();
    let transport = Transport::Memory(recorder.clone());
    recorder.fail_next(1, SendError::transient("451 try later"));
    let raw = RawMail::of(&sample()).unwrap();
    assert!(transport.send_raw(&raw).unwrap_err().transient);
    transport.send_raw(&raw).unwrap();
    assert_eq!(recorder.taken(), [raw]);
    assert_eq!(recorder.tries(), 2);
    assert_eq!(transport.to_string(), "memory");
}

#[test]
fn dir_transport_writes_one_sortable_file_per_mail_without_overwriting() {
    let folder = tempfile::tempdir().expect("tempdir");
    let transport = Transport::from_url(&format!("dir:{}", folder.path().display()), None).unwrap();
    let mut first = sample();
    first.message_id = "<first@pbem.example.org>".into();
    let mut second = sample();
    second.message_id = "<second@pbem.example.org>".into();
    transport.send(&first).unwrap();
    transport.send(&second).unwrap();
    transport.send(&first).unwrap(); // the same mail again must not replace the first copy

    let mut names: Vec<String> = fs::read_dir(folder.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    assert_eq!(names.len(), 3, "{names:?}");
    assert!(names.iter().all(|n| n.ends_with(".eml")), "{names:?}");
    assert!(
        names[0].ends_with("-first@pbem.example.org.eml"),
        "{names:?}"
    );
    assert!(
        names[1].ends_with("-second@pbem.example.org.eml"),
        "{names:?}"
    );
    assert!(names[2].contains("-first@pbem.example.org"), "{names:?}");
    let text = fs::read_to_string(folder.path().join(&names[1])).unwrap();
    assert!(text.contains("Message-ID: <second@pbem.example.org>"));
}

#[test]
fn write_to_folder_never_overwrites_on_a_name_clash() {
    let folder = tempfile::tempdir().expect("tempdir");
    let bytes = build(&sample()).unwrap().formatted();
    let paths: Vec<PathBuf> = (0..5)
        .map(|_| write_to_folder(folder.path(), &bytes, "<same@id>").unwrap())
        .collect();
    let mut unique = paths.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(unique.len(), 5);
    assert!(paths.iter().all(|p| p.exists()));
    let hidden = fs::read_dir(folder.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with('.')
        })
        .count();
    assert_eq!(hidden, 0, "temporary files are removed");
}

#[test]
fn a_bare_path_is_a_dir_transport() {
    for url in ["/var/spool/pbem/out", "./out", "out"] {
        match Transport::from_url(url, None).unwrap() {
            Transport::Dir(path) => assert_eq!(path, PathBuf::from(url)),
            other => panic!("{url}: {other:?}"),
        }
    }
}

#[test]
fn sendmail_urls() {
    let default = Transport::from_url("sendmail:", None).unwrap();
    assert!(matches!(default, Transport::Sendmail(ref p) if p == Path::new(DEFAULT_SENDMAIL)));
    let custom = Transport::from_url("sendmail:/opt/bin/msmtp", None).unwrap();
    assert!(matches!(custom, Transport::Sendmail(ref p) if p == Path::new("/opt/bin/msmtp")));
}

#[test]
fn smtp_urls_pick_security_port_and_credentials() {
    let parts = split_url("gm%40x:p%3Ass@mail.example.org:2587/?tls=starttls").unwrap();
    assert_eq!(
        parts,
        UrlParts {
            user: Some("gm@x".into()),
            password: Some("p:ss".into()),
            host: "mail.example.org".into(),
            port: Some(2587),
            tls: Some("starttls".into()),
        }
    );
    let cases = [
        (
            "smtp://u:p@127.0.0.1:2525",
            "smtp://u@127.0.0.1:2525 (no encryption)",
        ),
        (
            "smtp://u:p@localhost:2587?tls=starttls",
            "smtp://u@localhost:2587 (STARTTLS)",
        ),
        (
            "smtp+starttls://u:p@localhost",
            "smtp+starttls://u@localhost:587 (STARTTLS)",
        ),
        ("smtps://u:p@localhost", "smtps://u@localhost:465 (TLS)"),
        (
            "smtp://relay.example.org",
            "smtp://relay.example.org:25 (no encryption)",
        ),
    ];
    for (url, expected) in cases {
        let transport = Transport::from_url_with_env(url, None, &|_| None).unwrap();
        assert_eq!(transport.to_string(), expected, "{url}");
    }
}

#[test]
fn credentials_come_from_the_environment_unless_the_url_has_them() {
    let env = |name: &str| match name {
        ENV_SMTP_USER => Some("envuser".to_string()),
        ENV_SMTP_PASSWORD => Some("envpass".to_string()),
        _ => None,
    };
    let from_env = Transport::from_url_with_env("smtps://mail.example.org", None, &env);
    assert_eq!(
        from_env.unwrap().to_string(),
        "smtps://envuser@mail.example.org:465 (TLS)"
    );
    let from_url = Transport::from_url_with_env("smtps://me:pw@mail.example.org", None, &env);
    assert_eq!(
        from_url.unwrap().to_string(),
        "smtps://me@mail.example.org:465 (TLS)"
    );
    let no_password = |name: &str| (name == ENV_SMTP_USER).then(|| "envuser".to_string());
    assert!(Transport::from_url_with_env("smtps://mail.example.org", None, &no_password).is_err());
    let no_user = |name: &str| (name == ENV_SMTP_PASSWORD).then(|| "envpass".to_string());
    let e = Transport::from_url_with_env("smtps://mail.example.org", None, &no_user);
    assert!(e.unwrap_err().0.contains("no user"));
    // The config's keys stand where the environment would.
    let keys = Transport::from_url_with_credentials(
        "smtps://mail.example.org",
        None,
        Some("keyuser"),
        Some("keypass"),
    );
    assert_eq!(
        keys.unwrap().to_string(),
        "smtps://keyuser@mail.example.org:465 (TLS)"
    );
    assert_eq!(
        url_credentials("smtps://me:pw@mail.example.org"),
        (true, true)
    );
    assert_eq!(
        url_credentials("smtps://me@mail.example.org"),
        (true, false)
    );
    assert_eq!(
        url_credentials("sendmail:/usr/sbin/sendmail"),
        (false, false)
    );
    let nothing = |_: &str| None;
    assert_eq!(
        Transport::from_url_with_env("smtp://relay:2525", None, &nothing)
            .unwrap()
            .to_string(),
        "smtp://relay:2525 (no encryption)"
    );
}

#[test]
fn bad_urls_are_config_errors() {
    for url in [
        "imap://localhost",
        "smtp://",
        "smtp://host:99999",
        "smtp://host?tls=maybe",
        "smtp://host?color=blue",
        "smtps://host?tls=none",
        "dir:",
        "",
    ] {
        assert!(Transport::from_url(url, None).is_err(), "{url} accepted");
    }
    let missing = Path::new("/nonexistent/ca.pem");
    assert!(Transport::from_url("smtps://localhost", Some(missing)).is_err());
}

#[cfg(unix)]
fn fake_sendmail(folder: &Path, exit_code: i32) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let script = folder.join(format!("sendmail-{exit_code}"));
    let capture = folder.join("captured");
    fs::write(
        &script,
        format!(
            "#!/bin/sh\necho \"$@\" > '{0}.args'\ncat > '{0}.eml'\necho 'no luck' >&2\nexit {exit_code}\n",
            capture.display()
        ),
    )
    .unwrap();
    fs::set_permissions(&script, fs::Permissions::from_mode(0o755)).unwrap();
    script
}

#[cfg(unix)]
#[test]
fn sendmail_gets_envelope_and_message_and_exit_codes_are_classified() {
    let folder = tempfile::tempdir().unwrap();
    let ok = Transport::Sendmail(fake_sendmail(folder.path(), 0));
    ok.send(&sample()).unwrap();
    let args = fs::read_to_string(folder.path().join("captured.args")).unwrap();
    assert_eq!(
        args.trim(),
        "-i -f gm@example.org -- alice@example.org bob@example.org"
    );
    let eml = fs::read_to_string(folder.path().join("captured.eml")).unwrap();
    assert!(eml.contains("Message-ID: <1234abcd@pbem.example.org>"));

    let tempfail = Transport::Sendmail(fake_sendmail(folder.path(), 75));
    let err = tempfail.send(&sample()).unwrap_err();
    assert!(err.transient, "{err}");
    assert!(err.message.contains("no luck"), "{err}");

    let nouser = Transport::Sendmail(fake_sendmail(folder.path(), 67));
    assert!(!nouser.send(&sample()).unwrap_err().transient);

    let missing = Transport::Sendmail(folder.path().join("no-such-program"));
    assert!(missing.send(&sample()).unwrap_err().transient);
}

#[test]
fn an_unbuildable_mail_is_a_permanent_failure() {
    let folder = tempfile::tempdir().unwrap();
    let mut mail = sample();
    mail.to.clear();
    let err = Transport::Dir(folder.path().to_path_buf())
        .send(&mail)
        .unwrap_err();
    assert!(!err.transient);
}
