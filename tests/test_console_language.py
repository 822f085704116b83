"""Every visible word in the person's language, as the real application shows it at 80x24: the
board's labels of corners, card and tax squares and utilities, counts with their plural forms,
the command words of the "you can" line, and the start screen's lines whole."""

from __future__ import annotations

import asyncio
import re

import pytest
from prompt_toolkit.input import create_pipe_input

from conftest import dice, roll
from lanopoly import catalog
from lanopoly.console import ConsoleApp, LocalTable, Setup, StartScreen
from lanopoly.i18n import ALIASES, BOARD_LABELS, LANGUAGES, default_board, plural, t
from screen import PAGE_DOWN, Terminal, wait_for

ENGLISH_LABELS = ["FREE", "JAIL", "COPS", "CHST", "ELEC", "WATR", "TAX "]


def _game_screen(lang: str) -> tuple[LocalTable, list[str]]:
    """ada (the person) has bought the deed on square 3 and may end her turn: the screen then."""
    table = LocalTable(["ada", "bea", "cy"], me=0, seed=1, lang=lang, board=default_board(lang))
    game = table.game
    for seat in range(3):  # the order roll: ada starts
        game.apply(dice(6, 6) if seat == 0 else dice(1, 2))
    roll(game, 1, 2)
    game.apply({"type": "buy", "player": 0})

    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=0, input=pipe, output=Terminal(80, 24))
            running = asyncio.create_task(app.run())
            hints = t(lang, "hints", words="")
            lines = await wait_for(app.app, lambda screen: screen[-1].startswith(hints))
            pipe.send_text("\x11")
            assert await asyncio.wait_for(running, timeout=10) == 0
            return lines

    return table, asyncio.run(run())


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_board_speaks_the_language(lang: str) -> None:
    table, screen = _game_screen(lang)
    board = [f"{row:<80}" for row in screen[:13]]  # rows as drawn (the screen strips their ends)
    own = {kind: f"{label:<4}" for kind, label in BOARD_LABELS[lang].items()}
    assert board[0][:4] == own["free_parking"] and board[0][70:74] == own["go_to_jail"]
    assert board[11][:4] == own["jail"] and board[11][70:74] == own["go"]
    assert board[11][42:46] == own["tax"] and board[4][:4] == own["community_chest"]
    assert board[9][:4] == own["electric"] and board[0][56:60] == own["water"]
    if lang != "en":
        shown = "\n".join(board).split()
        assert not [label for label in ENGLISH_LABELS if label.strip() in shown], board
    # ada's one deed in the singular; none for the others (French: singular for 0 too).
    assert plural(lang, "panel.deeds", 1) + " " in board[2], board[2]
    assert plural(lang, "panel.deeds", 0) + " " in board[3], board[3]
    # The "you can" line in the language's command words.
    hints = screen[-1]
    words = hints.removeprefix(t(lang, "hints", words="")).split(", ")
    if lang != "en":
        own_words = set(ALIASES[lang])
        assert words and all(word in own_words for word in words), hints
    assert not table.game.is_over


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_start_screen_shows_every_line_whole_at_80x24(lang: str) -> None:
    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            screen = StartScreen(Setup(lang=lang), input=pipe, output=Terminal(80, 24))
            running = asyncio.create_task(screen.run())
            lines = await wait_for(screen.app, lambda shown: any(line.strip() for line in shown))
            pipe.send_text("\x1b")
            await asyncio.wait_for(running, timeout=10)
            return lines

    shown = asyncio.run(run())
    for key in ("start.title", "start.keys", "start.lan"):
        assert " " + t(lang, key) in shown, (key, shown)
    if lang == "fr":  # French typography: a space before the colon ("Votre nom:" before)
        assert any(line.startswith("> Votre nom :") for line in shown), shown


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_empty_name_field_says_which_name_the_game_takes(lang: str) -> None:
    """A newcomer saw a blank "Your name:" and did not know who they would be: the empty field
    shows the token's name and why, and a typed letter replaces it."""

    async def run() -> tuple[list[str], list[str]]:
        with create_pipe_input() as pipe:
            screen = StartScreen(Setup(lang=lang), input=pipe, output=Terminal(80, 24))
            running = asyncio.create_task(screen.run())
            empty = await wait_for(screen.app, lambda shown: t(lang, "start.name_hint") in shown[2])
            pipe.send_text("Z")
            typed = await wait_for(screen.app, lambda shown: shown[2].endswith(" Z"))
            pipe.send_text("\x1b")
            await asyncio.wait_for(running, timeout=10)
            return empty, typed

    empty, typed = asyncio.run(run())
    token = StartScreen(Setup(lang=lang)).shown("token")
    assert empty[2].endswith(f" {token} {t(lang, 'start.name_hint')}"), empty[2]
    assert typed[2].endswith(" Z") and t(lang, "start.name_hint") not in typed[2], typed[2]


def test_norwegian_says_robot_where_bot_is_the_jail_fine() -> None:
    """In Norwegian "bot" is the jail fine (its command word pays it): a text about the computer
    players says "robot", as the start screen does, never "bot" ("mot botene" read "against the
    fines")."""
    table = LocalTable(["ada", "bea", "cy"], me=0, seed=1, lang="no")
    for seat in range(3):  # the order roll: ada starts
        table.game.apply(dice(6, 6) if seat == 0 else dice(1, 2))

    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=0, input=pipe, output=Terminal(80, 24))
            running = asyncio.create_task(app.run())
            await wait_for(app.app, lambda screen: screen[-1].startswith(t("no", "hints", words="")))
            pipe.send_text("replace bea\r")
            lines = await wait_for(app.app, lambda screen: any("nettverksspill" in line for line in screen))
            pipe.send_text("\x11")
            assert await asyncio.wait_for(running, timeout=10) == 0
            return lines

    answer = next(line for line in asyncio.run(run()) if "nettverksspill" in line)
    assert "robotene" in answer and "botene" not in answer.replace("robotene", ""), answer
    # Every other text about the computer players, as the catalog holds it.
    english, norwegian = catalog.load("en", "console"), catalog.load("no", "console")
    assert english is not None and norwegian is not None
    for key, entry in english.entries.items():
        if re.search(r"\bbots?\b", entry.msgid, re.I):
            words = re.findall(r"\w+", " ".join(norwegian.entries[key].forms).lower())
            assert not {"bot", "boten", "botene", "bots"} & set(words), (key, norwegian.entries[key].forms)


@pytest.mark.parametrize(
    ("thrown", "said"),
    [((1, 2), "Rue Lecourbe est mise aux enchères."), ((5, 6), "Boulevard de la Villette est mis aux enchères.")],
)
def test_a_french_auction_agrees_with_the_deeds_name(thrown: tuple[int, int], said: str) -> None:
    """ada declines the deed she landed on: the log says the street is auctioned with the words
    agreeing with its name ("Rue Lecourbe est mis aux enchères" was what it said)."""
    table = LocalTable(["ada", "bea", "cy"], me=0, seed=1, lang="fr", board="paris")
    for seat in range(3):  # the order roll: ada starts
        table.game.apply(dice(6, 6) if seat == 0 else dice(1, 2))
    roll(table.game, *thrown)

    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=30, input=pipe, output=Terminal(80, 24))
            running = asyncio.create_task(app.run())
            await wait_for(app.app, lambda screen: screen[-1].startswith(t("fr", "hints", words="")))
            pipe.send_text("refuser\r")
            lines = await wait_for(app.app, lambda screen: any("aux enchères" in line for line in screen))
            pipe.send_text("\x11")
            assert await asyncio.wait_for(running, timeout=10) == 0
            return lines

    assert said in asyncio.run(run())


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_help_names_the_commands_arguments_as_their_descriptions_do(lang: str) -> None:
    """The help's usage column said "accept [PLAYER]" beside "accepter l'échange proposé par
    JOUEUR": its placeholders are now the language's, as the descriptions and the trade usage
    name them; the trade's words (give, for) are the language's, as its parser takes them."""
    table = LocalTable(["ada", "bea"], me=0, seed=1, lang=lang, board=default_board(lang))
    for seat in range(2):  # the order roll: ada starts
        table.game.apply(dice(6, 6) if seat == 0 else dice(1, 2))

    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            app = ConsoleApp(table, delay=30, input=pipe, output=Terminal(80, 24))
            running = asyncio.create_task(app.run())
            await wait_for(app.app, lambda screen: screen[-1].startswith(t(lang, "hints", words="")))
            pipe.send_text(t(lang, "alias.help").split()[0] + "\r")
            last = await wait_for(app.app, lambda screen: screen[13].strip() == t(lang, "help.title"))
            seen = list(last)
            for _ in range(12):  # page to the list's last command (fewer pages than that)
                if any(line.startswith("  quit") for line in seen):
                    break
                pipe.send_text(PAGE_DOWN)
                last = await wait_for(app.app, lambda screen, before=last[13:21]: screen[13:21] != before)
                seen += last
            pipe.send_text("\x11")
            assert await asyncio.wait_for(running, timeout=10) == 0
            return seen

    seen = asyncio.run(run())
    player, items, amount = (t(lang, f"arg.{word}") for word in ("PLAYER", "ITEMS", "AMOUNT"))
    assert any(line.startswith(f"  bid {amount}") for line in seen), seen
    assert any(line.startswith(f"  accept [{player}]") for line in seen), seen
    give, get = (t(lang, f"trade.words.{kind}").split()[0] for kind in ("give", "for"))
    assert any(line.startswith(f"  trade {player} {give} {items} {get} {items}") for line in seen), seen
    assert player in t(lang, "cmd.accept") and items in t(lang, "cmd.trade")
