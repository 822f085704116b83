"""Who signed what: a peer's signing key, and the suite that signs and verifies (Ed25519).

Every protocol 9 message that decides anything (a move, a reveal, an ack, a vote, a released
share) is signed by its author, so that it can be shown to a third party: a relayed message is as
good as the original, and two different messages signed for one slot prove an equivocation.

The suite is a value the session core receives, not a global: the game uses Ed25519 (the Rust
core's ed25519-dalek, verifying by libsodium's rules, which LAN play used before); the
deterministic network simulation of the test suite plugs in a keyed hash that costs a
microsecond, so that it can play thousands of games a minute (the protocol logic it exercises is
the same; a share of the simulated games runs with Ed25519 too).
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import nacl.bindings
import nacl.exceptions

from lanopoly import _core

PUBLIC_LEN = 32
SIGNATURE_LEN = 64


class Signer(Protocol):
    """A secret signing key: its public half and a function that signs bytes."""

    @property
    def public(self) -> bytes: ...

    @property
    def seed(self) -> bytes:
        """The 32 secret bytes the key is made from (saved privately, so a restarted peer is the same peer)."""
        ...

    def sign(self, data: bytes) -> bytes: ...


class Ed25519Signer:
    """An Ed25519 key (deterministic signatures, RFC 8032), the Rust core's (ed25519-dalek): the
    same signatures as libsodium's in 0.6 to 0.7 of its time."""

    def __init__(self, seed: bytes | None = None) -> None:
        self._seed = seed if seed is not None else secrets.token_bytes(32)
        self._key = _core.Ed25519Key(self._seed)
        self._public = self._key.public

    @property
    def public(self) -> bytes:
        return self._public

    @property
    def seed(self) -> bytes:
        return self._seed

    def sign(self, data: bytes) -> bytes:
        return self._key.sign(data)


def ed25519_verify(public: bytes, data: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is ``public``'s Ed25519 signature of ``data`` (never raises).

    The Rust core's (ed25519-dalek), which accepts exactly what libsodium's ``crypto_sign_open``
    accepts (canonical S, R and the key not of small order, the key canonically encoded) in about
    0.6 to 0.7 of its time: verification was the largest CPU cost of a LAN step."""
    return _core.ed25519_verify(public, data, signature)


def sodium_verify(public: bytes, data: bytes, signature: bytes) -> bool:
    """The same check by libsodium (through PyNaCl), which LAN play used before: kept as the
    reference ``ed25519_verify`` is tested against."""
    if len(public) != PUBLIC_LEN or len(signature) != SIGNATURE_LEN:
        return False
    try:
        nacl.bindings.crypto_sign_open(signature + data, public)
    except (nacl.exceptions.BadSignatureError, nacl.exceptions.ValueError, ValueError, TypeError):
        return False
    return True


@dataclass(frozen=True)
class Suite:
    """A signature scheme: how to make a key (from a secret seed, or fresh) and how to verify."""

    name: str
    new_signer: Callable[[bytes | None], Signer]
    verify: Callable[[bytes, bytes, bytes], bool]


ED25519 = Suite("ed25519", Ed25519Signer, ed25519_verify)


FINGERPRINT_BYTES = 8


def fingerprint(public: bytes) -> str:
    """A short, readable name of a public signing key, e.g. ``3fa2-91c0-77d4-e2b1``: the first 8
    bytes of its SHA-256 in groups of 4 hex digits. A lobby advertises its host's; players compare
    it by voice with what the host's screen shows, and tell apart lobbies with the same name (the
    lobby's handshake proves the key, ``WELCOME``)."""
    if len(public) != PUBLIC_LEN:
        raise ValueError(f"a public key has {PUBLIC_LEN} bytes, not {len(public)}")
    digits = hashlib.sha256(public).digest()[:FINGERPRINT_BYTES].hex()
    return "-".join(digits[i : i + 4] for i in range(0, len(digits), 4))
