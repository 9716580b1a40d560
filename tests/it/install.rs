//! The install path of README ("Install", "Run as a service"): a fresh system user runs contrib/pbem.service's `ExecStart` as systemd would (its user, environment, working folder and umask; no systemd needed) on a fresh database and Maildir, once as cron's `serve --once` and once as the daemon; and an MTA's `pbem ingest`, as another user in the service's group, writes the same database.
//!
//! Needs root (useradd); otherwise it writes "skipped: <why>", or fails when
//! `PBEM_REQUIRE_MAILSTACK` is set.

use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::mailstack;

const BIN: &str = env!("CARGO_BIN_EXE_pbem");
const TEST: &str = "install::the_service_unit_runs_as_a_fresh_user_on_a_fresh_database";

/// What the test takes from the unit: the `[Service]` keys systemd would apply.
struct Unit {
    exec_start: Vec<String>,
    user: String,
    environment: Vec<(String, String)>,
    working_directory: String,
    umask: String,
}

fn read_unit(text: &str) -> Unit {
    let key = |name: &str| -> Vec<String> {
        text.lines()
            .filter_map(|l| l.strip_prefix(&format!("{name}=")))
            .map(|v| v.trim().to_string())
            .collect()
    };
    let one = |name: &str| {
        let v = key(name);
        assert_eq!(v.len(), 1, "contrib/pbem.service: one {name}= expected");
        v[0].clone()
    };
    let environment = key("Environment")
        .iter()
        .flat_map(|v| v.split_whitespace())
        .map(|kv| {
            let (k, v) = kv.split_once('=').expect("Environment=K=V");
            (k.to_string(), v.to_string())
        })
        .collect();
    Unit {
        // No quotes nor specifiers in pbem's ExecStart: a split at spaces is systemd's split.
        exec_start: one("ExecStart")
            .split_whitespace()
            .map(str::to_string)
            .collect(),
        user: one("User"),
        environment,
        working_directory: one("WorkingDirectory"),
        umask: one("UMask"),
    }
}

/// A system user made for the test, removed with its group at the end.
struct FreshUser {
    name: String,
    uid: u32,
    gid: u32,
}

impl FreshUser {
    fn add(name: &str, extra_group: Option<&str>) -> FreshUser {
        let _ = Command::new("userdel")
            .arg(name)
            .stderr(Stdio::null())
            .status();
        let mut cmd = Command::new("useradd");
        cmd.args(["--system", "--user-group", "--no-create-home"])
            .args(["--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin"]);
        if let Some(g) = extra_group {
            cmd.args(["--groups", g]);
        }
        assert!(cmd.arg(name).status().unwrap().success(), "useradd {name}");
        let id = |flag: &str| -> u32 {
            let out = Command::new("id").args([flag, name]).output().unwrap();
            String::from_utf8_lossy(&out.stdout).trim().parse().unwrap()
        };
        FreshUser {
            name: name.to_string(),
            uid: id("-u"),
            gid: id("-g"),
        }
    }
}

impl Drop for FreshUser {
    fn drop(&mut self) {
        let _ = Command::new("userdel").arg(&self.name).status();
    }
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

fn chown(path: &Path, user: &FreshUser) {
    std::os::unix::fs::chown(path, Some(user.uid), Some(user.gid)).unwrap();
}

/// A HELP mail from `from` into the Maildir's new/, owned by the service user as a delivery
/// agent running as it would leave it.
fn deliver(maildir: &Path, from: &str, user: &FreshUser) {
    let path = maildir.join("new").join(format!("{from}.eml"));
    let raw = format!(
        "From: {from}\r\nTo: gm@localhost\r\nSubject: help\r\nMessage-ID: <{from}.install>\r\n\
         Date: Tue, 24 Nov 2026 12:00:00 +0000\r\n\r\nHELP\r\n"
    );
    std::fs::write(&path, raw).unwrap();
    chown(&path, user);
}

fn replies(out: &Path) -> usize {
    std::fs::read_dir(out)
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".eml"))
                .count()
        })
        .unwrap_or(0)
}

fn wait_for_replies(out: &Path, n: usize) {
    let start = Instant::now();
    while replies(out) < n {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "no reply {n} in {}",
            out.display()
        );
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The unit's command with its paths mapped into the test's folder, run as systemd would:
/// the unit's user (here the fresh one), its environment only, its folder and umask.
fn as_service(unit: &Unit, user: &FreshUser, map: &[(&str, PathBuf)], extra: &[&str]) -> Command {
    let mapped = |arg: &str| -> String {
        match map.iter().find(|(from, _)| *from == arg) {
            Some((_, to)) => to.display().to_string(),
            None => {
                assert!(
                    !arg.starts_with('/'),
                    "ExecStart path {arg} has no test place"
                );
                arg.to_string()
            }
        }
    };
    let argv: Vec<String> = unit.exec_start.iter().map(|a| mapped(a)).collect();
    // sh only sets the umask, then becomes pbem (exec): std's Command has no umask.
    let mut cmd = Command::new("/bin/sh");
    cmd.arg("-c")
        .arg(format!("umask {} && exec \"$@\"", unit.umask))
        .arg("sh")
        .args(&argv)
        .args(extra)
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .envs(unit.environment.iter().cloned())
        .current_dir(mapped(&unit.working_directory))
        .uid(user.uid)
        .gid(user.gid);
    cmd
}

use std::os::unix::process::CommandExt;

#[test]
fn the_service_unit_runs_as_a_fresh_user_on_a_fresh_database() {
    if !is_root() {
        mailstack::skip(TEST, "not root (the test adds system users)");
        return;
    }
    let unit_text = std::fs::read_to_string("contrib/pbem.service").unwrap();
    let unit = read_unit(&unit_text);
    assert_eq!(unit.user, "pbem");
    assert!(unit_text.contains("ProtectSystem=strict") && unit_text.contains("Restart=on-failure"));
    let tag = std::process::id() % 100_000;
    let service = FreshUser::add(&format!("pbem-it{tag}"), None);
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    std::fs::set_permissions(r, std::fs::Permissions::from_mode(0o755)).unwrap();
    // As README's install makes them: the binary, the config (root's, readable by the
    // group), the state folder (StateDirectory=, setgid and group-writable), a Maildir.
    let bin = r.join("bin/pbem");
    std::fs::create_dir_all(r.join("bin")).unwrap();
    std::fs::copy(BIN, &bin).unwrap();
    let state = r.join("state");
    let maildir = r.join("Maildir");
    let out = r.join("out");
    for d in [
        &state,
        &out,
        &maildir,
        &maildir.join("new"),
        &maildir.join("cur"),
        &maildir.join("tmp"),
    ] {
        std::fs::create_dir_all(d).unwrap();
        chown(d, &service);
    }
    std::fs::set_permissions(&state, std::fs::Permissions::from_mode(0o2770)).unwrap();
    std::fs::set_permissions(&out, std::fs::Permissions::from_mode(0o2770)).unwrap();
    let config = r.join("pbem.toml");
    std::fs::write(
        &config,
        format!(
            "address = \"gm@localhost\"\ndb = \"{}\"\nmaildir = \"{}\"\ntransport = \"dir:{}\"\n\n[time]\npoll = \"1s\"\n",
            state.join("pbem.sqlite").display(),
            maildir.display(),
            out.display()
        ),
    )
    .unwrap();
    std::os::unix::fs::chown(&config, Some(0), Some(service.gid)).unwrap();
    std::fs::set_permissions(&config, std::fs::Permissions::from_mode(0o640)).unwrap();
    let map = [
        ("/usr/local/bin/pbem", bin.clone()),
        ("/etc/pbem/pbem.toml", config.clone()),
        ("/var/lib/pbem", state.clone()),
    ];

    // Cron's line: `serve --once` reads the Maildir, answers, and exits 0.
    deliver(&maildir, "first@localhost", &service);
    let once = as_service(&unit, &service, &map, &["--once"])
        .output()
        .unwrap();
    assert!(
        once.status.success(),
        "serve --once: {}",
        String::from_utf8_lossy(&once.stderr)
    );
    assert_eq!(replies(&out), 1);
    let db = state.join("pbem.sqlite");
    let meta = std::fs::metadata(&db).unwrap();
    assert_eq!(
        meta.uid(),
        service.uid,
        "the database is the service user's"
    );
    assert_eq!(
        meta.mode() & 0o060,
        0o060,
        "group-writable (UMask=0007) for the MTA"
    );

    // The daemon, as systemd starts it: mail in, an answer out, a clean stop on SIGTERM.
    let mut daemon = as_service(&unit, &service, &map, &[])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    deliver(&maildir, "second@localhost", &service);
    wait_for_replies(&out, 2);

    // An MTA's pipe as another user in the service's group writes the same database while
    // the daemon runs (README: what the MTA pipe user needs).
    let mta = FreshUser::add(&format!("pbem-mta{tag}"), Some(&service.name));
    let mail = "From: third@localhost\r\nTo: gm@localhost\r\nSubject: help\r\nMessage-ID: <third.install>\r\n\r\nHELP\r\n";
    let mut ingest = Command::new("setpriv")
        .args([
            &format!("--reuid={}", mta.uid),
            &format!("--regid={}", mta.gid),
            &format!("--groups={}", service.gid),
            "--",
        ])
        .arg(&bin)
        .args(["--config", &config.display().to_string(), "ingest"])
        .env_clear()
        .current_dir("/")
        .stdin(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    ingest
        .stdin
        .take()
        .unwrap()
        .write_all(mail.as_bytes())
        .unwrap();
    let ingested = ingest.wait_with_output().unwrap();
    assert_eq!(
        ingested.status.code(),
        Some(0),
        "pbem ingest as the MTA's user: {}",
        String::from_utf8_lossy(&ingested.stderr)
    );
    wait_for_replies(&out, 3);

    let status = crate::common::sigterm_and_wait(&mut daemon, Duration::from_secs(15), String::new);
    let mut err = String::new();
    std::io::Read::read_to_string(&mut daemon.stderr.take().unwrap(), &mut err).unwrap();
    assert!(status.success(), "serve as the service: {status:?}\n{err}");
    assert!(
        err.contains("started for gm@localhost"),
        "PBEM_LOG=info logs the start: {err}"
    );
    assert_eq!(replies(&out), 3, "each mail answered once");
}

/// The binary an MTA starts once a mail is statically linked and at a fixed address
/// (`.cargo/config.toml`, `build.rs`): no program interpreter (the dynamic loader) and no
/// dynamic section, so a start maps one file and binds nothing. Read from its ELF program
/// headers; only where the static link is set (x86-64 Linux).
#[test]
fn the_binary_starts_with_no_dynamic_loader() {
    if !cfg!(all(
        target_arch = "x86_64",
        target_os = "linux",
        target_env = "gnu"
    )) {
        println!("skipped: the static link is set for x86-64 Linux only");
        return;
    }
    let elf = std::fs::read(BIN).expect("the pbem binary");
    assert_eq!(&elf[..5], b"\x7fELF\x02", "a 64-bit ELF file");
    let u16_at = |at: usize| usize::from(u16::from_le_bytes([elf[at], elf[at + 1]]));
    let phoff = u64::from_le_bytes(elf[0x20..0x28].try_into().unwrap()) as usize;
    let (entry_size, count) = (u16_at(0x36), u16_at(0x38));
    let types: Vec<u32> = (0..count)
        .map(|i| {
            let at = phoff + i * entry_size;
            u32::from_le_bytes(elf[at..at + 4].try_into().unwrap())
        })
        .collect();
    const PT_DYNAMIC: u32 = 2;
    const PT_INTERP: u32 = 3;
    assert!(!types.contains(&PT_INTERP), "an interpreter: {types:?}");
    assert!(!types.contains(&PT_DYNAMIC), "a dynamic section: {types:?}");
    // ET_EXEC (2), not ET_DYN: fixed addresses, nothing to relocate at start.
    assert_eq!(u16_at(0x10), 2, "a fixed-address executable");
}
