"""The wire messages: positional arrays ``[type, version, ...fields]`` and their strict validation.

Every message is parsed into a frozen dataclass by ``parse``, which checks the protocol version,
the number of fields and the type and range of every field; anything else raises ``ProtocolError``
and the connection it came from is closed. Hashes, ids and chain links are ``bin`` of fixed length;
there are no floats and no ExtTypes. Game inputs (action dicts) are the only maps, checked to be
small JSON-like trees; the rules engine decides whether they are legal.

``ACTION``, ``REVEAL`` and ``ACK`` are signed: on the wire they are ``[type, version, body,
signature]`` where ``body`` is the msgpack encoding of the unsigned message ``[type, version, game
id, step, ...]`` and ``signature`` is the Ed25519 signature of ``tag || body`` by the key the start
record lists for the acting (revealing, acknowledging) peer. The signature covers the exact bytes
sent (no re-encoding, msgpack is not canonical), and the body binds it to the game, the step and
the state it was made for, so it can be neither moved to another seat nor replayed. Actions and
reveals are checked on arrival; ack signatures only when they are needed as proof (``EVIDENCE``).

An ``ACK`` may carry one signed ``ACTION`` for the next step (an out-of-turn "interjection"),
nested in its body, so one ack signature covers what the peer announced and what it interjected:
two different acks signed by one peer for one step prove that it told peers different things.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from typing import Any, ClassVar

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanopoly.net import PROTOCOL_VERSION
from lanopoly.net.framing import FrameError, pack, unpack

HASH_LEN = 32
ID_LEN = 16
MAX_NAME = 64
MAX_PEERS = 8
MAX_SEATS = 8
MAX_REASON = 512
MAX_STEP = 2**40
PAKE_MSG_LEN = 33
CONFIRM_LEN = 32
KEY_LEN = 32
SIG_LEN = 64
MAX_BODY = 16 * 1024
MAX_ACK_BODY = MAX_BODY + 512
"""An ack's body: its own fields plus, at most, one nested signed action (body and signature)."""
MAX_EVIDENCE = 4 * MAX_PEERS
"""Signed messages in one ``EVIDENCE``: an input and two steps of acks from every peer fit."""
MAX_SYNC_STEPS = 512
"""Steps one SYNC chunk may carry (the frame cap bounds the bytes as well)."""
MAX_HELD = 8
MAX_SYNC_CHANGES = MAX_PEERS
"""Changes of membership one SYNC may carry (each replaces at least one peer: a game has fewer)."""
MAX_SYNC_PORTS = MAX_PEERS
"""Listening ports one SYNC may name (one per peer of a game at most)."""
MAX_VOTE_BODY = 512
"""A signed vote's body (its fields are a few dozen bytes)."""
ACTION_SIG_TAG = b"lanopoly/sig/action/v1\x00"
REVEAL_SIG_TAG = b"lanopoly/sig/reveal/v1\x00"
ACK_SIG_TAG = b"lanopoly/sig/ack/v1\x00"
VOTE_SIG_TAG = b"lanopoly/sig/vote/v1\x00"
VOTE_CHOICES = ("bot", "bank")
"""What the others may vote to do with a peer they vote out: ``bot``, its seats are played by a bot
from then on; ``bank``, its seats resign (the bank takes their assets) at their first chance."""


class ProtocolError(Exception):
    """A well-framed message that is not a valid message of this protocol."""


class Kind(IntEnum):
    """Message type codes (first element of every message)."""

    HELLO = 1
    WELCOME = 2
    REJECT = 3
    START = 4
    PEER_HELLO = 5
    START_ACK = 6
    ACTION = 7
    REVEAL = 8
    ACK = 9
    FREEZE = 10
    BYE = 11
    AUTH_OFFER = 12
    AUTH_REPLY = 13
    AUTH_CONFIRM = 14
    EVIDENCE = 15
    REJOIN = 20
    SYNC = 21
    VOTE = 22
    RELAY = 23
    OFFER = 24
    FORWARD = 25
    ACCEPT = 26


def _int(value: Any, what: str, lo: int = 0, hi: int = MAX_STEP) -> int:
    if type(value) is not int or not lo <= value <= hi:
        raise ProtocolError(f"{what}: expected an integer in [{lo}, {hi}]")
    return value


def _bin(value: Any, what: str, length: int) -> bytes:
    if type(value) is not bytes or len(value) != length:
        raise ProtocolError(f"{what}: expected {length} bytes")
    return value


def _str(value: Any, what: str, max_len: int = MAX_NAME, allow_empty: bool = False) -> str:
    if type(value) is not str or len(value) > max_len or (not value and not allow_empty):
        raise ProtocolError(f"{what}: expected a string of at most {max_len} characters")
    return value


def _list(value: Any, what: str, max_len: int) -> list[Any]:
    if type(value) is not list or len(value) > max_len:
        raise ProtocolError(f"{what}: expected an array of at most {max_len} items")
    return value


def check_json_like(value: Any, what: str, depth: int = 0) -> Any:
    """Check a small tree of str-keyed maps, arrays, str, int, bool and nil (a game input)."""
    if depth > 5:
        raise ProtocolError(f"{what}: nested too deeply")
    if value is None or type(value) in (bool, int):
        return value
    if type(value) is str:
        return _str(value, what, MAX_NAME, allow_empty=True)
    if type(value) is list:
        return [check_json_like(v, what, depth + 1) for v in _list(value, what, 64)]
    if type(value) is dict:
        if len(value) > 16:
            raise ProtocolError(f"{what}: too many keys")
        return {_str(k, what, 32): check_json_like(v, what, depth + 1) for k, v in value.items()}
    raise ProtocolError(f"{what}: unsupported value of type {type(value).__name__}")


@dataclass(frozen=True)
class Hello:
    """Joiner -> host: asks for a seat, announcing its signing key with a proof bound to the channel."""

    game_id: bytes
    name: str
    listen_port: int
    peer_id: bytes
    anchor: bytes
    sign_key: bytes
    proof: bytes

    def to_wire(self) -> list[Any]:
        return [
            Kind.HELLO,
            PROTOCOL_VERSION,
            self.game_id,
            self.name,
            self.listen_port,
            self.peer_id,
            self.anchor,
            self.sign_key,
            self.proof,
        ]


@dataclass(frozen=True)
class Welcome:
    """Host -> joiner: the seat request is accepted; the joiner is peer ``index`` of ``peers``."""

    game_id: bytes
    index: int
    peers: int

    def to_wire(self) -> list[Any]:
        return [Kind.WELCOME, PROTOCOL_VERSION, self.game_id, self.index, self.peers]


@dataclass(frozen=True)
class Reject:
    """Any -> any: the request is refused (lobby full, wrong game, not a host...)."""

    reason: str

    def to_wire(self) -> list[Any]:
        return [Kind.REJECT, PROTOCOL_VERSION, self.reason[:MAX_REASON]]


@dataclass(frozen=True)
class PeerEntry:
    """One peer of the start record: id, name, address to dial, hash-chain anchor, Ed25519 public key."""

    peer_id: bytes
    name: str
    host: str
    port: int
    anchor: bytes
    sign_key: bytes

    def to_wire(self) -> list[Any]:
        return [self.peer_id, self.name, self.host, self.port, self.anchor, self.sign_key]


@dataclass(frozen=True)
class StartRecord:
    """What every peer must agree on before step 1: the game, seats, controllers, rules, commitments.

    ``controllers[seat]`` is the index of the peer that plays the seat (only it may act for it).
    ``peers[i].anchor`` is ``H^chain_length(secret_i)``, peer i's commitment to its randomness;
    ``peers[i].sign_key`` is the key that must sign peer i's actions and reveals.
    ``replace_with`` is what every peer's automatic vote (``--replace-after``) chooses for a peer
    away or silent too long: ``bot`` or ``bank`` (the host's choice; ``bot`` before protocol 5).
    """

    game_id: bytes
    peers: tuple[PeerEntry, ...]
    names: tuple[str, ...]
    controllers: tuple[int, ...]
    board: str
    rules: dict[str, Any]
    chain_length: int
    replace_with: str = "bot"

    def to_wire(self) -> list[Any]:
        return [
            Kind.START,
            PROTOCOL_VERSION,
            self.game_id,
            [p.to_wire() for p in self.peers],
            list(self.names),
            list(self.controllers),
            self.board,
            self.rules,
            self.chain_length,
            self.replace_with,
        ]


@dataclass(frozen=True)
class PeerHello:
    """Dialer -> listener when building the mesh: "I am peer ``index``", proved by signing the channel binding."""

    game_id: bytes
    index: int
    peer_id: bytes
    proof: bytes

    def to_wire(self) -> list[Any]:
        return [Kind.PEER_HELLO, PROTOCOL_VERSION, self.game_id, self.index, self.peer_id, self.proof]


@dataclass(frozen=True)
class Accept:
    """Accepting peer -> dialer, protocol 7: "I am peer ``index``", proved by signing the channel binding.

    The answer to a ``PEER_HELLO`` (the mesh forming) and, before the ``SYNC`` frames, to a
    ``REJOIN`` (a peer rejoining, or a session linking up again): ``proof`` is the accepting
    peer's signature of ``secure.accept_proof_data(binding, game id, index)`` with the start
    record's key for ``index``, which the dialer checks against the peer it meant to reach.
    """

    game_id: bytes
    index: int
    proof: bytes

    def to_wire(self) -> list[Any]:
        return [Kind.ACCEPT, PROTOCOL_VERSION, self.game_id, self.index, self.proof]


@dataclass(frozen=True)
class StartAck:
    """Every peer -> every peer: the hash of the start record bytes it received (or sent), signed by it."""

    game_id: bytes
    start_hash: bytes
    signature: bytes

    def to_wire(self) -> list[Any]:
        return [Kind.START_ACK, PROTOCOL_VERSION, self.game_id, self.start_hash, self.signature]


class SignedMessage:
    """What every signed message has: its exact body on the wire and the signature of ``TAG + body``.

    The signature covers the bytes sent (msgpack is not canonical: nothing is re-encoded); the
    tag separates the kinds, so a signature of one kind never verifies as another.
    """

    KIND: ClassVar[Kind]
    TAG: ClassVar[bytes]
    body: bytes
    signature: bytes

    @property
    def signed_data(self) -> bytes:
        """The bytes the signature covers."""
        return self.TAG + self.body

    def to_wire(self) -> list[Any]:
        return [self.KIND, PROTOCOL_VERSION, self.body, self.signature]


def sign(key: Ed25519PrivateKey, tag: bytes, body: bytes) -> bytes:
    """The signature of an encoded body under its kind's tag."""
    return key.sign(tag + body)


@dataclass(frozen=True)
class ActionMsg(SignedMessage):
    """The controller of the seat to act -> all: the input of ``step``, bound to the previous state, signed.

    Build one with ``signed``; ``body`` and ``signature`` are what goes on the wire, the other fields
    are decoded from ``body``. The signer must be the peer controlling ``seat``.
    """

    KIND: ClassVar[Kind] = Kind.ACTION
    TAG: ClassVar[bytes] = ACTION_SIG_TAG

    game_id: bytes
    step: int
    prev_hash: bytes
    seat: int
    action: dict[str, Any]
    body: bytes
    signature: bytes

    @classmethod
    def signed(
        cls, key: Ed25519PrivateKey, game_id: bytes, step: int, prev_hash: bytes, seat: int, action: dict[str, Any]
    ) -> ActionMsg:
        """Encode the body once and sign exactly those bytes."""
        body = pack([Kind.ACTION, PROTOCOL_VERSION, game_id, step, prev_hash, seat, action])
        return cls(game_id, step, prev_hash, seat, action, body, sign(key, ACTION_SIG_TAG, body))


@dataclass(frozen=True)
class Reveal(SignedMessage):
    """Every peer -> all at a chance node: its next hash-chain link (``chance_index``-th reveal), signed by ``peer``."""

    KIND: ClassVar[Kind] = Kind.REVEAL
    TAG: ClassVar[bytes] = REVEAL_SIG_TAG

    game_id: bytes
    step: int
    prev_hash: bytes
    peer: int
    chance_index: int
    link: bytes
    body: bytes
    signature: bytes

    @classmethod
    def signed(
        cls,
        key: Ed25519PrivateKey,
        game_id: bytes,
        step: int,
        prev_hash: bytes,
        peer: int,
        chance_index: int,
        link: bytes,
    ) -> Reveal:
        """Encode the body once and sign exactly those bytes."""
        body = pack([Kind.REVEAL, PROTOCOL_VERSION, game_id, step, prev_hash, peer, chance_index, link])
        return cls(game_id, step, prev_hash, peer, chance_index, link, body, sign(key, REVEAL_SIG_TAG, body))


@dataclass(frozen=True)
class Ack(SignedMessage):
    """Every peer -> all after applying ``step``: the hash of the input and of the resulting state, signed.

    ``peer`` is the signer (its index in the start record). ``interjection``, when set, is a signed
    ``ACTION`` for step ``step + 1`` of a seat ``peer`` controls and that is not the one to act: the
    peer's out-of-turn move, offered for the next step (see ``lockstep``). ``reveal``, when set
    (protocol 4, only when step ``step + 1`` is a chance step), is the peer's signed ``REVEAL`` for
    it, sent early so that the chance step needs no round of its own. At most one of the two is
    set (no interjection at a chance step). Build one with ``signed``.
    """

    KIND: ClassVar[Kind] = Kind.ACK
    TAG: ClassVar[bytes] = ACK_SIG_TAG

    game_id: bytes
    step: int
    peer: int
    action_hash: bytes
    state_hash: bytes
    interjection: ActionMsg | None
    reveal: Reveal | None
    body: bytes
    signature: bytes

    @classmethod
    def signed(
        cls,
        key: Ed25519PrivateKey,
        game_id: bytes,
        step: int,
        peer: int,
        action_hash: bytes,
        state_hash: bytes,
        interjection: ActionMsg | None = None,
        reveal: Reveal | None = None,
    ) -> Ack:
        """Encode the body once (the interjection or reveal nested as its exact signed bytes) and sign it."""
        if interjection is not None and reveal is not None:
            raise ValueError("an ack nests an interjection or a reveal, not both")
        inner = interjection or reveal
        nested = None if inner is None else [inner.body, inner.signature]
        body = pack([Kind.ACK, PROTOCOL_VERSION, game_id, step, peer, action_hash, state_hash, nested])
        signature = sign(key, ACK_SIG_TAG, body)
        return cls(game_id, step, peer, action_hash, state_hash, interjection, reveal, body, signature)


@dataclass(frozen=True)
class Freeze:
    """Any peer -> all: the session is frozen at ``step`` for ``reason`` (a desync or a fault)."""

    game_id: bytes
    step: int
    reason: str

    def to_wire(self) -> list[Any]:
        return [Kind.FREEZE, PROTOCOL_VERSION, self.game_id, self.step, self.reason[:MAX_REASON]]


@dataclass(frozen=True)
class Bye:
    """Every peer -> all once the game is over and the last step agreed: the final step and hash."""

    game_id: bytes
    step: int
    state_hash: bytes

    def to_wire(self) -> list[Any]:
        return [Kind.BYE, PROTOCOL_VERSION, self.game_id, self.step, self.state_hash]


Signed = ActionMsg | Ack
"""A message that can serve as evidence: an honest peer signs at most one per slot (see ``evidence``)."""


@dataclass(frozen=True)
class Evidence:
    """Any peer -> all when the inputs of ``step`` diverged: the signed messages this peer holds for it.

    ``signed`` is the input it applied for ``step`` (an ``ACTION``) and every ack it holds for
    ``step - 1`` (they carry the interjections for ``step``) and ``step``. Two different messages
    signed by one peer for the same slot prove that this peer equivocated.
    """

    game_id: bytes
    step: int
    signed: tuple[Signed, ...]

    def to_wire(self) -> list[Any]:
        items = [[Kind.ACTION if isinstance(m, ActionMsg) else Kind.ACK, m.body, m.signature] for m in self.signed]
        return [Kind.EVIDENCE, PROTOCOL_VERSION, self.game_id, self.step, items]


@dataclass(frozen=True)
class AuthOffer:
    """Listener -> dialer, first message on every connection: the game id and its SPAKE2 message."""

    game_id: bytes
    pake: bytes

    def to_wire(self) -> list[Any]:
        return [Kind.AUTH_OFFER, PROTOCOL_VERSION, self.game_id, self.pake]


@dataclass(frozen=True)
class AuthReply:
    """Dialer -> listener: its SPAKE2 message and its key confirmation (proves the PIN, one guess)."""

    pake: bytes
    confirm: bytes

    def to_wire(self) -> list[Any]:
        return [Kind.AUTH_REPLY, PROTOCOL_VERSION, self.pake, self.confirm]


@dataclass(frozen=True)
class AuthConfirm:
    """Listener -> dialer: its key confirmation; every later frame on the connection is encrypted."""

    confirm: bytes

    def to_wire(self) -> list[Any]:
        return [Kind.AUTH_CONFIRM, PROTOCOL_VERSION, self.confirm]


@dataclass(frozen=True)
class Vote(SignedMessage):
    """A peer -> the other present peers: replace the peers of ``target`` (a bit set) from ``step`` on, signed.

    Bound to the game, the step the change takes effect at and the state before it, so a vote
    counts only where it was meant. When every present peer but the target has voted the same
    (step, target, choice), the change is made on every peer alike (see ``membership``).
    """

    KIND: ClassVar[Kind] = Kind.VOTE
    TAG: ClassVar[bytes] = VOTE_SIG_TAG

    game_id: bytes
    step: int
    prev_hash: bytes
    voter: int
    target: int
    choice: str
    body: bytes
    signature: bytes

    @classmethod
    def signed(
        cls, key: Ed25519PrivateKey, game_id: bytes, step: int, prev_hash: bytes, voter: int, target: int, choice: str
    ) -> Vote:
        body = pack([Kind.VOTE, PROTOCOL_VERSION, game_id, step, prev_hash, voter, target, choice])
        return cls(game_id, step, prev_hash, voter, target, choice, body, sign(key, VOTE_SIG_TAG, body))


@dataclass(frozen=True)
class Relay:
    """A peer -> the others when ``peer`` dropped: the signed messages of ``peer`` it holds for steps not agreed.

    Its last messages may have reached only some peers before it dropped; relayed (each still
    signed by ``peer``), every present peer ends up with the same ones.
    """

    game_id: bytes
    peer: int
    frames: list[bytes]

    def to_wire(self) -> list[Any]:
        return [Kind.RELAY, PROTOCOL_VERSION, self.game_id, self.peer, self.frames]


@dataclass(frozen=True)
class Handover:
    """An out-of-turn move handed on while a step waits for an in-turn move (protocol 4).

    ``OFFER``, a peer -> the controller of the seat to act: "decide this step with my move". A
    ``FORWARD``, that controller -> every other peer: "this step is decided by this move". The move
    stays signed by the controller of its own seat, bound to the step and the state; the link
    (authenticated) says who offered or forwarded it.
    """

    kind: Kind
    game_id: bytes
    action: ActionMsg

    def to_wire(self) -> list[Any]:
        return [self.kind, PROTOCOL_VERSION, self.game_id, self.action.body, self.action.signature]


@dataclass(frozen=True)
class Rejoin:
    """A peer that dropped -> every other peer, first message on a new link: "I am peer ``index`` again".

    ``proof`` signs the channel binding with the key of the start record (as PEER_HELLO does);
    ``have_step`` is the last step its own saved log holds, so the answer sends only what it lacks.
    Since protocol 7, ``port`` is the port its listener is bound to now: a restarted peer listens
    elsewhere when its start record port is taken, and the peers that dial it from their session
    later (``reconnect``) dial it there.
    """

    game_id: bytes
    index: int
    peer_id: bytes
    proof: bytes
    have_step: int
    port: int

    def to_wire(self) -> list[Any]:
        fields = [self.game_id, self.index, self.peer_id, self.proof, self.have_step, self.port]
        return [Kind.REJOIN, PROTOCOL_VERSION, *fields]


@dataclass(frozen=True)
class Sync:
    """Peer -> a rejoining peer: the signed inputs of the steps it lacks, in chunks; the last one says where we are.

    ``steps`` holds ``[step, [[body, signature], ...]]`` entries (the signed ACTION or REVEALs that
    decided each step, exactly as the network record keeps them). The last chunk (``last``) also
    gives ``applied`` (the last step this peer applied) and ``held``: the rejoiner's own messages
    this peer holds for the steps not yet agreed (encoded frames), so that the rejoiner repeats
    exactly what it said before it dropped instead of saying something else. Since protocol 6 it
    also gives ``away``: the other peers this one is waiting for (they dropped too), whom the
    rejoiner need not reach before it plays on (a bit set on the wire, as in ``VOTE``), and
    ``changes``: the changes of membership made after the rejoiner's saved steps (one decided for
    the step to come too), each as ``[step, [[body, signature], ...]]``, its signed votes exactly as
    the network record keeps them: the rejoiner checks them as ``verify`` does before it replays
    that step, so it ends with the same peers as the others. Since protocol 7 it also gives
    ``ports``: ``(peer, port)`` for each peer this one knows to listen on another port than its
    start record's (it rejoined, its old port taken; by its own ``REJOIN``), so that the rejoiner
    dials it there (on its start record host: only the port moves). At most ``MAX_SYNC_PORTS``,
    one per peer, each a port from 1 to 65535; the rejoiner also checks the peer is in the start
    record (``read_sync``). Not proved by the peer named: a wrong port only makes the rejoiner dial
    that peer's host at a port where it may not be.
    """

    game_id: bytes
    steps: list[tuple[int, list[tuple[bytes, bytes]]]]
    last: bool
    applied: int
    held: list[bytes]
    away: tuple[int, ...] = ()
    changes: list[tuple[int, list[tuple[bytes, bytes]]]] = field(default_factory=list)
    ports: tuple[tuple[int, int], ...] = ()

    @classmethod
    def chunks(
        cls, game_id: bytes, steps: list[tuple[int, list[tuple[bytes, bytes]]]], budget: int = 32 * 1024
    ) -> list[Sync]:
        """Non-final SYNC messages carrying ``steps``, each within ``budget`` bytes of signed input."""
        out: list[Sync] = []
        chunk: list[tuple[int, list[tuple[bytes, bytes]]]] = []
        size = 0
        for step, signed in steps:
            chunk.append((step, signed))
            size += sum(len(body) + len(sig) + 8 for body, sig in signed) + 8
            if size >= budget or len(chunk) >= MAX_SYNC_STEPS:
                out.append(cls(game_id, chunk, False, 0, []))
                chunk, size = [], 0
        if chunk:
            out.append(cls(game_id, chunk, False, 0, []))
        return out

    def to_wire(self) -> list[Any]:
        steps = [[step, [[body, sig] for body, sig in signed]] for step, signed in self.steps]
        away = sum(1 << p for p in set(self.away))
        changes = [[step, [[body, sig] for body, sig in votes]] for step, votes in self.changes]
        ports = [[peer, port] for peer, port in self.ports]
        return [
            Kind.SYNC,
            PROTOCOL_VERSION,
            self.game_id,
            steps,
            self.last,
            self.applied,
            self.held,
            away,
            changes,
            ports,
        ]


Message = (
    Hello
    | Welcome
    | Reject
    | StartRecord
    | PeerHello
    | Accept
    | StartAck
    | ActionMsg
    | Reveal
    | Ack
    | Freeze
    | Bye
    | AuthOffer
    | AuthReply
    | AuthConfirm
    | Evidence
    | Rejoin
    | Sync
    | Vote
    | Relay
    | Handover
)

_FIELDS = {
    Kind.HELLO: 7,
    Kind.WELCOME: 3,
    Kind.REJECT: 1,
    Kind.START: 8,
    Kind.PEER_HELLO: 4,
    Kind.START_ACK: 3,
    Kind.ACTION: 2,
    Kind.REVEAL: 2,
    Kind.ACK: 2,
    Kind.FREEZE: 3,
    Kind.BYE: 3,
    Kind.AUTH_OFFER: 2,
    Kind.AUTH_REPLY: 2,
    Kind.AUTH_CONFIRM: 1,
    Kind.EVIDENCE: 3,
    Kind.REJOIN: 6,
    Kind.SYNC: 8,
    Kind.VOTE: 2,
    Kind.RELAY: 3,
    Kind.OFFER: 3,
    Kind.FORWARD: 3,
    Kind.ACCEPT: 3,
}
_BODY_FIELDS = {Kind.ACTION: 5, Kind.REVEAL: 6, Kind.ACK: 6, Kind.VOTE: 6}
_MAX_BODY = {Kind.ACTION: MAX_BODY, Kind.REVEAL: MAX_BODY, Kind.ACK: MAX_ACK_BODY, Kind.VOTE: 512}


def _game_id(value: Any, allow_empty: bool = False) -> bytes:
    if allow_empty and value == b"":
        return b""
    return _bin(value, "game id", ID_LEN)


def _peer_entry(value: Any) -> PeerEntry:
    fields = _list(value, "peer entry", 6)
    if len(fields) != 6:
        raise ProtocolError("peer entry: expected 6 fields")
    return PeerEntry(
        peer_id=_bin(fields[0], "peer id", ID_LEN),
        name=_str(fields[1], "peer name"),
        host=_str(fields[2], "peer host", 64, allow_empty=True),
        port=_int(fields[3], "peer port", 0, 65535),
        anchor=_bin(fields[4], "anchor", HASH_LEN),
        sign_key=_bin(fields[5], "signing key", KEY_LEN),
    )


def _choice(value: Any) -> str:
    """What a vote chooses for the peers it targets: one of ``VOTE_CHOICES``."""
    choice = _str(value, "choice", 16)
    if choice not in VOTE_CHOICES:
        raise ProtocolError(f"unknown choice {choice!r}: one of {', '.join(VOTE_CHOICES)}")
    return choice


def _start(f: list[Any], version: int) -> StartRecord:
    peers = tuple(_peer_entry(p) for p in _list(f[1], "peers", MAX_PEERS))
    names = tuple(_str(n, "seat name") for n in _list(f[2], "seat names", MAX_SEATS))
    controllers = tuple(_int(c, "controller", 0, len(peers) - 1) for c in _list(f[3], "controllers", MAX_SEATS))
    if len(peers) < 2 or len(names) < 2 or len(controllers) != len(names):
        raise ProtocolError("start record: need 2+ peers, 2+ seats and one controller per seat")
    rules = f[5]
    if type(rules) is not dict or len(rules) > 64:
        raise ProtocolError("rules: expected a map")
    for key, value in rules.items():
        _str(key, "rule name", 32)
        if type(value) not in (bool, int, str):
            raise ProtocolError(f"rule {key}: expected a bool, an int or a string")
    return StartRecord(
        game_id=_game_id(f[0]),
        peers=peers,
        names=names,
        controllers=controllers,
        board=_str(f[4], "board", 32),
        rules=dict(rules),
        chain_length=_int(f[6], "chain length", 1, 10_000_000),
        replace_with=_choice(f[7]) if version >= 5 else "bot",
    )


def _signed_body(kind: Kind, f: list[Any], version: int) -> tuple[list[Any], bytes, bytes]:
    """Decode the body of a signed message strictly; check it is a body of the same type and version."""
    body = f[0]
    limit = _MAX_BODY[kind]
    if type(body) is not bytes or not 0 < len(body) <= limit:
        raise ProtocolError(f"{kind.name}: expected a body of at most {limit} bytes")
    signature = _bin(f[1], "signature", SIG_LEN)
    try:
        inner = unpack(body)
    except FrameError as e:
        raise ProtocolError(f"{kind.name} body: {e}") from None
    if type(inner) is not list or len(inner) < 2 or inner[0] != kind or inner[1] != version:
        raise ProtocolError(f"{kind.name} body: type or version does not match the envelope")
    fields = inner[2:]
    if len(fields) != _BODY_FIELDS[kind]:
        raise ProtocolError(f"{kind.name} body: expected {_BODY_FIELDS[kind]} fields, got {len(fields)}")
    return fields, body, signature


def _action(f: list[Any], version: int) -> ActionMsg:
    b, body, signature = _signed_body(Kind.ACTION, f, version)
    action = check_json_like(b[4], "action")
    if type(action) is not dict:
        raise ProtocolError("action: expected a map")
    return ActionMsg(
        _game_id(b[0]),
        _int(b[1], "step", 1),
        _bin(b[2], "prev hash", HASH_LEN),
        _int(b[3], "seat", 0, MAX_SEATS - 1),
        action,
        body,
        signature,
    )


def _reveal(f: list[Any], version: int) -> Reveal:
    b, body, signature = _signed_body(Kind.REVEAL, f, version)
    return Reveal(
        _game_id(b[0]),
        _int(b[1], "step", 1),
        _bin(b[2], "prev hash", HASH_LEN),
        _int(b[3], "peer", 0, MAX_PEERS - 1),
        _int(b[4], "chance index", 1),
        _bin(b[5], "link", HASH_LEN),
        body,
        signature,
    )


def _ack(f: list[Any], version: int) -> Ack:
    b, body, signature = _signed_body(Kind.ACK, f, version)
    interjection, reveal = None, None
    if b[5] is not None:
        pair = _list(b[5], "nested message", 2)
        if len(pair) != 2 or type(pair[0]) is not bytes:
            raise ProtocolError("nested message: expected [body, signature]")
        try:
            nested_kind = unpack(pair[0])[0]
        except (FrameError, IndexError, TypeError, KeyError):
            raise ProtocolError("nested message: undecodable body") from None
        if nested_kind == Kind.REVEAL:
            reveal = _reveal(pair, version)
        else:
            interjection = _action(pair, version)
    return Ack(
        _game_id(b[0]),
        _int(b[1], "step", 1),
        _int(b[2], "peer", 0, MAX_PEERS - 1),
        _bin(b[3], "action hash", HASH_LEN),
        _bin(b[4], "state hash", HASH_LEN),
        interjection,
        reveal,
        body,
        signature,
    )


def _evidence(f: list[Any], version: int) -> Evidence:
    items: list[Signed] = []
    for item in _list(f[2], "evidence", MAX_EVIDENCE):
        fields = _list(item, "evidence item", 3)
        if len(fields) != 3 or fields[0] not in (Kind.ACTION, Kind.ACK):
            raise ProtocolError("evidence item: expected [ACTION or ACK, body, signature]")
        items.append(_action(fields[1:], version) if fields[0] == Kind.ACTION else _ack(fields[1:], version))
    return Evidence(_game_id(f[0]), _int(f[1], "step", 1), tuple(items))


def _sync(f: list[Any]) -> Sync:
    steps = _signed_by_step(f[1], ("sync step", "step"), MAX_SYNC_STEPS, "signed message", MAX_BODY)
    if type(f[2]) is not bool:
        raise ProtocolError("sync: 'last' must be a boolean")
    held = []
    for item in _list(f[4], "held messages", MAX_HELD):
        if type(item) is not bytes or not 0 < len(item) <= MAX_ACK_BODY + 256:
            raise ProtocolError("held message: expected bytes")
        held.append(item)
    # Neither an away set nor changes before protocol 6, no ports before 7.
    mask = _int(f[5], "away peers", 0, 2**MAX_PEERS - 1) if len(f) > 5 else 0
    away = tuple(p for p in range(MAX_PEERS) if mask >> p & 1)
    changes = _sync_changes(f[6]) if len(f) > 6 else []
    ports = _sync_ports(f[7]) if len(f) > 7 else ()
    return Sync(_game_id(f[0]), steps, f[2], _int(f[3], "applied step", 0), held, away, changes, ports)


def _sync_ports(value: Any) -> tuple[tuple[int, int], ...]:
    """A SYNC's ports: ``[peer, port]`` entries, at most one per peer (``read_sync`` checks the
    peer is in the start record)."""
    out: list[tuple[int, int]] = []
    for entry in _list(value, "sync ports", MAX_SYNC_PORTS):
        pair = _list(entry, "sync port", 2)
        if len(pair) != 2:
            raise ProtocolError("sync port: expected [peer, port]")
        peer = _int(pair[0], "sync port's peer", 0, MAX_PEERS - 1)
        if any(peer == seen for seen, _ in out):
            raise ProtocolError(f"sync ports: peer {peer} twice")
        out.append((peer, _int(pair[1], "sync port", 1, 65535)))
    return tuple(out)


def _sync_changes(value: Any) -> list[tuple[int, list[tuple[bytes, bytes]]]]:
    """A SYNC's changes of membership: ``[step, [[vote body, signature], ...]]`` entries (the votes are
    decoded and checked by the rejoiner, as ``verify`` does)."""
    changes = _signed_by_step(value, ("sync change", "change step"), MAX_SYNC_CHANGES, "vote", MAX_VOTE_BODY)
    if not all(votes for _, votes in changes):
        raise ProtocolError("sync change: no votes")
    return changes


def _signed_by_step(
    value: Any, names: tuple[str, str], most: int, item: str, most_body: int
) -> list[tuple[int, list[tuple[bytes, bytes]]]]:
    """SYNC's ``[step, [[body, signature], ...]]`` entries (its steps, and its changes' votes): at
    most ``most`` of them, each of at most ``MAX_PEERS`` signed bodies of up to ``most_body`` bytes.
    ``names`` are an entry's and its step's in errors, ``item`` a signed body's."""
    entry_name, step_name = names
    out = []
    for entry in _list(value, f"{entry_name}s", most):
        pair = _list(entry, entry_name, 2)
        if len(pair) != 2:
            raise ProtocolError(f"{entry_name}: expected [step, {item}s]")
        signed = []
        for element in _list(pair[1], f"{item}s", MAX_PEERS):
            fields = _list(element, item, 2)
            if len(fields) != 2 or type(fields[0]) is not bytes or not 0 < len(fields[0]) <= most_body:
                raise ProtocolError(f"{item}: expected [body, signature]")
            signed.append((fields[0], _bin(fields[1], "signature", SIG_LEN)))
        out.append((_int(pair[0], step_name, 1), signed))
    return out


def parse(message: list[Any], version: int = PROTOCOL_VERSION) -> Message:
    """Validate a decoded frame and turn it into its dataclass; ProtocolError if it is not valid.

    ``version`` is the protocol expected: another one only to read the signed messages of games
    saved by an older version (``verify``).
    """
    try:
        kind = Kind(message[0])
    except ValueError:
        raise ProtocolError(f"unknown message type {message[0]}") from None
    if message[1] != version:
        raise ProtocolError(f"protocol version {message[1]} (this peer speaks {version})")

    f = message[2:]
    if kind is Kind.ACCEPT and version < 7:
        raise ProtocolError(f"ACCEPT: not a message of protocol {version}")
    expected = _FIELDS[kind]
    if kind is Kind.START and version < 5:
        expected = 7  # no replace_with before 5
    elif kind is Kind.SYNC and version < 6:
        expected = 5  # no away set nor changes before 6
    elif kind is Kind.SYNC and version < 7:
        expected = 7  # no ports before 7
    if len(f) != expected:
        raise ProtocolError(f"{kind.name}: expected {expected} fields, got {len(f)}")
    if kind is Kind.HELLO:
        return Hello(
            _game_id(f[0]),
            _str(f[1], "name"),
            _int(f[2], "port", 1, 65535),
            _bin(f[3], "peer id", ID_LEN),
            _bin(f[4], "anchor", HASH_LEN),
            _bin(f[5], "signing key", KEY_LEN),
            _bin(f[6], "proof", SIG_LEN),
        )
    if kind is Kind.WELCOME:
        return Welcome(_game_id(f[0]), _int(f[1], "index", 1, MAX_PEERS - 1), _int(f[2], "peers", 2, MAX_PEERS))
    if kind is Kind.REJECT:
        return Reject(_str(f[0], "reason", MAX_REASON, allow_empty=True))
    if kind is Kind.START:
        return _start(f, version)
    if kind is Kind.PEER_HELLO:
        return PeerHello(
            _game_id(f[0]),
            _int(f[1], "index", 0, MAX_PEERS - 1),
            _bin(f[2], "peer id", ID_LEN),
            _bin(f[3], "proof", SIG_LEN),
        )
    if kind is Kind.ACCEPT:
        return Accept(_game_id(f[0]), _int(f[1], "index", 0, MAX_PEERS - 1), _bin(f[2], "proof", SIG_LEN))
    if kind is Kind.START_ACK:
        return StartAck(_game_id(f[0]), _bin(f[1], "start hash", HASH_LEN), _bin(f[2], "signature", SIG_LEN))
    if kind is Kind.ACTION:
        return _action(f, version)
    if kind is Kind.REVEAL:
        return _reveal(f, version)
    if kind is Kind.AUTH_OFFER:
        return AuthOffer(_game_id(f[0]), _bin(f[1], "SPAKE2 message", PAKE_MSG_LEN))
    if kind is Kind.AUTH_REPLY:
        return AuthReply(_bin(f[0], "SPAKE2 message", PAKE_MSG_LEN), _bin(f[1], "confirmation", CONFIRM_LEN))
    if kind is Kind.AUTH_CONFIRM:
        return AuthConfirm(_bin(f[0], "confirmation", CONFIRM_LEN))
    if kind is Kind.ACK:
        return _ack(f, version)
    if kind is Kind.EVIDENCE:
        return _evidence(f, version)
    if kind is Kind.REJOIN:
        return Rejoin(
            _game_id(f[0]),
            _int(f[1], "index", 0, MAX_PEERS - 1),
            _bin(f[2], "peer id", ID_LEN),
            _bin(f[3], "proof", SIG_LEN),
            _int(f[4], "step", 0),
            _int(f[5], "port", 1, 65535),
        )
    if kind is Kind.SYNC:
        return _sync(f)
    if kind is Kind.VOTE:
        b, body, signature = _signed_body(Kind.VOTE, f, version)
        choice = _choice(b[5])
        return Vote(
            _game_id(b[0]),
            _int(b[1], "step", 1),
            _bin(b[2], "prev hash", HASH_LEN),
            _int(b[3], "voter", 0, MAX_PEERS - 1),
            _int(b[4], "targets", 1, 2**MAX_PEERS - 1),
            choice,
            body,
            signature,
        )
    if kind in (Kind.OFFER, Kind.FORWARD):
        return Handover(kind, _game_id(f[0]), _action(f[1:], version))
    if kind is Kind.RELAY:
        frames = []
        for item in _list(f[2], "relayed messages", MAX_HELD):
            if type(item) is not bytes or not 0 < len(item) <= MAX_ACK_BODY + 256:
                raise ProtocolError("relayed message: expected bytes")
            frames.append(item)
        return Relay(_game_id(f[0]), _int(f[1], "peer", 0, MAX_PEERS - 1), frames)
    if kind is Kind.FREEZE:
        return Freeze(_game_id(f[0]), _int(f[1], "step", 0), _str(f[2], "reason", MAX_REASON, allow_empty=True))
    return Bye(_game_id(f[0]), _int(f[1], "step", 0), _bin(f[2], "state hash", HASH_LEN))
