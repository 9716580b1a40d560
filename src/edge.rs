//! The edge: the one module that reads the wall clock and the OS's randomness (clippy.toml allows them nowhere else).

use anyhow::anyhow;
use chrono::{DateTime, Utc};

use crate::dice::Seed;

/// The wall clock. Everything below the edge takes `now` as an argument, so tests run on a
/// fixed clock; this is where the real one is read.
#[allow(clippy::disallowed_methods)]
pub fn now() -> DateTime<Utc> {
    Utc::now()
}

/// `N` bytes from the OS's randomness, for secrets only: a roll is derived from the game's
/// seed (`dice::roll`), never drawn.
#[allow(clippy::disallowed_methods)]
fn random_bytes<const N: usize>() -> anyhow::Result<[u8; N]> {
    let mut bytes = [0u8; N];
    getrandom::fill(&mut bytes).map_err(|e| anyhow!("no randomness from the OS: {e}"))?;
    Ok(bytes)
}

/// A game's secret dice seed, fresh from the operating system (made once, when the game is
/// created; every roll is derived from it, never drawn).
pub fn new_seed() -> anyhow::Result<Seed> {
    Ok(Seed::from_bytes(random_bytes::<32>()?))
}

/// 16 random bytes from the OS for a password hash's salt (a secret made, never a roll).
pub fn new_salt() -> anyhow::Result<[u8; 16]> {
    random_bytes::<16>()
}

/// 32 random bytes from the OS for a key the store keeps (the bounce address's MAC key).
pub fn new_key() -> anyhow::Result<[u8; 32]> {
    random_bytes::<32>()
}

/// A secret reply token: 80 random bits in lower-case base32 (safe in a mail local part).
pub fn new_token() -> anyhow::Result<String> {
    const ALPHABET: &[u8] = b"abcdefghijklmnopqrstuvwxyz234567";
    let mut bits: u128 = 0;
    for b in random_bytes::<10>()? {
        bits = (bits << 8) | u128::from(b);
    }
    Ok((0..16)
        .map(|i| ALPHABET[((bits >> (75 - 5 * i)) & 31) as usize] as char)
        .collect())
}

#[cfg(test)]
mod tests {
    #[test]
    fn generated_seeds_differ() {
        assert_ne!(super::new_seed().unwrap(), super::new_seed().unwrap());
    }

    #[test]
    fn tokens_are_sixteen_base32_characters_and_differ() {
        let (a, b) = (super::new_token().unwrap(), super::new_token().unwrap());
        assert_eq!(a.len(), 16);
        assert!(a
            .bytes()
            .all(|c| c.is_ascii_lowercase() || (b'2'..=b'7').contains(&c)));
        assert_ne!(a, b);
    }
}
