"""The terminal console: play against bots (and, later, friends on the LAN) in a full-screen app.

A start screen (name, token, bots, difficulty, board, rules, language) comes first unless the
table is given on the command line; then the game screen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from lanopoly._core import Bot, Rules
from lanopoly.bots import Policy, SimpleBot
from lanopoly.console.app import ConsoleApp
from lanopoly.console.session import LocalTable
from lanopoly.console.start import Setup, StartScreen
from lanopoly.i18n import default_board

__all__ = ["DIFFICULTIES", "ConsoleApp", "LocalTable", "Setup", "StartScreen", "play_console", "play_solo", "session"]

DIFFICULTIES: dict[str, Callable[[], Policy]] = {
    "easy": SimpleBot,
    "normal": lambda: Bot("heuristic"),
}


def table_for(setup: Setup, seed: int | None = None, rounds: int = 0) -> LocalTable:
    """The table a setup describes (``rounds`` overrides the preset's round limit)."""
    rules = Rules.preset(setup.rules, **({"round_limit": rounds} if rounds else {}))
    return LocalTable(
        setup.seat_names(),
        me=0,
        board=setup.board,
        rules=rules,
        seed=seed,
        bot=DIFFICULTIES[setup.difficulty],
        lang=setup.lang,
    )


async def session(
    setup: Setup,
    *,
    ask: bool,
    seed: int | None = None,
    rounds: int = 0,
    delay: float = 0.3,
    input: Input | None = None,
    output: Output | None = None,
    started: Callable[[ConsoleApp], None] | None = None,
) -> int:
    """The start screen (when ``ask``, pre-filled with ``setup``), then the game; the exit status.
    ``started`` sees the game screen as it opens (tests drive it through it)."""
    if ask:
        chosen = await StartScreen(setup, input=input, output=output).run()
        if chosen is None:
            return 0
        setup = chosen
    app = ConsoleApp(table_for(setup, seed, rounds), delay=delay, input=input, output=output)
    if started is not None:
        started(app)
    return await app.run()


def play_console(setup: Setup, *, ask: bool, seed: int | None = None, rounds: int = 0, delay: float = 0.3) -> int:
    """The console in this terminal: start screen (if ``ask``) and game; returns the exit status."""
    return asyncio.run(session(setup, ask=ask, seed=seed, rounds=rounds, delay=delay))


def play_solo(
    name: str = "",
    bots: int = 3,
    board: str | None = None,
    rules: Rules | None = None,
    seed: int | None = None,
    delay: float = 0.3,
    difficulty: str = "normal",
    lang: str = "en",
) -> int:
    """A game against ``bots`` bots in this terminal, no start screen; returns the exit status."""
    setup = Setup(name=name, bots=bots, difficulty=difficulty, board=board or default_board(lang), lang=lang)
    table = LocalTable(
        setup.seat_names(),
        me=0,
        board=setup.board,
        rules=rules,
        seed=seed,
        bot=DIFFICULTIES[difficulty],
        lang=lang,
    )
    return asyncio.run(ConsoleApp(table, delay=delay).run())
