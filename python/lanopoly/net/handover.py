"""Out-of-turn moves handed on while a step waits for an in-turn move (protocol 4).

Interjections ride on acks (``net/interjections.py``), so a move queued while the game waits for a
person to decide (buy or not, bid or pass) would wait for that person too. Instead, a peer with a
queued out-of-turn move whose ack carried none sends it, signed for the waiting step, to the
controller of the seat to act (``OFFER``). That controller alone decides the step: while its own
move is not chosen yet (its person is thinking), it may take an offer and ``FORWARD`` it to every
other peer; the step's input is then that move, still signed by its own seat's controller, which
is exactly what ``verify`` accepts for a step. Either way one message decides the step, and the
acks compare it as always. Offers are taken in the interjection order (``net/order.py``) and count
toward the same limit of out-of-turn steps in a row.

A peer offers at most one move per step and only when its ack of the step before carried no
interjection: it never signs two different moves for one step.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from typing import TYPE_CHECKING

from lanopoly.net.framing import ConnectionClosed, FrameError, pack
from lanopoly.net.messages import ActionMsg, Handover, Kind
from lanopoly.net.order import interjection_order

if TYPE_CHECKING:
    from lanopoly.net.lockstep import LockstepSession

log = logging.getLogger("lanopoly.net.lockstep")  # the session's logger: log lines keep their name


class Handovers:
    """A session's offers made and received, and the moves forwarded to it."""

    def __init__(self, session: LockstepSession) -> None:
        self.session = session
        self.waiting: tuple[int, bytes, int] | None = None
        """(step, state before it, controller of the seat to act) while this peer waits for that move."""
        self.offered: dict[int, ActionMsg] = {}
        """This peer's offer for a step (at most one per step)."""
        self.received: dict[int, dict[int, ActionMsg]] = {}
        """Offers made to this peer, by step and by the peer that made them."""
        self.forwarded: dict[int, int] = {}
        """Steps decided by a forwarded move, and the peer that forwarded it."""
        self.arrived = asyncio.Event()
        """Set when an offer arrives (a person's wait for a move also ends for an offer)."""

    # ----------------------------------------------------------------------------- offering

    def wait(self, step: int, prev: bytes, ctrl: int) -> None:
        """This peer starts waiting for ``ctrl``'s move of ``step``: offer a queued move now if there is one."""
        self.waiting = (step, prev, ctrl)
        self.offer()

    def done_waiting(self) -> None:
        self.waiting = None

    def offer(self) -> None:
        """Send the first queued out-of-turn move to the controller we wait for, if this peer may offer one."""
        session = self.session
        if self.waiting is None or not session.interjections.queue:
            return
        step, prev, ctrl = self.waiting
        own_ack = session._acks.get(step - 1, {}).get(session.me)
        if step in self.offered or (own_ack is not None and own_ack.interjection is not None):
            return  # one signed move per step, never two
        game = session.game
        action = session.interjections.queue[0]
        seat = action["player"]
        if game.is_chance_node or seat == game.current_player or not session.interjections.open():
            return
        try:
            session.membership.check(game, action)
        except (ValueError, TypeError, KeyError):
            return  # no longer legal: dropped when the queue is next read
        message = ActionMsg.signed(session.mesh.key, session.game_id, step, prev, seat, action)
        self.offered[step] = message
        link = session.mesh.links.get(ctrl)
        if link is not None and ctrl not in session._lost:
            with contextlib.suppress(ConnectionClosed, FrameError):
                link.send_payload_nowait(pack(Handover(Kind.OFFER, session.game_id, message).to_wire()))
        log.debug("offered %r for step %d to %s", action, step, session.peer_label(ctrl))

    # ----------------------------------------------------------------------------- the controller's side

    def take_offer(self, peer: int, handover: Handover) -> None:
        """File an offer from ``peer``: a move of a seat it controls, signed by it, for a step to come."""
        session = self.session
        message = handover.action
        if not self._signed_by_controller(peer, message):
            session.fault(peer, "forged_action", f"offered an action for seat {message.seat} not signed as its own")
            return
        if message.step < session._step or message.step > session._step + 1:
            log.debug("ignoring an offer for step %d from %s", message.step, session.peer_label(peer))
            return
        self.received.setdefault(message.step, {}).setdefault(peer, message)
        self.arrived.set()

    def pick(self, step: int, prev: bytes) -> ActionMsg | None:
        """The offer this peer (controlling the seat to act) takes for ``step``, in the interjection order."""
        session = self.session
        game = session.game
        offers = self.received.get(step)
        current = game.current_player
        if not offers or current is None or current < 0 or not session.interjections.open():
            return None
        order = interjection_order({p: m.seat for p, m in offers.items()}, current, game.num_players)
        for peer in order:
            message = offers[peer]
            if message.prev_hash != prev or message.seat == current or not session.membership.is_active(peer):
                continue
            try:
                session.membership.check(game, message.action)
            except (ValueError, TypeError, KeyError):
                continue
            return message
        return None

    async def forward(self, message: ActionMsg) -> None:
        """Tell every other peer that ``message`` decides the step (this peer controls the seat to act)."""
        session = self.session
        self.forwarded[message.step] = session.me
        await session.broadcast(Handover(Kind.FORWARD, session.game_id, message))

    # ----------------------------------------------------------------------------- the others' side

    def take_forward(self, link: int, handover: Handover) -> None:
        """File a move forwarded by ``link`` as that peer's decision of the step (checked when the step is played)."""
        session = self.session
        message = handover.action
        if not self._signed_by_controller(-1, message):
            what = f"forwarded an action for seat {message.seat} not signed by its controller"
            session.fault(link, "forged_action", what)
            return
        if message.step > session._step + 1:
            session.fault(link, "wrong_step", f"forwarded a move for step {message.step} while at step {session._step}")
            return
        if message.step < session._step:  # repeated after a rejoin, already played here
            return
        box = session._inbox.setdefault((Kind.ACTION, message.step), {})
        if link in box:
            if box[link] != message:
                session.fault(link, "duplicate", f"second decision for step {message.step} (ignored)")
            return
        box[link] = message
        self.forwarded[message.step] = link
        session._wake.set()

    def is_forwarded(self, step: int, by: int) -> bool:
        """Whether ``by``'s decision of ``step`` is a forwarded move."""
        return self.forwarded.get(step) == by

    # ----------------------------------------------------------------------------- after a step

    def applied(self, step: int, message: ActionMsg | None) -> None:
        """Step ``step`` was decided by ``message``: if it is this peer's offer, its move leaves the queue."""
        mine = self.offered.get(step)
        queue = self.session.interjections.queue
        taken = mine is not None and message is not None and message.signature == mine.signature
        if taken and mine is not None and queue and queue[0] == mine.action:
            queue.pop(0)
        for table in (self.offered, self.received, self.forwarded):
            for old in [s for s in table if s <= step]:
                del table[old]
        self.arrived.clear()

    def _signed_by_controller(self, peer: int, message: ActionMsg) -> bool:
        """Whether the controller of ``message``'s seat signed it (and is ``peer``, unless ``peer`` is -1)."""
        session = self.session
        if message.game_id != session.game_id or message.seat >= len(session.controllers):
            return False
        if message.action.get("player") != message.seat:
            return False
        owner = session.controllers[message.seat]
        return (peer < 0 or owner == peer) and session.catch_up.signed_by_owner(owner, message)
