"""A table on this machine: one person against bots, stepped by the console's event loop.

The table owns the game and the log of sentences; the user interface only reads it and sends the
person's commands. Bots and chance move the game on one step at a time, so the screen can show
each step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lanopoly._core import Game, Rules
from lanopoly.bots import Policy, SimpleBot
from lanopoly.describe import describe
from lanopoly.log import GameLog

Action = dict[str, Any]


class LocalTable:
    """One human seat (``me``) and bots in the others."""

    def __init__(
        self,
        names: list[str],
        me: int = 0,
        board: str = "classic",
        rules: Rules | None = None,
        seed: int | None = None,
        bot: Callable[[], Policy] = SimpleBot,
    ) -> None:
        self.game = Game(names, board=board, rules=rules, seed=seed)
        self.me = me
        self.bots: dict[int, Policy] = {seat: bot() for seat in range(len(names)) if seat != me}
        self.lines: list[str] = []
        self.record = GameLog.start(self.game)

    @property
    def my_move(self) -> bool:
        """Does the game wait for the person?"""
        return self.game.current_player == self.me

    @property
    def over(self) -> bool:
        return self.game.is_over

    def step(self) -> bool:
        """Let chance or one bot move the game on by one input. False if the person must act
        (or the game is over)."""
        game = self.game
        if game.is_over or self.my_move:
            return False
        if game.is_chance_node:
            action = game.sample_chance()
        else:
            seat = game.current_player
            assert seat is not None
            action = self.bots[seat].choose(game, seat, game.legal_actions(seat))
        self._apply(action)
        return True

    def act(self, action: Action) -> None:
        """Apply the person's move; raises IllegalAction with the reason (nothing changes)."""
        self._apply(action)

    def legal(self) -> list[Action]:
        """What the person may do now (in turn or out of turn)."""
        if self.game.is_over or self.game.is_chance_node:
            return []
        return self.game.legal_actions(self.me)

    def _apply(self, action: Action) -> None:
        events = self.game.apply(action)
        self.record.record(action, self.game)
        for event in events:
            line = describe(self.game, event)
            if line:
                self.lines.append(line)
