"""Protocol 9 session messages: what peers say to each other once the game has started.

Every message is a positional array ``[type, 9, game id, ...fields]``; ``parse`` checks the version,
the game id's length, and each field's type and range (a ``WireError`` closes the connection it
came on). The messages that decide anything are **signed** by their author:

- ``ACTION``   a seat's move for a step (in turn, out of turn in an ack, or offered to the leader);
- ``FORWARD``  the leader's decision to play another peer's offered move (the move nested, signed);
- ``REVEAL``   a peer's next hash-chain link for a chance step;
- ``ACK``      a peer's report of a step: hash of the input, state hash after it, and at most one
               ``ACTION`` or ``REVEAL`` body for the next step nested, covered by the ack's signature;
- ``VOTE``     a vote to remove peers from a step on, their seats to a bot or to the bank;
- ``COMMIT``   the same, once every present peer not named voted it: only a commit binds;
- ``SHARE``    a peer's share of a removed peer's chain secret, released to recover its reveals.

On the wire a signed message is ``[type, 9, body, signature]``: ``body`` is the msgpack of
``[type, 9, game id, step, signer, ...fields]`` and the signature is the signer's over
``tag || body`` (one tag per type), the exact bytes sent (msgpack is not canonical: nothing is
ever re-encoded). Signed messages passed on travel as ``[body, signature]`` pairs. The body names
the game, the step and (for moves, reveals and votes) the state it was made for, so a signed
message can be neither moved to another game, step or state nor attributed to another peer; any
peer may pass it on (``RELAY``, ``SYNC``, ``EVIDENCE``) and every receiver checks the signature
again. A move or reveal nested in an ack is its bare body (bytes), signed only by the ack's
signature: the ack is its **carrier** (``Signed.carrier``), and wherever the nested message is
passed on or saved, the ack goes instead.

An honest peer signs at most one message per slot (signer, slot kind, step): one move (``ACTION``
or ``FORWARD``), one reveal, one ack, one vote, one share per dealer. Two valid different
signatures in one slot are proof of equivocation (``core/evidence.py``).

The unsigned messages are link-level (each link is authenticated, see ``core/linkauth.py``):
``OFFER`` (a signed move sent to the leader), ``RELAY`` (another peer's signed messages passed
on), ``EVIDENCE`` (signed messages of a step whose inputs diverged), ``FREEZE``, ``BYE``,
``STATUS`` (where a peer stands, on every new link), ``SYNC`` (the signed steps and changes a peer
behind lacks) and ``WANT`` (a peer waits for another's messages and cannot reach it: pass them on).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any

from lanopoly.net import PROTOCOL_VERSION, wire
from lanopoly.net.keys import SIGNATURE_LEN, Signer
from lanopoly.net.text import shown_field
from lanopoly.net.wire import WireError

PROTOCOL = PROTOCOL_VERSION
HASH_LEN = 32
ID_LEN = 16
MAX_PEERS = 8
MAX_SEATS = 8
MAX_REASON = 512
MAX_BODY = 2048
"""A signed body: a move's fields are a few hundred bytes at most."""
MAX_NESTED_BODY = MAX_BODY + 256
MAX_BATCH = 64
"""Signed messages one RELAY or EVIDENCE may carry."""
MAX_ROUND = 64
"""The last round of votes (and commits) at one step."""
MAX_SYNC_STEPS = 256
MAX_SYNC_CHANGES = MAX_PEERS
VOTE_CHOICES = ("bot", "bank")
"""What a vote does with the peers it removes: ``bot``, their seats are played by a bot from then on;
``bank``, their seats resign at their first chance (the bank takes their assets)."""


class Kind(IntEnum):
    """Message type codes of protocols 8 and 9 (distinct from earlier protocols' codes)."""

    ACTION = 40
    FORWARD = 41
    REVEAL = 42
    ACK = 43
    VOTE = 44
    COMMIT = 46
    SHARE = 45
    OFFER = 50
    RELAY = 51
    EVIDENCE = 52
    FREEZE = 53
    BYE = 54
    STATUS = 55
    SYNC = 56
    WANT = 57


_KINDS = {int(k): k for k in Kind}


def a_kind(kind: Kind) -> str:
    """The type's name with its article, for what a person reads: ``an ACTION``, ``a REVEAL``."""
    return f"{'an' if kind.name[0] in 'AEIOU' else 'a'} {kind.name}"


TAGS = {
    Kind.ACTION: b"lanopoly/9/action\x00",
    Kind.FORWARD: b"lanopoly/9/forward\x00",
    Kind.REVEAL: b"lanopoly/9/reveal\x00",
    Kind.ACK: b"lanopoly/9/ack\x00",
    Kind.VOTE: b"lanopoly/9/vote\x00",
    Kind.COMMIT: b"lanopoly/9/commit\x00",
    Kind.SHARE: b"lanopoly/9/share\x00",
}
"""Signature domain tags, one per signed type: a signature of one type is never one of another."""

SLOTS = {
    Kind.ACTION: "move",
    Kind.FORWARD: "move",
    Kind.REVEAL: "reveal",
    Kind.ACK: "ack",
    Kind.VOTE: "vote",
    Kind.COMMIT: "commit",
    Kind.SHARE: "share",
}
"""The slot kind of each signed type: an honest peer signs one message per (slot kind, step)."""

ACTION_HASH_TAG = b"lanopoly/action/v1\x00"


_canonical = json.JSONEncoder(sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode


def action_hash(action: Mapping[str, Any]) -> bytes:
    """SHA-256 of an input's canonical JSON (sorted keys): what acks compare, the same on every peer."""
    text = _canonical(action)
    return hashlib.sha256(ACTION_HASH_TAG + text.encode("ascii")).digest()


# ----------------------------------------------------------------------------- signed messages


@dataclass(frozen=True, eq=False)
class Signed:
    """A signed message: its exact body bytes, the signature, and the header every body starts with.

    A move or reveal nested in an ack has no signature of its own: ``carrier`` is that ack, whose
    signature covers it (``signature`` is the ack's, ``signed_data`` the ack's tag and body), and
    it is passed on, saved and journaled as its carrier (``pair``, ``pair_text``, ``wire``)."""

    kind: Kind
    body: bytes
    signature: bytes
    game_id: bytes
    step: int
    signer: int
    carrier: Ack | None = field(default=None, kw_only=True, repr=False)

    @property
    def signed_data(self) -> bytes:
        """What the signature covers: the type's tag, then the body (the carrier's, for a nested message)."""
        if self.carrier is not None:
            return self.carrier.signed_data
        return TAGS[self.kind] + self.body

    @property
    def slot(self) -> tuple[int, str, int]:
        """(signer, slot kind, step): an honest peer signs one message per slot."""
        return (self.signer, SLOTS[self.kind], self.step)

    @property
    def signed(self) -> Signed:
        """The message that carries the signature: the carrier of a nested message, else itself."""
        return self if self.carrier is None else self.carrier

    @functools.cached_property
    def pair_text(self) -> str:
        """The message as saved and journaled, ``["<body>","<signature>"]`` in base64 (JSON text): made
        once, though a message goes into the journal, the record and every save. A nested message
        is saved as its carrier."""
        if self.carrier is not None:
            return self.carrier.pair_text
        return f'["{base64.b64encode(self.body).decode("ascii")}","{base64.b64encode(self.signature).decode("ascii")}"]'

    def pair(self) -> list[bytes]:
        """The message as passed on inside another: ``[body, signature]`` (its carrier's, if nested)."""
        if self.carrier is not None:
            return self.carrier.pair()
        return [self.body, self.signature]

    def wire(self) -> bytes:
        """The message sent on its own: ``[type, 9, body, signature]`` (its carrier, if nested)."""
        if self.carrier is not None:
            return self.carrier.wire()
        return wire.pack([int(self.kind), PROTOCOL, self.body, self.signature])

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Signed) and (self.body, self.signature) == (other.body, other.signature)

    def __hash__(self) -> int:
        return hash((self.body, self.signature))


@dataclass(frozen=True, eq=False)
class Action(Signed):
    """``seat``'s move ``action`` for ``step``, made on the state whose hash is ``prev``."""

    prev: bytes
    seat: int
    action: dict[str, Any]


@dataclass(frozen=True, eq=False)
class Forward(Signed):
    """The leader (controller of the seat to act) plays another seat's offered move at ``step``."""

    prev: bytes
    offer: Action


@dataclass(frozen=True, eq=False)
class Reveal(Signed):
    """The signer's ``index``-th hash-chain link, for chance step ``step`` (state ``prev``)."""

    prev: bytes
    index: int
    link: bytes


@dataclass(frozen=True, eq=False)
class Ack(Signed):
    """The signer applied an input with hash ``action_hash`` at ``step`` and reached ``state_hash``;
    ``nested`` is its move or its reveal for the next step, if any, carried by this ack (signed by
    this ack's signature alone)."""

    action_hash: bytes
    state_hash: bytes
    nested: Action | Reveal | None


@dataclass(frozen=True, eq=False)
class Vote(Signed):
    """Remove the peers of ``targets`` (a bit set) from ``step`` on (state ``prev``): ``choice`` says
    what becomes of their seats. ``round`` counts the votes of one step (a peer whose wish grows, or
    that sees a later round, votes again in the next). A ``COMMIT`` has the same fields."""

    prev: bytes
    round: int
    targets: int
    choice: str

    @property
    def removed(self) -> tuple[int, ...]:
        return tuple(p for p in range(MAX_PEERS) if self.targets >> p & 1)

    @property
    def slot(self) -> tuple[int, str, int]:
        """One vote and one commit per round of a step."""
        return (self.signer, f"{SLOTS[self.kind]}{self.round}", self.step)

    @property
    def proposal(self) -> tuple[int, int, bytes, int, str]:
        """What voters must agree on: step, round, state, targets, choice."""
        return (self.step, self.round, self.prev, self.targets, self.choice)


@dataclass(frozen=True, eq=False)
class Share(Signed):
    """The signer's share of ``dealer``'s chain secret, released after ``dealer`` was removed at ``step``."""

    dealer: int
    value: bytes

    @property
    def slot(self) -> tuple[int, str, int]:
        """One share per dealer: a peer removed with others releases one share of each."""
        return (self.signer, f"share{self.dealer}", self.step)


def _header(f: list[Any], kind: Kind) -> tuple[bytes, int, int]:
    if f[0] != kind or f[1] != PROTOCOL:
        raise WireError(f"{a_kind(kind)} body must start with its type and version {PROTOCOL}")
    game_id = wire.bin_field(f[2], "game id", ID_LEN)
    step = wire.int_field(f[3], "step", 0)
    signer = wire.int_field(f[4], "signer", 0, MAX_PEERS - 1)
    return game_id, step, signer


_FIELDS = {Kind.ACTION: 3, Kind.FORWARD: 2, Kind.REVEAL: 3, Kind.ACK: 3, Kind.VOTE: 4, Kind.COMMIT: 4, Kind.SHARE: 2}


def decode_signed(body: Any, signature: Any, allowed: Sequence[Kind] = tuple(TAGS)) -> Signed:
    """Decode a signed message from its body and signature (the signature is checked elsewhere).

    A message is decoded again and again: by its signer (``sign``), nested in an ack or a forward,
    passed on, and in a process running several peers (the network simulation) by each of them.
    Decoding is a pure function of the bytes and the kinds allowed, and its results are frozen
    values: the last ones are kept."""
    if type(body) is bytes and type(signature) is bytes:
        return _decode_bytes(body, signature, allowed if type(allowed) is tuple else tuple(allowed))
    return _decode_signed(body, signature, allowed)


_just_signed: dict[tuple[bytes, bytes], Signed] = {}
"""A message this process just made and signed, handed to the decode cache (``_made_here``)."""


@functools.lru_cache(maxsize=1024)
def _decode_bytes(body: bytes, signature: bytes, allowed: tuple[Kind, ...]) -> Signed:
    made = _just_signed.pop((body, signature), None)
    return made if made is not None else _decode_signed(body, signature, allowed)


def _made_here(message: Signed) -> Signed:
    """Put ``message``, made from its fields, in the decode cache as its bytes' value: a process
    running several peers (the simulation) then decodes it no more than before, when the signer
    decoded it and the receivers found it cached."""
    _just_signed[message.body, message.signature] = message
    cached = _decode_bytes(message.body, message.signature, (message.kind,))
    _just_signed.clear()
    return cached  # the same bytes signed again (deterministic signatures): the first, as decoding gave


def _decode_signed(body: Any, signature: Any, allowed: Sequence[Kind]) -> Signed:
    body = wire.bytes_field(body, "signed body", MAX_NESTED_BODY)
    signature = wire.bin_field(signature, "signature", SIGNATURE_LEN)
    f = wire.unpack(body)
    kind = _KINDS.get(f[0]) if type(f[0]) is int else None
    if kind is None:
        raise WireError(f"unknown signed message type {f[0]!r}")
    if kind not in allowed:
        raise WireError(f"{a_kind(kind)} is not allowed here")
    if len(f) != 5 + _FIELDS[kind]:
        raise WireError(f"{kind.name}: expected {5 + _FIELDS[kind]} body fields")
    if kind is not Kind.ACK and len(body) > MAX_BODY:
        raise WireError(f"{kind.name}: body too long")
    game_id, step, signer = _header(f, kind)
    head = (kind, body, signature, game_id, step, signer)
    rest = f[5:]
    if kind is Kind.ACTION:
        action = wire.json_like(rest[2], "action")
        if type(action) is not dict:
            raise WireError("action: expected a map")
        seat = wire.int_field(rest[1], "seat", 0, MAX_SEATS - 1)
        if action.get("player") != seat:
            raise WireError("action: its player is not its seat")
        return Action(*head, wire.bin_field(rest[0], "prev", HASH_LEN), seat, action)
    if kind is Kind.FORWARD:
        offer = decode_pair(rest[1], (Kind.ACTION,))
        assert isinstance(offer, Action)
        if offer.game_id != game_id or offer.step != step:
            raise WireError("forward: the offer is for another game or step")
        return Forward(*head, wire.bin_field(rest[0], "prev", HASH_LEN), offer)
    if kind is Kind.REVEAL:
        prev = wire.bin_field(rest[0], "prev", HASH_LEN)
        return Reveal(
            *head, prev, wire.int_field(rest[1], "chance index", 1), wire.bin_field(rest[2], "link", HASH_LEN)
        )
    if kind is Kind.ACK:
        return _ack(head, rest[0], rest[1], rest[2])
    if kind in (Kind.VOTE, Kind.COMMIT):
        prev = wire.bin_field(rest[0], "prev", HASH_LEN)
        round_ = wire.int_field(rest[1], "round", 0, MAX_ROUND)
        targets = wire.int_field(rest[2], "targets", 1, 2**MAX_PEERS - 1)
        choice = wire.str_field(rest[3], "choice", 8)
        if choice not in VOTE_CHOICES:
            raise WireError(f"vote: unknown choice {choice!r}")
        return Vote(*head, prev, round_, targets, choice)
    dealer = wire.int_field(rest[0], "dealer", 0, MAX_PEERS - 1)
    return Share(*head, dealer, wire.bin_field(rest[1], "share", 32))


def _ack(head: tuple[Kind, bytes, bytes, bytes, int, int], ahash: Any, shash: Any, inner: Any) -> Ack:
    """An ack from its header and its fields as decoded (or as given to ``sign_ack``: the same checks)."""
    _, _, signature, game_id, step, signer = head
    nested: Action | Reveal | None = None
    if inner is not None:
        decoded = _decode_signed(inner, signature, (Kind.ACTION, Kind.REVEAL))
        assert isinstance(decoded, Action | Reveal)
        if decoded.game_id != game_id or decoded.step != step + 1 or decoded.signer != signer:
            raise WireError("ack: a nested message must be the acking peer's own, for the next step")
        nested = decoded
    ack = Ack(
        *head, wire.bin_field(ahash, "action hash", HASH_LEN), wire.bin_field(shash, "state hash", HASH_LEN), nested
    )
    if nested is not None:
        object.__setattr__(nested, "carrier", ack)  # made here, before anyone else holds it
    return ack


def decode_pair(value: Any, allowed: Sequence[Kind] = tuple(TAGS)) -> Signed:
    """Decode a nested ``[body, signature]`` pair."""
    pair = wire.list_field(value, "signed pair", 2, exact=2)
    return decode_signed(pair[0], pair[1], allowed)


def sign(key: Signer, kind: Kind, game_id: bytes, step: int, signer: int, *fields: Any) -> Signed:
    """Make a signed message; the result is decoded from the bytes signed (one code path for both)."""
    data = unsigned_body(kind, game_id, step, signer, *fields)
    return decode_signed(data, key.sign(TAGS[kind] + data), (kind,))


def sign_action(
    key: Signer, game_id: bytes, step: int, signer: int, prev: bytes, seat: int, action: dict[str, Any]
) -> Action:
    m = sign(key, Kind.ACTION, game_id, step, signer, prev, seat, action)
    assert isinstance(m, Action)
    return m


def sign_forward(key: Signer, game_id: bytes, step: int, signer: int, prev: bytes, offer: Action) -> Forward:
    m = sign(key, Kind.FORWARD, game_id, step, signer, prev, offer.pair())
    assert isinstance(m, Forward)
    return m


def sign_reveal(key: Signer, game_id: bytes, step: int, signer: int, prev: bytes, index: int, link: bytes) -> Reveal:
    m = sign(key, Kind.REVEAL, game_id, step, signer, prev, index, link)
    assert isinstance(m, Reveal)
    return m


def unsigned_body(kind: Kind, game_id: bytes, step: int, signer: int, *fields: Any) -> bytes:
    """A message's body, unsigned: what an ack nests (its signature covers it)."""
    return wire.pack([int(kind), PROTOCOL, game_id, step, signer, *fields])


def sign_ack(
    key: Signer, game_id: bytes, step: int, signer: int, ahash: bytes, shash: bytes, nested: bytes | Signed | None
) -> Ack:
    """Sign an ack; ``nested`` is the body of this peer's move or reveal for ``step + 1`` (a signed
    message's body may be given: only its body is nested, the ack's signature covers it)."""
    inner = nested.body if isinstance(nested, Signed) else nested
    data = unsigned_body(Kind.ACK, game_id, step, signer, ahash, shash, inner)
    # Every peer signs an ack a step: it is made from the fields just packed, with the checks
    # decoding would make of them, not decoded again from ``data`` (``sign``'s way; the same value).
    wire.bytes_field(data, "signed body", MAX_NESTED_BODY)
    header = (
        wire.bin_field(game_id, "game id", ID_LEN),
        wire.int_field(step, "step", 0),
        wire.int_field(signer, "signer", 0, MAX_PEERS - 1),
    )
    ack = _ack((Kind.ACK, data, key.sign(TAGS[Kind.ACK] + data), *header), ahash, shash, inner)
    made = _made_here(ack)
    assert isinstance(made, Ack)
    return made


def sign_vote(
    key: Signer,
    game_id: bytes,
    step: int,
    signer: int,
    prev: bytes,
    round_: int,
    removed: Sequence[int],
    choice: str,
    kind: Kind = Kind.VOTE,
) -> Vote:
    targets = sum(1 << p for p in set(removed))
    m = sign(key, kind, game_id, step, signer, prev, round_, targets, choice)
    assert isinstance(m, Vote)
    return m


def sign_share(key: Signer, game_id: bytes, step: int, signer: int, dealer: int, value: bytes) -> Share:
    m = sign(key, Kind.SHARE, game_id, step, signer, dealer, value)
    assert isinstance(m, Share)
    return m


# ----------------------------------------------------------------------------- link-level messages


@dataclass(frozen=True)
class Offer:
    """A signed out-of-turn move sent to the leader of its step, which may play it (``FORWARD``)."""

    action: Action


@dataclass(frozen=True)
class Relay:
    """Signed messages of other peers passed on (after a link broke, or to a peer behind)."""

    messages: tuple[Signed, ...]


@dataclass(frozen=True)
class Evidence:
    """The signed messages a peer holds for ``step`` and the step before, after their inputs diverged."""

    step: int
    messages: tuple[Signed, ...]


@dataclass(frozen=True)
class Freeze:
    """The sender stopped the session at ``step`` for ``reason``."""

    step: int
    reason: str


@dataclass(frozen=True)
class Bye:
    """Game over at ``step`` with the final ``state_hash``."""

    step: int
    state_hash: bytes


@dataclass(frozen=True)
class Status:
    """Where the sender stands, sent first on every new link: the last step it applied, the changes
    of membership it made, and the listening ports it knows for peers that moved (peer -> port)."""

    step: int
    changes: int
    ports: tuple[tuple[int, int], ...]


@dataclass(frozen=True)
class Want:
    """The sender waits for ``peer``'s messages of ``step`` and its link to that peer is down: whoever
    holds them passes them on (``RELAY``)."""

    peer: int
    step: int


@dataclass(frozen=True)
class StepRecord:
    """The signed messages that decided one step: a move (``ACTION`` or ``FORWARD``) or the reveals."""

    step: int
    messages: tuple[Signed, ...]


@dataclass(frozen=True)
class ChangeRecord:
    """A change of membership made from ``step`` on: the commits that made it and the shares released."""

    step: int
    commits: tuple[Vote, ...]
    shares: tuple[Share, ...]


@dataclass(frozen=True)
class Sync:
    """Steps and changes a peer behind lacks (``last`` on the final frame of one catch-up)."""

    steps: tuple[StepRecord, ...]
    changes: tuple[ChangeRecord, ...]
    last: bool


Message = Signed | Offer | Relay | Evidence | Freeze | Bye | Status | Sync | Want


def _pairs(value: Any, what: str, max_len: int, allowed: Sequence[Kind] = tuple(TAGS)) -> tuple[Signed, ...]:
    return tuple(decode_pair(p, allowed) for p in wire.list_field(value, what, max_len))


STEP_KINDS = (Kind.ACTION, Kind.FORWARD, Kind.REVEAL, Kind.ACK)
"""What a step record holds: moves and reveals, alone or carried by the ack that nests them."""


def step_messages(messages: Sequence[Signed]) -> tuple[Signed, ...]:
    """A step record's messages as decided: an ack in a record stands for the move or reveal it
    carries (its signature is the only one over them); WireError for anything else."""
    out: list[Signed] = []
    for m in messages:
        if isinstance(m, Ack):
            if m.nested is None:
                raise WireError("an ack in a step record must carry a move or a reveal")
            m = m.nested
        elif m.kind not in STEP_KINDS:
            raise WireError(f"{a_kind(m.kind)} does not decide a step")
        out.append(m)
    return tuple(out)


def carriers(messages: Sequence[Signed]) -> list[Signed]:
    """The messages as passed on: each nested one as its carrier, each once, in order."""
    return list(dict.fromkeys(m.signed for m in messages))


def _step_record(value: Any) -> StepRecord:
    f = wire.list_field(value, "step record", 2, exact=2)
    step = wire.int_field(f[0], "step", 1)
    return StepRecord(step, step_messages(_pairs(f[1], "step messages", MAX_PEERS, STEP_KINDS)))


def _change_record(value: Any) -> ChangeRecord:
    f = wire.list_field(value, "change record", 3, exact=3)
    votes = _pairs(f[1], "commits", MAX_PEERS, (Kind.COMMIT,))
    shares = _pairs(f[2], "shares", MAX_PEERS * MAX_PEERS, (Kind.SHARE,))
    return ChangeRecord(wire.int_field(f[0], "step", 1), votes, shares)  # type: ignore[arg-type]


def encode_step_record(record: StepRecord) -> list[Any]:
    return [record.step, [m.pair() for m in record.messages]]


def encode_change_record(record: ChangeRecord) -> list[Any]:
    return [record.step, [v.pair() for v in record.commits], [s.pair() for s in record.shares]]


def encode(game_id: bytes, message: Message) -> bytes:
    """The wire bytes of a message (a signed message is sent as it was signed)."""
    if isinstance(message, Signed):
        return message.wire()
    head: list[Any]
    if isinstance(message, Offer):
        head = [Kind.OFFER, message.action.pair()]
    elif isinstance(message, Relay):
        head = [Kind.RELAY, [m.pair() for m in carriers(message.messages)]]
    elif isinstance(message, Evidence):
        head = [Kind.EVIDENCE, message.step, [m.pair() for m in carriers(message.messages)]]
    elif isinstance(message, Freeze):
        head = [Kind.FREEZE, message.step, message.reason[:MAX_REASON]]
    elif isinstance(message, Bye):
        head = [Kind.BYE, message.step, message.state_hash]
    elif isinstance(message, Status):
        head = [Kind.STATUS, message.step, message.changes, [list(p) for p in message.ports]]
    elif isinstance(message, Want):
        head = [Kind.WANT, message.peer, message.step]
    else:
        steps = [encode_step_record(r) for r in message.steps]
        changes = [encode_change_record(c) for c in message.changes]
        head = [Kind.SYNC, steps, changes, message.last]
    kind, *fields = head
    return wire.pack([int(kind), PROTOCOL, game_id, *fields])


def parse(payload: bytes, game_id: bytes) -> Message:
    """Decode and check one session message of game ``game_id``; WireError if it is not one.

    A peer broadcasts the same bytes to every other: the last results are kept (they are frozen
    values), so a process running several peers (the network simulation) decodes each once."""
    return _parse(payload, game_id)


@functools.lru_cache(maxsize=512)
def _parse(payload: bytes, game_id: bytes) -> Message:
    f = wire.unpack(payload)
    if len(f) < 2 or type(f[0]) is not int or f[1] != PROTOCOL:
        raise WireError(f"not a protocol {PROTOCOL} message")
    kind = _KINDS.get(f[0])
    if kind is None:
        raise WireError(f"unknown message type {f[0]}")
    if kind in TAGS:
        wire.list_field(f, kind.name, 4, exact=4)
        message = decode_signed(f[2], f[3], (kind,))
        if message.game_id != game_id:
            raise WireError(f"{kind.name} for another game")
        return message
    if len(f) < 3 or f[2] != game_id:
        raise WireError(f"{kind.name} for another game")
    rest = f[3:]
    sizes = {
        Kind.OFFER: 1,
        Kind.RELAY: 1,
        Kind.EVIDENCE: 2,
        Kind.FREEZE: 2,
        Kind.BYE: 2,
        Kind.STATUS: 3,
        Kind.SYNC: 3,
        Kind.WANT: 2,
    }
    if len(rest) != sizes[kind]:
        raise WireError(f"{kind.name}: expected {sizes[kind]} fields")
    if kind is Kind.OFFER:
        offer = decode_pair(rest[0], (Kind.ACTION,))
        assert isinstance(offer, Action)
        return Offer(offer)
    if kind is Kind.RELAY:
        return Relay(_pairs(rest[0], "relayed", MAX_BATCH))
    if kind is Kind.EVIDENCE:
        return Evidence(wire.int_field(rest[0], "step", 1), _pairs(rest[1], "evidence", MAX_BATCH))
    if kind is Kind.FREEZE:
        return Freeze(wire.int_field(rest[0], "step"), shown_field(rest[1], "reason", MAX_REASON))
    if kind is Kind.BYE:
        return Bye(wire.int_field(rest[0], "step"), wire.bin_field(rest[1], "state hash", HASH_LEN))
    if kind is Kind.WANT:
        return Want(wire.int_field(rest[0], "peer", 0, MAX_PEERS - 1), wire.int_field(rest[1], "step"))
    if kind is Kind.STATUS:
        ports = []
        for item in wire.list_field(rest[2], "ports", MAX_PEERS):
            p = wire.list_field(item, "port", 2, exact=2)
            ports.append((wire.int_field(p[0], "peer", 0, MAX_PEERS - 1), wire.int_field(p[1], "port", 1, 65535)))
        return Status(wire.int_field(rest[0], "step"), wire.int_field(rest[1], "changes", 0, MAX_PEERS), tuple(ports))
    steps = tuple(_step_record(s) for s in wire.list_field(rest[0], "steps", MAX_SYNC_STEPS))
    changes = tuple(_change_record(c) for c in wire.list_field(rest[1], "changes", MAX_SYNC_CHANGES))
    return Sync(steps, changes, wire.bool_field(rest[2], "last"))
