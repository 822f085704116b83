"""Offline verification of a saved networked game: ``lanopoly verify FILE``.

A networked peer saves the rules core's ``GameLog`` JSON plus an optional ``"network"`` section
(``GameLog.load`` ignores it, so ``lanopoly replay`` still works on the same file)::

    "network": {
      "format": 1, "protocol": 3, "me": <index of the peer that saved it>,
      "start": <base64 of the exact start record bytes every peer hashed>,
      "start_sigs": {"0": <base64 Ed25519 signature>, ...},   # every peer's, of the start hash
      "steps": [{"step": k, "signed": [[<base64 body>, <base64 signature>], ...]}, ...],
      "freeze": {"step": k, "reason": "..."}                     # optional: the session froze
    }

``signed`` holds the exact signed bytes of step k: the one ``ACTION`` of the seat that acted (in
turn, or out of turn: an interjection carried in an ack), or at a chance node every peer's
``REVEAL`` in peer order. Nothing here needs trusting the saver: every claim is checked against the
start record, which every peer signed. ``protocol`` is the version the signed bodies were made
with (2 and 3 have the same ACTION and REVEAL layouts; 3 added signed acks and interjections).

``verify_text`` replays the log and checks every state hash; with a network section it also
checks, for the start record, its hash and every peer's signature, and that the log's seats, board
and rules are the record's; for each move, that the signed action is the logged input, for that
step and previous state, and signed by the key of the peer controlling its seat (the seat to act,
or for an out-of-turn move any other seat, whose move the engine then accepts); for each
chance step, that every peer revealed the next link of its hash chain (from its anchor in the start
record), signed by it, and that the seed those reveals give yields exactly the logged outcome. So
a saved game proves, offline, who made every move and that no peer chose a roll or a card.

What that proves depends on what the file holds (``verdict.judge_text`` says it): every step of a
finished game, or only a signed prefix (``Verified.over`` false: the session stopped, or the file
was cut; ``freeze`` is the saving peer's own, unsigned, word on why), or, with no network record,
only a self-consistent hash chain, which anyone can recompute after changing a die.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from lanopoly._core import Game, Rules
from lanopoly.log import GameLog
from lanopoly.net import PROTOCOL_VERSION, secure
from lanopoly.net.chain import ChainVerifier, step_seed
from lanopoly.net.framing import FrameError, unpack
from lanopoly.net.membership import Change, Membership
from lanopoly.net.mesh import start_hash
from lanopoly.net.messages import ActionMsg, ProtocolError, Reveal, StartRecord, Vote, parse
from lanopoly.net.outcome import action_hash

RECORD_FORMAT = 1
READABLE_PROTOCOLS = (2, 3, 4, 5, 6, 7)
"""Protocol versions whose signed ACTION and REVEAL bodies this verifier reads (same layout)."""


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _unb64(value: Any, what: str) -> bytes:
    if not isinstance(value, str):
        raise VerifyError(0, f"{what}: expected base64 text")
    try:
        return base64.b64decode(value, validate=True)
    except (binascii.Error, ValueError):
        raise VerifyError(0, f"{what}: not valid base64") from None


class NetworkRecord:
    """What a peer adds to its saved log so that the game can be verified offline.

    Step entries are serialised once, when the step is recorded, so each (periodic) save only
    joins strings.
    """

    def __init__(self, me: int, start_payload: bytes, start_sigs: dict[int, bytes]) -> None:
        header = {
            "format": RECORD_FORMAT,
            "protocol": PROTOCOL_VERSION,
            "me": me,
            "start": b64(start_payload),
            "start_sigs": {str(p): b64(s) for p, s in sorted(start_sigs.items())},
        }
        self._header = json.dumps(header)[:-1]  # the object, still open for "changes" and "steps"
        self._steps: list[str] = []
        self._changes: list[str] = []
        self._freeze = ""
        self.signed: list[list[tuple[bytes, bytes]]] = []
        """The (body, signature) pairs of every step so far, index ``step - 1`` (what a rejoining peer is sent)."""

    def record(self, step: int, signed: Sequence[ActionMsg | Reveal]) -> None:
        """Record the signed messages that decided ``step`` (called right after the step is logged)."""
        self._steps.append(json.dumps({"step": step, "signed": [[b64(m.body), b64(m.signature)] for m in signed]}))
        self.signed.append([(m.body, m.signature) for m in signed])

    def record_change(self, change: Change) -> None:
        """Record a change of membership with the votes that made it."""
        votes = [[b64(v.body), b64(v.signature)] for v in change.votes]
        entry = {
            "step": change.step,
            "removed": list(change.removed),
            "controller": change.controller,
            "choice": change.choice,
            "votes": votes,
        }
        self._changes.append(json.dumps(entry))

    def record_freeze(self, step: int, reason: str) -> None:
        """Record that the session froze, where and why (only the saving peer's word: nobody signs it),
        so that ``verify`` can say why the game ends unfinished."""
        self._freeze = ", " + json.dumps({"freeze": {"step": step, "reason": reason}})[1:-1]

    def to_json(self) -> str:
        changes = f'"changes": [{", ".join(self._changes)}]'
        return f'{self._header}, {changes}, "steps": [{", ".join(self._steps)}]{self._freeze}}}'

    def attach(self, log_json: str) -> str:
        """The saved file: the game log's JSON object with this record as its ``"network"`` member."""
        core = log_json.rstrip()
        if not core.endswith("}"):
            raise ValueError("the game log JSON is not an object")
        return f'{core[:-1]}, "network": {self.to_json()}}}'


class VerifyError(Exception):
    """The saved game does not verify; ``step`` is where (0: the file or the start record)."""

    def __init__(self, step: int, reason: str) -> None:
        super().__init__(reason)
        self.step = step
        self.reason = reason

    def __str__(self) -> str:
        return f"step {self.step}: {self.reason}" if self.step else self.reason


@dataclass
class Verified:
    """What a successful verification covered."""

    steps: int
    final_hash: bytes
    networked: bool
    over: bool = False
    """The game is over after the last step (else the log is only a prefix of a game)."""
    freeze: tuple[int, str] | None = None
    """The saving peer's record that the session froze: (step, reason); its word alone, unsigned."""
    peers: int = 0
    actions: int = 0
    out_of_turn: int = 0
    replaced: int = 0
    resigned: int = 0
    chance_steps: int = 0
    reveals: int = 0

    def summary(self) -> str:
        text = f"{self.steps} steps replayed, every state hash matches"
        if self.networked:
            text += (
                f"; start record signed by all {self.peers} peers; {self.actions} actions signed by the seat's"
                f" controller ({self.out_of_turn} of them out of turn); {self.chance_steps} chance steps with"
                f" {self.reveals} reveals on their peers' hash chains, each seed giving the logged outcome"
            )
            if self.replaced:
                text += f"; {self.replaced} peer(s) replaced by a bot on the signed votes of all the others"
            if self.resigned:
                text += f"; {self.resigned} peer(s) voted out by all the others, their seats resigned to the bank"
        else:
            text += "; no network record in this file, so signatures and reveals were not checked"
        return f"{text}; final hash {self.final_hash.hex()}"


def decode_signed(
    pairs: Sequence[tuple[bytes, bytes]], step: int, version: int = PROTOCOL_VERSION
) -> list[ActionMsg | Reveal]:
    """Decode (body, signature) pairs with the wire parser (the same strict checks); VerifyError if one is not valid."""
    out: list[ActionMsg | Reveal] = []
    for body, signature in pairs:
        try:
            kind = unpack(body)[0]
            message = parse([kind, version, body, signature], version)
        except (FrameError, ProtocolError, IndexError, TypeError) as e:
            raise VerifyError(step, f"undecodable signed message: {e}") from None
        if not isinstance(message, ActionMsg | Reveal):
            raise VerifyError(step, f"a {type(message).__name__} message where ACTION or REVEAL was expected")
        out.append(message)
    return out


def _pairs(entry: Any, step: int) -> list[tuple[bytes, bytes]]:
    """The (body, signature) pairs of a saved step entry."""
    if not isinstance(entry, dict) or entry.get("step") != step or not isinstance(entry.get("signed"), list):
        raise VerifyError(step, "the network record has no entry for this step")
    pairs = []
    for item in entry["signed"]:
        if not isinstance(item, list) or len(item) != 2:
            raise VerifyError(step, "malformed signed message in the network record")
        try:
            pairs.append((_unb64(item[0], "body"), _unb64(item[1], "signature")))
        except VerifyError as e:
            raise VerifyError(step, e.reason) from None
    return pairs


def saved_steps(net: dict[str, Any]) -> list[list[tuple[bytes, bytes]]]:
    """Every step's (body, signature) pairs from a saved network record (not yet checked)."""
    entries = net.get("steps")
    if not isinstance(entries, list):
        raise VerifyError(0, "the network record has no steps")
    return [_pairs(entry, step) for step, entry in enumerate(entries, 1)]


def saved_changes(
    net: dict[str, Any], version: int = PROTOCOL_VERSION
) -> dict[int, tuple[list[Vote], tuple[int, ...]]]:
    """The saved changes of membership: step -> (the votes, the peers they replaced); ``version``
    is the protocol the votes were signed in."""
    out: dict[int, tuple[list[Vote], tuple[int, ...]]] = {}
    entries = net.get("changes", [])
    if not isinstance(entries, list):
        raise VerifyError(0, "malformed changes in the network record")
    for entry in entries:
        if not isinstance(entry, dict) or not isinstance(entry.get("step"), int) or entry["step"] in out:
            raise VerifyError(0, "malformed change in the network record")
        step, pairs = entry["step"], []
        items = entry.get("votes", [])
        for item in items if isinstance(items, list) else [None]:
            if not isinstance(item, list) or len(item) != 2:
                raise VerifyError(step, "malformed vote in the network record")
            pairs.append((_unb64(item[0], "vote"), _unb64(item[1], "signature")))
        votes = decode_votes(pairs, step, version)
        removed = entry.get("removed")
        if not isinstance(removed, list) or not all(isinstance(p, int) for p in removed):
            raise VerifyError(step, "malformed change in the network record")
        out[step] = (votes, tuple(removed))
    return out


def decode_votes(pairs: Sequence[tuple[bytes, bytes]], step: int, version: int = PROTOCOL_VERSION) -> list[Vote]:
    """Decode the (body, signature) pairs of a change's votes with the wire parser (not yet checked:
    ``StepChecker.change`` does that); VerifyError if one is not a valid VOTE."""
    votes = []
    for body, signature in pairs:
        try:
            vote = parse([unpack(body)[0], version, body, signature], version)
        except (FrameError, ProtocolError, IndexError, TypeError) as e:
            raise VerifyError(step, f"undecodable vote: {e}") from None
        if not isinstance(vote, Vote):
            raise VerifyError(step, "a change is made of votes")
        votes.append(vote)
    return votes


def _signed(entry: Any, step: int, version: int) -> list[ActionMsg | Reveal]:
    """Decode a saved step entry's signed messages."""
    return decode_signed(_pairs(entry, step), step, version)


def _same_input(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return action_hash(a) == action_hash(b)


def _start(net: dict[str, Any], log: GameLog, version: int = PROTOCOL_VERSION) -> tuple[StartRecord, list[Any]]:
    """Parse and check the start record (of protocol ``version``): its hash signed by every peer, the log's header."""
    payload = _unb64(net.get("start"), "start record")
    try:
        record = parse(unpack(payload), version)
    except (FrameError, ProtocolError) as e:
        raise VerifyError(0, f"undecodable start record: {e}") from None
    if not isinstance(record, StartRecord):
        raise VerifyError(0, "the network record's start record is not a START message")
    digest = start_hash(payload)
    sigs = net.get("start_sigs")
    if not isinstance(sigs, dict):
        raise VerifyError(0, "no start record signatures")
    keys = [secure.load_public(p.sign_key) for p in record.peers]
    for i, key in enumerate(keys):
        if str(i) not in sigs:
            raise VerifyError(0, f"peer {i} ({record.peers[i].name})'s signature of the start record is missing")
        if not secure.verify(key, _unb64(sigs[str(i)], "signature"), secure.start_sig_data(digest)):
            raise VerifyError(0, f"peer {i} ({record.peers[i].name})'s signature of the start record does not verify")
    if list(record.names) != log.names or record.board != log.board:
        raise VerifyError(0, "the log's seats or board differ from the signed start record's")
    try:
        rules = Rules.recorded(record.rules)
    except (TypeError, ValueError) as e:
        raise VerifyError(0, f"the start record's rules are not valid: {e}") from None
    try:
        logged = Rules.recorded(log.rules)
    except (TypeError, ValueError):
        logged = None
    if rules != logged:
        raise VerifyError(0, "the log's rules differ from the signed start record's")
    return record, keys


class StepChecker:
    """Checks, step by step, that signed messages decide a step's input; gives that input.

    Shared by ``verify_text`` (a saved file) and by a rejoining peer (the steps it missed, sent by
    the others): nothing is trusted but the start record's keys and hash-chain anchors.
    """

    def __init__(self, record: StartRecord, version: int = PROTOCOL_VERSION) -> None:
        self.record = record
        self.version = version
        self.keys = [secure.load_public(p.sign_key) for p in record.peers]
        self.chains = [ChainVerifier(p.anchor, record.chain_length) for p in record.peers]
        self.chance_index = 0
        self.membership = Membership(len(record.peers), record.controllers)

    def change(self, game: Game, step: int, votes: Sequence[Vote]) -> Change:
        """Check and make a change of membership before ``step``: every present peer not replaced voted for it."""
        prev = game.state_hash()
        for vote in votes:
            if vote.game_id != self.record.game_id or not 0 <= vote.voter < len(self.keys):
                raise VerifyError(step, "a vote for another game or from no peer")
            if not secure.verify(self.keys[vote.voter], vote.signature, vote.signed_data):
                raise VerifyError(step, f"{self.peer(vote.voter)}'s vote is not signed by its key")
        change = self.membership.decide({v.voter: v for v in votes}, step, prev)
        if change is None or len(change.votes) != len(votes):
            raise VerifyError(step, "the votes do not make a change: every present peer but those replaced must agree")
        self.membership.apply(change)
        return change

    def peer(self, index: int) -> str:
        return f"peer {index} ({self.record.peers[index].name})"

    def input_for(self, game: Game, step: int, signed: Sequence[ActionMsg | Reveal]) -> dict[str, Any]:
        """The input that ``signed`` decides for ``step`` from ``game`` (not applied); VerifyError if it does not."""
        prev = game.state_hash()
        for message in signed:
            if message.game_id != self.record.game_id or message.step != step or message.prev_hash != prev:
                raise VerifyError(step, "a signed message is bound to another game, step or state")
        if game.is_chance_node:
            return self._chance(game, step, prev, signed)
        return self._move(game, step, signed)

    def _chance(self, game: Game, step: int, prev: bytes, signed: Sequence[ActionMsg | Reveal]) -> dict[str, Any]:
        if [m.peer if isinstance(m, Reveal) else -1 for m in signed] != self.membership.active:
            raise VerifyError(step, "a chance step needs one reveal from every present peer, in peer order")
        index = self.chance_index + 1
        links = []
        for m in signed:
            assert isinstance(m, Reveal)
            if not secure.verify(self.keys[m.peer], m.signature, m.signed_data):
                raise VerifyError(step, f"{self.peer(m.peer)}'s reveal is not signed by its key")
            if m.chance_index != index or not self.chains[m.peer].check(index, m.link):
                raise VerifyError(step, f"{self.peer(m.peer)}'s reveal is not the next link of its hash chain")
            links.append(m.link)
        self.chance_index = index
        return game.outcome_from_bytes(step_seed(self.record.game_id, step, prev, links))

    def _move(self, game: Game, step: int, signed: Sequence[ActionMsg | Reveal]) -> dict[str, Any]:
        """A move: one action signed by the controller of its seat (any seat since protocol 3: out of turn)."""
        if len(signed) != 1 or not isinstance(signed[0], ActionMsg):
            raise VerifyError(step, "a move needs exactly one signed action")
        m = signed[0]
        seat = m.seat
        if seat >= len(self.record.controllers) or m.action.get("player") != seat:
            raise VerifyError(step, f"the signed action for seat {seat} is not a move of that seat")
        if seat != game.current_player and self.version < 3:
            raise VerifyError(step, f"the signed action is for seat {seat}, but seat {game.current_player} was to act")
        ctrl = self.membership.controllers[seat]
        if not secure.verify(self.keys[ctrl], m.signature, m.signed_data):
            raise VerifyError(step, f"the action is not signed by peer {ctrl}, which controls seat {seat}")
        refusal = self.membership.refusal(game, m.action)
        if refusal is not None:
            raise VerifyError(step, refusal)
        return m.action


def _saved_freeze(net: dict[str, Any]) -> tuple[int, str] | None:
    """The record's ``freeze`` member (the saving peer's word on why the session stopped), if any."""
    freeze = net.get("freeze")
    if freeze is None:
        return None
    if (
        not isinstance(freeze, dict)
        or not isinstance(freeze.get("step"), int)
        or not isinstance(freeze.get("reason"), str)
    ):
        raise VerifyError(0, "malformed freeze in the network record")
    return freeze["step"], freeze["reason"]


def _make_change(
    checker: StepChecker, game: Game, step: int, saved: tuple[list[Vote], tuple[int, ...]], result: Verified
) -> None:
    """Check and make a saved change of membership before ``step``, counting it in ``result``."""
    votes, removed = saved
    change = checker.change(game, step, votes)
    if change.removed != removed:
        raise VerifyError(step, "the votes replace other peers than the record says")
    if change.choice == "bank":
        result.resigned += len(removed)
    else:
        result.replaced += len(removed)


def verify_text(text: str) -> Verified:
    """Verify a saved game (the JSON text); returns what was checked, or raises VerifyError.

    A change of membership saved for the step after the log's last (the votes were in, the next
    step never came) is checked too; one for a later step could not be, and fails."""
    try:
        data = json.loads(text)
        log = GameLog.from_json(text)
    except (ValueError, KeyError, TypeError) as e:
        raise VerifyError(0, f"not a lanopoly game log: {e}") from None
    if len(log.inputs) != len(log.hashes):
        raise VerifyError(0, f"{len(log.inputs)} inputs but {len(log.hashes)} hashes")
    net = data.get("network") if isinstance(data, dict) else None
    if net is not None and (not isinstance(net, dict) or net.get("format") != RECORD_FORMAT):
        raise VerifyError(0, "unsupported network record format")
    checker: StepChecker | None = None
    version = PROTOCOL_VERSION
    entries: list[Any] = []
    changes: dict[int, tuple[list[Vote], tuple[int, ...]]] = {}
    result = Verified(0, b"", net is not None)
    if net is not None:
        version = net.get("protocol", PROTOCOL_VERSION)
        if version not in READABLE_PROTOCOLS:
            raise VerifyError(0, f"network record of protocol {version!r}: this verifier reads {READABLE_PROTOCOLS}")
        record, _ = _start(net, log, version)
        checker = StepChecker(record, version)
        result.peers = len(checker.keys)
        changes = saved_changes(net, version)
        steps = net.get("steps")
        entries = steps if isinstance(steps, list) else []
        if len(entries) != len(log.inputs):
            raise VerifyError(0, f"{len(log.inputs)} logged steps but {len(entries)} in the network record")
        late = [step for step in changes if not 1 <= step <= len(log.inputs) + 1]
        if late:
            raise VerifyError(
                0, f"a change of membership at step {late[0]}, but the log's steps go from 1 to {len(log.inputs)}"
            )
        result.freeze = _saved_freeze(net)
    game = log.new_game()
    for step, (action, expected) in enumerate(zip(log.inputs, log.hashes, strict=True), 1):
        if checker is not None and step in changes:
            _make_change(checker, game, step, changes[step], result)
        if checker is not None:
            signed = _signed(entries[step - 1], step, version)
            chance = game.is_chance_node
            decided = checker.input_for(game, step, signed)
            if not _same_input(decided, action):
                what = f"the reveals give {decided}" if chance else f"the signed action {decided}"
                raise VerifyError(step, f"{what}, but the log records {action}")
            if chance:
                result.chance_steps += 1
                result.reveals += len(signed)
            else:
                result.actions += 1
                result.out_of_turn += isinstance(signed[0], ActionMsg) and signed[0].seat != game.current_player
        try:
            game.apply(action)
        except (ValueError, TypeError, KeyError) as e:
            raise VerifyError(step, f"input refused: {e}") from None
        if game.state_hash() != expected:
            raise VerifyError(step, "state hash differs from the recorded one")
        result.steps = step
    if checker is not None and result.steps + 1 in changes:
        _make_change(checker, game, result.steps + 1, changes[result.steps + 1], result)
    result.final_hash = game.state_hash()
    result.over = game.is_over
    return result
