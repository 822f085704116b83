"""The lockstep session: one total order of inputs, a state hash check with every peer after every step.

Step k (the k-th input) goes like this on every peer:

- At a chance node every peer reveals its next hash-chain link (``REVEAL``), checked against its
  previous one; the seed is ``SHA-256(tag, game id, k, previous state hash, reveals in peer order)``
  and the outcome is ``game.outcome_from_bytes(seed)``, with the engine's exact odds.
- Otherwise the seat that must act (``game.current_player``) is played by the peer that controls it
  in the start record; that peer alone broadcasts the input (``ACTION``, bound to game id, k and the
  previous state hash, signed with its key). An action from any other peer is rejected, logged and
  counted as a fault.
- ACTION and REVEAL are checked on arrival: the signature must verify with the key the start record
  lists for the seat's controller (for a reveal: for the revealing peer), and the message must
  come on that peer's own link. A signature by another peer's key is attributed to that signer (it
  is proof of who made it); one no key verifies is attributed to the link it came on. A correctly
  signed message on someone else's link, or for a step already played, is a replay: rejected and
  attributed to the link that sent it.
- Every peer applies the input, records it in the game log and broadcasts ``ACK`` (k, hash of the
  input, resulting state hash). Step k+1 starts only when every ack agrees with its own.

Any disagreement freezes the session at that step: the peers whose hashes differ from the majority
(or, with no majority, from this peer) are named, a ``FREEZE`` is broadcast and a desync report is
written. A peer that disconnects, sends a malformed message, an illegal input or a bad reveal, or
stays silent past the step deadline, also freezes the session and is named. The game log is saved
continuously (atomically, off the event loop) so a game can be replayed offline; with it goes a
network record (the start record, every peer's signature of it, the signed action or reveals that
decided each step), so that ``lanopoly verify`` can check authorship and fairness offline too.

Out-of-turn inputs (bids or trades from seats other than ``current_player``) are not part of this
slice: the engine's ``current_player`` already walks auctions and debts seat by seat.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import time
from collections import Counter
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from lanopoly._core import Game, Rules
from lanopoly.bots import Policy
from lanopoly.log import GameLog
from lanopoly.net import secure
from lanopoly.net.chain import ChainExhausted, ChainVerifier, step_seed
from lanopoly.net.desync import build_report, report_path, write_atomic
from lanopoly.net.framing import ConnectionClosed, FrameError, pack
from lanopoly.net.mesh import Mesh
from lanopoly.net.messages import (
    Ack,
    ActionMsg,
    Bye,
    Freeze,
    Kind,
    Message,
    ProtocolError,
    Reveal,
    parse,
)
from lanopoly.net.verify import NetworkRecord

log = logging.getLogger(__name__)

ACTION_TAG = b"lanopoly/action/v1\x00"
FREEZE_GRACE = 1.0
"""Seconds a peer keeps waiting for the current step's messages after another peer froze."""


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


class Frozen(Exception):
    """Raised inside the step loop to freeze the session."""

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
            },
            "report": None if self.report is None else str(self.report),
            "seconds": round(self.seconds, 3),
        }


EventsCallback = Callable[[Game, list[dict[str, Any]]], None]


class LockstepSession:
    """Plays one game over an agreed mesh. ``policies`` choose the inputs of the seats this peer controls."""

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
    ) -> None:
        self.mesh = mesh
        start = mesh.start
        self.me = mesh.me
        self.game_id = start.game_id
        self.controllers = start.controllers
        self.peer_names = [p.name for p in start.peers]
        self.others = sorted(mesh.links)
        mine = {seat for seat, ctrl in enumerate(start.controllers) if ctrl == mesh.me}
        if set(policies) != mine:
            raise ValueError(f"policies for seats {sorted(policies)} but this peer controls {sorted(mine)}")
        self.policies = dict(policies)
        self.game = Game(list(start.names), board=start.board, rules=Rules(**start.rules), seed=0)
        self.log = GameLog.start(self.game)
        self.log_path = log_path
        self.report_dir = report_dir
        self.step_timeout = step_timeout
        self.save_interval = save_interval
        self.max_steps = max_steps
        self.on_events = on_events
        self.faults: list[Fault] = []
        self._verifiers = {p: ChainVerifier(start.peers[p].anchor, start.chain_length) for p in self.others}
        self._keys = [secure.load_public(p.sign_key) for p in start.peers]
        self._chance_index = 0
        self._step = 1
        self._inbox: dict[tuple[Kind, int], dict[int, Message]] = {}
        self._byes: dict[int, Bye] = {}
        self._lost: dict[int, str] = {}
        self._remote_freeze: tuple[int, Freeze] | None = None
        self._freeze_seen: float | None = None
        self._wake = asyncio.Event()
        self._readers: list[asyncio.Task[None]] = []
        self._last_save = 0.0
        self._save_task: asyncio.Task[None] | None = None
        self.net_record = NetworkRecord(mesh.me, mesh.start_payload, mesh.start_sigs)
        self._step_signed: list[ActionMsg | Reveal] = []

    # ----------------------------------------------------------------------------- helpers

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
            try:
                self.mesh.links[peer].send_payload_nowait(payload)
            except (ConnectionClosed, FrameError) as e:
                self._lost.setdefault(peer, str(e))
        for peer in payloads:
            link = self.mesh.links[peer]
            if peer in self._lost:
                continue
            try:
                await link.writer.drain()
            except (ConnectionError, OSError) as e:
                self._lost.setdefault(peer, f"connection broke: {e}")

    # ----------------------------------------------------------------------------- receiving

    async def _read(self, peer: int) -> None:
        link = self.mesh.links[peer]
        while True:
            try:
                _, raw = await link.recv_raw()
                message = parse(raw)
            except ConnectionClosed as e:
                if peer not in self._byes:
                    self._lost.setdefault(peer, f"disconnected ({e})")
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
        if not isinstance(message, ActionMsg | Reveal | Ack | Freeze | Bye):
            self.fault(peer, "unexpected", f"unexpected {type(message).__name__} during the game")
            return
        if message.game_id != self.game_id:
            self.fault(peer, "wrong_game", f"{type(message).__name__} for another game")
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
        kind = (
            Kind.ACTION if isinstance(message, ActionMsg) else Kind.REVEAL if isinstance(message, Reveal) else Kind.ACK
        )
        if message.step > self._step + 1:
            self.fault(peer, "wrong_step", f"{kind.name} for step {message.step} while at step {self._step}")
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

    async def collect(self, kind: Kind, step: int, peers: list[int], what: str) -> dict[int, Message]:
        """Wait until each of ``peers`` has sent its ``kind`` message for ``step``; freeze on loss or timeout.

        When another peer has frozen the session, keep waiting a moment (``FREEZE_GRACE``) for the
        messages of this step so that this peer makes its own diagnosis (a desync names the peer
        that diverged) instead of only repeating "someone froze".
        """
        deadline = time.monotonic() + self.step_timeout
        while True:
            self._wake.clear()
            box = self._inbox.get((kind, step), {})
            if all(p in box for p in peers):
                return {p: box[p] for p in peers}
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
                lost = [p for p in missing if p in self._lost]
                if lost:
                    reasons = "; ".join(f"{self.peer_label(p)} {self._lost[p]}" for p in lost)
                    raise Frozen(FreezeInfo(step, f"waiting for {what}: {reasons}", tuple(lost)))
                if left <= 0:
                    names = ", ".join(self.peer_label(p) for p in missing)
                    reason = f"no {what} from {names} within {self.step_timeout:g} s"
                    raise Frozen(FreezeInfo(step, reason, tuple(missing)))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), max(left, 0.001))

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
        seat = self.game.current_player
        assert seat is not None and seat >= 0
        ctrl = self.controllers[seat]
        if ctrl == self.me:
            action = self.choose(seat)
            signed = ActionMsg.signed(self.mesh.key, self.game_id, step, prev, seat, action)
            self._step_signed = [signed]
            await self.send_action(signed)
            return action, ctrl
        got = await self.collect(Kind.ACTION, step, [ctrl], f"the action of seat {seat} ({self.game.names[seat]})")
        message = got[ctrl]
        assert isinstance(message, ActionMsg)
        if message.prev_hash != prev:
            raise Frozen(FreezeInfo(step, f"{self.peer_label(ctrl)} acted on a different state", (ctrl,)))
        if message.seat != seat:
            raise Frozen(
                FreezeInfo(step, f"{self.peer_label(ctrl)} acted for seat {message.seat}, not {seat}", (ctrl,))
            )
        self._step_signed = [message]
        return message.action, ctrl

    async def play_step(self) -> None:
        step = self.game.step + 1
        self._step = step
        prev = self.game.state_hash()
        self._step_signed = []
        if self.game.is_chance_node:
            action, actor = await self.chance_input(step, prev), -1
        else:
            action, actor = await self.move_input(step, prev)
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
        ack = Ack(self.game_id, step, *mine)
        await self.send_each({p: pack(self.ack_for(p, ack).to_wire()) for p in self.others})
        got = await self.collect(Kind.ACK, step, self.others, f"the ack of step {step}")
        hashes: dict[int, tuple[bytes, bytes]] = {self.me: mine}
        for peer, message in got.items():
            assert isinstance(message, Ack)
            hashes[peer] = (message.action_hash, message.state_hash)
        self.check_agreement(step, hashes)
        for (kind, s), box in list(self._inbox.items()):
            if s == step:
                for peer in box:
                    if kind is Kind.ACTION and peer != actor:
                        self.fault(peer, "out_of_turn", f"sent an action at step {step} when it was not its turn")
                del self._inbox[(kind, s)]
        self.maybe_save()

    def check_agreement(self, step: int, hashes: dict[int, tuple[bytes, bytes]]) -> None:
        """Freeze unless every peer announced the same (action hash, state hash) as this peer."""
        mine = hashes[self.me]
        if all(h == mine for h in hashes.values()):
            return
        counts = Counter(hashes.values())
        top, n = counts.most_common(1)[0]
        if 2 * n > len(hashes):
            blamed = tuple(p for p, h in sorted(hashes.items()) if h != top)
            basis = "the majority"
        else:
            blamed = tuple(p for p, h in sorted(hashes.items()) if h != mine)
            basis = f"{self.peer_label(self.me)} (no majority)"
        what = "action" if len({a for a, _ in hashes.values()}) > 1 else "state"
        names = ", ".join(self.peer_label(p) for p in blamed)
        reason = f"desync at step {step}: {what} hashes differ; {names} diverged from {basis}"
        raise Frozen(FreezeInfo(step, reason, blamed, dict(hashes)))

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
        )
        report["faults"] = [f.__dict__ for f in self.faults]
        path = report_path(self.report_dir, self.game_id, self.me, freeze.step)
        await asyncio.to_thread(write_atomic, path, json.dumps(report, indent=1, ensure_ascii=False))
        log.error("desync report written to %s", path)
        return path
