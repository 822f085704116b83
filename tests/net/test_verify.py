"""``lanopoly verify FILE``: a networked game's saved log is checked offline, tampering is caught,
and the verdict says what the file proves (complete, unfinished, unsigned, failed: exit 0, 3, 4, 1).

Two sources of saved games:

- a real 3-peer game over loopback (one per module): every peer's file verifies, through
  ``lanopoly verify`` in a separate process too; flipping bits of a signature, dropping a start
  record signature or editing the header fails with the step and the reason;
- synthetic games played here "as every peer" (own keys, own hash chains), which can make what an
  honest peer never sends, correctly signed: a reveal off its chain, an action signed by a peer
  that does not control the seat, a logged chance outcome that is not the one the reveals give
  (with every later state hash recomputed, so only the fairness check can catch it).
"""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanopoly import Game, Rules
from lanopoly.bots import SimpleBot
from lanopoly.log import GameLog
from lanopoly.net import PROTOCOL_VERSION, cli, secure
from lanopoly.net.chain import HashChain, step_seed
from lanopoly.net.framing import pack
from lanopoly.net.mesh import start_hash
from lanopoly.net.messages import ActionMsg, PeerEntry, Reveal, StartRecord
from lanopoly.net.verify import NetworkRecord, VerifyError, verify_text

from .conftest import peer_env
from .peers import run_game


def verify_cli(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = cli.main(["verify", str(path)])
    out = capsys.readouterr()
    return code, out.out + out.err


def verify_json(path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, Any]]:
    code = cli.main(["verify", "--json", str(path)])
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["exit_code"] == code and verdict["file"] == str(path)
    return code, verdict


def headline(path: Path, out: str) -> str:
    """The first line ``lanopoly verify`` prints, without the file name: what the file proves."""
    first = out.splitlines()[0]
    assert first.startswith(f"{path}: "), out
    return first[len(f"{path}: ") :]


def synthetic(
    path: Path,
    *,
    peers: int = 3,
    rounds: int = 4,
    bad_link_at: int = 0,
    foreign_key_at: int = 0,
    wrong_outcome_at: int = 0,
    stop_at: int = 0,
    freeze: str = "",
) -> Path:
    """Play a bot game as all ``peers`` (seat i controlled by peer i) and save it as a networked peer would.

    The ``*_at`` options misbehave at the first chance step (or move) at or after that step;
    ``stop_at`` ends the game there, unfinished, recording the freeze ``freeze`` (if given) at the next step.
    """
    keys = [Ed25519PrivateKey.generate() for _ in range(peers)]
    chains = [HashChain(400) for _ in range(peers)]
    rules = Rules.preset("official", round_limit=rounds)
    names = [f"p{i}" for i in range(peers)]
    game_id = secrets.token_bytes(16)
    entries = tuple(
        PeerEntry(secrets.token_bytes(16), n, "127.0.0.1", 1000 + i, c.anchor, secure.public_bytes(k))
        for i, (n, c, k) in enumerate(zip(names, chains, keys, strict=True))
    )
    record = StartRecord(game_id, entries, tuple(names), tuple(range(peers)), "classic", rules.to_dict(), 400)
    payload = pack(record.to_wire())
    digest = start_hash(payload)
    sigs = {i: k.sign(secure.start_sig_data(digest)) for i, k in enumerate(keys)}
    net = NetworkRecord(0, payload, sigs)
    game = Game(names, board="classic", rules=rules, seed=0)
    log = GameLog.start(game)
    bots = [SimpleBot() for _ in range(peers)]
    chance = 0
    while not game.is_over and not (stop_at and game.step == stop_at):
        step, prev = game.step + 1, game.state_hash()
        signed: list[ActionMsg | Reveal] = []
        if game.is_chance_node:
            chance += 1
            links = [c.reveal(chance) for c in chains]
            if bad_link_at and step >= bad_link_at:
                links[1], bad_link_at = secrets.token_bytes(32), 0
            signed = [Reveal.signed(keys[p], game_id, step, prev, p, chance, links[p]) for p in range(peers)]
            action = game.outcome_from_bytes(step_seed(game_id, step, prev, links))
            if wrong_outcome_at and step >= wrong_outcome_at:
                for _ in range(100):
                    other = game.outcome_from_bytes(secrets.token_bytes(32))
                    if other != action:
                        action, wrong_outcome_at = other, 0
                        break
        else:
            seat = game.current_player
            assert seat is not None
            action = bots[seat].choose(game, seat, game.legal_actions(seat))
            signer = seat
            if foreign_key_at and step >= foreign_key_at:
                signer, foreign_key_at = (seat + 1) % peers, 0
            signed = [ActionMsg.signed(keys[signer], game_id, step, prev, seat, action)]
        game.apply(action)
        log.record(action, game)
        net.record(step, signed)
    if freeze:
        net.record_freeze(game.step + 1, freeze)
    path.write_text(net.attach(log.to_json()), encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def real_logs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[Path]]:
    """The saved logs of one real 3-peer game over loopback (played once for the module)."""
    workdir = tmp_path_factory.mktemp("verify-game")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LANOPOLY_INTERFACES", "127.0.0.1")
        runs = run_game(workdir, ["127.0.0.81", "127.0.0.82", "127.0.0.83"], players=4, rounds=10, timeout=60)
    assert all(run.code == 0 for run in runs), [run.err for run in runs]
    yield [run.log for run in runs]


def test_every_peers_saved_game_verifies(real_logs: list[Path], capsys: pytest.CaptureFixture[str]) -> None:
    finals = set()
    for path in real_logs:
        code, out = verify_cli(path, capsys)
        assert code == 0, out
        steps = len(json.loads(path.read_text())["steps"])
        assert headline(path, out) == f"COMPLETE signed game: all {steps} steps verified, up to the end of the game"
        assert "start record signed by all 3 peers" in out and "reveals on their peers' hash chains" in out
        data = json.loads(path.read_text())
        assert data["network"]["me"] in (0, 1, 2) and len(data["network"]["steps"]) == len(data["steps"])
        finals.add(verify_text(path.read_text()).final_hash)
        assert GameLog.load(path).replay().state_hash() in finals  # the core's loader ignores "network"
    assert len(finals) == 1


def test_lanopoly_verify_in_a_separate_process(real_logs: list[Path]) -> None:
    env = peer_env("127.0.0.1")
    run = subprocess.run(
        [sys.executable, "-m", "lanopoly", "verify", str(real_logs[1])],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert run.returncode == 0 and "COMPLETE signed game" in run.stdout, run.stderr


def _tampered(path: Path, tmp_path: Path, change: Any) -> Path:
    data = json.loads(path.read_text())
    change(data)
    out = tmp_path / "tampered.json"
    out.write_text(json.dumps(data))
    return out


def _flip_signature(data: dict[str, Any]) -> None:
    body, sig = data["network"]["steps"][4]["signed"][0]
    raw = bytearray(base64.b64decode(sig))
    raw[0] ^= 1
    data["network"]["steps"][4]["signed"][0] = [body, base64.b64encode(bytes(raw)).decode()]


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_flip_signature, "at step 5: "),
        (lambda d: d["network"]["start_sigs"].pop("2"), "signature of the start record is missing"),
        (lambda d: d["names"].__setitem__(0, "mallory"), "seats or board differ from the signed start record"),
        (lambda d: d["rules"].__setitem__("starting_cash", 9999), "rules differ from the signed start record"),
        (lambda d: d["network"]["steps"].pop(), "in the network record"),
        (lambda d: d["network"]["steps"][6]["signed"][0].__setitem__(0, "not base64!"), "at step 7: body: not valid"),
    ],
    ids=["signature-bit", "start-signature-missing", "seat-name", "rules", "record-truncated", "body-not-base64"],
)
def test_tampered_real_log_fails(
    real_logs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], change: Any, message: str
) -> None:
    tampered = _tampered(real_logs[0], tmp_path, change)
    code, out = verify_cli(tampered, capsys)
    assert code == 1 and headline(tampered, out).startswith("verification FAILED") and message in out, out
    code, verdict = verify_json(tampered, capsys)
    assert code == 1 and verdict["verdict"] == "failed" and verdict["signed"] is None
    assert message.strip(": ") in f"at step {verdict['failed_at']}: {verdict['reason']}"


def test_a_changed_die_fails_at_its_step(
    real_logs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A die of the game changed in the log (the first roll from step 10 on, to another pair: the
    game is played afresh each run, so a fixed step or pair could be the one already there)."""
    data = json.loads(real_logs[0].read_text())
    index = next(i for i, step in enumerate(data["steps"]) if i >= 9 and step["input"].get("type") == "dice")
    roll = data["steps"][index]["input"]
    roll["dice"] = [3, 4] if sorted(roll["dice"]) == [1, 2] else [1, 2]
    changed = tmp_path / "changed.json"
    changed.write_text(json.dumps(data))
    code, out = verify_cli(changed, capsys)
    assert code == 1 and "verification FAILED" in out and f"at step {index + 1}: " in out, out


def test_a_plain_log_is_unsigned(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Without a network record only the hash chain is checked: exit 4, whether the game is over or not."""
    path = synthetic(tmp_path / "g.json")
    data = json.loads(path.read_text())
    del data["network"]
    plain = tmp_path / "plain.json"
    plain.write_text(json.dumps(data))
    code, out = verify_cli(plain, capsys)
    assert code == 4 and headline(plain, out).startswith("UNSIGNED log, no network record"), out
    assert "(the game over)" in out and "signatures and reveals were not checked" in out
    data["steps"] = data["steps"][:30]
    plain.write_text(json.dumps(data))
    code, verdict = verify_json(plain, capsys)
    assert code == 4 and verdict["verdict"] == "unsigned" and verdict["steps"] == 30
    assert verdict["signed"] is False and verdict["over"] is False and "(the game not over)" in verdict["reason"]
    code, out = verify_cli(tmp_path / "missing.json", capsys)
    assert code == 1 and "verification FAILED before any step was checked: cannot read the file" in out


def test_synthetic_honest_game_verifies(tmp_path: Path) -> None:
    verified = verify_text(synthetic(tmp_path / "g.json").read_text())
    assert verified.networked and verified.peers == 3 and verified.chance_steps > 10
    assert verified.reveals == 3 * verified.chance_steps and verified.actions + verified.chance_steps == verified.steps


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"bad_link_at": 20}, "peer 1 (p1)'s reveal is not the next link of its hash chain"),
        ({"foreign_key_at": 20}, "the action is not signed by peer"),
        ({"wrong_outcome_at": 20}, "the reveals give"),
    ],
    ids=["reveal-off-its-chain", "action-signed-by-another-peer", "outcome-not-from-the-reveals"],
)
def test_correctly_signed_cheating_is_caught(tmp_path: Path, options: dict[str, Any], message: str) -> None:
    text = synthetic(tmp_path / "g.json", **options).read_text()
    GameLog.from_json(text).replay()  # every state hash is consistent: only the network checks can tell
    with pytest.raises(VerifyError, match=message.replace("(", r"\(").replace(")", r"\)")) as info:
        verify_text(text)
    assert info.value.step >= 20


PROTOCOL3_GAME = Path(__file__).parent / "data" / "protocol3-game.json"
"""A 2-peer bot game saved by protocol 3 (commit f4a2f7b), before votes could give assets to the bank."""


def test_a_game_saved_by_an_older_protocol_still_verifies_but_is_not_played_on() -> None:
    from lanopoly.net.rejoin import load_saved

    text = PROTOCOL3_GAME.read_text()
    assert json.loads(text)["network"]["protocol"] == 3
    verified = verify_text(text)
    assert verified.networked and verified.steps == 25 and verified.peers == 2
    assert verified.chance_steps == 10 and verified.reveals == 20
    assert verified.final_hash == GameLog.from_json(text).replay().state_hash()
    plays = f"saved by LAN protocol 3, and this version plays protocol {PROTOCOL_VERSION}"
    with pytest.raises(ValueError, match=plays):
        load_saved(PROTOCOL3_GAME)


def _forged_unsigned(path: Path, out: Path) -> int:
    """``path`` with its network record removed and its first roll from step 10 on changed, the
    game then played on to its end by bots, every hash recomputed: a self-consistent log of a game
    that was never played. Returns the forged step."""
    data = json.loads(path.read_text())
    del data["network"]
    log = GameLog.from_json(json.dumps(data))
    index = next(i for i, action in enumerate(log.inputs) if i >= 9 and action.get("type") == "dice")
    roll = dict(log.inputs[index])
    roll["dice"] = [3, 4] if sorted(roll["dice"]) == [1, 2] else [1, 2]
    game = log.new_game()
    forged = GameLog.start(game)
    for action in [*log.inputs[:index], roll]:
        game.apply(action)
        forged.record(action, game)
    bots = [SimpleBot() for _ in log.names]
    while not game.is_over:
        if game.is_chance_node:
            action = game.outcome_from_bytes(hashlib.sha256(str(game.step).encode()).digest())
        else:
            seat = game.current_player
            assert seat is not None
            action = bots[seat].choose(game, seat, game.legal_actions(seat))
        game.apply(action)
        forged.record(action, game)
    out.write_text(forged.to_json())
    return index + 1


def test_a_forged_log_without_its_network_record_is_unsigned(
    real_logs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The network record removed, a die rewritten and the hashes recomputed: the hash chain checks,
    so the verdict must say it proves nothing about fairness (exit 4), not that it verified."""
    forged = tmp_path / "forged.json"
    step = _forged_unsigned(real_logs[2], forged)
    game = GameLog.load(forged).replay()  # self-consistent, and a finished game
    assert game.is_over and game.step > step
    code, out = verify_cli(forged, capsys)
    assert code == 4, out
    assert headline(forged, out) == (
        f"UNSIGNED log, no network record: only the hash chain of its {game.step} steps was checked (the game"
        " over); that proves the file is self-consistent, and nothing about who played or whether the dice were fair"
    )
    code, verdict = verify_json(forged, capsys)
    assert code == 4 and verdict["verdict"] == "unsigned" and verdict["final_hash"] == game.state_hash().hex()


def _cut(data: dict[str, Any], step: int) -> None:
    """Truncate a saved game consistently after ``step``: its inputs, hashes and signed steps."""
    data["steps"] = data["steps"][:step]
    data["network"]["steps"] = data["network"]["steps"][:step]
    data["network"]["changes"] = [c for c in data["network"]["changes"] if c["step"] <= step]


@pytest.mark.parametrize("end", [0, 1, 17, -1], ids=["start-only", "step-1", "step-17", "one-before-the-end"])
def test_a_consistently_truncated_log_is_unfinished(
    real_logs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], end: int
) -> None:
    steps = len(json.loads(real_logs[0].read_text())["steps"])
    step = end % steps
    cut = _tampered(real_logs[0], tmp_path, lambda d: _cut(d, step))
    code, out = verify_cli(cut, capsys)
    assert code == 3, out
    checked = f"steps 1 to {step} verified" if step else "its start record verified"
    assert headline(cut, out) == (
        f"UNFINISHED signed game: it ends at step {step}, before the game was over ({checked}); the record does"
        " not say why (the session stopped there, or the file was cut)"
    )
    code, verdict = verify_json(cut, capsys)
    assert code == 3 and verdict["verdict"] == "unfinished" and verdict["steps"] == step
    assert verdict["signed"] is True and verdict["over"] is False


def _change(step: int) -> dict[str, Any]:
    return {"step": step, "removed": [1], "controller": 0, "choice": "bot", "votes": []}


@pytest.mark.parametrize(
    ("after", "message"),
    [(1, "the votes do not make a change"), (3, "at step 23, but the log's steps go from 1 to 20")],
    ids=["next-step-unvoted", "past-the-end"],
)
def test_a_change_after_the_logs_end_is_checked(
    real_logs: list[Path], tmp_path: Path, capsys: pytest.CaptureFixture[str], after: int, message: str
) -> None:
    """A change of membership saved for the step after the log's end is checked (an honest peer saves
    one when the votes came in and the step did not); one for a later step cannot be: both fail."""

    def cut_and_add(data: dict[str, Any]) -> None:
        _cut(data, 20)
        data["network"]["changes"].append(_change(20 + after))

    code, verdict = verify_json(_tampered(real_logs[0], tmp_path, cut_and_add), capsys)
    assert code == 1 and verdict["verdict"] == "failed" and message in verdict["reason"], verdict


def test_the_saved_freeze_says_why_the_game_is_unfinished(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = synthetic(tmp_path / "g.json", stop_at=30, freeze="peer 2 (p2) sent no reveal within 10 s")
    assert json.loads(path.read_text())["network"]["freeze"] == {
        "step": 31,
        "reason": "peer 2 (p2) sent no reveal within 10 s",
    }
    code, out = verify_cli(path, capsys)
    assert code == 3, out
    assert headline(path, out) == (
        "UNFINISHED signed game: it ends at step 30, before the game was over (steps 1 to 30 verified); the saving"
        " peer recorded that the session froze at step 31: peer 2 (p2) sent no reveal within 10 s (its own word,"
        " signed by nobody)"
    )
    data = json.loads(path.read_text())
    data["network"]["freeze"] = {"step": "31"}
    path.write_text(json.dumps(data))
    code, out = verify_cli(path, capsys)
    assert code == 1 and "malformed freeze in the network record" in out, out


def test_verify_help_lists_the_exit_codes(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli.main(["verify", "--help"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    for code, meaning in [
        (0, "a complete signed game"),
        (1, "verification failed"),
        (3, "an unfinished signed"),
        (4, "an unsigned log"),
    ]:
        assert f"  {code}  {meaning}" in out, out
