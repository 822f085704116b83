"""A bid timer alone against bots (issue 14, "Auctions on screen"): the person picks one on the
start screen (off by default, kept in the preferences like the other choices), and it works as on
the LAN (``console/bid_clock.py``): the seconds left show beside the bidders, and when they run out
the console passes for the person. The clock is the console's: the test reads it from a clock of
its own that it moves on, so nothing waits for real seconds."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input

from lanopoly.console import ConsoleApp, LocalTable, Setup, session
from lanopoly.console.prefs import load
from lanopoly.console.saves import last_local
from screen import Terminal, wait_for

DOWN, RIGHT, ENTER = "\x1b[B", "\x1b[C", "\r"
TIMED_OUT = "Time ran out: your console passed for you."


def _shows(text: str) -> Callable[[list[str]], bool]:
    return lambda lines: any(text in line for line in lines)


async def _until(app: ConsoleApp, check: Callable[[list[str]], bool]) -> list[str]:
    """The screen once ``check`` holds for it; fails when it does not within 10 s."""
    lines = await wait_for(app.app, check)
    assert check(lines), "\n".join(lines)
    return lines


def test_a_bid_timer_chosen_on_the_start_screen_passes_for_the_person_when_it_runs_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """zoe moves down to the bid timer (the fifth line), picks 10 s and starts (seed 4: her first
    roll lands on a deed she may buy). The middle of the board says the timer; she declines the
    deed; the auction shows the seconds left; 9 s later she is still in; once the 10 s are out the
    console has passed for her and says so, until the game is back to her (issue 14, item 7: it
    stayed until her next command). The timer is remembered, and kept in the saved game.

    The bots play without a pause: the message may be said and gone between two frames, so the
    test reads what the console said (``say``) as well as the message line."""
    now = [1000.0]
    told: list[str] = []

    async def run() -> tuple[ConsoleApp, list[str]]:
        with create_pipe_input() as pipe:
            opened: list[ConsoleApp] = []
            running = asyncio.create_task(
                session(Setup(), ask=True, seed=4, delay=0, input=pipe, output=Terminal(), started=opened.append)
            )
            pipe.send_text("zoe" + DOWN * 4 + RIGHT + ENTER)
            while not opened and not running.done():
                await asyncio.sleep(0.005)
            app = opened[0]
            app.clock._now = lambda: now[0]  # the console's clock, moved on by the test
            say = app.say

            def recorded(style: str, text: str, **how: Any) -> None:
                told.append(text)
                say(style, text, **how)

            monkeypatch.setattr(app, "say", recorded)
            await _until(app, _shows("bid timer 10 s, then your console passes for you"))
            pipe.send_text("roll\r")
            await _until(app, lambda _: {"buy", "decline"} <= {a["type"] for a in app.table.legal()})
            pipe.send_text("decline\r")
            counting = await _until(app, _shows("10 s left to bid"))
            now[0] += 9
            await _until(app, _shows("1 s left to bid"))
            auction = app.table.game.auction
            assert auction is not None and 0 in auction["bidders"], "still in with 1 s left"
            now[0] += 1.5
            await _until(app, lambda _: TIMED_OUT in (*told, app.feedback[1]))
            auction = app.table.game.auction
            assert auction is None or 0 not in auction["bidders"], auction
            assert "zoe passes." in app.table.lines, app.table.lines
            # the message goes once the game is back to zoe (it used to stay until her next command)
            await _until(app, lambda _: app.table.my_move and app.table.game.auction is None)
            await _until(app, lambda _: app.feedback == ("class:hint", ""))
            pipe.send_text("quit\ry\r")
            assert await asyncio.wait_for(running, timeout=10) == 0
            return app, counting

    app, counting = asyncio.run(asyncio.wait_for(run(), 60))
    assert app.table.bid_timer == 10
    assert any("still in:" in line and "10 s left to bid" in line for line in counting), counting
    assert load().bid_timer == 10, "kept in the preferences"
    saved = last_local()
    assert saved is not None and json.loads(saved.path.read_text())["table"]["bid_timer"] == 10


def test_no_bid_timer_by_default_and_the_person_decides_as_long_as_they_like():
    """Off by default: the start screen says so, and the auction waits for the person however long
    the console's clock runs."""
    now = [1000.0]

    async def run() -> ConsoleApp:
        with create_pipe_input() as pipe:
            opened: list[ConsoleApp] = []
            running = asyncio.create_task(
                session(Setup(), ask=True, seed=4, delay=0, input=pipe, output=Terminal(), started=opened.append)
            )
            pipe.send_text(ENTER)
            while not opened and not running.done():
                await asyncio.sleep(0.005)
            app = opened[0]
            app.clock._now = lambda: now[0]
            pipe.send_text("roll\r")
            await _until(app, lambda _: {"buy", "decline"} <= {a["type"] for a in app.table.legal()})
            pipe.send_text("decline\r")
            await _until(app, lambda _: app.table.game.auction is not None and app.table.game.current_player == 0)
            now[0] += 3600
            pipe.send_text("info\r")  # a key and a redraw, an hour later
            lines = await _until(app, _shows("still in:"))
            auction = app.table.game.auction
            assert auction is not None and 0 in auction["bidders"]
            assert not any("s left to bid" in line for line in lines), lines
            pipe.send_text("quit\ry\r")
            assert await asyncio.wait_for(running, timeout=10) == 0
            return app

    app = asyncio.run(asyncio.wait_for(run(), 60))
    assert app.table.bid_timer == 0 and load().bid_timer == 0


def test_the_auction_lines_wrap_in_the_middle_rather_than_lose_the_seconds_left() -> None:
    """Found in the French tmux run at 80x24: beside "chapeau haut-de-forme", the bidders' line was
    cut to "19 s pour enc". It now goes on to a second row, whole, under the board's other lines."""
    table = LocalTable(["ann", "chapeau haut-de-forme"], me=0, seed=2, lang="fr", bid_timer=20)
    while table.step():
        pass
    table.act({"type": "roll", "player": 0})
    while table.game.is_chance_node:
        table.step()
    table.act({"type": "decline", "player": 0})
    assert table.game.auction is not None

    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=30, input=pipe, output=Terminal(80, 24))
            app.clock._now = lambda: 1000.0  # the clock stands still: 20 s left
            running = asyncio.create_task(app.run())
            lines = await _until(app, _shows("encore en lice"))
            pipe.send_text("\x11")  # Ctrl-Q
            await asyncio.wait_for(running, 10)
            return lines

    screen = asyncio.run(run())
    middle = " ".join(line[11:70].strip() for line in screen[2:11])
    assert "encore en lice : ann, chapeau haut-de-forme · 20 s pour enchérir" in middle, "\n".join(screen)
    assert all(len(line) <= 80 for line in screen)
