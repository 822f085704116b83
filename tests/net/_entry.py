"""Entry point of a peer process in the network tests: ``python tests/net/_entry.py host|join ...``.

It runs the real CLI (``lanopoly.net.cli``). ``LANOPOLY_TEST_MISBEHAVE`` turns the peer into a
faulty one, for the fault tests only:

- ``forge:K``: from step K on, once, send an action for a seat another peer controls, signed with
  its own key (the only one it has);
- ``replay:K``: from step K on, once, re-send byte for byte a signed action another peer sent
  earlier, and one of its own earlier signed actions;
- ``lie:K``: send a wrong state hash in the ack of step K.
"""

from __future__ import annotations

import os
import sys
from typing import Any

from lanopoly.net import cli
from lanopoly.net.lockstep import LockstepSession
from lanopoly.net.messages import Ack, ActionMsg, Message


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
            return Ack(ack.game_id, ack.step, ack.action_hash, bytes(32))
        return ack


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
    return cli.main(sys.argv[1:], session_cls)


if __name__ == "__main__":
    sys.exit(main())
