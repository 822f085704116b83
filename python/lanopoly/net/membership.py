"""Who still plays: peers the others voted out, and who plays their seats from then on.

A peer that dropped and does not come back, that stays silent, or whose state diverged from the
majority's, can be replaced: every other present peer signs a ``VOTE`` naming the peers to
replace, the step the change takes effect at, the state before it and the choice: ``bot`` or
``bank``. The change is made when every present peer not named has voted exactly the same; then,
on every peer alike, the named peers stop counting (no more reveals, acks or actions from them)
and their seats pass to the present peer with the lowest index, which plays them with a bot
(``bot``) or resigns them at their first chance, the bank taking their assets (``bank``). Votes
are signed and saved with the game, so ``lanopoly verify`` checks every change too.

Nothing here trusts a vote's sender: the session checks signatures; ``Membership.decide`` only
counts votes that agree on everything.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lanopoly._core import Game
from lanopoly.net.messages import Vote


@dataclass(frozen=True)
class Change:
    """``removed`` peers stop playing from ``step`` on; ``controller`` plays their seats: with a bot
    (``choice`` "bot"), or by resigning them at their first chance so the bank takes their assets ("bank")."""

    step: int
    removed: tuple[int, ...]
    controller: int
    votes: tuple[Vote, ...]
    choice: str = "bot"


class Membership:
    """The peers still playing and the peer controlling each seat, with the changes made so far."""

    def __init__(self, peers: int, controllers: Sequence[int]) -> None:
        self.active: list[int] = list(range(peers))
        self.controllers: list[int] = list(controllers)
        self.changes: list[Change] = []
        self.resigning: set[int] = set()
        """Seats voted out to the bank: whenever they may resign, resigning is all they may do."""

    def is_active(self, peer: int) -> bool:
        return peer in self.active

    def others(self, me: int) -> list[int]:
        """The present peers other than ``me``."""
        return [p for p in self.active if p != me]

    def decide(self, votes: Mapping[int, Vote], step: int, prev_hash: bytes) -> Change | None:
        """The change ``votes`` (latest vote per voter) make at ``step`` from state ``prev_hash``, if any.

        Decided when every present peer not named has voted for the same present peers, at this
        step and state, and those voting outnumber those named (nobody can vote out a majority).
        """
        fresh = [v for v in votes.values() if v.step == step and v.prev_hash == prev_hash]
        for vote in fresh:
            removed = targets(vote)
            voters = [p for p in self.active if p not in removed]
            if not removed or not set(removed) <= set(self.active) or len(voters) <= len(removed):
                continue
            agreed = [v for v in fresh if v.voter in voters and targets(v) == removed and v.choice == vote.choice]
            if sorted(v.voter for v in agreed) == voters:
                ballots = tuple(sorted(agreed, key=lambda v: v.voter))
                return Change(step, removed, min(voters), ballots, vote.choice)
        return None

    def apply(self, change: Change) -> list[int]:
        """Make the change; returns the seats that changed hands."""
        self.active = [p for p in self.active if p not in change.removed]
        seats = [s for s, c in enumerate(self.controllers) if c in change.removed]
        for seat in seats:
            self.controllers[seat] = change.controller
        if change.choice == "bank":
            self.resigning.update(seats)
        self.changes.append(change)
        return seats

    def check(self, game: Game, action: dict[str, Any]) -> None:
        """Raise ValueError with the reason unless ``action`` may be played now: the engine allows it
        (``IllegalAction``) and the votes do (``refusal``)."""
        game.check(action)
        refusal = self.refusal(game, action)
        if refusal is not None:
            raise ValueError(refusal)

    def refusal(self, game: Game, action: Mapping[str, Any]) -> str | None:
        """Why ``action`` may not be played although the engine allows it: its seat was voted out to
        the bank and could resign now (every peer and ``verify`` hold its controller to that)."""
        seat = action.get("player")
        if seat not in self.resigning or action.get("type") == "resign":
            return None
        try:
            game.check({"type": "resign", "player": seat})
        except ValueError:
            return None  # it leads an auction or must place a building: that first
        return f"seat {seat} was voted out to the bank: it may only resign"


def targets(vote: Vote) -> tuple[int, ...]:
    """The peers a vote names (a bit set on the wire, sorted here)."""
    return tuple(p for p in range(8) if vote.target >> p & 1)


def target_mask(peers: Sequence[int]) -> int:
    """The bit set naming ``peers`` in a vote."""
    mask = 0
    for peer in peers:
        mask |= 1 << peer
    return mask
