//! Reading the config: the `pbem.toml` file, then the `PBEM_*` variables over it, each value checked against its range.

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context};

use super::{Config, Secret};
use crate::duration::Range;
use crate::mail::outbound::{DkimSigner, ENV_SMTP_PASSWORD, ENV_SMTP_USER};
use serde::Deserialize;

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
    archive_dir: Option<PathBuf>,
    admin_address: Option<String>,
    dkim_selector: Option<String>,
    dkim_key: Option<PathBuf>,
    dkim_domain: Option<String>,
    trusted_authserv_ids: Option<Vec<String>>,
    #[serde(default)]
    limits: Limits,
    #[serde(default)]
    time: Times,
    #[serde(default)]
    bounces: BounceSection,
}

/// `[bounces]`: mail that comes back.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct BounceSection {
    verp: Option<bool>,
    limit: Option<i64>,
    unreachable: Option<String>,
}

/// The `[bounces]` section read, each value checked.
fn bounce_rules(b: &BounceSection) -> anyhow::Result<super::BounceRules> {
    let unreachable = match b.unreachable.as_deref().map(str::trim) {
        None | Some("pause") => super::WhenUnreachable::Pause,
        Some("play-on") => super::WhenUnreachable::PlayOn,
        Some(other) => {
            return Err(anyhow!(
                "bounces.unreachable = \"{other}\": must be \"pause\" or \"play-on\""
            ))
        }
    };
    let limit = match b.limit {
        None => 3,
        Some(v) if (1..=100).contains(&v) => v,
        Some(v) => return Err(anyhow!("bounces.limit = {v}: must be from 1 to 100")),
    };
    Ok(super::BounceRules {
        verp: b.verp.unwrap_or(true),
        limit,
        unreachable,
    })
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
    let clocks = clocks(&fc, env)?;
    let lim = &fc.limits;
    let env_bytes = env_number(env, "PBEM_MAX_MESSAGE_BYTES", lim.max_message_bytes)?;
    let (unauth_replies_per_hour, stranger_replies_per_hour) = answer_limits(lim, env)?;
    let address = env("PBEM_ADDRESS")
        .or(fc.address.clone())
        .unwrap_or_else(|| "gm@localhost".into())
        .trim()
        .to_ascii_lowercase();
    let dkim = dkim(&fc, env, &address)?;
    let admin_address = env("PBEM_ADMIN_ADDRESS")
        .or(fc.admin_address)
        .map(|a| a.trim().to_ascii_lowercase())
        .filter(|a| !a.is_empty());
    let transport = env("PBEM_TRANSPORT")
        .or_else(|| env("PBEM_OUTBOX_DIR").map(|d| format!("dir:{d}")))
        .or(fc.transport)
        .unwrap_or_else(|| "dir:outbox".into());
    let trusted_authserv_ids = trusted_ids(env, fc.trusted_authserv_ids);
    let cfg = Config {
        address,
        dkim,
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
        archive_dir: env("PBEM_ARCHIVE_DIR")
            .map(PathBuf::from)
            .or(fc.archive_dir)
            .filter(|d| !d.as_os_str().is_empty()),
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
        request_ttl_secs: clocks.request_ttl_secs,
        max_auth_failures: count("max_auth_failures", lim.max_auth_failures, 5, 1, 1_000)?,
        admin_address,
        trusted_authserv_ids,
        move_secs: clocks.move_secs,
        remind_before_secs: clocks.remind_before_secs,
        early_resolve_secs: clocks.early_resolve_secs,
        retry_base_secs: clocks.retry_base_secs,
        max_attempts: count("max_attempts", lim.max_attempts, 8, 1, 100)?,
        poll_secs: clocks.poll_secs,
        busy_timeout_secs: clocks.busy_timeout_secs,
        bounces: bounce_rules(&fc.bounces)?,
    };
    // The file's `db` applies unless --db / PBEM_DB gave one (the caller decides).
    Ok((cfg, fc.db))
}

/// The server's clocks, as durations people write (each checked against its range).
struct Clocks {
    move_secs: Option<i64>,
    remind_before_secs: i64,
    early_resolve_secs: i64,
    retry_base_secs: i64,
    poll_secs: u64,
    busy_timeout_secs: u64,
    request_ttl_secs: i64,
}

fn clocks(fc: &FileConfig, env: &dyn Fn(&str) -> Option<String>) -> anyhow::Result<Clocks> {
    let dur = |what: &str, v: Option<String>, default: i64, range| -> anyhow::Result<i64> {
        v.map(|s| crate::duration::parse(&s, range).map_err(|e| anyhow!("{what} = \"{s}\": {e}")))
            .transpose()
            .map(|o| o.unwrap_or(default))
    };
    let (time, lim) = (&fc.time, &fc.limits);
    Ok(Clocks {
        move_secs: move_secs(env("PBEM_MOVE_TIME").or(time.move_time.clone()))?,
        remind_before_secs: dur(
            "remind_before",
            time.remind_before.clone(),
            24 * 3600,
            Range::UP_TO_A_MONTH,
        )?,
        early_resolve_secs: dur(
            "early_resolve",
            env("PBEM_EARLY_RESOLVE").or(time.early_resolve.clone()),
            600,
            Range::UP_TO_A_WEEK,
        )?,
        retry_base_secs: dur("retry_base", lim.retry_base.clone(), 60, Range::RETRY)?,
        poll_secs: dur(
            "poll",
            env("PBEM_POLL").or(time.poll.clone()),
            5,
            Range::POLL,
        )? as u64,
        busy_timeout_secs: dur(
            "busy_timeout",
            env("PBEM_BUSY_TIMEOUT").or(lim.busy_timeout.clone()),
            30,
            Range::new(1, 600, false),
        )? as u64,
        request_ttl_secs: dur(
            "limits.request_ttl",
            lim.request_ttl.clone(),
            3 * 86_400,
            Range::new(3600, 30 * 86_400, false),
        )?,
    })
}

/// The DKIM signer the keys name (`dkim_selector`, `dkim_key`, `dkim_domain`, or their
/// `PBEM_*`), loaded now: a key that does not load stops the config, never a mail unsigned.
fn dkim(
    fc: &FileConfig,
    env: &dyn Fn(&str) -> Option<String>,
    address: &str,
) -> anyhow::Result<Option<DkimSigner>> {
    let selector = env("PBEM_DKIM_SELECTOR").or(fc.dkim_selector.clone());
    let key = env("PBEM_DKIM_KEY")
        .map(PathBuf::from)
        .or(fc.dkim_key.clone());
    let domain = env("PBEM_DKIM_DOMAIN")
        .or(fc.dkim_domain.clone())
        .unwrap_or_else(|| address.rsplit_once('@').map_or("", |(_, d)| d).to_string());
    match (selector, key) {
        (None, None) => Ok(None),
        (Some(s), Some(k)) => DkimSigner::load(&k, &s, &domain)
            .map(Some)
            .map_err(|e| anyhow!("dkim_key = \"{}\": {e}", k.display())),
        (Some(_), None) => Err(anyhow!(
            "dkim_selector is set but dkim_key is not: name the PEM file of the private key"
        )),
        (None, Some(_)) => Err(anyhow!(
            "dkim_key is set but dkim_selector is not: name the selector its DNS record is \
             published under (SELECTOR._domainkey.DOMAIN)"
        )),
    }
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

/// The authserv-ids whose `Authentication-Results` are believed: `PBEM_TRUSTED_AUTHSERV_IDS`
/// (comma-separated), else the file's list; lowercased, blanks dropped (none by default).
fn trusted_ids(env: &dyn Fn(&str) -> Option<String>, file: Option<Vec<String>>) -> Vec<String> {
    let ids = match env("PBEM_TRUSTED_AUTHSERV_IDS") {
        Some(v) => v.split(',').map(str::to_string).collect(),
        None => file.unwrap_or_default(),
    };
    ids.iter()
        .map(|id| id.trim().to_ascii_lowercase())
        .filter(|id| !id.is_empty())
        .collect()
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
