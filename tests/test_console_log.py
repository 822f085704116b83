"""What the log tells, as the real application shows it: passing GO before the move that passed
it, and the money each mortgage moved. Played on a pipe, the person's moves typed."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from prompt_toolkit.input import create_pipe_input

from conftest import started
from lanopoly import SimpleBot, describe
from lanopoly.console import ConsoleApp, LocalTable
from lanopoly.console.commands import command_for
from screen import Terminal, wait_for


def _play(
    table: LocalTable, done: Callable[[LocalTable], bool], extra: Callable[[LocalTable], str | None]
) -> list[str]:
    """Type the moves a bot would choose for the person until ``done(table)``; ``extra(table)``
    may give a command to type first when the person is to move. Returns the last screen."""
    person = SimpleBot()

    async def session() -> list[str]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=0, input=pipe, output=Terminal())
            running = asyncio.create_task(app.run())
            deadline = time.monotonic() + 60
            while not done(table) and not table.over and time.monotonic() < deadline:
                await asyncio.sleep(0.001)
                if not table.my_move:
                    continue
                game = table.game
                command = extra(table) or command_for(person.choose(game, table.me, game.legal_actions(0)), game)
                applied = len(table.record.inputs)
                pipe.send_text(command + "\r")
                while len(table.record.inputs) == applied and time.monotonic() < deadline:
                    await asyncio.sleep(0.001)
            assert done(table), table.lines[-20:]
            last = table.lines[-1]
            screen = await wait_for(app.app, lambda shown: last in shown)
            pipe.send_text("quit\r")
            assert await asyncio.wait_for(running, timeout=30) == 0
            return screen

    return asyncio.run(session())


def test_passing_go_is_told_before_the_move_that_passed_it() -> None:
    table = LocalTable(["ada", "bea"], me=0, seed=4)
    screen = _play(table, lambda tb: any(line.endswith("passes GO.") for line in tb.lines), lambda tb: None)
    at = next(i for i, line in enumerate(table.lines) if line.endswith("passes GO."))
    player = table.lines[at].removesuffix(" passes GO.")
    # After the roll, or the card that sends the player on ("Advance to St. Charles Place"): never
    # after the move it passed GO on.
    assert table.lines[at - 1].startswith((f"{player} rolls ", f"{player} draws ")), table.lines[at - 2 : at + 2]
    assert table.lines[at + 1].startswith(f"{player} moves to "), table.lines[at - 2 : at + 2]
    shown = [row.strip() for row in screen]
    passed = shown.index(table.lines[at])
    assert shown[passed + 1] == table.lines[at + 1]  # on the screen too, in that order


def test_mortgage_lines_carry_their_amounts() -> None:
    table = LocalTable(["ada", "bea"], me=0, seed=4)
    typed: list[str] = []

    def mortgage(tb: LocalTable) -> str | None:
        """Mortgage the person's first deed, then lift the mortgage, once each."""
        legal = {a["type"] for a in tb.legal()}
        mine = tb.game.player(0)["properties"]
        if not mine or "end_turn" not in legal or len(typed) == 2:
            return None
        typed.append("unmortgage" if typed else "mortgage")
        return f"{typed[-1]} {tb.game.square(mine[0])['name']}"

    _play(table, lambda tb: len(typed) == 2 and "unmortgage" in tb.record.inputs[-1]["type"], mortgage)
    deed = table.game.square(table.game.player(0)["properties"][0])
    value = deed["mortgage_value"]
    assert f"ada mortgages {deed['name']} for ${value}." in table.lines
    assert f"ada lifts the mortgage on {deed['name']} for ${value + (value + 9) // 10}." in table.lines


def test_a_mortgage_event_told_alone_takes_its_amount_from_the_deed() -> None:
    game = started(2)
    event = {"player": 0, "square": 39}  # Boardwalk: mortgage value $200
    assert describe(game, {"type": "mortgaged", **event}) == "dog mortgages Boardwalk for $200."
    assert describe(game, {"type": "unmortgaged", **event}) == "dog lifts the mortgage on Boardwalk for $220."
    kept = describe(game, {"type": "kept_mortgaged", **event}, lang="fr")
    assert kept == "dog garde Boardwalk hypothéqué et paie les 10 % de frais, 20 $."
