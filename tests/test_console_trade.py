"""Trade offers on the game screen (issue 14, item 4): an offer to the person shows with its full
terms and how to answer, wrapped at 80x24 and never cut at the board's edge, even while another
decision waits (an auction); the log records every term of an offer and of a deal, cash included.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Callable, Sequence

import pytest
from prompt_toolkit.input import create_pipe_input

from conftest import dice
from lanopoly import Game, Policy, SimpleBot
from lanopoly.bots import DIFFICULTIES
from lanopoly.console import ConsoleApp, LocalTable
from lanopoly.console.commands import command_words
from lanopoly.console.decision import shown_word
from lanopoly.console.names import fold
from lanopoly.describe import describe
from lanopoly.i18n import t
from lanopoly.types import Action
from screen import Terminal, wait_for

PAUSE = 30.0  # seconds a bot waits after each move: longer than the test
BEA = "bea-the-bold-banker"


def _offer_during_an_auction(lang: str = "en") -> LocalTable:
    """ada (the person) buys Reading Railroad; bea (a bot with a long name) offers her $1234 and a
    jail card's worth of nothing for it, then declines Baltic Avenue: an auction ada is in."""
    table = LocalTable(["ada", BEA, "cy"], me=0, seed=0, lang=lang)
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


def _run(
    table: LocalTable, typed: list[tuple[str, Callable[[list[str]], bool]]], delay: float = PAUSE
) -> list[list[str]]:
    """The application in an 80x24 terminal, its bots pausing ``delay`` seconds after each move:
    the first screen, then after each typed line the screen once its check holds (or after 10
    seconds)."""

    async def session() -> list[list[str]]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=delay, input=pipe, output=Terminal(80, 24))
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
    full = f"{BEA} offers you $1234 for Reading Railroad. Type 'accept {BEA}' or 'reject {BEA}', or F9 to counter."
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


def _heuristic_bots_hold_deeds() -> LocalTable:
    """ada (the person) buys Vermont Avenue, bea Baltic Avenue and cy Oriental Avenue, the two of
    them the "normal" bots (the Rust heuristic bot); ada's turn again, before her roll."""
    table = LocalTable(["ada", "bea", "cy"], me=0, seed=0, bot=DIFFICULTIES["normal"])
    for outcome in (dice(6, 6), dice(1, 2), dice(1, 1)):
        table.act(outcome)
    for seat, outcome in ((0, dice(3, 5)), (1, dice(1, 2)), (2, dice(1, 5))):  # Vermont, Baltic, Oriental
        table.act({"type": "roll", "player": seat})
        table.act(outcome)
        table.act({"type": "buy", "player": seat})
        table.act({"type": "end_turn", "player": seat})
    assert [table.game.square(s)["owner"] for s in (8, 3, 6)] == [0, 1, 2] and table.my_move
    return table


def test_a_heuristic_bot_answers_the_persons_offer_at_once_in_the_application() -> None:
    """Issue 14: during her own turn ada types two offers to bea, a Rust heuristic bot; each is
    answered by the very next input (rejected, then accepted), logged and on the screen, and ada
    is still the one to act. (The Rust bots used to keep an offer until their own turn.) The
    bots pause as in a real game (0.3 s after each move, the answer included)."""
    table = _heuristic_bots_hold_deeds()
    rejected, accepted = (
        "bea rejects the trade offered by ada.",
        "bea accepts the trade offered by ada: $400 for Baltic Avenue.",
    )
    screens = _run(
        table,
        [
            ("trade bea give $1 for baltic avenue", lambda lines: any(rejected in line for line in lines)),
            ("trade bea give $400 for baltic avenue", lambda lines: any("bea accepts the" in line for line in lines)),
        ],
        delay=0.3,
    )
    inputs = table.record.inputs
    offers = [i for i, move in enumerate(inputs) if move.get("type") == "propose_trade"]
    assert len(offers) == 2, inputs[-6:]
    for i in offers:  # each offer by ada, answered by bea right after it
        assert inputs[i]["player"] == 0 and inputs[i + 1]["player"] == 1, inputs[i : i + 2]
    assert [inputs[i + 1]["type"] for i in offers] == ["reject_trade", "accept_trade"]
    assert offers[1] + 2 == len(inputs), "nothing happened after the answer"
    assert table.game.square(3)["owner"] == 0 and table.my_move and table.game.phase == "await_roll"
    assert rejected in table.lines and accepted in table.lines
    assert any(rejected in line for line in screens[1]), "\n".join(screens[1])
    assert any("bea accepts the" in line for line in screens[2]), "\n".join(screens[2])


def test_a_heuristic_bot_answers_an_offer_before_another_bot_moves_on() -> None:
    """Issue 14: while bea (a bot) is to act, ada offers $400 for cy's Oriental Avenue; the next
    step of the table is cy's answer (accepted), before bea's move."""
    table = _heuristic_bots_hold_deeds()
    table.act({"type": "roll", "player": 0})
    table.act(dice(4, 6))  # Tennessee Avenue
    table.act({"type": "decline", "player": 0})
    while table.game.auction is not None:
        table.act({"type": "pass", "player": table.game.current_player})
    table.act({"type": "end_turn", "player": 0})
    assert table.game.current_player == 1 and not table.my_move
    before = table.game.player(1)
    table.act({"type": "propose_trade", "player": 0, "to": 2, "give": {"cash": 400}, "get": {"properties": [6]}})
    assert table.step()
    assert table.record.inputs[-1] == {"type": "accept_trade", "player": 2, "from": 0}
    assert table.game.square(6)["owner"] == 0 and not table.game.offers
    assert table.game.current_player == 1 and table.game.player(1) == before, "bea has not moved yet"


F9, DOWN, RIGHT, PAGE_UP, TAB, ESC = "\x1b[20~", "\x1b[B", "\x1b[C", "\x1b[5~", "\t", "\x1b"


def _ann_and_bea_each_hold_a_deed(bot: Callable[[], Policy] = SimpleBot, lang: str = "en") -> LocalTable:
    """ann (the person) buys Vermont Avenue, bea Baltic Avenue; ann's turn again (cy holds nothing)."""
    table = LocalTable(["ann", "bea", "cy"], me=0, seed=0, bot=bot, lang=lang)
    for outcome in (dice(6, 6), dice(1, 2), dice(1, 1)):
        table.act(outcome)
    table.act({"type": "roll", "player": 0})
    table.act(dice(3, 5))  # Vermont Avenue
    table.act({"type": "buy", "player": 0})
    table.act({"type": "end_turn", "player": 0})
    table.act({"type": "roll", "player": 1})
    table.act(dice(1, 2))  # Baltic Avenue
    table.act({"type": "buy", "player": 1})
    table.act({"type": "end_turn", "player": 1})
    table.act({"type": "roll", "player": 2})
    table.act(dice(4, 6))  # cy: just visiting the jail
    table.act({"type": "end_turn", "player": 2})
    assert table.my_move and table.game.current_player == 0
    return table


def _keys(table: LocalTable, steps: list[tuple[str, Callable[[ConsoleApp, list[str]], bool]]]) -> list[list[str]]:
    """The application at 80x24; for each step, the keys pressed, then the screen once its check holds."""

    async def session() -> list[list[str]]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=PAUSE, input=pipe, output=Terminal(80, 24))
            running = asyncio.create_task(app.run())
            await wait_for(app.app, lambda lines: any("ann" in line for line in lines))
            screens = []
            for keys, check in steps:
                pipe.send_text(keys)
                screens.append(await wait_for(app.app, lambda lines, check=check: check(app, lines)))
            pipe.send_text(ESC + "quit\r")
            assert await asyncio.wait_for(running, timeout=30) == 0
            return screens

    return asyncio.run(session())


def test_the_trade_panel_composes_an_offer_with_keys_and_sends_it() -> None:
    """Issue 14, "Trade on screen": F9 opens the panel with the next player; Tab goes to bea;
    Space takes Vermont Avenue, + three times puts $30 on ann's side, Right and Space take
    Baltic Avenue; the panel shows it all, and Enter sends the very offer the panel showed
    (the easy bot then turns it down at once)."""
    table = _ann_and_bea_each_hold_a_deed()
    screens = _keys(
        table,
        [
            (F9, lambda app, lines: "Trade with bea" in "\n".join(lines)),
            (TAB + TAB, lambda app, lines: any("Trade with bea" in line for line in lines)),
            (" " + DOWN + "+++" + RIGHT + " ", lambda app, lines: any("[x] Baltic Avenue" in line for line in lines)),
            (
                "\r",  # then the answer: the log says it, and the message line no longer says the offer was sent
                lambda app, lines: (
                    any("rejects the trade" in line for line in table.lines)
                    and not any("Offer sent" in line for line in lines)
                ),
            ),
        ],
    )
    panel = screens[2]
    assert panel[:7] == [
        " Trade with bea",
        "You give (ann, cash $1400):",
        "    [x] Vermont Avenue",
        "        cash: $30",
        "You get from bea (cash $1440):",
        "  > [x] Baltic Avenue",
        "        cash: $0",
    ], panel[:8]
    assert panel[-2].startswith("↑↓: item  ←→: your side / theirs  Space: take")
    assert "ann offers a trade to bea: Vermont Avenue, $30 for Baltic Avenue." in table.lines
    assert table.lines[-1] == "bea rejects the trade offered by ann."
    assert not any("Offer sent to bea." in line for line in screens[3])  # answered: the line is cleared


class _AnswersOnItsTurn(SimpleBot):
    """The easy bot, but it answers offers on its own turn only (as a person may)."""

    def interject(self, game: Game, seat: int, legal: Sequence[Action]) -> Action | None:
        return None


def test_offer_sent_stays_on_the_message_line_until_the_offer_is_answered() -> None:
    """Found in a LAN game of two consoles: "Offer sent to Joe." stayed after Joe accepted. It
    now stays while the offer is open, and goes once it is answered (here bea rejects it)."""
    table = _ann_and_bea_each_hold_a_deed(bot=_AnswersOnItsTurn)

    async def session() -> tuple[list[str], list[str]]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=PAUSE, input=pipe, output=Terminal(80, 24))
            running = asyncio.create_task(app.run())
            await wait_for(app.app, lambda lines: any("ann" in line for line in lines))
            pipe.send_text("trade bea\r")
            await wait_for(app.app, lambda lines: any("Trade with bea" in line for line in lines))
            pipe.send_text(" " + RIGHT + " \r")  # Vermont Avenue for Baltic Avenue
            sent = await wait_for(app.app, lambda lines: any("Offer sent to bea." in line for line in lines))
            assert table.game.offers and table.game.offers[0]["from"] == 0
            table.act({"type": "reject_trade", "player": 1, "from": 0})
            app.app.invalidate()
            answered = await wait_for(app.app, lambda lines: not any("Offer sent" in line for line in lines))
            pipe.send_text("quit\r")
            assert await asyncio.wait_for(running, timeout=30) == 0
            return sent, answered

    sent, answered = asyncio.run(session())
    assert any("Offer sent to bea." in line for line in sent), "\n".join(sent)
    assert not any("Offer sent" in line for line in answered), "\n".join(answered)


def test_an_offer_the_engine_refuses_keeps_the_panel_open_and_says_why() -> None:
    """Asking bea for $2000 she does not have: the engine's reason on the message line, the
    panel still there with the draft, nothing offered."""
    table = _ann_and_bea_each_hold_a_deed()
    screens = _keys(
        table,
        [
            ("trade bea\r", lambda app, lines: app.shown == ("trade", 1)),
            (RIGHT + DOWN + PAGE_UP * 20 + "\r", lambda app, lines: app.feedback[0] == "class:error"),
        ],
    )
    assert table.game.offers == [] and not any("offers a trade" in line for line in table.lines)
    assert any("cash: $2000" in line for line in screens[1])
    assert any("bea" in line and "1440" in line for line in screens[1][-6:]), screens[1][-6:]


def test_a_deed_chosen_in_the_panel_stays_chosen_when_its_label_changes() -> None:
    """ann takes Vermont Avenue into a draft, then mortgages it: the panel marks it chosen still
    (its label now says mortgaged), and the offer carries it, as the panel shows."""
    from lanopoly.console.trade_panel import Draft, panel_lines

    table = _ann_and_bea_each_hold_a_deed()
    draft = Draft(0, 1)
    draft.toggle(table.game, "en")
    table.act({"type": "mortgage", "player": 0, "square": 8})
    shown = [text for _, text in panel_lines(table.game, draft, "en", 80)]
    assert "  > [x] Vermont Avenue (mortgaged)" in shown
    assert draft.action()["give"]["properties"] == [8]
    draft.toggle(table.game, "en")
    assert draft.action()["give"]["properties"] == []


def test_a_bare_accept_or_reject_answers_the_only_offer_and_asks_whose_when_there_are_more():
    """Found playing as a newcomer: a bare ``reject`` with one offer waiting said "no single
    player called ''". With one offer waiting it answers that one; with two it names the players
    and changes nothing; with none it says no offer waits."""
    table = LocalTable(["ada", BEA, "cy"], me=0, seed=0)
    for outcome in (dice(6, 6), dice(1, 2), dice(1, 3)):
        table.act(outcome)
    table.act({"type": "roll", "player": 0})
    table.act(dice(1, 4))
    table.act({"type": "buy", "player": 0})
    table.act({"type": "end_turn", "player": 0})
    for offerer, cash in ((1, 300), (2, 250)):
        offer = {
            "type": "propose_trade",
            "player": offerer,
            "to": 0,
            "give": {"cash": cash},
            "get": {"properties": [5]},
        }
        table.act(offer)
    screens = _run(
        table,
        [
            ("reject", lambda lines: any("say whose" in line for line in lines)),
            ("reject cy", lambda lines: len(table.game.offers) == 1),
            ("accept", lambda lines: table.game.square(5)["owner"] == 1),
            ("reject", lambda lines: any("no trade offer is waiting" in line for line in lines)),
        ],
    )
    asked = " ".join(line.strip() for line in screens[1])
    assert f"offers from {BEA}, cy: say whose, e.g. 'reject {BEA}'" in asked, "\n".join(screens[1])
    assert "ada accepts the trade offered by" in " ".join(table.lines), table.lines[-4:]
    assert any("no trade offer is waiting for your answer" in line for line in screens[4])


def _offered(table: LocalTable, seat: int, cash: int) -> LocalTable:
    """``seat`` offers ann ``cash`` for Vermont Avenue."""
    table.act({"type": "propose_trade", "player": seat, "to": 0, "give": {"cash": cash}, "get": {"properties": [8]}})
    return table


def test_f9_shows_an_offer_made_to_the_person_and_a_counter_offer_rejects_it_and_is_answered() -> None:
    """Issue 14, "see incoming offers at any time with their full terms, accept, reject or
    counter": bea offers $50 for Vermont Avenue; F9 shows every term; c opens the composer with
    the offer reversed (ann gives Vermont Avenue, gets $50); ann keeps Vermont and offers $100 for
    Baltic Avenue instead; Enter rejects bea's offer and proposes the new one, which bea (the easy
    bot) accepts at once: every step in the log."""
    table = _offered(_ann_and_bea_each_hold_a_deed(), 1, 50)
    steps: list[tuple[str, Callable[[ConsoleApp, list[str]], bool]]] = [
        (F9, lambda app, lines: "Offer from bea" in "\n".join(lines)),
        ("c", lambda app, lines: "Counter-offer to bea" in "\n".join(lines)),
        (" " + DOWN + "+" * 10 + RIGHT + " " + DOWN + "-----", lambda app, lines: "[x] Baltic" in "\n".join(lines)),
        (  # bea accepts at once: the message that the counter-offer went is then over
            "\r",
            lambda app, lines: table.game.square(3)["owner"] == 0 and not any("counter-offer sent" in x for x in lines),
        ),
    ]
    screens = _keys(table, steps)
    for (_, check), screen in zip(steps, screens, strict=True):
        assert check(None, screen), "\n".join(screen)  # type: ignore[arg-type]
    offer, composer, changed, sent = screens
    assert offer[:5] == [" Offer from bea", "bea gives you:", "    cash: $50", "bea asks of you:", "    Vermont Avenue"]
    assert offer[-1] == "a: accept  r: reject  c: counter  Tab: next offer  Esc: close"
    assert composer[:7] == [
        " Counter-offer to bea",
        "You give (ann, cash $1400):",
        "  > [x] Vermont Avenue",
        "        cash: $0",
        "You get from bea (cash $1440):",
        "    [ ] Baltic Avenue",
        "        cash: $50",
    ], composer[:7]
    assert changed[2:7] == [
        "    [ ] Vermont Avenue",
        "        cash: $100",
        "You get from bea (cash $1440):",
        "    [x] Baltic Avenue",
        "  >     cash: $0   +/- $10, PgUp/PgDn $100",
    ], changed[:7]
    start = table.lines.index("bea offers a trade to ann: $50 for Vermont Avenue.")
    assert table.lines[start + 1 : start + 4] == [
        "ann rejects the trade offered by bea.",
        "ann offers a trade to bea: $100 for Baltic Avenue.",
        "bea accepts the trade offered by ann: $100 for Baltic Avenue.",
    ], table.lines[start:]
    assert table.game.square(8)["owner"] == 0 and table.game.offers == []
    assert not any("counter-offer sent" in line for line in sent), "\n".join(sent)


def test_offers_from_two_players_are_answered_one_by_one_with_keys() -> None:
    """bea and cy each offer for Vermont Avenue: F9 shows bea's (1 of 2), Tab cy's; r rejects
    cy's; F9 then shows bea's alone, a accepts it."""
    table = _offered(_offered(_ann_and_bea_each_hold_a_deed(), 1, 50), 2, 300)
    cash = table.game.player(0)["cash"]
    steps: list[tuple[str, Callable[[ConsoleApp, list[str]], bool]]] = [
        (F9, lambda app, lines: "offer 1 of 2 made to you (Tab: the next one)" in lines),
        (TAB, lambda app, lines: "Offer from cy" in "\n".join(lines)),
        ("r", lambda app, lines: "You rejected cy's offer." in lines),
        (F9, lambda app, lines: "Offer from bea" in "\n".join(lines)),
        ("a", lambda app, lines: table.game.square(8)["owner"] == 1),
    ]
    screens = _keys(table, steps)
    for (_, check), screen in zip(steps, screens, strict=True):
        assert check(None, screen), "\n".join(screen)  # type: ignore[arg-type]
    assert "    cash: $300" in screens[1] and not any("of 2" in line for line in screens[3])
    assert "ann rejects the trade offered by cy." in table.lines
    assert "ann accepts the trade offered by bea: $50 for Vermont Avenue." in table.lines
    assert table.game.player(0)["cash"] == cash + 50 and table.game.offers == []


def test_a_counter_offer_the_engine_refuses_rejects_nothing() -> None:
    """Countering bea's offer by asking her $2000 she does not have: the engine's reason is told,
    the composer stays, and bea's offer still stands."""
    table = _offered(_ann_and_bea_each_hold_a_deed(), 1, 50)
    _keys(
        table,
        [
            (F9 + "c", lambda app, lines: "Counter-offer to bea" in "\n".join(lines)),
            (RIGHT + DOWN + PAGE_UP * 20 + "\r", lambda app, lines: app.feedback[0] == "class:error"),
        ],
    )
    assert [(o["from"], o["to"]) for o in table.game.offers] == [(1, 0)]
    assert not any("rejects" in line for line in table.lines)


def _holds_a_jail_card(deck: str, lang: str) -> LocalTable:
    """ann (the person) draws the get-out-of-jail card of ``deck`` and holds no other: from GO a
    double 1 to Community Chest, or 3 and 4 to Chance; still ann's turn."""
    table = LocalTable(["ann", "bea"], me=0, seed=0, lang=lang)
    for outcome in (dice(6, 6), dice(1, 2)):
        table.act(outcome)
    table.act({"type": "roll", "player": 0})
    table.act(dice(1, 1) if deck == "community_chest" else dice(3, 4))
    jail_free = {"chance": 7, "community_chest": 4}  # the Get Out of Jail Free card of each deck
    table.act({"type": "card", "card": jail_free[deck]})
    assert table.game.player(0)["jail_cards"] == [deck] and table.my_move
    return table


@pytest.mark.parametrize("lang", ["en", "fr", "it", "no"])
@pytest.mark.parametrize("deck", ["chance", "community_chest"])
def test_the_trade_panel_names_a_jail_card_by_its_own_deck(deck: str, lang: str) -> None:
    """The trade panel (F9) names the jail card ann holds by the deck it came from, as the same
    language names that deck everywhere else (the board's square, the portfolio, the log), never
    by the other deck's name: the Italian panel once called the Community Chest card "Imprevisti"
    (Chance) and the Chance card "Probabilità" (Community Chest)."""
    other = "chance" if deck == "community_chest" else "community_chest"
    table = _holds_a_jail_card(deck, lang)
    own, wrong = t(lang, f"deck.{deck}"), t(lang, f"deck.{other}")
    assert own == t(lang, f"square.{deck}") and wrong == t(lang, f"square.{other}")
    title = t(lang, "trade.title", partner="bea")
    panel = _keys(table, [(F9, lambda app, lines: title in "\n".join(lines))])[0]
    assert title in panel[0], panel
    cards = [line for line in panel if "[ ]" in line and "(" in line]  # ann's card; no deeds on either side
    assert len(cards) == 1 and own in cards[0] and wrong not in cards[0], panel


def _ann_builds(lang: str) -> LocalTable:
    """ann (the person) holds the light blue group, bought and traded for, with 3, 2 and 2 houses
    (Oriental, Vermont and Connecticut Avenue), and Tennessee Avenue bare; ann's turn."""
    table = LocalTable(["ann", "bea"], me=0, seed=0, lang=lang, bot=SimpleBot)
    for outcome in (dice(6, 6), dice(1, 2)):
        table.act(outcome)
    moves = [
        ({"type": "roll", "player": 0}, dice(2, 4), {"type": "buy", "player": 0}),  # Oriental Avenue
        ({"type": "end_turn", "player": 0},),
        ({"type": "roll", "player": 1}, dice(4, 5), {"type": "buy", "player": 1}),  # bea: Connecticut Avenue
        ({"type": "end_turn", "player": 1},),
        ({"type": "roll", "player": 0}, dice(1, 1), {"type": "buy", "player": 0}),  # Vermont Avenue, a double
        ({"type": "roll", "player": 0}, dice(4, 6), {"type": "buy", "player": 0}),  # Tennessee Avenue
    ]
    for group in moves:
        for action in group:
            table.act(action)
    table.act({"type": "propose_trade", "player": 0, "to": 1, "give": {"cash": 200}, "get": {"properties": [9]}})
    table.act({"type": "accept_trade", "player": 1, "from": 0})
    for square in (6, 8, 9, 6, 8, 9, 6):
        table.act({"type": "build", "player": 0, "square": square})
    assert [table.game.square(s)["level"] for s in (6, 8, 9)] == [3, 2, 2] and table.my_move
    return table


@pytest.mark.parametrize(
    ("lang", "three", "two"),
    [
        ("en", "(3 houses)", "(2 houses)"),
        ("fr", "(3 maisons)", "(2 maisons)"),
        ("it", "(3 case)", "(2 case)"),
        ("no", "(3 hus)", "(2 hus)"),
    ],
)
def test_the_trade_panel_says_a_deeds_houses_as_the_language_counts_them(lang: str, three: str, two: str) -> None:
    """The trade panel (F9) says the houses on ann's streets as the portfolio does, in words of
    the language: the Norwegian panel said "(2 bygd)" ("2 built")."""
    table = _ann_builds(lang)
    title = t(lang, "trade.title", partner="bea")
    panel = _keys(table, [(F9, lambda app, lines: title in "\n".join(lines))])[0]
    rows = {name: next(line for line in panel if name in line) for name in ("Oriental", "Vermont", "Tennessee")}
    assert rows["Oriental"].rstrip().endswith("Oriental Avenue " + three), panel
    assert rows["Vermont"].rstrip().endswith("Vermont Avenue " + two), panel
    assert rows["Tennessee"].rstrip().endswith("Tennessee Avenue"), panel


@pytest.mark.parametrize("lang", ["en", "fr", "it", "no"])
def test_the_offer_panels_keys_say_the_languages_command_words(lang: str) -> None:
    """Under an offer made to the person, the hint says a (accept) and r (reject) with the very
    words the command line takes for them in the language, and c (counter) with the word the
    help and the counter-offer's title use: the Norwegian hint said "r: avslå" (the word of
    'decline', a purchase) while the command is "avvis"; French and Italian the same."""
    hint = t(lang, "offer.keys")
    said = dict(re.findall(r"\b([arc]) ?: (\S+)", hint))
    words = command_words(lang)
    assert words[fold(said["a"])] == "accept", hint
    assert words[fold(said["r"])] == "reject", hint
    assert said["a"] == t(lang, "alias.accept").split()[0] and said["r"] == t(lang, "alias.reject").split()[0]
    assert fold(said["c"]) in fold(t(lang, "help.keys")), hint
    assert fold(said["c"]) in fold(t(lang, "trade.counter_title", partner="bea")), hint
    # The help says the same two words (as verbs of its sentence).
    help_keys = fold(t(lang, "help.keys"))
    assert fold(said["a"])[:5] in help_keys and fold(said["r"])[:5] in help_keys, help_keys
    # And the panel shows that hint once bea offers ann something.
    table = _ann_and_bea_each_hold_a_deed(lang=lang)
    table.act({"type": "propose_trade", "player": 1, "to": 0, "give": {"cash": 10}, "get": {"properties": [8]}})
    shown = _keys(table, [(F9, lambda app, lines: hint in "\n".join(lines))])[0]
    assert any(hint in line for line in shown), shown


@pytest.mark.parametrize(
    ("lang", "deck", "typed"),
    [
        ("it", "community_chest", "scambia bea give carta prigione Probabilità for 50"),
        ("it", "chance", "scambia bea give carta prigione, 10 for niente"),
        ("no", "community_chest", "bytt bea give løslatelseskort prøv lykken for 50"),
        ("no", "chance", "bytt bea give Fengselskort for ingenting"),
        ("fr", "community_chest", "échanger bea give carte prison caisse de communauté for 50"),
        ("en", "community_chest", "trade bea give community chest jail card for 50"),
    ],
)
def test_the_trade_command_takes_a_jail_card_in_the_languages_own_words(lang: str, deck: str, typed: str) -> None:
    """ann types a trade giving her jail card in her language's words (the Italian 'carta
    prigione', the deck 'Probabilità'; the Norwegian 'løslatelseskort', 'Prøv lykken'): the offer
    made carries that card, of that deck (the command knew only 'jail'/'prison' and
    'chest'/'caisse')."""
    table = _holds_a_jail_card(deck, lang)

    def offers() -> list[Action]:
        return [a for a in table.record.inputs if a["type"] == "propose_trade"]  # bea may answer at once

    _keys(table, [(typed + "\r", lambda app, lines: bool(offers()))])
    assert [offer["give"]["jail_cards"] for offer in offers()] == [[deck]], table.lines[-3:]


@pytest.mark.parametrize("lang", ["en", "fr", "it", "no"])
def test_the_auction_and_offer_decisions_say_the_languages_command_words(lang: str) -> None:
    """The decision in the middle of the board says what to type in the language's words: the
    Italian auction said "bid N / pass" while the command line's words are "offri" and "passa"
    (found playing at 120x40); an offer's short line said "accept / reject"."""
    auction = t(lang, "dec.auction", lot="x", lead="y").rsplit(". ", 1)[1].split()
    assert [auction[0], auction[1], auction[3]] == [shown_word(lang, "bid"), "N", shown_word(lang, "pass")], auction
    offer = t(lang, "dec.offer", player="bea", give="x", get="y").rsplit(": ", 1)[1].split()
    assert [offer[0], offer[2]] == [shown_word(lang, "accept"), shown_word(lang, "reject")], offer
    # On the screen at 120x40, the auction's line as the catalog has it.
    table = _offer_during_an_auction(lang)

    async def session() -> list[str]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=PAUSE, input=pipe, output=Terminal(120, 40))
            running = asyncio.create_task(app.run())
            said = " ".join(auction)
            screen = await wait_for(app.app, lambda lines: any(said in line for line in lines))
            pipe.send_text("\x11")
            await asyncio.wait_for(running, timeout=30)
            return screen

    shown = asyncio.run(session())
    assert any(" ".join(auction) in line for line in shown), "\n".join(shown)


def _both_hold_many_deeds() -> LocalTable:
    """ann (the person, played here as a simple bot that makes no offers) and bea play until
    they hold 18 deeds between them: more than the trade panel's lines that fit at 80x24."""
    table = LocalTable(["ann", "bea"], me=0, seed=4)
    person = SimpleBot()
    while True:
        held = [len(table.game.player(seat)["properties"]) for seat in (0, 1)]
        if sum(held) >= 18 and table.my_move:
            return table
        if not table.step():
            legal = [a for a in table.game.legal_actions(0) if a["type"] != "propose_trade"]
            table.act(dict(person.choose(table.game, 0, legal)))


def test_a_trade_panel_taller_than_the_screen_scrolls_to_its_cursor() -> None:
    """At 80x24, ann's and bea's holdings take more rows than the panel has: Up from ann's first
    deed goes to her cash line, Right to bea's side and Up to bea's cash line, the panel's last:
    the panel scrolls to show each (found playing at 80x24: bea's last deeds and cash line were
    under the screen's edge and could not be chosen by sight)."""
    table = _both_hold_many_deeds()
    cash = t("en", "trade.cash", amount="$0") + " " + t("en", "trade.cash_keys", step="$10", page="$100")
    first, last = _keys(
        table,
        [
            (F9, lambda app, lines: "Trade with bea" in "\n".join(lines)),
            ("\x1b[D\x1b[A", lambda app, lines: any(" ".join(line.split()) == "> " + cash for line in lines)),
        ],
    )
    assert "Trade with bea" in first[0] and not any(" ".join(line.split()) == "> " + cash for line in first)
    assert any(" ".join(line.split()) == "> " + cash for line in last), "\n".join(last)
    assert all(len(line) <= 80 for line in last)


def test_the_trade_panels_cash_line_says_pageup_adds_a_hundred() -> None:
    """Found playing: offering $300 took thirty presses of +, the hint line (full at 80 columns)
    saying nothing of PageUp/PageDown. The cash line under the cursor says them, and PageUp adds
    $100 (twice and + once: $210)."""
    table = _ann_and_bea_each_hold_a_deed()
    screens = _keys(
        table,
        [
            (F9 + TAB + DOWN, lambda app, lines: any("> " in line and "cash: $0" in line for line in lines)),
            (PAGE_UP + PAGE_UP + "+", lambda app, lines: any("cash: $210" in line for line in lines)),
        ],
    )
    line = next(line for line in screens[0] if "cash: $0" in line and ">" in line)
    assert line.endswith("cash: $0   +/- $10, PgUp/PgDn $100"), line
    assert any(line.endswith("cash: $210   +/- $10, PgUp/PgDn $100") for line in screens[1]), screens[1]


def test_a_stray_command_typed_in_the_trade_panel_is_asked_about_and_the_draft_is_never_lost() -> None:
    """Issue 14's leftover: in the panel, stray text and Enter ran as a command and the draft was
    lost. Now it is asked first: "e" then "n" keeps the panel and the draft as they were (nothing
    played); "roll" then "y" leaves the panel and rolls, and F9 brings back the same draft, with
    cy (Tab had picked him, not bea, the first partner F9 opens with)."""
    table = _ann_and_bea_each_hold_a_deed()
    step = table.game.step
    question = "Leave the trade panel to run “e”? Your offer is kept: F9 brings it back. (y/n)"
    kept = [" Trade with cy", "You give (ann, cash $1400):", "  > [x] Vermont Avenue", "        cash: $10"]
    screens = _keys(
        table,
        [
            (F9 + TAB + " +", lambda app, lines: "        cash: $10" in lines),
            ("e\r", lambda app, lines: question in " ".join(line.strip() for line in lines)),
            ("n\r", lambda app, lines: any("Your offer is still here" in line for line in lines)),
            ("", lambda app, lines: table.game.step == step),  # nothing played
            ("roll\r", lambda app, lines: any("to run “roll”?" in line for line in lines)),
            ("y\r", lambda app, lines: lines[0].startswith("FREE") and "ann rolls" in " ".join(table.lines[-4:])),
            (F9, lambda app, lines: "Trade with cy" in "\n".join(lines)),
        ],
    )
    asked, kept_screen, _, _, rolled, again = screens[1:]
    assert rolled[0].startswith("FREE"), "the panel closed for the command"
    assert asked[:4] == kept, "\n".join(asked)  # the panel stays while it asks
    assert kept_screen[:4] == kept, "\n".join(kept_screen)
    assert table.game.step > step and "ann rolls" in " ".join(table.lines[-4:]), "yes ran the command"
    assert again[:4] == kept, "\n".join(again)  # the same draft, with cy
    assert not any("offers a trade" in line for line in table.lines), "nothing was sent"


@pytest.mark.parametrize(
    ("lang", "wrong", "typed"),
    [
        ("en", "trade bea baltic for 50", "trade bea give jail card, 10 for nothing"),
        ("fr", "échanger bea prison 50", "échanger bea donne carte prison, 10 contre rien"),
        ("it", "scambia bea prigione 50", "scambia bea dai carta prigione, 10 per niente"),
        ("no", "bytt bea fengsel 50", "bytt bea gi fengselskort, 10 for ingenting"),
    ],
)
def test_the_trade_command_takes_give_and_for_in_the_languages_own_words(lang: str, wrong: str, typed: str) -> None:
    """The trade command's "give" and "for" were English in every language, and its usage said
    them so (found in the tmux runs): each language has its own (French "donne ... contre",
    Italian "dai ... per", Norwegian "gi ... for"), which the usage and the help show and the
    command takes; the English ones still work everywhere."""
    table = _holds_a_jail_card("chance", lang)

    def offers() -> list[Action]:
        return [a for a in table.record.inputs if a["type"] == "propose_trade"]

    usage = t(lang, "err.trade")
    give, get = (t(lang, f"trade.words.{kind}").split()[0] for kind in ("give", "for"))
    (told, _) = _keys(
        table,
        [
            (wrong + "\r", lambda app, lines: app.feedback[1] == usage),
            (typed + "\r", lambda app, lines: bool(offers())),
        ],
    )
    shown = " ".join(line.strip() for line in told)
    assert f" {give} " in usage and f" {get} " in usage and usage.split()[:1] in (["trade"], [typed.split()[0]])
    assert usage in shown, "\n".join(told)
    assert [(o["give"]["jail_cards"], o["give"]["cash"], o["get"]) for o in offers()] == [
        (["chance"], 10, {"properties": [], "cash": 0, "jail_cards": []})
    ], table.lines[-3:]


@pytest.mark.parametrize(
    ("lang", "arrows"),
    [
        ("en", "↑↓: item  ←→: your side / theirs"),
        ("fr", "↑↓ : objet  ←→ : votre côté / le sien"),
        ("it", "↑↓: voce  ←→: lato tuo / suo"),
        ("no", "↑↓: ting  ←→: din side / den andres"),
    ],
)
def test_the_trade_panels_keys_say_what_each_arrow_does(lang: str, arrows: str) -> None:
    """Found in the tmux runs: the trade panel's keys said "↑↓←→: move", not that Up/Down go
    along a side's items and Left/Right go from the person's side to the partner's. They say so
    now, whole, on two rows at 80x24 where one is too short."""
    table = _ann_and_bea_each_hold_a_deed(lang=lang)
    (panel,) = _keys(table, [(F9, lambda app, lines: app.shown is not None and app.shown[0] == "trade")])
    keys = t(lang, "trade.keys")
    assert keys.startswith(arrows)
    rows = [row for row in panel[-2:] if row.strip() != ">"]
    assert "  ".join(rows) == keys, "\n".join(panel)  # broken between two keys, not in one
    assert all(len(row) <= 80 for row in panel)
