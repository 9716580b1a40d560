//! A TCP proxy on loopback that cuts chosen connections after a number of bytes from the server: a network failure in the middle of a response, on demand.

use std::io::{Read, Write};
use std::net::{Shutdown, SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

pub struct CutProxy {
    pub port: u16,
    /// Connections accepted so far.
    accepted: Arc<AtomicUsize>,
    /// Connections cut so far.
    cut: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
}

impl CutProxy {
    /// Forwards to 127.0.0.1:`upstream`; the nth connection accepted (from 0) is cut after
    /// `cuts[n]` bytes from the server, the ones after `cuts` are left whole.
    pub fn start(upstream: u16, cuts: Vec<usize>) -> CutProxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        listener.set_nonblocking(true).unwrap();
        let port = listener.local_addr().unwrap().port();
        let accepted = Arc::new(AtomicUsize::new(0));
        let cut = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let (a, c, s) = (Arc::clone(&accepted), Arc::clone(&cut), Arc::clone(&stop));
        std::thread::spawn(move || {
            // Bounded: it stops when the test drops the proxy.
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((client, _)) => {
                        let n = a.fetch_add(1, Ordering::SeqCst);
                        let limit = cuts.get(n).copied();
                        let c = Arc::clone(&c);
                        std::thread::spawn(move || relay(client, upstream, limit, c));
                    }
                    Err(_) => std::thread::sleep(Duration::from_millis(20)),
                }
            }
        });
        CutProxy {
            port,
            accepted,
            cut,
            stop,
        }
    }

    pub fn accepted(&self) -> usize {
        self.accepted.load(Ordering::SeqCst)
    }

    pub fn cut(&self) -> usize {
        self.cut.load(Ordering::SeqCst)
    }
}

impl Drop for CutProxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

fn relay(client: TcpStream, upstream: u16, limit: Option<usize>, cut: Arc<AtomicUsize>) {
    client.set_nonblocking(false).unwrap();
    let Ok(server) = TcpStream::connect(SocketAddr::from(([127, 0, 0, 1], upstream))) else {
        return;
    };
    let (mut c_in, mut s_out) = (client.try_clone().unwrap(), server.try_clone().unwrap());
    // Client to server, whole.
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut c_in, &mut s_out);
        let _ = s_out.shutdown(Shutdown::Write);
    });
    // Server to client, up to the limit; then both sides are cut at once.
    let (mut s_in, mut c_out) = (server, client);
    let mut passed = 0usize;
    let mut buf = [0u8; 4096];
    loop {
        let n = match s_in.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let allowed = limit.map_or(n, |l| n.min(l - passed));
        if c_out.write_all(&buf[..allowed]).is_err() {
            break;
        }
        passed += allowed;
        if limit.is_some_and(|l| passed >= l) {
            cut.fetch_add(1, Ordering::SeqCst);
            break;
        }
    }
    let _ = c_out.shutdown(Shutdown::Both);
    let _ = s_in.shutdown(Shutdown::Both);
}
