"""Every `lanopoly` command the README and docs/ show runs and exits 0.

The commands are the lines of the fenced shell blocks (```sh) and the inline code spans that start
with ``lanopoly``. Each runs as written, in a scratch folder, with two rules that keep the suite
quick and self-contained: a ``simulate`` plays at most 200 games (the count the doc gives, capped),
and the placeholder ``FILE`` is a game log the test saves first (``lanopoly watch --save``).
A few commands need what a test process has not got; :data:`EXCEPTIONS` names them with the reason
(the tests named there run them).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
SIMULATED_GAMES = 200
"""The most games a documented ``lanopoly simulate N`` plays here."""

EXCEPTIONS = {
    "pip": "installs the package and opens the console: what the test suite itself runs in",
    "bash": "bash tests/run.sh is the test suite itself",
    "lanopoly host": "needs LAN peers to join (tests/net/test_games.py, tests/test_console_lan.py)",
    "lanopoly join": "needs a LAN host (tests/net/test_games.py, tests/test_console_lan.py)",
    "lanopoly rejoin": "needs a LAN game still played by peers (tests/net/test_games.py)",
    "lanopoly resume": "needs every peer of a stopped LAN game (tests/net/test_games.py)",
    "lanopoly verify": "needs a LAN game's file; its exit status says what the file proves (tests/net/test_verify.py)",
    "lanopoly play": "opens the console: needs a terminal (tests/test_console*.py)",
    "lanopoly continue": "opens the console: needs a terminal (tests/test_console_continue.py)",
    "python examples/reinforce.py": "a training run of minutes: tests/test_reinforce.py runs it short",
    "python examples/rllib_multiagent.py": (
        "needs RLlib with torch or TensorFlow (a gigabyte or more), not among the test extras: "
        "tests/test_rllib_example.py runs it short where they are installed"
    ),
}
"""Commands not run here, by their first words, with the reason."""


def _fenced(text: str) -> tuple[list[str], str]:
    """The lines of the shell blocks of a markdown text, and the text without any fenced block."""
    lines: list[str] = []
    prose: list[str] = []
    fence: str | None = None
    for line in text.splitlines():
        if line.startswith("```"):
            fence = line[3:].strip() if fence is None else None
            continue
        if fence is None:
            prose.append(line)
        elif fence in ("sh", "bash", "shell", "console"):
            lines.append(line)
    return lines, "\n".join(prose)


def doc_commands() -> list[tuple[str, str]]:
    """(where, command) for every command shown in the docs, in order, without repeats."""
    found: dict[str, str] = {}
    for doc in DOCS:
        shell, prose = _fenced(doc.read_text(encoding="utf-8"))
        name = doc.relative_to(ROOT).as_posix()
        for line in shell:
            words = shlex.split(line, comments=True)
            if words:
                found.setdefault(shlex.join(words), name)
        for span in re.findall(r"`(lanopoly(?:\s[^`]*)?)`", prose.replace("\n", " ")):
            found.setdefault(shlex.join(shlex.split(span)), name)
    return [(where, command) for command, where in found.items()]


def _excepted(command: str) -> str | None:
    words = command.split()
    return EXCEPTIONS.get(" ".join(words[:2])) or EXCEPTIONS.get(words[0])


COMMANDS = doc_commands()
RUN = [(where, command) for where, command in COMMANDS if _excepted(command) is None]


def test_the_docs_show_the_commands_this_test_expects() -> None:
    shown = [command for _where, command in COMMANDS]
    assert "lanopoly simulate 10000 --bots heuristic,random" in shown  # the README's example
    assert any(command.startswith("lanopoly host --peers") for command in shown)  # docs/lan.md's block
    assert len(RUN) >= 6, RUN


def _args(command: str, log: Path) -> list[str]:
    """The command's arguments after ``lanopoly``, FILE being ``log`` and a simulation capped."""
    words = shlex.split(command)
    assert words[0] == "lanopoly", command
    args = [str(log) if word == "FILE" else word for word in words[1:]]
    placeholders = [word for word in args if re.fullmatch(r"\[?[A-Z][A-Z:_\]\[]+\]?", word)]
    assert not placeholders, f"{command}: a placeholder this test cannot fill: {placeholders}"
    if args[:1] == ["simulate"] and args[1].isdigit():
        args[1] = str(min(int(args[1]), SIMULATED_GAMES))
    return args


def _lanopoly(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    env = os.environ | {
        "LANOPOLY_INTERFACES": "127.0.0.1",
        "LANOPOLY_SERVICE_TYPE": "_lanopoly-doccommands._tcp.local.",
        "XDG_DATA_HOME": str(cwd / "data"),
        "XDG_CONFIG_HOME": str(cwd / "config"),
    }
    command = [sys.executable, "-m", "lanopoly", *args]
    return subprocess.run(
        command, cwd=cwd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300
    )


@pytest.mark.parametrize(("where", "command"), RUN, ids=[command for _where, command in RUN])
def test_a_documented_command_runs(where: str, command: str, tmp_path: Path) -> None:
    log = tmp_path / "game.json"
    if "FILE" in command.split():
        _lanopoly(["watch", "--quiet", "--seed", "1", "--save", str(log)], tmp_path).check_returncode()
    proc = _lanopoly(_args(command, log), tmp_path)
    assert proc.returncode == 0, f"{where}: `{command}` exited {proc.returncode}:\n{proc.stderr}"
