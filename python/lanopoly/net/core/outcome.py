"""How a session ends and what went wrong on the way: faults, freezes, the result."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from lanopoly.net.core.evidence import Proof


@dataclass(frozen=True)
class Fault:
    """Misbehaviour this peer saw (a message rejected, a peer silent...), naming the peer at fault."""

    step: int
    peer: int
    kind: str
    detail: str

    def to_json(self) -> dict[str, Any]:
        return {"step": self.step, "peer": self.peer, "kind": self.kind, "detail": self.detail}


@dataclass(frozen=True)
class FreezeInfo:
    """Why and where the session stopped, who is blamed (with signed proofs when there are), and the
    hashes each peer announced for that step."""

    step: int
    reason: str
    blamed: tuple[int, ...] = ()
    hashes: Mapping[int, tuple[bytes, bytes]] = field(default_factory=dict)
    proofs: tuple[Proof, ...] = ()
    cause: str = "fault"
    """``fault`` (a peer misbehaved or is gone), ``desync`` (same inputs, different states),
    ``remote`` (another peer froze), ``local`` (this peer left), ``limit`` (step limit)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "step": self.step,
            "reason": self.reason,
            "cause": self.cause,
            "blamed": list(self.blamed),
            "hashes": {str(p): [a.hex(), s.hex()] for p, (a, s) in sorted(self.hashes.items())},
            "proofs": [p.to_json() for p in self.proofs],
        }


@dataclass
class SessionResult:
    """How a session ended: ``over`` (game over, every present peer agreed on the final hash) or ``frozen``."""

    outcome: Literal["over", "frozen"]
    step: int
    state_hash: bytes
    winner: int | None
    faults: list[Fault]
    freeze: FreezeInfo | None = None
    proofs: tuple[Proof, ...] = ()
    interjections: Mapping[str, int] = field(default_factory=dict)
    """Steps decided by an out-of-turn move, by action type."""
    interjectors: tuple[int, ...] = ()
    """The peers whose out-of-turn moves were taken."""

    def to_json(self) -> dict[str, Any]:
        return {
            "outcome": self.outcome,
            "step": self.step,
            "state_hash": self.state_hash.hex(),
            "winner": self.winner,
            "faults": [f.to_json() for f in self.faults],
            "freeze": None if self.freeze is None else self.freeze.to_json(),
            "proofs": [p.to_json() for p in self.proofs],
            "interjections": dict(self.interjections),
            "interjectors": list(self.interjectors),
        }
