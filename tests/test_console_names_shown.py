"""The rules presets and the boards are shown by their names in the player's language, never by
their ids (issue 14: the start screen said "Règles : official", the lobby "Tabellone classic,
regole official"): the start screen, the host's lobby and the join list, each on the real screen."""

from __future__ import annotations

import asyncio

import pytest
from prompt_toolkit.input import create_pipe_input

from lanopoly.console import HostScreen, JoinScreen, Setup, StartScreen
from lanopoly.console.lobby import column_widths
from lanopoly.i18n import LANGUAGES, t
from lanopoly.net.discovery import Lobby
from screen import Terminal, wait_for

DOWN, RIGHT = "\x1b[B", "\x1b[C"
LOOPBACK = ["127.0.0.1"]


def _start_screen(setup: Setup, keys: str, shown: str) -> list[str]:
    """The start screen of ``setup`` once ``keys`` were typed and ``shown`` is on it."""

    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            screen = StartScreen(setup, input=pipe, output=Terminal())
            running = asyncio.create_task(screen.run())
            await wait_for(screen.app, lambda lines: any(t(setup.lang, "start.rules") in line for line in lines))
            pipe.send_text(keys)
            lines = await wait_for(screen.app, lambda lines: shown in "\n".join(lines))
            pipe.send_text("\x1b")
            await asyncio.wait_for(running, timeout=10)
            return lines

    return asyncio.run(run())


def _row(lines: list[str], label: str) -> str:
    return next(line for line in lines if line.strip(" >").startswith(label))


def test_the_french_start_screen_names_the_rules_and_the_board():
    lines = _start_screen(Setup(lang="fr", board="paris"), "", "< officielles >")
    assert _row(lines, "Règles").split(":", 1)[1].strip() == "< officielles >"
    assert _row(lines, "Plateau").split(":", 1)[1].strip() == "< Paris (€) >"
    # Every preset, as Right steps through them: its French name, never its id.
    more = _start_screen(Setup(lang="fr"), DOWN * 6 + RIGHT * 6, "< partie éclair >")
    assert _row(more, "Règles").split(":", 1)[1].strip() == "< partie éclair >"


def test_the_italian_start_screen_names_the_rules_and_the_board():
    lines = _start_screen(Setup(lang="it"), DOWN * 6 + RIGHT * 2, "< italiane >")
    assert _row(lines, "Regole").split(":", 1)[1].strip() == "< italiane >", lines
    assert _row(lines, "Tabellone").split(":", 1)[1].strip() == "< classico (Atlantic City, $) >"
    paris = _start_screen(Setup(lang="it"), DOWN * 5 + RIGHT, "Parigi")
    assert _row(paris, "Tabellone").split(":", 1)[1].strip() == "< Parigi (€) >"


def _hosting(setup: Setup) -> list[str]:
    """The host's lobby screen of ``setup`` (on loopback, not advertised) as drawn."""

    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            screen = HostScreen(setup, advertise=False, interfaces=LOOPBACK, input=pipe, output=Terminal())
            running = asyncio.create_task(screen.run())
            lines = await wait_for(screen.app, lambda lines: bool(screen.address) and any("PIN" in x for x in lines))
            pipe.send_text("\x1b")
            await asyncio.wait_for(running, timeout=10)
            return lines

    return asyncio.run(run())


def test_the_lobby_names_the_rules_and_the_board_in_italian_and_french():
    italian = _hosting(Setup(name="ana", lang="it", board="classic", rules="official"))
    assert "Tabellone classico (Atlantic City, $), regole ufficiali" in "\n".join(italian), italian
    french = _hosting(Setup(name="ana", lang="fr", board="paris", rules="paris-quick"))
    assert "Plateau Paris (€), règles appli Paris, rapide" in "\n".join(french), french


def _lobby(rules: str, board: str) -> Lobby:
    return Lobby(
        instance="t._lanopoly._tcp.local.",
        table="il tavolo di Ana ee01",
        addresses=("127.0.0.1",),
        port=40893,
        version=8,
        game_id="d4d4ec31d32f99c7b6b3779bd7a36c7d",
        seats_taken=1,
        seats_total=4,
        rules=rules,
        board=board,
        state="open",
        fingerprint="b517-2a61-d2a1-19dd",
    )


def test_the_join_list_names_the_rules_and_the_board_in_italian_and_french():
    for lang, lobby, shown in [
        ("it", _lobby("official", "classic"), "ufficiali/classico"),
        ("it", _lobby("paris-app", "paris"), "app Parigi/Parigi"),
        ("fr", _lobby("speed", "classic"), "partie éclair/classique"),
        ("fr", _lobby("a-newer-preset", "moon"), "a-newer-preset/moon"),  # unknown ids stay as sent
    ]:
        screen = JoinScreen(Setup(lang=lang), interfaces=LOOPBACK, output=Terminal())
        line = screen.lobby_lines(lobby, column_widths([lobby], lang))[0]
        assert line.endswith(" " + shown) and len("> " + line) <= 80, line
    # The longest names still fit 80 columns.
    for lang in ("en", "fr", "it", "no"):
        for rules in ("paris-quick", "paris-house", "timed"):
            lobby = _lobby(rules, "paris")
            screen = JoinScreen(Setup(lang=lang), interfaces=LOOPBACK, output=Terminal())
            assert len("> " + screen.lobby_lines(lobby, column_widths([lobby], lang))[0]) <= 80


@pytest.mark.parametrize("lang", LANGUAGES)
def test_every_line_of_the_start_screen_shows_its_value_in_one_column(lang: str) -> None:
    """The bid timer's French and Italian labels ("Temps d'enchère :", "Tempo per offrire:") were
    longer than the label column: their values stood out of line with the others (found in the
    tmux run). Every label fits, and every value starts in the same column, at 80x24."""
    lines = _start_screen(Setup(lang=lang), "", "<")
    values = [line for line in lines if "< " in line and line.rstrip().endswith(">")]
    assert len(values) == 7, "\n".join(lines)  # token, bots, difficulty, bid timer, board, rules, language
    assert {line.index("< ") for line in values} == {16}, "\n".join(values)
