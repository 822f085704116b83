"""The wire messages: positional arrays ``[type, version, ...fields]`` and their strict validation.

Every message is parsed into a frozen dataclass by ``parse``, which checks the protocol version,
the number of fields and the type and range of every field; anything else raises ``ProtocolError``
and the connection it came from is closed. Hashes, ids and chain links are ``bin`` of fixed length;
there are no floats and no ExtTypes. Game inputs (action dicts) are the only maps, checked to be
small JSON-like trees; the rules engine decides whether they are legal.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum
from typing import Any

from lanopoly.net import PROTOCOL_VERSION

HASH_LEN = 32
ID_LEN = 16
MAX_NAME = 64
MAX_PEERS = 8
MAX_SEATS = 8
MAX_REASON = 512
MAX_STEP = 2**40


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
    """Joiner -> host: asks for a seat. ``game_id`` is empty when joining by address only."""

    game_id: bytes
    name: str
    listen_port: int
    peer_id: bytes
    anchor: bytes

    def to_wire(self) -> list[Any]:
        return [Kind.HELLO, PROTOCOL_VERSION, self.game_id, self.name, self.listen_port, self.peer_id, self.anchor]


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
    """One peer of the start record: its id, name, address to dial, and hash-chain anchor."""

    peer_id: bytes
    name: str
    host: str
    port: int
    anchor: bytes

    def to_wire(self) -> list[Any]:
        return [self.peer_id, self.name, self.host, self.port, self.anchor]


@dataclass(frozen=True)
class StartRecord:
    """What every peer must agree on before step 1: the game, seats, controllers, rules, commitments.

    ``controllers[seat]`` is the index of the peer that plays the seat (only it may act for it).
    ``peers[i].anchor`` is ``H^chain_length(secret_i)``, peer i's commitment to its randomness.
    """

    game_id: bytes
    peers: tuple[PeerEntry, ...]
    names: tuple[str, ...]
    controllers: tuple[int, ...]
    board: str
    rules: dict[str, Any]
    chain_length: int

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
        ]


@dataclass(frozen=True)
class PeerHello:
    """Dialer -> listener when building the mesh: "I am peer ``index`` of game ``game_id``"."""

    game_id: bytes
    index: int
    peer_id: bytes

    def to_wire(self) -> list[Any]:
        return [Kind.PEER_HELLO, PROTOCOL_VERSION, self.game_id, self.index, self.peer_id]


@dataclass(frozen=True)
class StartAck:
    """Every peer -> every peer: the SHA-256 of the start record bytes it received (or sent)."""

    game_id: bytes
    start_hash: bytes

    def to_wire(self) -> list[Any]:
        return [Kind.START_ACK, PROTOCOL_VERSION, self.game_id, self.start_hash]


@dataclass(frozen=True)
class ActionMsg:
    """The controller of the seat to act -> all: the input of ``step``, bound to the previous state."""

    game_id: bytes
    step: int
    prev_hash: bytes
    seat: int
    action: dict[str, Any]

    def to_wire(self) -> list[Any]:
        return [Kind.ACTION, PROTOCOL_VERSION, self.game_id, self.step, self.prev_hash, self.seat, self.action]


@dataclass(frozen=True)
class Reveal:
    """Every peer -> all at a chance node: its next hash-chain link (``chance_index``-th reveal)."""

    game_id: bytes
    step: int
    prev_hash: bytes
    chance_index: int
    link: bytes

    def to_wire(self) -> list[Any]:
        return [Kind.REVEAL, PROTOCOL_VERSION, self.game_id, self.step, self.prev_hash, self.chance_index, self.link]


@dataclass(frozen=True)
class Ack:
    """Every peer -> all after applying ``step``: the hash of the input and of the resulting state."""

    game_id: bytes
    step: int
    action_hash: bytes
    state_hash: bytes

    def to_wire(self) -> list[Any]:
        return [Kind.ACK, PROTOCOL_VERSION, self.game_id, self.step, self.action_hash, self.state_hash]


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


Message = Hello | Welcome | Reject | StartRecord | PeerHello | StartAck | ActionMsg | Reveal | Ack | Freeze | Bye

_FIELDS = {
    Kind.HELLO: 5,
    Kind.WELCOME: 3,
    Kind.REJECT: 1,
    Kind.START: 7,
    Kind.PEER_HELLO: 3,
    Kind.START_ACK: 2,
    Kind.ACTION: 5,
    Kind.REVEAL: 5,
    Kind.ACK: 4,
    Kind.FREEZE: 3,
    Kind.BYE: 3,
}


def _game_id(value: Any, allow_empty: bool = False) -> bytes:
    if allow_empty and value == b"":
        return b""
    return _bin(value, "game id", ID_LEN)


def _peer_entry(value: Any) -> PeerEntry:
    fields = _list(value, "peer entry", 5)
    if len(fields) != 5:
        raise ProtocolError("peer entry: expected 5 fields")
    return PeerEntry(
        peer_id=_bin(fields[0], "peer id", ID_LEN),
        name=_str(fields[1], "peer name"),
        host=_str(fields[2], "peer host", 64, allow_empty=True),
        port=_int(fields[3], "peer port", 0, 65535),
        anchor=_bin(fields[4], "anchor", HASH_LEN),
    )


def _start(f: list[Any]) -> StartRecord:
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
    )


def parse(message: list[Any]) -> Message:
    """Validate a decoded frame and turn it into its dataclass; ProtocolError if it is not valid."""
    try:
        kind = Kind(message[0])
    except ValueError:
        raise ProtocolError(f"unknown message type {message[0]}") from None
    if message[1] != PROTOCOL_VERSION:
        raise ProtocolError(f"protocol version {message[1]} (this peer speaks {PROTOCOL_VERSION})")
    f = message[2:]
    if len(f) != _FIELDS[kind]:
        raise ProtocolError(f"{kind.name}: expected {_FIELDS[kind]} fields, got {len(f)}")
    if kind is Kind.HELLO:
        return Hello(
            _game_id(f[0], allow_empty=True),
            _str(f[1], "name"),
            _int(f[2], "port", 1, 65535),
            _bin(f[3], "peer id", ID_LEN),
            _bin(f[4], "anchor", HASH_LEN),
        )
    if kind is Kind.WELCOME:
        return Welcome(_game_id(f[0]), _int(f[1], "index", 1, MAX_PEERS - 1), _int(f[2], "peers", 2, MAX_PEERS))
    if kind is Kind.REJECT:
        return Reject(_str(f[0], "reason", MAX_REASON, allow_empty=True))
    if kind is Kind.START:
        return _start(f)
    if kind is Kind.PEER_HELLO:
        return PeerHello(_game_id(f[0]), _int(f[1], "index", 0, MAX_PEERS - 1), _bin(f[2], "peer id", ID_LEN))
    if kind is Kind.START_ACK:
        return StartAck(_game_id(f[0]), _bin(f[1], "start hash", HASH_LEN))
    if kind is Kind.ACTION:
        action = check_json_like(f[4], "action")
        if type(action) is not dict:
            raise ProtocolError("action: expected a map")
        return ActionMsg(
            _game_id(f[0]), _int(f[1], "step", 1), _bin(f[2], "prev hash", HASH_LEN), _int(f[3], "seat", 0, 7), action
        )
    if kind is Kind.REVEAL:
        return Reveal(
            _game_id(f[0]),
            _int(f[1], "step", 1),
            _bin(f[2], "prev hash", HASH_LEN),
            _int(f[3], "chance index", 1),
            _bin(f[4], "link", HASH_LEN),
        )
    if kind is Kind.ACK:
        return Ack(_game_id(f[0]), _int(f[1], "step", 1), _bin(f[2], "action hash", HASH_LEN), _bin(f[3], "hash", 32))
    if kind is Kind.FREEZE:
        return Freeze(_game_id(f[0]), _int(f[1], "step", 0), _str(f[2], "reason", MAX_REASON, allow_empty=True))
    return Bye(_game_id(f[0]), _int(f[1], "step", 0), _bin(f[2], "state hash", HASH_LEN))
