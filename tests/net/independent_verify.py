"""An independent verifier of saved LAN games, written from docs/lan.md alone (issue 13's test).

docs/lan.md claims to describe the protocol "so that an independent implementation could verify a
saved game". This module is that implementation: it reads the network record of a saved file and
checks it with nothing of ``lanopoly.net`` (only the rules engine, ``lanopoly.log`` for the game log
beside the record, msgpack, hashlib and libsodium through PyNaCl). Each check cites the section of
docs/lan.md it implements; ``tests/net/test_independent_verify.py`` compares its verdicts with
``lanopoly verify``'s, so the docs and the code cannot drift apart unnoticed.
"""

from __future__ import annotations

import base64
import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
from nacl import bindings as sodium
from nacl.exceptions import BadSignatureError, CryptoError

from lanopoly._core import Game, Rules
from lanopoly.log import GameLog, LogError

PROTOCOL = 9
ORDER = 2**252 + 27742317777372353535851937790883648493  # the Ed25519 group order (RFC 8032 "L")
START, ACTION, FORWARD, REVEAL, ACK, SHARE, COMMIT = 60, 40, 41, 42, 43, 45, 46
KINDS = {ACTION: "action", FORWARD: "forward", REVEAL: "reveal", ACK: "ack", COMMIT: "commit", SHARE: "share"}
TAGS = {kind: f"lanopoly/9/{name}\0".encode() for kind, name in KINDS.items()}  # "Wire": a signature's tag
ZERO_LINK = bytes(32)
MAX_DEPTH = 5


@dataclass(frozen=True)
class Verdict:
    """What a saved file proves ("Verifying a saved game", the table): ``complete``, ``unfinished``
    (steps 1 to ``steps`` signed, the game not over), ``failed`` (at ``failed_at``, 0 for the file
    or its genesis, with ``reason``) or ``unsigned`` (no protocol-9 record: only the hashes)."""

    kind: str
    steps: int
    failed_at: int | None = None
    reason: str | None = None
    final_hash: bytes | None = None


class Failed(Exception):
    """A check that failed at a step (0: the file, its genesis or header)."""

    def __init__(self, step: int, why: str) -> None:
        super().__init__(why)
        self.step = step
        self.why = why


def verify(path: str | Path) -> Verdict:
    """The verdict on the saved game at ``path`` ("Verifying a saved game", steps 1 and 2)."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        log = GameLog.from_json(json.dumps(data))
    except (OSError, ValueError, LogError) as e:
        return Verdict("failed", 0, 0, f"the file cannot be read: {e}")
    net = data.get("network")
    if net is None or (isinstance(net, dict) and _older(net.get("protocol"))):
        return _unsigned(log)
    checker = Checker(log)
    try:
        if not (isinstance(net, dict) and net.get("format") == "lanopoly-net" and net.get("protocol") == PROTOCOL):
            raise Failed(0, "a network record that is neither of protocol 9 nor of an older one")
        checker.check_genesis(net)
        checker.check_steps(net)
    except Failed as f:
        return Verdict("failed", f.step - 1 if f.step else 0, f.step, f.why)
    kind = "complete" if checker.game.is_over else "unfinished"
    return Verdict(kind, checker.game.step, final_hash=checker.game.state_hash())


def _older(protocol: object) -> bool:
    """A record of an older protocol, whose signatures are not checked (the table's exit 4)."""
    return isinstance(protocol, int) and not isinstance(protocol, bool) and 1 <= protocol < PROTOCOL


def _unsigned(log: GameLog) -> Verdict:
    """A log with no protocol-9 record: only its hash chain is checked (the table's exit 4)."""
    game = log.new_game()
    for k, (action, expected) in enumerate(zip(log.inputs, log.hashes, strict=True), 1):
        try:
            game.apply(action)
        except (TypeError, ValueError) as e:
            return Verdict("failed", k - 1, k, f"input refused: {e}")
        if game.state_hash() != expected:
            return Verdict("failed", k - 1, k, "state hash differs from the log's")
    return Verdict("unsigned", game.step, final_hash=game.state_hash())


# --- Wire: bytes, msgpack, signatures, hashes --------------------------------------------------


def b64(value: object, step: int, what: str) -> bytes:
    """A base64 member of the record ("Verifying a saved game": bytes in base64)."""
    if not isinstance(value, str):
        raise Failed(step, f"{what} is not base64 text")
    try:
        return base64.b64decode(value, validate=True)
    except ValueError:
        raise Failed(step, f"{what} is not base64") from None


def unpack(data: bytes, step: int, what: str) -> Any:
    """Strict msgpack ("Wire", payloads): no ExtType, str/bytes map keys, nothing trailing, and
    (checked after decoding) no floats nor Timestamps."""

    def no_ext(code: int, _: bytes) -> Any:
        raise ValueError(f"ExtType {code}")

    try:
        value = msgpack.unpackb(data, raw=False, strict_map_key=True, ext_hook=no_ext, timestamp=0)
    except (ValueError, TypeError, msgpack.UnpackException) as e:
        raise Failed(step, f"{what} is not strict msgpack: {e}") from None
    if any(isinstance(v, float | msgpack.Timestamp) for v in _walk(value)):
        raise Failed(step, f"{what} holds a float or a Timestamp")
    return value


def _walk(value: Any) -> Iterator[Any]:
    """Every value nested in ``value``, itself included."""
    yield value
    if isinstance(value, list):
        for item in value:
            yield from _walk(item)
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from _walk(item)


def move_shaped(value: object, depth: int = 1) -> bool:
    """A game input: it and every map in it of at most 16 string keys of at most 32 characters,
    maps and arrays nested at most 5 deep counting the move ("Wire", payloads)."""
    if not isinstance(value, list | dict):
        return True
    if depth > MAX_DEPTH:
        return False
    if isinstance(value, list):
        return all(move_shaped(v, depth + 1) for v in value)
    keys_ok = len(value) <= 16 and all(isinstance(key, str) and len(key) <= 32 for key in value)
    return keys_ok and all(move_shaped(v, depth + 1) for v in value.values())


def signed_by(key: bytes, tag: bytes, body: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is ``key``'s of ``tag || body`` by libsodium's rules ("Wire", signed
    messages: ``crypto_sign_verify_detached``)."""
    if len(signature) != 64 or len(key) != 32:
        return False
    try:
        sodium.crypto_sign_open(signature + tag + body, key)
    except (BadSignatureError, ValueError):
        return False
    return True


def chain_hash(value: bytes) -> bytes:
    """``H(v) = SHA-256("lanopoly/chain/v1\\0" || v)`` ("A step", chance node)."""
    return hashlib.sha256(b"lanopoly/chain/v1\0" + value).digest()


# --- The start record and genesis ("Lobby and start" 3-4; "Verifying" 1) -----------------------


@dataclass(frozen=True)
class Peer:
    """A peer of the start record: ``[name, host, port, signing key, chain anchor]``."""

    name: str
    key: bytes
    anchor: bytes


@dataclass(frozen=True)
class Start:
    """The start record: ``[60, 9, game id, peers, seat names, controllers, board, rules, chain
    length (1 to 1,000,000), replace with (bot or bank), bid timer (1 to 600, or absent)]``
    ("Lobby and start" 3)."""

    game_id: bytes
    peers: list[Peer]
    names: list[str]
    controllers: list[int]
    board: str
    rules: dict[str, Any]
    chain_length: int


def parse_start(raw: bytes) -> Start:
    """The start record's fields, type-checked (a failure is one at step 0)."""
    record = unpack(raw, 0, "the start record")
    if not (isinstance(record, list) and len(record) in (10, 11) and record[:2] == [START, PROTOCOL]):
        raise Failed(0, "the start record is not [60, 9, ...] of 10 or 11 fields")
    game_id, peers, names, controllers, board, rules, chain_length = record[2:9]
    ok = isinstance(game_id, bytes) and len(game_id) == 16 and isinstance(peers, list) and len(peers) >= 2
    ok = ok and all(isinstance(p, list) and len(p) == 5 and _key_like(p[3]) and _key_like(p[4]) for p in peers)
    ok = ok and isinstance(names, list) and isinstance(controllers, list) and len(names) == len(controllers)
    ok = ok and all(isinstance(c, int) and 0 <= c < len(peers) for c in controllers)
    ok = ok and isinstance(board, str) and isinstance(rules, dict) and _within(chain_length, 1, 1_000_000)
    ok = ok and record[9] in ("bot", "bank") and (len(record) == 10 or _within(record[10], 1, 600))
    if not ok:
        raise Failed(0, "the start record's fields are malformed")
    members = [Peer(p[0], p[3], p[4]) for p in peers]
    return Start(game_id, members, names, controllers, board, rules, chain_length)


def _within(value: object, low: int, high: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and low <= value <= high


def _key_like(value: object) -> bool:
    return isinstance(value, bytes) and len(value) == 32


def threshold(peers: int) -> int:
    """``t = (n - 1) // 2 + 1`` with three or more peers, else no sharing ("Lobby and start" 4)."""
    return (peers - 1) // 2 + 1 if peers >= 3 else 0


def genesis_hash(start: bytes, commitments: list[list[bytes]]) -> bytes:
    """``G = SHA-256("lanopoly/9/genesis\\0" || len(start) (4 bytes) || start || for each peer:
    number of commitments (1 byte) || its commitments)`` ("Lobby and start" 4)."""
    parts = [b"lanopoly/9/genesis\0", len(start).to_bytes(4, "big"), start]
    for points in commitments:
        parts += [bytes([len(points)]), *points]
    return hashlib.sha256(b"".join(parts)).digest()


# --- The verifier's state ----------------------------------------------------------------------


@dataclass
class Message:
    """A signed message of a step: its decoded body, and the body's header fields."""

    kind: int
    step: int
    signer: int
    fields: list[Any]


@dataclass
class Checker:
    """A new game made from the start record, moved step by step by the record's signed inputs."""

    log: GameLog
    start: Start = field(init=False)
    commitments: list[list[bytes]] = field(init=False)
    game: Game = field(init=False)
    present: set[int] = field(init=False)
    controllers: list[int] = field(init=False)
    bank_seats: set[int] = field(default_factory=set)
    links: dict[int, bytes] = field(default_factory=dict)  # each peer's last link (its anchor first)
    secrets: dict[int, bytes | None] = field(default_factory=dict)  # removed peers: rebuilt, or None
    chance_index: int = 0
    run: int = 0  # steps in a row decided by out-of-turn moves ("A step" 1)
    changed: int = 0  # the last step a change was made for

    # "Verifying a saved game" 1 -----------------------------------------------------------------

    def check_genesis(self, net: dict[str, Any]) -> None:
        """Decode the start record, check every peer's genesis signature and the log's header."""
        genesis = net.get("genesis")
        if not isinstance(genesis, dict):
            raise Failed(0, "no genesis")
        raw = b64(genesis.get("start"), 0, "the start record")
        self.start = parse_start(raw)
        n = len(self.start.peers)
        self.commitments = self._commitments(genesis.get("commitments"), n)
        g = genesis_hash(raw, self.commitments)
        signatures = genesis.get("signatures")
        if not (isinstance(signatures, list) and len(signatures) == n):
            raise Failed(0, f"the genesis needs {n} signatures")
        for i, (peer, text) in enumerate(zip(self.start.peers, signatures, strict=True)):
            if not signed_by(peer.key, b"lanopoly/9/genesis-sig\0", g, b64(text, 0, "a genesis signature")):
                raise Failed(0, f"peer {i}'s genesis signature does not verify")
        self._check_header()
        try:  # "Verifying" 2: an option the record lacks plays as before it existed; the seed does not matter
            rules = Rules.recorded(self.start.rules)
            self.game = Game(list(self.start.names), board=self.start.board, rules=rules, seed=0)
        except (TypeError, ValueError) as e:
            raise Failed(0, f"the start record does not make a game: {e}") from None
        self.present = set(range(n))
        self.controllers = list(self.start.controllers)
        self.links = {i: p.anchor for i, p in enumerate(self.start.peers)}

    def _commitments(self, value: object, n: int) -> list[list[bytes]]:
        """``t`` 32-byte points per peer (none with two peers)."""
        t = threshold(n)
        if not (isinstance(value, list) and len(value) == n and all(isinstance(c, list) for c in value)):
            raise Failed(0, "the genesis commitments are not one list per peer")
        points = [[b64(c, 0, "a commitment") for c in per_peer] for per_peer in value]
        if any(len(per_peer) != t or any(len(c) != 32 for c in per_peer) for per_peer in points):
            raise Failed(0, f"each peer must commit to {t} points of 32 bytes")
        return points

    def _check_header(self) -> None:
        """The log's seats, board and rules are the start record's."""
        if self.log.names != self.start.names or self.log.board != self.start.board:
            raise Failed(0, "the log's seats or board are not the start record's")
        if self.log.rules != self.start.rules:
            raise Failed(0, "the log's rules are not the start record's")

    # "Verifying a saved game" 2 -----------------------------------------------------------------

    def check_steps(self, net: dict[str, Any]) -> None:
        """Step by step: make the changes recorded for it, decide it, apply it, compare with the log."""
        steps, changes = net.get("steps"), net.get("changes")
        if not (isinstance(steps, list) and isinstance(changes, list)):
            raise Failed(0, "the record's steps or changes are not lists")
        if len(self.log.inputs) != len(steps):
            raise Failed(0, f"the log has {len(self.log.inputs)} steps, the record {len(steps)}")
        self.check_change_records(changes, len(steps))
        for k, pairs in enumerate(steps, 1):
            self.make_changes(k, changes)
            if self.game.is_over:
                raise Failed(k, "a step after the game was over")
            action = self.decide(k, self.messages(k, pairs))
            self.apply(k, action)
        self.make_changes(len(steps) + 1, changes)  # made for the step to come, saved before it

    def check_change_records(self, changes: list[Any], last: int) -> None:
        """Each change record is ``{step, commits, shares}`` for a step from 1 to one past the
        record's last (a change made for the step to come)."""
        for change in changes:
            step = change.get("step") if isinstance(change, dict) else None
            if not (isinstance(step, int) and not isinstance(step, bool) and 1 <= step <= last + 1):
                raise Failed(0, f"a change record that is not for a step from 1 to {last + 1}")
            if not (isinstance(change.get("commits"), list) and isinstance(change.get("shares"), list)):
                raise Failed(0, "a change record without lists of commits and shares")

    def make_changes(self, k: int, changes: list[Any]) -> None:
        """Every change recorded for step ``k``, in the record's order (one repeated word for word
        is made once)."""
        made: list[object] = []
        for change in changes:
            if change["step"] == k and change not in made:
                self.make_change(k, change)
                made.append(change)
                self.changed = k

    def messages(self, k: int, pairs: object) -> list[Message]:
        """A step's signed messages, each ``[body, signature]``: signed alone, or an ack of ``k - 1``
        carrying a move or reveal for ``k`` ("Wire", signed messages; "Session messages")."""
        if not (isinstance(pairs, list) and pairs):
            raise Failed(k, "a step with no signed message")
        out = []
        for pair in pairs:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise Failed(k, "a signed message is not [body, signature]")
            body, signature = b64(pair[0], k, "a body"), b64(pair[1], k, "a signature")
            out.append(self.signed(k, body, signature))
        return out

    def signed(self, k: int, body: bytes, signature: bytes, carrier: bool = True) -> Message:
        """One ``[body, signature]``: its header checked, its signer's signature verified; an ack
        stands for what it carries (if ``carrier``: a step's message, not a forward's offer)."""
        message = self.header(k, unpack(body, k, "a body"))
        if not signed_by(self.start.peers[message.signer].key, TAGS[message.kind], body, signature):
            raise Failed(k, f"peer {message.signer}'s signature does not verify")
        if message.kind != ACK:
            return message
        if not carrier:
            raise Failed(k, "an ack where a message signed alone is due")
        return self.carried(k, message)

    def header(self, k: int, value: object) -> Message:
        """``[type, 9, game id, step, signer, ...fields]`` ("Wire", signed messages)."""
        if not (isinstance(value, list) and len(value) >= 5 and value[1] == PROTOCOL and value[0] in TAGS):
            raise Failed(k, "a body is not [type, 9, game id, step, signer, ...]")
        kind, _, game_id, step, signer, *rest = value
        if game_id != self.start.game_id:
            raise Failed(k, "a message of another game")
        if not (isinstance(signer, int) and 0 <= signer < len(self.start.peers) and isinstance(step, int)):
            raise Failed(k, "a message's signer or step is malformed")
        return Message(kind, step, signer, rest)

    def carried(self, k: int, ack: Message) -> Message:
        """The move or reveal an ack of ``k - 1`` nests: its body alone, covered by the ack's
        signature, for step ``k`` by the ack's signer ("Wire"; "Session messages", ``ACK``)."""
        if k < 2 or ack.step != k - 1 or len(ack.fields) != 3:
            raise Failed(k, f"an ack of step {ack.step} in the record of step {k}")
        acked, after, nested = ack.fields
        if not (_key_like(acked) and _key_like(after)):  # not compared: "Verifying" checks the signature
            raise Failed(k, "an ack's input hash or state hash is not 32 bytes")
        if not isinstance(nested, bytes) or len(nested) > 2048:
            raise Failed(k, "an ack that nests nothing")
        message = self.header(k, unpack(nested, k, "a nested body"))
        if message.kind not in (ACTION, REVEAL) or message.signer != ack.signer:
            raise Failed(k, "an ack nests something other than its signer's move or reveal")
        return message

    # "A step" 1: decides -------------------------------------------------------------------------

    def decide(self, k: int, messages: list[Message]) -> dict[str, Any]:
        """The input of step ``k``: the outcome of every present peer's reveal at a chance node, else
        the one move (an ``ACTION`` or a leader's ``FORWARD``) ("A step" 1)."""
        if any(m.step != k for m in messages):
            raise Failed(k, "a message for another step")
        if self.game.is_chance_node:
            self.run = 0
            return self.outcome(k, messages)
        if len(messages) != 1:
            raise Failed(k, f"a move step with {len(messages)} messages")
        (message,) = messages
        if message.kind == FORWARD:
            self.check_run(k, message)
            return self.forwarded(k, message)
        if message.kind != ACTION:
            raise Failed(k, "a move step decided by no move")
        action = self.move(k, message)
        if action["player"] == self.game.current_player:
            self.run = 0
            return action
        self.check_run(k, message)
        return action

    def check_run(self, k: int, message: Message) -> None:
        """Fewer than *present peers* steps in a row out of turn before this one (a forward too),
        but for the leader's own at a step a change was made for ("A step" 1); it counts in the run."""
        if self.run >= len(self.present) and not (self.leads(message) and self.changed == k):
            raise Failed(k, f"an out-of-turn move after {self.run} in a row, with {len(self.present)} peers present")
        self.run += 1

    def leads(self, message: Message) -> bool:
        """Whether ``message``'s signer controls the seat to act: leads the step ("A step" 1)."""
        seat = self.game.current_player
        return seat is not None and self.controllers[seat] == message.signer

    def outcome(self, k: int, reveals: list[Message]) -> dict[str, Any]:
        """One ``REVEAL`` per present peer, each on its chain; the seed's outcome ("A step" 1)."""
        signers = [m.signer for m in reveals]
        if any(m.kind != REVEAL for m in reveals) or sorted(signers) != sorted(self.present):
            raise Failed(k, f"a chance step needs one reveal from each present peer, has {signers}")
        self.chance_index += 1
        before = self.game.state_hash()
        for m in reveals:
            self.check_reveal(k, m, before)
        links = [self.link_of(i) for i in range(len(self.start.peers))]
        seed = hashlib.sha256(
            b"lanopoly/9/seed\0" + self.start.game_id + k.to_bytes(8, "big") + before + b"".join(links)
        ).digest()
        return dict(self.game.outcome_from_bytes(seed))

    def check_reveal(self, k: int, m: Message, before: bytes) -> None:
        """``[state hash before, chance index, link]``, ``H(link)`` the peer's previous link."""
        if len(m.fields) != 3:
            raise Failed(k, "a reveal is not [state hash before, index, link]")
        prev, index, link = m.fields
        if prev != before or index != self.chance_index:
            raise Failed(k, f"peer {m.signer}'s reveal is for another state or chance index")
        if not (isinstance(link, bytes) and chain_hash(link) == self.links[m.signer]):
            raise Failed(k, f"peer {m.signer}'s reveal is not on its chain")
        self.links[m.signer] = link

    def link_of(self, peer: int) -> bytes:
        """A present peer's link just revealed; a removed peer's from its rebuilt secret (link ``i``
        is ``H^(chain length - i)(secret)``), or 32 zero bytes ("A step" 1, "Removing a peer" 3)."""
        if peer in self.present:
            return self.links[peer]
        secret = self.secrets.get(peer)
        if secret is None:
            return ZERO_LINK
        value = secret
        for _ in range(self.start.chain_length - self.chance_index):
            value = chain_hash(value)
        return value

    def move(self, k: int, m: Message) -> dict[str, Any]:
        """``ACTION [state hash before, seat, move]`` by the seat's controller, for that seat."""
        if len(m.fields) != 3:
            raise Failed(k, "an action is not [state hash before, seat, move]")
        prev, seat, action = m.fields
        if prev != self.game.state_hash():
            raise Failed(k, f"peer {m.signer}'s move is for another state")
        if not (isinstance(seat, int) and 0 <= seat < len(self.controllers) and move_shaped(action)):
            raise Failed(k, "an action's seat or move is malformed")
        if action.get("player") != seat:
            raise Failed(k, "a move's player is not its seat")
        if self.controllers[seat] != m.signer:
            raise Failed(k, f"peer {m.signer} does not control seat {seat}")
        if seat in self.bank_seats and action.get("type") != "resign":
            raise Failed(k, f"seat {seat} went to the bank: it may only resign")
        return action

    def forwarded(self, k: int, m: Message) -> dict[str, Any]:
        """``FORWARD [state hash before, offer]`` by the leader, of an out-of-turn ``ACTION``
        signed by its own controller for this step ("A step" 1; "Session messages")."""
        seat_to_act = self.game.current_player
        if seat_to_act is None or self.controllers[seat_to_act] != m.signer:
            raise Failed(k, f"peer {m.signer} forwarded a move but does not lead step {k}")
        if len(m.fields) != 2 or m.fields[0] != self.game.state_hash():
            raise Failed(k, "a forward is not [state hash before, offer] for this state")
        offer = m.fields[1]
        if not (isinstance(offer, list) and len(offer) == 2 and all(isinstance(x, bytes) for x in offer)):
            raise Failed(k, "a forward's offer is not [body, signature]")
        inner = self.signed(k, offer[0], offer[1], carrier=False)
        if inner.kind != ACTION or inner.step != k:
            raise Failed(k, "a forward's offer is not an action for this step")
        action = self.move(k, inner)
        if action["player"] == seat_to_act:
            raise Failed(k, "a forward's offer is for the seat to act")
        return action

    # "A step" 2: applies -------------------------------------------------------------------------

    def apply(self, k: int, action: dict[str, Any]) -> None:
        """Apply the decided input; it must be the log's input, and the state hash the log's."""
        if action != self.log.inputs[k - 1]:
            raise Failed(k, f"the signed input {action} is not the log's {self.log.inputs[k - 1]}")
        try:
            self.game.apply(action)
        except (TypeError, ValueError) as e:
            raise Failed(k, f"the engine refuses the signed input: {e}") from None
        if self.game.state_hash() != self.log.hashes[k - 1]:
            raise Failed(k, "the state hash is not the log's")
        if action.get("type") == "resign":
            self.bank_seats.discard(action["player"])

    # "Removing a peer" ---------------------------------------------------------------------------

    def make_change(self, k: int, change: dict[str, Any]) -> None:
        """A change made before step ``k``: its commits, then its shares ("Removing a peer")."""
        targets, choice = self.check_commits(k, change.get("commits"))
        for peer in sorted(targets):
            self.rebuild(k, peer, targets, change.get("shares"))
        self.present -= targets
        heir = min(self.present)
        for peer in targets:
            if not self._reaches_anchor(peer):
                self.secrets[peer] = None  # bad_deal (or not rebuilt): its links count as zeros
        for seat, owner in enumerate(self.controllers):
            if owner in targets:
                self.controllers[seat] = heir
                if choice == "bank" or self.secrets[owner] is None:
                    self.bank_seats.add(seat)

    def check_commits(self, k: int, commits: object) -> tuple[set[int], str]:
        """One proposal (step, round, state, targets, choice) committed by every present peer not
        named, outnumbering those named, or one ``bank`` commit of two present peers."""
        if not isinstance(commits, list) or not commits:
            raise Failed(k, "a change without commits")
        proposals, signers = set(), []
        for pair in commits:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise Failed(k, "a commit is not [body, signature]")
            m = self.signed(k, b64(pair[0], k, "a commit"), b64(pair[1], k, "a commit's signature"))
            if m.kind != COMMIT or m.step != k or len(m.fields) != 4 or m.fields[0] != self.game.state_hash():
                raise Failed(k, f"peer {m.signer}'s commit is not for this step and state")
            _, number, bits, choice = m.fields
            if not (isinstance(number, int) and isinstance(bits, int) and isinstance(choice, str)):
                raise Failed(k, f"peer {m.signer}'s commit is malformed")
            proposals.add((number, bits, choice))
            signers.append(m.signer)
        if len(proposals) != 1:
            raise Failed(k, "the commits are not of one proposal")
        ((_, bits, choice),) = proposals
        targets = {i for i in range(len(self.start.peers)) if bits >> i & 1}
        voters = self.present - targets
        if not targets or not targets <= self.present or bits >> len(self.start.peers) or choice not in ("bot", "bank"):
            raise Failed(k, "a change that names no present peer or no choice")
        if set(signers) != voters:
            raise Failed(k, f"a change needs the commits of peers {sorted(voters)}, has {sorted(signers)}")
        if not (len(voters) > len(targets) or (len(self.present) == 2 and choice == "bank")):
            raise Failed(k, "the voters do not outnumber those named")
        return targets, choice

    def rebuild(self, k: int, dealer: int, targets: set[int], shares: object) -> None:
        """The removed peer's secret from ``t`` shares checked against its commitments (Lagrange at
        0), or None when fewer than ``t`` holders remain ("Removing a peer" 3)."""
        t = threshold(len(self.start.peers))
        points = self.shares_of(k, dealer, targets, shares)
        if len(self.present - targets) < t or t == 0:
            self.secrets[dealer] = None  # too few holders remain: its links count as zeros
            return
        if len(points) < t:
            raise Failed(k, f"the change lacks {t} valid shares of peer {dealer}'s secret")
        xs = sorted(points)[:t]
        secret = 0
        for x in xs:
            weight = 1
            for other in xs:
                if other != x:
                    weight = weight * other * pow(other - x, -1, ORDER) % ORDER
            secret = (secret + points[x] * weight) % ORDER
        self.secrets[dealer] = secret.to_bytes(32, "little")

    def shares_of(self, k: int, dealer: int, targets: set[int], shares: object) -> dict[int, int]:
        """The change's ``SHARE [dealer, share]`` of ``dealer``'s secret by ``x = holder + 1``, each
        signed by a holder the change keeps and on the dealer's commitments."""
        points: dict[int, int] = {}
        for pair in shares if isinstance(shares, list) else []:
            if not (isinstance(pair, list) and len(pair) == 2):
                raise Failed(k, "a share is not [body, signature]")
            m = self.signed(k, b64(pair[0], k, "a share"), b64(pair[1], k, "a share's signature"))
            if m.kind != SHARE or len(m.fields) != 2 or m.fields[0] not in targets:
                raise Failed(k, "a share of no removed peer's secret")
            if m.signer not in self.present - targets:
                raise Failed(k, f"peer {m.signer} released a share but is not a holder kept by the change")
            value = m.fields[1]
            if m.fields[0] != dealer:
                continue
            if not (isinstance(value, bytes) and len(value) == 32 and self._share_ok(dealer, m.signer, value)):
                raise Failed(k, f"peer {m.signer}'s share of peer {dealer}'s secret is not on its commitments")
            points[m.signer + 1] = int.from_bytes(value, "little")
        return points

    def _share_ok(self, dealer: int, holder: int, share: bytes) -> bool:
        """``share · G == Σ C_j (h + 1)^j`` ("Lobby and start" 4)."""
        if int.from_bytes(share, "little") >= ORDER or not any(share):
            return False
        total = b""
        try:
            for j, point in enumerate(self.commitments[dealer]):
                power = pow(holder + 1, j, ORDER).to_bytes(32, "little")
                term = point if j == 0 else sodium.crypto_scalarmult_ed25519_noclamp(power, point)
                total = term if not total else sodium.crypto_core_ed25519_add(total, term)
            return bool(sodium.crypto_scalarmult_ed25519_base_noclamp(share) == total)
        except (CryptoError, ValueError, TypeError):  # a commitment that is no point of the group
            return False

    def _reaches_anchor(self, dealer: int) -> bool:
        """Whether the rebuilt secret's chain reaches the dealer's anchor (else ``bad_deal``)."""
        value = self.secrets[dealer]
        if value is None:
            return False
        for _ in range(self.start.chain_length):
            value = chain_hash(value)
        return value == self.start.peers[dealer].anchor
