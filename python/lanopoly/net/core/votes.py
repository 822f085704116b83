"""This peer's ballot: whom it wants removed, and the vote (then the commit) it signs for that.

A peer wants another removed for good (``condemned``: the person asked, the peer misbehaved, or it
diverged from the majority) or for now (``auto``: away or silent too long while awaited, with
``replace_after``). For the step to come it votes to remove all of them (``plan``), in a new round
whenever what it wants changed, and commits once every peer the change needs voted exactly the
same (``commits``). A commit binds this peer to make the change at that step (``bound``): it
decides nothing else there, until a peer the change needs shows that it cannot be made.

The ballot decides; the session signs, sends and journals (it holds the key and the links).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from dataclasses import dataclass

from lanopoly.net import protocol as p8
from lanopoly.net.core.members import Members
from lanopoly.net.core.steps import Mine
from lanopoly.net.protocol import Vote


@dataclass(frozen=True)
class Plan:
    """The vote to sign for ``step``: remove ``removed`` on state ``prev``, their seats to ``choice``."""

    step: int
    prev: bytes
    round: int
    removed: tuple[int, ...]
    choice: str


class Ballot:
    """Whom this peer ``me`` wants removed, and what it voted and committed to (in ``members``)."""

    def __init__(self, me: int, members: Members, mine: Mine, choice: str) -> None:
        self._me = me
        self._members = members
        self._signed = mine
        self._condemned: set[int] = set()
        self._auto: set[int] = set()
        self._choice = choice
        """Where the removed peers' seats go (``bot`` or ``bank``), as last asked."""
        self.outvoting = 0
        """The step whose acks showed a minority diverged: the majority votes it out, then agrees."""

    # ----------------------------------------------------------------------------- what it wants

    @property
    def condemned(self) -> frozenset[int]:
        """Peers this peer wants removed for good: asked for, misbehaved, or diverged from the majority."""
        return frozenset(self._condemned)

    def is_condemned(self, peer: int) -> bool:
        return peer in self._condemned

    def is_auto(self, peer: int) -> bool:
        """Whether this peer wants ``peer`` removed for now (away or silent too long while awaited)."""
        return peer in self._auto

    def condemn(self, peers: Iterable[int], choice: str | None = None) -> None:
        """Want ``peers`` removed for good (their seats to ``choice``, when it is said)."""
        self._condemned.update(peers)
        if choice is not None:
            self._choice = choice

    def outvote(self, step: int, diverged: Iterable[int]) -> None:
        """The acks of ``step`` showed ``diverged`` left the majority: vote them out (seats to bots)."""
        self.condemn(diverged, "bot")
        self.outvoting = step

    def want_out(self, peer: int) -> None:
        """``peer`` was away or silent too long while awaited: remove it for now."""
        self._auto.add(peer)

    def back(self, peer: int) -> None:
        """``peer`` linked in again: it is no longer wanted out for being away."""
        self._auto.discard(peer)

    def removed(self, peer: int) -> None:
        """A change removed ``peer``: nothing more to want of it."""
        self._condemned.discard(peer)
        self._auto.discard(peer)

    # ----------------------------------------------------------------------------- votes and commits

    def bound(self, step: int, acked: Collection[int]) -> Vote | None:
        """This peer's commit to a change at ``step``, while it binds: no peer the change needs acked
        the step without having committed to the same change (``acked``: who acked), nor voted in a
        later round (either proves the change cannot be made there). A peer's commit comes before
        its ack on its link, so an ack after the same commit may be that of a peer that made the
        change: its other commits exist, and this peer waits for them (soak seed 935344: unbound by
        such an ack, a peer played the step without the change the others had made)."""
        members = self._members
        commit = members.commit_of(self._me, step)
        if commit is None:
            return None
        needed = members.voters_for(commit) or []
        if any(p in needed and not self._committed_alike(p, commit) for p in acked):
            return None
        if any((v := members.vote_of(p, step)) is not None and v.round > commit.round for p in needed):
            return None
        return commit

    def _committed_alike(self, peer: int, commit: Vote) -> bool:
        """Whether ``peer``'s latest commit at ``commit``'s step is the same change."""
        theirs = self._members.commit_of(peer, commit.step)
        return theirs is not None and theirs.proposal == commit.proposal

    def intent(self, others: Collection[int]) -> tuple[int, ...]:
        """Whom this peer wants removed among ``others`` (the peers still playing); it forgets the rest."""
        if not self._condemned and not self._auto:
            return ()
        self._condemned &= set(others)
        self._auto &= set(others)
        return tuple(sorted(self._condemned | self._auto))

    def plan(self, step: int, prev: bytes, targets: tuple[int, ...]) -> Plan | Vote | None:
        """What to vote for ``step`` on state ``prev`` to remove ``targets``: a new vote (in a round of
        its own when what this peer wants changed, or to catch up with a later round), this peer's
        vote as it stands (``Vote``: commit to it once unanimous), or None (no round left)."""
        members = self._members
        choice = "bank" if len(members.present) == 2 else self._choice
        mine = members.vote_of(self._me, step)
        top = members.max_round(step)
        if mine is None:
            round_ = top
        elif (mine.removed, mine.choice, mine.prev) != (targets, choice, prev):
            round_ = max(top, mine.round) + 1
        elif mine.round < top:
            round_ = top
        else:
            return mine
        while self._signed.get(f"vote{round_}", step) is not None:  # a vote signed before a restart holds its round
            round_ += 1
        if round_ > p8.MAX_ROUND:  # a peer voted in the last round already: no new vote at this step
            return None
        return Plan(step, prev, round_, targets, choice)

    def commits(self, vote: Vote, acked: Collection[int]) -> bool:
        """Whether to commit to ``vote`` now: every peer its change needs voted exactly it, and this
        peer has no commit binding it at that step nor one signed in that round already."""
        if self._members.commit_of(self._me, vote.step) is not None and self.bound(vote.step, acked) is not None:
            return False
        return self._signed.get(f"commit{vote.round}", vote.step) is None and self._members.unanimous(vote)
