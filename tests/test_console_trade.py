"""Trade offers on the game screen (issue 14, item 4): an offer to the person shows with its full
terms and how to answer, wrapped at 80x24 and never cut at the board's edge, even while another
decision waits (an auction); the log records every term of an offer and of a deal, cash included.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from prompt_toolkit.input import create_pipe_input

from conftest import dice
from lanopoly import Game
from lanopoly.console import ConsoleApp, LocalTable
from lanopoly.describe import describe
from screen import Terminal, wait_for

PAUSE = 30.0  # seconds a bot waits after each move: longer than the test
BEA = "bea-the-bold-banker"


def _offer_during_an_auction() -> LocalTable:
    """ada (the person) buys Reading Railroad; bea (a bot with a long name) offers her $1234 and a
    jail card's worth of nothing for it, then declines Baltic Avenue: an auction ada is in."""
    table = LocalTable(["ada", BEA, "cy"], me=0, seed=0)
    for outcome in (dice(6, 6), dice(1, 2), dice(1, 3)):
        table.act(outcome)
    table.act({"type": "roll", "player": 0})
    table.act(dice(1, 4))
    table.act({"type": "buy", "player": 0})
    table.act({"type": "end_turn", "player": 0})
    table.act({"type": "propose_trade", "player": 1, "to": 0, "give": {"cash": 1234}, "get": {"properties": [5]}})
    table.act({"type": "roll", "player": 1})
    table.act(dice(1, 2))
    table.act({"type": "decline", "player": 1})
    assert table.game.auction is not None and 0 in table.game.auction["bidders"]
    return table


def _run(table: LocalTable, typed: list[tuple[str, Callable[[list[str]], bool]]]) -> list[list[str]]:
    """The application in an 80x24 terminal: the first screen, then after each typed line the
    screen once its check holds (or after 10 seconds)."""

    async def session() -> list[list[str]]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=PAUSE, input=pipe, output=Terminal(80, 24))
            running = asyncio.create_task(app.run())
            screens = [await wait_for(app.app, lambda lines: any("ada" in line for line in lines))]
            for text, check in typed:
                pipe.send_text(text + "\r")
                screens.append(await wait_for(app.app, check))
            pipe.send_text("quit\r")
            assert await asyncio.wait_for(running, timeout=30) == 0
            return screens

    return asyncio.run(session())


def test_an_offer_shows_in_full_while_an_auction_waits_and_the_deal_is_logged_with_its_cash():
    table = _offer_during_an_auction()
    full = f"{BEA} offers you $1234 for Reading Railroad. Type 'accept {BEA}' or 'reject {BEA}'."
    assert f"{BEA} offers a trade to ada: $1234 for Reading Railroad." in table.lines
    refusal = "an auction is running: bid or pass"
    first, refused = _run(table, [(f"accept {BEA}", lambda lines: any(refusal in line for line in lines))])
    for screen in (first, refused):
        text = " ".join(line.strip() for line in screen)
        assert full in text, "\n".join(screen)  # wrapped between words, every word there
        assert all(len(line) <= 80 for line in screen)
        assert any("Auction of Baltic Avenue" in line for line in screen), "\n".join(screen)
    assert any(refusal in line for line in refused), "\n".join(refused)
    while table.game.auction is not None:  # everyone passes: the offer still stands
        table.act({"type": "pass", "player": table.game.current_player})
    cash = table.game.player(0)["cash"]
    (waiting, accepted) = _run(table, [(f"accept {BEA}", lambda lines: table.game.square(5)["owner"] == 1)])
    # Nothing else waits for ada: the middle of the board tells of the offer, whole, in its width.
    assert any(f" {BEA} offers you a trade: see below " in line for line in waiting), "\n".join(waiting)
    assert table.game.square(5)["owner"] == 1 and table.game.player(0)["cash"] == cash + 1234
    assert not any("Type 'accept" in line for line in accepted), "\n".join(accepted)
    assert f"ada accepts the trade offered by {BEA}: $1234 for Reading Railroad." in table.lines, table.lines[-5:]


def test_the_log_tells_every_term_of_a_trade_in_each_language():
    game = Game(["ann", "bea"], seed=0)
    deal = {"give": {"properties": [39], "cash": 50, "jail_cards": ["chance"]}, "get": {"cash": 300}}
    accepted = {"type": "trade_accepted", "from": 0, "to": 1, **deal}
    proposed = {"type": "trade_proposed", "offer": {"from": 0, "to": 1, **deal}}
    assert describe(game, proposed) == "ann offers a trade to bea: Boardwalk, $50, a jail card for $300."
    assert describe(game, accepted) == "bea accepts the trade offered by ann: Boardwalk, $50, a jail card for $300."
    for lang in ("fr", "it", "no"):
        line = describe(game, accepted, lang=lang)
        assert line is not None and "Boardwalk" in line and "300" in line and "50" in line, line


def test_a_bot_answers_an_offer_at_once_not_on_its_own_turn() -> None:
    """Issue 14: ann offers bea a trade during her own turn; the bots' next step is bea's answer
    (the offer used to wait for bea's turn), and ann is still the one to act. ($10 for $400:
    the easy bot once counted only the deeds it gave, not the cash asked of it, and accepted.)"""

    table = LocalTable(["ann", "bea", "cy"], me=0, seed=0)
    table.act(dice(6, 6))
    table.act(dice(1, 2))
    table.act(dice(1, 1))
    table.act({"type": "roll", "player": 0})
    table.act(dice(3, 5))
    table.act({"type": "buy", "player": 0})
    offer = {"type": "propose_trade", "player": 0, "to": 1}
    table.act({**offer, "give": {"cash": 10, "properties": []}, "get": {"cash": 400, "properties": []}})
    assert table.my_move and table.game.offers
    assert table.step(), "bea answers"
    assert table.game.offers == [] and table.my_move and table.game.current_player == 0
    assert table.lines[-1] == "bea rejects the trade offered by ann."
    assert not table.step(), "then the game waits for ann again"
