"""The game PIN, the pairwise SPAKE2 handshake, the encrypted links and the players' signing keys.

**Why a PAKE.** The host shows a short PIN (6 digits). A MAC or a Noise PSK made from such a PIN
could be brute-forced *offline* from one captured handshake (10^6 guesses take a second). SPAKE2
(PyPI ``spake2``, symmetric mode, ``idSymmetric = b"lanopoly/v1|" + game_id``) gives an attacker
exactly one guess per handshake it takes part in, and a passive listener nothing at all.

**Handshake** (every TCP connection, lobby and mesh, before anything else; one deadline for all):

1. listener -> dialer ``AUTH_OFFER [game id, SPAKE2 message]`` (the dialer learns the game id
   here when it joins by address; when it already knows it, it must match);
2. dialer -> listener ``AUTH_REPLY [SPAKE2 message, confirm_D]``;
3. listener -> dialer ``AUTH_CONFIRM [confirm_L]``, or ``REJECT`` when confirm_D is wrong (wrong PIN).

Both sides then derive, with HKDF-SHA256 over the SPAKE2 key and salted with the transcript hash
``T = SHA-256(tag, game id, offer message, reply message)``, two confirmation keys and one
ChaCha20-Poly1305 key per direction. ``confirm_X = HMAC-SHA256(k_confirm_X, role || T)``, so a
wrong PIN is refused on both sides, and ``T`` is the channel binding that the identity proofs in
``HELLO``/``PEER_HELLO``/``REJOIN`` (the dialer's) and ``ACCEPT`` (the accepting peer's) sign.
SPAKE2 is pure Python (about 11 ms of CPU per side on the shared test machine,
``benches/bench_spake2.py``), so it runs in a worker thread, never on the event loop.

**Links.** Every frame after the handshake is ``counter (u64 BE) || ChaCha20-Poly1305(payload)``
with the counter as the nonce (4 zero bytes || counter); each direction has its own key and
counter starting at 0. A counter that is not exactly the next one (gap, repeat, reorder) or a
failed tag raises ``FrameError``: the caller closes that connection and logs it.

**Signing keys.** Each peer makes an Ed25519 key per game; the public key is in its ``HELLO``
(with a proof of possession bound to the channel) and in the start record, and every peer signs
the start record's hash (``START_SIG_TAG || hash``). ACTION and REVEAL bodies are signed (see
``messages``). A lobby advertises its host's key as a short ``fingerprint``, shown to players.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import secrets
import struct
from dataclasses import dataclass

import nacl.bindings
import nacl.exceptions
from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from spake2 import SPAKE2_Symmetric  # type: ignore[import-untyped]
from spake2.ed25519_basic import NotOnCurve  # type: ignore[import-untyped]
from spake2.spake2 import SideSymmetric, SPAKEError  # type: ignore[import-untyped]

from lanopoly.net.framing import AEAD_OVERHEAD, ConnectionClosed, FramedConnection, FrameError
from lanopoly.net.messages import PAKE_MSG_LEN, AuthConfirm, AuthOffer, AuthReply, ProtocolError, Reject, parse

PAKE_CONTEXT = b"lanopoly/v1|"
"""Prefix of SPAKE2's ``idSymmetric``; the game id follows, so a PIN's handshake is bound to one game."""
TRANSCRIPT_TAG = b"lanopoly/handshake/v1\x00"
KEYS_INFO = b"lanopoly/keys/v1"
PIN_DIGITS = 6
MAX_PIN = 32
COUNTER = struct.Struct(">Q")
OVERHEAD = AEAD_OVERHEAD


class AuthError(Exception):
    """The handshake failed. ``wrong_pin`` is set when the other side proved a different PIN."""

    def __init__(self, reason: str, wrong_pin: bool = False) -> None:
        super().__init__(reason)
        self.wrong_pin = wrong_pin


class GameMismatch(AuthError):
    """The listener's offer is for another game than the one the dialer wants."""


def new_pin() -> str:
    """A fresh random PIN of ``PIN_DIGITS`` decimal digits (what the host shows)."""
    return f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"


def normalize_pin(pin: str) -> bytes:
    """The PIN as SPAKE2 password bytes: spaces and dashes dropped, so ``123 456`` == ``123-456``."""
    text = "".join(ch for ch in pin if not ch.isspace() and ch != "-")
    if not text or len(text) > MAX_PIN:
        raise ValueError(f"a PIN must have 1 to {MAX_PIN} characters")
    return text.encode("utf-8")


@dataclass(frozen=True)
class SessionKeys:
    """What one handshake yields: the confirmation values, the per-direction keys, the channel binding."""

    confirm_listener: bytes
    confirm_dialer: bytes
    listener_to_dialer: bytes
    dialer_to_listener: bytes
    binding: bytes


def transcript_hash(game_id: bytes, offer_msg: bytes, reply_msg: bytes) -> bytes:
    """``T``: binds the keys to this game and to both SPAKE2 messages, in role order."""
    h = hashlib.sha256(TRANSCRIPT_TAG)
    h.update(len(game_id).to_bytes(1, "big") + game_id)
    h.update(offer_msg)
    h.update(reply_msg)
    return h.digest()


def derive_keys(pake_key: bytes, game_id: bytes, offer_msg: bytes, reply_msg: bytes) -> SessionKeys:
    """HKDF-SHA256(SPAKE2 key, salt = T) -> confirmation keys and one AEAD key per direction."""
    binding = transcript_hash(game_id, offer_msg, reply_msg)
    okm = HKDF(algorithm=hashes.SHA256(), length=128, salt=binding, info=KEYS_INFO).derive(pake_key)
    k_cl, k_cd, k_ld, k_dl = okm[:32], okm[32:64], okm[64:96], okm[96:]
    return SessionKeys(
        confirm_listener=hmac.new(k_cl, b"listener" + binding, hashlib.sha256).digest(),
        confirm_dialer=hmac.new(k_cd, b"dialer" + binding, hashlib.sha256).digest(),
        listener_to_dialer=k_ld,
        dialer_to_listener=k_dl,
        binding=binding,
    )


class Pake:
    """One side of a symmetric SPAKE2 exchange; its two steps run in a worker thread."""

    def __init__(self, pin: bytes, game_id: bytes) -> None:
        self._spake = SPAKE2_Symmetric(pin, idSymmetric=PAKE_CONTEXT + game_id)

    async def start(self) -> bytes:
        """This side's 33-byte message."""
        message: bytes = await asyncio.to_thread(self._spake.start)
        return message

    async def finish(self, inbound: bytes) -> bytes:
        """The shared key (the same on both sides only if both used the same PIN).

        AuthError when ``inbound`` is not a valid message: its length and side byte are checked
        here (``spake2`` checks the side of a symmetric message with an ``assert``, which ``python
        -O`` removes), and a point off the curve raises ``NotOnCurve``, a bare Exception."""
        if len(inbound) != PAKE_MSG_LEN or inbound[:1] != SideSymmetric:
            raise AuthError(f"invalid SPAKE2 message: not {PAKE_MSG_LEN} bytes of the symmetric side")
        try:
            key: bytes = await asyncio.to_thread(self._spake.finish, inbound)
        except (SPAKEError, NotOnCurve, ValueError, AssertionError) as e:
            raise AuthError(f"invalid SPAKE2 message: {type(e).__name__}") from None
        return key


class Cipher:
    """ChaCha20-Poly1305 for one link: a key and a 64-bit counter per direction, counters as nonces."""

    def __init__(self, send_key: bytes, recv_key: bytes) -> None:
        self._send = ChaCha20Poly1305(send_key)
        self._recv = ChaCha20Poly1305(recv_key)
        self.sent = 0
        self.received = 0

    @staticmethod
    def _nonce(counter: int) -> bytes:
        return b"\x00\x00\x00\x00" + COUNTER.pack(counter)

    def seal(self, payload: bytes) -> bytes:
        """``counter || ciphertext+tag`` of the next outgoing frame."""
        counter = self.sent
        self.sent += 1
        header = COUNTER.pack(counter)
        return header + self._send.encrypt(self._nonce(counter), payload, header)

    def open(self, data: bytes) -> bytes:
        """The payload of the next incoming frame; FrameError on a counter gap/repeat or a bad tag."""
        if len(data) < OVERHEAD:
            raise FrameError("encrypted frame too short")
        (counter,) = COUNTER.unpack_from(data)
        expected = self.received
        if counter != expected:
            what = "repeated" if counter < expected else "skipped ahead"
            raise FrameError(f"frame counter {counter} {what} (expected {expected}): replayed or reordered frame")
        try:
            payload = self._recv.decrypt(self._nonce(counter), data[COUNTER.size :], data[: COUNTER.size])
        except InvalidTag:
            raise FrameError(f"AEAD authentication failed on frame {counter} (tampered or forged)") from None
        self.received += 1
        return payload


def public_bytes(key: Ed25519PrivateKey) -> bytes:
    """The 32 raw bytes of a signing key's public half (what the start record lists)."""
    return key.public_key().public_bytes_raw()


FINGERPRINT_BYTES = 8
"""Bytes of SHA-256 a key's fingerprint shows (64 bits: 16 hex digits in 4 groups)."""


def fingerprint(public_key: bytes) -> str:
    """A short, readable name of a public signing key, e.g. ``3fa2-91c0-77d4-e2b1``: the first 8
    bytes of its SHA-256 in groups of 4 hex digits. A lobby advertises its host's; players compare
    it by voice with what the host's screen shows, and tell apart lobbies with the same name."""
    if len(public_key) != 32:
        raise ValueError(f"a public key has 32 bytes, not {len(public_key)}")
    digits = hashlib.sha256(public_key).digest()[:FINGERPRINT_BYTES].hex()
    return "-".join(digits[i : i + 4] for i in range(0, len(digits), 4))


SIGNATURE_LEN = 64
"""Bytes of an Ed25519 signature."""


@dataclass(frozen=True)
class PublicKey:
    """A peer's Ed25519 public key: its 32 raw bytes, checked when loaded."""

    raw: bytes


def load_public(raw: bytes) -> PublicKey | None:
    """A public key from its raw bytes, or None if they are not one."""
    try:
        Ed25519PublicKey.from_public_bytes(raw)
    except ValueError:
        return None
    return PublicKey(bytes(raw))


def verify(key: PublicKey | None, signature: bytes, data: bytes) -> bool:
    """Whether ``signature`` is ``key``'s signature of ``data`` (never raises).

    Verified by libsodium (PyNaCl), signed by OpenSSL (``cryptography``): libsodium verifies in
    about half the time here, and a step verifies one or more signatures on every peer (a tenth
    of a peer's CPU per step with 4 peers; benches/README.md).
    """
    if key is None or len(signature) != SIGNATURE_LEN:
        return False
    try:
        nacl.bindings.crypto_sign_open(signature + data, key.raw)
    except nacl.exceptions.BadSignatureError:
        return False
    return True


HELLO_PROOF_TAG = b"lanopoly/hello-proof/v1\x00"
PEER_PROOF_TAG = b"lanopoly/peer-proof/v1\x00"
START_SIG_TAG = b"lanopoly/start-sig/v1\x00"
REJOIN_PROOF_TAG = b"lanopoly/rejoin-proof/v1\x00"
ACCEPT_PROOF_TAG = b"lanopoly/accept-proof/v1\x00"


def hello_proof_data(binding: bytes, peer_id: bytes) -> bytes:
    """What a joiner signs in HELLO: it holds the key it announces, on this very channel."""
    return HELLO_PROOF_TAG + binding + peer_id


def peer_proof_data(binding: bytes, game_id: bytes, index: int) -> bytes:
    """What a dialing peer signs in PEER_HELLO: it is peer ``index`` of the start record, on this channel."""
    return PEER_PROOF_TAG + binding + game_id + index.to_bytes(1, "big")


def rejoin_proof_data(binding: bytes, game_id: bytes, index: int) -> bytes:
    """What a rejoining peer signs in REJOIN: it is peer ``index`` of the start record, on this new channel."""
    return REJOIN_PROOF_TAG + binding + game_id + index.to_bytes(1, "big")


def accept_proof_data(binding: bytes, game_id: bytes, index: int) -> bytes:
    """What a peer accepting a mesh or rejoin link signs in ACCEPT: it is peer ``index`` of the start
    record, on this channel. Its own tag: never equal to what the dialer signed on the same channel
    (``peer_proof_data``, ``rejoin_proof_data``), so the dialer's proof cannot be sent back as one."""
    return ACCEPT_PROOF_TAG + binding + game_id + index.to_bytes(1, "big")


def start_sig_data(start_hash: bytes) -> bytes:
    """What every peer signs in START_ACK: the hash of the start record bytes it received."""
    return START_SIG_TAG + start_hash


async def _recv(conn: FramedConnection, what: str) -> object:
    try:
        _, raw = await conn.recv_raw()
        return parse(raw)
    except (FrameError, ProtocolError) as e:
        raise AuthError(f"malformed {what}: {e}") from None
    except ConnectionClosed as e:
        raise AuthError(f"connection closed during the handshake ({e})") from None


async def accept(conn: FramedConnection, pin: bytes, game_id: bytes) -> SessionKeys:
    """The listener's side of the handshake; on success ``conn`` is encrypted.

    Raises AuthError (``wrong_pin`` set when the dialer proved another PIN: the caller counts it);
    the dialer is told ``REJECT wrong PIN`` first. The caller puts a deadline around this.
    """
    pake = Pake(pin, game_id)
    offer = await pake.start()
    try:
        await conn.send(AuthOffer(game_id, offer).to_wire())
    except (ConnectionClosed, FrameError) as e:
        raise AuthError(f"connection closed during the handshake ({e})") from None
    reply = await _recv(conn, "AUTH_REPLY")
    if not isinstance(reply, AuthReply):
        raise AuthError(f"expected AUTH_REPLY, got {type(reply).__name__}")
    keys = derive_keys(await pake.finish(reply.pake), game_id, offer, reply.pake)
    if not hmac.compare_digest(reply.confirm, keys.confirm_dialer):
        with contextlib.suppress(ConnectionClosed, FrameError):
            await conn.send(Reject("wrong PIN").to_wire())
        raise AuthError("wrong PIN (key confirmation failed)", wrong_pin=True)
    try:
        await conn.send(AuthConfirm(keys.confirm_listener).to_wire())
    except (ConnectionClosed, FrameError) as e:
        raise AuthError(f"connection closed during the handshake ({e})") from None
    conn.secure(Cipher(keys.listener_to_dialer, keys.dialer_to_listener), keys.binding)
    return keys


async def connect(conn: FramedConnection, pin: bytes, game_id: bytes = b"") -> tuple[bytes, SessionKeys]:
    """The dialer's side of the handshake; returns the listener's game id and the keys (``conn`` is encrypted).

    ``game_id`` empty means "any game" (joining by address); otherwise the offer must be for it.
    Raises AuthError when refused, on a wrong PIN (``wrong_pin``), or when the listener cannot prove
    the PIN; ``GameMismatch`` when the listener hosts another game.
    """
    offer = await _recv(conn, "AUTH_OFFER")
    if isinstance(offer, Reject):
        raise AuthError(f"refused: {offer.reason}")
    if not isinstance(offer, AuthOffer):
        raise AuthError(f"expected AUTH_OFFER, got {type(offer).__name__}")
    if game_id and offer.game_id != game_id:
        raise GameMismatch("this lobby hosts another game")
    pake = Pake(pin, offer.game_id)
    mine = await pake.start()
    keys = derive_keys(await pake.finish(offer.pake), offer.game_id, offer.pake, mine)
    try:
        await conn.send(AuthReply(mine, keys.confirm_dialer).to_wire())
    except (ConnectionClosed, FrameError) as e:
        raise AuthError(f"connection closed during the handshake ({e})") from None
    answer = await _recv(conn, "AUTH_CONFIRM")
    if isinstance(answer, Reject):
        raise AuthError(f"refused: {answer.reason}", wrong_pin="PIN" in answer.reason)
    if not isinstance(answer, AuthConfirm) or not hmac.compare_digest(answer.confirm, keys.confirm_listener):
        raise AuthError("the other side could not prove the PIN", wrong_pin=True)
    conn.secure(Cipher(keys.dialer_to_listener, keys.listener_to_dialer), keys.binding)
    return offer.game_id, keys
