"""Regenerate the screen captures in this folder: the console as a person sees it, in tmux.

    python docs/screens/capture.py                  # every language, 80x24 and 120x40
    python docs/screens/capture.py --lang fr --size 120x40

Each capture is a plain-text file ``LANG-WxH-N-SCENE.txt``: one game against three bots with a
fixed seed, driven by the keys a new player would type (the scenes below), captured when the
console waits for the person, so the same code gives the same files. A reviewer reads the UI here
without running it; ``git diff`` after a console change shows what a player will see differ.
Nothing listens beyond loopback (``LANOPOLY_INTERFACES=127.0.0.1``) and the game's files go to a
temporary folder.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
LANGUAGES = ("en", "fr", "it", "no")
SIZES = ("80x24", "120x40")
SEED = 7
SOCKET = "lanopoly-screens"

Check = Callable[[list[str]], bool]


ROLL = {"en": "roll", "fr": "lancer", "it": "tira", "no": "kast"}  # the command, as the bottom line says it
DEED = {"fr": "info paix"}  # the most expensive street, by its name on the language's board


def _may_roll(lang: str) -> Check:
    """The bottom line (what the person can do now) offers the roll."""
    return lambda lines: ROLL[lang] in next((line for line in reversed(lines) if line.strip()), "")


def _has(text: str) -> Check:
    return lambda lines: any(text in line for line in lines)


def _changed(before: list[str]) -> Check:
    return lambda lines: lines != before


# (scene name, keys to type first (tmux send-keys arguments), what to wait for before the capture,
# given the language and the screen before the keys)
SCENES: list[tuple[str, list[str], Callable[[str, list[str]], Check]]] = [
    ("start", [], lambda lang, _: _has("lanopoly")),
    ("first-turn", ["ann", "Enter"], lambda lang, _: _may_roll(lang)),
    ("rolled", ["roll", "Enter"], lambda lang, before: _changed(before)),
    ("deed", ["info boardwalk", "Enter"], lambda lang, before: _changed(before)),
    ("portfolio", ["Escape", "portfolio", "Enter"], lambda lang, before: _changed(before)),
    ("trade", ["Escape", "F9", "Space", "Down", "+", "+"], lambda lang, before: _changed(before)),
    ("help", ["Escape", "help", "Enter"], lambda lang, before: _changed(before)),
]


class Pane:
    """One tmux session running ``lanopoly play`` at a given size, on a socket of its own."""

    def __init__(self, lang: str, size: str, home: Path) -> None:
        width, height = size.split("x")
        self.name = f"{lang}-{size}"
        env = {
            "LANOPOLY_INTERFACES": "127.0.0.1",
            "XDG_DATA_HOME": str(home / "data"),
            "XDG_CONFIG_HOME": str(home / "config"),
            "LANG": "C.UTF-8",
        }
        command = " ".join(
            [
                "env",
                *(f"{k}={shlex.quote(v)}" for k, v in env.items()),
                shlex.quote(sys.executable),
                "-m lanopoly play",
                f"--lang {lang} --seed {SEED}",
            ]
        )
        self.tmux("new-session", "-d", "-s", self.name, "-x", width, "-y", height, command)

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", SOCKET, *args], check=True, capture_output=True, text=True)
        return done.stdout

    def lines(self) -> list[str]:
        return self.tmux("capture-pane", "-p", "-t", self.name).rstrip("\n").split("\n")

    def wait(self, check: Check, seconds: float = 30.0) -> list[str]:
        """The screen once ``check`` holds and the screen has stopped changing for a moment."""
        deadline = time.monotonic() + seconds
        seen: list[str] = []
        while time.monotonic() < deadline:
            lines = self.lines()
            if check(lines) and lines == seen:
                return lines
            seen = lines
            time.sleep(0.3)
        raise TimeoutError(f"{self.name}: the screen never showed what was awaited:\n" + "\n".join(seen))

    def close(self) -> None:
        subprocess.run(["tmux", "-L", SOCKET, "kill-session", "-t", self.name], check=False, capture_output=True)


def capture(lang: str, size: str) -> list[Path]:
    """Play the scenes in ``lang`` at ``size``; write one file a scene."""
    written = []
    with tempfile.TemporaryDirectory() as home:
        pane = Pane(lang, size, Path(home))
        try:
            screen: list[str] = []
            for number, (scene, keys, until) in enumerate(SCENES, 1):
                check = until(lang, screen)
                for key in [DEED.get(lang, key) if key == "info boardwalk" else key for key in keys]:
                    pane.tmux(
                        "send-keys",
                        "-t",
                        pane.name,
                        *([key] if key in ("Enter", "Escape", "F9", "Space", "Down") else ["-l", key]),
                    )
                screen = pane.wait(check)
                path = HERE / f"{lang}-{size}-{number}-{scene}.txt"
                path.write_text("\n".join(line.rstrip() for line in screen) + "\n", encoding="utf-8")
                written.append(path)
        finally:
            pane.close()
    return written


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--lang", choices=LANGUAGES, action="append")
    parser.add_argument("--size", choices=SIZES, action="append")
    args = parser.parse_args()
    if not subprocess.run(["sh", "-c", "command -v tmux"], capture_output=True).stdout:
        print("tmux is needed (apt-get install -y tmux)", file=sys.stderr)
        return 2
    os.environ["LANOPOLY_INTERFACES"] = "127.0.0.1"
    for lang in args.lang or LANGUAGES:
        for size in args.size or SIZES:
            for path in capture(lang, size):
                print(path.relative_to(HERE.parents[1]))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
