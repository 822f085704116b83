"""The terminal console: play against bots (and, later, friends on the LAN) in a full-screen app."""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from lanopoly._core import Bot, Rules
from lanopoly.bots import Policy, SimpleBot
from lanopoly.console.app import ConsoleApp
from lanopoly.console.session import LocalTable

__all__ = ["DIFFICULTIES", "ConsoleApp", "LocalTable", "play_solo"]

DIFFICULTIES: dict[str, Callable[[], Policy]] = {
    "easy": SimpleBot,
    "normal": lambda: Bot("heuristic"),
}


def play_solo(
    name: str = "",
    bots: int = 3,
    board: str = "classic",
    rules: Rules | None = None,
    seed: int | None = None,
    delay: float = 0.3,
    difficulty: str = "normal",
) -> int:
    """A game against ``bots`` bots in this terminal; returns the exit status."""
    tokens = _tokens(board)
    name = name or tokens[0]
    others = [t for t in tokens if t != name][:bots]
    table = LocalTable([name, *others], me=0, board=board, rules=rules, seed=seed, bot=DIFFICULTIES[difficulty])
    return asyncio.run(ConsoleApp(table, delay=delay).run())


def _tokens(board: str) -> list[str]:
    from lanopoly._core import Game

    return list(Game(8, board=board).names)
