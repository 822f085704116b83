"""Where the console keeps its LAN games, and which of them are unfinished.

A console LAN game is saved continuously (the signed log, and next to it the peer's ``.secret``
file) so that a player whose console stopped can take the seat again with ``lanopoly rejoin FILE``
(the others are still playing and wait for it) or restart a stopped game with ``lanopoly resume
FILE`` (everyone does). By default the file is ``$XDG_DATA_HOME/lanopoly/games/<game id>.json``
(``~/.local/share/...`` without ``XDG_DATA_HOME``); ``--save FILE`` chooses another. The start
screen lists the unfinished ones found there.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from pathlib import Path

from lanopoly.log import GameLog, ReplayMismatch
from lanopoly.net.rejoin import load_saved, secret_path

MAX_LISTED = 20
"""The most recent saved games looked at for the start screen (each is replayed to see if it is over)."""


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
    ``.secret`` file, most recent first. Files that do not load or replay are skipped."""
    folder = folder or games_dir()
    if not folder.is_dir():
        return []
    files = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)[:MAX_LISTED]
    found = []
    for path in files:
        if not secret_path(path).exists():
            continue
        with contextlib.suppress(ValueError, ReplayMismatch):
            saved = load_saved(path)
            log: GameLog = saved.log
            if not log.replay().is_over:
                found.append(SavedLanGame(path, tuple(saved.start.names), len(log.inputs)))
    return found


def shown_path(path: Path) -> str:
    """A path as the screen shows it: ``~/...`` under the home folder."""
    with contextlib.suppress(ValueError):
        return "~/" + str(path.resolve().relative_to(Path.home().resolve()))
    return str(path)
