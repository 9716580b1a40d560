//! An SMTP relay (lettre): its URL read (security, port, login), the mail's bytes sent as they are, SMTP replies classified, and `check`, which asks the server without sending.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::Duration;

use lettre::transport::smtp::authentication::Credentials;
use lettre::transport::smtp::client::{Certificate, Tls, TlsParameters};
use lettre::transport::smtp::SmtpTransportBuilder;
use lettre::{SmtpTransport, Transport as _};
use percent_encoding::percent_decode_str;
use url::{Host, Url};

use super::{ConfigError, RawMail, SendError, ENV_SMTP_PASSWORD, ENV_SMTP_USER};

/// Long enough for a slow relay, short enough that a daemon does not hang on a dead one.
const SMTP_TIMEOUT: Duration = Duration::from_secs(30);

/// An SMTP relay with a password-free description for logs.
#[derive(Clone)]
pub struct SmtpRelay {
    transport: SmtpTransport,
    description: String,
    /// What `check` connects with, as the transport does.
    host: String,
    port: u16,
    security: Security,
    tls_ca_file: Option<PathBuf>,
    credentials: Option<Credentials>,
    user: Option<String>,
}

impl fmt::Debug for SmtpRelay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SmtpRelay")
            .field("relay", &self.description)
            .finish()
    }
}

impl fmt::Display for SmtpRelay {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.description)
    }
}

impl SmtpRelay {
    /// The relay of an `smtp://`, `smtp+starttls://` or `smtps://` URL (`scheme`, then
    /// `rest`), the user and password from the URL or else from `env`.
    pub(super) fn from_url(
        scheme: &str,
        rest: &str,
        tls_ca_file: Option<&Path>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<SmtpRelay, ConfigError> {
        let (mut security, default_port) = match scheme.to_ascii_lowercase().as_str() {
            "smtp" => (Security::Plain, 25),
            "smtp+starttls" => (Security::StartTls, 587),
            "smtps" => (Security::ImplicitTls, 465),
            other => {
                return Err(ConfigError(format!(
                    "unknown scheme {other:?} (smtp, smtp+starttls, smtps, sendmail, dir)"
                )))
            }
        };
        let parts = split_url(rest)?;
        if let Some(tls) = &parts.tls {
            security = match (security, tls.as_str()) {
                (_, "starttls" | "required") => Security::StartTls,
                (Security::Plain, "none") => Security::Plain,
                (Security::ImplicitTls, "implicit" | "wrapper") => Security::ImplicitTls,
                (_, other) => {
                    return Err(ConfigError(format!(
                        "tls={other:?} does not fit scheme {scheme:?}"
                    )))
                }
            };
        }
        let port = parts.port.unwrap_or(default_port);
        let mut builder = lettre_builder(rest, &parts, security, tls_ca_file)?
            .port(port)
            .timeout(Some(SMTP_TIMEOUT));
        let user = parts.user.or_else(|| env(ENV_SMTP_USER));
        let password = parts.password.or_else(|| env(ENV_SMTP_PASSWORD));
        let mut description = format!("{scheme}://");
        let credentials = match (user.clone(), password) {
            // lettre took a user and password from the URL already; set again either way,
            // as either may come from the environment or the config instead.
            (Some(user), Some(password)) => {
                description.push_str(&format!("{user}@"));
                let credentials = Credentials::new(user, password);
                builder = builder.credentials(credentials.clone());
                Some(credentials)
            }
            (Some(user), None) => {
                return Err(ConfigError(format!(
                    "SMTP user {user:?} has no password (in the URL, smtp_password or \
                     {ENV_SMTP_PASSWORD})"
                )))
            }
            (None, Some(_)) => {
                return Err(ConfigError(format!(
                    "an SMTP password but no user (in the URL, smtp_user or {ENV_SMTP_USER})"
                )))
            }
            (None, None) => None,
        };
        description.push_str(&format!("{}:{port} ({security})", parts.host));
        Ok(SmtpRelay {
            transport: builder.build(),
            description,
            host: parts.host,
            port,
            security,
            tls_ca_file: tls_ca_file.map(Path::to_path_buf),
            credentials,
            user,
        })
    }

    /// Delivers one finished mail, its bytes as they are.
    pub(super) fn send_raw(&self, mail: &RawMail) -> Result<(), SendError> {
        self.transport
            .send_raw(&mail.envelope, &mail.bytes)
            .map(|_| ())
            .map_err(|e| classify_smtp_error(&self.description, &e))
    }

    /// Whether it logs in (a user and password are set).
    pub fn logs_in(&self) -> bool {
        self.credentials.is_some()
    }

    /// Whether the port is a submission port (587, 465), whose servers ask clients to log in
    /// before they take mail for elsewhere.
    pub fn is_submission(&self) -> bool {
        matches!(self.port, 587 | 465)
    }

    /// Connects as the transport does (TLS, login) and asks whether the server would take a
    /// mail from `from` to `to`, then resets and quits: nothing is sent. Says what it did,
    /// line by line, or what failed.
    pub fn check(&self, from: &str, to: &str) -> Result<Vec<String>, String> {
        use lettre::transport::smtp::authentication::Mechanism;
        use lettre::transport::smtp::client::SmtpConnection;
        use lettre::transport::smtp::commands::{Mail, Rcpt, Rset};
        use lettre::transport::smtp::extension::ClientId;
        let relay = &self.description;
        let hello = ClientId::default();
        let params = match self.security {
            Security::Plain => None,
            _ => Some(tls_parameters(&self.host, self.tls_ca_file.as_deref()).map_err(|e| e.0)?),
        };
        let wrapper = params
            .as_ref()
            .filter(|_| self.security == Security::ImplicitTls);
        let mut conn = SmtpConnection::connect(
            (self.host.as_str(), self.port),
            Some(SMTP_TIMEOUT),
            &hello,
            wrapper,
            None,
        )
        .map_err(|e| format!("{relay}: cannot connect: {e}"))?;
        let mut said = vec![format!("connected to {relay}")];
        if let (Security::StartTls, Some(params)) = (self.security, &params) {
            conn.starttls(params, &hello)
                .map_err(|e| format!("{relay}: STARTTLS failed: {e}"))?;
            said.push("STARTTLS ok".into());
        }
        let offered: Vec<&str> = [
            (Mechanism::Plain, "PLAIN"),
            (Mechanism::Login, "LOGIN"),
            (Mechanism::Xoauth2, "XOAUTH2"),
        ]
        .into_iter()
        .filter(|(m, _)| conn.server_info().supports_auth_mechanism(*m))
        .map(|(_, name)| name)
        .collect();
        match (&self.credentials, self.user.as_deref().unwrap_or("")) {
            (Some(c), user) => {
                conn.auth(&[Mechanism::Plain, Mechanism::Login], c)
                    .map_err(|e| format!("{relay}: login as {user:?} refused: {e}"))?;
                said.push(format!("logged in as {user}"));
            }
            (None, _) if offered.is_empty() => said.push("no login (none offered)".into()),
            (None, _) => said.push(format!(
                "no login: none set, though the server offers AUTH {}",
                offered.join(" ")
            )),
        }
        let address = |a: &str| {
            a.parse::<lettre::Address>()
                .map_err(|e| format!("{a:?} is not an address: {e}"))
        };
        // 530: "authentication required" (RFC 4954), which a login would cure.
        let hint = |e: &lettre::transport::smtp::Error| match e.status() {
            Some(code) if code.to_string() == "530" && self.credentials.is_none() => {
                " (set smtp_user and smtp_password)"
            }
            _ => "",
        };
        conn.command(Mail::new(Some(address(from)?), vec![]))
            .map_err(|e| format!("{relay}: refuses mail from {from}: {e}{}", hint(&e)))?;
        conn.command(Rcpt::new(address(to)?, vec![]))
            .map_err(|e| format!("{relay}: refuses mail to {to}: {e}{}", hint(&e)))?;
        said.push(format!(
            "would take mail from {from} to {to} (nothing sent)"
        ));
        let _ = conn.command(Rset);
        let _ = conn.quit();
        Ok(said)
    }
}

/// Whether a transport URL holds a user and a password of its own, as (user, password).
pub fn url_credentials(url: &str) -> (bool, bool) {
    match url
        .trim()
        .split_once("://")
        .map(|(_, rest)| split_url(rest))
    {
        Some(Ok(parts)) => (parts.user.is_some(), parts.password.is_some()),
        _ => (false, false),
    }
}

/// How an SMTP connection is secured.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Security {
    Plain,
    StartTls,
    ImplicitTls,
}

impl std::fmt::Display for Security {
    /// As a GM writes it in the URL's scheme (`smtp+starttls`), never the Rust name.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Security::Plain => "no encryption",
            Security::StartTls => "STARTTLS",
            Security::ImplicitTls => "TLS",
        })
    }
}

fn tls_parameters(host: &str, ca_file: Option<&Path>) -> Result<TlsParameters, ConfigError> {
    let mut params = TlsParameters::builder(host.to_string());
    if let Some(path) = ca_file {
        let pem = fs::read(path)
            .map_err(|e| ConfigError(format!("cannot read CA file {}: {e}", path.display())))?;
        let cert = Certificate::from_pem(&pem)
            .map_err(|e| ConfigError(format!("bad CA file {}: {e}", path.display())))?;
        params = params.add_root_certificate(cert);
    }
    params
        .build()
        .map_err(|e| ConfigError(format!("TLS setup for {host}: {e}")))
}

/// The parts of `[user[:pass]@]host[:port][/][?query]`, user and password decoded.
#[derive(Debug, PartialEq, Eq)]
pub(super) struct UrlParts {
    pub(super) user: Option<String>,
    pub(super) password: Option<String>,
    pub(super) host: String,
    pub(super) port: Option<u16>,
    pub(super) tls: Option<String>,
}

/// Reads what follows `scheme://` with the `url` crate, the reader lettre's own `from_url`
/// uses, so both see the same host, port and user. pbem's URLs are stricter than lettre's:
/// no path (lettre would take it for the EHLO name) and no parameter but `tls`.
fn parse_rest(rest: &str) -> Result<Url, ConfigError> {
    // The parts do not depend on the scheme as long as `url` treats it as non-special, as it
    // does all of pbem's. The error never quotes the URL, which may hold a password.
    let url = Url::parse(&format!("smtp://{rest}"))
        .map_err(|e| ConfigError(format!("bad SMTP URL: {e}")))?;
    if !matches!(url.path(), "" | "/") || url.fragment().is_some() {
        return Err(ConfigError(
            "an SMTP URL ends after host, port and ?tls=".into(),
        ));
    }
    Ok(url)
}

pub(super) fn split_url(rest: &str) -> Result<UrlParts, ConfigError> {
    let url = parse_rest(rest)?;
    let host = match url.host() {
        Some(Host::Ipv6(ip)) => ip.to_string(),
        Some(Host::Domain(name)) if !name.is_empty() => name.to_string(),
        Some(Host::Ipv4(ip)) => ip.to_string(),
        _ => return Err(ConfigError("no host in the SMTP URL".into())),
    };
    let mut tls = None;
    for (key, value) in url.query_pairs() {
        match key.as_ref() {
            "tls" => tls = Some(value.to_ascii_lowercase()),
            _ => return Err(ConfigError(format!("unknown URL parameter {key:?}"))),
        }
    }
    let decode = |text: &str| {
        percent_decode_str(text)
            .decode_utf8()
            .map(|t| t.into_owned())
            .map_err(|_| ConfigError("the SMTP user or password is not UTF-8".into()))
    };
    Ok(UrlParts {
        user: Some(decode(url.username())?).filter(|u| !u.is_empty()),
        password: url.password().map(decode).transpose()?,
        host,
        port: url.port(),
        tls,
    })
}

/// lettre's builder for the relay, from lettre's own URL form: `smtp://` (plain),
/// `smtp://...?tls=required` (STARTTLS) or `smtps://` (implicit TLS), with the user and
/// password. What that form cannot say is set here: the CA file (lettre's URL has no place
/// for one), and an IPv6 host, which `from_url` would pass on with its brackets (`[::1]`),
/// a name that neither resolves nor names a TLS peer. The caller sets the port (pbem's
/// default for `smtp://...?tls=starttls` is 25, lettre's 587).
fn lettre_builder(
    rest: &str,
    parts: &UrlParts,
    security: Security,
    tls_ca_file: Option<&Path>,
) -> Result<SmtpTransportBuilder, ConfigError> {
    let mut url = parse_rest(rest)?;
    let ipv6 = matches!(url.host(), Some(Host::Ipv6(_)));
    let builder = if ipv6 {
        SmtpTransport::builder_dangerous(parts.host.clone())
    } else {
        if security == Security::ImplicitTls {
            url.set_scheme("smtps")
                .expect("smtp and smtps are both non-special");
        }
        url.set_query((security == Security::StartTls).then_some("tls=required"));
        if url.username().is_empty() {
            // pbem takes the user from the environment then; lettre would log in as "".
            let _ = url.set_password(None);
        }
        SmtpTransport::from_url(url.as_str()).map_err(|e| ConfigError(format!("SMTP URL: {e}")))?
    };
    if security == Security::Plain || (tls_ca_file.is_none() && !ipv6) {
        return Ok(builder);
    }
    let params = tls_parameters(&parts.host, tls_ca_file)?;
    Ok(builder.tls(match security {
        Security::StartTls => Tls::Required(params),
        _ => Tls::Wrapper(params),
    }))
}

/// SMTP 5xx replies are final; everything else (4xx, refused or dropped connections,
/// timeouts, TLS trouble) may go away, so the mail stays queued.
fn classify_smtp_error(relay: &str, error: &lettre::transport::smtp::Error) -> SendError {
    let mut message = format!("{relay}: {error}");
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        let text = cause.to_string();
        if !message.contains(&text) {
            message.push_str(&format!(": {text}"));
        }
        source = cause.source();
    }
    SendError {
        transient: !error.is_permanent(),
        message,
    }
}
