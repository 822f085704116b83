"""Saved games, journals and secret files edited by hand: ``lanopoly verify`` and ``lanopoly rejoin``
give a clear error and their documented exit code (1), never a traceback or a wrong verdict.

The files come from one real 2-peer game played in this process over loopback sockets. Each case
edits one file the way an outside tester did (JSON nested past the parser's depth, wrong types,
numbers JSON allows but no field takes, bytes that are not UTF-8); rejoin fails on them before it
opens a port or dials anyone.
"""

from __future__ import annotations

import asyncio
import copy
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from lanopoly.net import cli
from lanopoly.net.play import play

from .inproc import drivers, set_up

DEEP = "[" * 100_000 + "]" * 100_000
"""JSON nested far past what Python's decoder recurses into."""


@pytest.fixture(scope="module")
def saved(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Peer 1's files of a finished 2-peer game: ``p1.json``, its ``.journal`` and ``.secret``."""
    folder = tmp_path_factory.mktemp("bad-files")

    async def main() -> None:
        started = await set_up(2, rounds=1)
        results = await asyncio.gather(*(play(d, s) for d, s in zip(drivers(started, folder), started, strict=True)))
        assert {r.outcome for r in results} == {"over"}

    asyncio.run(main())
    return folder / "p1.json"


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(argv)
    out = capsys.readouterr()
    return code, out.out + out.err


def _frozen_end(data: dict[str, Any], step: Any, reason: Any) -> None:
    """Cut the last step and record (by hand) that the session froze."""
    data["steps"].pop()
    data["network"]["steps"].pop()
    data["network"]["end"] = {"outcome": "frozen", "step": step, "reason": reason}


def _message_as(value: Any) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        data["network"]["steps"][0][0] = value

    return edit


SAVE_EDITS: dict[str, Callable[[dict[str, Any]], None]] = {
    "a signed message as an object": _message_as({"body": "AA==", "signature": "AA=="}),
    "a signed message with a third member": lambda d: d["network"]["steps"][0][0].append("AAAA"),
    "end step not a number": lambda d: _frozen_end(d, "abc", "x"),
    "end step null": lambda d: _frozen_end(d, None, None),
    "end step infinite": lambda d: _frozen_end(d, float("inf"), "x"),
}


@pytest.mark.parametrize("edit", SAVE_EDITS)
def test_verify_a_hand_edited_save_fails_clearly_or_says_what_it_proves(
    saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: str
) -> None:
    data = copy.deepcopy(json.loads(saved.read_text()))
    SAVE_EDITS[edit](data)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    code, out = run(["verify", str(path)], capsys)
    if edit.startswith("end step"):  # the saving peer's word on why is not in its format: not repeated
        assert code == 3 and "UNFINISHED signed game" in out and "the record does not say why" in out, out
    else:
        assert code == 1 and "verification FAILED at step 1: its signed messages cannot be read" in out, out


CHANGE_EDITS: dict[str, Any] = {
    "a step as a string of digits": {"step": "1", "commits": [], "shares": []},
    "a step that is true": {"step": True, "commits": [], "shares": []},
    "a change that is a list": [1, [], []],
    "a change without its shares": {"step": 1, "commits": []},
}


@pytest.mark.parametrize("edit", CHANGE_EDITS)
def test_verify_a_hand_edited_change_record_fails_before_any_step_and_says_why(
    saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: str
) -> None:
    """A change record is read strictly: a step in quotes is not taken as a number (``int()``
    would), and a record of the wrong shape is named as such, never with Python's own words."""
    data = copy.deepcopy(json.loads(saved.read_text()))
    data["network"]["changes"].append(CHANGE_EDITS[edit])
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    code, out = run(["verify", str(path)], capsys)
    assert code == 1 and "FAILED before any step was checked: a change of membership cannot be read: a " in out, out
    assert "indices" not in out and "invalid literal" not in out and "KeyError" not in out, out


def test_verify_a_save_nested_too_deeply_fails_clearly(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "deep.json"
    path.write_text(DEEP)
    code, out = run(["verify", str(path)], capsys)
    assert code == 1 and "FAILED before any step was checked: not a lanopoly game log: nested too deeply" in out, out


def test_verify_a_record_whose_protocol_is_true_is_no_older_protocol(
    saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(saved.read_text())
    data["network"]["protocol"] = True  # JSON true: an int to isinstance, but no protocol number
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    code, out = run(["verify", str(path)], capsys)
    assert code == 1 and "unsupported network record" in out, out


def _journal_lines(edit: Callable[[list[str]], list[str]]) -> Callable[[str], str]:
    def apply(text: str) -> str:
        return "\n".join(edit(text.rstrip("\n").split("\n"))) + "\n"

    return apply


def _swap_signatures(kind: str) -> Callable[[str], str]:
    """Swap the first signatures of the first two ``kind`` lines (``signed``: this peer's own messages;
    ``step``: the messages that decided a step): each line still parses, no signature verifies."""

    def edit(lines: list[str]) -> list[str]:
        out = list(lines)
        first, second = [i for i, line in enumerate(out) if json.loads(line).get("t") == kind][:2]
        a, b = json.loads(out[first]), json.loads(out[second])
        a["signed"][0][1], b["signed"][0][1] = b["signed"][0][1], a["signed"][0][1]
        out[first], out[second] = json.dumps(a), json.dumps(b)
        return out

    return _journal_lines(edit)


JOURNAL_EDITS: dict[str, Callable[[str], str]] = {
    "the genesis line an array": _journal_lines(lambda lines: ["[1]", *lines[1:]]),
    "the genesis line a string": _journal_lines(lambda lines: ['"genesis"', *lines[1:]]),
    "the genesis line nested too deeply": _journal_lines(lambda lines: [DEEP, *lines[1:]]),
    "a line nested too deeply": _journal_lines(lambda lines: [*lines[:3], DEEP, *lines[3:]]),
    "a step numbered Infinity": _journal_lines(
        lambda lines: [*lines[:3], '{"t":"step","step":Infinity,"signed":[],"hash":"00"}', *lines[3:]]
    ),
    "an end at step 1e999": _journal_lines(
        lambda lines: [*lines[:3], '{"t":"end","outcome":"over","step":1e999,"reason":""}', *lines[3:]]
    ),
    "its own messages' signatures swapped": _swap_signatures("signed"),
    "a step's signatures swapped": _swap_signatures("step"),
}

SECRET_EDITS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "host a string": lambda s: {**s, "host": "x"},
    "a key of 3 bytes": lambda s: {**s, "key": "AAAA"},
    "an array": lambda s: [s],
}


def _copy(saved: Path, tmp_path: Path) -> Path:
    path = tmp_path / "p1.json"
    for suffix in ("", ".journal", ".secret"):
        shutil.copy(f"{saved}{suffix}", f"{path}{suffix}")
    return path


@pytest.mark.parametrize("edit", JOURNAL_EDITS)
def test_rejoin_with_a_hand_edited_journal_fails_clearly(
    saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: str
) -> None:
    path = _copy(saved, tmp_path)
    journal = Path(f"{path}.journal")
    journal.write_text(JOURNAL_EDITS[edit](journal.read_text()))
    code, out = run(["rejoin", str(path)], capsys)
    assert code == 1 and f"could not rejoin: {journal}" in out, out


def test_rejoin_with_a_journal_that_is_not_utf8_fails_clearly(
    saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _copy(saved, tmp_path)
    journal = Path(f"{path}.journal")
    raw = journal.read_bytes()
    journal.write_bytes(raw[:200] + b"\xff\xfe" + raw[200:])
    code, out = run(["rejoin", str(path)], capsys)
    assert code == 1 and f"could not rejoin: {journal} is damaged" in out, out


@pytest.mark.parametrize("edit", SECRET_EDITS)
def test_rejoin_with_a_hand_edited_secret_file_fails_clearly(
    saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: str
) -> None:
    path = _copy(saved, tmp_path)
    secret = Path(f"{path}.secret")
    secret.write_text(json.dumps(SECRET_EDITS[edit](json.loads(secret.read_text()))))
    code, out = run(["rejoin", str(path)], capsys)
    assert code == 1 and f"could not rejoin: {secret}" in out, out


@pytest.mark.parametrize("command", ["rejoin", "resume"])
def test_rejoin_of_a_finished_game_says_it_is_over_and_who_won(
    saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """Nothing to play: it says so at once, with the winner, exits 0 and dials nobody (it waited for
    the peers and froze at the step after the last, exit 3). The journal is left as it was."""
    path = _copy(saved, tmp_path)
    journal = Path(f"{path}.journal").read_bytes()
    code, out = run([command, str(path), "--step-timeout", "1", "--rejoin-timeout", "1"], capsys)
    assert code == 0 and "is over already, after" in out and " won; nothing to " + command in out, out
    assert Path(f"{path}.journal").read_bytes() == journal


@pytest.mark.parametrize("command", ["rejoin", "resume"])
def test_rejoin_of_a_finished_game_opens_no_port(
    saved: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    """The saved game is read before anything is opened: told to listen on an address this machine
    does not have (TEST-NET-1), a finished game still says who won and exits 0, since it listens on
    nothing (it opened its port first, and failed there: exit 1)."""
    path = _copy(saved, tmp_path)
    code, out = run([command, str(path), "--interfaces", "192.0.2.1"], capsys)
    assert code == 0 and "is over already, after" in out, out


def test_console_rejoin_of_a_finished_game_opens_no_port(saved: Path, tmp_path: Path) -> None:
    """The console's rejoin of a finished game says it is over, before it opens a port."""
    from lanopoly.bots import SimpleBot
    from lanopoly.console.rejoin import CannotRejoin, open_saved

    path = _copy(saved, tmp_path)
    with pytest.raises(CannotRejoin, match="The game is over"):
        asyncio.run(open_saved(path, resume_all=False, bot=SimpleBot, lang="en", interfaces=["192.0.2.1"]))
