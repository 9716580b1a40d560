//! The IMAP connection's wire: TCP under a per-exchange byte budget and deadline (and the stop flag), rustls (Mozilla's roots plus `tls_ca_file`), STARTTLS.
//!
//! The imap crate reads a whole response into memory before it parses it, and waits as long
//! as bytes keep coming. So the bound is here, under TLS and under the crate: before each
//! command pbem says how many bytes its answer may take and by when (`Bounds::set`); a read
//! past either, or once the stop flag is up, fails, and the connection is dropped. A hostile
//! server (or anyone on the path before STARTTLS) can then cost at most that budget in memory
//! and that time in waiting, and never delays a SIGTERM by more than a `TICK`.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context};
use imap::extensions::idle::SetReadTimeout;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};

use super::account::{ImapAccount, Security};

/// How long a connection may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// The longest one socket read waits before the stop flag and the deadline are looked at
/// again: a signal ends any exchange this fast.
const TICK: Duration = Duration::from_millis(250);
/// What an ordinary exchange (the greeting, LOGIN, SELECT, STORE, ...) may take: its answer is
/// a few lines.
pub(super) const ORDINARY_BYTES: u64 = 64 * 1024;
/// How long an ordinary exchange may take, all its reads together.
pub(super) const ORDINARY_TIME: Duration = Duration::from_secs(60);

/// The budget and deadline of the exchange under way, shared by the stream and whoever sends
/// the commands.
#[derive(Clone)]
pub(super) struct Bounds(Arc<Mutex<Limits>>);

struct Limits {
    /// Bytes the server may still send in this exchange.
    left: u64,
    /// What the exchange was given, for the error.
    budget: u64,
    until: Instant,
}

impl Bounds {
    fn new() -> Bounds {
        let bounds = Bounds(Arc::new(Mutex::new(Limits {
            left: 0,
            budget: 0,
            until: Instant::now(),
        })));
        bounds.ordinary();
        bounds
    }

    /// A new exchange: the server may send `bytes` more, within `time` from now.
    pub(super) fn set(&self, bytes: u64, time: Duration) {
        let mut l = self.0.lock().unwrap_or_else(|p| p.into_inner());
        *l = Limits {
            left: bytes,
            budget: bytes,
            until: Instant::now() + time,
        };
    }

    /// A new ordinary exchange (`ORDINARY_BYTES` within `ORDINARY_TIME`).
    pub(super) fn ordinary(&self) {
        self.set(ORDINARY_BYTES, ORDINARY_TIME);
    }

    /// How many bytes a read may take now and the time it may wait, or why it may not read.
    fn allowance(&self) -> io::Result<(u64, Duration)> {
        let l = self.0.lock().unwrap_or_else(|p| p.into_inner());
        let now = Instant::now();
        if now >= l.until {
            return Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "the IMAP server did not finish its answer in time",
            ));
        }
        if l.left == 0 {
            return Err(io::Error::new(
                io::ErrorKind::InvalidData,
                format!(
                    "the IMAP server sent more than the {} bytes its answer may take",
                    l.budget
                ),
            ));
        }
        Ok((l.left, l.until - now))
    }

    fn spend(&self, n: usize) {
        let mut l = self.0.lock().unwrap_or_else(|p| p.into_inner());
        l.left = l.left.saturating_sub(n as u64);
    }
}

/// The TCP socket under everything (the plain part of STARTTLS, the TLS handshake, the TLS
/// session): each read takes at most what the exchange has left and waits at most until its
/// deadline, a `TICK` at a time.
pub(super) struct Wire {
    sock: TcpStream,
    bounds: Bounds,
    stop: Arc<AtomicBool>,
}

impl Wire {
    fn stopped(&self) -> io::Result<()> {
        match self.stop.load(Ordering::SeqCst) {
            // Not `Interrupted`: `read_until` would retry that.
            true => Err(io::Error::other("pbem is stopping")),
            false => Ok(()),
        }
    }
}

impl Read for Wire {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            self.stopped()?;
            let (left, time) = self.bounds.allowance()?;
            self.sock.set_read_timeout(Some(time.min(TICK)))?;
            let n = buf.len().min(usize::try_from(left).unwrap_or(usize::MAX));
            match self.sock.read(&mut buf[..n]) {
                Err(e) if is_timeout(&e) => {}
                Ok(read) => {
                    self.bounds.spend(read);
                    return Ok(read);
                }
                Err(e) => return Err(e),
            }
        }
    }
}

impl Write for Wire {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        loop {
            self.stopped()?;
            let (_, time) = self.bounds.allowance().or_else(|e| match e.kind() {
                // A server that sent its whole budget may still be written to (IDLE's DONE).
                io::ErrorKind::InvalidData => Ok((0, TICK)),
                _ => Err(e),
            })?;
            self.sock.set_write_timeout(Some(time.min(TICK)))?;
            match self.sock.write(buf) {
                Err(e) if is_timeout(&e) => {}
                other => return other,
            }
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        self.sock.flush()
    }
}

/// The TLS stream an `imap::Client` runs on, over the bounded `Wire`.
pub(super) struct Stream {
    tls: StreamOwned<ClientConnection, Wire>,
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.tls.read(buf)
    }
}

impl Write for Stream {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.tls.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.tls.flush()
    }
}

/// IDLE's wait: the crate gives it the wait's length, and takes it back (`None`) before it
/// sends DONE. The wait is an exchange of its own (`IDLE_BYTES`: a server that chatters past
/// that fails it), and DONE's answer an ordinary one.
impl SetReadTimeout for Stream {
    fn set_read_timeout(&mut self, timeout: Option<Duration>) -> imap::Result<()> {
        match timeout {
            Some(wait) => self.tls.sock.bounds.set(IDLE_BYTES, wait),
            None => self.tls.sock.bounds.ordinary(),
        }
        Ok(())
    }
}

/// What the server may send during one IDLE: news of a few thousand mails; "still here"
/// forever is not news.
pub(super) const IDLE_BYTES: u64 = 256 * 1024;

/// A socket read timeout: `WouldBlock` on Unix, `TimedOut` elsewhere.
fn is_timeout(e: &io::Error) -> bool {
    matches!(
        e.kind(),
        io::ErrorKind::WouldBlock | io::ErrorKind::TimedOut
    )
}

/// rustls with Mozilla's roots (as lettre has for SMTP) and the CA file, if any.
fn tls_config(account: &ImapAccount) -> anyhow::Result<Arc<ClientConfig>> {
    let mut roots = RootCertStore::empty();
    roots.extend(webpki_roots::TLS_SERVER_ROOTS.iter().cloned());
    if let Some(path) = &account.tls_ca_file {
        let certs = CertificateDer::pem_file_iter(path)
            .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
            .map_err(|e| anyhow!("tls_ca_file {}: {e}", path.display()))?;
        if certs.is_empty() {
            anyhow::bail!("tls_ca_file {}: no certificate in it", path.display());
        }
        for cert in certs {
            roots
                .add(cert)
                .map_err(|e| anyhow!("tls_ca_file {}: {e}", path.display()))?;
        }
    }
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| anyhow!("TLS set-up: {e}"))?
        .with_root_certificates(roots)
        .with_no_client_auth();
    Ok(Arc::new(config))
}

fn tcp(account: &ImapAccount) -> anyhow::Result<TcpStream> {
    let addrs = (account.host.as_str(), account.port)
        .to_socket_addrs()
        .with_context(|| format!("cannot resolve {}", account.host))?;
    let mut last = None;
    for addr in addrs {
        match TcpStream::connect_timeout(&addr, CONNECT_TIMEOUT) {
            Ok(s) => return Ok(s),
            Err(e) => last = Some(anyhow!("cannot connect to {addr}: {e}")),
        }
    }
    Err(last.unwrap_or_else(|| anyhow!("{} has no address", account.host)))
}

/// The handshake, done here rather than at the first read so that its failure (an unknown
/// certificate, most often) is reported as what it is. It is an ordinary exchange.
fn handshake(account: &ImapAccount, mut wire: Wire) -> anyhow::Result<Stream> {
    let config = tls_config(account)?;
    let name = ServerName::try_from(account.host.clone())
        .map_err(|e| anyhow!("{:?} is no TLS server name: {e}", account.host))?;
    let mut conn = ClientConnection::new(config, name).context("TLS set-up")?;
    wire.bounds.ordinary();
    while conn.is_handshaking() {
        conn.complete_io(&mut wire).map_err(|e| {
            let hint = match account.tls_ca_file {
                None if e.to_string().contains("certificate") => {
                    " (a private or self-signed certificate needs tls_ca_file)"
                }
                _ => "",
            };
            anyhow!("TLS handshake failed: {e}{hint}")
        })?;
    }
    Ok(Stream {
        tls: StreamOwned::new(conn, wire),
    })
}

/// The plain part of STARTTLS: the greeting and the capabilities through the crate, then the
/// one command it offers no way to send with pbem's own TLS set-up (its builder would take
/// only its built-in roots): `STARTTLS`, and its tagged answer, read line by line so that no
/// byte of the TLS handshake is read here. Before TLS anyone on the path may answer: each
/// exchange is ordinary, in bytes and in time.
fn starttls(wire: Wire) -> anyhow::Result<Wire> {
    let bounds = wire.bounds.clone();
    let mut client = imap::Client::new(wire);
    bounds.ordinary();
    client.read_greeting().context("no IMAP greeting")?;
    bounds.ordinary();
    let caps = client.capabilities().context("CAPABILITY failed")?;
    if !caps.has_str("STARTTLS") {
        anyhow::bail!("the server offers no STARTTLS (use imaps:// if it has a TLS port)");
    }
    let mut wire = client.into_inner().context("IMAP connection")?;
    bounds.ordinary();
    wire.write_all(b"pbem STARTTLS\r\n")?;
    let mut reader = BufReader::with_capacity(1, &mut wire);
    loop {
        let mut line = Vec::new();
        let n = reader
            .read_until(b'\n', &mut line)
            .map_err(|e| match e.kind() {
                io::ErrorKind::InvalidData => {
                    anyhow!("the server's answer to STARTTLS is too long")
                }
                _ => anyhow!("no answer to STARTTLS: {e}"),
            })?;
        if n == 0 {
            anyhow::bail!("the server closed the connection after STARTTLS");
        }
        if let Some(answer) = line.strip_prefix(b"pbem ") {
            let answer = String::from_utf8_lossy(answer);
            if !answer.to_ascii_uppercase().starts_with("OK") {
                anyhow::bail!(
                    "STARTTLS refused: {}",
                    crate::quote::shorten(answer.trim(), 80)
                );
            }
            drop(reader);
            return Ok(wire);
        }
    }
}

/// Connects and secures the connection (nothing read but the greeting): an `imap::Client`
/// ready to log in, and the bounds its caller sets before each command. `stop` fails any
/// read or write within a `TICK`.
pub(super) fn open(
    account: &ImapAccount,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<(imap::Client<Stream>, Bounds)> {
    let bounds = Bounds::new();
    let wire = Wire {
        sock: tcp(account)?,
        bounds: bounds.clone(),
        stop,
    };
    let (stream, greeted) = match account.security {
        Security::Tls => (handshake(account, wire)?, false),
        Security::StartTls => (handshake(account, starttls(wire)?)?, true),
    };
    let mut client = imap::Client::new(stream);
    // After STARTTLS there is no second greeting (RFC 3501, 6.2.1).
    if !greeted {
        bounds.ordinary();
        client.read_greeting().context("no IMAP greeting")?;
    }
    Ok((client, bounds))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::net::TcpListener;

    /// A wire to a server on loopback that does `server` with its side of the socket.
    fn wire_to(server: impl FnOnce(TcpStream) + Send + 'static) -> (Wire, Arc<AtomicBool>) {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        std::thread::spawn(move || {
            let (sock, _) = listener.accept().unwrap();
            server(sock);
        });
        let stop = Arc::new(AtomicBool::new(false));
        let wire = Wire {
            sock: TcpStream::connect(addr).unwrap(),
            bounds: Bounds::new(),
            stop: Arc::clone(&stop),
        };
        (wire, stop)
    }

    /// Reads a line through a buffer, as the imap crate does.
    fn read_line(wire: &mut Wire) -> (io::Result<usize>, Vec<u8>) {
        let mut line = Vec::new();
        let read = BufReader::new(wire).read_until(b'\n', &mut line);
        (read, line)
    }

    #[test]
    fn a_server_dripping_a_line_fails_the_exchange_at_its_deadline() {
        let (mut wire, _) = wire_to(|mut sock| {
            for _ in 0..300 {
                if sock.write_all(b"*").is_err() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        });
        wire.bounds.set(ORDINARY_BYTES, Duration::from_secs(1));
        let started = Instant::now();
        let (read, line) = read_line(&mut wire);
        assert_eq!(read.unwrap_err().kind(), io::ErrorKind::TimedOut);
        assert!(!line.is_empty(), "the drip was read until the deadline");
        // Thirty seconds of drip were on offer; a generous bound on an idle test.
        assert!(started.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn an_endless_line_fails_the_exchange_at_its_budget() {
        let (mut wire, _) = wire_to(|mut sock| {
            let chunk = [b'a'; 64 * 1024];
            for _ in 0..1000 {
                if sock.write_all(&chunk).is_err() {
                    return;
                }
            }
        });
        wire.bounds.set(100_000, ORDINARY_TIME);
        let (read, line) = read_line(&mut wire);
        let err = read.unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(
            err.to_string().contains("more than the 100000 bytes"),
            "{err}"
        );
        assert_eq!(line.len(), 100_000, "exactly the budget read, no more");
    }

    #[test]
    fn the_stop_flag_ends_a_silent_wait_at_once() {
        let (mut wire, stop) = wire_to(|sock| {
            std::thread::sleep(Duration::from_secs(30));
            drop(sock);
        });
        let started = Instant::now();
        let raise = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(300));
            stop.store(true, Ordering::SeqCst);
        });
        let (read, _) = read_line(&mut wire);
        raise.join().unwrap();
        assert!(read.unwrap_err().to_string().contains("stopping"));
        assert!(started.elapsed() < Duration::from_secs(5));
    }
}
