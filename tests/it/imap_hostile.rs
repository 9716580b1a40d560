//! `pbem serve` against a hostile IMAP server on loopback (written here: threads, std::net, rustls after STARTTLS): endless lines and a 400 MB literal cost it no more than its budget in memory, a dripping FETCH neither stops its clocks nor its SIGTERM, and a server that forgets flags and chatters through IDLE has each mail fetched once.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use pbem::store::Store;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};

const BIN: &str = env!("CARGO_BIN_EXE_pbem");

/// The one mail waiting in the fake mailbox, UID 1.
const MAIL: &[u8] = b"From: player@example.net\r\nTo: gm@example.org\r\nSubject: help\r\n\
Message-ID: <imap-hostile-1@example.net>\r\n\r\nHELP\r\n";

/// What the server does wrong (one per connection, in turn).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Hostile {
    /// Answers well, but forgets every flag (SEARCH finds mail 1 every time), and chatters
    /// "* OK still here" through IDLE without end.
    ForgetsAndChatters,
    /// Before STARTTLS: a greeting line that never ends (400 MB, no line feed).
    EndlessGreeting,
    /// After login: SELECT answered by a line that never ends.
    EndlessSelect,
    /// A 400 MB literal for a FETCH that asked for at most max_message_bytes + 1.
    HugeLiteral,
    /// FETCH answered a byte every 300 ms, for ever.
    DrippingFetch,
}

/// What the server saw.
#[derive(Default)]
struct Seen {
    connections: AtomicUsize,
    fetches: AtomicUsize,
}

struct FakeImap {
    port: u16,
    seen: Arc<Seen>,
}

impl FakeImap {
    /// Listens on 127.0.0.1; the nth connection meets `modes[n % len]`.
    fn start(modes: Vec<Hostile>) -> FakeImap {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Seen::default());
        let tls = Arc::new(tls_config());
        let counting = Arc::clone(&seen);
        std::thread::spawn(move || {
            for sock in listener.incoming().flatten() {
                let n = counting.connections.fetch_add(1, Ordering::SeqCst);
                let mode = modes[n % modes.len()];
                let (seen, tls) = (Arc::clone(&counting), Arc::clone(&tls));
                std::thread::spawn(move || {
                    let _ = connection(sock, mode, &seen, tls);
                });
            }
        });
        FakeImap { port, seen }
    }

    fn url(&self) -> String {
        format!("imap+starttls://gm:secret@127.0.0.1:{}/INBOX", self.port)
    }

    fn connections(&self) -> usize {
        self.seen.connections.load(Ordering::SeqCst)
    }

    fn fetches(&self) -> usize {
        self.seen.fetches.load(Ordering::SeqCst)
    }
}

/// The test CA's certificate for 127.0.0.1 (tests/data/imap-tls, made with openssl).
fn tls_config() -> rustls::ServerConfig {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/imap-tls");
    let certs: Vec<CertificateDer> = CertificateDer::pem_file_iter(data.join("cert.pem"))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let key = PrivateKeyDer::from_pem_file(data.join("key.pem")).unwrap();
    rustls::ServerConfig::builder_with_provider(Arc::new(rustls::crypto::ring::default_provider()))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap()
}

/// One line from the client (without its CRLF); empty once it is gone.
fn read_line(s: &mut impl Read) -> std::io::Result<String> {
    let mut line = Vec::new();
    let mut byte = [0u8];
    while s.read(&mut byte)? == 1 && byte[0] != b'\n' && line.len() < 10_000 {
        line.push(byte[0]);
    }
    Ok(String::from_utf8_lossy(&line).trim_end().to_string())
}

/// Writes `total` bytes of `a` (no line feed), until the client stops reading.
fn spew(s: &mut impl Write, total: usize) -> std::io::Result<()> {
    let chunk = [b'a'; 64 * 1024];
    let mut sent = 0;
    while sent < total {
        s.write_all(&chunk)?;
        sent += chunk.len();
    }
    s.flush()
}

/// The plain part, STARTTLS, then the session under TLS.
fn connection(
    mut sock: TcpStream,
    mode: Hostile,
    seen: &Seen,
    tls: Arc<rustls::ServerConfig>,
) -> std::io::Result<()> {
    sock.set_read_timeout(Some(Duration::from_secs(120)))?;
    if mode == Hostile::EndlessGreeting {
        sock.write_all(b"* OK ")?;
        return spew(&mut sock, 400 << 20);
    }
    sock.write_all(b"* OK fake IMAP ready\r\n")?;
    loop {
        let line = read_line(&mut sock)?;
        let (tag, command) = line.split_once(' ').unwrap_or((&line, ""));
        match command.to_ascii_uppercase().as_str() {
            "" => return Ok(()),
            "CAPABILITY" => write!(sock, "* CAPABILITY IMAP4rev1 STARTTLS\r\n{tag} OK done\r\n")?,
            "STARTTLS" => {
                write!(sock, "{tag} OK begin TLS\r\n")?;
                break;
            }
            _ => write!(sock, "{tag} BAD what\r\n")?,
        }
    }
    let conn = rustls::ServerConnection::new(tls).map_err(std::io::Error::other)?;
    let mut s = rustls::StreamOwned::new(conn, sock);
    session(&mut s, mode, seen)
}

/// The commands pbem sends, answered as `mode` has it.
fn session(s: &mut (impl Read + Write), mode: Hostile, seen: &Seen) -> std::io::Result<()> {
    loop {
        let line = read_line(s)?;
        let (tag, command) = line.split_once(' ').unwrap_or((&line, ""));
        let upper = command.to_ascii_uppercase();
        let verb = upper.split(' ').take(2).collect::<Vec<_>>();
        match verb.as_slice() {
            [] | [""] => return Ok(()),
            ["LOGIN", ..] | ["NOOP"] | ["UID", "STORE"] => write!(s, "{tag} OK done\r\n")?,
            ["CAPABILITY"] => write!(s, "* CAPABILITY IMAP4rev1 IDLE\r\n{tag} OK done\r\n")?,
            ["SELECT", ..] if mode == Hostile::EndlessSelect => {
                s.write_all(b"* OK ")?;
                return spew(s, 400 << 20);
            }
            ["SELECT", ..] => write!(
                s,
                "* FLAGS (\\Seen \\Deleted)\r\n* OK [PERMANENTFLAGS (\\Seen \\Deleted \\*)] ok\r\n\
                 * OK [UIDVALIDITY 7] ok\r\n* 1 EXISTS\r\n{tag} OK [READ-WRITE] selected\r\n"
            )?,
            ["UID", "SEARCH"] => write!(s, "* SEARCH 1\r\n{tag} OK done\r\n")?,
            ["UID", "FETCH"] => {
                seen.fetches.fetch_add(1, Ordering::SeqCst);
                fetch(s, tag, mode)?;
            }
            ["IDLE"] => {
                s.write_all(b"+ idling\r\n")?;
                if mode == Hostile::ForgetsAndChatters {
                    loop {
                        s.write_all(b"* OK still here\r\n")?;
                    }
                }
                read_line(s)?;
                write!(s, "{tag} OK idle done\r\n")?;
            }
            ["LOGOUT"] => {
                write!(s, "* BYE\r\n{tag} OK bye\r\n")?;
                return Ok(());
            }
            _ => write!(s, "{tag} BAD what\r\n")?,
        }
        s.flush()?;
    }
}

/// The answer to a FETCH of mail 1.
fn fetch(s: &mut impl Write, tag: &str, mode: Hostile) -> std::io::Result<()> {
    match mode {
        Hostile::HugeLiteral => {
            let n: usize = 400 << 20;
            write!(s, "* 1 FETCH (UID 1 RFC822.SIZE {n} BODY[]<0> {{{n}}}\r\n")?;
            spew(s, n)
        }
        Hostile::DrippingFetch => {
            for b in b"* 1 FETCH (UID 1 RFC822.SIZE 99 BODY[]<0> {99}\r\n"
                .iter()
                .cycle()
            {
                s.write_all(&[*b])?;
                s.flush()?;
                std::thread::sleep(Duration::from_millis(300));
            }
            Ok(())
        }
        _ => {
            write!(
                s,
                "* 1 FETCH (UID 1 RFC822.SIZE {n} BODY[]<0> {{{n}}}\r\n",
                n = MAIL.len()
            )?;
            s.write_all(MAIL)?;
            write!(s, ")\r\n{tag} OK fetched\r\n")
        }
    }
}

/// `pbem` with a fresh database in `dir` (made), reading `url`, sending into `dir`/out.
fn pbem(dir: &Path, url: &str) -> Command {
    let mut cmd = Command::new(BIN);
    cmd.current_dir(dir)
        .env("PBEM_DB", dir.join("pbem.sqlite"))
        .env("PBEM_ADDRESS", "gm@example.org")
        .env("PBEM_OUTBOX_DIR", dir.join("out"))
        .env("PBEM_IMAP", url)
        .env(
            "PBEM_TLS_CA_FILE",
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/imap-tls/ca.pem"),
        )
        .env("PBEM_POLL", "1s")
        .env("PBEM_LOG", "info")
        .env_remove("PBEM_MAILDIR")
        .env_remove("PBEM_TRANSPORT")
        .env_remove("PBEM_CONFIG")
        .env_remove("PBEM_FAULT")
        .env_remove("PBEM_IMAP_USER")
        .env_remove("PBEM_IMAP_PASSWORD")
        .env_remove("PBEM_IMAP_MOVE_TO");
    cmd
}

/// A running `pbem serve`, killed if the test ends before it stopped; its log in `serve.log`.
struct Serve {
    child: Child,
    log: std::path::PathBuf,
}

impl Serve {
    fn start(dir: &Path, url: &str) -> Serve {
        let out = pbem(dir, url).arg("init").output().unwrap();
        assert!(out.status.success(), "{out:?}");
        Serve::start_only(dir, url)
    }

    fn start_only(dir: &Path, url: &str) -> Serve {
        let log = dir.join("serve.log");
        let child = pbem(dir, url)
            .arg("serve")
            .stdout(Stdio::null())
            .stderr(std::fs::File::create(&log).unwrap())
            .spawn()
            .unwrap();
        Serve { child, log }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// Polls `done` until it holds, failing with the log after `limit`.
    fn wait_for(&self, limit: Duration, what: &str, mut done: impl FnMut() -> bool) {
        let start = Instant::now();
        while !done() {
            assert!(
                start.elapsed() < limit,
                "gave up waiting for {what}; serve's log:\n{}",
                self.log()
            );
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// The most memory the process held so far (VmHWM), in bytes.
    fn peak_memory(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
        let kb: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
        kb * 1024
    }

    /// SIGTERM, and a clean exit within `limit`, whatever the server is doing.
    fn stop(mut self, limit: Duration) {
        let log = self.log.clone();
        let log = move || std::fs::read_to_string(&log).unwrap_or_default();
        let status = crate::common::sigterm_and_wait(&mut self.child, limit, log);
        assert!(status.success(), "serve exited with {status:?} on SIGTERM");
    }
}

impl Drop for Serve {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

#[test]
fn a_server_that_forgets_flags_and_chatters_through_idle_has_its_mail_fetched_once() {
    let server = FakeImap::start(vec![Hostile::ForgetsAndChatters]);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let serve = Serve::start(d, &server.url());
    let mut store = Store::open(&d.join("pbem.sqlite"), false).unwrap();
    serve.wait_for(
        Duration::from_secs(60),
        "the mail stored and answered",
        || {
            let answered = store.read(|tx| tx.outbox(None, 10)).unwrap();
            !answered.is_empty()
        },
    );
    // Every IDLE's chatter ends it past its budget, and the next round connects anew: four
    // rounds that each found mail 1 unmarked again.
    serve.wait_for(Duration::from_secs(60), "four rounds", || {
        server.connections() >= 4
    });
    assert_eq!(server.fetches(), 1, "mail 1 is fetched once, never again");
    let messages = store.read(|tx| tx.messages(10)).unwrap();
    assert_eq!(messages.len(), 1);
    let events = store.read(|tx| tx.events(None)).unwrap();
    let duplicates = events
        .iter()
        .filter(|(_, text)| text.contains("duplicate delivery"))
        .count();
    assert_eq!(duplicates, 0, "{events:?}");
    serve.stop(Duration::from_secs(10));
}

#[test]
fn endless_lines_and_a_400_mb_literal_cost_serve_no_more_than_its_budget() {
    let server = FakeImap::start(vec![
        Hostile::EndlessGreeting,
        Hostile::EndlessSelect,
        Hostile::HugeLiteral,
    ]);
    let dir = tempfile::tempdir().unwrap();
    let serve = Serve::start(dir.path(), &server.url());
    let within_memory = || {
        let peak = serve.peak_memory();
        assert!(
            peak < 200 << 20,
            "serve's peak memory {} MB; its log:\n{}",
            peak >> 20,
            serve.log()
        );
    };
    serve.wait_for(Duration::from_secs(60), "each hostile server met", || {
        within_memory();
        server.connections() >= 4
    });
    assert!(server.fetches() >= 1, "the huge literal was asked for");
    within_memory();
    eprintln!("serve's peak memory: {} MB", serve.peak_memory() >> 20);
    let log = serve.log();
    assert!(
        log.contains("more than the 65536 bytes") && log.contains("IMAP round failed; retrying"),
        "each connection is dropped, and logged: {log}"
    );
    assert!(
        log.contains(&format!(
            "more than the {} bytes",
            (1 << 20) + 1 + 64 * 1024
        )),
        "the FETCH's budget: max_message_bytes + 1 + 64 KiB: {log}"
    );
    serve.stop(Duration::from_secs(10));
}

#[test]
fn a_dripping_fetch_neither_holds_the_clocks_nor_a_sigterm() {
    let server = FakeImap::start(vec![Hostile::DrippingFetch]);
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let url = server.url();
    let run = |args: &[&str]| {
        let out = pbem(d, &url).args(args).output().unwrap();
        assert!(out.status.success(), "{args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).trim().to_string()
    };
    run(&["init"]);
    let game = run(&[
        "game",
        "new",
        "dicerink",
        "--player",
        "A=alice@example.net",
        "--player",
        "B=bob@example.net",
    ]);
    let due = pbem::edge::now() + chrono::Duration::seconds(12);
    run(&["game", "deadline", &game, &due.to_rfc3339()]);
    let serve = Serve::start_only(d, &url);
    serve.wait_for(
        Duration::from_secs(30),
        "the FETCH to begin dripping",
        || server.fetches() == 1,
    );
    // Due in twelve seconds; the drip would last for ever.
    let fired = format!("timer of game {game}: deadline");
    serve.wait_for(Duration::from_secs(40), "the deadline to fire", || {
        serve.log().contains(&fired)
    });
    assert_eq!(server.connections(), 1, "the FETCH still drips");
    serve.stop(Duration::from_secs(5));
}

#[test]
fn config_check_connect_reads_an_honest_server_and_names_a_hostile_greeting() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let check = |url: &str| {
        let out = pbem(d, url)
            .args(["config", "check", "--connect"])
            .output()
            .unwrap();
        (out.status.code(), crate::common::output_text(&out))
    };
    let honest = FakeImap::start(vec![Hostile::ForgetsAndChatters]);
    let (code, text) = check(&honest.url());
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("(STARTTLS), logged in as gm") && text.contains("1 mail(s) waiting"),
        "{text}"
    );
    let hostile = FakeImap::start(vec![Hostile::EndlessGreeting]);
    let (code, text) = check(&hostile.url());
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("no IMAP greeting") && text.contains("more than the 65536 bytes"),
        "{text}"
    );
}
