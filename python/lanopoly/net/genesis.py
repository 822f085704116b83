"""The start of a LAN game: the start record, the dealt shares' commitments, and everyone's signature.

The host assembles the **start record** from the lobby: the game id, every peer (name, address,
listening port, signing key, chain anchor), the seats' names and the peer controlling each, board,
rules, the hash chains' length and what automatic votes do with a removed peer (``bot``/``bank``),
and the lobby's bid timer when the host set one (its seconds: a last field, absent when off, so a
record without one has the bytes it always had). The timer is each console's, not the session
core's: every peer shows the same agreed value, and a console passes for its own person only.
Every peer then deals shares of its chain secret to the others (``shares.py``) and publishes its
commitments. The **genesis hash** covers the exact start record bytes and every peer's
commitments; each peer signs it, and a game exists only when every peer's signature of one
genesis hash is held by every peer. Everything later (moves, reveals, votes, shares released) is
checked against the keys, anchors and commitments of the genesis, online and by ``verify``.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from lanopoly.net import wire
from lanopoly.net.protocol import HASH_LEN, ID_LEN, MAX_PEERS, MAX_SEATS, PROTOCOL, VOTE_CHOICES
from lanopoly.net.shares import POINT_LEN, threshold
from lanopoly.net.text import name_field
from lanopoly.net.wire import WireError

START_TAG = 60
GENESIS_TAG = b"lanopoly/9/genesis\x00"
GENESIS_SIG_TAG = b"lanopoly/9/genesis-sig\x00"
MAX_NAME = 32
MAX_HOST = 64
MAX_RULES = 64
MAX_BID_TIMER = 600
"""The longest bid timer a start record may carry, in seconds."""


@dataclass(frozen=True)
class PeerEntry:
    """One peer of the start record."""

    name: str
    host: str
    """The peer's address ("" for the host: each joiner reached it where it found it)."""
    port: int
    key: bytes
    anchor: bytes

    def to_wire(self) -> list[Any]:
        return [self.name, self.host, self.port, self.key, self.anchor]


@dataclass(frozen=True)
class StartRecord:
    """What every peer agrees to play: who, where, which seats, which rules."""

    game_id: bytes
    peers: tuple[PeerEntry, ...]
    names: tuple[str, ...]
    controllers: tuple[int, ...]
    board: str
    rules: dict[str, Any]
    chain_length: int
    replace_with: str = "bot"
    bid_timer: int = 0
    """Seconds each console gives its person to bid in an auction before it passes for them (0: off)."""

    def encode(self) -> bytes:
        """The exact bytes the genesis hash covers (sent once by the host, kept as received)."""
        timer = [self.bid_timer] if self.bid_timer else []
        return wire.pack(
            [
                START_TAG,
                PROTOCOL,
                self.game_id,
                [p.to_wire() for p in self.peers],
                list(self.names),
                list(self.controllers),
                self.board,
                self.rules,
                self.chain_length,
                self.replace_with,
                *timer,
            ]
        )

    def seats_of(self, peer: int) -> list[int]:
        return [seat for seat, ctrl in enumerate(self.controllers) if ctrl == peer]


def parse_start(data: bytes) -> StartRecord:
    """Decode and check a start record; WireError when it is not a valid one."""
    f = wire.unpack(data)
    if len(f) not in (10, 11) or f[0] != START_TAG or f[1] != PROTOCOL:
        raise WireError(f"not a protocol {PROTOCOL} start record")
    game_id = wire.bin_field(f[2], "game id", ID_LEN)
    peers = []
    for item in wire.list_field(f[3], "peers", MAX_PEERS):
        p = wire.list_field(item, "peer", 5, exact=5)
        peers.append(
            PeerEntry(
                name_field(p[0], "peer name", MAX_NAME),
                wire.str_field(p[1], "host", MAX_HOST, allow_empty=True),
                wire.int_field(p[2], "port", 1, 65535),
                wire.bin_field(p[3], "key", 32),
                wire.bin_field(p[4], "anchor", HASH_LEN),
            )
        )
    if len(peers) < 2:
        raise WireError("a game needs at least two peers")
    if len({p.key for p in peers}) != len(peers):
        raise WireError("two peers with one key")
    names = [name_field(n, "seat name", MAX_NAME) for n in wire.list_field(f[4], "seat names", MAX_SEATS)]
    controllers = [
        wire.int_field(c, "controller", 0, len(peers) - 1) for c in wire.list_field(f[5], "controllers", MAX_SEATS)
    ]
    if len(names) < 2 or len(controllers) != len(names):
        raise WireError("two to eight seats, each with a controller")
    if set(controllers) != set(range(len(peers))):
        raise WireError("every peer controls at least one seat")
    rules = f[7]
    if type(rules) is not dict or len(rules) > MAX_RULES:
        raise WireError("rules: expected a map of options")
    rules = {wire.str_field(k, "rule", 32): wire.json_like(v, "rule value") for k, v in rules.items()}
    replace_with = wire.str_field(f[9], "replace with", 8)
    if replace_with not in VOTE_CHOICES:
        raise WireError(f"replace with: unknown choice {replace_with!r}")
    return StartRecord(
        game_id,
        tuple(peers),
        tuple(names),
        tuple(controllers),
        wire.str_field(f[6], "board", 32),
        rules,
        wire.int_field(f[8], "chain length", 1, 1_000_000),
        replace_with,
        wire.int_field(f[10], "bid timer", 1, MAX_BID_TIMER) if len(f) == 11 else 0,  # absent when off
    )


def genesis_hash(start: bytes, commitments: Sequence[Sequence[bytes]]) -> bytes:
    """SHA-256 over the start record bytes and every peer's share commitments, in peer order."""
    h = hashlib.sha256(GENESIS_TAG)
    h.update(len(start).to_bytes(4, "big") + start)
    for points in commitments:
        h.update(len(points).to_bytes(1, "big"))
        for point in points:
            h.update(point)
    return h.digest()


def genesis_sig_data(ghash: bytes) -> bytes:
    """What each peer signs to agree on the genesis."""
    return GENESIS_SIG_TAG + ghash


def check_commitments(record: StartRecord, commitments: Sequence[Sequence[bytes]]) -> None:
    """Every peer's commitments: ``threshold(n)`` points each (none with two peers); WireError otherwise."""
    t = threshold(len(record.peers)) or 0
    if len(commitments) != len(record.peers):
        raise WireError("one list of commitments per peer")
    for points in commitments:
        if len(points) != t or not all(type(c) is bytes and len(c) == POINT_LEN for c in points):
            raise WireError(f"each peer commits to {t} points")


@dataclass(frozen=True)
class Genesis:
    """The agreed start: the start record's exact bytes, the commitments, every peer's signature."""

    start: bytes
    record: StartRecord
    commitments: tuple[tuple[bytes, ...], ...]
    signatures: tuple[bytes, ...]

    @property
    def hash(self) -> bytes:
        return genesis_hash(self.start, self.commitments)

    @property
    def game_id(self) -> bytes:
        return self.record.game_id

    @property
    def keys(self) -> list[bytes]:
        return [p.key for p in self.record.peers]

    def check(self, verify: Callable[[bytes, bytes, bytes], bool]) -> None:
        """Raise WireError unless the record, commitments and every peer's signature hold together."""
        if parse_start(self.start) != self.record:
            raise WireError("the start record is not its bytes")
        check_commitments(self.record, self.commitments)
        data = genesis_sig_data(self.hash)
        if len(self.signatures) != len(self.record.peers):
            raise WireError("one genesis signature per peer")
        for index, (peer, sig) in enumerate(zip(self.record.peers, self.signatures, strict=True)):
            if not verify(peer.key, data, sig):
                raise WireError(f"peer {index} ({peer.name}) did not sign this genesis")

    def to_json(self) -> dict[str, Any]:
        return {
            "start": b64(self.start),
            "commitments": [[b64(c) for c in points] for points in self.commitments],
            "signatures": [b64(s) for s in self.signatures],
        }

    @classmethod
    def from_json(cls, data: Any) -> Genesis:
        """The genesis of a saved record (checked by ``check``, not here); WireError if malformed."""
        if not isinstance(data, dict):
            raise WireError("genesis: expected an object")
        start = unb64(data.get("start"), "start")
        commitments = tuple(
            tuple(unb64(c, "commitment") for c in _list(points)) for points in _list(data.get("commitments"))
        )
        signatures = tuple(unb64(s, "signature") for s in _list(data.get("signatures")))
        return cls(start, parse_start(start), commitments, signatures)


def _list(value: Any) -> list[Any]:
    if not isinstance(value, list) or len(value) > MAX_PEERS * 8:
        raise WireError("genesis: expected a short list")
    return value


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def unb64(value: Any, what: str) -> bytes:
    if not isinstance(value, str) or len(value) > 1 << 20:
        raise WireError(f"{what}: expected base64 text")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise WireError(f"{what}: not base64") from None
