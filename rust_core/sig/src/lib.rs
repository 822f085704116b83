//! Ed25519 for LAN play: verification accepting exactly what libsodium 1.0.18's
//! `crypto_sign_verify_detached` accepts, and signing, in about 0.6-0.7 of its time
//! (ed25519-dalek, whose AVX2 code is chosen at run time). A peer verifies four or five
//! signatures a step: before this, the largest CPU cost of a step.
//!
//! The rules, libsodium's (built without `ED25519_COMPAT`): S is canonical (below the group order);
//! R and the public key A are not of small order; A is a canonical encoding (its y below p);
//! and R is exactly the encoding of [S]B - [SHA-512(R || A || M)]A (cofactorless, byte for byte).
//! dalek's `verify_strict` checks all of these but the canonical encoding of A (it reduces y mod
//! p and hashes the bytes as given), which [`verify`] checks first.

use std::collections::HashMap;
use std::sync::Mutex;

use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};

/// Public keys decoded once (a field inversion and square root each, about a tenth of a
/// verification): a game has a handful of peers, and each verifies every other's messages.
static KEYS: Mutex<Option<HashMap<[u8; 32], VerifyingKey>>> = Mutex::new(None);

/// At most this many decoded keys are kept; past it the cache starts afresh.
const KEYS_KEPT: usize = 256;

/// The decoded public key, from the cache or decoded now (None: no point of the curve).
fn verifying_key(public: &[u8; 32]) -> Option<VerifyingKey> {
    let mut keys = KEYS.lock().unwrap_or_else(|e| e.into_inner());
    let keys = keys.get_or_insert_with(HashMap::new);
    if let Some(key) = keys.get(public) {
        return Some(*key);
    }
    let key = VerifyingKey::from_bytes(public).ok()?;
    if keys.len() >= KEYS_KEPT {
        keys.clear();
    }
    keys.insert(*public, key);
    Some(key)
}

/// Whether the 32 bytes encode y below p = 2^255 - 19 (the sign bit aside): libsodium's
/// `ge25519_is_canonical`. The non-canonical ones are y = p .. 2^255 - 1: bytes 1..=30 all 0xff,
/// byte 31 0x7f (sign bit masked) and byte 0 at least 0xed.
pub fn canonical_point(bytes: &[u8; 32]) -> bool {
    !(bytes[31] & 0x7f == 0x7f && bytes[1..31].iter().all(|&b| b == 0xff) && bytes[0] >= 0xed)
}

/// Whether `signature` (64 bytes) is `public`'s (32 bytes) Ed25519 signature of `data`, by the
/// rules above; wrong lengths are a plain no.
pub fn verify(public: &[u8], data: &[u8], signature: &[u8]) -> bool {
    let (Ok(public), Ok(signature)) = (<&[u8; 32]>::try_from(public), <&[u8; 64]>::try_from(signature)) else {
        return false;
    };
    if !canonical_point(public) {
        return false;
    }
    let Some(key) = verifying_key(public) else {
        return false;
    };
    key.verify_strict(data, &Signature::from_bytes(signature)).is_ok()
}

/// An Ed25519 signing key made from its 32-byte secret seed (RFC 8032: deterministic
/// signatures, the same bytes as libsodium's).
pub struct Key(SigningKey);

impl Key {
    /// The key of `seed`.
    pub fn from_seed(seed: &[u8; 32]) -> Self {
        Self(SigningKey::from_bytes(seed))
    }

    /// The 32-byte public key.
    pub fn public(&self) -> [u8; 32] {
        self.0.verifying_key().to_bytes()
    }

    /// The 64-byte signature of `data`.
    pub fn sign(&self, data: &[u8]) -> [u8; 64] {
        self.0.sign(data).to_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_points() {
        let mut y = [0xffu8; 32];
        y[31] = 0x7f;
        for low in [0xedu8, 0xee, 0xff] {
            y[0] = low;
            assert!(!canonical_point(&y), "y = p + {}", low - 0xed);
            y[31] = 0xff; // the sign bit does not count
            assert!(!canonical_point(&y));
            y[31] = 0x7f;
        }
        y[0] = 0xec; // p - 1
        assert!(canonical_point(&y));
        y[0] = 0xed;
        y[17] = 0xfe;
        assert!(canonical_point(&y));
        assert!(canonical_point(&[0u8; 32]));
    }

    #[test]
    fn a_signature_verifies_and_a_changed_byte_does_not() {
        let key = Key::from_seed(&[7; 32]);
        let signature = key.sign(b"step 12");
        assert!(verify(&key.public(), b"step 12", &signature));
        assert!(!verify(&key.public(), b"step 13", &signature));
        let mut bent = signature;
        bent[63] ^= 0x40;
        assert!(!verify(&key.public(), b"step 12", &bent));
        assert!(!verify(&key.public()[..31], b"step 12", &signature));
    }
}
