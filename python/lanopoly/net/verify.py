"""Offline verification of a saved LAN game: ``lanopoly verify FILE``.

A peer saves the rules core's ``GameLog`` JSON with a ``"network"`` member (``GameLog.load``
ignores it, so ``lanopoly replay`` works on the same file)::

    "network": {
      "format": "lanopoly-net", "protocol": 9, "me": <the saving peer>,
      "genesis": {"start": <base64 start record>, "commitments": [[<base64 point>, ...], ...],
                  "signatures": [<base64 signature of the genesis hash>, ...]},
      "steps": [[[<base64 body>, <base64 signature>], ...], ...],   # what decided each step
                  # (a move or reveal nested in an ack is saved as that ack: its signed carrier)
      "changes": [{"step": s, "commits": [...], "shares": [...]}, ...],
      "end": {"outcome": "over" | "frozen", "step": k, "reason": "..."} | null
    }

Nothing the saving peer says is trusted: the genesis must carry every peer's signature of its
hash; each step is replayed by the session core itself in observer mode (``Session.observe``),
through the very checks a peer makes on the steps it catches up on: a move signed by the key of
its seat's controller for that step and state (in turn, forwarded by the step's leader, or out of
turn) and accepted by the engine; a chance step with one reveal per present peer, each the next
link of its hash chain from the anchor in the start record, and the outcome their seed gives; a
change of membership made by the commits of every peer it needed, with the released shares that
rebuild each removed peer's secret (checked against its dealt commitments and its anchor). Each
replayed input and state hash must be the log's.

What that proves depends on the file (``verdict.py`` says it): every step of a finished game, a
signed prefix only (the session stopped, or the file was cut; ``end`` is the saving peer's own
word), or, without a protocol 9 record (a plain log, or one saved by protocols 2 to 8), only a
self-consistent hash chain.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from typing import Any

from lanopoly.log import GameLog
from lanopoly.net.core.record import FORMAT, change_from_json, unpairs
from lanopoly.net.core.session import Session
from lanopoly.net.genesis import Genesis
from lanopoly.net.keys import ED25519
from lanopoly.net.protocol import PROTOCOL, Action, Forward, Reveal, StepRecord, action_hash, step_messages
from lanopoly.net.wire import WireError

logging.getLogger("lanopoly.net.session").addFilter(lambda record: record.levelno > logging.WARNING)


class VerifyError(Exception):
    """The saved game does not verify; ``step`` is where (0: the file or its genesis)."""

    def __init__(self, step: int, reason: str) -> None:
        super().__init__(reason)
        self.step = step
        self.reason = reason

    def __str__(self) -> str:
        return (
            f"verification FAILED at step {self.step}: {self.reason}"
            if self.step
            else f"verification FAILED: {self.reason}"
        )


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
    legacy: int | None = None
    """A network record of an earlier protocol, whose signatures this version does not check."""
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
                f"; genesis signed by all {self.peers} peers; {self.actions} moves signed by their seat's"
                f" controller ({self.out_of_turn} of them out of turn); {self.chance_steps} chance steps with"
                f" {self.reveals} reveals on their peers' hash chains, each seed giving the logged outcome"
            )
            if self.replaced:
                text += f"; {self.replaced} change(s) of membership, the removed peers' seats to a bot"
            if self.resigned:
                text += f"; {self.resigned} change(s) of membership, the removed peers' seats resigned to the bank"
        elif self.legacy is not None:
            text += f"; a LAN protocol {self.legacy} record, whose signatures this version does not check"
        else:
            text += "; no network record in this file, so signatures and reveals were not checked"
        return f"{text}; final hash {self.final_hash.hex()}"


def _hash_chain(log: GameLog, result: Verified) -> Verified:
    game = log.new_game()
    for step, (action, expected) in enumerate(zip(log.inputs, log.hashes, strict=True), 1):
        try:
            game.apply(action)
        except (ValueError, TypeError, KeyError) as e:
            raise VerifyError(step, f"input refused: {e}") from None
        if game.state_hash() != expected:
            raise VerifyError(step, "state hash differs from the recorded one")
    result.steps = len(log.inputs)
    result.final_hash = game.state_hash()
    result.over = game.is_over
    return result


def verify_text(text: str) -> Verified:
    """Verify a saved game (its JSON text); returns what was checked, or raises VerifyError."""
    try:
        data = json.loads(text)
        log = GameLog.from_json(text)
    except RecursionError:
        raise VerifyError(0, "not a lanopoly game log: nested too deeply") from None
    except (ValueError, KeyError, TypeError) as e:
        raise VerifyError(0, f"not a lanopoly game log: {e}") from None
    if len(log.inputs) != len(log.hashes):
        raise VerifyError(0, f"{len(log.inputs)} inputs but {len(log.hashes)} hashes")
    net = data.get("network") if isinstance(data, dict) else None
    if net is None:
        return _hash_chain(log, Verified(0, b"", networked=False))
    if not isinstance(net, dict):
        raise VerifyError(0, "the network record is not an object")
    if net.get("format") != FORMAT or net.get("protocol") != PROTOCOL:
        legacy = net.get("protocol")
        if type(legacy) is int and 1 <= legacy < PROTOCOL:
            return _hash_chain(log, Verified(0, b"", networked=False, legacy=legacy))
        raise VerifyError(0, f"unsupported network record (format {net.get('format')!r}, protocol {legacy!r})")
    return _verify_record(log, net)


def _verify_record(log: GameLog, net: dict[str, Any]) -> Verified:
    try:
        genesis = Genesis.from_json(net.get("genesis"))
        genesis.check(ED25519.verify)
    except WireError as e:
        raise VerifyError(0, f"the genesis does not hold: {e}") from None
    record = genesis.record
    if (list(record.names), record.board, record.rules) != (log.names, log.board, log.rules):
        raise VerifyError(0, "the log's seats, board or rules are not the genesis'")
    steps, changes = net.get("steps"), net.get("changes")
    if not isinstance(steps, list) or not isinstance(changes, list):
        raise VerifyError(0, "the network record has no list of steps or changes")
    if len(steps) != len(log.inputs):
        raise VerifyError(0, f"{len(log.inputs)} logged steps but {len(steps)} in the network record")
    try:
        saved_changes = sorted((change_from_json(c) for c in changes), key=lambda c: c.step)
    except (KeyError, TypeError, ValueError, WireError) as e:
        raise VerifyError(0, f"a change of membership cannot be read: {e}") from None
    late = [c.step for c in saved_changes if not 1 <= c.step <= len(steps) + 1]
    if late:
        raise VerifyError(0, f"a change of membership at step {late[0]}, but the log's steps go from 1 to {len(steps)}")
    result = Verified(0, b"", networked=True, peers=len(record.peers))
    observer = Session.observe(genesis)
    for step in range(1, len(steps) + 2):
        for change in (c for c in saved_changes if c.step == step):
            try:
                observer.check_change(change)
            except ValueError as e:
                raise VerifyError(step, str(e)) from None
            result.resigned += change.commits[0].choice == "bank"
            result.replaced += change.commits[0].choice != "bank"
        if step > len(steps):
            break
        try:
            messages = step_messages(unpairs(steps[step - 1]))
        except (WireError, TypeError, IndexError) as e:
            raise VerifyError(step, f"its signed messages cannot be read: {e}") from None
        chance, current = observer.game.is_chance_node, observer.game.current_player
        try:
            observer.check_step(StepRecord(step, messages))
        except ValueError as e:
            raise VerifyError(step, str(e)) from None
        decided, expected = observer.log.inputs[-1], log.inputs[step - 1]
        if action_hash(decided) != action_hash(expected):
            raise VerifyError(step, f"the signed messages give {decided}, but the log records {expected}")
        if observer.game.state_hash() != log.hashes[step - 1]:
            raise VerifyError(step, "state hash differs from the recorded one")
        if chance:
            result.chance_steps += 1
            result.reveals += sum(isinstance(m, Reveal) for m in messages)
        else:
            result.actions += 1
            move = messages[0]
            result.out_of_turn += isinstance(move, Forward) or (isinstance(move, Action) and move.seat != current)
    result.steps = len(steps)
    result.final_hash = observer.game.state_hash()
    result.over = observer.game.is_over
    result.freeze = _frozen(net.get("end"))
    return result


def _frozen(end: Any) -> tuple[int, str] | None:
    """The saving peer's word that the session froze, ``(step, reason)``, when its record says so
    in the format a peer writes; anything else is no word at all (it is never trusted anyway)."""
    if not isinstance(end, dict) or end.get("outcome") != "frozen":
        return None
    step, reason = end.get("step", 0), end.get("reason", "")
    if type(step) is not int or type(reason) is not str:
        return None
    return step, reason
