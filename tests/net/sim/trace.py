"""A digest of everything observable in a simulated game, to prove a refactor changes nothing.

Every effect a session core returns (sends with their bytes, links closed, journal lines with the
state hashes of applied steps, events told to the console: steps with their engine events, faults,
votes, freezes with their evidence and cause, results) and the deadline it asks for after each
input go, in order, with the simulated time and the peer, into one blake2b per game
(``Report.trace``). A change that makes any session do anything differently, even once, changes
the digest of every game where it shows.

To prove a refactor of the session core behaviour-identical: before it,
``python -m tests.net.sim.batch --start 0 --games 10000 --jobs 1 --traces base.txt``; after it, the
same with ``--traces new.txt``; then ``diff base.txt new.txt`` (each line is ``seed digest``).
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from lanopoly.net.core import effects as fx
from lanopoly.net.core.record import to_line


def _json(value: Any) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=repr).encode()


def event_bytes(event: fx.Event) -> bytes:
    """An event told to the console, every field of it (``to_json`` where the outcome types have one)."""
    if isinstance(event, fx.FaultSeen):
        return b"fault " + _json(event.fault.to_json())
    if isinstance(event, fx.Frozen):
        return b"frozen " + _json(event.info.to_json())
    if isinstance(event, fx.Finished):
        return b"finished " + _json(event.result.to_json())
    if isinstance(event, fx.StepApplied):
        fields = [event.step, event.action, event.seat, event.events, event.out_of_turn]
        return b"step " + _json(fields)
    return repr(event).encode()  # the rest hold only numbers, strings and tuples of them


def effect_bytes(effect: fx.Effect) -> bytes:
    """One effect as bytes that differ whenever any of its fields does."""
    if isinstance(effect, fx.Send):
        return b"send %d " % effect.peer + effect.payload
    if isinstance(effect, fx.Close):
        return b"close %d " % effect.peer + effect.reason.encode()
    if isinstance(effect, fx.Persist):
        return b"persist " + to_line(effect.record).encode()  # type: ignore[arg-type]
    return b"notify " + event_bytes(effect.event)


class Trace:
    """The running digest of one game: items folded in order, each with the time and the peer."""

    def __init__(self) -> None:
        self._hash = hashlib.blake2b(digest_size=16)

    def add(self, now: float, peer: int, item: bytes) -> None:
        """Fold one item in, length-prefixed (a payload may hold any byte, a newline too)."""
        head = f"{now!r} {peer} {len(item)}\n".encode()
        self._hash.update(head)
        self._hash.update(item)

    def effect(self, now: float, peer: int, effect: fx.Effect) -> None:
        self.add(now, peer, effect_bytes(effect))

    def deadline(self, now: float, peer: int, deadline: float | None) -> None:
        """The deadline a core asks for after an input (when the driver calls ``timer`` next)."""
        self.add(now, peer, b"deadline " + repr(deadline).encode())

    def hexdigest(self) -> str:
        return self._hash.hexdigest()
