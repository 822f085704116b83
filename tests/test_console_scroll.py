"""The log at 80x24: the end-of-game summary and the command list are read from their top, and
PageUp/PageDown scroll the log; played through the real application on a pipe."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import pytest
from prompt_toolkit.input import create_pipe_input

from lanopoly import Rules, SimpleBot
from lanopoly.console import ConsoleApp, LocalTable
from lanopoly.console.commands import command_for
from lanopoly.console.log_view import LogView, wrap
from lanopoly.i18n import t
from screen import PAGE_DOWN, PAGE_UP, Terminal, wait_for

LOG_TOP, LOG_ROWS = 13, 8  # at 80x24: the board's 13 rows, then 8 rows of log


def test_the_view_follows_the_newest_lines_and_pages_through_the_rest():
    lines = [f"line {i}" for i in range(30)] + ["x" * 150]  # the last one wraps to 2 rows
    view = LogView()
    assert view.page(lines, 10, 80).lines == lines[-9:]
    view.page_up(lines, 10, 80)
    page = view.page(lines, 10, 80)
    assert page.first == 22 - 9 and page.below == len(lines) - page.first - 10
    view.page_down(lines, 10, 80)
    view.page_down(lines, 10, 80)
    assert view.top is None and view.page(lines, 10, 80).below == 0
    view.anchor(3)
    assert view.page(lines, 10, 80).lines == lines[3:13]


def _log(screen: list[str]) -> list[str]:
    return screen[LOG_TOP : LOG_TOP + LOG_ROWS]


@pytest.mark.parametrize(("players", "seed"), [(4, 3), (6, 5)])
def test_the_end_of_game_summary_reads_at_80x24(players, seed):
    names = ["ada", "bea", "cy", "dee", "eve", "fay"][:players]
    table = LocalTable(names, me=0, rules=Rules(round_limit=6), seed=seed)
    person = SimpleBot()

    async def session() -> tuple[list[str], list[str], list[str]]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=0, input=pipe, output=Terminal())
            running = asyncio.create_task(app.run())
            deadline = time.monotonic() + 120
            while not table.over and time.monotonic() < deadline:
                await asyncio.sleep(0.001)
                if table.my_move:
                    action = person.choose(table.game, table.me, table.game.legal_actions(table.me))
                    applied = len(table.record.inputs)
                    pipe.send_text(command_for(action, table.game) + "\r")
                    while len(table.record.inputs) == applied and time.monotonic() < deadline:
                        await asyncio.sleep(0.001)
            assert table.over
            summary = table.summary_lines()
            end = await wait_for(app.app, lambda screen: _log(screen)[0] == summary[0])
            pipe.send_text(PAGE_UP)
            earlier = await wait_for(app.app, lambda screen: _log(screen)[0] != summary[0])
            pipe.send_text(PAGE_DOWN * 3)
            last = await wait_for(app.app, lambda screen: summary[-1] in _log(screen))
            pipe.send_text("quit\r")
            assert await asyncio.wait_for(running, timeout=30) == 0
            return end, earlier, last

    end, earlier, last = asyncio.run(session())
    summary = table.summary_lines()
    game = table.game
    # When the game ends the log shows the summary from its title, whatever came before it.
    assert _log(end)[0] == summary[0] == f"Game over in round {table.summary().round}: {game.names[game.winner]} wins."
    shown = len(summary) if len(summary) <= LOG_ROWS else LOG_ROWS
    assert _log(end)[:shown] == summary[:shown]
    # The middle of the board has the final net worths (* the winner).
    assert f"*{game.winner + 1} {game.names[game.winner]}" in "\n".join(end[:11])
    if len(summary) <= LOG_ROWS:  # 4 players: all of it at once
        assert end[-1].strip().startswith("PageUp/PageDown: scroll the log")
    else:  # 6 players: the rest below, and the screen says so
        assert "more lines below" in end[-1]
        assert summary[-1] not in _log(end)
    # PageUp shows what happened before; PageDown comes back to the end of the summary.
    start = len(table.lines) - len(summary)
    assert _log(earlier)[0] in table.lines[:start]
    assert _log(last)[-1] == summary[-1]


def _screens(table: LocalTable, steps: list[tuple[str, Callable[[list[str]], bool]]]) -> list[list[str]]:
    """Play ``table`` in the real application at 80x24: once the game waits for the person, type
    each text and take the screen once its check holds; then quit."""

    async def session() -> list[list[str]]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=0, input=pipe, output=Terminal())
            running = asyncio.create_task(app.run())
            await wait_for(app.app, lambda screen: table.my_move)
            screens = []
            for text, check in steps:
                pipe.send_text(text)
                screens.append(await wait_for(app.app, check))
            pipe.send_text("quit\r")
            assert await asyncio.wait_for(running, timeout=30) == 0
            return screens

    return asyncio.run(session())


def test_help_is_read_from_its_top_and_scrolls():
    top, bottom = _screens(
        LocalTable(["ada", "bea"], me=0, seed=1),
        [
            ("help\r", lambda screen: _log(screen)[0] == "Commands:"),
            # More than the help's pages: the view stops at its end.
            (PAGE_DOWN * 8, lambda screen: any("quit (q, exit)" in line for line in _log(screen))),
        ],
    )
    assert _log(top)[0] == "Commands:" and "roll (r)" in _log(top)[1]
    assert "more lines below" in top[-1]
    assert any("quit (q, exit)" in line for line in _log(bottom))
    # A description too long for 80 columns goes on under its column, broken between words.
    roll = next(i for i, line in enumerate(_log(top)) if "roll (r)" in line)
    assert _log(top)[roll].rstrip().endswith("roll the dice (in jail: try for a")
    assert _log(top)[roll + 1].strip() == "double)" and _log(top)[roll + 1].index("double") == 41


def test_long_lines_wrap_between_words_under_their_text():
    assert wrap("short", 80) == ["short"]
    assert wrap("a " * 45 + "end", 40) == ["a " * 19 + "a", "  " + "a " * 18 + "a", "  " + "a " * 6 + "end"]
    assert wrap("x" * 100, 80) == ["x" * 80, "  " + "x" * 20]
    two_columns = "  sell PROPERTY" + " " * 26 + "sell one house (or the hotel) back to the bank at half price"
    assert wrap(two_columns, 80) == [two_columns[:78].rstrip(), " " * 41 + "the bank at half price"]
    assert wrap(two_columns, 50)[1] == "  house (or the hotel) back to the bank at half"  # too narrow for the column
    assert all(len(row) <= 50 for row in wrap(two_columns, 50))


def test_a_long_answer_to_a_command_wraps_and_the_log_gives_it_room():
    usage, short = _screens(
        LocalTable(["ada", "bea"], me=0, seed=1),
        [
            ("trade\r", lambda screen: any(row.startswith("trade PLAYER") for row in screen)),  # over 80 columns
            ("help\r", lambda screen: any("the commands are in the log" in row for row in screen)),  # one row again
        ],
    )
    first = next(i for i, row in enumerate(usage) if row.startswith("trade PLAYER"))
    assert usage[first] == "trade PLAYER give ITEMS for ITEMS, e.g. 'trade dog give baltic, $50 for"
    assert usage[first + 1] == "  boardwalk'" and usage[first + 2].startswith(">")
    assert first == LOG_TOP + LOG_ROWS - 1  # the log gave up one of its ten rows
    assert short[LOG_TOP + LOG_ROWS].startswith("the commands are in the log") and short[-2].startswith(">")


def _wheel(up: bool, row: int, column: int = 10) -> str:
    """A notch of the mouse wheel at a screen row and column (0-based), as xterm sends it (SGR)."""
    return f"\x1b[<{64 if up else 65};{column + 1};{row + 1}M"


def test_the_mouse_wheel_scrolls_the_log():
    """Over the log, a notch of the wheel down shows it three lines further, a notch up three
    lines back (issue 14: only PageUp/PageDown scrolled it); over the board it moves no line."""
    table = LocalTable(["ada", "bea"], me=0, seed=1)

    def help_top(screen: list[str]) -> bool:
        return _log(screen)[0] == "Commands:"

    top, down, back = _screens(
        table,
        [
            ("help\r", help_top),
            (_wheel(up=False, row=LOG_TOP + 2), lambda screen: not help_top(screen)),
            # Over the board the wheel does nothing: one notch up over the log is back at the top.
            (_wheel(up=False, row=3) + _wheel(up=True, row=LOG_TOP + 5), help_top),
        ],
    )
    start = table.lines.index("Commands:")
    assert _log(top)[0] == "Commands:"
    assert _log(down)[0] == wrap(table.lines[start + 3], 80)[0], _log(down)
    assert _log(back)[0] == "Commands:", _log(back)


def test_the_french_log_names_its_keys_as_the_other_french_hints_do():
    """The French "more below" line names the keys PgSuiv and PgPréc, as the trade panel's and
    the replay's hints do (it said PageDown/PageUp in English), and PgSuiv pages the help."""
    top, lower = _screens(
        LocalTable(["ada", "bea"], me=0, seed=1, lang="fr", board="paris"),
        [
            ("aide\r", lambda screen: _log(screen)[0] == "Commandes :"),
            (PAGE_DOWN, lambda screen: _log(screen)[0] != "Commandes :"),
        ],
    )
    assert "(PgSuiv ; PgPréc pour remonter)" in top[-1] and "Page" not in top[-1], top[-1]
    assert "PgSuiv" in lower[-1], lower[-1]


def test_the_french_help_never_starts_a_row_with_its_punctuation():
    """Found in the French tmux run at 80x24: "claim"'s description broke before its ";", which
    began a row of its own. French puts a no-break space before ; : ! ? (and inside « »): rows
    break at other spaces. The help is paged down (PgSuiv) to "réclamer"'s row."""

    def claim(screen: list[str]) -> bool:
        return any("réclamer un loyer" in row for row in _log(screen)[:-1])

    _, screen = _screens(
        LocalTable(["ada", "bea"], me=0, seed=1, lang="fr", board="paris"),
        [("aide\r", lambda screen: _log(screen)[0] == "Commandes :"), (PAGE_DOWN * 4, claim)],
    )
    rows = _log(screen)
    at = next(i for i, row in enumerate(rows) if "réclamer un loyer" in row)
    assert "propriété ; seul (ou F6), le plus" in rows[at + 1], "\n".join(rows)
    assert not [row for row in rows if row.strip()[:1] in (";", ":", "!", "?", "»")], "\n".join(rows)


def test_the_norwegian_log_names_its_keys_as_the_keycaps_do():
    """Left by the last pass: the Norwegian "more below" line and the end's hint said PageDown and
    PageUp (a program's names) where the trade panel said PgUp; Norwegian writes the keycaps'
    PgUp/PgDn, and PgDn pages the help."""
    top, lower = _screens(
        LocalTable(["ada", "bea"], me=0, seed=1, lang="no"),
        [
            ("?\r", lambda screen: _log(screen)[0] == "Kommandoer:"),
            (PAGE_DOWN, lambda screen: _log(screen)[0] != "Kommandoer:"),
        ],
    )
    assert "(PgDn; PgUp for tidligere linjer)" in top[-1] and "Page" not in top[-1], top[-1]
    assert "PgDn" in lower[-1], lower[-1]
    assert t("no", "log.over").startswith("PgUp/PgDn: ")
