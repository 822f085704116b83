"""The simulator's trace digest (``sim/trace.py``): the same game gives the same digest, and any
difference in what a session core does (one field of one effect, its time, its peer) changes it.
It is what proves a refactor of the session core behaviour-identical, so a blind spot in it would
let a change through unseen."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Any

import pytest

from lanopoly.net.core import effects as fx
from lanopoly.net.core.outcome import Fault, FreezeInfo, SessionResult
from lanopoly.net.core.record import EndEntry, StepEntry
from lanopoly.net.core.session import Session
from lanopoly.net.protocol import StepRecord

from .sim.run import run_game
from .sim.trace import Trace, effect_bytes

FAULT = Fault(3, 1, "silent", "silent for 10 s")
SAMPLES: list[fx.Effect] = [
    fx.Send(1, b"\x08payload"),
    fx.Close(2, "the session stopped"),
    fx.Persist(EndEntry("frozen", 7, "why")),  # type: ignore[arg-type]
    fx.Persist(StepEntry(StepRecord(4, ()), bytes(32))),  # type: ignore[arg-type]
    fx.Notify(fx.StepApplied(5, {"type": "roll"}, 1, [{"kind": "moved", "to": 3}], False)),
    fx.Notify(fx.YourMove(0, 9)),
    fx.Notify(fx.MoveDropped(1, {"type": "bid"}, "too late", False)),
    fx.Notify(fx.PeerAway(2, 1.5, "link broken")),
    fx.Notify(fx.PeerBack(2)),
    fx.Notify(fx.VoteSeen(0, (2,), "bot", 11)),
    fx.Notify(fx.PeersRemoved(11, (2,), 0, (3,), "bot")),
    fx.Notify(fx.FaultSeen(FAULT)),
    fx.Notify(fx.Frozen(FreezeInfo(12, "desync", (1,), {1: (b"a", b"s")}, (), "desync"))),
    fx.Notify(fx.Finished(SessionResult("over", 40, b"h", 2, [FAULT], None, (), {"bid": 1}, (0,)))),
]


def _other(value: Any) -> Any:
    """A value of the same shape as ``value`` that differs from it (None: no variant to make)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int | float):
        return value + 1
    if isinstance(value, str):
        return value + "!"
    if isinstance(value, bytes):
        return value + b"!"
    if isinstance(value, tuple):
        return value + value[:1] if value else None
    if isinstance(value, list):
        return value + value[:1] if value else None
    if isinstance(value, dict):
        key = next(iter(value), None)
        if key is None:
            return None
        item = value[key]  # a pair (an action and a state hash) keeps its length: its first changes
        return {**value, key: (_other(item[0]), *item[1:]) if isinstance(item, tuple) else _other(item)}
    return None


def _variants(obj: Any) -> Iterator[tuple[str, Any]]:
    """``obj`` changed in one field at a time, down into nested dataclasses: (field path, variant)."""
    for f in dataclasses.fields(obj):
        value = getattr(obj, f.name)
        if dataclasses.is_dataclass(value) and not isinstance(value, type):
            for path, inner in _variants(value):
                yield f"{f.name}.{path}", dataclasses.replace(obj, **{f.name: inner})
            continue
        changed = _other(value)
        if changed is not None:
            yield f.name, dataclasses.replace(obj, **{f.name: changed})


@pytest.mark.parametrize("effect", SAMPLES, ids=lambda e: type(getattr(e, "event", e)).__name__)
def test_every_field_of_an_effect_is_in_the_digest(effect: fx.Effect) -> None:
    base = effect_bytes(effect)
    variants = list(_variants(effect))
    assert variants, "a sample with no field to change tests nothing"
    same = [path for path, variant in variants if effect_bytes(variant) == base]
    assert not same, f"fields the digest ignores: {same}"


def test_the_time_and_the_peer_of_an_effect_are_in_the_digest() -> None:
    def digest(now: float, peer: int, deadline: float | None) -> str:
        trace = Trace()
        trace.effect(now, peer, fx.Notify(fx.PeerBack(1)))
        trace.deadline(now, peer, deadline)
        return trace.hexdigest()

    base = digest(1.0, 0, 2.0)
    assert len({base, digest(1.5, 0, 2.0), digest(1.0, 1, 2.0), digest(1.0, 0, None), digest(1.0, 0, 3.0)}) == 5


def test_a_game_replays_to_the_same_digest() -> None:
    first, again, other = run_game(7), run_game(7), run_game(8)
    assert first.trace == again.trace
    assert first.trace != other.trace


def test_a_changed_send_changes_the_digest(monkeypatch: pytest.MonkeyPatch) -> None:
    """Broadcasts sent to the other peers in the reverse order: the game still plays out (seed 7 has
    four peers), only the order of some sends differs."""

    def reversed_broadcast(self: Session, payload: bytes) -> None:
        for peer in reversed(self.members.others(self.me)):
            self._send(peer, payload)

    before = run_game(7)
    monkeypatch.setattr(Session, "_broadcast", reversed_broadcast)
    after = run_game(7)
    assert before.ok and after.ok
    assert before.trace != after.trace
