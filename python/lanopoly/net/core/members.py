"""Who still plays: votes to remove peers, the changes they make, who controls each seat.

A peer away or silent too long, or whose state left the majority's, can be removed. Removal takes
two signed rounds, so that no step is ever decided one way by some peers and with the change by
others:

1. ``VOTE``: every other present peer that wants it signs a vote for the step to come naming the
   peers to remove and what becomes of their seats (``bot`` or ``bank``). A vote binds nobody:
   its voter goes on deciding the step if it can (the peer it named came back). A voter whose wish
   changes, or that sees a later round, votes again in the next round of the step.
2. ``COMMIT``: a peer that holds the same vote (step, round, state, targets, choice) from every
   present peer not named (and the voters outnumber those named; with two peers one vote, to the
   bank) commits to it. A commit binds: its signer decides nothing at that step but the change,
   unless a peer not named acked the step or voted in a later round (then it never commits to
   this round, so the change cannot be made there).
3. The change is made when every present peer not named committed. From then on, on every peer
   alike, the named peers no longer count, their seats pass to the present peer with the lowest
   index, and their chain secrets are rebuilt from the shares the others release.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from lanopoly._core import Game
from lanopoly.net.protocol import Kind, Vote


@dataclass(frozen=True)
class Change:
    """``removed`` stop playing from ``step`` on; ``controller`` plays their seats (``choice``)."""

    step: int
    removed: tuple[int, ...]
    controller: int
    choice: str
    commits: tuple[Vote, ...]


class Members:
    """The peers still playing, the controller of each seat, the votes seen and the changes made."""

    def __init__(self, peers: int, controllers: Sequence[int]) -> None:
        self.peers = peers
        self.present: list[int] = list(range(peers))
        self.controllers: list[int] = list(controllers)
        self.changes: list[Change] = []
        self.resigning: set[int] = set()
        """Seats removed to the bank: whenever they may resign, resigning is all they may do."""
        self._votes: dict[tuple[int, int, int], Vote] = {}
        self._commits: dict[tuple[int, int, int], Vote] = {}
        self._floor: dict[int, int] = {}
        self._others: tuple[tuple[int, int], list[int]] = ((-2, -1), [])
        """The first round still open at a step where a change was made (its rounds are used)."""

    def is_present(self, peer: int) -> bool:
        return peer in self.present

    def others(self, me: int) -> list[int]:
        if self._others[0] != (me, len(self.present)):
            self._others = ((me, len(self.present)), [p for p in self.present if p != me])
        return self._others[1]

    def seats_of(self, peer: int) -> list[int]:
        return [seat for seat, ctrl in enumerate(self.controllers) if ctrl == peer]

    def seats_of_any(self, peers: Sequence[int]) -> list[int]:
        return [seat for seat, ctrl in enumerate(self.controllers) if ctrl in peers]

    def take(self, vote: Vote, recorded: bool = False) -> bool:
        """File a verified vote or commit; False when it cannot count (its voter or a target is gone,
        or it names its voter). The first one of a slot is kept, but for a commit of a change that
        was made (``recorded``: from a change record): the record's commits prove the change, and
        one of them replaces another its signer signed in the same slot (an equivocator's)."""
        removed = vote.removed
        if vote.signer in removed or not self.is_present(vote.signer) or not all(map(self.is_present, removed)):
            return False
        box = self._commits if vote.kind is Kind.COMMIT else self._votes
        if recorded:
            box[vote.signer, vote.step, vote.round] = vote
        else:
            box.setdefault((vote.signer, vote.step, vote.round), vote)
        return True

    def _latest(self, box: dict[tuple[int, int, int], Vote], voter: int, step: int) -> Vote | None:
        if not box:
            return None
        found = [v for (p, s, _), v in box.items() if p == voter and s == step]
        return max(found, key=lambda v: v.round) if found else None

    def vote_of(self, voter: int, step: int) -> Vote | None:
        """``voter``'s vote of the latest round it voted in at ``step``."""
        return self._latest(self._votes, voter, step)

    def commit_of(self, voter: int, step: int) -> Vote | None:
        return self._latest(self._commits, voter, step)

    def held(self, step: int) -> list[Vote]:
        """Every vote and commit held for ``step`` (to pass on to a peer that may lack some)."""
        return [v for box in (self._votes, self._commits) for (_, s, _), v in sorted(box.items()) if s == step]

    def max_round(self, step: int) -> int:
        return max((r for (_, s, r) in self._votes if s == step), default=self._floor.get(step, 0))

    def pending(self) -> bool:
        return bool(self._votes or self._commits)

    def voters_for(self, vote: Vote) -> list[int] | None:
        """The present peers not named by ``vote``, if they may make its change (they outnumber those
        named; with two present peers, one removes the other to the bank)."""
        removed = vote.removed
        if not set(removed) <= set(self.present):
            return None
        voters = [p for p in self.present if p not in removed]
        if len(self.present) == 2:
            return voters if vote.choice == "bank" else None
        return voters if len(voters) > len(removed) else None

    def unanimous(self, vote: Vote) -> bool:
        """Whether every peer ``vote``'s change needs voted exactly it (same step, round, state, targets, choice)."""
        voters = self.voters_for(vote)
        if voters is None:
            return False
        for voter in voters:
            other = self._votes.get((voter, vote.step, vote.round))
            if other is None or other.proposal != vote.proposal:
                return False
        return True

    def decide(self, step: int, prev: bytes) -> Change | None:
        """The change every peer it needs committed to at ``step`` (on state ``prev``), if any."""
        if not self._commits:
            return None
        for (_, s, r), commit in sorted(self._commits.items()):
            if s != step or commit.prev != prev:
                continue
            voters = self.voters_for(commit)
            if voters is None:
                continue
            commits = [self._commits.get((v, step, r)) for v in voters]
            if all(c is not None and c.proposal == commit.proposal for c in commits):
                signed = tuple(c for c in commits if c is not None)
                return Change(step, commit.removed, min(voters), commit.choice, signed)
        return None

    def forget_before(self, step: int) -> None:
        """Votes and commits of steps before ``step`` can no longer make a change."""
        if any(s < step for _, s, _ in self._votes) or any(s < step for _, s, _ in self._commits):
            self._votes = {k: v for k, v in self._votes.items() if k[1] >= step}
            self._commits = {k: v for k, v in self._commits.items() if k[1] >= step}

    def apply(self, change: Change) -> list[int]:
        """Make ``change``; returns the seats that changed hands. Votes of that step on are dropped."""
        self.present = [p for p in self.present if p not in change.removed]
        seats = [s for s, c in enumerate(self.controllers) if c in change.removed]
        for seat in seats:
            self.controllers[seat] = change.controller
        if change.choice == "bank":
            self.resigning.update(seats)
        self.changes.append(change)
        self._floor[change.step] = max(self.max_round(change.step), max(c.round for c in change.commits)) + 1
        self._votes = {k: v for k, v in self._votes.items() if k[1] > change.step}
        self._commits = {k: v for k, v in self._commits.items() if k[1] > change.step}
        return seats

    def to_bank(self, seats: Sequence[int]) -> None:
        """Those seats resign after all (their peer's secret could not be rebuilt)."""
        self.resigning.update(seats)

    def refusal(self, game: Game, action: Mapping[str, Any]) -> str | None:
        """Why ``action`` may not be played although the engine allows it: its seat was removed to the
        bank and could resign now (every peer and ``verify`` hold its controller to that)."""
        seat = action.get("player")
        if seat not in self.resigning or action.get("type") == "resign":
            return None
        try:
            game.check({"type": "resign", "player": seat})
        except ValueError:
            return None  # it leads an auction or must place a building: that first
        return f"seat {seat} was removed to the bank: it may only resign"

    def check(self, game: Game, action: Mapping[str, Any]) -> None:
        """Raise ValueError with the reason unless ``action`` may be played now."""
        game.check(action)
        refusal = self.refusal(game, action)
        if refusal is not None:
            raise ValueError(refusal)
