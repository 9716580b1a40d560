//! The IMAP account the config names: `imaps://` or `imap+starttls://` URL, mailbox, login, CA file, and where stored mail goes.

use std::fmt;
use std::path::PathBuf;

use percent_encoding::percent_decode_str;
use url::{Host, Url};

/// How the connection is secured. There is no plain IMAP: the login would travel in clear.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Security {
    /// TLS from the first byte (port 993).
    Tls,
    /// Plain first, then STARTTLS, required (port 143).
    StartTls,
}

/// Everything pbem needs to read a mailbox. The password is never printed (`Debug` and
/// `Display` leave it out).
#[derive(Clone, PartialEq, Eq)]
pub struct ImapAccount {
    pub host: String,
    pub port: u16,
    pub security: Security,
    /// The mailbox read (the URL's path; `INBOX` without one).
    pub mailbox: String,
    pub user: String,
    password: String,
    /// A PEM certificate trusted besides Mozilla's roots (the config's `tls_ca_file`).
    pub tls_ca_file: Option<PathBuf>,
    /// A folder stored mail is moved to; `None`: it stays, flagged `\Seen` and `PbemStored`.
    pub move_to: Option<String>,
}

impl fmt::Debug for ImapAccount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ImapAccount({self})")
    }
}

impl fmt::Display for ImapAccount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let scheme = match self.security {
            Security::Tls => "imaps",
            Security::StartTls => "imap+starttls",
        };
        let host = match self.host.contains(':') {
            true => format!("[{}]", self.host),
            false => self.host.clone(),
        };
        write!(
            f,
            "{scheme}://{}@{host}:{}/{}",
            self.user, self.port, self.mailbox
        )
    }
}

/// What the URL itself says, user and password decoded.
#[derive(Debug, PartialEq, Eq)]
pub struct UrlParts {
    pub security: Security,
    pub host: String,
    pub port: u16,
    pub mailbox: String,
    pub user: Option<String>,
    pub password: Option<String>,
}

/// Reads `imaps://[user[:password]@]host[:port][/MAILBOX]` or `imap+starttls://...`. The error
/// never quotes the URL, which may hold a password.
pub fn parse_url(text: &str) -> Result<UrlParts, String> {
    let url = Url::parse(text.trim()).map_err(|e| format!("not a URL: {e}"))?;
    let (security, default_port) = match url.scheme() {
        "imaps" => (Security::Tls, 993),
        "imap+starttls" => (Security::StartTls, 143),
        "imap" => {
            return Err(
                "imap:// would send the password in clear: use imaps:// (TLS, port \
                        993) or imap+starttls:// (port 143)"
                    .into(),
            )
        }
        other => {
            return Err(format!(
                "unknown scheme {other:?}: use imaps:// or imap+starttls://"
            ))
        }
    };
    let host = match url.host() {
        Some(Host::Domain(name)) if !name.is_empty() => name.to_string(),
        Some(Host::Ipv4(ip)) => ip.to_string(),
        Some(Host::Ipv6(ip)) => ip.to_string(),
        _ => return Err("no host in the IMAP URL".into()),
    };
    if url.query().is_some() || url.fragment().is_some() {
        return Err("an IMAP URL ends after its mailbox (no ?, no #)".into());
    }
    let decode = |text: &str, what: &str| {
        percent_decode_str(text)
            .decode_utf8()
            .map(|t| t.into_owned())
            .map_err(|_| format!("the IMAP {what} is not UTF-8"))
    };
    // Everything after the first slash is the mailbox, hierarchy slashes included.
    let path = url.path().strip_prefix('/').unwrap_or(url.path());
    let mailbox = match decode(path, "mailbox")? {
        m if m.is_empty() => "INBOX".to_string(),
        m => m,
    };
    Ok(UrlParts {
        security,
        host,
        port: url.port().unwrap_or(default_port),
        mailbox,
        user: Some(decode(url.username(), "user")?).filter(|u| !u.is_empty()),
        password: url.password().map(|p| decode(p, "password")).transpose()?,
    })
}

impl ImapAccount {
    /// The account of a URL and the config's login keys (used when the URL has none). An
    /// error says what is missing, never the password.
    pub fn new(
        url: &str,
        user: Option<&str>,
        password: Option<&str>,
        tls_ca_file: Option<PathBuf>,
        move_to: Option<&str>,
    ) -> Result<ImapAccount, String> {
        let parts = parse_url(url)?;
        let user = parts.user.or(user.map(str::to_string));
        let password = parts.password.or(password.map(str::to_string));
        let (Some(user), Some(password)) = (user, password) else {
            return Err(
                "no IMAP login: set imap_user and imap_password (or PBEM_IMAP_USER \
                        and PBEM_IMAP_PASSWORD, or user:password@ in the URL)"
                    .into(),
            );
        };
        let move_to = move_to.map(str::trim).filter(|m| !m.is_empty());
        if move_to.is_some_and(|m| m.eq_ignore_ascii_case(&parts.mailbox)) {
            return Err(format!(
                "imap_move_to = {:?} is the mailbox read itself",
                parts.mailbox
            ));
        }
        Ok(ImapAccount {
            host: parts.host,
            port: parts.port,
            security: parts.security,
            mailbox: parts.mailbox,
            user,
            password,
            tls_ca_file,
            move_to: move_to.map(str::to_string),
        })
    }

    pub(super) fn password(&self) -> &str {
        &self.password
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_give_security_port_mailbox_and_login() {
        let p = parse_url("imaps://gm%40example.org:p%3Ass@imap.example.org/Games/PBEM").unwrap();
        assert_eq!(p.security, Security::Tls);
        assert_eq!(p.port, 993);
        assert_eq!(p.host, "imap.example.org");
        assert_eq!(p.mailbox, "Games/PBEM");
        assert_eq!(p.user.as_deref(), Some("gm@example.org"));
        assert_eq!(p.password.as_deref(), Some("p:ss"));
        let p = parse_url("imap+starttls://127.0.0.1:1143").unwrap();
        assert_eq!(
            (p.security, p.port, p.mailbox.as_str(), p.user),
            (Security::StartTls, 1143, "INBOX", None)
        );
        assert_eq!(parse_url("imaps://[::1]/").unwrap().host, "::1");
    }

    #[test]
    fn plain_imap_and_strangers_are_refused_without_quoting_the_password() {
        let e = parse_url("imap://gm:secret@host").unwrap_err();
        assert!(e.contains("in clear"), "{e}");
        assert!(!e.contains("secret"));
        assert!(parse_url("pop3://host").unwrap_err().contains("scheme"));
        assert!(parse_url("imaps://host/INBOX?x=1").is_err());
        assert!(parse_url("imaps:///INBOX").is_err());
    }

    #[test]
    fn the_login_comes_from_the_url_or_the_keys_and_is_never_printed() {
        let a = ImapAccount::new("imaps://host", Some("gm"), Some("pw"), None, None).unwrap();
        assert_eq!(a.to_string(), "imaps://gm@host:993/INBOX");
        assert_eq!(format!("{a:?}"), "ImapAccount(imaps://gm@host:993/INBOX)");
        let a = ImapAccount::new("imaps://u:p@host", Some("gm"), Some("pw"), None, None).unwrap();
        assert_eq!((a.user.as_str(), a.password()), ("u", "p"));
        let e = ImapAccount::new("imaps://host", Some("gm"), None, None, None).unwrap_err();
        assert!(e.contains("imap_password"), "{e}");
        let e = ImapAccount::new("imaps://u:p@host/Box", None, None, None, Some("box"));
        assert!(e.unwrap_err().contains("itself"));
    }
}
