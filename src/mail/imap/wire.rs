//! The IMAP connection's wire: TCP with timeouts, rustls (Mozilla's roots plus `tls_ca_file`), STARTTLS, and reads that an IDLE's deadline or a stop signal can end.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{TcpStream, ToSocketAddrs};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use anyhow::{anyhow, Context};
use imap::extensions::idle::SetReadTimeout;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, ServerName};
use rustls::{ClientConfig, ClientConnection, RootCertStore, StreamOwned};

use super::account::{ImapAccount, Security};

/// How long a connection may take to open.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(30);
/// How long one read or write may wait outside IDLE: a server silent this long is taken for
/// gone, and the connection is made anew.
const IO_TIMEOUT: Duration = Duration::from_secs(60);
/// While idling, how often a read looks at the stop flag: a signal ends an IDLE this fast.
const IDLE_TICK: Duration = Duration::from_millis(250);

/// The TLS stream an `imap::Client` runs on. Outside IDLE a read fails after `IO_TIMEOUT`;
/// during IDLE (`SetReadTimeout` with a duration) it waits until that deadline or the stop
/// flag, whichever comes first, and then fails with `TimedOut`, which ends the IDLE.
pub struct Stream {
    tls: StreamOwned<ClientConnection, TcpStream>,
    idle_until: Option<Instant>,
    stop: Arc<AtomicBool>,
}

impl Read for Stream {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            match self.tls.read(buf) {
                Err(e) if is_timeout(&e) => match self.idle_until {
                    Some(until) if Instant::now() < until && !self.stop.load(Ordering::SeqCst) => {}
                    _ => return Err(io::Error::new(io::ErrorKind::TimedOut, e)),
                },
                other => return other,
            }
        }
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

impl SetReadTimeout for Stream {
    fn set_read_timeout(&mut self, timeout: Option<Duration>) -> imap::Result<()> {
        self.idle_until = timeout.map(|t| Instant::now() + t);
        let tick = match timeout {
            Some(_) => IDLE_TICK,
            None => IO_TIMEOUT,
        };
        self.tls
            .sock
            .set_read_timeout(Some(tick))
            .map_err(imap::Error::Io)
    }
}

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
            Ok(s) => {
                s.set_read_timeout(Some(IO_TIMEOUT))?;
                s.set_write_timeout(Some(IO_TIMEOUT))?;
                return Ok(s);
            }
            Err(e) => last = Some(anyhow!("cannot connect to {addr}: {e}")),
        }
    }
    Err(last.unwrap_or_else(|| anyhow!("{} has no address", account.host)))
}

/// The handshake, done here rather than at the first read so that its failure (an unknown
/// certificate, most often) is reported as what it is.
fn handshake(account: &ImapAccount, mut sock: TcpStream) -> anyhow::Result<Stream> {
    let config = tls_config(account)?;
    let name = ServerName::try_from(account.host.clone())
        .map_err(|e| anyhow!("{:?} is no TLS server name: {e}", account.host))?;
    let mut conn = ClientConnection::new(config, name).context("TLS set-up")?;
    while conn.is_handshaking() {
        conn.complete_io(&mut sock).map_err(|e| {
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
        tls: StreamOwned::new(conn, sock),
        idle_until: None,
        stop: Arc::new(AtomicBool::new(false)),
    })
}

/// The plain part of STARTTLS: the greeting and the capabilities through the crate, then the
/// one command it offers no way to send with pbem's own TLS set-up (its builder would take
/// only its built-in roots): `STARTTLS`, and its tagged answer, read line by line so that no
/// byte of the TLS handshake is read here.
fn starttls(sock: TcpStream) -> anyhow::Result<TcpStream> {
    let mut client = imap::Client::new(sock);
    client.read_greeting().context("no IMAP greeting")?;
    let caps = client.capabilities().context("CAPABILITY failed")?;
    if !caps.has_str("STARTTLS") {
        anyhow::bail!("the server offers no STARTTLS (use imaps:// if it has a TLS port)");
    }
    let mut sock = client.into_inner().context("IMAP connection")?;
    sock.write_all(b"pbem STARTTLS\r\n")?;
    let mut reader = BufReader::with_capacity(1, &sock);
    // Before TLS anyone on the path may answer: no line, nor all of them, may be unbounded.
    let mut budget: u64 = 64 * 1024;
    loop {
        let mut line = String::new();
        let n = (&mut reader).take(budget.min(8192)).read_line(&mut line)?;
        if n == 0 {
            anyhow::bail!("the server closed the connection after STARTTLS");
        }
        budget = budget.saturating_sub(n as u64);
        if budget == 0 || !line.ends_with('\n') {
            anyhow::bail!("the server's answer to STARTTLS is too long");
        }
        if let Some(answer) = line.strip_prefix("pbem ") {
            if !answer.to_ascii_uppercase().starts_with("OK") {
                anyhow::bail!("STARTTLS refused: {}", answer.trim());
            }
            return Ok(sock);
        }
    }
}

/// Connects and secures the connection (nothing read but the greeting): an `imap::Client`
/// ready to log in. `stop` ends an IDLE early.
pub fn open(account: &ImapAccount, stop: Arc<AtomicBool>) -> anyhow::Result<imap::Client<Stream>> {
    let sock = tcp(account)?;
    let (stream, greeted) = match account.security {
        Security::Tls => (handshake(account, sock)?, false),
        Security::StartTls => (handshake(account, starttls(sock)?)?, true),
    };
    let mut client = imap::Client::new(Stream { stop, ..stream });
    // After STARTTLS there is no second greeting (RFC 3501, 6.2.1).
    if !greeted {
        client.read_greeting().context("no IMAP greeting")?;
    }
    Ok(client)
}
