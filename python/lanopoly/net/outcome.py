"""How a lockstep session ends: the result, the freeze and its reasons, and the hash peers compare.

These types are shared by the session's modules (``lockstep``, ``interjections``, ``catchup``,
``voting``, ``evidence_round``) and by ``verify``; they live here so that each can import them
without importing the session.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from lanopoly.net.evidence import Proof

ACTION_TAG = b"lanopoly/action/v1\x00"


def action_hash(action: Mapping[str, Any]) -> bytes:
    """SHA-256 of the canonical JSON of an input (sorted keys, no spaces): the same on every peer.

    The wire encoding (msgpack) is not canonical, so peers compare this instead of wire bytes.
    """
    text = json.dumps(action, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(ACTION_TAG + text.encode("ascii")).digest()


@dataclass(frozen=True)
class Fault:
    """Misbehaviour seen from a peer that did not stop the game (the message was rejected)."""

    step: int
    peer: int
    kind: str
    detail: str


@dataclass(frozen=True)
class FreezeInfo:
    """Why and where the session froze, who is blamed, and every peer's hashes for that step."""

    step: int
    reason: str
    blamed: tuple[int, ...] = ()
    hashes: Mapping[int, tuple[bytes, bytes]] = field(default_factory=dict)
    proofs: tuple[Proof, ...] = ()


class Frozen(Exception):
    """Raised inside the step loop to freeze the session."""

    def __init__(self, info: FreezeInfo) -> None:
        super().__init__(info.reason)
        self.info = info


class Diverged(Exception):
    """Raised inside the step loop when peers applied different inputs: the evidence round follows."""

    def __init__(self, info: FreezeInfo) -> None:
        super().__init__(info.reason)
        self.info = info


@dataclass
class SessionResult:
    """How a session ended: ``over`` (game over, every peer agreed on the final hash) or ``frozen``."""

    outcome: Literal["over", "frozen"]
    step: int
    state_hash: bytes
    winner: int | None
    faults: list[Fault]
    freeze: FreezeInfo | None = None
    report: Path | None = None
    seconds: float = 0.0
    interjections: Mapping[str, int] = field(default_factory=dict)
    """Steps decided by an out-of-turn action, by action type."""
    interjectors: tuple[int, ...] = ()
    """The peers whose out-of-turn actions were taken."""
    contested: int = 0
    """Steps for which several peers interjected at once (one was taken, the others dropped)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "step": self.step,
            "state_hash": self.state_hash.hex(),
            "winner": self.winner,
            "faults": [f.__dict__ for f in self.faults],
            "freeze": None
            if self.freeze is None
            else {
                "step": self.freeze.step,
                "reason": self.freeze.reason,
                "blamed": list(self.freeze.blamed),
                "hashes": {str(p): [a.hex(), s.hex()] for p, (a, s) in self.freeze.hashes.items()},
                "proofs": [p.to_json() for p in self.freeze.proofs],
            },
            "report": None if self.report is None else str(self.report),
            "seconds": round(self.seconds, 3),
            "interjections": dict(self.interjections),
            "interjectors": list(self.interjectors),
            "contested": self.contested,
        }
