"""Game logs: a header and every input with the state hash after it, replayable and verifiable.

A log is what makes a game reproducible: replaying its inputs from the header's starting point must
give exactly the recorded hash after every step, on any machine. The file form is JSON (hashes in
hex), readable and dependency-free.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lanopoly._core import Game, Rules

LOG_FORMAT = 1


class LogError(ValueError):
    """A file that is not a well-formed game log: it says what is wrong, and nothing was replayed.
    A log comes from a file anyone may have edited, so every field is checked before it is used."""


class ReplayMismatch(Exception):
    """A replayed step did not reproduce the recorded state hash (or was refused)."""

    def __init__(self, step: int, message: str) -> None:
        super().__init__(f"step {step}: {message}")
        self.step = step


@dataclass
class GameLog:
    """The header of a game (seats, board, rules) and its inputs with the hash after each.

    ``table`` is what the console needs to take a game against bots up again (the person's seat,
    the bots' difficulty); None for other logs. Replaying never reads it."""

    names: list[str]
    board: str
    rules: dict[str, Any]
    inputs: list[dict[str, Any]] = field(default_factory=list)
    hashes: list[bytes] = field(default_factory=list)
    table: dict[str, Any] | None = None

    @classmethod
    def start(cls, game: Game) -> GameLog:
        """A log for a game that has not had any input yet."""
        if game.step != 0:
            raise ValueError("a log starts with a new game (step 0)")
        return cls(names=list(game.names), board=game.board, rules=dict(game.rules.to_dict()))

    def new_game(self) -> Game:
        """The game this log starts from (an option its rules lack plays as before it existed:
        ``Rules.recorded``)."""
        return Game(list(self.names), board=self.board, rules=self.game_rules(), seed=0)

    def game_rules(self) -> Rules:
        """The rules of the header. A log saved before an option existed lacks it: it then takes
        the value that played the game as it was played then, so old logs replay exactly."""
        return Rules.recorded(self.rules)

    def record(self, action: Mapping[str, Any], game: Game) -> None:
        """Append an input just applied to ``game`` (a copy: the log keeps plain dicts)."""
        self.inputs.append(dict(action))
        self.hashes.append(game.state_hash())

    def replay(self, game: Game | None = None, apply: Callable[[dict[str, Any]], object] | None = None) -> Game:
        """Replay every input, checking the hash after each; returns the final game. ``game``
        (default: a new game of this log's header) is moved by ``apply`` (default: its own), for a
        caller that follows the game as it goes."""
        if len(self.inputs) != len(self.hashes):
            raise ReplayMismatch(0, f"{len(self.inputs)} inputs but {len(self.hashes)} hashes")
        game = self.new_game() if game is None else game
        apply = apply or game.apply
        for step, (action, expected) in enumerate(zip(self.inputs, self.hashes, strict=True), 1):
            try:
                apply(action)
            except (ValueError, TypeError) as e:
                raise ReplayMismatch(step, f"input refused: {e}") from e
            if game.state_hash() != expected:
                raise ReplayMismatch(step, "state hash differs from the recorded one")
        return game

    def to_json(self) -> str:
        data: dict[str, Any] = {"format": LOG_FORMAT, "names": self.names, "board": self.board, "rules": self.rules}
        if self.table is not None:
            data["table"] = self.table
        data["steps"] = [{"input": a, "hash": h.hex()} for a, h in zip(self.inputs, self.hashes, strict=True)]
        return json.dumps(data, ensure_ascii=False)

    @classmethod
    def from_json(cls, text: str) -> GameLog:
        """The log in ``text``. Raises :class:`LogError` for anything but a well-formed log whose
        header makes a game (its inputs are checked when replayed)."""
        try:
            data = json.loads(text)
        except ValueError as e:
            raise LogError(f"not JSON: {e}") from None
        except RecursionError:  # the decoder recurses once per level of arrays or objects
            raise LogError("not a game log: JSON nested too deeply") from None
        if not isinstance(data, dict):
            raise LogError("not a JSON object")
        if data.get("format") != LOG_FORMAT:
            raise LogError(f"unsupported log format {data.get('format')!r}")
        names = _member(data, "names", list)
        if not all(isinstance(name, str) for name in names):
            raise LogError('"names" must be a list of strings')
        if not all(name.isprintable() for name in names):  # shown on screens: no escape, newline or bidi override
            raise LogError('"names" must be printable (no control, format or line-breaking characters)')
        table = data.get("table")
        if table is not None and not isinstance(table, dict):
            raise LogError('"table" must be an object')
        log = cls(
            names=names,
            board=_member(data, "board", str),
            rules=_member(data, "rules", dict),
            table=table,
        )
        for number, step in enumerate(_member(data, "steps", list), 1):
            action, digest = _step(number, step)
            log.inputs.append(action)
            log.hashes.append(digest)
        try:
            log.new_game()
        except (TypeError, ValueError) as e:
            raise LogError(f"its header does not make a game: {e}") from None
        return log

    def save(self, path: str | Path) -> None:
        """Write the log atomically (a partial file never replaces a good one)."""
        path = Path(path)
        tmp = path.with_suffix(path.suffix + ".tmp")
        tmp.write_text(self.to_json(), encoding="utf-8")
        tmp.replace(path)

    @classmethod
    def load(cls, path: str | Path) -> GameLog:
        return cls.from_json(Path(path).read_text(encoding="utf-8"))


def _member(data: dict[str, Any], name: str, kind: type) -> Any:
    """``data[name]``, which must be of type ``kind`` (a LogError otherwise)."""
    value = data.get(name)
    if not isinstance(value, kind):
        raise LogError(f"{name!r} must be a {kind.__name__}, not {type(value).__name__}")
    return value


def _step(number: int, step: object) -> tuple[dict[str, Any], bytes]:
    """One ``{"input": {...}, "hash": "<64 hex digits>"}`` of the steps list."""
    if isinstance(step, dict) and isinstance(step.get("input"), dict) and isinstance(step.get("hash"), str):
        try:
            digest = bytes.fromhex(step["hash"])
        except ValueError:
            digest = b""
        if len(digest) == 32:
            return step["input"], digest
    raise LogError(f'step {number} is not {{"input": {{...}}, "hash": "<64 hex digits>"}}')
