//! Player passwords (for `PASSWORD` lines): salted SHA-256, never stored or echoed in clear.

use sha2::{Digest, Sha256};

/// Hashes a password with a salt made at the edge: `sha256$<salt>$<hex>`.
pub fn hash(password: &str, salt: &str) -> String {
    format!("sha256${salt}${}", digest(password, salt))
}

/// Whether a password matches a stored hash (compared in constant time).
pub fn verify(password: &str, stored: &str) -> bool {
    let mut parts = stored.splitn(3, '$');
    let (Some("sha256"), Some(salt), Some(want)) = (parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let got = digest(password, salt);
    got.len() == want.len()
        && got
            .bytes()
            .zip(want.bytes())
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

fn digest(password: &str, salt: &str) -> String {
    hex::encode(Sha256::digest(format!("{salt}\0{}", password.trim())))
}

#[cfg(test)]
mod tests {
    #[test]
    fn verifies_only_the_right_password() {
        let h = super::hash("hunter2", "abc");
        assert!(super::verify("hunter2", &h));
        assert!(super::verify(" hunter2 ", &h));
        assert!(!super::verify("hunter3", &h));
        assert!(!super::verify("hunter2", "plain"));
        assert!(!h.contains("hunter2"));
    }
}
