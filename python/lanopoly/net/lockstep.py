"""The lockstep session: one total order of inputs, a state hash check with every peer after every step.

Step k (the k-th input) goes like this on every peer:

- At a chance node every peer reveals its next hash-chain link (``REVEAL``), checked against its
  previous one; the seed is ``SHA-256(tag, game id, k, previous state hash, reveals in peer order)``
  and the outcome is ``game.outcome_from_bytes(seed)``, with the engine's exact odds.
- Otherwise, if the acks of step k-1 carried out-of-turn actions ("interjections", below), one of
  them is step k's input, picked by the fixed rule of ``order``: the first valid one in seat order
  after the seat to act. Every peer holds the same acks, so every peer picks the same one with no
  extra message.
- Otherwise the seat that must act (``game.current_player``) is played by the peer that controls it
  in the start record; that peer alone broadcasts the input (``ACTION``, bound to game id, k and the
  previous state hash, signed with its key). An action from any other peer is rejected, logged and
  counted as a fault. An illegal one (the engine's ``check`` refuses it) is never applied: it is a
  fault, and the session freezes at once naming its sender, since an honest peer checks its move
  before sending it and waiting for another could not be told apart from a peer sending different
  moves to different peers.
- ACTION and REVEAL are checked on arrival: the signature must verify with the key the start record
  lists for the seat's controller (for a reveal: for the revealing peer), and the message must
  come on that peer's own link. A signature by another peer's key is attributed to that signer (it
  is proof of who made it); one no key verifies is attributed to the link it came on. A correctly
  signed message on someone else's link, or for a step already played, is a replay: rejected and
  attributed to the link that sent it.
- Every peer applies the input, records it in the game log and broadcasts ``ACK`` (k, hash of the
  input, resulting state hash), signed. Step k+1 starts only when every ack agrees with its own.

When three or more peers disagree only on the state and a strict majority agrees, that majority
plays on: it names the peers that diverged, writes a desync report and votes them out. Any other
disagreement freezes the session at that step: when the inputs differ, the evidence round looks
for proof of who equivocated; proven equivocators are blamed; otherwise the peers whose
hashes differ from the majority (or, with no majority, from this peer) are named, a ``FREEZE`` is
broadcast and a desync report is written. A peer that sends a malformed message, an illegal input
or a bad reveal, or stays silent past the step deadline, also freezes the session and is named.

The session's other concerns have modules of their own, each with its part of the story:

- ``interjections``: out-of-turn actions (which ride on the acks, and which one a step takes);
- ``evidence_round``: equivocation, and the ``EVIDENCE`` round after the inputs of a step diverged;
- ``catchup``: drops and rejoins (relaying for a dropped peer, ``REJOIN``/``SYNC``, resuming);
- ``reconnect``: dialing a peer that is away, when it falls to this peer (the higher index);
- ``voting``: replacing peers by bots (``VOTE``, the change every peer makes, the majority's outvote);
- ``outcome``: the result and freeze types, and ``action_hash``.

The game log is saved continuously (atomically, off the event loop) so a
game can be replayed offline; with it goes a network record (the start record, every peer's
signature of it, the signed action or reveals that decided each step), so that ``lanopoly verify``
can check authorship and fairness offline too.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Mapping
from pathlib import Path
from typing import Any

from lanopoly._core import Game, Rules
from lanopoly.bots import Action, Policy, SimpleBot
from lanopoly.log import GameLog
from lanopoly.net import secure
from lanopoly.net.catchup import CatchUp
from lanopoly.net.chain import ChainExhausted, ChainVerifier, step_seed
from lanopoly.net.desync import build_report, report_path, write_atomic
from lanopoly.net.evidence_round import EvidenceRound
from lanopoly.net.framing import ConnectionClosed, FramedConnection, FrameError, pack
from lanopoly.net.handover import Handovers
from lanopoly.net.interjections import Interjections
from lanopoly.net.membership import Membership
from lanopoly.net.mesh import Mesh
from lanopoly.net.messages import (
    Ack,
    ActionMsg,
    Bye,
    Evidence,
    Freeze,
    Handover,
    Kind,
    Message,
    ProtocolError,
    Relay,
    Reveal,
    Vote,
    parse,
)
from lanopoly.net.outcome import ACTION_TAG, Diverged, Fault, FreezeInfo, Frozen, SessionResult, action_hash
from lanopoly.net.reconnect import Reconnects
from lanopoly.net.verify import NetworkRecord, StepChecker
from lanopoly.net.voting import Voting

__all__ = [
    "ACTION_TAG",
    "FREEZE_GRACE",
    "Diverged",
    "EventsCallback",
    "Fault",
    "FreezeInfo",
    "Frozen",
    "LockstepSession",
    "SessionResult",
    "action_hash",
]

log = logging.getLogger(__name__)

FREEZE_GRACE = 1.0
"""Seconds a peer keeps waiting for the current step's messages after another peer froze."""


EventsCallback = Callable[[Game, list[dict[str, Any]]], None]


class LockstepSession:
    """Plays one game over an agreed mesh. ``policies`` choose the inputs of the seats this peer controls.

    A policy with an ``interject(game, seat, legal)`` method (see ``lanopoly.bots.Interjecting``) is
    also asked, after every step, for an out-of-turn action of its seat; ``interject(action)``
    queues one (the console's way).
    """

    def __init__(
        self,
        mesh: Mesh,
        policies: Mapping[int, Policy],
        *,
        log_path: Path | None = None,
        report_dir: Path | None = None,
        step_timeout: float = 30.0,
        save_interval: float = 0.5,
        max_steps: int = 200_000,
        on_events: EventsCallback | None = None,
        rejoin_timeout: float = 0.0,
        replace_after: float | None = None,
        bot_factory: Callable[[], Policy] = SimpleBot,
    ) -> None:
        self.mesh = mesh
        start = mesh.start
        self.me = mesh.me
        self.game_id = start.game_id
        self.membership = Membership(len(start.peers), start.controllers)
        self.peer_names = [p.name for p in start.peers]
        mine = {seat for seat, ctrl in enumerate(start.controllers) if ctrl == mesh.me}
        if set(policies) != mine:
            raise ValueError(f"policies for seats {sorted(policies)} but this peer controls {sorted(mine)}")
        self.policies = dict(policies)
        self.game = Game(list(start.names), board=start.board, rules=Rules(**start.rules), seed=0)
        self.log = GameLog.start(self.game)
        self._initial_hash = self.game.state_hash()
        self.log_path = log_path
        self.report_dir = report_dir
        self.step_timeout = step_timeout
        self.save_interval = save_interval
        self.max_steps = max_steps
        self.on_events = on_events
        self.rejoin_timeout = rejoin_timeout
        self.replace_after = replace_after
        self.bot_factory = bot_factory

        self.faults: list[Fault] = []
        self._verifiers = {p: ChainVerifier(start.peers[p].anchor, start.chain_length) for p in self.others}
        self._keys = [secure.load_public(p.sign_key) for p in start.peers]
        self._chance_index = 0
        self._step = 1
        self._inbox: dict[tuple[Kind, int], dict[int, Message]] = {}
        self._acks: dict[int, dict[int, Ack]] = {}
        """Every peer's ack (this peer's too) of the last two steps: the interjections and the evidence."""
        self._applied: dict[int, ActionMsg] = {}
        """The signed move this peer applied at each of the last two steps (evidence)."""
        self._byes: dict[int, Bye] = {}
        self._lost: dict[int, str] = {}
        self._dropped: dict[int, float] = {}
        self._last_rejoin = 0.0
        self._outbox: dict[int, list[bytes]] = {}
        self._remote_freeze: tuple[int, Freeze] | None = None
        self._freeze_seen: float | None = None
        self._wake = asyncio.Event()
        self._readers: list[asyncio.Task[None]] = []
        self._last_save = 0.0
        self._save_task: asyncio.Task[None] | None = None
        self._unsaved = False
        """A save was skipped (too soon after the last, or while one is written): save later."""
        self._save_later: asyncio.TimerHandle | None = None
        self.net_record = NetworkRecord(mesh.me, mesh.start_payload, mesh.start_sigs)
        self._step_signed: list[ActionMsg | Reveal] = []
        # The session's other concerns, each with its own state and module (see the module docstring).
        self.interjections = Interjections(self)
        self.handovers = Handovers(self)
        self.evidence = EvidenceRound(self)
        self.voting = Voting(self)
        self.catch_up = CatchUp(self)
        self.reconnects = Reconnects(self)
        mesh.listener.set_handler(self.catch_up.on_connection)

    # ----------------------------------------------------------------------------- helpers

    @property
    def controllers(self) -> list[int]:
        """The peer playing each seat (it changes when a peer is replaced)."""
        return self.membership.controllers

    @property
    def others(self) -> list[int]:
        """The other peers still playing."""
        return self.membership.others(self.me)

    def peer_label(self, peer: int) -> str:
        return f"peer {peer} ({self.peer_names[peer]})"

    def fault(self, peer: int, kind: str, detail: str) -> None:
        """Record and log a rejected message; the game goes on."""
        fault = Fault(self._step, peer, kind, detail)
        self.faults.append(fault)
        log.warning("step %d: %s: %s", self._step, self.peer_label(peer), detail)

    async def broadcast(self, message: Message) -> None:
        """Send one message to every other peer (encoded once)."""
        payload = pack(message.to_wire())
        await self.send_each({p: payload for p in self.others})

    async def send_each(self, payloads: Mapping[int, bytes]) -> None:
        """Send a payload per peer; a broken link is noted (the step wait then names the peer)."""
        for peer, payload in payloads.items():
            self._outbox.setdefault(peer, []).append(payload)
            if peer in self._lost:
                continue
            try:
                self.mesh.links[peer].send_payload_nowait(payload)
            except ConnectionClosed as e:
                self.disconnected(peer, f"disconnected ({e})")
            except FrameError as e:
                self._lost.setdefault(peer, str(e))
        for peer in payloads:
            if peer in self._lost:
                continue
            link = self.mesh.links[peer]
            try:
                await link.writer.drain()
            except (ConnectionError, OSError) as e:
                self.disconnected(peer, f"disconnected (connection broke: {e})")

    def disconnected(self, peer: int, reason: str) -> None:
        """``peer``'s connection is gone: wait for it to rejoin (if allowed), passing on what it last said."""
        if peer in self._byes or not self.membership.is_active(peer):
            return
        self._lost.setdefault(peer, reason)
        if self.rejoin_timeout > 0 and peer not in self._dropped:
            self._dropped[peer] = time.monotonic()
            log.warning("%s dropped; waiting up to %g s for it to rejoin", self.peer_label(peer), self.rejoin_timeout)
            self.catch_up.relay_from(peer)
            self.reconnects.start(peer)
        self._wake.set()

    # ----------------------------------------------------------------------------- receiving

    async def _read(self, peer: int, link: FramedConnection | None = None) -> None:
        """Read ``peer``'s messages from ``link`` (by default its current link) until it closes."""
        link = link if link is not None else self.mesh.links[peer]
        while True:
            try:
                _, raw = await link.recv_raw()
                message = parse(raw)
            except ConnectionClosed as e:
                if self.mesh.links.get(peer) is not link or not self.membership.is_active(peer):
                    return  # an old link of a peer that has rejoined since, or of one replaced
                self.disconnected(peer, f"disconnected ({e})")
                self._wake.set()
                return
            except (FrameError, ProtocolError) as e:
                self.fault(peer, "malformed", f"malformed message, closing its connection: {e}")
                self._lost.setdefault(peer, f"sent a malformed message: {e}")
                self._wake.set()
                await link.close()
                return
            self.dispatch(peer, message)

    def dispatch(self, peer: int, message: Message) -> None:
        """File a received message for the step loop, or reject it (logged as a fault)."""
        if not isinstance(message, ActionMsg | Reveal | Ack | Freeze | Bye | Evidence | Vote | Relay | Handover):
            self.fault(peer, "unexpected", f"unexpected {type(message).__name__} during the game")
            return
        if message.game_id != self.game_id:
            self.fault(peer, "wrong_game", f"{type(message).__name__} for another game")
            return
        if not self.membership.is_active(peer):
            log.debug("ignoring a %s from %s, replaced", type(message).__name__, self.peer_label(peer))
            return
        if isinstance(message, Vote):
            self.voting.take(peer, message)
            return
        if isinstance(message, Relay):
            self.catch_up.take_relay(peer, message)
            return
        if isinstance(message, Handover):
            if self.voting.voted_out(peer, message.action.step):
                return
            if message.kind is Kind.OFFER:
                self.handovers.take_offer(peer, message)
            else:
                self.handovers.take_forward(peer, message)
            return
        if isinstance(message, ActionMsg | Reveal | Ack) and self.voting.voted_out(peer, message.step):
            log.debug("ignoring %s's message for step %d: we vote it out", self.peer_label(peer), message.step)
            return
        if isinstance(message, Freeze) and peer in self.voting.intent:
            log.warning("%s froze (%s); we are replacing it", self.peer_label(peer), message.reason)
            return
        if isinstance(message, Freeze):
            if self._remote_freeze is None:
                self._remote_freeze = (peer, message)
            self._wake.set()
            return
        if isinstance(message, Bye):
            self._byes[peer] = message
            self._wake.set()
            return
        if isinstance(message, Evidence):
            self.evidence.take(peer, message)
            return
        if isinstance(message, Ack) and message.peer != peer:
            self.fault(peer, "replayed", f"sent an ACK of {self.peer_label(message.peer)} on its own link (a replay)")
            return
        kind = (
            Kind.ACTION if isinstance(message, ActionMsg) else Kind.REVEAL if isinstance(message, Reveal) else Kind.ACK
        )
        if message.step > self._step + 1:
            self.fault(peer, "wrong_step", f"{kind.name} for step {message.step} while at step {self._step}")
            return
        if message.step < self._step and (kind is Kind.ACK or self.catch_up.resuming):
            # A late ack changes nothing; while this peer resumes, the others repeat what it missed.
            log.debug("ignoring %s of step %d from %s (at step %d)", kind.name, message.step, peer, self._step)
            return
        if isinstance(message, ActionMsg | Reveal) and not self.check_signed(peer, message):
            return
        if message.step < self._step:
            self.fault(peer, "replayed", f"{kind.name} for step {message.step}, already played (a replay)")
            return
        if isinstance(message, ActionMsg):
            seat = message.seat
            if message.action.get("player") != seat:
                self.fault(peer, "forged_action", f"action for seat {seat} names player {message.action.get('player')}")
                return
        box = self._inbox.setdefault((kind, message.step), {})
        if box.get(peer) == message:
            return  # the same message again (a peer repeating itself after a rejoin): nothing new
        if peer in box:
            self.fault(peer, "duplicate", f"second {kind.name} for step {message.step} (ignored)")
            return
        box[peer] = message
        self._wake.set()

    def signed_by(self, peer: int, message: ActionMsg | Reveal) -> bool:
        """Whether ``peer``'s key (from the start record) signed exactly this message's body."""
        return secure.verify(self._keys[peer], message.signature, message.signed_data)

    def check_signed(self, link: int, message: ActionMsg | Reveal) -> bool:
        """Check the signature and origin of an ACTION or REVEAL received on ``link``; fault and False if bad.

        The expected signer is the controller of the action's seat, or the revealing peer. Any
        rejection names a peer: the signer when another peer's key verifies (a signature proves
        authorship, whichever link it came on), else the link.
        """
        kind = "ACTION" if isinstance(message, ActionMsg) else "REVEAL"
        if isinstance(message, ActionMsg):
            if message.seat >= len(self.controllers):
                self.fault(link, "forged_action", f"sent an action for seat {message.seat}, which does not exist")
                return False
            owner = self.controllers[message.seat]
            what = f"an action for seat {message.seat}, which is controlled by {self.peer_label(owner)}"
        else:
            if message.peer >= len(self._keys):
                self.fault(link, "forged_reveal", f"sent a reveal for peer {message.peer}, which does not exist")
                return False
            owner = message.peer
            what = f"a reveal for {self.peer_label(owner)}"
        if self.signed_by(owner, message):
            if owner != link:
                by = self.peer_label(owner)
                self.fault(link, "replayed", f"sent {kind} of step {message.step} signed by {by} (a replay)")
                return False
            return True
        signer = next((p for p in range(len(self._keys)) if p != owner and self.signed_by(p, message)), None)
        if signer == link and isinstance(message, ActionMsg) and self.voting.voted_out(owner, message.step):
            self.voting.hold(link, message)  # its seat may be the signer's once the change we vote for is made
            return False
        if signer is None:
            self.fault(link, "bad_signature", f"sent {what} with a signature no peer's key verifies")
        else:
            via = "" if signer == link else f" (sent by {self.peer_label(link)})"
            kind_name = "forged_action" if isinstance(message, ActionMsg) else "forged_reveal"
            self.fault(signer, kind_name, f"signed {what}{via}")
        return False

    async def collect(
        self, kind: Kind, step: int, peers: list[int], what: str, diverged: Callable[[], str | None] | None = None
    ) -> dict[int, Message]:
        """Wait until each of ``peers`` has sent its ``kind`` message for ``step``; freeze on loss or timeout.

        When another peer has frozen the session, keep waiting a moment (``FREEZE_GRACE``) for the
        messages of this step so that this peer makes its own diagnosis (a desync names the peer
        that diverged) instead of only repeating "someone froze". Raises ``Diverged`` when another
        peer sent evidence (it saw the inputs diverge) or ``diverged`` returns a reason.
        """
        deadline = time.monotonic() + self.step_timeout
        while True:
            self._wake.clear()
            peers = [p for p in peers if self.membership.is_active(p)]
            box = self._inbox.get((kind, step), {})
            if all(p in box for p in peers):
                return {p: box[p] for p in peers}
            reported = self.evidence.reported()
            if reported is not None:
                raise Diverged(reported)
            reason = diverged() if diverged is not None else None
            if reason is not None:
                raise Diverged(FreezeInfo(step, reason))
            missing = [p for p in peers if p not in box]
            now = time.monotonic()
            left = deadline - now
            if self._remote_freeze is not None:
                if self._freeze_seen is None:
                    self._freeze_seen = now
                left = min(left, self._freeze_seen + FREEZE_GRACE - now)
                if left <= 0 or all(p in self._lost for p in missing):
                    raise self.frozen_by_peer(step)
            else:
                left = self._check_missing(step, what, missing, deadline, now)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(left, 0.001))

    def frozen_by_peer(self, step: int) -> Frozen:
        """The freeze another peer announced (a ``FREEZE`` received), as this peer's own at ``step``."""
        assert self._remote_freeze is not None
        peer, freeze = self._remote_freeze
        return Frozen(FreezeInfo(step, f"{self.peer_label(peer)} froze the session: {freeze.reason}"))

    def _check_missing(self, step: int, what: str, missing: list[int], deadline: float, now: float) -> float:
        """Freeze if a missing peer is gone for good or late; else return how long to wait for them.

        A peer that dropped (its connection closed) is waited for up to ``rejoin_timeout`` seconds
        (``waiting_for`` says who and since when); one that broke the protocol is not. While a peer
        is away there is no step deadline (everyone may be waiting for it); after a rejoin everyone
        gets a full step timeout to catch up.
        """
        gone = [p for p in missing if p in self._lost and p not in self._dropped]
        if gone:
            reasons = "; ".join(f"{self.peer_label(p)} {self._lost[p]}" for p in gone)
            raise Frozen(FreezeInfo(step, f"waiting for {what}: {reasons}", tuple(gone)))
        away = [p for p in missing if p in self._dropped]
        if self.replace_after is not None and len(self.others) >= 2:
            due = [p for p in away if p not in self.voting.intent and now >= self._dropped[p] + self.replace_after]
            for p in due:
                self.vote_replace(p, self.mesh.start.replace_with)
            if due:
                return 0.001  # the vote may have made the change already: look again
        expired = [p for p in away if now >= self._dropped[p] + self.rejoin_timeout]
        if expired:
            names = ", ".join(self.peer_label(p) for p in expired)
            reason = f"waiting for {what}: {names} dropped and did not come back within {self.rejoin_timeout:g} s"
            raise Frozen(FreezeInfo(step, reason, tuple(expired)))
        if self._dropped:  # the others may be waiting for the dropped peer too: no step deadline meanwhile
            waits = [since + self.rejoin_timeout - now for since in self._dropped.values()]
            if self.replace_after is not None:
                waits += [
                    since + self.replace_after - now
                    for p, since in self._dropped.items()
                    if p not in self.voting.intent
                ]
            return max(min(waits), 0.001)
        until = max(deadline, self._last_rejoin + self.step_timeout)
        silent = [p for p in missing if p not in self.voting.intent]
        if now >= until and silent and self.replace_after is not None and len(self.others) >= 2:
            for p in silent:  # silent past the deadline: vote it out, and wait one more deadline for the others
                self.vote_replace(p, self.mesh.start.replace_with)
            self._last_rejoin = now
            return self.step_timeout
        if now >= until:
            names = ", ".join(self.peer_label(p) for p in missing)
            raise Frozen(FreezeInfo(step, f"no {what} from {names} within {self.step_timeout:g} s", tuple(missing)))
        return until - now

    def lost_peers(self) -> dict[int, str]:
        """Peers whose connection is gone (dropped and waited for, or cut for a fault): index -> why."""
        return dict(self._lost)

    def repeats_move(self, step: int) -> bool:
        """Whether this peer will repeat, at ``step``, a move it sent before it dropped (so nobody is asked)."""
        return (Kind.ACTION, step) in self.catch_up.held_own

    def waiting_for(self) -> dict[int, float]:
        """Peers that dropped and are waited for: peer index -> seconds since it dropped."""
        now = time.monotonic()
        return {p: now - since for p, since in sorted(self._dropped.items())}

    # ----------------------------------------------------------------------------- out-of-turn actions

    def interject(self, action: Action) -> None:
        """Queue an out-of-turn action of a seat this peer controls; it goes out with the next ack.

        Checked now against the current state: raises ``IllegalAction`` with the reason (and queues
        nothing) if the seat is not this peer's, is the seat to act (its move is played in turn), or
        the engine refuses the action. Queued actions are sent in order, one per step, each checked
        again against the state of its step: one that is no longer legal then (or whose seat is now
        the one to act) is dropped and logged. Whether it is taken is decided by ``order``.
        """
        self.interjections.interject(action)

    @property
    def queued(self) -> list[Action]:
        """Out-of-turn actions queued with ``interject`` and not sent yet."""
        return list(self.interjections.queue)

    def next_interjection(self) -> tuple[int, Action] | None:
        """The out-of-turn action this peer offers for the next step (seat, action), or None.

        None when the next step cannot take one (game over, chance node, too many in a row). The
        queue of ``interject`` comes first; then each seat this peer controls, in seat order after
        the seat to act, whose policy has ``interject``. Whatever is offered is legal now.
        """
        return self.interjections.offer()

    @property
    def interjected(self) -> Counter[str]:
        """Steps decided by an out-of-turn action, by action type."""
        return self.interjections.taken

    @property
    def interjectors(self) -> set[int]:
        """The peers whose out-of-turn actions were taken."""
        return self.interjections.interjectors

    @property
    def contested(self) -> int:
        """Steps for which several peers interjected at once (one was taken, the others dropped)."""
        return self.interjections.contested

    # ----------------------------------------------------------------------------- replacing peers

    def vote_replace(self, peer: int, choice: str = "bot") -> None:
        """Vote to replace ``peer`` from the next step on (the others must all agree, on the choice too).

        ``choice`` "bot": a bot on the lowest present peer plays its seats; "bank": that peer
        resigns them at their first chance and the bank takes their assets. The vote is repeated,
        for the step then to come, until the change is made or the peer is back (a rejoin cancels
        it). ValueError if ``peer`` is not another peer still playing, or for an unknown choice.
        """
        self.voting.vote_replace(peer, choice)

    # ----------------------------------------------------------------------------- rejoining

    def replay(self, step: int, signed: list[ActionMsg | Reveal], checker: StepChecker) -> None:
        """Apply a step this peer saved or missed, from the signed messages that decided it (checked like ``verify``).

        Raises ``VerifyError`` when they do not decide the step, or when the engine refuses the input.
        """
        self.catch_up.replay(step, signed, checker)

    def replay_change(self, step: int, votes: list[Vote], checker: StepChecker) -> None:
        """Make a saved change of membership again before replaying ``step`` (checked like ``verify``)."""
        self.catch_up.replay_change(step, votes, checker)

    def plan_resume(self, applied: Mapping[int, int], held: Mapping[int, list[Message]]) -> None:
        """After ``replay``: remember where every peer is and what of ours it holds; ``run`` then resumes.

        ``applied[p]`` is the last step peer p applied, ``held[p]`` the messages of ours it holds
        for the steps not yet agreed (from its last SYNC).
        """
        self.catch_up.plan_resume(applied, held)

    # ----------------------------------------------------------------------------- the steps

    def choose(self, seat: int) -> dict[str, Any]:
        """The input of a seat this peer controls: its resignation if it is due (a ``bank`` vote), else
        what its policy picks among the legal actions."""
        resign = self.resignation(seat)
        if resign is not None:
            return resign
        return self.policies[seat].choose(self.game, seat, self.game.legal_actions(seat))

    def resignation(self, seat: int) -> dict[str, Any] | None:
        """The resignation of ``seat`` if this peer must resign it (a ``bank`` vote) and may now."""
        if seat not in self.membership.resigning or self.controllers[seat] != self.me:
            return None
        action = {"type": "resign", "player": seat}
        try:
            self.game.check(action)
        except ValueError:  # it leads an auction, or must place a building it won: later
            return None
        return action

    def ack_for(self, peer: int, ack: Ack) -> Ack:
        """The ack sent to ``peer`` (the same for everyone; a test-only subclass may lie here)."""
        return ack

    async def send_action(self, message: ActionMsg) -> None:
        """Broadcast this peer's input for the step (a test-only subclass may misbehave here)."""
        await self.broadcast(message)

    def early_reveal(self, step: int, prev: bytes) -> Reveal | None:
        """This peer's reveal for chance step ``step``, to nest in its ack of the step before (None if its
        chain is exhausted: the chance step then freezes as usual)."""
        try:
            link = self.mesh.chain.reveal(self._chance_index + 1)
        except ChainExhausted:
            return None
        return Reveal.signed(self.mesh.key, self.game_id, step, prev, self.me, self._chance_index + 1, link)

    def nested_reveals(self, step: int, prev: bytes) -> dict[int, Reveal]:
        """The other peers' reveals for chance step ``step`` that rode in their acks of the step before.

        Ack signatures are checked only when needed, so each nested reveal's own signature is checked
        here, as a reveal sent on its own would be; a bad one freezes the session naming its peer.
        """
        out: dict[int, Reveal] = {}
        for peer, ack in self._acks.get(step - 1, {}).items():
            reveal = ack.reveal
            if reveal is None or peer not in self.others:  # ours, or a peer no longer playing
                continue
            bound = (reveal.game_id, reveal.step, reveal.prev_hash, reveal.peer) == (self.game_id, step, prev, peer)
            if not bound or not self.signed_by(peer, reveal):
                self.fault(peer, "forged_reveal", f"nested a reveal for step {step} that is not its own, signed")
                raise Frozen(FreezeInfo(step, f"{self.peer_label(peer)} nested an invalid reveal in its ack", (peer,)))
            out[peer] = reveal
        return out

    async def chance_input(self, step: int, prev: bytes) -> dict[str, Any]:
        self._chance_index += 1
        index = self._chance_index
        try:
            own = self.mesh.chain.reveal(index)
        except ChainExhausted as e:
            raise Frozen(FreezeInfo(step, f"randomness chain exhausted: {e}")) from None
        own_ack = self._acks.get(step - 1, {}).get(self.me)
        mine = own_ack.reveal if own_ack is not None else None
        if mine is None or (mine.step, mine.prev_hash, mine.chance_index) != (step, prev, index):
            mine = Reveal.signed(self.mesh.key, self.game_id, step, prev, self.me, index, own)
            await self.broadcast(mine)  # not sent with our ack: send it now
        early = self.nested_reveals(step, prev)
        late = await self.collect(Kind.REVEAL, step, [p for p in self.others if p not in early], "reveal")
        got: dict[int, Message] = {**late, **early}
        reveals: dict[int, bytes] = {self.me: own}
        for peer, message in got.items():
            assert isinstance(message, Reveal)
            if message.prev_hash != prev or message.chance_index != index:
                raise Frozen(FreezeInfo(step, f"{self.peer_label(peer)} revealed for another state", (peer,)))
            if not self._verifiers[peer].check(index, message.link):
                raise Frozen(
                    FreezeInfo(step, f"{self.peer_label(peer)} revealed a link that breaks its chain", (peer,))
                )
            reveals[peer] = message.link
        signed = {self.me: mine} | {p: m for p, m in got.items() if isinstance(m, Reveal)}
        self._step_signed = [signed[p] for p in sorted(signed)]
        seed = step_seed(self.game_id, step, prev, [reveals[p] for p in sorted(reveals)])
        return self.game.outcome_from_bytes(seed)

    async def move_input(self, step: int, prev: bytes) -> tuple[dict[str, Any], int]:
        """The in-turn move of step ``step``: chosen here, or received from the seat's controller.

        Either way it is checked with the engine before anything else: an illegal move is never
        applied; the session freezes naming its sender (see the module docstring for why).
        """
        seat = self.game.current_player
        assert seat is not None and seat >= 0
        while True:
            ctrl = self.controllers[seat]
            if ctrl == self.me:
                action = await self.own_move(step, prev, seat)
                return action, self.controllers[self._applied[step].seat]  # an offer it took: its sender's
            message = await self.their_move(step, prev, seat, ctrl)
            if message is not None:
                return message.action, self.controllers[message.seat]
            # Its peer was replaced while we waited: the seat's new controller plays it.

    async def own_move(self, step: int, prev: bytes, seat: int) -> dict[str, Any]:
        """Choose, sign and send the move of a seat this peer plays."""
        held = self.catch_up.held_own.pop((Kind.ACTION, step), None)
        taken = self.handovers.pick(step, prev) if held is None else None
        if isinstance(held, ActionMsg) and held.seat != seat and held.prev_hash == prev:
            taken = held  # a move this peer had forwarded before it dropped: forward it again
        if taken is not None:
            self._step_signed = [taken]
            self._applied[step] = taken
            await self.handovers.forward(taken)
            return taken.action
        if isinstance(held, ActionMsg) and held.seat == seat and held.prev_hash == prev:
            signed = held  # said before this peer dropped: say the same again
            action = held.action
        else:
            action = self.choose(seat)
            self.check_move(step, self.me, action, "this peer's policy chose")
            signed = ActionMsg.signed(self.mesh.key, self.game_id, step, prev, seat, action)
        self._step_signed = [signed]
        self._applied[step] = signed
        await self.send_action(signed)
        return action

    async def their_move(self, step: int, prev: bytes, seat: int, ctrl: int) -> ActionMsg | None:
        """Wait for the move of ``seat`` from its controller ``ctrl``; None if ``ctrl`` is replaced meanwhile."""

        def acked_without_input() -> str | None:
            if ctrl in self._inbox.get((Kind.ACK, step), {}):
                return f"{self.peer_label(ctrl)} acked step {step} without sending this peer its input"
            return None

        what = f"the action of seat {seat} ({self.game.names[seat]})"
        self.handovers.wait(step, prev, ctrl)
        try:
            got = await self.collect(Kind.ACTION, step, [ctrl], what, acked_without_input)
        finally:
            self.handovers.done_waiting()
        if ctrl not in got:
            return None
        message = got[ctrl]
        assert isinstance(message, ActionMsg)
        if message.prev_hash != prev:
            raise Frozen(FreezeInfo(step, f"{self.peer_label(ctrl)} acted on a different state", (ctrl,)))
        if self.handovers.is_forwarded(step, ctrl) and message.seat != seat:
            pass  # an out-of-turn move it took instead of its own (its signature was checked on arrival)
        elif message.seat != seat:
            raise Frozen(
                FreezeInfo(step, f"{self.peer_label(ctrl)} acted for seat {message.seat}, not {seat}", (ctrl,))
            )
        self._step_signed = [message]
        self._applied[step] = message
        self.check_move(step, ctrl, message.action, "sent")
        return message

    def check_move(self, step: int, peer: int, action: Action, verb: str) -> None:
        """Fault and freeze (naming ``peer``) unless the engine accepts ``action`` now (and the votes
        do: a seat voted out to the bank only resigns); nothing is applied."""
        try:
            self.membership.check(self.game, action)
        except (ValueError, TypeError, KeyError) as e:
            detail = f"{verb} an illegal action {action!r}: {e}"
            self.fault(peer, "illegal_action", detail)
            raise Frozen(FreezeInfo(step, f"{self.peer_label(peer)} {detail}", (peer,))) from None

    async def play_step(self) -> None:
        step = self.game.step + 1
        self._step = step
        self.voting.cast()  # a vote not yet carried is repeated for this step
        self.voting.maybe_change()
        prev = self.game.state_hash()
        self._step_signed = []
        try:
            await self.play_input(step, prev)
        except Diverged as d:
            raise await self.evidence.investigate(d.info) from None

    async def play_input(self, step: int, prev: bytes) -> None:
        """Decide, apply and acknowledge step ``step``; raises Frozen or Diverged."""
        interjection = self.interjections.pick(step, prev)
        if self.game.is_chance_node:
            action, actor = await self.chance_input(step, prev), -1
            self.interjections.run = 0
        elif interjection is not None:
            action, actor = interjection.action, self.controllers[interjection.seat]
            self._step_signed = [interjection]
            self._applied[step] = interjection
            self.interjections.took(interjection, actor)
        else:
            action, actor = await self.move_input(step, prev)
            if step in self.handovers.forwarded:
                self.interjections.took(self._applied[step], actor)
            else:
                self.interjections.run = 0
        try:
            events = self.game.apply(action)
        except (ValueError, TypeError, KeyError) as e:
            blamed = (actor,) if actor >= 0 else ()
            who = self.peer_label(actor) if actor >= 0 else "the chance outcome"
            raise Frozen(FreezeInfo(step, f"{who} sent an illegal input {action!r}: {e}", blamed)) from None
        self.handovers.applied(step, self._applied.get(step))
        self.log.record(action, self.game)
        self.net_record.record(step, self._step_signed)
        self.voting.cast()  # a vote stands for the step to come: move it along (the others do the same)
        if self.on_events is not None:
            self.on_events(self.game, events)
        mine = (action_hash(action), self.game.state_hash())
        offer = self.next_interjection()
        nested, reveal = None, None
        if offer is not None:
            seat, move = offer
            nested = ActionMsg.signed(self.mesh.key, self.game_id, step + 1, mine[1], seat, move)
        elif self.game.is_chance_node and not self.game.is_over:
            reveal = self.early_reveal(step + 1, mine[1])  # the next step is chance: no round of its own
        ack = Ack.signed(self.mesh.key, self.game_id, step, self.me, *mine, nested, reveal)
        self._outbox = {}  # from here on a rejoining peer needs only this ack and what follows
        await self.send_each({p: pack(self.ack_for(p, ack).to_wire()) for p in self.others})
        await self.agree(step, ack)
        applied = self._step_signed[0] if self._step_signed else None
        for (kind, s), box in list(self._inbox.items()):
            if s == step:
                for peer, message in box.items():
                    # (Compared by content: a peer repeating the applied action after a rejoin is not out of turn.)
                    if kind is Kind.ACTION and message != applied:
                        self.fault(peer, "out_of_turn", f"sent an action at step {step} when it was not its turn")
                del self._inbox[(kind, s)]
        self.maybe_save()

    async def agree(self, step: int, ack: Ack) -> None:
        """Wait for every peer's ack of ``step``, keep them (the next step's interjections ride on them), compare.

        Acks of the two last steps are kept (evidence, and a rejoining peer's ``held``).
        """
        got = await self.collect(Kind.ACK, step, self.others, f"the ack of step {step}")
        acks = {self.me: ack} | {p: m for p, m in got.items() if isinstance(m, Ack)}
        self._acks[step] = acks
        for old in [s for s in self._acks if s < step - 1]:
            del self._acks[old]
        for old in [s for s in self._applied if s < step - 1]:
            del self._applied[old]
        self.check_agreement(step, {p: (a.action_hash, a.state_hash) for p, a in acks.items()})

    def check_agreement(self, step: int, hashes: dict[int, tuple[bytes, bytes]]) -> None:
        """Freeze unless every peer announced the same (action hash, state hash) as this peer.

        Different action hashes mean different inputs: ``Diverged`` (the evidence round, which may
        prove an equivocation); the same inputs with different states: ``Frozen``.
        """
        mine = hashes[self.me]
        if all(h == mine for h in hashes.values()):
            return
        counts = Counter(hashes.values())
        top, n = counts.most_common(1)[0]
        same_inputs = len({a for a, _ in hashes.values()}) == 1  # else the evidence round finds the equivocator
        if 2 * n > len(hashes) and top == mine and len(hashes) >= 3 and same_inputs:
            self.voting.outvote([p for p, h in sorted(hashes.items()) if h != top], step, hashes)
            return
        if 2 * n > len(hashes):
            blamed = tuple(p for p, h in sorted(hashes.items()) if h != top)
            basis = "the majority"
        else:
            blamed = tuple(p for p, h in sorted(hashes.items()) if h != mine)
            basis = f"{self.peer_label(self.me)} (no majority)"
        inputs_differ = len({a for a, _ in hashes.values()}) > 1
        what = "action" if inputs_differ else "state"
        names = ", ".join(self.peer_label(p) for p in blamed)
        reason = f"desync at step {step}: {what} hashes differ; {names} diverged from {basis}"
        info = FreezeInfo(step, reason, blamed, dict(hashes))
        raise Diverged(info) if inputs_differ else Frozen(info)

    # ----------------------------------------------------------------------------- saving

    def maybe_save(self, force: bool = False) -> None:
        """Save the log if ``save_interval`` has passed (JSON built here, written in a thread);
        a save skipped here happens once the interval has passed, or once the write under way
        ended, so the file holds every step at most ``save_interval`` after it, also when the game
        then waits (for a person, or a peer that dropped)."""
        if self.log_path is None:
            return
        now = time.monotonic()
        due = self._last_save + self.save_interval
        if not force and (now < due or self._save_task is not None):
            self._unsaved = True
            if self._save_task is None and self._save_later is None:
                self._save_later = asyncio.get_running_loop().call_later(due - now, self._save_skipped)
            return
        self._unsaved = False
        self._cancel_save_later()
        self._last_save = now
        text = self.saved_text()
        path = self.log_path
        self._save_task = asyncio.get_running_loop().create_task(asyncio.to_thread(write_atomic, path, text))
        self._save_task.add_done_callback(self._saved)

    def _saved(self, task: asyncio.Task[None]) -> None:
        if self._save_task is task:
            self._save_task = None
        if not task.cancelled() and task.exception() is not None:
            log.error("could not save the game log: %s", task.exception())
        elif self._save_task is None and self._unsaved and self._save_later is None:
            self.maybe_save()  # what was skipped while this one was written (now, or once due)

    def _save_skipped(self) -> None:
        """Save what a skipped save left unsaved, if anything."""
        self._save_later = None
        if self._unsaved:
            self.maybe_save()

    def _cancel_save_later(self) -> None:
        if self._save_later is not None:
            self._save_later.cancel()
            self._save_later = None

    def saved_text(self) -> str:
        """The saved file: the game log plus the network record (start record, signatures, signed inputs)."""
        return self.net_record.attach(self.log.to_json())

    async def save_now(self) -> None:
        """Save the log and wait until it is on disk."""
        if self.log_path is None:
            return
        self._cancel_save_later()
        if self._save_task is not None:
            with contextlib.suppress(Exception):
                await self._save_task
        self._unsaved = False
        await asyncio.to_thread(write_atomic, self.log_path, self.saved_text())

    # ----------------------------------------------------------------------------- the session

    async def run(self) -> SessionResult:
        """Play until the game is over or the session freezes; always closes the mesh."""
        started = time.monotonic()
        loop = asyncio.get_running_loop()
        self._readers = [loop.create_task(self._read(p)) for p in self.others if p in self.mesh.links]
        for peer in self._dropped:  # away from the start (it is rejoining too): dial it if that falls to us
            self.reconnects.start(peer)
        freeze: FreezeInfo | None = None
        report: Path | None = None
        try:
            try:
                await self.catch_up.resume()
                while not self.game.is_over:
                    if self.game.step >= self.max_steps:
                        raise Frozen(FreezeInfo(self.game.step, f"step limit {self.max_steps} reached"))
                    await self.play_step()
                await self.finish()
            except Frozen as f:
                freeze = f.info
                log.error("session frozen at step %d: %s", freeze.step, freeze.reason)
                await self.broadcast_freeze(freeze)
                report = await self.write_report(freeze)
            await self.save_now()
        finally:
            self._cancel_save_later()
            await self.reconnects.close()
            for task in self._readers:
                task.cancel()
            await asyncio.gather(*self._readers, return_exceptions=True)
            await self.mesh.close()
        return SessionResult(
            outcome="over" if freeze is None else "frozen",
            step=self.game.step,
            state_hash=self.game.state_hash(),
            winner=self.game.winner,
            faults=list(self.faults),
            freeze=freeze,
            report=report,
            seconds=time.monotonic() - started,
            interjections=dict(self.interjected),
            interjectors=tuple(sorted(self.interjectors)),
            contested=self.contested,
        )

    async def finish(self) -> None:
        """Game over and agreed: say goodbye with the final hash and wait for everyone's goodbye."""
        final = self.game.state_hash()
        await self.broadcast(Bye(self.game_id, self.game.step, final))
        deadline = time.monotonic() + self.step_timeout
        while not all(p in self._byes or p in self._lost for p in self.others):
            self._wake.clear()
            left = deadline - time.monotonic()
            if left <= 0:
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), left)
        for peer in self.others:
            bye = self._byes.get(peer)
            if bye is None:
                log.info("%s left without a goodbye after the last step", self.peer_label(peer))
            elif bye.state_hash != final or bye.step != self.game.step:
                self.fault(peer, "final_hash", "announced a different final state")

    async def broadcast_freeze(self, freeze: FreezeInfo) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.broadcast(Freeze(self.game_id, freeze.step, freeze.reason)), 2)

    async def write_report(self, freeze: FreezeInfo) -> Path | None:
        """Write the desync report (if a report directory is set); returns its path."""
        if self.report_dir is None:
            return None
        return await self.report_writer(freeze)

    def report_writer(self, freeze: FreezeInfo) -> Coroutine[Any, Any, Path]:
        """Build the desync report of the state now; the coroutine returned writes it (off the event loop)."""
        assert self.report_dir is not None
        report = build_report(
            game_id=self.game_id,
            me=self.me,
            peer_names=self.peer_names,
            step=freeze.step,
            reason=freeze.reason,
            blamed=freeze.blamed,
            hashes=freeze.hashes,
            game=self.game,
            log=self.log,
            proofs=[p.to_json() for p in freeze.proofs],
        )
        report["faults"] = [f.__dict__ for f in self.faults]
        path = report_path(self.report_dir, self.game_id, self.me, freeze.step)
        text = json.dumps(report, indent=1, ensure_ascii=False)

        async def write() -> Path:
            await asyncio.to_thread(write_atomic, path, text)
            log.error("desync report written to %s", path)
            return path

        return write()
