"""The evidence round: when acks of a step disagree, every peer sends every signed message it holds
for the steps around it, so that each can look for proof of equivocation before it blames anyone.

``EvidenceRound`` keeps what each peer sent and when the round is over (every peer still linked
sent its evidence, or ``evidence_wait`` passed); the session decides what follows (``Session``:
a freeze with the proofs found, else the desync verdict).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping

from lanopoly.net.protocol import Ack, Signed


def disagree(step: int, messages: Iterable[Signed], held: Iterable[Ack]) -> bool:
    """Whether signed acks of ``step`` (in ``messages``, or ``held`` here) disagree. A peer starts
    the evidence round only when it sees that, and its evidence holds the acks it saw: without them
    an EVIDENCE is unfounded, and taking it froze every peer as a desync blaming nobody."""
    acks = [m for m in messages if isinstance(m, Ack) and m.step == step]
    acks += held
    return len({(a.action_hash, a.state_hash) for a in acks}) > 1


class EvidenceRound:
    """The signed messages each peer sent as evidence for the round of ``step``, until ``until``."""

    def __init__(self) -> None:
        self._sent: dict[int, list[Signed]] = {}
        self.step = 0
        """The step whose acks disagree."""
        self.until = 0.0
        """When the round ends even if some peer's evidence is missing."""

    def start(self, step: int, until: float) -> None:
        self.step = step
        self.until = until

    def add(self, peer: int, messages: Iterable[Signed]) -> None:
        """File ``peer``'s evidence (verified): a peer's evidence counts as in even when empty."""
        self._sent.setdefault(peer, []).extend(messages)

    def has(self, peer: int) -> bool:
        return peer in self._sent

    def over(self, now: float, linked: Collection[int]) -> bool:
        """Whether the round ends at ``now``: every peer in ``linked`` sent its evidence, or time is up."""
        return now >= self.until or all(p in self._sent for p in linked)

    def close(self) -> list[Signed]:
        """Every message sent in the round, in order of sender; the round starts empty again."""
        collected = [m for ms in self._sent.values() for m in ms]
        self._sent = {}
        return collected


def acks_of(step: int, held: Mapping[int, Ack], collected: Iterable[Signed]) -> dict[int, Ack]:
    """Every ack of ``step``: those ``held`` here, then those the others sent as evidence (all verified)."""
    acks = dict(held)
    for m in collected:
        if isinstance(m, Ack) and m.step == step:
            acks.setdefault(m.signer, m)
    return acks
