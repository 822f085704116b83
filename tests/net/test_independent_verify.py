"""docs/lan.md is enough to verify a saved LAN game: the verifier written from the docs alone
(``independent_verify``) and ``lanopoly verify`` give the same verdict, step and final hash on real
saved games, honest and tampered with. Should either drift (the docs or the code), this fails.

The games are played in this process over loopback sockets (``inproc``), a 2-peer and a 3-peer one,
as ``test_verify`` plays them.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import json
from pathlib import Path
from typing import Any

import pytest

from lanopoly.log import GameLog
from lanopoly.net import cli
from lanopoly.net.play import play

from .independent_verify import Verdict, verify
from .inproc import drivers, set_up


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[int, list[Path]]:
    """Each peer's saved file of a 2-peer game (2 rounds) and of a 3-peer game (4 rounds)."""
    folder = tmp_path_factory.mktemp("independent")

    async def main(peers: int, rounds: int) -> list[Path]:
        started = await set_up(peers, rounds=rounds)
        (folder / str(peers)).mkdir()
        ds = drivers(started, folder / str(peers))
        results = await asyncio.gather(*(play(d, s) for d, s in zip(ds, started, strict=True)))
        assert {r.outcome for r in results} == {"over"}
        return [folder / str(peers) / f"p{i}.json" for i in range(peers)]

    return {peers: asyncio.run(main(peers, rounds)) for peers, rounds in [(2, 2), (3, 4)]}


def theirs(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[str, int, int | None, str | None]:
    """``lanopoly verify --json``'s verdict, steps, failing step and final hash."""
    cli.main(["verify", "--json", str(path)])
    out = json.loads(capsys.readouterr().out)
    return out["verdict"], out["steps"], out["failed_at"], out["final_hash"]


def mine(verdict: Verdict) -> tuple[str, int, int | None, str | None]:
    final = verdict.final_hash.hex() if verdict.final_hash is not None else None
    return verdict.kind, verdict.steps, verdict.failed_at, final


def agreed(path: Path, capsys: pytest.CaptureFixture[str]) -> Verdict:
    """The independent verdict, once checked to be ``lanopoly verify``'s."""
    verdict = verify(path)
    assert mine(verdict) == theirs(path, capsys), verdict.reason
    return verdict


def edited(tmp_path: Path, data: dict[str, Any]) -> Path:
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    return path


def shapes(path: Path) -> tuple[int, int]:
    """How many chance steps and out-of-turn moves the saved game has (so the test covers them)."""
    log = GameLog.load(path)
    game, chance, out_of_turn = log.new_game(), 0, 0
    for action in log.inputs:
        chance += game.is_chance_node
        out_of_turn += "player" in action and action["player"] != game.current_player
        game.apply(action)
    return chance, out_of_turn


@pytest.mark.parametrize("peers", [2, 3])
def test_every_peers_saved_game_is_complete_with_the_same_final_hash(
    games: dict[int, list[Path]], capsys: pytest.CaptureFixture[str], peers: int
) -> None:
    finals = {agreed(path, capsys).final_hash for path in games[peers]}
    assert len(finals) == 1 and verify(games[peers][0]).kind == "complete"
    chance, out_of_turn = shapes(games[peers][0])
    assert chance > 5 and (peers == 2 or out_of_turn > 0)


@pytest.mark.parametrize("peers", [2, 3])
def test_a_die_rewritten_in_a_consistent_log_fails_at_its_step(
    games: dict[int, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str], peers: int
) -> None:
    """Two different dice swapped (the same total: every later input stays legal) and the log
    re-hashed from there (self-consistent), the network record left alone."""
    data = json.loads(games[peers][-1].read_text())
    log = GameLog.from_json(json.dumps(data))
    k = next(i for i, a in enumerate(log.inputs, 1) if a["type"] == "dice" and i > 4 and len(set(a["dice"])) == 2)
    game = log.new_game()
    for i, step in enumerate(data["steps"], 1):
        if i == k:
            step["input"]["dice"].reverse()
        game.apply(step["input"])
        step["hash"] = game.state_hash().hex()
    assert GameLog.from_json(json.dumps(data)).replay().is_over
    verdict = agreed(edited(tmp_path, data), capsys)
    assert (verdict.kind, verdict.failed_at) == ("failed", k), verdict


@pytest.mark.parametrize(("peers", "end"), [(2, 1), (2, 9), (3, 0), (3, 2), (3, 25), (3, -1)])
def test_a_consistently_truncated_file_is_unfinished_at_its_last_step(
    games: dict[int, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str], peers: int, end: int
) -> None:
    data = json.loads(games[peers][0].read_text())
    n = len(data["steps"]) + end if end < 0 else end
    data["steps"] = data["steps"][:n]
    data["network"]["steps"] = data["network"]["steps"][:n]
    data["network"]["end"] = None
    verdict = agreed(edited(tmp_path, data), capsys)
    assert (verdict.kind, verdict.steps) == ("unfinished", n), verdict


@pytest.mark.parametrize(("peers", "step", "message"), [(2, 1, 1), (2, 6, 0), (3, 2, 2), (3, 9, 0), (3, -1, 0)])
def test_a_flipped_signature_byte_fails_at_its_step(
    games: dict[int, list[Path]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    peers: int,
    step: int,
    message: int,
) -> None:
    data = json.loads(games[peers][1].read_text())
    steps = data["network"]["steps"]
    k = len(steps) + 1 + step if step < 0 else step
    pair = steps[k - 1][message % len(steps[k - 1])]
    signature = bytearray(base64.b64decode(pair[1]))
    signature[7] ^= 0x10
    pair[1] = base64.b64encode(bytes(signature)).decode()
    verdict = agreed(edited(tmp_path, data), capsys)
    assert (verdict.kind, verdict.failed_at) == ("failed", k), verdict


def test_a_log_without_its_network_record_is_unsigned(
    games: dict[int, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = copy.deepcopy(json.loads(games[3][2].read_text()))
    del data["network"]
    assert agreed(edited(tmp_path, data), capsys).kind == "unsigned"
