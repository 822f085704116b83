"""Out-of-turn moves in a local game, typed in the real application while a bot's move is due:
a bid in an open auction, answering a trade offer, building and mortgaging. The console sends
them to the engine like any move; only the engine decides.

The application runs on a pipe with bots pausing 30 seconds after each move, so the game waits
for a bot while the person types; the bots' own moves that set the scene are applied to the
table directly, as a bot's would be.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from prompt_toolkit.input import create_pipe_input

from conftest import dice
from lanopoly.console import ConsoleApp, LocalTable
from screen import Terminal, wait_for

PAUSE = 30.0  # seconds a bot waits after each move: longer than the test


def _table() -> LocalTable:
    """ada (the person), bea and cy (bots); bea starts."""
    table = LocalTable(["ada", "bea", "cy"], me=0, seed=0)
    table.act(dice(1, 2))
    table.act(dice(6, 6))
    table.act(dice(1, 3))
    assert table.game.turn_player == 1
    return table


def _type(table: LocalTable, commands: list[str], check: Callable[[ConsoleApp], None]) -> list[str]:
    """Type ``commands`` into the running application (each must be applied), then ``check``;
    returns the last screen."""

    async def session() -> list[str]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=PAUSE, input=pipe, output=Terminal())
            running = asyncio.create_task(app.run())
            screen = await wait_for(app.app, lambda lines: any("ada" in line for line in lines))
            for command in commands:
                assert not table.my_move and not table.game.is_chance_node, "a bot's move must be due"
                applied = len(table.record.inputs)
                pipe.send_text(command + "\r")
                screen = await wait_for(app.app, lambda lines, applied=applied: len(table.record.inputs) > applied)
                assert len(table.record.inputs) == applied + 1, (command, app.feedback)
                assert app.feedback == ("class:hint", f"ok: {command}")
            check(app)
            pipe.send_text("quit\r")
            assert await asyncio.wait_for(running, timeout=30) == 0
            return screen

    return asyncio.run(session())


def test_a_bid_while_a_bot_is_next_in_the_auction():
    table = _table()
    table.act({"type": "roll", "player": 1})
    table.act(dice(1, 2))  # bea to Baltic Avenue
    table.act({"type": "decline", "player": 1})
    assert table.game.auction is not None and table.game.current_player == 1

    def check(app: ConsoleApp) -> None:
        auction = table.game.auction
        assert auction is not None
        assert (auction["high_bidder"], auction["high_bid"]) == (0, 25)
        assert app.decision().startswith("Auction of Baltic Avenue: $25 by ada")

    screen = _type(table, ["bid 25"], check)
    assert any("Auction of Baltic Avenue" in line for line in screen)


def test_answering_an_offer_then_building_and_mortgaging_while_a_bot_plays():
    table = _table()
    game = table.game
    script = [
        (1, {"type": "roll"}, dice(3, 5)),  # bea to Vermont Avenue
        (1, {"type": "buy"}, None),
        (1, {"type": "end_turn"}, None),
        (2, {"type": "roll"}, dice(5, 6)),  # cy to St. Charles Place
        (2, {"type": "buy"}, None),
        (2, {"type": "end_turn"}, None),
        (0, {"type": "roll"}, dice(1, 5)),  # ada to Oriental Avenue
        (0, {"type": "buy"}, None),
        (0, {"type": "end_turn"}, None),
        (1, {"type": "roll"}, dice(1, 3)),  # bea to Electric Company
        (1, {"type": "buy"}, None),
        (1, {"type": "end_turn"}, None),
        (2, {"type": "roll"}, dice(1, 3)),  # cy to Pennsylvania Railroad
        (2, {"type": "buy"}, None),
        (2, {"type": "end_turn"}, None),
        (0, {"type": "roll"}, dice(1, 2)),  # ada to Connecticut Avenue
        (0, {"type": "buy"}, None),
        (0, {"type": "end_turn"}, None),
    ]
    for seat, move, outcome in script:
        table.act({**move, "player": seat})
        if outcome is not None:
            table.act(outcome)
    # bea (a bot, whose roll is due) offers Vermont Avenue, the last light blue, for $120.
    table.act({"type": "propose_trade", "player": 1, "to": 0, "give": {"properties": [8]}, "get": {"cash": 120}})
    assert game.current_player == 1 and game.turn_player == 1
    offered = ConsoleApp(table, output=Terminal()).decision()
    assert offered == "bea offers Vermont Avenue for $120: accept / reject bea"

    def check(app: ConsoleApp) -> None:
        assert [game.square(s)["owner"] for s in (6, 8, 9)] == [0, 0, 0]
        assert [game.square(s)["level"] for s in (6, 8, 9)] == [0, 0, 0]
        assert game.square(8)["mortgaged"] is False
        # Bought 100 + 120, paid bea 120; a house 50 sold for 25; mortgage +50, lifted -55.
        assert game.player(0)["cash"] == 1500 - 100 - 120 - 120 - 50 + 25 + 50 - 55
        assert "ada builds on Oriental Avenue: now 1 house." in table.lines
        assert "ada lifts the mortgage on Vermont Avenue for $55." in table.lines
        # What the rules do not allow out of turn is refused by the engine, saying why.
        before = game.state_hash()
        app.execute("roll")
        assert app.feedback == ("class:error", "it is bea's turn")
        assert game.state_hash() == before

    screen = _type(
        table,
        [
            "accept bea",
            "build oriental avenue",
            "sell oriental avenue",
            "mortgage vermont avenue",
            "unmortgage vermont",
        ],
        check,
    )
    assert any("bea" in line for line in screen)
