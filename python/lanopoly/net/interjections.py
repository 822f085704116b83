"""Out-of-turn actions ("interjections") of a lockstep session.

The engine lets any seat act at any time in some ways (bids in an open auction, building, selling,
mortgages, trade offers and answers, rent claims). A peer's ack of step k may carry one signed
``ACTION`` for step k+1, bound to k+1 and the state after k, for a seat it controls that is not the
one to act: a resignation due on a ``bank`` vote (``net/voting.py``), else from the queue of
``interject`` (the console), else from the seat's policy's optional ``interject(game, seat,
legal)``. It is checked with the engine before it is sent. At step k+1 every peer tries the carried
interjections in the order of ``order``; an invalid one (bad binding or signature, the seat to act,
or illegal: an out-of-range bid) is rejected, logged as a fault naming its sender and skipped,
identically on every peer; the game goes on. Interjections that were not taken are dropped; their
policies are asked again after the step. After as many interjected steps in a row as there are
peers, the seat to act plays.
"""

from __future__ import annotations

import logging
from collections import Counter
from typing import TYPE_CHECKING

from lanopoly._core import IllegalAction
from lanopoly.bots import Action
from lanopoly.net.messages import ActionMsg
from lanopoly.net.order import interjection_order, interjections_open

if TYPE_CHECKING:
    from lanopoly.net.lockstep import LockstepSession

log = logging.getLogger("lanopoly.net.lockstep")  # the session's logger: log lines keep their name


class Interjections:
    """The out-of-turn actions of one session: those queued here, those offered, those taken."""

    def __init__(self, session: LockstepSession) -> None:
        self.session = session
        self.queue: list[Action] = []
        """Out-of-turn actions queued with ``interject`` and not sent yet."""
        self.run = 0
        """Steps in a row decided by interjections, up to the last one played."""
        self.taken: Counter[str] = Counter()
        """Steps decided by an out-of-turn action, by action type."""
        self.interjectors: set[int] = set()
        """The peers whose out-of-turn actions were taken."""
        self.contested = 0
        """Steps for which several peers interjected at once."""

    def open(self) -> bool:
        """Whether the run of interjected steps leaves room for another one."""
        return interjections_open(self.run, len(self.session.peer_names))

    def interject(self, action: Action) -> None:
        """Queue an out-of-turn action of a seat this peer controls (see ``LockstepSession.interject``)."""
        session = self.session
        seat = action.get("player") if isinstance(action, dict) else None
        if not isinstance(seat, int) or seat not in session.policies:
            raise IllegalAction(f"seat {seat} is not played on this peer")
        if session.game.is_over:
            raise IllegalAction("the game is over")
        if seat == session.game.current_player:
            raise IllegalAction(f"seat {seat} is the one to act: its move is played in turn, not out of turn")
        session.game.check(action)
        self.queue.append(dict(action))
        session.handovers.offer()  # the step under way may wait for a person: offer it at once

    def offer(self) -> tuple[int, Action] | None:
        """The out-of-turn action this peer offers for the next step (see ``LockstepSession.next_interjection``)."""
        session = self.session
        game = session.game
        if game.is_over or game.is_chance_node or not self.open():
            return None
        current = game.current_player
        assert current is not None
        for seat in sorted(session.membership.resigning):
            resign = session.resignation(seat) if seat != current else None
            if resign is not None:
                return seat, resign
        while self.queue:
            action = self.queue.pop(0)
            seat = action["player"]
            try:
                if seat == current:
                    raise IllegalAction(f"seat {seat} is now the one to act")
                session.membership.check(game, action)
            except (ValueError, TypeError, KeyError) as e:
                log.info("queued out-of-turn action %r dropped: %s", action, e)
                continue
            return seat, action
        seats = game.num_players
        for seat in sorted(session.policies, key=lambda s: (s - current - 1) % seats):
            interject = getattr(session.policies[seat], "interject", None)
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
                session.membership.check(game, action)
            except (ValueError, TypeError, KeyError, AttributeError) as e:
                log.warning("the policy of seat %d offered an illegal out-of-turn action %r: %s", seat, action, e)
                continue
            return seat, action
        return None

    def pick(self, step: int, prev: bytes) -> ActionMsg | None:
        """The interjection that is step ``step``'s input, from the acks of the step before (or None).

        The order is ``order``'s; each candidate is validated in that order until one passes;
        those that fail are faults of their senders. Only shared data is used, so every peer picks
        the same one.
        """
        session = self.session
        acks = session._acks.get(step - 1, {}).items()
        # A peer voted out (or already replaced) from this step offers nothing: the same whether or not
        # the change is made yet on this peer.
        carried = {
            p: a.interjection
            for p, a in acks
            if a.interjection is not None
            and session.membership.is_active(p)
            and not session.voting.voted_out(p, step)
            and not session.voting.replaced_from(p, step)
        }
        if not carried:
            return None
        if session.game.is_chance_node or not self.open():
            for peer in sorted(carried):
                session.fault(peer, "out_of_turn", f"interjected at step {step}, which takes no out-of-turn action")
            return None
        current = session.game.current_player
        assert current is not None and current >= 0
        self.contested += len(carried) > 1
        order = interjection_order({p: m.seat for p, m in carried.items()}, current, session.game.num_players)
        for peer in order:
            message = carried[peer]
            if self.valid(peer, message, step, prev, current):
                return message
        return None

    def valid(self, peer: int, message: ActionMsg, step: int, prev: bytes, current: int) -> bool:
        """Whether ``peer``'s interjection may be step ``step``'s input; a fault naming ``peer`` if not."""
        session = self.session
        if message.game_id != session.game_id or message.step != step or message.prev_hash != prev:
            session.fault(
                peer, "stale", f"interjected an action bound to another game, step or state: {message.action}"
            )
            return False
        if not session.check_signed(peer, message):
            return False
        if message.action.get("player") != message.seat:
            session.fault(peer, "forged_action", f"interjected for seat {message.seat} an action of another seat")
            return False
        if message.seat == current:
            session.fault(peer, "out_of_turn", f"interjected for seat {current}, the seat to act (it acts in turn)")
            return False
        try:
            session.membership.check(session.game, message.action)
        except (ValueError, TypeError, KeyError) as e:
            session.fault(peer, "illegal_action", f"interjected an illegal action {message.action}: {e}")
            return False
        return True

    def took(self, message: ActionMsg, actor: int) -> None:
        """``message``, an interjection of ``actor``, decided the step being played."""
        self.run += 1
        self.taken[str(message.action.get("type"))] += 1
        self.interjectors.add(actor)
