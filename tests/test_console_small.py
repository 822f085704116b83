"""Below 80x24 every console screen is replaced by one asking for a larger window, in the
person's language, instead of a board clipped without a word; played through the real
applications on a pipe."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input

from conftest import dice, roll
from lanopoly.console import ConsoleApp, LocalTable, Setup, StartScreen
from lanopoly.i18n import t
from screen import Terminal, wait_for


def _game_screen(columns: int, rows: int, lang: str = "en") -> list[str]:
    """The game screen of a new solo game in a terminal of ``columns`` x ``rows``."""
    table = LocalTable(["ada", "bea"], me=0, seed=1, lang=lang)

    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=0, input=pipe, output=Terminal(columns, rows))
            running = asyncio.create_task(app.run())
            lines = await wait_for(app.app, lambda screen: any(line.strip() for line in screen))
            pipe.send_text("\x11")  # Ctrl-Q still quits
            assert await asyncio.wait_for(running, timeout=10) == 0
            return lines

    return asyncio.run(run())


def _enlarge(lang: str, columns: int, rows: int) -> str:
    return t(lang, "small.enlarge", columns=80, rows=24, width=columns, height=rows)


@pytest.mark.parametrize(("columns", "rows"), [(60, 20), (79, 24), (80, 23), (40, 12)])
def test_a_game_below_80x24_asks_for_a_larger_window_instead_of_a_clipped_board(columns: int, rows: int) -> None:
    screen = _game_screen(columns, rows)
    assert " ".join(" ".join(screen).split()) == _enlarge("en", columns, rows)
    assert "Window too small" not in "\n".join(screen)


def test_at_80x24_the_whole_board_shows() -> None:
    screen = _game_screen(80, 24)
    assert screen[0].startswith("FREE") and "COPS" in screen[0][70:]  # the top row, corner to corner
    assert screen[11].startswith("JAIL") and "GO" in screen[11][70:]  # the bottom row, GO included
    assert "Enlarge" not in "\n".join(screen)


@pytest.mark.parametrize("lang", ["fr", "it", "no"])
def test_the_notice_speaks_the_language_of_the_start_screen(lang: str) -> None:
    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            screen = StartScreen(Setup(lang=lang), input=pipe, output=Terminal(70, 24))
            running = asyncio.create_task(screen.run())
            lines = await wait_for(screen.app, lambda shown: any(line.strip() for line in shown))
            pipe.send_text("\x1b")
            await asyncio.wait_for(running, timeout=10)
            return lines

    shown = asyncio.run(run())
    assert " ".join(" ".join(shown).split()) == _enlarge(lang, 70, 24)
    assert all(len(line) <= 70 for line in shown)


def test_the_notice_wraps_between_words_in_a_narrow_window() -> None:
    screen = _game_screen(40, 12, lang="fr")
    words = _enlarge("fr", 40, 12).split()
    assert [w for line in screen for w in line.split()] == words


def test_on_the_screen_no_label_touches_its_marks() -> None:
    """At 80x24 a label and its owner, buildings and token marks read apart: on the sides a space
    after the label, on the top and bottom rows a line of marks under the labels."""
    table = LocalTable(["ada", "bea", "cy"], me=0, seed=1)
    game = table.game
    for seat in range(3):  # the order roll: ada starts
        game.apply(dice(6, 6) if seat == 0 else dice(1, 2))
    roll(game, 1, 2)  # ada to Baltic Avenue, bought
    game.apply({"type": "buy", "player": 0})
    game.apply({"type": "end_turn", "player": 0})
    roll(game, 6, 5)  # bea to St. Charles Place, bought
    game.apply({"type": "buy", "player": 1})

    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=10, input=pipe, output=Terminal(80, 24))
            running = asyncio.create_task(app.run())
            lines = await wait_for(app.app, lambda screen: screen[11].startswith("JAIL"))
            pipe.send_text("\x11")
            assert await asyncio.wait_for(running, timeout=10) == 0
            return lines

    screen = run_app(run)
    assert screen[10].startswith("StCh 2  @2 ")  # label, space, owner 2, no building, bea's token
    assert screen[11][49:56] == "Balt   " and screen[12][49:56] == "1  @1  "  # owner 1, ada on it
    assert all(row[4] == " " and row[74:75] in ("", " ") for row in screen[2:11]), screen  # side labels: a space after


def run_app(run: Callable[[], Coroutine[Any, Any, list[str]]]) -> list[str]:
    return asyncio.run(run())
