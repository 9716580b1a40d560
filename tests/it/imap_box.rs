//! The IMAP tests' own view of the loopback stack's mailboxes (plain IMAP on loopback, as a person's mail client would read them): clear, append, count what pbem has not marked, and wait for a mail.
#![allow(dead_code)]

use std::collections::HashSet;
use std::net::TcpStream;
use std::time::{Duration, Instant};

use pbem::mail::inbound;

pub type Session = imap::Session<TcpStream>;

fn port(name: &str, default: u16) -> u16 {
    std::env::var(name)
        .ok()
        .and_then(|p| p.parse().ok())
        .unwrap_or(default)
}

pub fn imap_port() -> u16 {
    port("PBEM_MAILSTACK_IMAP_PORT", 1143)
}

pub fn imaps_port() -> u16 {
    port("PBEM_MAILSTACK_IMAPS_PORT", 1993)
}

pub fn submission_port() -> u16 {
    port("PBEM_MAILSTACK_SUBMISSION_PORT", 2587)
}

/// Logged in as `user` (password `<user>-secret`).
pub fn login(user: &str) -> Session {
    let tcp = TcpStream::connect(("127.0.0.1", imap_port())).expect("IMAP port");
    tcp.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let mut client = imap::Client::new(tcp);
    client.read_greeting().unwrap();
    client
        .login(user, format!("{user}-secret"))
        .map_err(|(e, _)| e)
        .unwrap_or_else(|e| panic!("IMAP login as {user}: {e}"))
}

/// A folder of `user`'s, made empty (created if missing).
pub fn fresh_folder(s: &mut Session, folder: &str) {
    if s.select(folder).is_err() {
        s.create(folder).unwrap();
        s.select(folder).unwrap();
    }
    s.store("1:*", "+FLAGS.SILENT (\\Deleted)").ok();
    s.expunge().unwrap();
}

/// Deletes a folder of `user`'s; INBOX is selected first (Dovecot ends a session whose
/// selected mailbox goes away).
pub fn delete_folder(s: &mut Session, folder: &str) {
    s.select("INBOX").unwrap();
    s.delete(folder)
        .unwrap_or_else(|e| panic!("DELETE {folder}: {e}"));
}

pub fn append(s: &mut Session, folder: &str, raw: &[u8]) {
    s.append(folder, raw)
        .finish()
        .unwrap_or_else(|e| panic!("APPEND to {folder}: {e}"));
}

/// How many mails of the folder pbem has not marked stored.
pub fn unmarked(s: &mut Session, folder: &str) -> usize {
    s.select(folder).unwrap();
    s.uid_search(format!("UNDELETED UNKEYWORD {}", pbem::mail::imap::KEYWORD))
        .unwrap()
        .len()
}

/// How many mails the folder holds.
pub fn count(s: &mut Session, folder: &str) -> usize {
    s.select(folder).unwrap().exists as usize
}

/// A mail a player sends to pbem, with `pad` quoted lines (quotes are never read as commands)
/// to make it as large as a test needs.
pub fn mail(from: &str, to: &str, subject: &str, id: &str, body: &str, pad: usize) -> Vec<u8> {
    let mut raw = format!(
        "From: {from}\r\nTo: {to}\r\nSubject: {subject}\r\nMessage-ID: <{id}>\r\n\
         Date: Tue, 24 Nov 2026 12:00:00 +0000\r\n\r\n{body}\r\n\r\n"
    );
    for n in 0..pad {
        raw.push_str(&format!(
            "> {n:06} padding padding padding padding padding padding\r\n"
        ));
    }
    raw.into_bytes()
}

/// A player's INBOX read over IMAP; mail already there when opened is not theirs to wait for.
pub struct PlayerBox {
    session: Session,
    seen: HashSet<u32>,
}

impl PlayerBox {
    pub fn open(user: &str) -> PlayerBox {
        let mut session = login(user);
        session.select("INBOX").unwrap();
        let seen = session.uid_search("ALL").unwrap();
        PlayerBox { session, seen }
    }

    /// Waits for the next new mail (oldest first) whose bytes or decoded text contain `needle`.
    pub fn wait_for(&mut self, needle: &str, within: Duration) -> inbound::Inbound {
        let start = Instant::now();
        loop {
            self.session.noop().unwrap();
            let mut fresh: Vec<u32> = self
                .session
                .uid_search("ALL")
                .unwrap()
                .difference(&self.seen)
                .copied()
                .collect();
            fresh.sort_unstable();
            for uid in fresh {
                let fetches = self
                    .session
                    .uid_fetch(uid.to_string(), "BODY.PEEK[]")
                    .unwrap();
                let Some(raw) = fetches.iter().find_map(|f| f.body().map(<[u8]>::to_vec)) else {
                    continue;
                };
                // The raw bytes (headers), or the text as decoded (a body may be encoded).
                let mail = inbound::parse(&raw);
                if String::from_utf8_lossy(&raw).contains(needle) || mail.body.contains(needle) {
                    self.seen.insert(uid);
                    return mail;
                }
            }
            assert!(
                start.elapsed() < within,
                "no mail with {needle:?} within {within:?}"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }
}
