//! DKIM signing (RFC 6376, relaxed/relaxed; ed25519-sha256 of RFC 8463 or rsa-sha256) of a finished mail's bytes, and the DNS record that publishes the key.

use std::fmt;
use std::path::Path;
use std::sync::Arc;

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use ring::signature::{Ed25519KeyPair, KeyPair, RsaKeyPair, RSA_PKCS1_SHA256};
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::PrivateKeyDer;
use sha2::{Digest, Sha256};

/// The headers signed, when the mail has them: what a reader sees and what threads it, so
/// none can be changed on the way without the signature failing.
const SIGNED: &[&str] = &[
    "From",
    "To",
    "Subject",
    "Date",
    "Message-ID",
    "In-Reply-To",
    "References",
    "MIME-Version",
    "Content-Type",
    "Auto-Submitted",
];

/// A loaded private key.
enum Key {
    Ed25519(Ed25519KeyPair),
    Rsa(RsaKeyPair),
}

/// What signs pbem's mail: the key, its selector and the signing domain (`d=`). Cheap to
/// clone (the key is shared), and its `Debug` shows no key.
#[derive(Clone)]
pub struct DkimSigner {
    key: Arc<Key>,
    selector: String,
    domain: String,
}

impl fmt::Debug for DkimSigner {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "DkimSigner({}._domainkey.{}, {})",
            self.selector,
            self.domain,
            self.algorithm()
        )
    }
}

impl DkimSigner {
    /// Reads a PEM private key (PKCS#8 ed25519 or RSA, PKCS#1 RSA) from `path`; the error
    /// says what is wrong in words.
    pub fn load(path: &Path, selector: &str, domain: &str) -> Result<DkimSigner, String> {
        let pem = std::fs::read(path).map_err(|e| format!("cannot read it: {e}"))?;
        let key = parse_key(&pem)?;
        let selector = selector.trim();
        let domain = domain.trim().trim_end_matches('.').to_ascii_lowercase();
        let fits = |s: &str| {
            !s.is_empty()
                && s.split('.').all(|l| {
                    !l.is_empty()
                        && l.bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
                })
        };
        if !fits(selector) {
            return Err(format!(
                "the selector {selector:?} must be a DNS name such as pbem2026"
            ));
        }
        if !fits(&domain) {
            return Err(format!("the domain {domain:?} is not a DNS name"));
        }
        Ok(DkimSigner {
            key: Arc::new(key),
            selector: selector.to_string(),
            domain,
        })
    }

    /// `ed25519` or `rsa` (the DNS record's `k=`).
    pub fn algorithm(&self) -> &'static str {
        match *self.key {
            Key::Ed25519(_) => "ed25519",
            Key::Rsa(_) => "rsa",
        }
    }

    /// The name the public key is published under: `SELECTOR._domainkey.DOMAIN`.
    pub fn record_name(&self) -> String {
        format!("{}._domainkey.{}", self.selector, self.domain)
    }

    /// The TXT record's text: `v=DKIM1; k=...; p=...` (the public key, base64: ed25519's
    /// 32 bytes, RSA's SubjectPublicKeyInfo).
    pub fn record_text(&self) -> String {
        let public = match &*self.key {
            Key::Ed25519(k) => k.public_key().as_ref().to_vec(),
            Key::Rsa(k) => rsa_spki(k.public_key().as_ref()),
        };
        format!("v=DKIM1; k={}; p={}", self.algorithm(), B64.encode(public))
    }

    /// The record as a zone file line, the text split into strings of at most 255
    /// characters (a TXT record's limit; an RSA key is longer).
    pub fn zone_line(&self) -> String {
        let text = self.record_text();
        let strings: Vec<String> = text
            .as_bytes()
            .chunks(255)
            .map(|c| format!("\"{}\"", String::from_utf8_lossy(c)))
            .collect();
        format!("{}. IN TXT {}", self.record_name(), strings.join(" "))
    }

    /// The mail with a `DKIM-Signature` header in front. `bytes` is a finished message
    /// with CRLF line ends (what the outbox stores).
    pub fn sign(&self, bytes: &[u8]) -> Result<Vec<u8>, String> {
        let (head, body) = split(bytes);
        let fields = header_fields(head);
        let mut names = Vec::new();
        let mut hashed = Vec::new();
        // The last instance of each name is the one a verifier takes first (RFC 6376 5.4.2).
        for name in SIGNED {
            if let Some(f) = fields
                .iter()
                .rev()
                .find(|f| field_name(f).eq_ignore_ascii_case(name))
            {
                names.push(name.to_ascii_lowercase());
                hashed.extend_from_slice(&relaxed_header(f));
            }
        }
        let body_hash = B64.encode(Sha256::digest(relaxed_body(body)));
        let a = match *self.key {
            Key::Ed25519(_) => "ed25519-sha256",
            Key::Rsa(_) => "rsa-sha256",
        };
        // Folded so that no line is long; the verifier unfolds (relaxed) the same way.
        let unsigned = format!(
            "DKIM-Signature: v=1; a={a}; c=relaxed/relaxed; d={}; s={};\r\n\th={};\r\n\tbh={body_hash};\r\n\tb=",
            self.domain,
            self.selector,
            names.join(":")
        );
        let mut data = hashed;
        let canon = relaxed_header(unsigned.as_bytes());
        // The signature header is hashed without its final CRLF (RFC 6376 3.7).
        data.extend_from_slice(&canon[..canon.len() - 2]);
        let signature = match &*self.key {
            // RFC 8463: ed25519 signs the SHA-256 hash of the data.
            Key::Ed25519(k) => k.sign(&Sha256::digest(&data)).as_ref().to_vec(),
            Key::Rsa(k) => {
                let mut sig = vec![0; k.public().modulus_len()];
                k.sign(&RSA_PKCS1_SHA256, &crate::edge::blinding(), &data, &mut sig)
                    .map_err(|_| "the RSA signature could not be made".to_string())?;
                sig
            }
        };
        let mut out = Vec::with_capacity(bytes.len() + unsigned.len() + 400);
        out.extend_from_slice(unsigned.as_bytes());
        out.extend_from_slice(B64.encode(signature).as_bytes());
        out.extend_from_slice(b"\r\n");
        out.extend_from_slice(bytes);
        Ok(out)
    }
}

/// The key in a PEM file, whichever of the kinds pbem signs with.
fn parse_key(pem: &[u8]) -> Result<Key, String> {
    let der = PrivateKeyDer::from_pem_slice(pem).map_err(|e| {
        format!(
            "no PEM private key in it ({e:?}); make one with `openssl genpkey -algorithm ed25519`"
        )
    })?;
    match der {
        PrivateKeyDer::Pkcs8(k) => {
            let k = k.secret_pkcs8_der();
            Ed25519KeyPair::from_pkcs8_maybe_unchecked(k)
                .map(Key::Ed25519)
                .or_else(|_| RsaKeyPair::from_pkcs8(k).map(Key::Rsa))
                .map_err(|e| {
                    format!("neither an ed25519 nor an RSA key of 2048 to 8192 bits ({e})")
                })
        }
        PrivateKeyDer::Pkcs1(k) => RsaKeyPair::from_der(k.secret_pkcs1_der())
            .map(Key::Rsa)
            .map_err(|e| format!("not an RSA key of 2048 to 8192 bits ({e})")),
        _ => Err("an EC key: DKIM signs with ed25519 or RSA".into()),
    }
}

/// RSA's public key (PKCS#1 `RSAPublicKey`, as ring gives it) wrapped as the
/// SubjectPublicKeyInfo a DKIM record carries.
fn rsa_spki(pkcs1: &[u8]) -> Vec<u8> {
    // AlgorithmIdentifier { rsaEncryption, NULL }
    const ALG: &[u8] = &[
        0x30, 0x0d, 0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01, 0x05, 0x00,
    ];
    let mut bits = vec![0u8];
    bits.extend_from_slice(pkcs1);
    let mut inner = ALG.to_vec();
    inner.extend(der(0x03, &bits));
    der(0x30, &inner)
}

/// One DER element: tag, length, content.
fn der(tag: u8, content: &[u8]) -> Vec<u8> {
    let mut out = vec![tag];
    let n = content.len();
    match n {
        0..=127 => out.push(n as u8),
        128..=255 => out.extend([0x81, n as u8]),
        _ => out.extend([0x82, (n >> 8) as u8, n as u8]),
    }
    out.extend_from_slice(content);
    out
}

/// The header block (with its last CRLF) and the body.
fn split(bytes: &[u8]) -> (&[u8], &[u8]) {
    match bytes.windows(4).position(|w| w == b"\r\n\r\n") {
        Some(i) => (&bytes[..i + 2], &bytes[i + 4..]),
        None => (bytes, &[]),
    }
}

/// The header fields, each with its continuation lines and final CRLF.
fn header_fields(head: &[u8]) -> Vec<&[u8]> {
    let mut fields: Vec<&[u8]> = Vec::new();
    let mut start = 0;
    let mut i = 0;
    while i < head.len() {
        let end = head[i..]
            .windows(2)
            .position(|w| w == b"\r\n")
            .map_or(head.len(), |p| i + p + 2);
        let continues = matches!(head.get(end), Some(b' ' | b'\t'));
        if !continues {
            fields.push(&head[start..end]);
            start = end;
        }
        i = end;
    }
    fields
}

fn field_name(field: &[u8]) -> &str {
    let colon = field.iter().position(|&b| b == b':').unwrap_or(0);
    std::str::from_utf8(&field[..colon]).unwrap_or("").trim()
}

/// Relaxed header canonicalization (RFC 6376 3.4.2): the name in lower case, the value
/// unfolded, each run of blanks one space, none around the colon or at the end.
fn relaxed_header(field: &[u8]) -> Vec<u8> {
    let colon = field.iter().position(|&b| b == b':').unwrap_or(field.len());
    let name = field[..colon].trim_ascii().to_ascii_lowercase();
    let value: Vec<u8> = field[(colon + 1).min(field.len())..]
        .iter()
        .copied()
        .filter(|&b| b != b'\r' && b != b'\n')
        .collect();
    let mut out = name;
    out.push(b':');
    out.extend(squeeze(value.trim_ascii()));
    out.extend_from_slice(b"\r\n");
    out
}

/// Each run of spaces and tabs as one space.
fn squeeze(text: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    for &b in text {
        let blank = b == b' ' || b == b'\t';
        if blank {
            if out.last() != Some(&b' ') {
                out.push(b' ');
            }
        } else {
            out.push(b);
        }
    }
    out
}

/// Relaxed body canonicalization (RFC 6376 3.4.4): blanks squeezed, none at a line's end,
/// no empty lines at the end; an empty body stays empty.
fn relaxed_body(body: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len());
    let mut empty_run = 0usize;
    let text = body.strip_suffix(b"\r\n").unwrap_or(body);
    for line in text.split(|&b| b == b'\n') {
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let mut canon = squeeze(line);
        while canon.last() == Some(&b' ') {
            canon.pop();
        }
        if canon.is_empty() {
            empty_run += 1;
            continue;
        }
        for _ in 0..empty_run {
            out.extend_from_slice(b"\r\n");
        }
        empty_run = 0;
        out.extend(canon);
        out.extend_from_slice(b"\r\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_body_is_canonicalized_as_rfc_6376_says() {
        assert_eq!(relaxed_body(b" C \r\nD \t E\r\n\r\n\r\n"), b" C\r\nD E\r\n");
        assert_eq!(relaxed_body(b""), b"");
        assert_eq!(relaxed_body(b"\r\n\r\n"), b"");
        assert_eq!(relaxed_body(b"a\r\n\r\nb"), b"a\r\n\r\nb\r\n");
    }

    #[test]
    fn headers_are_canonicalized_as_rfc_6376_says() {
        assert_eq!(relaxed_header(b"A: X\r\n"), b"a:X\r\n");
        assert_eq!(relaxed_header(b"B : Y\t\r\n\tZ  \r\n"), b"b:Y Z\r\n");
        let fields = header_fields(b"A: 1\r\nB: 2\r\n 3\r\nC: 4\r\n");
        assert_eq!(fields, [&b"A: 1\r\n"[..], b"B: 2\r\n 3\r\n", b"C: 4\r\n"]);
    }

    #[test]
    fn der_lengths_take_the_long_form_past_127() {
        assert_eq!(der(0x04, &[1, 2]), [0x04, 2, 1, 2]);
        assert_eq!(der(0x04, &[0; 200])[..3], [0x04, 0x81, 200]);
        assert_eq!(der(0x04, &[0; 300])[..4], [0x04, 0x82, 1, 44]);
    }
}
