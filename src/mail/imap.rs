//! Mail from an IMAP mailbox: the `Source` that fetches what pbem has not stored yet and marks it (`\Seen` and the keyword `PbemStored`, or a move to the GM's folder) only once stored; IDLE to wait for new mail.
//!
//! Which mail is waiting is the server's to say, not pbem's memory: every pass searches the
//! mailbox for mail without the keyword (`UNDELETED UNKEYWORD PbemStored`), so a reconnect, a
//! restart or a new UIDVALIDITY skips nothing. A mail is marked only after the store
//! committed it (`Source::ack`); a crash or a dropped connection in between leaves it
//! unmarked, it is fetched again, and the store's Message-ID key finds it a duplicate. A mark
//! names the mail by `UIDVALIDITY:UID`: if the mailbox's UIDVALIDITY changed since the fetch,
//! the mark is not made (a UID of another validity could be another mail), and the mail is
//! read again. A server whose mailbox takes no keywords (no `\*` in PERMANENTFLAGS) is
//! searched for `UNSEEN` mail instead.

pub mod account;
mod wire;

use std::collections::VecDeque;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, Context};
use imap::types::{Flag, UnsolicitedResponse};

pub use account::{ImapAccount, Security};

use super::inbound::oversize_stub;
use super::intake::{Fetched, Source};
use wire::Stream;

/// The keyword a stored mail gets (with `\Seen`), and the search leaves out.
pub const KEYWORD: &str = "PbemStored";

/// Mails per FETCH: one response holds them all in memory (twice, the crate's buffer and the
/// copies), so a batch of large mails stays within a few times `max_message_bytes` × this.
const FETCH_MAX: usize = 50;

/// A logged-in session on the selected mailbox, with what the server said it can do.
struct Conn {
    session: imap::Session<Stream>,
    uid_validity: u32,
    /// The mailbox takes new keywords (`\*` in PERMANENTFLAGS).
    keywords: bool,
    idle: bool,
    moves: bool,
    uidplus: bool,
}

impl Conn {
    /// Connects, logs in and selects the mailbox; each error says which step failed.
    fn open(account: &ImapAccount, stop: Arc<AtomicBool>) -> anyhow::Result<Conn> {
        let client = wire::open(account, stop)?;
        let mut session =
            client
                .login(&account.user, account.password())
                .map_err(|(e, _)| match e {
                    imap::Error::No(_) | imap::Error::Bad(_) => {
                        anyhow!("login as {:?} refused: {e}", account.user)
                    }
                    e => anyhow!("login as {:?} failed: {e}", account.user),
                })?;
        let caps = session.capabilities().context("CAPABILITY failed")?;
        let (idle, moves, uidplus) = (
            caps.has_str("IDLE"),
            caps.has_str("MOVE"),
            caps.has_str("UIDPLUS"),
        );
        let mailbox = session
            .select(&account.mailbox)
            .with_context(|| format!("cannot open the mailbox {:?}", account.mailbox))?;
        let uid_validity = mailbox
            .uid_validity
            .ok_or_else(|| anyhow!("the mailbox {:?} has no UIDVALIDITY", account.mailbox))?;
        let keywords = mailbox
            .permanent_flags
            .iter()
            .any(|f| *f == Flag::MayCreate || *f == Flag::Custom(KEYWORD.into()));
        let mut conn = Conn {
            session,
            uid_validity,
            keywords,
            idle,
            moves,
            uidplus,
        };
        if let Some(folder) = &account.move_to {
            conn.ensure_folder(folder)?;
        }
        Ok(conn)
    }

    /// Makes the folder stored mail moves to, unless it exists.
    fn ensure_folder(&mut self, folder: &str) -> anyhow::Result<()> {
        if self.session.status(folder, "(MESSAGES)").is_err() {
            self.session
                .create(folder)
                .with_context(|| format!("cannot create the folder {folder:?} (imap_move_to)"))?;
            tracing::info!("created the IMAP folder {folder:?} for stored mail");
        }
        Ok(())
    }

    /// The search for mail pbem has not stored.
    fn criteria(&self) -> String {
        match self.keywords {
            true => format!("UNDELETED UNKEYWORD {KEYWORD}"),
            false => "UNDELETED UNSEEN".into(),
        }
    }

    /// The UIDs of the mail waiting, oldest first.
    fn waiting(&mut self) -> anyhow::Result<Vec<u32>> {
        // NOOP first: mail delivered since the last command becomes visible to this session.
        self.session.noop().context("NOOP failed")?;
        let mut uids: Vec<u32> = self
            .session
            .uid_search(self.criteria())
            .context("SEARCH failed")?
            .into_iter()
            .collect();
        // What the server said on its own (EXISTS, flag changes) is no news to a search.
        self.session.take_all_unsolicited().for_each(drop);
        uids.sort_unstable();
        Ok(uids)
    }

    /// These mails, each at most `max_bytes` (a larger one as its headers and its size, like
    /// `intake::read_bounded`): only the first `max_bytes + 1` bytes of each are asked for.
    /// `BODY.PEEK` leaves `\Seen` alone until the mail is stored.
    fn fetch(&mut self, uids: &[u32], max_bytes: usize) -> anyhow::Result<Vec<Fetched>> {
        let query = format!("(UID RFC822.SIZE BODY.PEEK[]<0.{}>)", max_bytes + 1);
        let fetches = self
            .session
            .uid_fetch(uid_set(uids), query)
            .context("FETCH failed")?;
        let mut out: Vec<(u32, Fetched)> = Vec::new();
        for f in fetches.iter() {
            // Flag updates the server adds on its own carry no body.
            let (Some(uid), Some(body)) = (f.uid, f.body()) else {
                continue;
            };
            let size = f.size.map_or(body.len(), |s| s as usize).max(body.len());
            let raw = match size > max_bytes {
                true => oversize_stub(body, size as u64),
                false => body.to_vec(),
            };
            let name = format!("{}:{uid}", self.uid_validity);
            out.push((uid, Fetched { name, raw }));
        }
        out.sort_by_key(|(uid, _)| *uid);
        Ok(out.into_iter().map(|(_, f)| f).collect())
    }

    /// Marks stored mail: `\Seen` and the keyword, then the move to `folder` if the GM named
    /// one (MOVE, or COPY, `\Deleted` and UID EXPUNGE where MOVE is missing).
    fn mark(&mut self, uids: &[u32], folder: Option<&str>) -> anyhow::Result<()> {
        let set = uid_set(uids);
        let flags = match self.keywords {
            true => format!("+FLAGS.SILENT (\\Seen {KEYWORD})"),
            false => "+FLAGS.SILENT (\\Seen)".into(),
        };
        self.session
            .uid_store(&set, flags)
            .context("STORE failed")?;
        let Some(folder) = folder else {
            return Ok(());
        };
        if self.moves {
            return self
                .session
                .uid_mv(&set, folder)
                .with_context(|| format!("MOVE to {folder:?} failed"));
        }
        self.session
            .uid_copy(&set, folder)
            .with_context(|| format!("COPY to {folder:?} failed"))?;
        self.session
            .uid_store(&set, "+FLAGS.SILENT (\\Deleted)")
            .context("STORE failed")?;
        // Without UIDPLUS the copies stay flagged \Deleted: a plain EXPUNGE would also remove
        // whatever else the GM deleted and kept.
        if self.uidplus {
            self.session.uid_expunge(&set).context("EXPUNGE failed")?;
        }
        Ok(())
    }
}

/// The UIDs of the fetched mails named under this UIDVALIDITY: a UID of another validity
/// could be another mail.
fn uids_of(stored: &[Fetched], uid_validity: u32) -> Vec<u32> {
    let validity = uid_validity.to_string();
    stored
        .iter()
        .filter_map(|f| f.name.split_once(':'))
        .filter(|(v, _)| *v == validity)
        .filter_map(|(_, uid)| uid.parse().ok())
        .collect()
}

/// `1,2,5`: the UIDs as a set.
fn uid_set(uids: &[u32]) -> String {
    uids.iter()
        .map(u32::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

/// An IMAP mailbox as a `Source`. It keeps its connection between passes and makes a new
/// one after any error (the caller backs off and tries again).
pub struct ImapSource {
    account: ImapAccount,
    max_bytes: usize,
    /// Set on SIGINT/SIGTERM: an IDLE ends at once.
    stop: Arc<AtomicBool>,
    conn: Option<Conn>,
    /// The UIDs this pass's search found and not yet fetched.
    queue: Option<VecDeque<u32>>,
}

impl ImapSource {
    /// Nothing is connected until the first fetch.
    pub fn new(account: ImapAccount, max_bytes: usize, stop: Arc<AtomicBool>) -> ImapSource {
        ImapSource {
            account,
            max_bytes,
            stop,
            conn: None,
            queue: None,
        }
    }

    pub fn account(&self) -> &ImapAccount {
        &self.account
    }

    fn connected(&mut self) -> anyhow::Result<&mut Conn> {
        if self.conn.is_none() {
            let conn = Conn::open(&self.account, Arc::clone(&self.stop))?;
            tracing::debug!(mailbox = %self.account, idle = conn.idle, keywords = conn.keywords, "IMAP connected");
            self.conn = Some(conn);
        }
        Ok(self.conn.as_mut().expect("connected above"))
    }

    /// Drops the connection (after an error, whatever state it was in): the next fetch
    /// connects and searches anew.
    pub fn disconnect(&mut self) {
        self.conn = None;
        self.queue = None;
    }

    /// A new pass searches the mailbox again.
    pub fn new_pass(&mut self) {
        self.queue = None;
    }

    fn fetch_some(&mut self, max: usize) -> anyhow::Result<Vec<Fetched>> {
        if self.queue.is_none() {
            let uids = self.connected()?.waiting()?;
            self.queue = Some(uids.into());
        }
        let queue = self.queue.as_mut().expect("searched above");
        let n = max.min(FETCH_MAX).min(queue.len());
        let batch: Vec<u32> = queue.drain(..n).collect();
        if batch.is_empty() {
            self.queue = None;
            return Ok(Vec::new());
        }
        let max_bytes = self.max_bytes;
        let fetched = self.connected()?.fetch(&batch, max_bytes)?;
        if fetched.len() < batch.len() {
            // Expunged by someone else since the search: nothing to store.
            tracing::debug!(
                asked = batch.len(),
                got = fetched.len(),
                "IMAP mail gone before its fetch"
            );
        }
        Ok(fetched)
    }

    fn mark(&mut self, stored: &[Fetched]) -> anyhow::Result<()> {
        if stored.is_empty() {
            return Ok(());
        }
        let folder = self.account.move_to.clone();
        let conn = self.connected()?;
        let uids = uids_of(stored, conn.uid_validity);
        if uids.len() < stored.len() {
            tracing::warn!(
                count = stored.len() - uids.len(),
                "stored IMAP mail left unmarked: the mailbox's UIDVALIDITY changed; it will be read again and found a duplicate"
            );
        }
        if uids.is_empty() {
            return Ok(());
        }
        conn.mark(&uids, folder.as_deref())
    }

    /// Waits up to `wait` for new mail with IDLE, on the connection of the last pass. Says
    /// whether it waited: not without a connection (a pass failed: the caller's pause backs
    /// off) nor on a server without IDLE (the caller polls). Any error drops the connection.
    pub fn idle(&mut self, wait: Duration) -> anyhow::Result<bool> {
        let Some(conn) = self.conn.as_mut().filter(|c| c.idle) else {
            return Ok(false);
        };
        let mut handle = conn.session.idle();
        handle.timeout(wait).keepalive(false);
        // Only new mail ends the wait early; flag changes by other clients do not.
        let waited = handle.wait_while(|r| !matches!(r, UnsolicitedResponse::Exists(_)));
        drop(handle);
        match waited {
            Ok(_) => Ok(true),
            Err(e) => {
                self.disconnect();
                Err(anyhow!("{}: IDLE failed: {e}", self.account))
            }
        }
    }

    /// `pbem config check --connect`: connects, logs in, opens the mailbox and says what it
    /// found, line by line; or exactly which step failed.
    pub fn check(account: &ImapAccount) -> Result<Vec<String>, String> {
        let mut conn =
            Conn::open(account, Arc::default()).map_err(|e| format!("{account}: {e:#}"))?;
        let waiting = conn.waiting().map_err(|e| format!("{account}: {e:#}"))?;
        let mut said = vec![
            format!(
                "connected to {}:{} ({}), logged in as {}",
                account.host,
                account.port,
                match account.security {
                    Security::Tls => "TLS",
                    Security::StartTls => "STARTTLS",
                },
                account.user
            ),
            format!(
                "mailbox {}: {} mail(s) waiting for pbem",
                account.mailbox,
                waiting.len()
            ),
            match conn.idle {
                true => "IDLE offered: new mail is read at once".into(),
                false => "no IDLE: the mailbox is polled every poll interval".into(),
            },
        ];
        said.push(match (&account.move_to, conn.keywords) {
            (Some(folder), _) => format!("stored mail is moved to {folder}"),
            (None, true) => format!("stored mail is flagged \\Seen and {KEYWORD}"),
            (None, false) => {
                "stored mail is flagged \\Seen (the mailbox takes no keywords: mail a person \
                 reads first is not read by pbem)"
                    .into()
            }
        });
        let _ = conn.session.logout();
        Ok(said)
    }
}

impl Source for ImapSource {
    fn fetch(&mut self, max: usize) -> anyhow::Result<Vec<Fetched>> {
        let fetched = self.fetch_some(max);
        if fetched.is_err() {
            self.disconnect();
        }
        fetched.with_context(|| self.account.to_string())
    }

    fn ack(&mut self, stored: &[Fetched]) -> anyhow::Result<()> {
        let marked = self.mark(stored);
        if marked.is_err() {
            self.disconnect();
        }
        marked.with_context(|| self.account.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uid_sets_list_each_uid() {
        assert_eq!(uid_set(&[3, 4, 9]), "3,4,9");
    }

    #[test]
    fn only_mail_of_the_current_uidvalidity_is_marked() {
        let f = |name: &str| Fetched {
            name: name.into(),
            raw: Vec::new(),
        };
        let stored = [f("7:10"), f("8:11"), f("7:12"), f("junk")];
        assert_eq!(uids_of(&stored, 7), [10, 12]);
        assert!(uids_of(&stored, 9).is_empty());
    }
}
