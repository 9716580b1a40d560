//! The GM's desk, configuration side: durations written with units everywhere, `config check` (SMTP logins, addresses, what the user cannot write, `--connect`), and what `serve` logs.

use std::path::Path;
use std::process::{Command, Output};

use pbem::games::GameKind;

use crate::common::{output_text as text, pbem_command, World};
use crate::mailstack;

/// `pbem ARGS` in `dir` with a config file of `toml` (and these variables).
fn with_config(dir: &Path, toml: &str, env: &[(&str, &str)], args: &[&str]) -> Output {
    std::fs::write(dir.join("pbem.toml"), toml).unwrap();
    let mut cmd = pbem_command(dir, "g.sqlite");
    cmd.env_remove("PBEM_ADDRESS")
        .env_remove("PBEM_OUTBOX_DIR")
        .env_remove("PBEM_SMTP_USER")
        .env_remove("PBEM_SMTP_PASSWORD")
        .env_remove("PBEM_POLL")
        .env_remove("PBEM_MOVE_TIME")
        .env_remove("PBEM_BUSY_TIMEOUT")
        .env_remove("PBEM_EARLY_RESOLVE")
        .args(["--config", "pbem.toml"])
        .args(args);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().unwrap()
}

fn check(dir: &Path, toml: &str, env: &[(&str, &str)]) -> Output {
    with_config(dir, toml, env, &["config", "check"])
}

/// Every duration the config, the environment or the command line takes is written with its
/// unit (`90m`, `3d`, `2h 30m`); a bare number is refused, and so is 0 where it means nothing.
#[test]
fn durations_need_units_everywhere_and_zero_only_where_it_means_none() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let ok = "[time]\nmove_time = \"2h 30m\"\nremind_before = \"0\"\nearly_resolve = \"90m\"\n\
              poll = \"5s\"\n[limits]\nrequest_ttl = \"3d\"\nretry_base = \"1m\"\n\
              busy_timeout = \"30s\"\n";
    let o = check(d, ok, &[]);
    assert!(o.status.success(), "{}", text(&o));
    let keys = [
        ("time", "move_time"),
        ("time", "remind_before"),
        ("time", "early_resolve"),
        ("time", "poll"),
        ("limits", "request_ttl"),
        ("limits", "retry_base"),
        ("limits", "busy_timeout"),
    ];
    for (section, key) in keys {
        let o = check(d, &format!("[{section}]\n{key} = \"30\"\n"), &[]);
        assert_eq!(o.status.code(), Some(2), "{key} = 30: {}", text(&o));
        assert!(text(&o).contains(key), "{key}: {}", text(&o));
        assert!(text(&o).contains("needs a unit"), "{key}: {}", text(&o));
    }
    // 0 is "none" for a reminder or a delay, and nonsense for these.
    for (section, key) in [keys[0], keys[3], keys[4], keys[5], keys[6]] {
        let o = check(d, &format!("[{section}]\n{key} = \"0\"\n"), &[]);
        assert_eq!(o.status.code(), Some(2), "{key} = 0: {}", text(&o));
        assert!(text(&o).contains("out of range"), "{key}: {}", text(&o));
    }
    let o = check(d, "[time]\nmove_time = \"0\"\n", &[]);
    assert!(text(&o).contains("\"off\""), "{}", text(&o));
    for (var, value) in [
        ("PBEM_POLL", "5"),
        ("PBEM_BUSY_TIMEOUT", "0"),
        ("PBEM_MOVE_TIME", "30"),
        ("PBEM_EARLY_RESOLVE", "10"),
    ] {
        let o = check(d, "", &[(var, value)]);
        assert_eq!(o.status.code(), Some(2), "{var}={value}: {}", text(&o));
    }
    // The command line and game options.
    assert!(with_config(d, "", &[], &["init"]).status.success());
    let new = |extra: &[&str]| {
        let mut args = vec!["game", "new", "d4d6", "--player", "WHITE=w@x.org"];
        args.extend(["--player", "BLACK=b@x.org"]);
        args.extend(extra);
        with_config(d, "", &[], &args)
    };
    for (extra, needle) in [
        (&["--move-time", "0"][..], "out of range"),
        (&["--move-time", "45"], "needs a unit"),
        (&["--option", "grace=30"], "needs a unit"),
        (&["--option", "salt_window=12"], "needs a unit"),
    ] {
        let o = new(extra);
        assert!(!o.status.success(), "{extra:?} was accepted");
        assert!(text(&o).contains(needle), "{extra:?}: {}", text(&o));
    }
    for extra in [
        &["--move-time", "2h 30m"][..],
        &["--option", "grace=0", "--option", "salt_window=0"],
        &["--option", "grace=1d 12h"],
    ] {
        let o = new(extra);
        assert!(o.status.success(), "{extra:?}: {}", text(&o));
    }
}

/// `config check` names what is wrong with the SMTP login and the addresses; a password is
/// never printed.
#[test]
fn config_check_says_what_is_wrong_with_logins_and_addresses() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let cases = [
        (
            "transport = \"smtps://mail.example.org\"\n",
            "no SMTP login, and a submission port (587, 465) asks for one",
        ),
        (
            "transport = \"smtp+starttls://me:pw@mail.example.org\"\nsmtp_user = \"x\"\n\
             smtp_password = \"y\"\n",
            "the user and the password both in the URL and in smtp_user/smtp_password",
        ),
        (
            "transport = \"smtps://mail.example.org\"\nsmtp_password = \"y\"\n",
            "an SMTP password but no user",
        ),
        (
            "transport = \"smtps://mail.example.org\"\nsmtp_user = \"x\"\n",
            "has no password",
        ),
        (
            "address = \"gm@example.org\"\nadmin_address = \"GM@example.org\"\n",
            "admin_address = \"gm@example.org\": it must differ from address",
        ),
    ];
    for (toml, needle) in cases {
        let o = check(d, toml, &[]);
        assert_eq!(o.status.code(), Some(1), "{toml}: {}", text(&o));
        assert!(text(&o).contains(needle), "{toml}: {}", text(&o));
        assert!(!text(&o).contains("pw@"), "{}", text(&o));
    }
    let keys = "transport = \"smtps://mail.example.org\"\nsmtp_user = \"gm\"\n\
                smtp_password = \"s3cret\"\n";
    let o = check(d, keys, &[]);
    assert!(o.status.success(), "{}", text(&o));
    let from_env = [("PBEM_SMTP_USER", "gm"), ("PBEM_SMTP_PASSWORD", "s3cret")];
    let o = check(d, "transport = \"smtps://mail.example.org\"\n", &from_env);
    assert!(o.status.success(), "{}", text(&o));
    let o = check(
        d,
        "transport = \"smtps://gm:s3cret@mail.example.org\"\n",
        &[],
    );
    assert!(o.status.success(), "{}", text(&o));
    assert!(!text(&o).contains("s3cret"), "{}", text(&o));
}

/// The uid that runs this test (the owner of a file it makes).
fn my_uid(dir: &Path) -> u32 {
    use std::os::unix::fs::MetadataExt as _;
    let probe = dir.join("uid-probe");
    std::fs::write(&probe, "").unwrap();
    std::fs::metadata(&probe).unwrap().uid()
}

/// A database, a spool and a Maildir the user running pbem cannot write are named. Root
/// writes anywhere, so as root the check runs as `nobody`; otherwise the folders are made
/// read-only.
#[test]
fn config_check_names_a_database_and_maildir_it_cannot_write() {
    use std::os::unix::fs::PermissionsExt;
    use std::os::unix::process::CommandExt as _;
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let data = d.join("data");
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(d.join("Maildir").join(sub)).unwrap();
    }
    std::fs::create_dir_all(&data).unwrap();
    let spool = data.join("pbem.sqlite-spool");
    for sub in ["new", "tmp"] {
        std::fs::create_dir_all(spool.join(sub)).unwrap();
    }
    std::fs::write(d.join("pbem.toml"), "maildir = \"Maildir\"\n").unwrap();
    let root = my_uid(d) == 0;
    let mode = |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m));
    mode(d, 0o755).unwrap();
    let locked = if root { 0o755 } else { 0o555 };
    let locked_folders = [
        spool.join("new"),
        spool.join("tmp"),
        spool.clone(),
        data.clone(),
        d.join("Maildir/new"),
        d.join("Maildir/cur"),
    ];
    for p in &locked_folders {
        mode(p, locked).unwrap();
    }
    let mut cmd = pbem_command(d, "data/pbem.sqlite");
    cmd.args(["--config", "pbem.toml", "config", "check"]);
    if root {
        cmd.uid(65534).gid(65534);
    }
    let o = cmd.output().unwrap();
    for p in locked_folders.iter().rev() {
        mode(p, 0o755).unwrap();
    }
    let out = text(&o);
    assert_eq!(o.status.code(), Some(1), "{out}");
    let db_line = format!(
        "database {}: its folder {} is not writable",
        data.join("pbem.sqlite").display(),
        data.display()
    );
    assert!(out.contains(&db_line), "{out}");
    assert!(
        out.contains("maildir = \"Maildir\": new/ is not writable"),
        "{out}"
    );
    assert!(
        out.contains("maildir = \"Maildir\": cur/ is not writable"),
        "{out}"
    );
    for sub in ["tmp", "new"] {
        let line = format!("spool {}: {sub}/ is not writable", spool.display());
        assert!(out.contains(&line), "{out}");
    }
    assert!(!out.contains("Maildir\": tmp/ is not writable"), "{out}");
    // A database folder that is not there.
    let o = Command::new(env!("CARGO_BIN_EXE_pbem"))
        .current_dir(d)
        .env("PBEM_DB", d.join("nowhere/pbem.sqlite"))
        .env_remove("PBEM_CONFIG")
        .args(["config", "check"])
        .output()
        .unwrap();
    assert!(text(&o).contains("nowhere does not exist"), "{}", text(&o));
}

/// `--connect` reports a server that is not there (always), and with the local mail server
/// (scripts/mailstack.sh) the login, a wrong password and the test of MAIL FROM / RCPT TO.
#[test]
fn config_check_connect_logs_in_and_asks_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let closed = format!("transport = \"smtp://127.0.0.1:{port}\"\n");
    let o = with_config(d, &closed, &[], &["config", "check", "--connect"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("cannot connect"), "{}", text(&o));

    let Some(root) =
        mailstack::root("desk_config::config_check_connect_logs_in_and_asks_the_server")
    else {
        return;
    };
    let port: u16 = std::env::var("PBEM_MAILSTACK_SUBMISSION_PORT")
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(2587);
    let ca = root.join("etc/cert.pem");
    let stack = |password: &str| {
        format!(
            "address = \"gm@localhost\"\nadmin_address = \"alice@localhost\"\n\
             transport = \"smtp+starttls://127.0.0.1:{port}\"\ntls_ca_file = \"{}\"\n\
             smtp_user = \"gm\"\nsmtp_password = \"{password}\"\n",
            ca.display()
        )
    };
    let o = with_config(
        d,
        &stack("gm-secret"),
        &[],
        &["config", "check", "--connect"],
    );
    let out = text(&o);
    assert!(o.status.success(), "{out}");
    assert!(out.contains("SMTP: STARTTLS ok"), "{out}");
    assert!(out.contains("SMTP: logged in as gm"), "{out}");
    assert!(
        out.contains("would take mail from gm@localhost to alice@localhost (nothing sent)"),
        "{out}"
    );
    // Without a login, the server itself says it wants one.
    let anonymous = format!(
        "address = \"gm@localhost\"\ntransport = \"smtp+starttls://127.0.0.1:{port}\"\n\
         tls_ca_file = \"{}\"\n",
        ca.display()
    );
    let o = with_config(d, &anonymous, &[], &["config", "check", "--connect"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(
        text(&o).contains("refuses mail from gm@localhost"),
        "{}",
        text(&o)
    );
    assert!(
        text(&o).contains("(set smtp_user and smtp_password)"),
        "{}",
        text(&o)
    );
    let o = with_config(d, &stack("wrong"), &[], &["config", "check", "--connect"]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert!(text(&o).contains("login as \"gm\" refused"), "{}", text(&o));
    assert!(
        !text(&o).contains("wrong"),
        "the password is never printed: {}",
        text(&o)
    );
}

/// `serve` logs at info by default, without colours into a file: its start (never a
/// password), each mail in and its fate, the plies played, a timer fired and the mails sent.
#[test]
fn serve_logs_its_start_and_each_action() {
    let mut w = World::new();
    let id = w.game(
        GameKind::DiceRink,
        &[("A", "alice@example.org"), ("B", "bob@example.org")],
        &[],
        None,
        Some(3600),
    );
    // A game whose deadline passed long ago, for a timer to fire in the pass (a move's
    // reminder waits half its move time).
    w.now = chrono::TimeZone::with_ymd_and_hms(&chrono::Utc, 2000, 1, 1, 0, 0, 0).unwrap();
    w.game(
        GameKind::DiceRink,
        &[("A", "carol@example.org"), ("B", "dave@example.org")],
        &[],
        None,
        Some(3600),
    );
    let to = w.seat_address(id, 0);
    let raw = w.mail("alice@example.org", &to, "Re: move", "b1 5/4");
    let d = w.dir.path();
    for sub in ["new", "cur", "tmp"] {
        std::fs::create_dir_all(d.join("Maildir").join(sub)).unwrap();
    }
    std::fs::write(d.join("Maildir/new/1.eml"), &raw).unwrap();
    let serve = |transport: &str| {
        pbem_command(d, "pbem.sqlite")
            .env("PBEM_ADDRESS", "gm@pbem.example")
            .env("PBEM_MAILDIR", d.join("Maildir"))
            .env("PBEM_TRANSPORT", transport)
            .env_remove("PBEM_LOG")
            .args(["serve", "--once"])
            .output()
            .unwrap()
    };
    let out_dir = format!("dir:{}", d.join("out").display());
    let o = serve(&out_dir);
    let log = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(o.status.success(), "{log}");
    let start = format!(
        "pbem {} started for gm@pbem.example: database {}, intake Maildir {}, transport {out_dir}, admin none",
        env!("CARGO_PKG_VERSION"),
        d.join("pbem.sqlite").display(),
        d.join("Maildir").display()
    );
    for want in [
        start.as_str(),
        "mail in from alice@example.org about game 1: move played: b1 5/4",
        "played in game 1: A: b1 5/4",
        "timer of game 2: deadline: A did not move; the GM and the players are told",
        "mail sent to bob@example.org (turn_report)",
        " INFO ",
    ] {
        assert!(log.contains(want), "{want:?} not in:\n{log}");
    }
    assert!(!log.contains('\u{1b}'), "no colours into a file:\n{log}");
    let o = serve("smtp://gm:s3cret@127.0.0.1:1");
    let log = String::from_utf8_lossy(&o.stderr).to_string();
    assert!(
        log.contains("transport smtp://gm@127.0.0.1:1 (no encryption)"),
        "{log}"
    );
    assert!(!log.contains("s3cret"), "{log}");
}
