"""``lanopoly verify FILE``: a saved LAN game is checked offline by the session core itself (as an
observer), tampering and correctly signed cheating are caught, and the verdict says what the file
proves: complete (0), failed (1), unfinished (3), unsigned (4).

The saved games come from one real 3-peer game played in this process over loopback sockets (the
drivers write the files as in play); its peers' keys are at hand, so a test can sign what an honest
peer never sends.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from lanopoly.log import GameLog
from lanopoly.net import cli
from lanopoly.net import protocol as p8
from lanopoly.net.hosting import Started
from lanopoly.net.play import play

from .conftest import peer_env
from .inproc import drivers, set_up

DATA = Path(__file__).with_name("data")


@pytest.fixture(scope="module")
def game(tmp_path_factory: pytest.TempPathFactory) -> tuple[list[Path], list[Started]]:
    folder = tmp_path_factory.mktemp("verify")

    async def main() -> list[Started]:
        started = await set_up(3, rounds=3)
        ds = drivers(started, folder)
        results = await asyncio.gather(*(play(d, s) for d, s in zip(ds, started, strict=True)))
        assert {r.outcome for r in results} == {"over"}
        return started

    started = asyncio.run(main())
    return [folder / f"p{i}.json" for i in range(3)], started


def verify(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(["verify", str(path)])
    out = capsys.readouterr()
    return code, out.out + out.err


def saved(path: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


def write(tmp_path: Path, data: dict[str, Any], name: str = "edited.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return path


def test_every_peers_saved_game_is_a_complete_signed_game(
    game: tuple[list[Path], list[Started]], capsys: pytest.CaptureFixture[str]
) -> None:
    paths, _ = game
    finals = set()
    for path in paths:
        code, out = verify(path, capsys)
        assert code == 0 and f"{path}: COMPLETE signed game" in out, out
        assert "genesis signed by all 3 peers" in out
        finals.add(GameLog.load(path).replay().state_hash())
    assert len(finals) == 1


def test_verify_runs_as_a_command_in_its_own_process(game: tuple[list[Path], list[Started]]) -> None:
    run = subprocess.run(
        [sys.executable, "-m", "lanopoly", "verify", "--json", str(game[0][0])],
        capture_output=True,
        text=True,
        timeout=60,
        env=peer_env("127.0.0.1"),
    )
    assert run.returncode == 0 and json.loads(run.stdout)["verdict"] == "complete"


def _flip(text: str) -> str:
    raw = bytearray(base64.b64decode(text))
    raw[5] ^= 1
    return base64.b64encode(bytes(raw)).decode()


@pytest.mark.parametrize("what", ["signature", "input", "genesis-signature", "rules", "commitment"])
def test_a_tampered_file_fails_with_the_step_and_why(
    game: tuple[list[Path], list[Started]], tmp_path: Path, capsys: pytest.CaptureFixture[str], what: str
) -> None:
    data = saved(game[0][1])
    net = data["network"]
    step = 7
    if what == "signature":
        net["steps"][step - 1][0][1] = _flip(net["steps"][step - 1][0][1])
    elif what == "input":
        move = next(i for i, s in enumerate(data["steps"], 1) if s["input"]["type"] == "buy")
        data["steps"][move - 1]["input"] = {"type": "decline", "player": data["steps"][move - 1]["input"]["player"]}
        step = move
    elif what == "genesis-signature":
        net["genesis"]["signatures"][2] = net["genesis"]["signatures"][1]
        step = 0
    elif what == "rules":
        data["rules"]["starting_cash"] = 99999
        step = 0
    else:
        net["genesis"]["commitments"][1][0] = _flip(net["genesis"]["commitments"][1][0])
        step = 0
    code, out = verify(write(tmp_path, data), capsys)
    assert code == 1, out
    assert (f"FAILED at step {step}" if step else "FAILED before any step") in out, out


def test_a_correctly_signed_move_by_a_peer_that_does_not_control_the_seat_fails(
    game: tuple[list[Path], list[Started]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths, started = game
    data = saved(paths[0])
    record = started[0].genesis.record
    steps = data["network"]["steps"]
    for k, pairs in enumerate(steps, 1):
        body, signature = (base64.b64decode(x) for x in pairs[0])
        (move,) = p8.step_messages([p8.decode_signed(body, signature)])  # an ack stands for its nested move
        if isinstance(move, p8.Action):
            thief = next(i for i in range(3) if i != record.controllers[move.seat])
            forged = p8.sign_action(
                started[thief].key, move.game_id, move.step, thief, move.prev, move.seat, move.action
            )
            steps[k - 1] = [[base64.b64encode(x).decode() for x in forged.pair()]]
            break
    code, out = verify(write(tmp_path, data), capsys)
    assert code == 1 and f"FAILED at step {k}" in out and "does not control" in out, out


def test_a_correctly_signed_reveal_off_its_chain_fails(
    game: tuple[list[Path], list[Started]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    paths, started = game
    data = saved(paths[0])
    steps = data["network"]["steps"]
    k = next(i for i, pairs in enumerate(steps, 1) if len(pairs) == 3)  # a chance step: one reveal per peer
    body, signature = (base64.b64decode(x) for x in steps[k - 1][1])
    (reveal,) = p8.step_messages([p8.decode_signed(body, signature)])  # alone, or carried by its ack
    assert isinstance(reveal, p8.Reveal)
    fake = p8.sign_reveal(started[1].key, reveal.game_id, reveal.step, 1, reveal.prev, reveal.index, bytes(32))
    steps[k - 1][1] = [base64.b64encode(x).decode() for x in fake.pair()]
    code, out = verify(write(tmp_path, data), capsys)
    assert code == 1 and f"FAILED at step {k}" in out and "reveal" in out, out


def test_a_rolled_die_rewritten_without_the_network_record_is_only_unsigned(
    game: tuple[list[Path], list[Started]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The outside tester's case: the network member removed, a die rewritten, every later hash
    recomputed. Such a file is self-consistent: verify says it proves nothing about fairness (4)."""
    log = GameLog.load(game[0][0])
    k = next(i for i, a in enumerate(log.inputs) if a["type"] == "dice" and i > 5)
    forged = GameLog(log.names, log.board, log.rules)
    replay = log.new_game()
    for action in log.inputs[:k]:
        replay.apply(action)
        forged.record(action, replay)
    die = dict(log.inputs[k])
    die["dice"] = [1, 2] if list(die["dice"]) != [1, 2] else [2, 1]
    replay.apply(die)
    forged.record(die, replay)
    path = tmp_path / "forged.json"
    path.write_text(forged.to_json())
    code, out = verify(path, capsys)
    assert code == 4 and "UNSIGNED log, no network record" in out, out


@pytest.mark.parametrize("end", [0, 1, 17, -1])
def test_a_consistently_truncated_file_is_an_unfinished_signed_game(
    game: tuple[list[Path], list[Started]], tmp_path: Path, capsys: pytest.CaptureFixture[str], end: int
) -> None:
    data = saved(game[0][2])
    n = len(data["steps"]) + end if end < 0 else end
    cut = copy.deepcopy(data)
    cut["steps"] = cut["steps"][:n]
    cut["network"]["steps"] = cut["network"]["steps"][:n]
    cut["network"]["end"] = None
    code, out = verify(write(tmp_path, cut), capsys)
    assert code == 3 and f"UNFINISHED signed game: it ends at step {n}" in out, out
    assert "the record does not say why" in out
    cut["network"]["end"] = {"outcome": "frozen", "step": n, "reason": "peer 2 (guest2) dropped"}
    code, out = verify(write(tmp_path, cut), capsys)
    assert code == 3 and "froze at step" in out and "peer 2 (guest2) dropped" in out, out


def test_a_record_of_an_older_protocol_is_only_checked_for_its_hash_chain(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = verify(DATA / "protocol3-game.json", capsys)
    assert code == 4 and "a LAN protocol 3 record, whose signatures this version does not check" in out, out


def test_a_protocol_8_record_is_only_checked_for_its_hash_chain(capsys: pytest.CaptureFixture[str]) -> None:
    """A game saved by protocol 8 (two peers, one round, by main before protocol 9): its acks nest
    signed messages, which this version does not read; verify says what it checked and no more."""
    code, out = verify(DATA / "protocol8-game.json", capsys)
    assert code == 4 and "a LAN protocol 8 record, whose signatures this version does not check" in out, out


def test_verify_help_lists_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        cli.main(["verify", "--help"])
    help_text = capsys.readouterr().out
    for line in ("0  a complete signed game", "1  verification failed", "3  an unfinished", "4  an unsigned log"):
        assert line in help_text
