"""Input that helps, typed in the real application (issue 14): words after a command that takes
none are refused with the reason, numbers too large are answered in words, the board's labels name
properties, a typo gets a suggestion, and the message line never goes stale.

The application runs on a pipe in an 80x24 terminal; the bots pause 30 seconds after each move,
so the game stands still while the test types and reads the screen.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from prompt_toolkit.input import create_pipe_input

from conftest import dice
from lanopoly import Rules
from lanopoly.console import ConsoleApp, LocalTable
from lanopoly.console.escape import WAIT
from screen import Terminal, wait_for

PAUSE = 30.0  # seconds a bot waits after each move: longer than the test

Check = Callable[[ConsoleApp, list[str]], bool]


def _on_reading_railroad(lang: str = "en") -> LocalTable:
    """ada (the person), bea and cy (bots); ada starts and lands on Reading Railroad."""
    table = LocalTable(["ada", "bea", "cy"], me=0, seed=0, lang=lang)
    for outcome in (dice(6, 6), dice(1, 2), dice(1, 3)):
        table.act(outcome)
    table.act({"type": "roll", "player": 0})
    table.act(dice(1, 4))
    assert table.game.buy_square == 5 and table.my_move
    return table


def _drive(
    table: LocalTable,
    script: list[tuple[str, Check]],
    terminal: Terminal | None = None,
    send: Callable[[str], str] = lambda text: text + "\r",
) -> list[str]:
    """Type each line of ``script`` into the running application (80x24 unless ``terminal``; each
    line ``send`` makes keys of: the line and Enter) and wait until its check holds for the
    application and its screen (failing with the screen if it never does); the last screen."""

    async def session() -> list[str]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=PAUSE, input=pipe, output=terminal or Terminal())
            running = asyncio.create_task(app.run())
            screen = await wait_for(app.app, lambda lines: any("ada" in line for line in lines))
            for text, check in script:
                pipe.send_text(send(text))
                screen = await wait_for(app.app, lambda lines, check=check: check(app, lines))
                assert check(app, screen), (text, app.feedback, "\n".join(screen))
            pipe.send_text("quit\r")
            assert await asyncio.wait_for(running, timeout=30) == 0
            return screen

    return asyncio.run(session())


def _shows(text: str) -> Check:
    return lambda app, lines: text in "\n".join(lines)


def test_words_after_a_command_that_takes_none_are_refused_and_nothing_is_bought():
    """On Reading Railroad, ``buy boardwalk`` used to buy Reading Railroad."""
    table = _on_reading_railroad()
    before = table.game.state_hash()
    _drive(table, [("buy boardwalk", _shows("'buy' takes nothing after it: type just 'buy', without 'boardwalk'"))])
    assert table.game.state_hash() == before
    assert table.game.square(5)["owner"] is None


def test_words_after_quit_are_refused_and_the_game_goes_on():
    table = _on_reading_railroad()
    _drive(table, [("quit now", _shows("'quit' takes nothing after it"))])


def test_a_huge_bid_is_answered_in_words():
    """``bid 99999999999999999999`` used to answer 'field "amount" has the wrong type or is out of
    range'; a huge trade amount likewise."""
    table = _on_reading_railroad()
    table.act({"type": "decline", "player": 0})
    assert table.game.auction is not None
    before = table.game.state_hash()
    screen = _drive(
        table,
        [
            ("bid 99999999999999999999", _shows("you can bid at most $1500 (your cash)")),
            ("trade bea give 99999999999999999999 for nothing", _shows("99999999999999999999 is too large")),
        ],
    )
    assert not any("field" in line for line in screen), screen
    assert table.game.state_hash() == before


def test_a_huge_bid_is_answered_in_french():
    table = _on_reading_railroad("fr")
    table.act({"type": "decline", "player": 0})
    _drive(table, [("bid 99999999999999999999", _shows("vous pouvez offrir au plus 1500"))])


def _says(text: str) -> Check:
    """The message line says ``text`` (it may wrap on the screen)."""
    return lambda app, lines: text in app.feedback[1]


def _logged(text: str) -> Check:
    return lambda app, lines: any(line.startswith(text) for line in app.table.lines)


def test_the_board_labels_name_properties_and_a_typo_gets_a_suggestion():
    """``info StCh`` and ``info pen4`` used to answer "no property"; bare ``info`` answered
    "no property called ''"; a typo got no suggestion."""
    table = _on_reading_railroad()
    before = table.game.state_hash()
    _drive(
        table,
        [
            ("info StCh", _logged("St. Charles Place: price $140")),
            ("info pen4", _logged("Pennsylvania Avenue: price $320")),
            ("info neyo", _logged("New York Avenue: price $200")),
            ("info", _shows("info what? e.g. 'info boardwalk'")),
            ("info bordwalk", _shows("no property called 'bordwalk'; did you mean Boardwalk?")),
            ("mortgage pensylvania", _says("did you mean Pennsylvania Railroad, Pennsylvania Avenue?")),
            ("trade bea give StCh for nothing", _says("ada does not own St. Charles Place")),
        ],
    )
    assert table.game.state_hash() == before


def test_a_typo_gets_a_suggestion_in_french():
    table = _on_reading_railroad("fr")
    _drive(table, [("info bordwalk", _shows("vouliez-vous dire Boardwalk ?"))])


def test_an_unknown_command_suggests_the_ones_it_may_mean():
    """A beginning ("hyp") or a typo ("mortage") of a command used to get only "unknown command"."""
    table = _on_reading_railroad("fr")
    before = table.game.state_hash()
    _drive(
        table,
        [
            ("hyp boardwalk", _says("commande inconnue 'hyp' : vouliez-vous dire hypothéquer ?")),
            ("mortage boardwalk", _says("vouliez-vous dire hypothéquer ?")),
        ],
    )
    assert table.game.state_hash() == before
    english = _on_reading_railroad()
    _drive(english, [("en", _says("did you mean end, endgame?")), ("dance", _says("unknown command 'dance'; type"))])


def test_info_answers_on_the_message_line():
    """``info`` used to leave the message line as it was (here the refusal of a typo). Beside the
    log (120 columns: the card in the side panel) it says where the deed's lines are; at 80x24 the
    card hides the log, and "in the log above" is not said (it used to show under the card)."""
    wide = _on_reading_railroad()
    _drive(
        wide,
        [
            ("dance", _says("unknown command 'dance'")),
            ("info boardwalk", _shows("the deed of Boardwalk is in the log above")),
        ],
        Terminal(120, 30),
    )
    small = _on_reading_railroad()
    _drive(
        small,
        [
            ("dance", _says("unknown command 'dance'")),
            ("info boardwalk", lambda app, lines: "mortgage value" in "\n".join(lines) and app.feedback[1] == ""),
        ],
    )


def test_a_message_that_points_at_the_log_goes_once_a_card_hides_the_log():
    """Issue 14, item 7: "the commands are in the log above" stayed while the portfolio (F8) was
    shown in place of the log; it goes then, and does not come back when the card is closed."""
    table = _on_reading_railroad()
    screen = _drive(
        table,
        [
            ("help\r", _says("the commands are in the log above")),
            ("\x1b[19~", lambda app, lines: "net worth" in "\n".join(lines) and app.feedback[1] == ""),
        ],
        send=lambda text: text,
    )
    assert not any("in the log above" in line for line in screen), "\n".join(screen)


def test_a_refusal_out_of_turn_goes_once_the_turn_is_back():
    """ "it is bea's turn" used to stay on the message line when the turn was back to the person."""
    table = _on_reading_railroad()
    table.act({"type": "buy", "player": 0})
    table.act({"type": "end_turn", "player": 0})

    async def session() -> None:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=0.3, input=pipe, output=Terminal())
            running = asyncio.create_task(app.run())
            await wait_for(app.app, lambda lines: any("ada" in line for line in lines))
            assert not table.my_move
            pipe.send_text("roll\r")
            screen = await wait_for(app.app, lambda lines: "it is bea's turn" in "\n".join(lines))
            assert "it is bea's turn" in "\n".join(screen), screen
            screen = await wait_for(
                app.app, lambda lines: table.my_move and "it is bea's turn" not in "\n".join(lines), 60
            )
            assert table.my_move and not any("it is bea's turn" in line for line in screen), screen
            assert app.feedback == ("class:hint", "")
            pipe.send_text("quit\r")
            assert await asyncio.wait_for(running, timeout=30) == 0

    asyncio.run(session())


def test_a_board_label_that_also_starts_another_name_asks_which_and_mortgages_nothing():
    """Found playing: `mortgage BO`, typed from the board's label of B. & O. Railroad, answered
    "you do not own Boardwalk" (and would have mortgaged Boardwalk, had ada owned it): a word
    prefix won over the label. Both are named now, and nothing is mortgaged until ada says which."""
    table = LocalTable(["ada", "bea"], me=0, seed=0, rules=Rules(starting_deeds=2))
    for square in (25, 1, 39, 3):  # dealt to ada, bea, ada, bea
        table.act({"type": "deed", "square": square})
    table.act(dice(6, 6))
    table.act(dice(1, 2))
    asked = "'BO' could be B. & O. Railroad, Boardwalk: say more"
    _drive(table, [("mortgage BO", lambda app, lines: app.feedback[1] == asked)])
    assert not any(table.game.square(s)["mortgaged"] for s in (25, 39))


def test_a_command_typed_soon_after_escape_keeps_its_first_letter():
    """Found in a tmux run: Escape, then ``buy`` typed within a second, was read as Alt+B (back a
    word) and ``uy``: prompt_toolkit waits 0.5 s, then 1 s, before it takes Escape alone; the
    console waits :data:`lanopoly.console.escape.WAIT`, less than a person's pause. The test
    checks those waits, then types ``buy`` once the Escape was taken alone (a condition, not a
    pause of its own: under load a pause of 0.3 s was too short for the loop to read the Escape
    first, and the two came as one read)."""
    table = _on_reading_railroad()

    async def session() -> None:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=PAUSE, input=pipe, output=Terminal())
            assert app.app.ttimeoutlen == app.app.timeoutlen == WAIT < 0.3  # a person's pause is longer
            keys = app.app.key_processor
            pressed: list[object] = []
            keys.after_key_press += pressed.append
            running = asyncio.create_task(app.run())
            await wait_for(app.app, lambda lines: any("ada" in line for line in lines))
            pipe.send_text("\x1b")
            await wait_for(app.app, lambda lines: bool(pressed) and not keys.key_buffer)  # taken alone
            assert pressed and not keys.key_buffer, "the Escape was not taken alone within 10 s"
            pipe.send_text("buy\r")
            screen = await wait_for(app.app, lambda lines: table.game.square(5)["owner"] is not None)
            assert table.game.square(5)["owner"] == 0, (app.feedback, "\n".join(screen))
            pipe.send_text("quit\r")
            assert await asyncio.wait_for(running, timeout=30) == 0

    asyncio.run(session())
