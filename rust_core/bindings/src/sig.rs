//! Ed25519 verification for LAN play (`ed25519_verify`), accepting exactly what libsodium 1.0.18's
//! `crypto_sign_verify_detached` accepts, in about half its time (ed25519-dalek, whose AVX2 code
//! is chosen at run time): a peer verifies four or five signatures a step, the largest CPU cost of
//! a step.
//!
//! The rules, libsodium's (built without `ED25519_COMPAT`): S is canonical (below the group order);
//! R and the public key A are not of small order; A is a canonical encoding (its y below p);
//! and R is exactly the encoding of [S]B - [SHA-512(R || A || M)]A (cofactorless, byte for byte).
//! dalek's `verify_strict` checks all of these but the canonical encoding of A (it reduces y mod
//! p and hashes the bytes as given), which is checked here first.

use std::collections::HashMap;
use std::sync::Mutex;

use ed25519_dalek::{Signature, Signer, SigningKey, VerifyingKey};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

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
pub(crate) fn canonical_point(bytes: &[u8; 32]) -> bool {
    !(bytes[31] & 0x7f == 0x7f && bytes[1..31].iter().all(|&b| b == 0xff) && bytes[0] >= 0xed)
}

/// Whether `signature` (64 bytes) is `public`'s (32 bytes) Ed25519 signature of `data`, by the
/// rules above; never raises (wrong lengths are a plain no).
#[pyfunction]
pub(crate) fn ed25519_verify(public: &[u8], data: &[u8], signature: &[u8]) -> bool {
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

/// An Ed25519 signing key made from its 32-byte secret seed (RFC 8032: deterministic signatures,
/// the same bytes as libsodium's); it signs in about half libsodium's time through PyNaCl.
#[pyclass(frozen, module = "lanopoly._core")]
pub(crate) struct Ed25519Key {
    key: SigningKey,
}

#[pymethods]
impl Ed25519Key {
    #[new]
    fn new(seed: &[u8]) -> PyResult<Self> {
        let seed = <[u8; 32]>::try_from(seed)
            .map_err(|_| PyValueError::new_err(format!("an Ed25519 seed has 32 bytes, not {}", seed.len())))?;
        Ok(Self { key: SigningKey::from_bytes(&seed) })
    }

    /// The 32-byte public key.
    #[getter]
    fn public<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, self.key.verifying_key().as_bytes())
    }

    /// The 64-byte signature of `data`.
    fn sign<'py>(&self, py: Python<'py>, data: &[u8]) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.key.sign(data).to_bytes())
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
}
