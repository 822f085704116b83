"""Entry point of a peer process in the network tests: ``python tests/net/_entry.py host|join ...``.

It runs the real CLI (``lanopoly.net.cli``). ``LANOPOLY_TEST_MISBEHAVE`` turns the peer into a
faulty one, for the fault tests only:

- ``forge:K``: from step K on, once, send an action for a seat another peer controls, signed with
  its own key (the only one it has);
- ``replay:K``: from step K on, once, re-send byte for byte a signed action another peer sent
  earlier, and one of its own earlier signed actions;
- ``lie:K``: send a wrong state hash in the ack of step K;
- ``badbid:K``: from step K on, in an auction, interject (in its acks) a correctly signed bid far
  above its cash for one of its seats, until its own session has rejected one (every peer rejects
  the same one: the session checks its own interjections like anyone's);
- ``equivocate:K``: from step K on, interject a legal out-of-turn action in its ack to peer 0 only
  (the others get an ack without it), every step it can, until the game freezes;
- ``silent:K``: at its first chance step from step K on, reveal nothing (and send nothing more),
  with its connections left open;
- ``equivocate-action:K``: at its first in-turn move from step K on, send one legal action to peer
  0 and another legal action to the other peers, both signed;
- ``keep:K``: seats it takes over on a ``bank`` vote are never resigned: its bot plays them (K unused).

One mode is honest, for games that must contain an auction:

- ``thrifty:N``: declines its first N purchases (each then goes to auction, where the others bid).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from lanopoly.net import cli
from lanopoly.net.framing import pack
from lanopoly.net.lockstep import LockstepSession
from lanopoly.net.messages import Ack, ActionMsg, Kind, Message, Reveal


class Forger(LockstepSession):
    """Sends one forged action for a seat it does not control, then plays honestly."""

    forge_at = 0
    forged = False

    async def move_input(self, step: int, prev: bytes) -> tuple[dict[str, Any], int]:
        seat = self.game.current_player
        assert seat is not None
        if not self.forged and step >= self.forge_at and self.controllers[seat] != self.me:
            self.forged = True
            action = self.game.legal_actions(seat)[0]
            await self.broadcast(ActionMsg.signed(self.mesh.key, self.game_id, step, prev, seat, action))
        return await super().move_input(step, prev)


class Replayer(LockstepSession):
    """Keeps the first signed action it receives and its own first one, and re-sends both once later."""

    replay_at = 0
    theirs: ActionMsg | None = None
    mine: ActionMsg | None = None
    replayed = False

    def dispatch(self, peer: int, message: Message) -> None:
        if self.theirs is None and isinstance(message, ActionMsg):
            self.theirs = message
        super().dispatch(peer, message)

    async def send_action(self, message: ActionMsg) -> None:
        if self.mine is None:
            self.mine = message
        await super().send_action(message)

    async def move_input(self, step: int, prev: bytes) -> tuple[dict[str, Any], int]:
        if not self.replayed and step >= self.replay_at and self.theirs is not None and self.mine is not None:
            self.replayed = True
            await self.broadcast(self.theirs)
            await self.broadcast(self.mine)
        return await super().move_input(step, prev)


class Liar(LockstepSession):
    """Announces a wrong state hash in its ack of one step."""

    lie_at = 0

    def ack_for(self, peer: int, ack: Ack) -> Ack:
        if ack.step == self.lie_at:
            return Ack.signed(self.mesh.key, ack.game_id, ack.step, self.me, ack.action_hash, bytes(32))
        return ack


def _can_interject(session: LockstepSession) -> bool:
    game = session.game
    return not game.is_over and not game.is_chance_node and session.interjections.open()


class BadBidder(LockstepSession):
    """Interjects an out-of-range bid during an auction until one has been rejected.

    To be sure an auction comes, it declines every purchase of its own until then (a game of bots
    that buy everything may have none).
    """

    bad_at = 0

    def rejected(self) -> bool:
        return any(f.kind == "illegal_action" and f.peer == self.me for f in self.faults)

    def choose(self, seat: int) -> dict[str, Any]:
        if not self.rejected() and self.game.step + 1 >= self.bad_at:
            decline = [a for a in self.game.legal_actions(seat) if a.get("type") == "decline"]
            if decline:
                return decline[0]
        return super().choose(seat)

    def next_interjection(self) -> tuple[int, dict[str, Any]] | None:
        game = self.game
        rejected = self.rejected()
        if not rejected and game.step + 1 >= self.bad_at and _can_interject(self) and game.auction is not None:
            for seat in self.policies:
                bidding = seat in game.auction.get("bidders", []) and game.auction.get("high_bidder") != seat
                if seat != game.current_player and bidding:
                    amount = int(game.player(seat)["cash"]) + 10_000
                    return seat, {"type": "bid", "player": seat, "amount": amount}
        return super().next_interjection()


class AckEquivocator(LockstepSession):
    """Tells peer 0 about an out-of-turn action in its ack and the other peers nothing."""

    equivocate_at = 0
    secret: ActionMsg | None = None

    def next_interjection(self) -> tuple[int, dict[str, Any]] | None:
        self.secret = None
        game = self.game
        if game.step + 1 >= self.equivocate_at and _can_interject(self):
            for seat in self.policies:
                legal = [] if seat == game.current_player else game.legal_actions(seat)
                if legal:
                    step, prev = game.step + 1, game.state_hash()
                    self.secret = ActionMsg.signed(self.mesh.key, self.game_id, step, prev, seat, legal[0])
                    return None
        return super().next_interjection()

    def ack_for(self, peer: int, ack: Ack) -> Ack:
        if peer != 0 or self.secret is None or ack.interjection is not None:
            return ack
        return Ack.signed(self.mesh.key, ack.game_id, ack.step, self.me, ack.action_hash, ack.state_hash, self.secret)


class ActionEquivocator(LockstepSession):
    """Sends one in-turn action to peer 0 and another to the other peers, once."""

    equivocate_at = 0
    done = False

    async def send_action(self, message: ActionMsg) -> None:
        others = [a for a in self.game.legal_actions(message.seat) if a != message.action]
        if self.done or message.step < self.equivocate_at or not others:
            await super().send_action(message)
            return
        self.done = True
        twin = ActionMsg.signed(self.mesh.key, self.game_id, message.step, message.prev_hash, message.seat, others[0])
        first, second = pack(message.to_wire()), pack(twin.to_wire())
        await self.send_each({p: first if p == 0 else second for p in self.others})


class Keeper(LockstepSession):
    """Takes over the seats voted out to the bank but never resigns them: its bot plays them instead."""

    def resignation(self, seat: int) -> dict[str, Any] | None:
        return None

    def check_move(self, step: int, peer: int, action: dict[str, Any], verb: str) -> None:
        if peer != self.me:  # it does not hold its own moves to the vote
            super().check_move(step, peer, action, verb)


class Thrifty(LockstepSession):
    """Plays honestly but declines its first N purchases, so the game surely has auctions.

    A game of bots that buy what they can afford may have none in 30 rounds (the dice decide).
    """

    declines = 0

    def choose(self, seat: int) -> dict[str, Any]:
        if self.declines > 0:
            decline = [a for a in self.game.legal_actions(seat) if a.get("type") == "decline"]
            if decline:
                type(self).declines -= 1
                return decline[0]
        return super().choose(seat)


class Silent(LockstepSession):
    """Stops revealing at its first chance step from step K on, but keeps its connections open."""

    silent_at = 0

    def early_reveal(self, step: int, prev: bytes) -> Reveal | None:
        return None if step >= self.silent_at else super().early_reveal(step, prev)

    async def chance_input(self, step: int, prev: bytes) -> dict[str, Any]:
        if step >= self.silent_at:  # wait for nothing, as long as it takes: only a FREEZE ends this
            self.step_timeout = 3600.0
            await self.collect(Kind.ACTION, step, self.others, "nothing")
        return await super().chance_input(step, prev)


def main() -> int:
    mode, _, at = os.environ.get("LANOPOLY_TEST_MISBEHAVE", "").partition(":")
    session_cls: type[LockstepSession] = LockstepSession
    if mode == "forge":
        Forger.forge_at = int(at)
        session_cls = Forger
    elif mode == "replay":
        Replayer.replay_at = int(at)
        session_cls = Replayer
    elif mode == "lie":
        Liar.lie_at = int(at)
        session_cls = Liar
    elif mode == "badbid":
        BadBidder.bad_at = int(at)
        session_cls = BadBidder
    elif mode == "equivocate":
        AckEquivocator.equivocate_at = int(at)
        session_cls = AckEquivocator
    elif mode == "silent":
        Silent.silent_at = int(at)
        session_cls = Silent
    elif mode == "keep":
        session_cls = Keeper
    elif mode == "thrifty":
        Thrifty.declines = int(at)
        session_cls = Thrifty
    elif mode == "equivocate-action":
        ActionEquivocator.equivocate_at = int(at)
        session_cls = ActionEquivocator
    return cli.main(sys.argv[1:], session_cls)


if __name__ == "__main__":
    sys.exit(main())
