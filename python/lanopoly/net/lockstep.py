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

**Out-of-turn actions.** The engine lets any seat act at any time in some ways (bids in an open
auction, building, selling, mortgages, trade offers and answers, rent claims). A peer's ack of step
k may carry one signed ``ACTION`` for step k+1, bound to k+1 and the state after k, for a seat it
controls that is not the one to act: from the queue of ``interject`` (the console), else from the
seat's policy's optional ``interject(game, seat, legal)``. It is checked with the engine before it
is sent. At step k+1 every peer tries the carried interjections in the order of ``order``; an
invalid one (bad binding or signature, the seat to act, or illegal: an out-of-range bid) is
rejected, logged as a fault naming its sender and skipped, identically on every peer; the game goes
on. Interjections that were not taken are dropped; their policies are asked again after the step.
After as many interjected steps in a row as there are peers, the seat to act plays.

**Equivocation.** Acks are signed (verified lazily: links are already authenticated, signatures are
only needed as transferable proof). When the inputs of a step diverge (acks disagree on the action
hash, or the peer whose input this peer waits for acks the step without having sent it), every peer
that notices broadcasts ``EVIDENCE``: the signed input it applied and every ack it holds for that
step and the one before (which carry the interjections). A peer holding two different messages
signed by the same peer for the same slot (``evidence``) blames that peer, with the two signed
messages as proof in the freeze and the desync report.

When three or more peers disagree only on the state and a strict majority agrees, that majority
plays on: it names the peers that diverged, writes a desync report and votes them out (see
"Replacing peers" below). Any other disagreement freezes the session at that step: proven
equivocators are blamed; otherwise the peers whose hashes differ from the majority (or, with no
majority, from this peer) are named, a ``FREEZE`` is broadcast and a desync report is written. A
peer that sends a malformed message, an illegal input or a bad reveal, or stays silent past the
step deadline, also freezes the session and is named.

**Drops and rejoins.** A peer whose connection closes is waited for up to ``rejoin_timeout``
seconds (0: freeze at once); the others relay its last signed messages to each other so that all
hold the same. It comes back with ``lanopoly rejoin`` (``net/rejoin.py``): ``REJOIN`` on a new
link, answered with ``SYNC`` (the signed steps it missed, where we are, its own messages we hold),
after which it repeats what it missed saying and the step loop goes on (``resume``).

**Replacing peers.** ``vote_replace`` (or ``replace_after``: automatically, for a peer away or
silent that long) signs a ``VOTE`` for the step to come; when every present peer not named voted
the same, every peer makes the same change (``net/membership.py``): the named peers stop counting
and a bot on the lowest present peer plays their seats. The votes go into the saved record.

The game log is saved continuously (atomically, off the event loop) so a
game can be replayed offline; with it goes a network record (the start record, every peer's
signature of it, the signed action or reveals that decided each step), so that ``lanopoly verify``
can check authorship and fairness offline too.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import time
from collections import Counter
from collections.abc import Callable, Coroutine, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from lanopoly._core import Game, IllegalAction, Rules
from lanopoly.bots import Action, Policy, SimpleBot
from lanopoly.log import GameLog
from lanopoly.net import secure
from lanopoly.net.chain import ChainExhausted, ChainVerifier, step_seed
from lanopoly.net.desync import build_report, report_path, write_atomic
from lanopoly.net.evidence import Proof, find_proofs
from lanopoly.net.framing import MAX_FRAME, ConnectionClosed, FramedConnection, FrameError, pack, unpack
from lanopoly.net.membership import Change, Membership, target_mask, targets
from lanopoly.net.mesh import Mesh
from lanopoly.net.messages import (
    MAX_HELD,
    Ack,
    ActionMsg,
    Bye,
    Evidence,
    Freeze,
    Kind,
    Message,
    ProtocolError,
    Rejoin,
    Relay,
    Reveal,
    Signed,
    Sync,
    Vote,
    parse,
)
from lanopoly.net.order import interjection_order, interjections_open
from lanopoly.net.verify import NetworkRecord, StepChecker, VerifyError, decode_signed

log = logging.getLogger(__name__)

ACTION_TAG = b"lanopoly/action/v1\x00"
FREEZE_GRACE = 1.0
"""Seconds a peer keeps waiting for the current step's messages after another peer froze."""
EVIDENCE_WAIT = 3.0
"""Seconds a peer waits for the others' evidence after the inputs of a step diverged (less if a
proof turns up or every peer has answered)."""


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
        self._votes: dict[int, Vote] = {}
        """The latest vote of each peer (this one's too)."""
        self._intent: set[int] = set()
        """The peers this peer wants replaced (it votes for them at every step until it is done)."""
        self._keys = [secure.load_public(p.sign_key) for p in start.peers]
        self._chance_index = 0
        self._step = 1
        self._inbox: dict[tuple[Kind, int], dict[int, Message]] = {}
        self._acks: dict[int, dict[int, Ack]] = {}
        """Every peer's ack (this peer's too) of the last two steps: the interjections and the evidence."""
        self._applied: dict[int, ActionMsg] = {}
        """The signed move this peer applied at each of the last two steps (evidence)."""
        self._evidence: dict[int, dict[int, Evidence]] = {}
        self._queued: list[Action] = []
        self._run = 0
        """Steps in a row decided by interjections, up to the last one played."""
        self.interjected: Counter[str] = Counter()
        self.interjectors: set[int] = set()
        self.contested = 0
        self._byes: dict[int, Bye] = {}
        self._lost: dict[int, str] = {}
        self._dropped: dict[int, float] = {}
        self._last_rejoin = 0.0
        self._outbox: dict[int, list[bytes]] = {}
        self._resuming = False
        self._held_own: dict[tuple[Kind, int], Message] = {}
        self._resume_plan: tuple[dict[int, int], dict[int, list[Message]]] | None = None
        self._remote_freeze: tuple[int, Freeze] | None = None
        self._freeze_seen: float | None = None
        self._wake = asyncio.Event()
        self._readers: list[asyncio.Task[None]] = []
        self._last_save = 0.0
        self._save_task: asyncio.Task[None] | None = None
        self.net_record = NetworkRecord(mesh.me, mesh.start_payload, mesh.start_sigs)
        self._step_signed: list[ActionMsg | Reveal] = []
        mesh.listener.set_handler(self._on_connection)

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
            link = self.mesh.links[peer]
            if peer in self._lost:
                continue
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
            self.relay_from(peer)
        self._wake.set()

    # ----------------------------------------------------------------------------- receiving

    async def _read(self, peer: int) -> None:
        link = self.mesh.links[peer]
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
        if not isinstance(message, ActionMsg | Reveal | Ack | Freeze | Bye | Evidence | Vote | Relay):
            self.fault(peer, "unexpected", f"unexpected {type(message).__name__} during the game")
            return
        if message.game_id != self.game_id:
            self.fault(peer, "wrong_game", f"{type(message).__name__} for another game")
            return
        if not self.membership.is_active(peer):
            log.debug("ignoring a %s from %s, replaced", type(message).__name__, self.peer_label(peer))
            return
        if isinstance(message, Vote):
            self.take_vote(peer, message)
            return
        if isinstance(message, Relay):
            self.take_relay(peer, message)
            return
        if isinstance(message, ActionMsg | Reveal | Ack) and self.voted_out(peer, message.step):
            log.debug("ignoring %s's message for step %d: we vote it out", self.peer_label(peer), message.step)
            return
        if isinstance(message, Freeze) and peer in self._intent:
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
            if message.step + 1 < self._step or message.step > self._step + 1:
                self.fault(peer, "wrong_step", f"EVIDENCE for step {message.step} while at step {self._step}")
                return
            self._evidence.setdefault(message.step, {}).setdefault(peer, message)
            self._wake.set()
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
        if message.step < self._step and (kind is Kind.ACK or self._resuming):
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
            if self._evidence:
                at = min(self._evidence)
                by = ", ".join(self.peer_label(p) for p in sorted(self._evidence[at]))
                raise Diverged(FreezeInfo(at, f"inputs diverged at step {at} (evidence from {by})"))
            reason = diverged() if diverged is not None else None
            if reason is not None:
                raise Diverged(FreezeInfo(step, reason))
            missing = [p for p in peers if p not in box]
            now = time.monotonic()
            left = deadline - now
            if self._remote_freeze is not None:
                peer, freeze = self._remote_freeze
                if self._freeze_seen is None:
                    self._freeze_seen = now
                left = min(left, self._freeze_seen + FREEZE_GRACE - now)
                if left <= 0 or all(p in self._lost for p in missing):
                    raise Frozen(FreezeInfo(step, f"{self.peer_label(peer)} froze the session: {freeze.reason}"))
            else:
                left = self._check_missing(step, what, missing, deadline, now)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(left, 0.001))

    # ----------------------------------------------------------------------------- out-of-turn actions

    def interject(self, action: Action) -> None:
        """Queue an out-of-turn action of a seat this peer controls; it goes out with the next ack.

        Checked now against the current state: raises ``IllegalAction`` with the reason (and queues
        nothing) if the seat is not this peer's, is the seat to act (its move is played in turn), or
        the engine refuses the action. Queued actions are sent in order, one per step, each checked
        again against the state of its step: one that is no longer legal then (or whose seat is now
        the one to act) is dropped and logged. Whether it is taken is decided by ``order``.
        """
        seat = action.get("player") if isinstance(action, dict) else None
        if not isinstance(seat, int) or seat not in self.policies:
            raise IllegalAction(f"seat {seat} is not played on this peer")
        if self.game.is_over:
            raise IllegalAction("the game is over")
        if seat == self.game.current_player:
            raise IllegalAction(f"seat {seat} is the one to act: its move is played in turn, not out of turn")
        self.game.check(action)
        self._queued.append(dict(action))

    @property
    def queued(self) -> list[Action]:
        """Out-of-turn actions queued with ``interject`` and not sent yet."""
        return list(self._queued)

    def next_interjection(self) -> tuple[int, Action] | None:
        """The out-of-turn action this peer offers for the next step (seat, action), or None.

        None when the next step cannot take one (game over, chance node, too many in a row). The
        queue of ``interject`` comes first; then each seat this peer controls, in seat order after
        the seat to act, whose policy has ``interject``. Whatever is offered is legal now.
        """
        game = self.game
        if game.is_over or game.is_chance_node or not interjections_open(self._run, len(self.peer_names)):
            return None
        current = game.current_player
        assert current is not None
        while self._queued:
            action = self._queued.pop(0)
            seat = action["player"]
            try:
                if seat == current:
                    raise IllegalAction(f"seat {seat} is now the one to act")
                game.check(action)
            except (ValueError, TypeError, KeyError) as e:
                log.info("queued out-of-turn action %r dropped: %s", action, e)
                continue
            return seat, action
        seats = game.num_players
        for seat in sorted(self.policies, key=lambda s: (s - current - 1) % seats):
            interject = getattr(self.policies[seat], "interject", None)
            if seat == current or interject is None:
                continue
            legal = game.legal_actions(seat)
            if not legal:
                continue
            action = interject(game, seat, legal)
            if action is None:
                continue
            try:
                if action.get("player") != seat:
                    raise IllegalAction(f"it is for seat {action.get('player')}")
                game.check(action)
            except (ValueError, TypeError, KeyError, AttributeError) as e:
                log.warning("the policy of seat %d offered an illegal out-of-turn action %r: %s", seat, action, e)
                continue
            return seat, action
        return None

    def pick_interjection(self, step: int, prev: bytes) -> ActionMsg | None:
        """The interjection that is step ``step``'s input, from the acks of the step before (or None).

        The order is ``order``'s; each candidate is validated in that order until one passes;
        those that fail are faults of their senders. Only shared data is used, so every peer picks
        the same one.
        """
        acks = self._acks.get(step - 1, {}).items()
        carried = {p: a.interjection for p, a in acks if a.interjection is not None and not self.voted_out(p, step)}
        if not carried:
            return None
        if self.game.is_chance_node or not interjections_open(self._run, len(self.peer_names)):
            for peer in sorted(carried):
                self.fault(peer, "out_of_turn", f"interjected at step {step}, which takes no out-of-turn action")
            return None
        current = self.game.current_player
        assert current is not None and current >= 0
        self.contested += len(carried) > 1
        order = interjection_order({p: m.seat for p, m in carried.items()}, current, self.game.num_players)
        for peer in order:
            message = carried[peer]
            if self.valid_interjection(peer, message, step, prev, current):
                return message
        return None

    def valid_interjection(self, peer: int, message: ActionMsg, step: int, prev: bytes, current: int) -> bool:
        """Whether ``peer``'s interjection may be step ``step``'s input; a fault naming ``peer`` if not."""
        if message.game_id != self.game_id or message.step != step or message.prev_hash != prev:
            self.fault(peer, "stale", f"interjected an action bound to another game, step or state: {message.action}")
            return False
        if not self.check_signed(peer, message):
            return False
        if message.action.get("player") != message.seat:
            self.fault(peer, "forged_action", f"interjected for seat {message.seat} an action of another seat")
            return False
        if message.seat == current:
            self.fault(peer, "out_of_turn", f"interjected for seat {current}, the seat to act (it acts in turn)")
            return False
        try:
            self.game.check(message.action)
        except (ValueError, TypeError, KeyError) as e:
            self.fault(peer, "illegal_action", f"interjected an illegal action {message.action}: {e}")
            return False
        return True

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
            due = [p for p in away if p not in self._intent and now >= self._dropped[p] + self.replace_after]
            for p in due:
                self.vote_replace(p)
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
                    since + self.replace_after - now for p, since in self._dropped.items() if p not in self._intent
                ]
            return max(min(waits), 0.001)
        until = max(deadline, self._last_rejoin + self.step_timeout)
        silent = [p for p in missing if p not in self._intent]
        if now >= until and silent and self.replace_after is not None and len(self.others) >= 2:
            for p in silent:  # silent past the deadline: vote it out, and wait one more deadline for the others
                self.vote_replace(p)
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
        return (Kind.ACTION, step) in self._held_own

    def waiting_for(self) -> dict[int, float]:
        """Peers that dropped and are waited for: peer index -> seconds since it dropped."""
        now = time.monotonic()
        return {p: now - since for p, since in sorted(self._dropped.items())}

    # ----------------------------------------------------------------------------- the steps

    def choose(self, seat: int) -> dict[str, Any]:
        """The input of a seat this peer controls (its policy picks among the legal actions)."""
        return self.policies[seat].choose(self.game, seat, self.game.legal_actions(seat))

    def ack_for(self, peer: int, ack: Ack) -> Ack:
        """The ack sent to ``peer`` (the same for everyone; a test-only subclass may lie here)."""
        return ack

    async def send_action(self, message: ActionMsg) -> None:
        """Broadcast this peer's input for the step (a test-only subclass may misbehave here)."""
        await self.broadcast(message)

    async def chance_input(self, step: int, prev: bytes) -> dict[str, Any]:
        self._chance_index += 1
        index = self._chance_index
        try:
            own = self.mesh.chain.reveal(index)
        except ChainExhausted as e:
            raise Frozen(FreezeInfo(step, f"randomness chain exhausted: {e}")) from None
        mine = Reveal.signed(self.mesh.key, self.game_id, step, prev, self.me, index, own)
        await self.broadcast(mine)
        got = await self.collect(Kind.REVEAL, step, self.others, "reveal")
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
                return await self.own_move(step, prev, seat), ctrl
            message = await self.their_move(step, prev, seat, ctrl)
            if message is not None:
                return message.action, ctrl
            # Its peer was replaced while we waited: the seat's new controller plays it.

    async def own_move(self, step: int, prev: bytes, seat: int) -> dict[str, Any]:
        """Choose, sign and send the move of a seat this peer plays."""
        held = self._held_own.pop((Kind.ACTION, step), None)
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
        got = await self.collect(Kind.ACTION, step, [ctrl], what, acked_without_input)
        if ctrl not in got:
            return None
        message = got[ctrl]
        assert isinstance(message, ActionMsg)
        if message.prev_hash != prev:
            raise Frozen(FreezeInfo(step, f"{self.peer_label(ctrl)} acted on a different state", (ctrl,)))
        if message.seat != seat:
            raise Frozen(
                FreezeInfo(step, f"{self.peer_label(ctrl)} acted for seat {message.seat}, not {seat}", (ctrl,))
            )
        self._step_signed = [message]
        self._applied[step] = message
        self.check_move(step, ctrl, message.action, "sent")
        return message

    def check_move(self, step: int, peer: int, action: Action, verb: str) -> None:
        """Fault and freeze (naming ``peer``) unless the engine accepts ``action`` now; nothing is applied."""
        try:
            self.game.check(action)
        except (ValueError, TypeError, KeyError) as e:
            detail = f"{verb} an illegal action {action!r}: {e}"
            self.fault(peer, "illegal_action", detail)
            raise Frozen(FreezeInfo(step, f"{self.peer_label(peer)} {detail}", (peer,))) from None

    async def play_step(self) -> None:
        step = self.game.step + 1
        self._step = step
        self.cast_vote()  # a vote not yet carried is repeated for this step
        self.maybe_change()
        prev = self.game.state_hash()
        self._step_signed = []
        try:
            await self.play_input(step, prev)
        except Diverged as d:
            raise await self.investigate(d.info) from None

    async def play_input(self, step: int, prev: bytes) -> None:
        """Decide, apply and acknowledge step ``step``; raises Frozen or Diverged."""
        interjection = self.pick_interjection(step, prev)
        if self.game.is_chance_node:
            action, actor = await self.chance_input(step, prev), -1
            self._run = 0
        elif interjection is not None:
            action, actor = interjection.action, self.controllers[interjection.seat]
            self._step_signed = [interjection]
            self._applied[step] = interjection
            self._run += 1
            self.interjected[str(action.get("type"))] += 1
            self.interjectors.add(actor)
        else:
            action, actor = await self.move_input(step, prev)
            self._run = 0
        try:
            events = self.game.apply(action)
        except (ValueError, TypeError, KeyError) as e:
            blamed = (actor,) if actor >= 0 else ()
            who = self.peer_label(actor) if actor >= 0 else "the chance outcome"
            raise Frozen(FreezeInfo(step, f"{who} sent an illegal input {action!r}: {e}", blamed)) from None
        self.log.record(action, self.game)
        self.net_record.record(step, self._step_signed)
        if self.on_events is not None:
            self.on_events(self.game, events)
        mine = (action_hash(action), self.game.state_hash())
        offer = self.next_interjection()
        nested = None
        if offer is not None:
            seat, move = offer
            nested = ActionMsg.signed(self.mesh.key, self.game_id, step + 1, mine[1], seat, move)
        ack = Ack.signed(self.mesh.key, self.game_id, step, self.me, *mine, nested)
        self._outbox = {}  # from here on a rejoining peer needs only this ack and what follows
        await self.send_each({p: pack(self.ack_for(p, ack).to_wire()) for p in self.others})
        await self.agree(step, ack)
        applied = self._step_signed[0] if self._step_signed else None
        for (kind, s), box in list(self._inbox.items()):
            if s == step:
                for peer, message in box.items():
                    if kind is Kind.ACTION and message is not applied:
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
            self.outvote([p for p, h in sorted(hashes.items()) if h != top], step, hashes)
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

    def outvote(self, diverged: list[int], step: int, hashes: dict[int, tuple[bytes, bytes]]) -> None:
        """This peer is in a strict majority of three or more that agrees at ``step``: the game goes on without
        the peers that diverged (they freeze on their side); the majority votes them out, a report is written."""
        names = ", ".join(self.peer_label(p) for p in diverged)
        what = "action" if len({a for a, _ in hashes.values()}) > 1 else "state"
        reason = f"desync at step {step}: {what} hashes differ; {names} diverged from the majority, which plays on"
        for peer in diverged:
            self.fault(peer, "diverged", f"announced another state at step {step}; replaced by a bot")
            if self._remote_freeze is not None and self._remote_freeze[0] == peer:
                self._remote_freeze = None
        info = FreezeInfo(step, reason, tuple(diverged), dict(hashes))
        if self.report_dir is not None:
            asyncio.get_running_loop().create_task(self.report_writer(info))
        self._intent.update(diverged)
        self.cast_vote()

    # ----------------------------------------------------------------------------- evidence

    def evidence_for(self, step: int) -> Evidence:
        """What this peer holds for ``step``: the move it applied, every ack of ``step - 1`` and ``step``."""
        items: list[Signed] = []
        if step in self._applied:
            items.append(self._applied[step])
        for s in (step - 1, step):
            acks = dict(self._acks.get(s, {}))
            acks.update({p: m for p, m in self._inbox.get((Kind.ACK, s), {}).items() if isinstance(m, Ack)})
            items.extend(acks[p] for p in sorted(acks))
        for m in self._inbox.get((Kind.ACTION, step), {}).values():
            if isinstance(m, ActionMsg) and m is not self._applied.get(step):
                items.append(m)
        return Evidence(self.game_id, step, tuple(items))

    async def investigate(self, info: FreezeInfo) -> Frozen:
        """The evidence round after the inputs of ``info.step`` diverged; returns the freeze to raise.

        Broadcast what this peer holds, gather the others' (until every live peer answered, a proof
        turns up, or ``EVIDENCE_WAIT``), and look for two signatures of one peer on different
        messages of one slot. Proven equivocators are blamed (with the proof); otherwise the
        blame of ``info`` stands.
        """
        step = info.step
        mine = self.evidence_for(step)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.broadcast(mine), 2)
        deadline = time.monotonic() + min(EVIDENCE_WAIT, self.step_timeout)
        while True:
            self._wake.clear()
            theirs = self._evidence.get(step, {})
            pool: list[Signed] = list(mine.signed)
            for peer in sorted(theirs):
                pool.extend(m for m in theirs[peer].signed if m.game_id == self.game_id)
            proofs = find_proofs(pool, self.controllers, self._keys)
            left = deadline - time.monotonic()
            if proofs or left <= 0 or all(p in theirs or p in self._lost for p in self.others):
                break
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), left)
        if not proofs:
            log.error("step %d: inputs diverged; no equivocation proven (%d peers sent evidence)", step, len(theirs))
            return Frozen(info)
        blamed = tuple(sorted({p.peer for p in proofs}))
        proven = "; ".join(f"{self.peer_label(p.peer)} signed {p.describe()}" for p in proofs)
        reason = f"equivocation at step {step}: {proven}"
        for p in proofs:
            self.fault(p.peer, "equivocation", f"signed {p.describe()}")
        return Frozen(FreezeInfo(step, reason, blamed, info.hashes, tuple(proofs)))

    # ----------------------------------------------------------------------------- rejoining

    async def _on_connection(self, conn: FramedConnection, message: Message) -> bool:
        """A new connection to our listener during the game (after the PIN handshake): only REJOIN is welcome."""
        if not isinstance(message, Rejoin):
            log.warning("dropping a %s from %s during the game", type(message).__name__, conn.label)
            return False
        peer = message.index
        start = self.mesh.start
        if message.game_id != self.game_id or peer == self.me or peer >= len(start.peers):
            log.warning("dropping a REJOIN for another game or peer from %s", conn.label)
            return False
        proof = secure.rejoin_proof_data(conn.binding, self.game_id, peer)
        if start.peers[peer].peer_id != message.peer_id or not secure.verify(self._keys[peer], message.proof, proof):
            self.fault(peer, "bad_rejoin", f"a REJOIN from {conn.label} claims to be it but does not prove it")
            return False
        if self._remote_freeze is not None or self.game.is_over:
            log.warning("%s wants to rejoin, but the session is over or frozen", self.peer_label(peer))
            return False
        if not self.membership.is_active(peer):
            log.warning("%s wants to rejoin, but it was replaced by a bot", self.peer_label(peer))
            return False
        conn.max_frame = MAX_FRAME
        conn.label = self.peer_label(peer)
        try:
            upto = await self.send_history(conn, message.have_step)
            self.replace_link(peer, conn, upto)
        except (ConnectionClosed, FrameError) as e:
            log.warning("%s could not rejoin: %s", self.peer_label(peer), e)
            return False
        return True

    async def send_history(self, conn: FramedConnection, have: int) -> int:
        """Send a rejoining peer the signed inputs of the steps after ``have`` that we have applied; returns the last.

        Steps keep being applied while this awaits; ``replace_link`` sends the rest.
        """
        end = self.game.step
        steps = [(s, self.net_record.signed[s - 1]) for s in range(have + 1, end + 1)]
        for chunk in Sync.chunks(self.game_id, steps):
            await conn.send(chunk.to_wire())
        return max(end, have)

    def replace_link(self, peer: int, conn: FramedConnection, upto: int) -> None:
        """Make ``conn`` the link to ``peer``; tell it where we are and repeat what it missed (no await: atomic).

        The last SYNC carries the steps applied since ``send_history`` began, the step we are at and
        the rejoiner's own messages we hold; then every message we sent it since our last ack.
        """
        old = self.mesh.links.get(peer)
        tail = [(s, self.net_record.signed[s - 1]) for s in range(upto + 1, self.game.step + 1)]
        held: list[Message] = [acks[peer] for _, acks in sorted(self._acks.items()) if peer in acks]
        held += [m for (_, step), box in sorted(self._inbox.items()) for p, m in box.items() if p == peer]
        last = Sync(self.game_id, tail, True, self.game.step, [pack(m.to_wire()) for m in held[:MAX_HELD]])
        self.mesh.links[peer] = conn
        conn.send_payload_nowait(pack(last.to_wire()))
        for payload in self._outbox.get(peer, []):
            conn.send_payload_nowait(payload)
        self._lost.pop(peer, None)
        self._dropped.pop(peer, None)
        self._last_rejoin = time.monotonic()
        self._readers.append(asyncio.get_running_loop().create_task(self._read(peer)))
        if old is not None and old is not conn:
            asyncio.get_running_loop().create_task(old.close())
        log.warning("%s rejoined at step %d", self.peer_label(peer), self.game.step)
        self._wake.set()

    def replay(self, step: int, signed: list[ActionMsg | Reveal], checker: StepChecker) -> None:
        """Apply a step this peer saved or missed, from the signed messages that decided it (checked like ``verify``).

        Raises ``VerifyError`` when they do not decide the step, or when the engine refuses the input.
        """
        action = checker.input_for(self.game, step, signed)
        first = signed[0] if signed else None
        if isinstance(first, ActionMsg):
            self._applied[step] = first
            self._run = self._run + 1 if first.seat != self.game.current_player else 0
        else:
            self._run = 0
        try:
            self.game.apply(action)
        except (ValueError, TypeError, KeyError) as e:
            raise VerifyError(step, f"input refused: {e}") from None
        self.log.record(action, self.game)
        self.net_record.record(step, signed)
        self._chance_index = checker.chance_index
        self._verifiers = {p: checker.chains[p] for p in self.others}
        self._step = step

    def replay_change(self, step: int, votes: list[Vote], checker: StepChecker) -> None:
        """Make a saved change of membership again before replaying ``step`` (checked like ``verify``)."""
        change = checker.change(self.game, step, votes)
        self.membership.apply(change)
        self.net_record.record_change(change)
        if change.controller == self.me:
            for seat, ctrl in enumerate(self.controllers):
                if ctrl == self.me and seat not in self.policies:
                    self.policies[seat] = self.bot_factory()

    def plan_resume(self, applied: Mapping[int, int], held: Mapping[int, list[Message]]) -> None:
        """After ``replay``: remember where every peer is and what of ours it holds; ``run`` then resumes.

        ``applied[p]`` is the last step peer p applied, ``held[p]`` the messages of ours it holds
        for the steps not yet agreed (from its last SYNC).
        """
        self._resume_plan = (dict(applied), {p: list(m) for p, m in held.items()})

    def own_hashes(self, step: int) -> tuple[bytes, bytes]:
        """This peer's (action hash, state hash) of an applied step, as its ack announces them."""
        return action_hash(self.log.inputs[step - 1]), self.log.hashes[step - 1]

    def _own_ack(self, step: int, held: list[Message]) -> Ack:
        """Our ack of ``step``: the one a peer holds from before we dropped if it is ours and right, else a new one.

        Repeating the old one matters: its out-of-turn action may already decide the next step
        for the peers that got it.
        """
        mine = self.own_hashes(step)
        for m in held:
            if (
                isinstance(m, Ack)
                and (m.step, m.peer, m.action_hash, m.state_hash) == (step, self.me, *mine)
                and secure.verify(self._keys[self.me], m.signature, m.signed_data)
            ):
                return m
        return Ack.signed(self.mesh.key, self.game_id, step, self.me, *mine)

    def _own_signed(self, step: int) -> list[ActionMsg | Reveal]:
        """The signed messages of ours among those that decided ``step``."""

        def ours(m: ActionMsg | Reveal) -> bool:
            return (m.peer if isinstance(m, Reveal) else self.controllers[m.seat]) == self.me

        return [m for m in decode_signed(self.net_record.signed[step - 1], step) if ours(m)]

    async def resume(self) -> None:
        """Rejoin the step loop: send every peer what it missed from us, then agree on the current step.

        Every other peer is at our step M or one behind (nobody passes a step without our ack). One
        behind, it lacks our part of step M (our action or reveal, which it gets now) and maybe our
        ack of M - 1. Messages the others repeat for steps we replayed are ignored meanwhile.
        """
        if self._resume_plan is None:
            return
        applied, held = self._resume_plan
        self._resume_plan = None
        top = self.game.step
        self._resuming = True
        all_held = [m for ms in held.values() for m in ms]
        for message in all_held:  # what we said for the next step before we dropped: we say it again
            if isinstance(message, ActionMsg | Reveal) and message.step == top + 1 and self.signed_by(self.me, message):
                kind = Kind.ACTION if isinstance(message, ActionMsg) else Kind.REVEAL
                self._held_own[(kind, message.step)] = message

        def holds(peer: int, step: int) -> bool:
            return any(isinstance(m, Ack) and m.step == step for m in held.get(peer, []))

        for peer in self.others:
            if applied.get(peer) == top - 1 and top >= 1:
                if top >= 2 and not holds(peer, top - 1):
                    await self.send_each({peer: pack(self._own_ack(top - 1, all_held).to_wire())})
                for message in self._own_signed(top):
                    await self.send_each({peer: pack(message.to_wire())})
            elif applied.get(peer) != top:
                log.warning("%s is at step %s, we resume at %d", self.peer_label(peer), applied.get(peer), top)
        if top >= 1:
            ack = pack(self._own_ack(top, all_held).to_wire())
            self._outbox = {}
            await self.send_each({p: ack for p in self.others if not holds(p, top)})
            await self.agree(top, self._own_ack(top, all_held))
        for key in [k for k in self._inbox if k[1] <= top]:
            del self._inbox[key]
        self._resuming = False
        log.warning("rejoined the game at step %d", top)

    # ----------------------------------------------------------------------------- replacing peers

    def vote_replace(self, peer: int) -> None:
        """Vote to have ``peer`` played by a bot from the next step on (the others must all agree).

        The vote is repeated, for the step then to come, until the change is made or the peer is
        back (a rejoin cancels it). ValueError if ``peer`` is not another peer still playing.
        """
        if peer == self.me or not self.membership.is_active(peer):
            raise ValueError(f"peer {peer} is not another peer still playing")
        if len(self.others) < 2:
            raise ValueError("with two peers there is nobody to agree with: the game stops and can be resumed")
        self._intent.add(peer)
        self.cast_vote()

    def cast_vote(self) -> None:
        """Sign and send this peer's vote for the step to come, if it wants a change and has not yet voted so."""
        self._intent &= set(self.others)
        if not self._intent:
            return
        step, prev = self.game.step + 1, self.game.state_hash()
        mask = target_mask(sorted(self._intent))
        current = self._votes.get(self.me)
        if current is not None and (current.step, current.prev_hash, current.target) == (step, prev, mask):
            return
        vote = Vote.signed(self.mesh.key, self.game_id, step, prev, self.me, mask, "bot")
        self._votes[self.me] = vote
        names = ", ".join(self.peer_label(p) for p in sorted(self._intent))
        log.warning("voting to replace %s by a bot from step %d", names, step)
        payload = pack(vote.to_wire())
        for peer in self.others:
            if peer not in self._intent and peer not in self._lost:
                with contextlib.suppress(ConnectionClosed, FrameError):
                    self.mesh.links[peer].send_payload_nowait(payload)
        self.maybe_change()

    def voted_out(self, peer: int, step: int) -> bool:
        """Whether this peer votes ``peer`` out from ``step`` or before: then nothing of it counts from there on.

        That keeps a peer that votes from taking a step the others would take differently once the
        change is made; it waits for the change (or the deadline).
        """
        mine = self._votes.get(self.me)
        return mine is not None and peer in self._intent and step >= mine.step

    def take_vote(self, peer: int, vote: Vote) -> None:
        """File a vote received from ``peer``: it must be its own, signed by it, for peers still playing."""
        if vote.voter != peer or not secure.verify(self._keys[peer], vote.signature, vote.signed_data):
            self.fault(peer, "forged_vote", "sent a vote that is not its own signed vote")
            return
        named = targets(vote)
        if peer in named or not all(self.membership.is_active(p) for p in named):
            self.fault(peer, "bad_vote", f"voted to replace {list(named)}, not other peers still playing")
            return
        self._votes[peer] = vote
        log.warning("%s votes to replace %s from step %d", self.peer_label(peer), list(named), vote.step)
        self.maybe_change()

    def maybe_change(self) -> None:
        """Make the change the votes agree on for the step to come (or the one just applied), if they do.

        A change from step s may find this peer past s already (acking it): s was then decided
        without the peers replaced (we ignore them from s on), so the state is the same either
        way; only whom we wait for changes.
        """
        change = self.membership.decide(self._votes, self.game.step + 1, self.game.state_hash())
        if change is None and self.game.step >= 1:
            before = self.log.hashes[-2] if self.game.step >= 2 else self._initial_hash
            change = self.membership.decide(self._votes, self.game.step, before)
        if change is not None:
            self.make_change(change)

    def make_change(self, change: Change) -> None:
        """Replace the peers of ``change`` (the same on every peer): bots take their seats, their links close."""
        seats = self.membership.apply(change)
        self.net_record.record_change(change)
        if change.controller == self.me:
            for seat in seats:
                self.policies[seat] = self.bot_factory()
        voters = ", ".join(self.peer_label(v.voter) for v in change.votes)
        notice = pack(
            Freeze(
                self.game_id, change.step, f"replaced by a bot from step {change.step} on the votes of {voters}"
            ).to_wire()
        )
        for peer in change.removed:
            self._intent.discard(peer)
            self._dropped.pop(peer, None)
            link = self.mesh.links.get(peer)
            if link is not None:
                if peer not in self._lost:
                    with contextlib.suppress(ConnectionClosed, FrameError):
                        link.send_payload_nowait(notice)  # so that it stops, knowing why
                asyncio.get_running_loop().create_task(self._close_later(link))
            self._lost.pop(peer, None)
        self._votes = {p: v for p, v in self._votes.items() if p in self.membership.active}
        if self._remote_freeze is not None and self._remote_freeze[0] in change.removed:
            self._remote_freeze = None
        names = ", ".join(self.peer_label(p) for p in change.removed)
        seat_names = ", ".join(self.game.names[s] for s in seats)
        log.warning(
            "from step %d %s replaced: %s played by a bot on %s",
            change.step,
            names,
            seat_names,
            self.peer_label(change.controller),
        )
        self._wake.set()

    @staticmethod
    async def _close_later(link: FramedConnection) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(link.writer.drain(), 1)
        await link.close()

    def relay_from(self, peer: int) -> None:
        """``peer`` dropped: pass on to the others its signed messages we hold for the steps not agreed."""
        held: list[Message] = [acks[peer] for s, acks in sorted(self._acks.items()) if s >= self.game.step]
        held = [m for m in held if isinstance(m, Ack) and m.peer == peer]
        held += [m for (_, step), box in sorted(self._inbox.items()) for p, m in box.items() if p == peer]
        held += [
            m for s, m in sorted(self._applied.items()) if s > self.game.step - 1 and self.controllers[m.seat] == peer
        ]
        if not held or len(self.others) < 2:
            return
        relay = Relay(self.game_id, peer, [pack(m.to_wire()) for m in held[:MAX_HELD]])
        payload = pack(relay.to_wire())
        for other in self.others:
            if other != peer and other not in self._lost:
                with contextlib.suppress(ConnectionClosed, FrameError):
                    self.mesh.links[other].send_payload_nowait(payload)

    def take_relay(self, link: int, relay: Relay) -> None:
        """Messages of a dropped peer passed on by ``link``: each must be signed by that peer; filed as its own."""
        peer = relay.peer
        if peer in (link, self.me) or not self.membership.is_active(peer):
            return
        for frame in relay.frames:
            try:
                message = parse(unpack(frame))
            except (FrameError, ProtocolError) as e:
                self.fault(link, "malformed", f"relayed a malformed message: {e}")
                continue
            if not isinstance(message, Ack | ActionMsg | Reveal) or not self.signed_by_owner(peer, message):
                self.fault(link, "bad_relay", f"relayed a message not signed by {self.peer_label(peer)}")
                continue
            if message.step >= self._step:
                self.dispatch(peer, message)

    def signed_by_owner(self, peer: int, message: Ack | ActionMsg | Reveal) -> bool:
        """Whether ``message`` is ``peer``'s (its ack, its reveal, an action of a seat it plays), signed by it."""
        if isinstance(message, Ack | Reveal):
            owner = message.peer
        else:
            owner = self.controllers[message.seat] if message.seat < len(self.controllers) else -1
        return owner == peer and secure.verify(self._keys[peer], message.signature, message.signed_data)

    # ----------------------------------------------------------------------------- saving

    def maybe_save(self, force: bool = False) -> None:
        """Save the log if ``save_interval`` has passed (JSON built here, written in a thread)."""
        if self.log_path is None:
            return
        now = time.monotonic()
        if not force and (now - self._last_save < self.save_interval or self._save_task is not None):
            return
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

    def saved_text(self) -> str:
        """The saved file: the game log plus the network record (start record, signatures, signed inputs)."""
        return self.net_record.attach(self.log.to_json())

    async def save_now(self) -> None:
        """Save the log and wait until it is on disk."""
        if self.log_path is None:
            return
        if self._save_task is not None:
            with contextlib.suppress(Exception):
                await self._save_task
        await asyncio.to_thread(write_atomic, self.log_path, self.saved_text())

    # ----------------------------------------------------------------------------- the session

    async def run(self) -> SessionResult:
        """Play until the game is over or the session freezes; always closes the mesh."""
        started = time.monotonic()
        self._readers = [asyncio.get_running_loop().create_task(self._read(p)) for p in self.others]
        freeze: FreezeInfo | None = None
        report: Path | None = None
        try:
            try:
                await self.resume()
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
