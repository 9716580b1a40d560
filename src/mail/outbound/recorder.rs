//! The tests' stand-in for a relay: a transport that keeps every mail it takes in memory and fails the mails it is told to.

use std::sync::{Arc, Mutex, MutexGuard};

use super::{RawMail, SendError};

/// The test double for a relay: a transport that keeps in memory every mail it takes, and
/// fails the mails it is told to (transient or permanent, as an SMTP server's 4xx or 5xx).
/// Clones share what they record, so a test keeps one while the sender uses another.
#[derive(Debug, Clone, Default)]
pub struct Recorder(Arc<Mutex<Recorded>>);

#[derive(Debug, Default)]
struct Recorded {
    taken: Vec<RawMail>,
    tries: usize,
    failures: std::collections::VecDeque<SendError>,
}

impl Recorder {
    /// The next `n` mails handed over fail with `error`; later ones are taken again.
    pub fn fail_next(&self, n: usize, error: SendError) {
        self.lock().failures.extend(std::iter::repeat_n(error, n));
    }

    /// Every mail taken, in order (a mail taken twice is here twice).
    pub fn taken(&self) -> Vec<RawMail> {
        self.lock().taken.clone()
    }

    /// How many mails were handed over, failed ones included.
    pub fn tries(&self) -> usize {
        self.lock().tries
    }

    pub(super) fn take(&self, mail: &RawMail) -> Result<(), SendError> {
        let mut recorded = self.lock();
        recorded.tries += 1;
        if let Some(error) = recorded.failures.pop_front() {
            return Err(error);
        }
        recorded.taken.push(mail.clone());
        Ok(())
    }

    /// A test that panicked while holding the lock leaves what was recorded intact.
    fn lock(&self) -> MutexGuard<'_, Recorded> {
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }
}
