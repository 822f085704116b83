"""Authenticating a link between two peers of a started game by their start-record keys.

After the start nobody needs the PIN: a peer proves it is peer ``i`` of the start record by
signing with the key listed there, so a PIN lockout or a stranger's handshakes cannot keep it out.

1. dialer -> listener  ``LINK_HELLO [game id, dialer index, ephemeral X25519 key, listening port]``
2. listener -> dialer  ``LINK_ACCEPT [listener index, ephemeral X25519 key, signature]``
3. dialer -> listener  ``LINK_PROOF [signature]``

Both signatures cover ``T = SHA-256(tag, game id, dialer index, listener index, both ephemeral keys,
the dialer's port)``, each under its own role's tag, so neither can be replayed on another link or
passed off as the other's. The link keys are HKDF-SHA256 of the X25519 secret, salted with ``T``:
one ChaCha20-Poly1305 key per direction (``cipher.py``). The listener does one key exchange and
one signature for a stranger's hello (about 0.4 ms); it learns who dialed only at step 3.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from lanopoly.net import wire
from lanopoly.net.cipher import Cipher
from lanopoly.net.genesis import StartRecord
from lanopoly.net.keys import SIGNATURE_LEN, Signer, Suite
from lanopoly.net.protocol import ID_LEN, MAX_PEERS, PROTOCOL
from lanopoly.net.wire import WireError

LINK_HELLO = 70
LINK_ACCEPT = 71
LINK_PROOF = 72
TRANSCRIPT_TAG = b"lanopoly/9/link\x00"
LISTENER_TAG = b"lanopoly/9/link-listener\x00"
DIALER_TAG = b"lanopoly/9/link-dialer\x00"
KEYS_INFO = b"lanopoly/9/link-keys"


class LinkAuthError(Exception):
    """The other end did not prove what it had to (or sent something else)."""


@dataclass(frozen=True)
class LinkUp:
    """A link proven at both ends: the other peer's index, where it listens, and the cipher."""

    peer: int
    port: int
    cipher: Cipher


def _transcript(game_id: bytes, dialer: int, listener: int, eph_d: bytes, eph_l: bytes, port: int) -> bytes:
    h = hashlib.sha256(TRANSCRIPT_TAG)
    h.update(game_id + bytes([dialer, listener]) + eph_d + eph_l + port.to_bytes(2, "big"))
    return h.digest()


def _cipher(secret: bytes, transcript: bytes, dialing: bool) -> Cipher:
    okm = HKDF(algorithm=hashes.SHA256(), length=64, salt=transcript, info=KEYS_INFO).derive(secret)
    to_listener, to_dialer = okm[:32], okm[32:]
    return Cipher(to_listener, to_dialer) if dialing else Cipher(to_dialer, to_listener)


def _ephemeral(random_bytes: Callable[[int], bytes]) -> tuple[X25519PrivateKey, bytes]:
    key = X25519PrivateKey.from_private_bytes(random_bytes(32))
    return key, key.public_key().public_bytes_raw()


def _exchange(key: X25519PrivateKey, public: bytes) -> bytes:
    try:
        return key.exchange(X25519PublicKey.from_public_bytes(public))
    except ValueError:
        raise LinkAuthError("an invalid X25519 key") from None


class KeyDialer:
    """The dialer's side: ``hello()``, then ``accept(payload)`` gives the proof to send and the link."""

    def __init__(
        self,
        record: StartRecord,
        me: int,
        key: Signer,
        peer: int,
        port: int,
        suite: Suite,
        random_bytes: Callable[[int], bytes] = secrets.token_bytes,
    ) -> None:
        self.record, self.me, self.key, self.peer, self.port, self.suite = record, me, key, peer, port, suite
        self._eph, self._public = _ephemeral(random_bytes)

    def hello(self) -> bytes:
        return wire.pack([LINK_HELLO, PROTOCOL, self.record.game_id, self.me, self._public, self.port])

    def accept(self, payload: bytes) -> tuple[bytes, LinkUp]:
        f = wire.unpack(payload)
        if len(f) != 5 or f[0] != LINK_ACCEPT or f[1] != PROTOCOL:
            raise LinkAuthError(f"expected LINK_ACCEPT, got {f[:2]!r}")
        index = wire.int_field(f[2], "listener index", 0, MAX_PEERS - 1)
        eph = wire.bin_field(f[3], "ephemeral key", 32)
        signature = wire.bin_field(f[4], "signature", SIGNATURE_LEN)
        if index != self.peer:
            raise LinkAuthError(f"peer {index} answered where peer {self.peer} was dialed")
        t = _transcript(self.record.game_id, self.me, index, self._public, eph, self.port)
        if not self.suite.verify(self.record.peers[index].key, LISTENER_TAG + t, signature):
            raise LinkAuthError(f"whoever answered did not prove peer {index}'s key")
        secret = _exchange(self._eph, eph)
        proof = wire.pack([LINK_PROOF, PROTOCOL, self.key.sign(DIALER_TAG + t)])
        return proof, LinkUp(index, self.record.peers[index].port, _cipher(secret, t, dialing=True))


class KeyListener:
    """The listener's side: ``hello(payload)`` gives the answer, ``proof(payload)`` the link."""

    def __init__(
        self,
        record: StartRecord,
        me: int,
        key: Signer,
        suite: Suite,
        random_bytes: Callable[[int], bytes] = secrets.token_bytes,
    ) -> None:
        self.record, self.me, self.key, self.suite = record, me, key, suite
        self._eph, self._public = _ephemeral(random_bytes)
        self._pending: tuple[int, int, bytes, bytes] | None = None

    def hello(self, payload: bytes) -> bytes:
        f = wire.unpack(payload)
        if len(f) != 6 or f[0] != LINK_HELLO or f[1] != PROTOCOL:
            raise LinkAuthError("not a protocol 9 link hello")
        if wire.bin_field(f[2], "game id", ID_LEN) != self.record.game_id:
            raise LinkAuthError("a link for another game")
        dialer = wire.int_field(f[3], "dialer index", 0, len(self.record.peers) - 1)
        if dialer == self.me:
            raise LinkAuthError("a link from this peer's own index")
        eph = wire.bin_field(f[4], "ephemeral key", 32)
        port = wire.int_field(f[5], "port", 1, 65535)
        t = _transcript(self.record.game_id, dialer, self.me, eph, self._public, port)
        self._pending = (dialer, port, t, _exchange(self._eph, eph))
        return wire.pack([LINK_ACCEPT, PROTOCOL, self.me, self._public, self.key.sign(LISTENER_TAG + t)])

    def proof(self, payload: bytes) -> LinkUp:
        if self._pending is None:
            raise LinkAuthError("a proof before the hello")
        dialer, port, t, secret = self._pending
        f = wire.unpack(payload)
        if len(f) != 3 or f[0] != LINK_PROOF or f[1] != PROTOCOL:
            raise LinkAuthError("expected LINK_PROOF")
        signature = wire.bin_field(f[2], "signature", SIGNATURE_LEN)
        if not self.suite.verify(self.record.peers[dialer].key, DIALER_TAG + t, signature):
            raise LinkAuthError(f"the dialer did not prove peer {dialer}'s key")
        return LinkUp(dialer, port, _cipher(secret, t, dialing=False))


__all__ = ["KeyDialer", "KeyListener", "LinkAuthError", "LinkUp", "WireError"]
