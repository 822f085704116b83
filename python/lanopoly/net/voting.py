"""Replacing peers in a lockstep session: votes, and the change every peer makes when they agree.

``vote_replace`` (or ``replace_after``: automatically, for a peer away or silent that long) signs a
``VOTE`` for the step to come; when every present peer not named voted the same, every peer makes
the same change (``net/membership.py``): the named peers stop counting and the lowest present
peer takes their seats, to play them with a bot (choice ``bot``) or to resign them at their first
chance so that the bank takes their assets (choice ``bank``). The votes go into the saved record.

When three or more peers disagree only on the state and a strict majority agrees, that majority
plays on (``outvote``): it names the peers that diverged, writes a desync report and votes them out.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from lanopoly.net import secure
from lanopoly.net.framing import ConnectionClosed, FramedConnection, FrameError, pack
from lanopoly.net.membership import Change, target_mask, targets
from lanopoly.net.messages import MAX_HELD, VOTE_CHOICES, ActionMsg, Freeze, Vote
from lanopoly.net.outcome import FreezeInfo

if TYPE_CHECKING:
    from lanopoly.net.lockstep import LockstepSession

log = logging.getLogger("lanopoly.net.lockstep")  # the session's logger: log lines keep their name

WHAT = {"bot": "replaced by a bot", "bank": "voted out, the bank taking their assets"}
"""The choices of a vote, as the logs and notices say them."""


class Voting:
    """The votes of a session's peers to replace others by bots, and the changes they make."""

    def __init__(self, session: LockstepSession) -> None:
        self.session = session
        self.votes: dict[int, dict[int, Vote]] = {}
        """Each peer's recent votes (this one's too), by the step they are for: a peer moves its vote
        along as it plays steps the named peers had no part in, and another may still be a step behind."""
        self.intent: set[int] = set()
        """The peers this peer wants replaced (it votes for them at every step until it is done)."""
        self.choice = "bot"
        """What becomes of their seats: ``bot`` or ``bank`` (the latest ``vote_replace`` says, for all of them)."""
        self.held: list[tuple[int, ActionMsg]] = []
        """Moves of seats this peer votes to take from their controllers, signed and sent by another peer:
        a peer that made the change before us (it may get the seats); dispatched again once we make one."""

    def vote_replace(self, peer: int, choice: str = "bot") -> None:
        """Vote to have ``peer`` replaced from the next step on (see ``LockstepSession.vote_replace``)."""
        session = self.session
        if choice not in VOTE_CHOICES:
            raise ValueError(f"unknown choice {choice!r}: one of {', '.join(VOTE_CHOICES)}")
        if peer == session.me or not session.membership.is_active(peer):
            raise ValueError(f"peer {peer} is not another peer still playing")
        if len(session.others) < 2:
            raise ValueError("with two peers there is nobody to agree with: the game stops and can be resumed")
        self.intent.add(peer)
        self.choice = choice
        self.cast()

    def cast(self) -> None:
        """Sign and send this peer's vote for the step to come, if it wants a change and has not yet voted so."""
        if not self.intent:  # the usual case, after every step: nothing to vote on
            return
        session = self.session
        self.intent &= set(session.others)
        if not self.intent:
            return
        step, prev = session.game.step + 1, session.game.state_hash()
        mask = target_mask(sorted(self.intent))
        current = self.votes.get(session.me, {}).get(step)
        if current is not None and (current.prev_hash, current.target, current.choice) == (prev, mask, self.choice):
            return
        vote = Vote.signed(session.mesh.key, session.game_id, step, prev, session.me, mask, self.choice)
        self.keep(vote)
        for (_, s), box in session._inbox.items():  # what they sent for those steps before we voted: dropped too
            if s >= step:
                for peer in self.intent:
                    box.pop(peer, None)
        names = ", ".join(session.peer_label(p) for p in sorted(self.intent))
        log.warning("voting to have %s %s from step %d", names, WHAT[self.choice], step)
        payload = pack(vote.to_wire())
        for peer in session.others:
            if peer not in self.intent and peer not in session._lost:
                with contextlib.suppress(ConnectionClosed, FrameError):
                    session.mesh.links[peer].send_payload_nowait(payload)
        self.maybe_change()

    def voted_out(self, peer: int, step: int) -> bool:
        """Whether this peer votes ``peer`` out from ``step`` or before: then nothing of it counts from there on.

        That keeps a peer that votes from taking a step the others would take differently once the
        change is made; it waits for the change (or the deadline).
        """
        mine = self.votes.get(self.session.me, {})
        return bool(mine) and peer in self.intent and step >= min(mine)

    def replaced_from(self, peer: int, step: int) -> bool:
        """Whether ``peer`` was replaced by a change made at ``step`` or before."""
        return any(peer in c.removed and c.step <= step for c in self.session.membership.changes)

    def take(self, peer: int, vote: Vote) -> None:
        """File a vote received from ``peer``: it must be its own, signed by it, for peers still playing."""
        session = self.session
        if vote.voter != peer or not secure.verify(session._keys[peer], vote.signature, vote.signed_data):
            session.fault(peer, "forged_vote", "sent a vote that is not its own signed vote")
            return
        named = targets(vote)
        if peer in named:
            session.fault(peer, "bad_vote", "voted to replace itself")
            return
        if not all(session.membership.is_active(p) for p in named):
            log.debug("%s votes to replace %s, already replaced", session.peer_label(peer), list(named))
            return
        self.keep(vote)
        who = session.peer_label(peer)
        log.warning("%s votes to have %s %s from step %d", who, list(named), WHAT[vote.choice], vote.step)
        self.maybe_change()

    def take_change(self, link: int, votes: Sequence[Vote]) -> None:
        """The votes of a change ``link`` made while its own vote could not reach us (its SYNC, see
        ``CatchUp.adopt``): each must be signed by its voter; filed like votes received, so the change
        is made only if they agree here too (for the step to come, from our state)."""
        session = self.session
        keys = session._keys
        for vote in votes:
            signed = vote.voter < len(keys) and secure.verify(keys[vote.voter], vote.signature, vote.signed_data)
            if vote.game_id != session.game_id or not signed:
                session.fault(link, "forged_vote", "passed on a vote not signed by its voter")
                return
        active = session.membership.is_active
        for vote in votes:
            named = targets(vote)
            if vote.voter != session.me and active(vote.voter) and vote.voter not in named and all(map(active, named)):
                self.keep(vote)
        self.maybe_change()

    def hold(self, link: int, message: ActionMsg) -> None:
        """Keep a move signed and sent by ``link`` for a seat whose controller we vote out: ``link`` may
        have made the change already and play the seat; it is checked again once we make the change."""
        log.info("holding %s's move for seat %d until the change is made", self.session.peer_label(link), message.seat)
        self.held = [*self.held, (link, message)][-MAX_HELD:]

    def keep(self, vote: Vote) -> None:
        """File a vote by its step, keeping each voter's three latest."""
        mine = self.votes.setdefault(vote.voter, {})
        mine[vote.step] = vote
        for old in sorted(mine)[:-3]:
            del mine[old]

    def at(self, step: int) -> dict[int, Vote]:
        """Each voter's vote for ``step``, if it has one."""
        return {p: votes[step] for p, votes in self.votes.items() if step in votes}

    def maybe_change(self) -> None:
        """Make the change the votes agree on for the step to come (or the one just applied), if they do.

        A change from step s may find this peer past s already (acking it): s was then decided
        without the peers replaced (we ignore them from s on), so the state is the same either
        way; only whom we wait for changes.
        """
        session = self.session
        step = session.game.step
        change = session.membership.decide(self.at(step + 1), step + 1, session.game.state_hash())
        if change is None and step >= 1:
            before = session.log.hashes[-2] if step >= 2 else session._initial_hash
            change = session.membership.decide(self.at(step), step, before)
        if change is not None:
            self.make_change(change)

    def make_change(self, change: Change) -> None:
        """Replace the peers of ``change`` (the same on every peer): their seats pass on, their links close.

        The new controller plays the seats with a bot; with the choice ``bank`` it resigns them
        first, at their first chance (``Membership.resigning``), the bot playing only what
        must be played before.
        """
        session = self.session
        seats = session.membership.apply(change)
        session.net_record.record_change(change)
        if change.controller == session.me:
            for seat in seats:
                session.policies[seat] = session.bot_factory()
        voters = ", ".join(session.peer_label(v.voter) for v in change.votes)
        notice = pack(
            Freeze(
                session.game_id,
                change.step,
                f"{WHAT[change.choice]} from step {change.step} on the votes of {voters}",
            ).to_wire()
        )
        for peer in change.removed:
            self.intent.discard(peer)
            session._dropped.pop(peer, None)
            link = session.mesh.links.get(peer)
            if link is not None:
                if peer not in session._lost:
                    with contextlib.suppress(ConnectionClosed, FrameError):
                        link.send_payload_nowait(notice)  # so that it stops, knowing why
                asyncio.get_running_loop().create_task(self._close_later(link))
            session._lost.pop(peer, None)
        self.votes = {}  # a vote still wanted is cast again for the step to come
        if session._remote_freeze is not None and session._remote_freeze[0] in change.removed:
            session._remote_freeze = None
        names = ", ".join(session.peer_label(p) for p in change.removed)
        seat_names = ", ".join(session.game.names[s] for s in seats)
        log.warning(
            "from step %d %s replaced: %s %s on %s",
            change.step,
            names,
            seat_names,
            "played by a bot" if change.choice == "bot" else "resigned (the bank takes their assets)",
            session.peer_label(change.controller),
        )
        held, self.held = self.held, []
        for peer, message in held:  # moves of the seats that changed hands, sent before we knew: checked again
            session.dispatch(peer, message)
        session._wake.set()

    @staticmethod
    async def _close_later(link: FramedConnection) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(link.writer.drain(), 1)
        await link.close()

    def outvote(self, diverged: list[int], step: int, hashes: dict[int, tuple[bytes, bytes]]) -> None:
        """This peer is in a strict majority of three or more that agrees at ``step``: the game goes on without
        the peers that diverged (they freeze on their side); the majority votes them out, a report is written."""
        session = self.session
        names = ", ".join(session.peer_label(p) for p in diverged)
        what = "action" if len({a for a, _ in hashes.values()}) > 1 else "state"
        reason = f"desync at step {step}: {what} hashes differ; {names} diverged from the majority, which plays on"
        for peer in diverged:
            session.fault(peer, "diverged", f"announced another state at step {step}; replaced by a bot")
            if session._remote_freeze is not None and session._remote_freeze[0] == peer:
                session._remote_freeze = None
        info = FreezeInfo(step, reason, tuple(diverged), dict(hashes))
        if session.report_dir is not None:
            asyncio.get_running_loop().create_task(session.report_writer(info))
        self.intent.update(diverged)
        self.choice = "bot"  # the same on every peer of the majority, whatever their options
        self.cast()
