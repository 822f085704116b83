"""What the console remembers of the person between games: name, token, bots, difficulty, board,
rules, language and bid timer, in ``$XDG_CONFIG_HOME/lanopoly/config.toml`` (``~/.config/...`` without
``XDG_CONFIG_HOME``).

The start screen opens with what was chosen last time; options given on the command line win.
The file is plain TOML a person may edit: a value that is not valid (an unknown language, a
token out of range) is left out with the reason, and a file that is not TOML is not read at all,
so a bad file never stops the game. It is written, whole and atomically, when a game is started
from the start screen.
"""

from __future__ import annotations

import contextlib
import os
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lanopoly._core import Rules, boards
from lanopoly.bots import DIFFICULTIES
from lanopoly.console.bid_clock import BID_TIMERS
from lanopoly.i18n import LANGUAGES, TOKENS, plural, t
from lanopoly.net.core.lobby import MAX_NAME as LAN_MAX_NAME

if TYPE_CHECKING:
    from lanopoly.console.start import Setup

MAX_NAME = LAN_MAX_NAME
"""The longest name kept: LAN play's limit, which every peer checks, so a name that plays alone plays
on the LAN too (it is shown in a board row and in every log line)."""


def config_path() -> Path:
    """Where the preferences are kept."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "lanopoly" / "config.toml"


@dataclass
class Prefs:
    """The remembered choices (None: never chosen) and what was wrong with the file, if anything."""

    name: str | None = None
    token: int | None = None
    bots: int | None = None
    difficulty: str | None = None
    board: str | None = None
    rules: str | None = None
    lang: str | None = None
    bid_timer: int | None = None
    problems: list[Problem] = field(default_factory=list)


def _valid_name(value: Any) -> bool:
    return isinstance(value, str) and len(value) <= MAX_NAME and all(ch.isprintable() for ch in value)


CHECKS: dict[str, tuple[Callable[[Any], bool], str, dict[str, Any]]] = {
    "name": (_valid_name, "prefs.expect.name", {"n": MAX_NAME}),
    "token": (
        lambda v: type(v) is int and 0 <= v < len(TOKENS["en"]),
        "prefs.expect.number",
        {"low": 0, "high": len(TOKENS["en"]) - 1},
    ),
    "bots": (lambda v: type(v) is int and 1 <= v <= 7, "prefs.expect.number", {"low": 1, "high": 7}),
    "difficulty": (lambda v: v in DIFFICULTIES, "prefs.expect.one_of", {"choices": ", ".join(DIFFICULTIES)}),
    "board": (lambda v: v in boards(), "prefs.expect.one_of", {"choices": ", ".join(boards())}),
    "rules": (lambda v: v in Rules.presets(), "prefs.expect.rules", {}),
    "lang": (lambda v: v in LANGUAGES, "prefs.expect.one_of", {"choices": ", ".join(LANGUAGES)}),
    "bid_timer": (
        lambda v: type(v) is int and v in BID_TIMERS,
        "prefs.expect.one_of",
        {"choices": ", ".join(map(str, BID_TIMERS))},
    ),
}
"""Each remembered key: the check of its value, and the text (catalog key and fields) of what it
should be."""


@dataclass(frozen=True)
class Problem:
    """Something wrong with the file, kept as a catalog key and its fields so that it is told in
    the language the console ends up in (which the file itself may choose)."""

    key: str
    fields: dict[str, Any]

    def text(self, lang: str) -> str:
        """The problem in a sentence of ``lang``."""
        fields = dict(self.fields)
        expected = fields.pop("expected", None)
        if expected is not None:
            _, key, told = CHECKS[expected]
            fields["expected"] = plural(lang, key, told["n"]) if "n" in told else t(lang, key, **told)
        return t(lang, self.key, **fields)


def told(problems: list[Problem], lang: str) -> str:
    """What was wrong with the file, in ``lang``, for the start screen's message line ("" if nothing)."""
    return "; ".join(problem.text(lang) for problem in problems)


def load(path: Path | None = None) -> Prefs:
    """The preferences in ``path`` (default :func:`config_path`); none when there is no file."""
    path = path or config_path()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return Prefs()
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        return Prefs(problems=[Problem("prefs.unread", {"path": path, "error": e})])
    prefs = Prefs()
    for key, value in data.items():
        if key not in CHECKS:
            prefs.problems.append(Problem("prefs.unknown", {"path": path, "setting": repr(key)}))
            continue
        if not CHECKS[key][0](value):
            fields = {"path": path, "setting": key, "value": repr(value), "expected": key}
            prefs.problems.append(Problem("prefs.bad_value", fields))
            continue
        setattr(prefs, key, value)
    return prefs


def _toml_value(value: str | int) -> str:
    if isinstance(value, int):
        return str(value)
    escaped = value.replace("\\", "\\\\").replace('"', '\\"')
    return f'"{escaped}"'


def save(prefs: Prefs, path: Path | None = None) -> bool:
    """Write ``prefs`` (its chosen values) to ``path``, atomically; False if the file could not be
    written (a read-only home, say: the game goes on, it is only not remembered)."""
    path = path or config_path()
    lines = ["# lanopoly's console: what you chose last time (lanopoly play --help tells the options)"]
    for key, (valid, _, _) in CHECKS.items():
        value = getattr(prefs, key)
        if value is not None and valid(value):
            lines.append(f"{key} = {_toml_value(value)}")
    temporary = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text("\n".join(lines) + "\n", encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()
        return False
    return True


def remember(setup: Setup, path: Path | None = None) -> bool:
    """Keep what the person chose on the start screen for the next time (see :func:`save`)."""
    chosen = Prefs(
        name=setup.name.strip() or None,
        token=setup.token,
        bots=setup.bots,
        difficulty=setup.difficulty,
        board=setup.board,
        rules=setup.rules,
        lang=setup.lang,
        bid_timer=setup.bid_timer,
    )
    return save(chosen, path)
