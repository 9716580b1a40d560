//! Mail from an IMAP mailbox: carries what pbem has not stored yet into the spool, one mail per FETCH, and marks it (`\Seen` and the keyword `PbemStored`, or a move to the GM's folder); IDLE to wait for new mail; `check`.
//!
//! Which mail is waiting is the server's to say, and pbem's memory besides: every round
//! searches the mailbox for mail without the keyword (`UNDELETED UNKEYWORD PbemStored`), and
//! leaves out what the `Keeper` remembers carrying (by `UIDVALIDITY:UID`), so a server that
//! forgets flags costs no second fetch, and a reconnect, a restart or a new UIDVALIDITY skips
//! nothing. A mail is marked and remembered only once it is durable in the spool; a crash
//! before that fetches it again, and the store's Message-ID key finds it a duplicate; one
//! remembered but found unmarked (a cut STORE, a server that forgets) is marked again. A
//! server whose mailbox takes no keywords (no `\*` in PERMANENTFLAGS) is searched for
//! `UNSEEN` mail instead.
//!
//! Every command is an exchange with its own byte budget and deadline (`wire::Bounds`): a
//! few lines for most, `max_message_bytes` and a margin for the FETCH of one mail. A server
//! past either loses the connection.

pub mod account;
mod wire;

use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::{anyhow, Context};
use imap::types::{Flag, UnsolicitedResponse};

pub use account::{ImapAccount, Security};

use super::inbound::oversize_stub;
use wire::{Bounds, Stream, ORDINARY_TIME};

/// The keyword a stored mail gets (with `\Seen`), and the search leaves out.
pub const KEYWORD: &str = "PbemStored";

/// At most this many mails carried before and found unmarked again are marked again in a
/// round (a command line of a few KiB).
const REMARK_MAX: usize = 500;

/// What a SEARCH's answer may take: the UIDs of some hundred thousand mails waiting.
pub const SEARCH_BYTES: u64 = 1 << 20;

/// What a FETCH of one mail may take besides the `max_message_bytes + 1` asked for: its
/// size, its UID, and the flag updates a server adds.
pub const FETCH_MARGIN: u64 = 64 * 1024;

/// How long the FETCH of one mail may take: an ordinary exchange, and a second for every
/// 64 KiB asked for (a 1 MiB mail: 76 s; a slower server has the connection dropped).
pub fn fetch_time(max_bytes: usize) -> Duration {
    ORDINARY_TIME + Duration::from_secs(max_bytes as u64 / (64 * 1024))
}

/// Where carried mail goes, and what was carried before (the daemon's: the spool, and the
/// store's memory of `UIDVALIDITY:UID`).
pub trait Keeper {
    /// The UIDs among `waiting` (the mailbox's unmarked mail under this UIDVALIDITY) already
    /// carried. What was carried and waits no more (marked, moved, expunged) is forgotten:
    /// the memory holds only what the server forgot to mark, not every mail ever read.
    fn carried(&mut self, uid_validity: u32, waiting: &[u32]) -> anyhow::Result<HashSet<u32>>;
    /// Makes the mail durable (the spool) before it is marked on the server.
    fn deliver(&mut self, raw: &[u8]) -> anyhow::Result<()>;
    /// Remembers a mail delivered, so that it is not fetched again, whatever the server
    /// forgets.
    fn remember(&mut self, uid_validity: u32, uid: u32) -> anyhow::Result<()>;
}

/// A logged-in session on the selected mailbox, with what the server said it can do.
struct Conn {
    session: imap::Session<Stream>,
    /// The budget and deadline of the next exchange: set before each command.
    bounds: Bounds,
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
        let (client, bounds) = wire::open(account, stop)?;
        bounds.ordinary();
        let mut session =
            client
                .login(&account.user, account.password())
                .map_err(|(e, _)| match e {
                    imap::Error::No(_) | imap::Error::Bad(_) => {
                        anyhow!("login as {:?} refused: {e}", account.user)
                    }
                    e => anyhow!("login as {:?} failed: {e}", account.user),
                })?;
        bounds.ordinary();
        let caps = session.capabilities().context("CAPABILITY failed")?;
        let (idle, moves, uidplus) = (
            caps.has_str("IDLE"),
            caps.has_str("MOVE"),
            caps.has_str("UIDPLUS"),
        );
        drop(caps);
        bounds.ordinary();
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
            bounds,
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
        self.bounds.ordinary();
        if self.session.status(folder, "(MESSAGES)").is_err() {
            self.bounds.ordinary();
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

    /// What the server said on its own (EXISTS, flag changes) is no news to pbem: dropped
    /// after each command, so that it never piles up.
    fn forget_unsolicited(&mut self) {
        self.session.take_all_unsolicited().for_each(drop);
    }

    /// The UIDs of the mail waiting, oldest first.
    fn waiting(&mut self) -> anyhow::Result<Vec<u32>> {
        // NOOP first: mail delivered since the last command becomes visible to this session.
        self.bounds.ordinary();
        self.session.noop().context("NOOP failed")?;
        self.forget_unsolicited();
        self.bounds.set(SEARCH_BYTES, ORDINARY_TIME);
        let mut uids: Vec<u32> = self
            .session
            .uid_search(self.criteria())
            .context("SEARCH failed")?
            .into_iter()
            .collect();
        self.forget_unsolicited();
        uids.sort_unstable();
        Ok(uids)
    }

    /// One mail, at most `max_bytes` (a larger one as its headers and its size, like
    /// `intake::read_bounded`): only its first `max_bytes + 1` bytes are asked for, and the
    /// answer may take only that and `FETCH_MARGIN`. `BODY.PEEK` leaves `\Seen` alone until
    /// the mail is delivered. `None`: gone since the search.
    fn fetch_one(&mut self, uid: u32, max_bytes: usize) -> anyhow::Result<Option<Vec<u8>>> {
        let query = format!("(UID RFC822.SIZE BODY.PEEK[]<0.{}>)", max_bytes + 1);
        self.bounds
            .set(max_bytes as u64 + 1 + FETCH_MARGIN, fetch_time(max_bytes));
        let fetches = self
            .session
            .uid_fetch(uid.to_string(), query)
            .context("FETCH failed")?;
        self.forget_unsolicited();
        // Flag updates the server adds on its own carry no body, nor does another UID.
        let Some((f, body)) = fetches
            .iter()
            .filter(|f| f.uid == Some(uid))
            .find_map(|f| f.body().map(|b| (f, b)))
        else {
            return Ok(None);
        };
        let size = f.size.map_or(body.len(), |s| s as usize).max(body.len());
        Ok(Some(match size > max_bytes {
            true => oversize_stub(body, size as u64),
            false => body.to_vec(),
        }))
    }

    /// Marks delivered mail (`set`: UIDs, comma-separated): `\Seen` and the keyword, then the
    /// move to `folder` if the GM named one (MOVE, or COPY, `\Deleted` and UID EXPUNGE where
    /// MOVE is missing).
    fn mark(&mut self, set: &str, folder: Option<&str>) -> anyhow::Result<()> {
        let flags = match self.keywords {
            true => format!("+FLAGS.SILENT (\\Seen {KEYWORD})"),
            false => "+FLAGS.SILENT (\\Seen)".into(),
        };
        self.bounds.ordinary();
        self.session.uid_store(set, flags).context("STORE failed")?;
        self.forget_unsolicited();
        let Some(folder) = folder else {
            return Ok(());
        };
        self.bounds.ordinary();
        if self.moves {
            return self
                .session
                .uid_mv(set, folder)
                .with_context(|| format!("MOVE to {folder:?} failed"));
        }
        self.session
            .uid_copy(set, folder)
            .with_context(|| format!("COPY to {folder:?} failed"))?;
        self.bounds.ordinary();
        self.session
            .uid_store(set, "+FLAGS.SILENT (\\Deleted)")
            .context("STORE failed")?;
        self.forget_unsolicited();
        // Without UIDPLUS the copies stay flagged \Deleted: a plain EXPUNGE would also remove
        // whatever else the GM deleted and kept.
        if self.uidplus {
            self.bounds.ordinary();
            self.session.uid_expunge(set).context("EXPUNGE failed")?;
        }
        Ok(())
    }
}

/// An IMAP mailbox, read by `serve`'s IMAP thread. It keeps its connection between rounds
/// and makes a new one after any error (the caller backs off and tries again).
pub struct ImapSource {
    account: ImapAccount,
    max_bytes: usize,
    /// Set on SIGINT/SIGTERM: any read or write fails within a moment, IDLE included.
    stop: Arc<AtomicBool>,
    conn: Option<Conn>,
}

impl ImapSource {
    /// Nothing is connected until the first round.
    pub fn new(account: ImapAccount, max_bytes: usize, stop: Arc<AtomicBool>) -> ImapSource {
        ImapSource {
            account,
            max_bytes,
            stop,
            conn: None,
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

    /// Drops the connection (after an error, whatever state it was in): the next round
    /// connects and searches anew.
    pub fn disconnect(&mut self) {
        self.conn = None;
    }

    /// One round: every mail waiting and not carried before goes to `keeper` (delivered,
    /// then marked, then remembered), one FETCH each, oldest first, until the stop flag;
    /// how many were delivered. Any error drops the connection.
    pub fn carry(&mut self, keeper: &mut dyn Keeper) -> anyhow::Result<usize> {
        let carried = self.carry_waiting(keeper);
        if carried.is_err() {
            self.disconnect();
        }
        carried.with_context(|| self.account.to_string())
    }

    fn carry_waiting(&mut self, keeper: &mut dyn Keeper) -> anyhow::Result<usize> {
        let (max_bytes, stop) = (self.max_bytes, Arc::clone(&self.stop));
        let folder = self.account.move_to.clone();
        let conn = self.connected()?;
        let validity = conn.uid_validity;
        let waiting = conn.waiting()?;
        let before = keeper.carried(validity, &waiting)?;
        let known: Vec<u32> = waiting
            .iter()
            .filter(|u| before.contains(u))
            .take(REMARK_MAX)
            .copied()
            .collect();
        if !known.is_empty() {
            // Carried before, yet found again: its mark failed (a cut connection) or the
            // server forgot it. Not fetched again; marked again, which may not take either.
            let set = known
                .iter()
                .map(u32::to_string)
                .collect::<Vec<_>>()
                .join(",");
            if let Err(e) = conn.mark(&set, folder.as_deref()) {
                tracing::debug!(error = %format!("{e:#}"), "IMAP mail carried before could not be marked again");
            }
        }
        let mut delivered = 0;
        for uid in waiting.into_iter().filter(|u| !before.contains(u)) {
            if stop.load(Ordering::SeqCst) {
                break;
            }
            let Some(raw) = conn.fetch_one(uid, max_bytes)? else {
                tracing::debug!(uid, "IMAP mail gone before its fetch");
                continue;
            };
            keeper.deliver(&raw)?;
            delivered += 1;
            // Remembered even when the mark fails: a server that refuses it (a read-only
            // mailbox) must not make pbem fetch the same mail every round.
            let marked = conn.mark(&uid.to_string(), folder.as_deref());
            keeper.remember(validity, uid)?;
            marked?;
        }
        Ok(delivered)
    }

    /// Waits up to `wait` for new mail with IDLE, on the connection of the last round. Says
    /// whether it waited: not without a connection (a round failed: the caller's pause backs
    /// off) nor on a server without IDLE (the caller polls). The wait is an exchange of its
    /// own (`IDLE_BYTES` in `wait`); any error drops the connection.
    pub fn idle(&mut self, wait: Duration) -> anyhow::Result<bool> {
        let Some(conn) = self.conn.as_mut().filter(|c| c.idle) else {
            return Ok(false);
        };
        conn.bounds.ordinary();
        let mut handle = conn.session.idle();
        handle.timeout(wait).keepalive(false);
        // Only new mail ends the wait early; flag changes by other clients do not.
        let waited = handle.wait_while(|r| !matches!(r, UnsolicitedResponse::Exists(_)));
        drop(handle);
        match waited {
            Ok(_) => {
                conn.forget_unsolicited();
                Ok(true)
            }
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
        conn.bounds.ordinary();
        let _ = conn.session.logout();
        Ok(said)
    }
}
