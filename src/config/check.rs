//! The config's checks: each problem one line that names the key and says what is wrong.

use super::Config;
use crate::mail::outbound::{self, ENV_SMTP_PASSWORD, ENV_SMTP_USER};

impl Config {
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
