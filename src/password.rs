//! Player passwords (for `PASSWORD` lines): argon2id in PHC strings, verified in constant time, never stored or echoed in clear.

use argon2::password_hash::{PasswordHash, PasswordHasher, PasswordVerifier, SaltString};
use argon2::Argon2;
use sha2::{Digest, Sha256};

/// Hashes a password with argon2id (the crate's recommended parameters) and a salt made at
/// the edge (16 random bytes): a PHC string `$argon2id$v=19$m=...,t=...,p=...$salt$hash`.
pub fn hash(password: &str, salt: &[u8; 16]) -> anyhow::Result<String> {
    let salt = SaltString::encode_b64(salt).map_err(|e| anyhow::anyhow!("password salt: {e}"))?;
    Argon2::default()
        .hash_password(password.trim().as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| anyhow::anyhow!("cannot hash the password: {e}"))
}

/// Whether a password matches a stored hash. argon2 compares in constant time; a hash from
/// before argon2 (`sha256$salt$hex`, one round) still verifies, and `needs_rehash` says to
/// replace it at once.
pub fn verify(password: &str, stored: &str) -> bool {
    if let Some(legacy) = stored.strip_prefix("sha256$") {
        return verify_legacy(password, legacy);
    }
    match PasswordHash::new(stored) {
        Ok(parsed) => Argon2::default()
            .verify_password(password.trim().as_bytes(), &parsed)
            .is_ok(),
        Err(_) => false,
    }
}

/// A stored hash that is not argon2id: to be replaced by `hash` after the next good password.
pub fn needs_rehash(stored: &str) -> bool {
    !stored.starts_with("$argon2id$")
}

fn verify_legacy(password: &str, salt_and_hex: &str) -> bool {
    let Some((salt, want)) = salt_and_hex.split_once('$') else {
        return false;
    };
    let got = hex::encode(Sha256::digest(format!("{salt}\0{}", password.trim())));
    got.len() == want.len()
        && got
            .bytes()
            .zip(want.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verifies_only_the_right_password() {
        let h = hash("hunter2", &[7; 16]).unwrap();
        assert!(h.starts_with("$argon2id$"), "{h}");
        assert!(verify("hunter2", &h));
        assert!(verify(" hunter2 ", &h));
        assert!(!verify("hunter3", &h));
        assert!(!verify("hunter2", "plain"));
        assert!(!h.contains("hunter2"));
        assert!(!needs_rehash(&h));
    }

    #[test]
    fn an_old_sha256_hash_still_verifies_and_asks_to_be_replaced() {
        let old = format!("sha256$abc${}", hex::encode(Sha256::digest("abc\0hunter2")));
        assert!(verify("hunter2", &old));
        assert!(!verify("hunter3", &old));
        assert!(needs_rehash(&old));
    }
}
