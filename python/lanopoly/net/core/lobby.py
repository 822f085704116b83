"""The lobby's messages, and the agreement that turns a start record into a signed genesis.

In the lobby (each joiner's PIN channel to the host, ``pinauth.py``):

- host -> joiner ``WELCOME [host key, proof, seats, names, chain length]``, the proof its signature
  of the channel binding: the host holds the key it announces, on this very channel (the lobby
  advertises the key's fingerprint, so a joiner knows it reached the lobby it picked);
- joiner -> host ``HELLO [name, listening port, signing key, chain anchor, proof]``, proved the same
  way; the host answers ``ROSTER [names, seats, bid timer]`` (to everyone, whenever someone joins
  or leaves or the host changes the bid timer; the timer's seconds a last field, absent when off,
  as in the start record, so a lobby without one sends the bytes it always did) or ``REJECT [reason]``;
- host -> joiner ``START [start record]``: the exact bytes every peer will sign.

Then every peer links to every other by its start-record key (``linkauth.py``) and, on each link,
sends ``DEAL [commitments, share]``: its chain secret's commitments and the other's share
(``shares.py``), checked on arrival, and, once it holds every peer's deal, ``GENESIS_SIG
[signature]`` of the genesis hash (``genesis.py``). The game starts when every peer's signature
of one genesis is in: ``Agreement`` follows that on one peer, with no I/O.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from lanopoly.net import shares, wire
from lanopoly.net.genesis import MAX_BID_TIMER, Genesis, StartRecord, genesis_hash, genesis_sig_data, parse_start
from lanopoly.net.keys import SIGNATURE_LEN, Signer, Suite
from lanopoly.net.protocol import HASH_LEN, PROTOCOL
from lanopoly.net.shares import POINT_LEN
from lanopoly.net.text import name_field, shown_field
from lanopoly.net.wire import WireError

HELLO = 84
WELCOME = 85
START = 86
DEAL = 87
GENESIS_SIG = 88
ROSTER = 89
REJECT = 83
"""The same code as the PIN handshake's refusal (``pinauth.REJECT``)."""
HELLO_TAG = b"lanopoly/9/hello\x00"
WELCOME_TAG = b"lanopoly/9/welcome\x00"
MAX_NAME = 32


@dataclass(frozen=True)
class Hello:
    name: str
    port: int
    key: bytes
    anchor: bytes
    proof: bytes


@dataclass(frozen=True)
class Welcome:
    key: bytes
    proof: bytes
    seats: int
    names: tuple[str, ...]
    chain_length: int


@dataclass(frozen=True)
class Roster:
    names: tuple[str, ...]
    seats: int
    bid_timer: int = 0
    """The bid timer the host has chosen so far (seconds, 0 off): the joiners' screens show it
    before the start; the start record's is the one played."""


@dataclass(frozen=True)
class Deal:
    commitments: tuple[bytes, ...]
    share: bytes | None


def encode(message: Hello | Welcome | Roster | Deal | bytes) -> bytes:
    """A lobby message's payload (``bytes``: a START carrying the start record)."""
    if isinstance(message, Hello):
        return wire.pack([HELLO, PROTOCOL, message.name, message.port, message.key, message.anchor, message.proof])
    if isinstance(message, Welcome):
        return wire.pack(
            [WELCOME, PROTOCOL, message.key, message.proof, message.seats, list(message.names), message.chain_length]
        )
    if isinstance(message, Roster):
        timer = [message.bid_timer] if message.bid_timer else []
        return wire.pack([ROSTER, PROTOCOL, list(message.names), message.seats, *timer])
    if isinstance(message, Deal):
        return wire.pack([DEAL, PROTOCOL, list(message.commitments), message.share])
    return wire.pack([START, PROTOCOL, message])


def signature_payload(signature: bytes) -> bytes:
    return wire.pack([GENESIS_SIG, PROTOCOL, signature])


def parse(payload: bytes) -> Hello | Welcome | Roster | Deal | bytes | tuple[str, Any]:
    """Decode a lobby message (a GENESIS_SIG is ``("sig", signature)``, a REJECT ``("reject", reason)``);
    WireError if it is none."""
    f = wire.unpack(payload)
    if len(f) < 2 or f[1] != PROTOCOL:
        raise WireError("not a protocol 9 lobby message")
    kind, rest = f[0], f[2:]
    if kind == HELLO and len(rest) == 5:
        return Hello(
            name_field(rest[0], "name", MAX_NAME),
            wire.int_field(rest[1], "port", 1, 65535),
            wire.bin_field(rest[2], "key", 32),
            wire.bin_field(rest[3], "anchor", HASH_LEN),
            wire.bin_field(rest[4], "proof", SIGNATURE_LEN),
        )
    if kind == WELCOME and len(rest) == 5:
        names = tuple(name_field(n, "name", MAX_NAME) for n in wire.list_field(rest[3], "names", 8))
        return Welcome(
            wire.bin_field(rest[0], "key", 32),
            wire.bin_field(rest[1], "proof", SIGNATURE_LEN),
            wire.int_field(rest[2], "seats", 2, 8),
            names,
            wire.int_field(rest[4], "chain length", 1, 1_000_000),
        )
    if kind == ROSTER and len(rest) in (2, 3):
        names = tuple(name_field(n, "name", MAX_NAME) for n in wire.list_field(rest[0], "names", 8))
        timer = wire.int_field(rest[2], "bid timer", 1, MAX_BID_TIMER) if len(rest) == 3 else 0  # absent when off
        return Roster(names, wire.int_field(rest[1], "seats", 2, 8), timer)
    if kind == START and len(rest) == 1:
        return wire.bytes_field(rest[0], "start record", 3500)
    if kind == DEAL and len(rest) == 2:
        points = tuple(wire.bin_field(c, "commitment", POINT_LEN) for c in wire.list_field(rest[0], "commitments", 8))
        share = None if rest[1] is None else wire.bin_field(rest[1], "share", 32)
        return Deal(points, share)
    if kind == GENESIS_SIG and len(rest) == 1:
        return ("sig", wire.bin_field(rest[0], "signature", SIGNATURE_LEN))
    if kind == REJECT and len(rest) == 1:
        return ("reject", shown_field(rest[0], "reason", 200))
    raise WireError(f"unexpected lobby message {kind!r}")


def prove(key: Signer, tag: bytes, binding: bytes) -> bytes:
    """A key's proof of possession on one channel (``tag``: ``HELLO_TAG`` or ``WELCOME_TAG``)."""
    return key.sign(tag + binding)


class AgreementError(Exception):
    """A peer's deal or signature does not hold: no game (the peer is named)."""

    def __init__(self, peer: int, reason: str) -> None:
        super().__init__(f"peer {peer}: {reason}")
        self.peer = peer


class Agreement:
    """One peer's side of agreeing on the genesis of the start record ``start`` (its exact bytes)."""

    def __init__(
        self,
        start: bytes,
        me: int,
        key: Signer,
        chain_secret: bytes,
        suite: Suite,
        random_bytes: Callable[[int], bytes] = secrets.token_bytes,
    ) -> None:
        self.start = start
        self.record: StartRecord = parse_start(start)
        self.me, self.key, self.suite = me, key, suite
        peers = len(self.record.peers)
        if self.record.peers[me].key != key.public:
            raise AgreementError(me, "the start record lists another key for this peer")
        self.t = shares.threshold(peers)
        holders = [p for p in range(peers) if p != me]
        self._deal = shares.deal(chain_secret, holders, self.t, random_bytes) if self.t is not None else None
        self.commitments: dict[int, tuple[bytes, ...]] = {me: self._deal.commitments if self._deal else ()}
        self.held: dict[int, bytes] = {}
        """The shares of the others' secrets this peer holds (saved privately)."""
        self.signatures: dict[int, bytes] = {}
        self._early: dict[int, bytes] = {}
        """Signatures that came before this peer could check them (before every deal was in)."""

    @property
    def others(self) -> list[int]:
        return [p for p in range(len(self.record.peers)) if p != self.me]

    def deal_for(self, peer: int) -> bytes:
        """The DEAL to send ``peer``: this peer's commitments and ``peer``'s share."""
        if self._deal is None:
            return encode(Deal((), None))
        return encode(Deal(self._deal.commitments, self._deal.shares[peer]))

    def take_deal(self, peer: int, deal: Deal) -> bytes | None:
        """File ``peer``'s deal (checked); once every deal is in, this peer's GENESIS_SIG to send all."""
        if peer in self.commitments:
            raise AgreementError(peer, "dealt twice")
        if self.t is None:
            if deal.commitments or deal.share is not None:
                raise AgreementError(peer, "dealt shares in a game of two")
        else:
            if len(deal.commitments) != self.t or deal.share is None:
                raise AgreementError(peer, f"dealt {len(deal.commitments)} commitments, {self.t} expected")
            if not shares.check_share(deal.commitments, self.me, deal.share):
                raise AgreementError(peer, "dealt this peer a share that does not match its commitments")
            self.held[peer] = deal.share
        self.commitments[peer] = deal.commitments
        return self._sign() if len(self.commitments) == len(self.record.peers) else None

    def _sign(self) -> bytes:
        signature = self.key.sign(genesis_sig_data(self.hash))
        self.signatures[self.me] = signature
        early, self._early = self._early, {}
        for peer, theirs in early.items():
            self.take_signature(peer, theirs)
        return signature_payload(signature)

    @property
    def hash(self) -> bytes:
        return genesis_hash(self.start, self.ordered_commitments)

    @property
    def ordered_commitments(self) -> tuple[tuple[bytes, ...], ...]:
        return tuple(self.commitments[p] for p in range(len(self.record.peers)))

    def take_signature(self, peer: int, signature: bytes) -> None:
        """File ``peer``'s genesis signature: it must sign the genesis this peer holds."""
        if self.me not in self.signatures:
            self._early[peer] = signature
            return
        if not self.suite.verify(self.record.peers[peer].key, genesis_sig_data(self.hash), signature):
            raise AgreementError(peer, "signed another genesis (different commitments or start record)")
        self.signatures[peer] = signature

    def genesis(self) -> Genesis | None:
        """The agreed genesis, once every peer's signature is in."""
        if len(self.signatures) < len(self.record.peers):
            return None
        signatures = tuple(self.signatures[p] for p in range(len(self.record.peers)))
        genesis = Genesis(self.start, self.record, self.ordered_commitments, signatures)
        genesis.check(self.suite.verify)
        return genesis
