//! `pbem config check [--connect]`: what is wrong with the configuration, whether the user running it can write the database, the Maildir and an outbox folder, and (with `--connect`) whether the SMTP server takes pbem's login and mail and the IMAP server its login and mailbox.

use std::path::Path;

use clap::Subcommand;

use super::{say, Exit};
use crate::config::{self, Config};
use crate::mail::imap::ImapSource;
use crate::mail::outbound::Transport;

#[derive(Debug, Subcommand)]
pub enum ConfigCmd {
    /// Check the configuration and say exactly what is wrong (exit 1 if anything is).
    Check {
        /// Also connect to the SMTP server (TLS, the login, and whether it would take a mail
        /// from `address` to `admin_address`; nothing is sent) and to the IMAP server (TLS,
        /// the login, the mailbox; nothing is marked).
        #[arg(long)]
        connect: bool,
    },
}

pub(super) fn run(cfg: &Config, db: &Path, cmd: ConfigCmd) -> anyhow::Result<Exit> {
    let ConfigCmd::Check { connect } = cmd;
    let mut problems = cfg.problems();
    problems.extend(access_problems(cfg, db));
    // The server's own answer is worth having even beside other problems (it settles whether
    // a login is needed); not for a transport that does not build (already a problem).
    if connect && cfg.transport().is_ok() {
        match connect_check(cfg) {
            Ok(said) => said.iter().for_each(|l| println!("{l}")),
            Err(e) => problems.push(e),
        }
    }
    if connect {
        if let Ok(Some(account)) = cfg.imap_account() {
            match ImapSource::check(&account) {
                Ok(said) => said.iter().for_each(|l| println!("IMAP: {l}")),
                Err(e) => problems.push(format!("IMAP: {e}")),
            }
        }
    }
    // What the domain should publish is worth reading whatever else is wrong.
    cfg.dns_advice().iter().for_each(|l| println!("{l}"));
    if !problems.is_empty() {
        for p in problems {
            say(&p);
        }
        return Ok(1);
    }
    println!(
        "configuration ok: address {}, transport {}, maildir {}, imap {}, database {}",
        cfg.address,
        config::hide_password(&cfg.transport),
        cfg.maildir
            .as_ref()
            .map_or("(none)".into(), |m| m.display().to_string()),
        cfg.imap_account()
            .ok()
            .flatten()
            .map_or("(none)".into(), |a| a.to_string()),
        db.display()
    );
    Ok(0)
}

/// What the user running this cannot write: the database (and its folder, where SQLite
/// keeps its journal), the spool's folders (`pbem ingest` writes each mail into tmp/ and
/// moves it to new/; `serve` and the worker delete it from new/), the Maildir's folders
/// (`serve` moves each mail from new/ to cur/) and a `dir:` transport's folder.
fn access_problems(cfg: &Config, db: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let folder = match db.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    if let Err(e) = writable_folder(folder) {
        out.push(format!(
            "database {}: its folder {} {e} (SQLite writes its journal beside it)",
            db.display(),
            folder.display()
        ));
    } else if db.exists() {
        if let Err(e) = std::fs::OpenOptions::new().read(true).write(true).open(db) {
            out.push(format!("database {}: cannot be written: {e}", db.display()));
        }
    }
    let spool = crate::mail::spool::dir(db);
    for sub in ["tmp", "new"] {
        let dir = spool.join(sub);
        if dir.is_dir() {
            if let Err(e) = writable_folder(&dir) {
                out.push(format!(
                    "spool {}: {sub}/ {e} (pbem ingest leaves each mail there)",
                    spool.display()
                ));
            }
        }
    }
    if let Some(m) = &cfg.maildir {
        // `serve` reads new/ and moves each mail to cur/; it writes nothing into tmp/.
        for sub in ["new", "cur"] {
            let dir = m.join(sub);
            if dir.is_dir() {
                if let Err(e) = writable_folder(&dir) {
                    out.push(format!("maildir = \"{}\": {sub}/ {e}", m.display()));
                }
            }
        }
    }
    if let Ok(Transport::Dir(dir)) = cfg.transport() {
        if dir.is_dir() {
            if let Err(e) = writable_folder(&dir) {
                out.push(format!("transport folder {}: {e}", dir.display()));
            }
        }
    }
    out
}

/// Whether a file can be made in `folder` by whoever runs this: tried, not guessed from the
/// mode bits (which say nothing of root, ACLs or a read-only mount).
fn writable_folder(folder: &Path) -> Result<(), String> {
    if !folder.is_dir() {
        return Err(match folder.exists() {
            true => "is not a folder".into(),
            false => "does not exist".into(),
        });
    }
    let probe = folder.join(format!(".pbem-config-check-{}", std::process::id()));
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&probe)
    {
        Ok(_) => {
            let _ = std::fs::remove_file(&probe);
            Ok(())
        }
        Err(e) => Err(format!("is not writable: {e}")),
    }
}

/// `--connect`: the transport's own check (an SMTP server: connect, TLS, log in, MAIL FROM
/// and RCPT TO, reset); other transports need no server.
fn connect_check(cfg: &Config) -> Result<Vec<String>, String> {
    let transport = cfg.transport().map_err(|e| e.to_string())?;
    let Transport::Smtp(relay) = &transport else {
        return Ok(vec![format!(
            "transport {transport}: no SMTP server to connect to"
        )]);
    };
    let to = cfg.admin_address.as_deref().unwrap_or(&cfg.address);
    relay
        .check(&cfg.address, to)
        .map(|lines| lines.into_iter().map(|l| format!("SMTP: {l}")).collect())
        .map_err(|e| format!("SMTP: {e}"))
}
