"""The encryption of a link: ChaCha20-Poly1305 with a key and a 64-bit counter per direction.

Every frame after a handshake carries ``counter (u64 BE) || ciphertext+tag``, the counter as the
nonce (4 zero bytes || counter) and as associated data. A counter that is not exactly the next one
(a gap, a repeat, a reordering) or a failed tag raises ``WireError``: the link is closed.
"""

from __future__ import annotations

import struct

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from lanopoly.net.wire import WireError

COUNTER = struct.Struct(">Q")
OVERHEAD = COUNTER.size + 16
"""Bytes an encrypted frame adds to its payload: the counter and the Poly1305 tag."""


class Cipher:
    """One link's two directions."""

    def __init__(self, send_key: bytes, recv_key: bytes) -> None:
        self._send = ChaCha20Poly1305(send_key)
        self._recv = ChaCha20Poly1305(recv_key)
        self.sent = 0
        self.received = 0

    @staticmethod
    def _nonce(counter: int) -> bytes:
        return b"\x00\x00\x00\x00" + COUNTER.pack(counter)

    def seal(self, payload: bytes) -> bytes:
        header = COUNTER.pack(self.sent)
        sealed = header + self._send.encrypt(self._nonce(self.sent), payload, header)
        self.sent += 1
        return sealed

    def open(self, data: bytes) -> bytes:
        if len(data) < OVERHEAD:
            raise WireError("encrypted frame too short")
        (counter,) = COUNTER.unpack_from(data)
        if counter != self.received:
            what = "repeated" if counter < self.received else "skipped ahead"
            raise WireError(f"frame counter {counter} {what} (expected {self.received}): replayed or reordered")
        try:
            payload = self._recv.decrypt(self._nonce(counter), data[COUNTER.size :], data[: COUNTER.size])
        except InvalidTag:
            raise WireError(f"frame {counter} failed authentication (tampered or forged)") from None
        self.received += 1
        return payload
