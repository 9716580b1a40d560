//! Configuration: one `pbem.toml` with environment overrides (`PBEM_*`), checked with exact messages.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};

use crate::duration::Range;
use crate::mail::imap::ImapAccount;
use crate::mail::outbound::{self, ENV_SMTP_PASSWORD, ENV_SMTP_USER};
use serde::Deserialize;

/// A secret setting (the SMTP password): its `Debug` shows `***`, so no log of a `Config`
/// prints it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(pub String);

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

/// Everything the mail game master needs to know, after file and environment are merged.
#[derive(Debug, Clone)]
pub struct Config {
    /// The GM's address, e.g. `gm@example.org`; seat reply addresses are `gm+TOKEN@example.org`.
    pub address: String,
    /// The name shown in From: (`pbem game master`).
    pub name: String,
    /// Where inbound mail arrives for `pbem serve` (a Maildir with new/ cur/ tmp/).
    pub maildir: Option<PathBuf>,
    /// A mailbox `pbem serve` reads over IMAP: `imaps://host[:port][/MAILBOX]` or
    /// `imap+starttls://...` (`imap`, `PBEM_IMAP`).
    pub imap: Option<String>,
    /// The IMAP login when the URL has none (`imap_user`, `PBEM_IMAP_USER`).
    pub imap_user: Option<String>,
    /// Its password (`imap_password`, `PBEM_IMAP_PASSWORD`); never printed.
    pub imap_password: Option<Secret>,
    /// A folder stored IMAP mail is moved to (`imap_move_to`, `PBEM_IMAP_MOVE_TO`); without
    /// it, stored mail stays where it is, flagged.
    pub imap_move_to: Option<String>,
    /// Outbound transport URL: `dir:/path`, `smtp://...`, `smtps://...`, `sendmail:/usr/sbin/sendmail`.
    pub transport: String,
    /// A PEM certificate to trust for SMTP and IMAP TLS in addition to Mozilla's roots.
    pub tls_ca_file: Option<PathBuf>,
    /// The SMTP login when the transport URL has none (`smtp_user`, `PBEM_SMTP_USER`).
    pub smtp_user: Option<String>,
    /// Its password (`smtp_password`, `PBEM_SMTP_PASSWORD`); never printed.
    pub smtp_password: Option<Secret>,
    /// A folder of templates overriding the embedded defaults, file by file.
    pub templates_dir: Option<PathBuf>,
    /// Largest inbound mail accepted (bytes); larger ones are recorded, not answered.
    pub max_message_bytes: usize,
    /// Mail a single address may be sent per hour; more is held in the outbox (never
    /// dropped) until the hour allows it.
    pub replies_per_hour: i64,
    /// Answers per hour to mail that proves no seat (no secret address, no password) from one
    /// address: past it such mail is stored and not answered, so forged mail "from" a player
    /// cannot use up that player's replies.
    pub unauth_replies_per_hour: i64,
    /// Answers per hour to mail that proves no seat from addresses that have no seat, all of
    /// them together (`stranger_replies_per_hour`, `PBEM_STRANGER_REPLIES_PER_HOUR`): past
    /// it such mail is stored and not answered, and the GM is told once an hour, so forged
    /// senders cannot make pbem a reflector however many addresses they forge.
    pub stranger_replies_per_hour: i64,
    /// Lines of a mail read (past it: "N more lines not read").
    pub max_lines: usize,
    /// Commands run per mail.
    pub max_commands: usize,
    /// Size of a reply body (bytes); the rest is summarised.
    pub max_reply_bytes: usize,
    /// Mails one inbound mail may queue (the reply, reports, press, notices).
    pub max_mails_per_message: usize,
    /// Salts one game takes in all, from all its players.
    pub max_salts_per_game: usize,
    /// NEW and JOIN requests one address may have waiting for confirmation.
    pub max_pending_requests: i64,
    /// How long a NEW or JOIN request waits for its confirmation, seconds.
    pub request_ttl_secs: i64,
    /// Failed token or password attempts per address per hour before its mail is no longer
    /// answered (the GM is told).
    pub max_auth_failures: i64,
    /// Where GM notices go (timeouts, forfeits, quarantined games, throttled addresses);
    /// never `address` itself. None: they stay in the event log (`pbem inbox`, the log).
    pub admin_address: Option<String>,
    /// Default time limit per move / turn for new games, seconds (none: no clock).
    pub move_secs: Option<i64>,
    /// How long before a deadline the reminder goes out, seconds.
    pub remind_before_secs: i64,
    /// Simultaneous games: once every seat has ordered, wait this long before adjudicating.
    pub early_resolve_secs: i64,
    /// Outbox: first retry delay (doubles per attempt) and the attempts before giving up.
    pub retry_base_secs: i64,
    pub max_attempts: i64,
    /// `pbem serve`: seconds between polls of the Maildir and timers.
    pub poll_secs: u64,
    /// How long a command waits for another process's write lock on the database before it
    /// gives up (`pbem ingest` then exits 75; `pbem serve` retries later), seconds.
    pub busy_timeout_secs: u64,
}

/// The file as written by the GM; every field optional (defaults apply).
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    address: Option<String>,
    name: Option<String>,
    db: Option<PathBuf>,
    maildir: Option<PathBuf>,
    imap: Option<String>,
    imap_user: Option<String>,
    imap_password: Option<String>,
    imap_move_to: Option<String>,
    transport: Option<String>,
    tls_ca_file: Option<PathBuf>,
    smtp_user: Option<String>,
    smtp_password: Option<String>,
    templates_dir: Option<PathBuf>,
    admin_address: Option<String>,
    #[serde(default)]
    limits: Limits,
    #[serde(default)]
    time: Times,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Limits {
    max_message_bytes: Option<i64>,
    replies_per_hour: Option<i64>,
    unauth_replies_per_hour: Option<i64>,
    stranger_replies_per_hour: Option<i64>,
    max_lines: Option<i64>,
    max_commands: Option<i64>,
    max_reply_bytes: Option<i64>,
    max_mails_per_message: Option<i64>,
    max_salts_per_game: Option<i64>,
    max_pending_requests: Option<i64>,
    request_ttl: Option<String>,
    max_auth_failures: Option<i64>,
    max_attempts: Option<i64>,
    retry_base: Option<String>,
    busy_timeout: Option<String>,
}

/// A number from the config within `min..=max`, or its default; the error names the key.
fn count(key: &str, value: Option<i64>, default: i64, min: i64, max: i64) -> anyhow::Result<i64> {
    match value {
        None => Ok(default),
        Some(v) if (min..=max).contains(&v) => Ok(v),
        Some(v) => Err(anyhow!("limits.{key} = {v}: must be from {min} to {max}")),
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Times {
    move_time: Option<String>,
    remind_before: Option<String>,
    early_resolve: Option<String>,
    poll: Option<String>,
}

/// Reads the config: the file (`--config`, else `pbem.toml` if present), then `PBEM_*`
/// variables over it. `env` is passed in so tests need not touch the process environment.
pub fn load(
    file: Option<&Path>,
    env: &dyn Fn(&str) -> Option<String>,
) -> anyhow::Result<(Config, Option<PathBuf>)> {
    let fc = match file {
        Some(p) => read_file(p)?,
        None if Path::new("pbem.toml").exists() => read_file(Path::new("pbem.toml"))?,
        None => FileConfig::default(),
    };
    let dur = |what: &str, v: Option<String>, default: i64, range| -> anyhow::Result<i64> {
        v.map(|s| crate::duration::parse(&s, range).map_err(|e| anyhow!("{what} = \"{s}\": {e}")))
            .transpose()
            .map(|o| o.unwrap_or(default))
    };
    let lim = &fc.limits;
    let env_bytes = env_number(env, "PBEM_MAX_MESSAGE_BYTES", lim.max_message_bytes)?;
    let (unauth_replies_per_hour, stranger_replies_per_hour) = answer_limits(lim, env)?;
    let admin_address = env("PBEM_ADMIN_ADDRESS")
        .or(fc.admin_address)
        .map(|a| a.trim().to_ascii_lowercase())
        .filter(|a| !a.is_empty());
    let address = env("PBEM_ADDRESS")
        .or(fc.address)
        .unwrap_or_else(|| "gm@localhost".into())
        .trim()
        .to_ascii_lowercase();
    let transport = env("PBEM_TRANSPORT")
        .or_else(|| env("PBEM_OUTBOX_DIR").map(|d| format!("dir:{d}")))
        .or(fc.transport)
        .unwrap_or_else(|| "dir:outbox".into());
    let move_time = env("PBEM_MOVE_TIME").or(fc.time.move_time);
    let cfg = Config {
        address,
        name: env("PBEM_NAME")
            .or(fc.name)
            .unwrap_or_else(|| "pbem game master".into()),
        maildir: env("PBEM_MAILDIR").map(PathBuf::from).or(fc.maildir),
        imap: env("PBEM_IMAP")
            .or(fc.imap)
            .filter(|u| !u.trim().is_empty()),
        imap_user: env("PBEM_IMAP_USER").or(fc.imap_user),
        imap_password: env("PBEM_IMAP_PASSWORD").or(fc.imap_password).map(Secret),
        imap_move_to: env("PBEM_IMAP_MOVE_TO").or(fc.imap_move_to),
        transport,
        tls_ca_file: env("PBEM_TLS_CA_FILE")
            .map(PathBuf::from)
            .or(fc.tls_ca_file),
        smtp_user: env(ENV_SMTP_USER).or(fc.smtp_user),
        smtp_password: env(ENV_SMTP_PASSWORD).or(fc.smtp_password).map(Secret),
        templates_dir: env("PBEM_TEMPLATES")
            .map(PathBuf::from)
            .or(fc.templates_dir),
        max_message_bytes: count("max_message_bytes", env_bytes, 1 << 20, 4096, 64 << 20)? as usize,
        replies_per_hour: count("replies_per_hour", lim.replies_per_hour, 60, 1, 10_000)?,
        unauth_replies_per_hour,
        stranger_replies_per_hour,
        max_lines: count("max_lines", lim.max_lines, 200, 10, 10_000)? as usize,
        max_commands: count("max_commands", lim.max_commands, 40, 1, 1_000)? as usize,
        max_reply_bytes: count(
            "max_reply_bytes",
            lim.max_reply_bytes,
            64 << 10,
            4096,
            1 << 20,
        )? as usize,
        max_mails_per_message: count(
            "max_mails_per_message",
            lim.max_mails_per_message,
            16,
            2,
            200,
        )? as usize,
        max_salts_per_game: count("max_salts_per_game", lim.max_salts_per_game, 32, 1, 1_000)?
            as usize,
        max_pending_requests: count("max_pending_requests", lim.max_pending_requests, 3, 1, 100)?,
        request_ttl_secs: dur(
            "limits.request_ttl",
            lim.request_ttl.clone(),
            3 * 86_400,
            Range::new(3600, 30 * 86_400, false),
        )?,
        max_auth_failures: count("max_auth_failures", lim.max_auth_failures, 5, 1, 1_000)?,
        admin_address,
        move_secs: move_secs(move_time)?,
        remind_before_secs: dur(
            "remind_before",
            fc.time.remind_before,
            24 * 3600,
            Range::UP_TO_A_MONTH,
        )?,
        early_resolve_secs: dur(
            "early_resolve",
            env("PBEM_EARLY_RESOLVE").or(fc.time.early_resolve),
            600,
            Range::UP_TO_A_WEEK,
        )?,
        retry_base_secs: dur("retry_base", lim.retry_base.clone(), 60, Range::RETRY)?,
        max_attempts: count("max_attempts", lim.max_attempts, 8, 1, 100)?,
        poll_secs: dur("poll", env("PBEM_POLL").or(fc.time.poll), 5, Range::POLL)? as u64,
        busy_timeout_secs: dur(
            "busy_timeout",
            env("PBEM_BUSY_TIMEOUT").or(fc.limits.busy_timeout.clone()),
            30,
            Range::new(1, 600, false),
        )? as u64,
    };
    // The file's `db` applies unless --db / PBEM_DB gave one (the caller decides).
    Ok((cfg, fc.db))
}

/// The hourly answers to mail that proves no seat: per address, and for all strangers
/// together.
fn answer_limits(lim: &Limits, env: &dyn Fn(&str) -> Option<String>) -> anyhow::Result<(i64, i64)> {
    let strangers = env_number(
        env,
        "PBEM_STRANGER_REPLIES_PER_HOUR",
        lim.stranger_replies_per_hour,
    )?;
    Ok((
        count(
            "unauth_replies_per_hour",
            lim.unauth_replies_per_hour,
            10,
            0,
            1_000,
        )?,
        count("stranger_replies_per_hour", strangers, 30, 0, 10_000)?,
    ))
}

/// A number from a `PBEM_*` variable, else the file's.
fn env_number(
    env: &dyn Fn(&str) -> Option<String>,
    name: &str,
    file: Option<i64>,
) -> anyhow::Result<Option<i64>> {
    match env(name) {
        Some(v) => {
            Ok(Some(v.trim().parse::<i64>().map_err(|_| {
                anyhow!("{name} = \"{v}\" is not a number")
            })?))
        }
        None => Ok(file),
    }
}

/// The default time per move for new games: a duration, or `off` (none).
fn move_secs(text: Option<String>) -> anyhow::Result<Option<i64>> {
    match text {
        Some(t) if t.trim() != "off" => Ok(Some(
            crate::duration::parse(&t, Range::MOVE_TIME)
                .map_err(|e| anyhow!("move_time = \"{t}\": {e} (\"off\": no clock)"))?,
        )),
        _ => Ok(None),
    }
}

fn read_file(path: &Path) -> anyhow::Result<FileConfig> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read the config file {}", path.display()))?;
    toml::from_str(&text).map_err(|e| anyhow!("{}: {e}", path.display()))
}

/// The process environment, ignoring empty values.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

impl Config {
    /// The outbound transport this config names (the password never appears in an error).
    pub fn transport(&self) -> anyhow::Result<outbound::Transport> {
        let (user, password) = self.smtp_login();
        outbound::Transport::from_url_with_credentials(
            &self.transport,
            self.tls_ca_file.as_deref(),
            user,
            password,
        )
        .map_err(|e| anyhow!("transport = \"{}\": {e}", hide_password(&self.transport)))
    }

    /// The IMAP account `imap` names, if any (the password never appears in an error).
    pub fn imap_account(&self) -> anyhow::Result<Option<ImapAccount>> {
        let Some(url) = &self.imap else {
            return Ok(None);
        };
        ImapAccount::new(
            url,
            self.imap_user.as_deref().filter(|u| !u.is_empty()),
            self.imap_password
                .as_ref()
                .map(|p| p.0.as_str())
                .filter(|p| !p.is_empty()),
            self.tls_ca_file.clone(),
            self.imap_move_to.as_deref(),
        )
        .map(Some)
        .map_err(|e| anyhow!("imap = \"{}\": {e}", hide_password(url)))
    }

    /// What is wrong with the IMAP settings: an account that does not build, a login given
    /// both in the URL and in the keys (the URL's would win, silently).
    fn imap_problems(&self) -> Vec<String> {
        let Some(url) = &self.imap else {
            return Vec::new();
        };
        if let Err(e) = self.imap_account() {
            return vec![e.to_string()];
        }
        let parts = crate::mail::imap::account::parse_url(url).expect("parsed above");
        let twice: Vec<&str> = [
            (parts.user.is_some() && self.imap_user.is_some(), "the user"),
            (
                parts.password.is_some() && self.imap_password.is_some(),
                "the password",
            ),
        ]
        .into_iter()
        .filter_map(|(both, what)| both.then_some(what))
        .collect();
        match twice.is_empty() {
            true => Vec::new(),
            false => vec![format!(
                "imap = \"{}\": {} both in the URL and in imap_user/imap_password (or \
                 PBEM_IMAP_USER/PBEM_IMAP_PASSWORD); the URL's would be used: keep one",
                hide_password(url),
                twice.join(" and ")
            )],
        }
    }

    /// The GM address split into local part and domain.
    pub fn address_parts(&self) -> (&str, &str) {
        self.address
            .split_once('@')
            .unwrap_or((self.address.as_str(), "localhost"))
    }

    /// A seat's secret reply address: `local+TOKEN@domain`.
    pub fn seat_address(&self, token: &str) -> String {
        let (local, domain) = self.address_parts();
        format!("{local}+{token}@{domain}")
    }

    /// The token in one of our `local+TOKEN@domain` addresses.
    pub fn token_in(&self, addr: &str) -> Option<String> {
        let (local, domain) = self.address_parts();
        let (l, d) = addr.trim().rsplit_once('@')?;
        if !d.eq_ignore_ascii_case(domain) {
            return None;
        }
        let (base, token) = l.split_once('+')?;
        (base.eq_ignore_ascii_case(local) && !token.is_empty()).then(|| token.to_ascii_lowercase())
    }

    /// Whether an address is one of ours (plain or with a token): mail from it is a loop.
    pub fn is_ours(&self, addr: &str) -> bool {
        addr.eq_ignore_ascii_case(&self.address) || self.token_in(addr).is_some()
    }

    /// The SMTP login of the keys (or their variables), an empty value being none.
    fn smtp_login(&self) -> (Option<&str>, Option<&str>) {
        (
            self.smtp_user.as_deref().filter(|u| !u.is_empty()),
            self.smtp_password
                .as_ref()
                .map(|p| p.0.as_str())
                .filter(|p| !p.is_empty()),
        )
    }

    /// What is wrong with the SMTP login: a transport that does not build (a user without
    /// a password, a password without a user), a login given twice (in the URL and in the
    /// keys or the environment: the URL's would win, silently), none for a submission port.
    fn login_problems(&self) -> Vec<String> {
        let shown = hide_password(&self.transport);
        let transport = match self.transport() {
            Ok(t) => t,
            Err(e) => return vec![e.to_string()],
        };
        let mut out = Vec::new();
        let (url_user, url_password) = outbound::url_credentials(&self.transport);
        let (user, password) = self.smtp_login();
        let twice: Vec<&str> = [
            (url_user && user.is_some(), "the user"),
            (url_password && password.is_some(), "the password"),
        ]
        .into_iter()
        .filter_map(|(both, what)| both.then_some(what))
        .collect();
        if !twice.is_empty() {
            out.push(format!(
                "transport = \"{shown}\": {} both in the URL and in smtp_user/smtp_password \
                 (or {ENV_SMTP_USER}/{ENV_SMTP_PASSWORD}); the URL's would be used: keep one",
                twice.join(" and ")
            ));
        }
        if let outbound::Transport::Smtp(relay) = &transport {
            if relay.is_submission() && !relay.logs_in() {
                out.push(format!(
                    "transport = \"{shown}\": no SMTP login, and a submission port (587, 465) \
                     asks for one: set smtp_user and smtp_password (or {ENV_SMTP_USER} and \
                     {ENV_SMTP_PASSWORD}, or user:password@ in the URL)"
                ));
            }
        }
        out
    }

    /// Says exactly what is wrong, one line per problem (empty: all good).
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        let (local, domain) = self.address_parts();
        if !self.address.contains('@') || local.is_empty() || domain.is_empty() {
            out.push(format!(
                "address = \"{}\": the GM address must look like gm@example.org",
                self.address
            ));
        }
        if local.contains('+') {
            out.push(format!(
                "address = \"{}\": the GM address must not contain '+' (seat addresses add +TOKEN)",
                self.address
            ));
        }
        out.extend(self.login_problems());
        out.extend(self.imap_problems());
        if let Some(ca) = &self.tls_ca_file {
            if !ca.exists() {
                out.push(format!("tls_ca_file = \"{}\": no such file", ca.display()));
            }
        }
        if let Some(m) = &self.maildir {
            for sub in ["new", "cur", "tmp"] {
                if !m.join(sub).is_dir() {
                    out.push(format!(
                        "maildir = \"{}\": it has no {sub}/ folder (a Maildir needs new/, cur/ and tmp/)",
                        m.display()
                    ));
                }
            }
        }
        if let Some(t) = &self.templates_dir {
            if !t.is_dir() {
                out.push(format!(
                    "templates_dir = \"{}\": no such folder",
                    t.display()
                ));
            } else if let Err(e) = crate::template::Templates::check(Some(t)) {
                out.push(format!("templates_dir = \"{}\": {e}", t.display()));
            }
        }
        if (1..self.unauth_replies_per_hour).contains(&self.stranger_replies_per_hour) {
            out.push(format!(
                "limits.stranger_replies_per_hour = {} is below unauth_replies_per_hour = {}: one \
                 address that proves no seat could use up the hour's answers to every newcomer",
                self.stranger_replies_per_hour, self.unauth_replies_per_hour
            ));
        }
        match &self.admin_address {
            Some(a) if self.is_ours(a) => out.push(format!(
                "admin_address = \"{a}\": it must differ from address (GM notices sent to pbem \
                 itself would come back as mail and be refused)"
            )),
            Some(a) if !a.contains('@') => out.push(format!(
                "admin_address = \"{a}\": it must look like you@example.org"
            )),
            _ => {}
        }
        out
    }
}

#[cfg(test)]
mod tests {
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
}

/// A transport URL as it may be printed: `smtp://user:***@host`.
pub fn hide_password(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => {
            let userinfo = &url[scheme + 3..at];
            match userinfo.split_once(':') {
                Some((user, _)) => format!("{}{user}:***{}", &url[..scheme + 3], &url[at..]),
                None => url.to_string(),
            }
        }
        _ => url.to_string(),
    }
}

#[cfg(test)]
mod hide_tests {
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
}
