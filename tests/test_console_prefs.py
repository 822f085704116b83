"""The console remembers the person (issue 14, "Remembers you"): what was chosen on the start
screen comes back the next time, the command line wins over it, and a bad config file is told
and left out, never stopping the game."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from prompt_toolkit.input import create_pipe_input

from lanopoly.__main__ import console_setup, parser
from lanopoly.console import Setup, StartScreen, session
from lanopoly.console.prefs import Prefs, config_path, load, remember, save, told
from screen import Terminal, wait_for

DOWN, RIGHT, LEFT, ENTER = "\x1b[B", "\x1b[C", "\x1b[D", "\r"


def _setup(argv: list[str], remembered: Prefs) -> Setup:
    return console_setup(parser().parse_args(argv), remembered)


def test_what_is_chosen_on_the_start_screen_is_remembered_for_the_next_start():
    """zoe picks the second token, two bots and hard bots, starts, and quits. The config file
    holds her choices, and the next `lanopoly` opens the start screen with them."""
    assert not config_path().exists()

    async def run() -> int:
        with create_pipe_input() as pipe:
            opened: list[object] = []
            running = asyncio.create_task(
                session(Setup(), ask=True, seed=1, delay=0, input=pipe, output=Terminal(), started=opened.append)
            )
            await asyncio.sleep(0.05)
            pipe.send_text("zoe" + DOWN + RIGHT + DOWN + LEFT + DOWN + RIGHT + ENTER)
            while not opened and not running.done():
                await asyncio.sleep(0.005)
            pipe.send_text("quit\ry\r")  # the game is saved: quitting asks first
            return await asyncio.wait_for(running, timeout=10)

    assert asyncio.run(run()) == 0
    remembered = load()
    assert remembered == Prefs(
        name="zoe", token=1, bots=2, difficulty="hard", board="classic", rules="official", lang="en", bid_timer=0
    ), config_path().read_text()
    again = _setup([], remembered)
    assert (again.name, again.token, again.bots, again.difficulty, again.lang) == ("zoe", 1, 2, "hard", "en")


def test_the_command_line_wins_over_what_was_remembered():
    remembered = Prefs(name="zoe", token=3, bots=2, difficulty="easy", board="classic", rules="speed", lang="en")
    setup = _setup(["--lang", "fr", "--difficulty", "hard", "--name", "ann", "--players", "6"], remembered)
    assert (setup.name, setup.difficulty, setup.lang, setup.bots) == ("ann", "hard", "fr", 5)
    assert setup.board == "paris", "another language than last time brings its own board"
    assert (setup.token, setup.rules) == (3, "speed"), "what the command line does not say is remembered"
    assert _setup(["--rules", "official"], remembered).rules == "official"


def test_nothing_remembered_gives_the_defaults(monkeypatch):
    monkeypatch.setenv("LANG", "it_IT.UTF-8")
    monkeypatch.delenv("LC_ALL", raising=False)
    monkeypatch.delenv("LC_MESSAGES", raising=False)
    setup = _setup([], load())
    assert (setup.name, setup.token, setup.bots, setup.difficulty, setup.rules) == ("", 0, 3, "normal", "official")
    assert setup.lang == "it"


def test_a_file_that_is_not_toml_is_not_read_and_says_why():
    path = config_path()
    path.parent.mkdir(parents=True)
    path.write_text('name = "zoe\nlang = en\n')
    remembered = load()
    assert remembered == Prefs(problems=remembered.problems)
    assert len(remembered.problems) == 1 and "config.toml was not read:" in remembered.problems[0].text("en")


def test_bad_values_are_left_out_one_by_one_and_the_good_ones_kept(tmp_path: Path):
    path = tmp_path / "config.toml"
    path.write_text(
        'name = "zoe\\u001b]0;pwned\\u0007"\ntoken = 99\nbots = 2\nlang = "xx"\nrules = "speed"\ncolour = 1\n'
    )
    remembered = load(path)
    assert (remembered.name, remembered.token, remembered.bots, remembered.lang, remembered.rules) == (
        None,
        None,
        2,
        None,
        "speed",
    )
    problems = "\n".join(problem.text("en") for problem in remembered.problems)
    assert "name = " in problems and "printable text" in problems
    assert "token = 99 left out: it should be a number from 0 to 7" in problems
    assert "lang = 'xx' left out: it should be one of en, fr, it, no" in problems
    assert "unknown key 'colour' left out" in problems
    assert len(remembered.problems) == 4


def test_the_start_screen_tells_what_was_wrong_with_the_file():
    notice = "config.toml: lang = 'xx' left out: it should be one of en, fr, it, no"

    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            screen = StartScreen(Setup(), message=notice, input=pipe, output=Terminal())
            running = asyncio.create_task(screen.run())
            lines = await wait_for(screen.app, lambda lines: any("left out" in line for line in lines))
            pipe.send_text("\x1b")
            await asyncio.wait_for(running, timeout=10)
            return lines

    assert any("lang = 'xx' left out" in line for line in asyncio.run(run()))


def test_what_was_wrong_with_the_file_is_told_in_the_language_the_console_opens_in():
    """A file that chose French and a token out of range: the start screen, in French, says in
    French what was left out (the words of the file, key and value, as they are)."""
    path = config_path()
    path.parent.mkdir(parents=True)
    path.write_text('lang = "fr"\ntoken = 99\nname = 7\n')
    remembered = load()
    setup = _setup([], remembered)
    assert setup.lang == "fr"
    notice = told(remembered.problems, setup.lang)  # as `lanopoly` opens the console

    async def run() -> list[str]:
        with create_pipe_input() as pipe:
            screen = StartScreen(setup, message=notice, input=pipe, output=Terminal(120, 40))
            running = asyncio.create_task(screen.run())
            lines = await wait_for(screen.app, lambda lines: "ignoré" in "\n".join(lines))
            pipe.send_text("\x1b")
            await asyncio.wait_for(running, timeout=10)
            return lines

    shown = " ".join(line.strip() for line in asyncio.run(run()))
    assert "config.toml : token = 99 ignoré : il faut un nombre de 0 à 7" in shown, shown
    assert "name = 7 ignoré : il faut un texte imprimable d'au plus 32 caractères" in shown, shown
    assert "left out" not in shown and "it should be" not in shown


def test_a_file_that_cannot_be_written_is_no_error(tmp_path: Path):
    blocked = tmp_path / "file"
    blocked.write_text("")
    assert save(Prefs(name="zoe"), blocked / "lanopoly" / "config.toml") is False
    assert remember(Setup(name="zoe"), tmp_path / "ok" / "config.toml") is True
    assert load(tmp_path / "ok" / "config.toml").name == "zoe"
    assert not list((tmp_path / "ok").glob("*.tmp"))


def test_names_with_quotes_and_backslashes_come_back_as_they_were(tmp_path: Path):
    path = tmp_path / "config.toml"
    for name in ['say "hi"', "back\\slash", "Ærlig Øyvind"]:
        assert save(Prefs(name=name), path)
        assert load(path).name == name


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize(
    "command", [[], ["host"], ["join"], ["--players", "3"]], ids=["plain", "host", "join", "players"]
)
def test_every_way_into_the_console_tells_what_was_wrong_with_the_file(tmp_path: Path, command: list[str]):
    """`lanopoly`, `lanopoly host`, `lanopoly join` and `lanopoly --players 3` in a terminal, with
    a preferences file holding a token out of range: each first screen (the start screen, the
    host's lobby, the join screen, the game) says so, in the language asked for (issue 14: host
    and join said nothing)."""
    config = tmp_path / "config"
    (config / "lanopoly").mkdir(parents=True)
    (config / "lanopoly" / "config.toml").write_text("token = 99\n")
    session_name = f"lanopoly-prefs-{os.getpid()}-{'-'.join(command) or 'plain'}"
    # In the command itself, and on a tmux server of its own: a session of a running server gets
    # that server's environment, not this process's, and host and join listen and discover.
    environment = f"env XDG_DATA_HOME={tmp_path}/data XDG_CONFIG_HOME={config} LANOPOLY_INTERFACES=127.0.0.1"
    environment += " LANOPOLY_SERVICE_TYPE=_lanopoly-pref._tcp.local."
    tmux = ["tmux", "-L", session_name]
    line = f"{environment} {sys.executable} -m lanopoly {' '.join(command)} --lang it"
    subprocess.run(
        [*tmux, "new-session", "-d", "-s", session_name, "-x", "80", "-y", "24", line],
        check=True,
        env={**os.environ, "LANOPOLY_INTERFACES": "127.0.0.1"},
    )
    told = "token = 99 ignorato: dovrebbe essere un numero da 0 a 7"
    screen = ""
    try:
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            capture = [*tmux, "capture-pane", "-J", "-t", session_name, "-p"]
            screen = subprocess.run(capture, capture_output=True, text=True, check=True).stdout
            if told in " ".join(screen.split()):
                break
            time.sleep(0.2)
    finally:
        subprocess.run([*tmux, "kill-server"], capture_output=True)
    assert told in " ".join(screen.split()), screen
