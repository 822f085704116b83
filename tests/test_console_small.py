"""Below 80x24 every console screen is replaced by one asking for a larger window, in the
person's language, instead of a board clipped without a word; played through the real
applications on a pipe."""

from __future__ import annotations

import asyncio

import pytest
from prompt_toolkit.input import create_pipe_input

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
    assert screen[10].startswith("JAIL") and "GO" in screen[10][70:]  # the bottom row, GO included
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
