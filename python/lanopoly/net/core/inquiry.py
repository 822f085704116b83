"""The evidence round: when acks of a step disagree, every peer sends every signed message it holds
for the steps around it, so that each can look for proof of equivocation before it blames anyone.

``EvidenceRound`` keeps what each peer sent and when the round is over (every peer still linked
sent its evidence, or ``evidence_wait`` passed). With no proof found, ``desync_verdict`` says what
the acks that disagree mean; the session carries it out (a freeze, or the majority plays on).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass

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


@dataclass(frozen=True)
class NoOwnAck:
    """This peer holds no ack of its own for the step (it follows another peer's round): freeze."""


@dataclass(frozen=True)
class Outvote:
    """The same input, and a strict majority of three or more, this peer among it, on one state:
    the ``diverged`` peers are voted out and the majority plays on."""

    diverged: tuple[int, ...]


@dataclass(frozen=True)
class InputsDiverged:
    """Different inputs, with no proof of the equivocation that alone makes them: nobody is blamed
    (the peers whose input differs may be the ones the equivocator lied to); freeze."""


@dataclass(frozen=True)
class Desync:
    """The same input gave different states: the ``blamed`` peers diverged from the majority
    (``by_majority``), or, with no majority, from this peer; freeze."""

    blamed: tuple[int, ...]
    by_majority: bool


DesyncVerdict = NoOwnAck | Outvote | InputsDiverged | Desync


def desync_verdict(hashes: Mapping[int, tuple[bytes, bytes]], me: int) -> DesyncVerdict:
    """What acks that disagree with no proof of equivocation mean: ``hashes`` is each present
    peer's (input hash, state hash) of the step, ``me`` this peer. A majority's state is the one
    that appears most (first seen on a tie), and a majority is strict."""
    mine = hashes.get(me)
    if mine is None:
        return NoOwnAck()
    top, n = Counter(hashes.values()).most_common(1)[0]
    same_inputs = len({a for a, _ in hashes.values()}) == 1
    majority = 2 * n > len(hashes)
    if same_inputs and majority and top == mine and len(hashes) >= 3:
        return Outvote(tuple(p for p, h in sorted(hashes.items()) if h != top))
    if not same_inputs:
        return InputsDiverged()
    basis = top if majority else mine
    return Desync(tuple(p for p, h in sorted(hashes.items()) if h != basis), majority)
