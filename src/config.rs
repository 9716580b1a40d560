//! Configuration: one `pbem.toml` with environment overrides (`PBEM_*`), checked with exact messages.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};
use serde::Deserialize;

/// Everything the mail game master needs to know, after file and environment are merged.
#[derive(Debug, Clone)]
pub struct Config {
    /// The GM's address, e.g. `gm@example.org`; seat reply addresses are `gm+TOKEN@example.org`.
    pub address: String,
    /// The name shown in From: (`pbem game master`).
    pub name: String,
    /// Where inbound mail arrives for `pbem serve` (a Maildir with new/ cur/ tmp/).
    pub maildir: Option<PathBuf>,
    /// Outbound transport URL: `dir:/path`, `smtp://...`, `smtps://...`, `sendmail:/usr/sbin/sendmail`.
    pub transport: String,
    /// A PEM certificate to trust for SMTP TLS in addition to the system roots.
    pub tls_ca_file: Option<PathBuf>,
    /// A folder of templates overriding the embedded defaults, file by file.
    pub templates_dir: Option<PathBuf>,
    /// Largest inbound mail accepted (bytes); larger ones are recorded, not answered.
    pub max_message_bytes: usize,
    /// Replies a single address may be sent per hour before pbem stops answering it.
    pub replies_per_hour: i64,
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
    transport: Option<String>,
    tls_ca_file: Option<PathBuf>,
    templates_dir: Option<PathBuf>,
    #[serde(default)]
    limits: Limits,
    #[serde(default)]
    time: Times,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct Limits {
    max_message_bytes: Option<usize>,
    replies_per_hour: Option<i64>,
    max_attempts: Option<i64>,
    retry_base: Option<String>,
    busy_timeout: Option<String>,
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
    let dur = |what: &str, v: Option<String>, default: i64| -> anyhow::Result<i64> {
        v.map(|s| crate::cli::parse_duration(&s).with_context(|| format!("{what} = \"{s}\"")))
            .transpose()
            .map(|o| o.unwrap_or(default))
    };
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
        transport,
        tls_ca_file: env("PBEM_TLS_CA_FILE")
            .map(PathBuf::from)
            .or(fc.tls_ca_file),
        templates_dir: env("PBEM_TEMPLATES")
            .map(PathBuf::from)
            .or(fc.templates_dir),
        max_message_bytes: match env("PBEM_MAX_MESSAGE_BYTES") {
            Some(v) => v
                .parse()
                .map_err(|_| anyhow!("PBEM_MAX_MESSAGE_BYTES = \"{v}\" is not a number"))?,
            None => fc.limits.max_message_bytes.unwrap_or(1 << 20),
        },
        replies_per_hour: fc.limits.replies_per_hour.unwrap_or(60),
        move_secs: match move_time {
            Some(t) if t != "off" => Some(
                crate::cli::parse_duration(&t).with_context(|| format!("move_time = \"{t}\""))?,
            ),
            _ => None,
        },
        remind_before_secs: dur("remind_before", fc.time.remind_before, 24 * 3600)?,
        early_resolve_secs: dur(
            "early_resolve",
            env("PBEM_EARLY_RESOLVE").or(fc.time.early_resolve),
            600,
        )?,
        retry_base_secs: dur("retry_base", fc.limits.retry_base, 60)?,
        max_attempts: fc.limits.max_attempts.unwrap_or(8),
        poll_secs: dur("poll", env("PBEM_POLL").or(fc.time.poll), 5)? as u64,
        busy_timeout_secs: dur(
            "busy_timeout",
            env("PBEM_BUSY_TIMEOUT").or(fc.limits.busy_timeout),
            30,
        )?
        .max(1) as u64,
    };
    // The file's `db` applies unless --db / PBEM_DB gave one (the caller decides).
    Ok((cfg, fc.db))
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
    pub fn transport(&self) -> anyhow::Result<crate::mail::outbound::Transport> {
        crate::mail::outbound::Transport::from_url(&self.transport, self.tls_ca_file.as_deref())
            .map_err(|e| anyhow!("transport = \"{}\": {e}", hide_password(&self.transport)))
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
        if let Err(e) = self.transport() {
            out.push(e.to_string());
        }
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
        if self.max_message_bytes < 1024 {
            out.push("limits.max_message_bytes: must be at least 1024".into());
        }
        if self.max_attempts < 1 {
            out.push("limits.max_attempts: must be at least 1".into());
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
