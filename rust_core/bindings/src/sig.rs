//! Ed25519 for LAN play (`ed25519_verify`, `Ed25519Key`): conversions over `lanopoly-sig`,
//! which holds the rules (libsodium's) and their reasons.

use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyBytes;

/// Whether `signature` (64 bytes) is `public`'s (32 bytes) Ed25519 signature of `data`, by
/// libsodium's rules; never raises (wrong lengths are a plain no).
#[pyfunction]
pub(crate) fn ed25519_verify(public: &[u8], data: &[u8], signature: &[u8]) -> bool {
    lanopoly_sig::verify(public, data, signature)
}

/// An Ed25519 signing key made from its 32-byte secret seed (RFC 8032: deterministic signatures,
/// the same bytes as libsodium's).
#[pyclass(frozen, module = "lanopoly._core")]
pub(crate) struct Ed25519Key {
    key: lanopoly_sig::Key,
}

#[pymethods]
impl Ed25519Key {
    #[new]
    fn new(seed: &[u8]) -> PyResult<Self> {
        let seed = <[u8; 32]>::try_from(seed)
            .map_err(|_| PyValueError::new_err(format!("an Ed25519 seed has 32 bytes, not {}", seed.len())))?;
        Ok(Self { key: lanopoly_sig::Key::from_seed(&seed) })
    }

    /// The 32-byte public key.
    #[getter]
    fn public<'py>(&self, py: Python<'py>) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.key.public())
    }

    /// The 64-byte signature of `data`.
    fn sign<'py>(&self, py: Python<'py>, data: &[u8]) -> Bound<'py, PyBytes> {
        PyBytes::new(py, &self.key.sign(data))
    }
}
