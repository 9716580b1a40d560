//! Where outgoing mail goes (`Transport`, read from a URL: the table in `mail::outbound`'s docs) and the sending of finished mails through it, each reported as soon as it is taken.

use std::fmt;
use std::path::{Path, PathBuf};

use super::folder::send_each_to_folder;
use super::sendmail::send_with_sendmail;
use super::{
    write_to_folder, ConfigError, OutMail, RawMail, Recorder, SendError, SmtpRelay,
    ENV_SMTP_PASSWORD, ENV_SMTP_USER,
};

const DEFAULT_SENDMAIL: &str = "/usr/sbin/sendmail";

/// Where outgoing mail goes.
#[derive(Debug, Clone)]
pub enum Transport {
    Smtp(SmtpRelay),
    /// A sendmail-compatible program, called as `prog -i -f <from> -- <to>...`.
    Sendmail(PathBuf),
    /// A folder receiving one `.eml` file per mail.
    Dir(PathBuf),
    /// Memory, for tests (no URL names it).
    Memory(Recorder),
}

impl Transport {
    /// Reads a transport URL (table in the module docs). `tls_ca_file` is a PEM certificate
    /// trusted in addition to the usual roots, e.g. a test server's self-signed one.
    pub fn from_url(url: &str, tls_ca_file: Option<&Path>) -> Result<Transport, ConfigError> {
        Self::from_url_with_env(url, tls_ca_file, &non_empty_env)
    }

    /// `from_url` with the SMTP user and password given (the config's) rather than read
    /// from the environment; a user or password in the URL still comes first.
    pub fn from_url_with_credentials(
        url: &str,
        tls_ca_file: Option<&Path>,
        user: Option<&str>,
        password: Option<&str>,
    ) -> Result<Transport, ConfigError> {
        Self::from_url_with_env(url, tls_ca_file, &|name| match name {
            ENV_SMTP_USER => user.map(str::to_string),
            ENV_SMTP_PASSWORD => password.map(str::to_string),
            _ => None,
        })
    }

    /// `from_url` with the environment lookup passed in, so tests need not change the
    /// process environment (which other threads read).
    fn from_url_with_env(
        url: &str,
        tls_ca_file: Option<&Path>,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Transport, ConfigError> {
        let url = url.trim();
        if let Some(path) = url.strip_prefix("sendmail:") {
            let path = if path.is_empty() {
                DEFAULT_SENDMAIL
            } else {
                path
            };
            return Ok(Transport::Sendmail(PathBuf::from(path)));
        }
        if let Some(path) = url.strip_prefix("dir:") {
            if path.is_empty() {
                return Err(ConfigError(
                    "dir: needs a folder, e.g. dir:/var/spool/pbem".into(),
                ));
            }
            return Ok(Transport::Dir(PathBuf::from(path)));
        }
        let Some((scheme, rest)) = url.split_once("://") else {
            if url.is_empty() {
                return Err(ConfigError("empty transport URL".into()));
            }
            return Ok(Transport::Dir(PathBuf::from(url)));
        };
        Ok(Transport::Smtp(SmtpRelay::from_url(
            scheme,
            rest,
            tls_ca_file,
            env,
        )?))
    }

    /// Builds and delivers one mail. A mail that cannot be built is a permanent failure.
    pub fn send(&self, mail: &OutMail) -> Result<(), SendError> {
        let raw = RawMail::of(mail).map_err(|e| SendError::permanent(e.to_string()))?;
        self.send_raw(&raw)
    }

    /// Delivers one finished mail, its bytes as they are.
    pub fn send_raw(&self, mail: &RawMail) -> Result<(), SendError> {
        match self {
            Transport::Smtp(relay) => relay.send_raw(mail),
            Transport::Sendmail(program) => send_with_sendmail(program, mail),
            Transport::Dir(folder) => write_to_folder(folder, &mail.bytes, &mail.message_id)
                .map(|_| ())
                .map_err(|e| {
                    SendError::transient(format!("cannot write to {}: {e}", folder.display()))
                }),
            Transport::Memory(recorder) => recorder.take(mail),
        }
    }

    /// Sends mails one after the other, calling `taken(i, result)` as soon as the transport
    /// has taken mail `i` (or failed it), before the next goes out: the caller notes it sent
    /// there, so a crash sends again at most the one mail in flight. An error from `taken`
    /// stops the sending (the mails not reached stay as they were) and is returned.
    pub fn send_each(
        &self,
        mails: &[RawMail],
        taken: &mut dyn FnMut(usize, Result<(), SendError>) -> anyhow::Result<()>,
    ) -> anyhow::Result<()> {
        match self {
            Transport::Dir(folder) => send_each_to_folder(folder, mails, taken),
            _ => {
                for (i, mail) in mails.iter().enumerate() {
                    taken(i, self.send_raw(mail))?;
                }
                Ok(())
            }
        }
    }
}

impl fmt::Display for Transport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Transport::Smtp(relay) => write!(f, "{relay}"),
            Transport::Sendmail(path) => write!(f, "sendmail:{}", path.display()),
            Transport::Dir(path) => write!(f, "dir:{}", path.display()),
            Transport::Memory(_) => f.write_str("memory"),
        }
    }
}

fn non_empty_env(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests;
