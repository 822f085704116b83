"""A newcomer reaches building (issue 14's leftover: in a live run the bots would not sell a colour
group, so building was never reached). The rules make a player own a whole colour group before
building; a bot sells the last street of a group when paid for what the group is worth to the
buyer (the normal bot: the street's price and half the group's), so a person builds by buying it
in the trade panel. Played through the real application at 80x24, keys and typed commands only.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from prompt_toolkit.input import create_pipe_input

from conftest import dice
from lanopoly import Rules
from lanopoly.bots import DIFFICULTIES
from lanopoly.console import ConsoleApp, LocalTable
from screen import Terminal, wait_for

F9, DOWN, RIGHT, PAGE_UP = "\x1b[20~", "\x1b[B", "\x1b[C", "\x1b[5~"
PAUSE = 30.0
"""Seconds a bot waits after each of its moves: longer than the test (only answers come at once)."""


def _ann_holds_a_brown_and_bea_the_other(bot: str) -> LocalTable:
    """ann (the person) is dealt Mediterranean Avenue, bea (a bot of level ``bot``) Baltic Avenue;
    ann's turn, before her roll."""
    table = LocalTable(["ann", "bea"], me=0, seed=3, bot=DIFFICULTIES[bot], rules=Rules(starting_deeds=1))
    table.act({"type": "deed", "square": 1})
    table.act({"type": "deed", "square": 3})
    table.act(dice(6, 6))
    table.act(dice(1, 2))
    assert table.my_move and table.game.square(3)["owner"] == 1
    return table


def _play(table: LocalTable, steps: list[tuple[str, Callable[[list[str]], bool]]]) -> list[list[str]]:
    """Each step's keys, then the screen once its check holds (failing with the screen if it never does)."""

    async def session() -> list[list[str]]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=PAUSE, input=pipe, output=Terminal(80, 24))
            running = asyncio.create_task(app.run())
            await wait_for(app.app, lambda lines: any("ann" in line for line in lines))
            screens = []
            for keys, check in steps:
                pipe.send_text(keys)
                screen = await wait_for(app.app, check)
                assert check(screen), "\n".join(screen)
                screens.append(screen)
            pipe.send_text("\x11")  # Ctrl-Q
            assert await asyncio.wait_for(running, timeout=30) == 0
            return screens

    return asyncio.run(session())


def test_a_newcomer_buys_the_last_street_of_a_group_in_the_panel_and_builds() -> None:
    """ann offers bea $120 for Baltic Avenue in the trade panel (F9, Down to her cash, PageUp and
    ++, Right to bea's side, Space on Baltic, Enter): the normal bot accepts at once; "build
    mediterranean" builds a house, the board shows it ("1·1" under Medi) and the log says it."""
    table = _ann_holds_a_brown_and_bea_the_other("normal")
    screens = _play(
        table,
        [
            (
                F9 + DOWN + PAGE_UP + "++" + RIGHT + " ",
                lambda lines: any("[x] Baltic Avenue" in line for line in lines),
            ),
            ("\r", lambda lines: table.game.square(3)["owner"] == 0),
            ("build mediterranean\r", lambda lines: "1·1" in lines[12]),
        ],
    )
    assert "bea accepts the trade offered by ann: $120 for Baltic Avenue." in table.lines, table.lines[-4:]
    assert "ann builds on Mediterranean Avenue: now 1 house." in table.lines, table.lines[-4:]
    assert screens[-1][11][63:67] == "Medi" and screens[-1][12][63:68] == "1·1  ", "\n".join(screens[-1])


def test_a_bot_will_not_sell_the_last_street_of_a_group_for_its_price_alone() -> None:
    """What the live run met: $60, Baltic Avenue's price, does not buy it (the group is worth more
    to ann than the street to bea), and nothing said why, so the newcomer never built. The message
    line now says why and what would: a price well above the street's."""
    table = _ann_holds_a_brown_and_bea_the_other("normal")
    told = "bea kept Baltic Avenue: it would complete your group, so bots sell it only for well above its price"
    (_, refused) = _play(
        table,
        [
            (F9 + DOWN + "++++++" + RIGHT + " ", lambda lines: any("[x] Baltic Avenue" in line for line in lines)),
            ("\r", lambda lines: told in " ".join(line.strip() for line in lines)),
        ],
    )
    assert "bea rejects the trade offered by ann." in table.lines
    assert table.game.square(3)["owner"] == 1
    assert "A whole group lets you build." in " ".join(line.strip() for line in refused)


def test_the_french_reason_agrees_with_a_feminine_streets_name() -> None:
    """The same refusal in French, of Rue Lecourbe: "elle compléterait votre groupe, et les robots
    ne la cèdent..." ("il compléterait... ne le cèdent" was said of every street)."""
    table = LocalTable(["ann", "bea"], me=0, seed=3, lang="fr", board="paris", rules=Rules(starting_deeds=1))
    table.act({"type": "deed", "square": 1})
    table.act({"type": "deed", "square": 3})
    table.act(dice(6, 6))
    table.act(dice(1, 2))
    told = "bea garde Rue Lecourbe : elle compléterait votre groupe, et les robots ne la cèdent"
    _play(
        table,
        [
            (F9 + DOWN + "++++++" + RIGHT + " ", lambda lines: any("[x] Rue Lecourbe" in line for line in lines)),
            ("\r", lambda lines: told in " ".join(line.strip() for line in lines)),
        ],
    )
    assert table.game.square(3)["owner"] == 1
