"""The lobby's PIN handshake: SPAKE2, so that a short PIN cannot be guessed offline.

Only a joiner meeting the lobby's host runs it (after the start, links prove start-record keys
instead, ``linkauth.py``). A passive listener learns nothing; an active attacker gets one guess
per handshake it takes part in (SPAKE2, PyPI ``spake2``, symmetric mode,
``idSymmetric = b"lanopoly/v1|" + game id``).

0. joiner -> host   ``AUTH_HELLO [game id or empty]`` (the dialer speaks first, on every link: a
   listener spends nothing on a connection that says nothing, and tells a joiner from a peer)
1. host -> joiner   ``AUTH_OFFER [game id, SPAKE2 message]`` (a joiner by address learns the id here)
2. joiner -> host   ``AUTH_REPLY [SPAKE2 message, confirm_J]``
3. host -> joiner   ``AUTH_CONFIRM [confirm_H]``, or ``REJECT [reason]`` (a wrong PIN)

``T = SHA-256(tag, game id, offer message, reply message)`` salts HKDF over the SPAKE2 key, which
gives both confirmation keys and one ChaCha20-Poly1305 key per direction; ``T`` is also the channel
binding that the key proofs of ``HELLO`` and ``WELCOME`` sign (``lobby.py``). SPAKE2 is pure Python
(a few milliseconds a side): the driver runs these steps in a worker thread.
"""

from __future__ import annotations

import hashlib
import hmac
from dataclasses import dataclass

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from spake2 import SPAKE2_Symmetric  # type: ignore[import-untyped]
from spake2.ed25519_basic import NotOnCurve  # type: ignore[import-untyped]
from spake2.spake2 import SPAKEError  # type: ignore[import-untyped]

from lanopoly.net import wire
from lanopoly.net.cipher import Cipher
from lanopoly.net.protocol import ID_LEN, PROTOCOL
from lanopoly.net.text import shown_field
from lanopoly.net.wire import WireError

AUTH_HELLO = 79
AUTH_OFFER = 80
AUTH_REPLY = 81
AUTH_CONFIRM = 82
REJECT = 83
PAKE_CONTEXT = b"lanopoly/v1|"
TRANSCRIPT_TAG = b"lanopoly/handshake/v1\x00"
KEYS_INFO = b"lanopoly/keys/v1"
PAKE_MSG_LEN = 33
SIDE_SYMMETRIC = b"S"
MAX_PIN = 32
MAX_REASON = 200


BUSY = "the lobby is busy: try again"
"""The host's reason when its SPAKE2 budget (``StartBudget``) is spent: the joiner tries again."""


class PinError(Exception):
    """The handshake failed; ``wrong_pin`` when the other side proved another PIN; ``busy`` when the
    host had no SPAKE2 start to spare (try again)."""

    def __init__(self, reason: str, wrong_pin: bool = False, busy: bool = False) -> None:
        super().__init__(reason)
        self.wrong_pin = wrong_pin
        self.busy = busy


class StartBudget:
    """How many SPAKE2 starts (~2.5 ms of CPU each, holding the GIL) the whole lobby runs: a token bucket
    of ``burst`` tokens refilled at ``rate`` a second, so no flood of ``AUTH_HELLO`` from any number of
    addresses costs the host more than ``rate`` starts a second. The last ``reserve`` tokens go only to
    an address that got no start within ``window`` seconds: a flood from addresses already served
    cannot take them, so a new joiner gets its start at once (addresses served within the window
    number at most ``rate * window + burst``). Sans-I/O: the caller passes the time."""

    def __init__(self, rate: float = 20.0, burst: int = 10, reserve: int = 5, window: float = 30.0) -> None:
        if not (rate > 0 and window > 0 and 0 <= reserve < burst):
            raise ValueError("StartBudget needs rate > 0, window > 0 and 0 <= reserve < burst")
        self.rate, self.burst, self.reserve, self.window = rate, burst, reserve, window
        self._tokens = float(burst)
        self._then: float | None = None
        self._served: dict[str, float] = {}  # host -> its last start, oldest first

    def take(self, host: str, now: float) -> bool:
        """Spend a token on a SPAKE2 start for ``host`` at ``now``; False (spend nothing) when none is left for it."""
        if self._then is not None and now > self._then:
            self._tokens = min(float(self.burst), self._tokens + (now - self._then) * self.rate)
        self._then = now if self._then is None else max(self._then, now)
        while self._served:
            oldest, when = next(iter(self._served.items()))
            if when > now - self.window:
                break
            del self._served[oldest]
        floor = 1 + (self.reserve if host in self._served else 0)
        if self._tokens < floor:
            return False
        self._tokens -= 1
        self._served.pop(host, None)
        self._served[host] = now
        return True


def normalize_pin(pin: str) -> bytes:
    """The PIN as SPAKE2 password bytes: spaces and dashes dropped, so ``123 456`` == ``123-456``."""
    text = "".join(ch for ch in pin if not ch.isspace() and ch != "-")
    if not text or len(text) > MAX_PIN:
        raise ValueError(f"a PIN must have 1 to {MAX_PIN} characters")
    return text.encode("utf-8")


@dataclass(frozen=True)
class PinChannel:
    """What a successful handshake gives: the game, the link cipher, and the channel binding ``T``."""

    game_id: bytes
    cipher: Cipher
    binding: bytes


def _derive(key: bytes, game_id: bytes, offer: bytes, reply: bytes) -> tuple[bytes, bytes, bytes, bytes, bytes]:
    binding = hashlib.sha256(TRANSCRIPT_TAG + bytes([len(game_id)]) + game_id + offer + reply).digest()
    okm = HKDF(algorithm=hashes.SHA256(), length=128, salt=binding, info=KEYS_INFO).derive(key)
    k_host, k_joiner, to_joiner, to_host = okm[:32], okm[32:64], okm[64:96], okm[96:]
    confirm_host = hmac.new(k_host, b"listener" + binding, hashlib.sha256).digest()
    confirm_joiner = hmac.new(k_joiner, b"dialer" + binding, hashlib.sha256).digest()
    return binding, confirm_host, confirm_joiner, to_joiner, to_host


def _finish(spake: SPAKE2_Symmetric, message: bytes) -> bytes:
    # The library checks the side byte with an assert (gone under python -O): check it here.
    if len(message) != PAKE_MSG_LEN or message[:1] != SIDE_SYMMETRIC:
        raise PinError("not a symmetric SPAKE2 message")
    try:
        key: bytes = spake.finish(message)
    except (SPAKEError, NotOnCurve, ValueError, AssertionError) as e:  # NotOnCurve is a bare Exception
        raise PinError(f"invalid SPAKE2 message: {type(e).__name__}") from None
    return key


def reject(reason: str) -> bytes:
    return wire.pack([REJECT, PROTOCOL, reason[:MAX_REASON]])


def other_version(payload: bytes) -> int | None:
    """The protocol version of a joiner's ``AUTH_HELLO`` when it is not this one (None otherwise)."""
    try:
        f = wire.unpack(payload)
    except WireError:
        return None
    if len(f) >= 2 and f[0] == AUTH_HELLO and type(f[1]) is int and f[1] != PROTOCOL and 0 < f[1] < 2**16:
        return f[1]
    return None


def reject_version(version: int) -> bytes:
    """A refusal that a joiner of protocol ``version`` reads as its own ``REJECT`` (its version in
    it), so that it says why instead of seeing its connection close."""
    why = f"this lobby plays LAN protocol {PROTOCOL}, this joiner protocol {version}: run the same lanopoly version"
    return wire.pack([REJECT, version, why])


def _expect(payload: bytes, kind: int, fields: int) -> list[object]:
    f = wire.unpack(payload)
    if len(f) >= 3 and f[0] == REJECT and f[1] == PROTOCOL:
        why = shown_field(f[2], "reason", MAX_REASON)
        raise PinError(f"refused: {why}", "PIN" in why, why == BUSY)
    if len(f) != fields or f[0] != kind or f[1] != PROTOCOL:
        raise PinError(f"unexpected message {f[:2]!r} in the PIN handshake")
    return f


class PinHost:
    """The host's side: ``hello(payload)`` gives the offer, ``reply(payload)`` the confirmation and
    the channel (``PinError(wrong_pin=True)`` on a wrong PIN: send ``reject("wrong PIN")``)."""

    def __init__(self, pin: bytes, game_id: bytes) -> None:
        self.game_id = game_id
        self._spake = SPAKE2_Symmetric(pin, idSymmetric=PAKE_CONTEXT + game_id)
        self._offer = b""

    def hello(self, payload: bytes) -> bytes:
        """The joiner's hello: the offer to send (PinError when it wants another game)."""
        f = _expect(payload, AUTH_HELLO, 3)
        wanted = wire.bytes_field(f[2], "game id", ID_LEN)
        if wanted and wanted != self.game_id:
            raise PinError("this lobby hosts another game")
        self._offer = self._spake.start()
        return wire.pack([AUTH_OFFER, PROTOCOL, self.game_id, self._offer])

    def reply(self, payload: bytes) -> tuple[bytes, PinChannel]:
        f = _expect(payload, AUTH_REPLY, 4)
        message = wire.bin_field(f[2], "SPAKE2 message", PAKE_MSG_LEN)
        confirm = wire.bin_field(f[3], "confirmation", 32)
        binding, confirm_host, confirm_joiner, to_joiner, to_host = _derive(
            _finish(self._spake, message), self.game_id, self._offer, message
        )
        if not hmac.compare_digest(confirm, confirm_joiner):
            raise PinError("wrong PIN (key confirmation failed)", wrong_pin=True)
        answer = wire.pack([AUTH_CONFIRM, PROTOCOL, confirm_host])
        return answer, PinChannel(self.game_id, Cipher(to_joiner, to_host), binding)


class PinJoiner:
    """The joiner's side: ``hello()``, then ``offer(payload)`` gives the reply, ``confirm(payload)``
    the channel."""

    def __init__(self, pin: bytes, game_id: bytes = b"") -> None:
        self.pin = pin
        self.wanted = game_id
        self._spake: SPAKE2_Symmetric | None = None
        self._keys: tuple[bytes, bytes, bytes, bytes, bytes] | None = None
        self.game_id = b""

    def hello(self) -> bytes:
        return wire.pack([AUTH_HELLO, PROTOCOL, self.wanted])

    def offer(self, payload: bytes) -> bytes:
        f = _expect(payload, AUTH_OFFER, 4)
        game_id = wire.bin_field(f[2], "game id", ID_LEN)
        theirs = wire.bin_field(f[3], "SPAKE2 message", PAKE_MSG_LEN)
        if self.wanted and game_id != self.wanted:
            raise PinError("this lobby hosts another game")
        self.game_id = game_id
        self._spake = SPAKE2_Symmetric(self.pin, idSymmetric=PAKE_CONTEXT + game_id)
        mine = self._spake.start()
        self._keys = _derive(_finish(self._spake, theirs), game_id, theirs, mine)
        return wire.pack([AUTH_REPLY, PROTOCOL, mine, self._keys[2]])

    def confirm(self, payload: bytes) -> PinChannel:
        if self._keys is None:
            raise PinError("a confirmation before the offer")
        f = _expect(payload, AUTH_CONFIRM, 3)
        binding, confirm_host, _, to_joiner, to_host = self._keys
        if not hmac.compare_digest(wire.bin_field(f[2], "confirmation", 32), confirm_host):
            raise PinError("the host could not prove the PIN", wrong_pin=True)
        return PinChannel(self.game_id, Cipher(to_host, to_joiner), binding)


__all__ = [
    "PinChannel",
    "PinError",
    "PinHost",
    "PinJoiner",
    "WireError",
    "normalize_pin",
    "other_version",
    "reject",
    "reject_version",
]
