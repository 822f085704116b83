"""What the session core asks its driver to do (effects), and what it tells the console (events).

The driver carries effects out in order: a ``Persist`` before the ``Send`` that follows it, so a
peer that crashes never contradicts what it signed (it finds its signed messages in its journal
and repeats them instead of signing new ones).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from lanopoly.net.core.outcome import Fault, FreezeInfo, SessionResult


@dataclass(frozen=True)
class Send:
    """Send ``payload`` (one message, encoded) to ``peer`` on its link, if it is up."""

    peer: int
    payload: bytes


@dataclass(frozen=True)
class Close:
    """Close the link to ``peer`` (it misbehaved, or it was removed from the game)."""

    peer: int
    reason: str


@dataclass(frozen=True)
class Persist:
    """Append ``record`` to this peer's journal (JSON-able) before anything that follows is sent."""

    record: dict[str, Any]


@dataclass(frozen=True)
class StepApplied:
    """Step ``step`` was decided and applied: ``action`` by ``seat`` (None: a chance outcome)."""

    step: int
    action: dict[str, Any]
    seat: int | None
    events: list[dict[str, Any]]
    out_of_turn: bool


@dataclass(frozen=True)
class YourMove:
    """The game waits for the person's move for ``seat`` (at ``step``)."""

    seat: int
    step: int


@dataclass(frozen=True)
class MoveDropped:
    """A queued out-of-turn move of ``seat`` will not be played: ``reason`` says why;
    ``replaced`` when a newer move of the seat took its place (one waits at a time)."""

    seat: int
    action: dict[str, Any]
    reason: str
    replaced: bool = False


@dataclass(frozen=True)
class PeerAway:
    peer: int
    since: float
    reason: str


@dataclass(frozen=True)
class PeerBack:
    peer: int


@dataclass(frozen=True)
class VoteSeen:
    """``voter`` votes to remove ``removed`` from ``step`` on (their seats to ``choice``)."""

    voter: int
    removed: tuple[int, ...]
    choice: str
    step: int


@dataclass(frozen=True)
class PeersRemoved:
    """From ``step`` on ``removed`` no longer play; ``controller`` plays their ``seats`` with ``choice``."""

    step: int
    removed: tuple[int, ...]
    controller: int
    seats: tuple[int, ...]
    choice: str


@dataclass(frozen=True)
class FaultSeen:
    fault: Fault


@dataclass(frozen=True)
class Frozen:
    info: FreezeInfo


@dataclass(frozen=True)
class Finished:
    result: SessionResult


Event = (
    StepApplied | YourMove | MoveDropped | PeerAway | PeerBack | VoteSeen | PeersRemoved | FaultSeen | Frozen | Finished
)


@dataclass(frozen=True)
class Notify:
    """Tell whoever watches the session (the console, the CLI) that ``event`` happened."""

    event: Event


Effect = Send | Close | Persist | Notify
