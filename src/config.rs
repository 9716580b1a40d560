//! Configuration: one `pbem.toml` with environment overrides (`PBEM_*`), checked with exact messages.
//!
//! The settings and what they name (the transport, the IMAP account, the seat addresses)
//! here; reading the file and the environment in `file`, the checks in `check`.

mod check;
mod dns;
mod file;
#[cfg(test)]
mod tests;

use std::path::PathBuf;

use crate::mail::imap::ImapAccount;
use crate::mail::outbound;
use anyhow::anyhow;

pub use check::hide_password;
pub use file::{load, process_env};

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
    /// What signs outgoing mail with DKIM (`dkim_selector`, `dkim_key`, `dkim_domain`), if
    /// the GM's server does not sign it; loaded with the config.
    pub dkim: Option<outbound::DkimSigner>,
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
    /// The folder `serve` keeps the games' website in (`pbem archive DIR`), if any.
    pub archive_dir: Option<PathBuf>,
    /// Largest inbound mail accepted (bytes); larger ones are recorded, not answered.
    pub max_message_bytes: usize,
    /// Mail a single address may be sent per hour; more is held in the outbox until the hour
    /// allows it, except what its reader waits for (`compose::Limit::Exempt`). A held report
    /// the game moved past is replaced by the newer mail (`Tx::drop_stale_held`).
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
    /// The servers whose `Authentication-Results` are believed, by the authserv-id they write
    /// (`trusted_authserv_ids`, `PBEM_TRUSTED_AUTHSERV_IDS`), lowercased: the MTA or provider
    /// in front of pbem. Empty (the default): the field is never believed.
    pub trusted_authserv_ids: Vec<String>,
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
    /// Mail that comes back: the bounce address, and what becomes of an address that bounces.
    pub bounces: BounceRules,
}

/// `[bounces]`: how pbem hears of mail that does not arrive, and what it does then.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BounceRules {
    /// Each mail's envelope sender names it (`local+bounce-ID-MAC@domain`, `verp`), so its
    /// bounce is tied to it; off: the GM address (bounces are tied by the Message-ID they
    /// quote, when they quote it).
    pub verp: bool,
    /// Reports of a failure for good before an address's mail is held, but for a daily probe
    /// (`limit`, 3).
    pub limit: i64,
    /// What a game does when a seat's player cannot be reached (`unreachable`).
    pub unreachable: WhenUnreachable,
}

/// What a game does when mail to a seat's player is held.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhenUnreachable {
    /// The game pauses (no deadline runs against a player who hears nothing) and the GM is
    /// asked; it resumes by itself when the player writes again. A game with `timeout=robot`
    /// plays on: the robot moves for the seat at its deadline, as it would.
    Pause,
    /// Every game plays on as its options say (the deadline runs).
    PlayOn,
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
}
