"""The start screen, driven by keys on a pipe: Enter starts a game with the defaults at once;
arrows and typing choose the name, token, bots, difficulty, board, rules and language."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

import lanopoly.console
from lanopoly import Bot, Rules, SimpleBot
from lanopoly.console import ConsoleApp, Setup, StartScreen, session
from lanopoly.console.saves import SavedLanGame
from lanopoly.console.start import option_text
from lanopoly.i18n import LANGUAGES, t
from screen import Terminal, wait_for

DOWN, UP, RIGHT, LEFT, ENTER = "\x1b[B", "\x1b[A", "\x1b[C", "\x1b[D", "\r"
F4, F5 = "\x1bOS", "\x1b[15~"


def _choose(setup: Setup, keys: str, saved: Sequence[SavedLanGame] = ()) -> Setup | None:
    """Run the start screen alone on a pipe (offering the ``saved`` games), typing ``keys``."""

    async def run() -> Setup | None:
        with create_pipe_input() as pipe:
            screen = StartScreen(setup, saved=saved, input=pipe, output=DummyOutput())
            running = asyncio.create_task(screen.run())
            await asyncio.sleep(0.05)
            pipe.send_text(keys)
            return await asyncio.wait_for(running, timeout=10)

    return asyncio.run(run())


def _start(setup: Setup, keys: str) -> tuple[ConsoleApp | None, int, float]:
    """The start screen then the game, on one pipe; returns the game screen (None if the person
    left), the exit status and the seconds from Enter to the game screen."""
    opened: list[ConsoleApp] = []

    async def run() -> tuple[int, float]:
        with create_pipe_input() as pipe:
            running = asyncio.create_task(
                session(setup, ask=True, seed=1, delay=0, input=pipe, output=DummyOutput(), started=opened.append)
            )
            await asyncio.sleep(0.05)
            began = time.monotonic()
            pipe.send_text(keys)
            while not opened and not running.done():
                await asyncio.sleep(0.005)
            took = time.monotonic() - began
            if opened:
                while not opened[0].app.is_running:
                    await asyncio.sleep(0.005)
                pipe.send_text("quit\ry\r")  # the game is saved: quitting asks first
            return await asyncio.wait_for(running, timeout=10), took

    status, took = asyncio.run(run())
    return (opened[0] if opened else None), status, took


def test_enter_starts_a_game_with_the_defaults_at_once():
    app, status, took = _start(Setup(), ENTER)
    assert status == 0 and app is not None
    assert took < 2
    game = app.table.game
    assert game.names == ["dog", "top hat", "car", "battleship"]
    assert game.board == "classic" and game.rules == Rules()
    assert app.table.lang == "en" and app.table.me == 0
    assert app.table.lines  # the bots started playing (order rolls at least)


def test_the_defaults_come_from_the_command_line_and_language():
    assert _choose(Setup(board="paris", lang="fr"), ENTER) == Setup(board="paris", lang="fr")
    app, _, _ = _start(Setup(board="paris", lang="fr", bots=1), ENTER)
    assert app is not None and app.table.game.names == ["chien", "chapeau haut-de-forme"]
    assert app.decision() in ("On attend chapeau haut-de-forme...", "Dés et cartes...", "À vous : lancer")


def test_every_choice_is_made_with_arrows_and_typing():
    keys = "ada" + DOWN + RIGHT + RIGHT + DOWN + LEFT + DOWN + LEFT + DOWN + RIGHT + DOWN + RIGHT + DOWN + RIGHT
    keys += DOWN + RIGHT
    chosen = _choose(Setup(), keys + ENTER)
    expected = Setup(name="ada", token=2, bots=2, difficulty="easy", bid_timer=10, board="paris", rules="paris-app")
    assert chosen == replace(expected, lang="fr")
    app, status, _ = _start(Setup(), keys + ENTER)
    assert status == 0 and app is not None
    table = app.table
    # ada plays the car: the bots take the other tokens, in French since the language is French.
    assert table.game.names == ["ada", "chien", "chapeau haut-de-forme"]
    assert table.game.board == "paris" and table.game.rules == Rules.preset("paris-app")
    assert all(isinstance(bot, SimpleBot) for bot in table.bots.values())  # easy
    assert table.lang == "fr"


def test_a_typed_name_keeps_to_what_lan_play_takes():
    """Forty letters typed keep the first 32: every LAN peer refuses a longer name, and a name
    chosen here also hosts and joins LAN games."""
    from lanopoly.net.core.lobby import MAX_NAME

    chosen = _choose(Setup(), "x" * 40 + ENTER)
    assert chosen is not None and chosen.name == "x" * MAX_NAME == "x" * 32


def test_lines_wrap_around_and_the_language_brings_its_board():
    # Up from the name goes to the language; French brings the Paris board.
    assert _choose(Setup(), UP + RIGHT + ENTER) == Setup(board="paris", lang="fr")
    # A board chosen by hand stays when the language changes.
    assert _choose(Setup(), UP + UP + UP + RIGHT + DOWN + DOWN + RIGHT + RIGHT + ENTER) == Setup(
        board="paris", lang="it"
    )
    # Seven bots at most, one at least: the values wrap around.
    assert _choose(Setup(bots=7), DOWN + DOWN + RIGHT + ENTER) == Setup(bots=1)
    # Left/right on the name line move the cursor in the name, they do not change a value.
    assert _choose(Setup(), "bo" + LEFT + "x" + ENTER) == Setup(name="bxo")


def test_hard_bots_are_the_search_bot():
    # Right from "normal" on the difficulty line is "hard" (then "easy": the values wrap around).
    assert _choose(Setup(), DOWN * 3 + RIGHT + ENTER) == Setup(difficulty="hard")
    assert _choose(Setup(), DOWN * 3 + RIGHT + RIGHT + ENTER) == Setup(difficulty="easy")
    assert StartScreen(Setup(difficulty="hard", lang="no")).shown("difficulty") == "vanskelig"
    app, status, _ = _start(Setup(difficulty="hard", bots=2), ENTER)
    assert status == 0 and app is not None
    bots = app.table.bots  # type: ignore[attr-defined]
    assert sorted(bots) == [1, 2] and all(isinstance(b, Bot) and b.name == "search" for b in bots.values())


def test_escape_leaves_without_a_game():
    app, status, _ = _start(Setup(), "\x1b")
    assert app is None and status == 0


def test_the_rules_options_are_shown():
    text = option_text("en", "paris-quick")
    assert "round limit 25" in text and "Free Parking jackpot yes" in text and "auctions no" in text
    assert "limite de tours aucune" in option_text("fr", "official")
    screen = StartScreen(Setup(rules="speed", lang="it"))
    shown = " ".join("".join(text for _, text in screen._options()).split())
    assert "case per albergo 3" in shown and "contratti distribuiti 2" in shown
    assert screen.shown("token") == "cane" and screen.shown("difficulty") == "normale"


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_the_start_screen_in_a_real_terminal_follows_the_locale(tmp_path):
    """`lanopoly play` without --players under a French locale: the French start screen, Enter,
    and a game on the Paris board."""
    session_name = f"lanopoly-start-{os.getpid()}"
    locale = f"env -u LC_ALL -u LC_MESSAGES LANG=fr_FR.UTF-8 XDG_DATA_HOME={tmp_path} XDG_CONFIG_HOME={tmp_path}/config"
    locale += " LANOPOLY_INTERFACES=127.0.0.1"  # a running tmux server gives its own environment, not ours
    command = f"{locale} {sys.executable} -m lanopoly play --seed 5"
    env = {**os.environ, "LANOPOLY_INTERFACES": "127.0.0.1"}
    subprocess.run(
        ["tmux", "new-session", "-d", "-s", session_name, "-x", "80", "-y", "24", command], check=True, env=env
    )

    def wait_for(text: str, seconds: float) -> str:
        screen = ""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            screen = subprocess.run(
                ["tmux", "capture-pane", "-t", session_name, "-p"], capture_output=True, text=True, check=True
            ).stdout
            if text in screen:
                break
            time.sleep(0.2)
        return screen

    try:
        screen = wait_for("une nouvelle partie", 20)
        assert "une nouvelle partie" in screen and "< chien >" in screen and "Paris" in screen, screen
        subprocess.run(["tmux", "send-keys", "-t", session_name, "Enter"], check=True)
        screen = wait_for("1 chien", 10)
        assert "1 chien" in screen and "Paix" in screen and "PRIS" in screen, screen
        subprocess.run(["tmux", "send-keys", "-t", session_name, "quitter", "Enter"], check=True)
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session_name], capture_output=True)


GAMES = [
    SavedLanGame(Path("/data/lanopoly/games/aa11.json"), ("ann", "bob"), 152),
    SavedLanGame(Path("/data/lanopoly/games/bb22.json"), ("ann", "cy", "bot 1"), 40),
]


def _text(fragments: list[tuple[str, str]]) -> str:
    return "".join(text for _, text, *_ in fragments)


def test_the_unfinished_saved_games_are_listed_on_a_line_of_their_own():
    screen = StartScreen(Setup(), saved=GAMES)
    rows = _text(screen._rows()).splitlines()
    assert rows[-1] == "  Saved game:   < ann, bob, 152 steps (1/2) >", rows
    assert screen.saved_text() == "File /data/lanopoly/games/aa11.json (in a shell: lanopoly rejoin FILE, or resume)"
    screen.row = len(screen.rows) - 1
    screen.change(1)
    assert _text(screen._rows()).splitlines()[-1] == "> Saved game:   < ann, cy, bot 1, 40 steps (2/2) >"
    assert "bb22.json" in screen.saved_text()
    one = StartScreen(Setup(lang="no"), saved=GAMES[:1])
    assert _text(one._rows()).splitlines()[-1] == "  Lagret spill: < ann, bob, 152 steg >"
    # Without saved games there is no such line.
    assert "Saved game" not in _text(StartScreen(Setup())._rows())


def test_f4_rejoins_and_f5_resumes_the_picked_saved_game():
    assert _choose(Setup(), F4, GAMES) == Setup(mode="rejoin", saved=GAMES[0].path)
    # Up from the name goes to the saved games' line; Right picks the next one.
    assert _choose(Setup(), "ada" + UP + RIGHT + F5, GAMES) == Setup(name="ada", mode="resume", saved=GAMES[1].path)
    assert _choose(Setup(), UP + LEFT + LEFT + F4, GAMES) == Setup(mode="rejoin", saved=GAMES[0].path)
    # The game a setup names is picked first (back on the start screen after a failure).
    assert _choose(Setup(saved=GAMES[1].path), F4, GAMES) == Setup(mode="rejoin", saved=GAMES[1].path)
    # Enter still plays alone; with no saved game F4 and F5 do nothing.
    assert _choose(Setup(saved=GAMES[1].path), ENTER, GAMES) == Setup()
    assert _choose(Setup(), F4 + F5 + "x" + ENTER) == Setup(name="x")


def test_a_saved_game_that_cannot_be_taken_up_brings_back_the_start_screen_with_the_reason(monkeypatch):
    """The session hands the picked game to ``take_up`` (what ``lanopoly rejoin FILE`` runs); when it
    fails, the start screen comes back with the reason in red and the same game picked."""
    screens: list[StartScreen] = []
    asked: list[Setup] = []

    class Recorded(StartScreen):
        def __init__(self, *args, **kwargs) -> None:
            super().__init__(*args, **kwargs)
            screens.append(self)

    async def take_up(setup: Setup, bot, **options) -> str:
        asked.append(setup)
        return f"Could not {setup.mode}: nobody there"

    monkeypatch.setattr(lanopoly.console, "StartScreen", Recorded)
    monkeypatch.setattr(lanopoly.console, "unfinished", lambda: GAMES)
    monkeypatch.setattr(lanopoly.console, "take_up", take_up)

    async def run() -> int:
        with create_pipe_input() as pipe:
            running = asyncio.create_task(session(Setup(), ask=True, input=pipe, output=DummyOutput()))
            for shown, keys in enumerate((UP + RIGHT + F4, F5, "\x1b")):
                while len(screens) <= shown or not screens[shown].app.is_running:
                    await asyncio.sleep(0.01)
                pipe.send_text(keys)
            return await asyncio.wait_for(running, timeout=10)

    assert asyncio.run(run()) == 0
    assert asked == [Setup(mode="rejoin", saved=GAMES[1].path), Setup(mode="resume", saved=GAMES[1].path)]
    assert [screen.message for screen in screens] == [
        "",
        "Could not rejoin: nobody there",
        "Could not resume: nobody there",
    ]
    assert screens[1].pick == 1 and _text(screens[1]._rows()).endswith("< ann, cy, bot 1, 40 steps (2/2) >")


def _screen(setup: Setup, saved: Sequence[SavedLanGame], columns: int = 80, rows: int = 24) -> list[str]:
    """The start screen as drawn in a terminal of ``columns`` x ``rows``, offering ``saved``."""

    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            screen = StartScreen(setup, saved=saved, input=pipe, output=Terminal(columns, rows))
            running = asyncio.create_task(screen.run())
            lines = await wait_for(screen.app, lambda lines: any("F4" in line for line in lines))
            pipe.send_text("\x1b")
            await asyncio.wait_for(running, timeout=10)
            return lines

    return asyncio.run(run())


@pytest.mark.parametrize("lang", LANGUAGES)
def test_with_two_saved_games_at_80x24_the_cut_rules_options_end_with_a_mark(lang):
    """Found in the French tmux run: with two saved LAN games the rules options were cut at 80x24
    ("..., enchères de") with no mark that more exist. The last row they keep now ends with "…",
    and the keys lines under them still show."""
    screen = _screen(Setup(lang=lang), GAMES)
    options = t(lang, "start.options")
    first = next(i for i, line in enumerate(screen) if line.startswith(" " + options))
    keys = screen.index(" " + t(lang, "start.keys"))
    shown = " ".join(line.strip() for line in screen[first:keys])
    whole = f"{options} {option_text(lang, 'official')}"
    if shown != whole:
        assert shown.endswith("…") and whole.startswith(shown[:-1]), "\n".join(screen)
    assert lang != "fr" or shown != whole, "French is cut at 80x24"
    assert screen[keys + 1] == " " + t(lang, "start.lan")
    # In a taller terminal they show whole, and the keys lines stay at the bottom.
    tall = _screen(Setup(lang=lang), GAMES, rows=40)
    assert whole in " ".join(line.strip() for line in tall)
    assert tall.index(" " + t(lang, "start.keys")) == 40 - 5 and tall[-1].strip(), "\n".join(tall)


@pytest.mark.parametrize(
    ("lang", "typing"),
    [("en", "type your name"), ("fr", "tapez votre nom"), ("it", "scrivi il nome"), ("no", "skriv navnet")],
)
def test_the_keys_line_says_the_name_is_typed_and_shows_whole_at_80x24(lang, typing):
    """The French keys line lacked what the English one says: that typing edits the name (found in
    the French tmux run). Every language's says it, on one row of the 80x24 start screen."""
    screen = _screen(Setup(lang=lang), GAMES)
    keys = t(lang, "start.keys")
    assert typing in keys and " " + keys in screen, "\n".join(screen)
