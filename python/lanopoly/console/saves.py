"""Where the console keeps its games, and which of them are unfinished.

A game against bots is saved as it is played, as a game log (``lanopoly replay FILE`` verifies
it) that also says which seat is the person's and how strong the bots are: ``lanopoly continue``
or F6 on the start screen takes the last unfinished one up again (``local-<time>.json``).

A console LAN game is saved continuously (the signed log, and next to it the peer's ``.journal``
and ``.secret`` files: :mod:`lanopoly.net.store`) so that a player whose console stopped can take
the seat again with ``lanopoly rejoin FILE`` (the others are still playing and wait for it) or
restart a stopped game with ``lanopoly resume FILE`` (everyone does). By default the file is
``$XDG_DATA_HOME/lanopoly/games/<game id>.json`` (``~/.local/share/...`` without ``XDG_DATA_HOME``);
``--save FILE`` chooses another. The start screen lists the unfinished ones found there.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

from lanopoly.log import GameLog, ReplayMismatch
from lanopoly.net.core.record import EndEntry, StepEntry
from lanopoly.net.store import Journal, StoreError, journal_path, secret_path

MAX_LISTED = 20
"""The most recent saved games looked at for the start screen (each one's journal is read)."""


def games_dir() -> Path:
    """The folder of the console's saved LAN games."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "lanopoly" / "games"


def default_save(game_id: bytes) -> Path:
    """Where a LAN game is saved unless ``--save`` says otherwise (the folder is created)."""
    folder = games_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{game_id.hex()}.json"


@dataclass(frozen=True)
class SavedLanGame:
    """An unfinished LAN game saved here: its file, the players' names, the steps played."""

    path: Path
    names: tuple[str, ...]
    steps: int


def unfinished(folder: Path | None = None) -> list[SavedLanGame]:
    """The saved LAN games in ``folder`` (default: ``games_dir()``) that are not over and have their
    ``.journal`` and ``.secret`` files, most recent first. Their journals say it without replaying
    anything: the steps are counted, and a game over ends with its end entry. Files whose journal
    does not read are skipped."""
    folder = folder or games_dir()
    if not folder.is_dir():
        return []
    files = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)[:MAX_LISTED]
    found = []
    for path in files:
        if not secret_path(path).exists():
            continue
        with contextlib.suppress(StoreError, ValueError):
            genesis, entries = Journal.read(journal_path(path))
            if not any(isinstance(e, EndEntry) and e.outcome == "over" for e in entries):
                steps = sum(isinstance(e, StepEntry) for e in entries)
                found.append(SavedLanGame(path, tuple(genesis.record.names), steps))
    return found


LOCAL_PREFIX = "local-"
"""File names of games against bots start with this (LAN games are named by their game id)."""


def new_local_save() -> Path:
    """A new file for a game against bots, in the console's folder (created): ``local-<UTC time>-<random>.json``."""
    folder = games_dir()
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    return folder / f"{LOCAL_PREFIX}{stamp}-{secrets.token_hex(3)}.json"


@dataclass(frozen=True)
class SavedLocalGame:
    """A game against bots saved here: its file, its log, the round reached (from 0, as the engine
    counts: the screen shows round + 1) and whether it is over."""

    path: Path
    log: GameLog
    round: int
    over: bool


def read_local(path: Path) -> GameLog:
    """The log of a saved game against bots, not replayed yet. Raises ValueError for a file that
    does not load or is not a console game."""
    try:
        log = GameLog.load(path)
    except (OSError, ValueError) as e:
        raise ValueError(f"{path} is not a saved game: {e}") from e
    me = None if log.table is None else log.table.get("me")
    if not isinstance(me, int) or not 0 <= me < len(log.names):
        raise ValueError(f"{path} is not a console game against bots")
    return log


def load_local(path: Path) -> SavedLocalGame:
    """A saved game against bots, replayed and checked step by step. Raises ValueError (a file
    that does not load or is not a console game) or ReplayMismatch (one that does not replay)."""
    log = read_local(path)
    game = log.replay()
    return SavedLocalGame(path, log, game.round, game.is_over)


def last_local(folder: Path | None = None) -> SavedLocalGame | None:
    """The most recent unfinished game against bots saved in ``folder`` (default: ``games_dir()``),
    or None. Files that do not load or replay are skipped, as are finished games."""
    folder = folder or games_dir()
    if not folder.is_dir():
        return None
    files = sorted(folder.glob(LOCAL_PREFIX + "*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    for path in files[:MAX_LISTED]:
        with contextlib.suppress(ValueError, ReplayMismatch):
            saved = load_local(path)
            if saved.log.inputs and not saved.over:
                return saved
    return None


def shown_path(path: Path) -> str:
    """A path as the screen shows it: ``~/...`` under the home folder."""
    with contextlib.suppress(ValueError):
        return "~/" + str(path.resolve().relative_to(Path.home().resolve()))
    return str(path)
