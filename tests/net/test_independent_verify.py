"""docs/lan.md is enough to verify a saved LAN game: the verifier written from the docs alone
(``independent_verify``) and ``lanopoly verify`` give the same verdict, step and final hash on real
saved games, honest and tampered with. Should either drift (the docs or the code), this fails.

The games are played in this process over loopback sockets (``inproc``), as ``test_verify`` plays
them: 2 and 3 peers, played out or with a peer killed and voted out. Variations no honest peer sends
(a forwarded move, a new start record) are signed with the peers' own keys from their secret files.
"""

from __future__ import annotations

import asyncio
import base64
import copy
import hashlib
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar, NamedTuple

import msgpack
import pytest
from nacl.signing import SigningKey

from lanopoly._core import Game
from lanopoly.log import GameLog
from lanopoly.net import cli
from lanopoly.net.core import effects as fx
from lanopoly.net.core.session import Config, Session
from lanopoly.net.play import play

from .independent_verify import Checker, Verdict, verify
from .inproc import drivers, set_up

GAMES = {"2 peers": (2, None), "3 peers": (3, None), "2 peers, one removed": (2, 1), "3 peers, one removed": (3, 2)}


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Path]]:
    """Each peer's saved file of four games: 2 and 3 peers played out (the 3-peer one played again,
    up to 5 times, until some seat moved out of turn); 2 and 3 peers of which the last is killed at
    step 12 and voted out (``--replace-after``: its seats to the bank with two peers, its secret
    rebuilt from the others' shares with three)."""
    folder = tmp_path_factory.mktemp("independent")

    async def main(where: Path, peers: int, victim: int | None) -> list[Path]:
        started = await set_up(peers, rounds=4 if peers == 3 else 2)
        where.mkdir()
        replace_after = None if victim is None else 0.2
        ds = drivers(started, where, Config(step_timeout=10, rejoin_timeout=30, replace_after=replace_after))
        tasks = [asyncio.create_task(play(d, s)) for d, s in zip(ds, started, strict=True)]
        if victim is not None:
            reached = asyncio.Event()
            ds[victim].subscribe(lambda e: reached.set() if isinstance(e, fx.StepApplied) and e.step >= 12 else None)
            waiting = asyncio.create_task(reached.wait())  # or the game ended first: no hang
            await asyncio.wait([waiting, tasks[victim]], return_when=asyncio.FIRST_COMPLETED)
            waiting.cancel()
            tasks[victim].cancel()
        results = await asyncio.gather(*tasks, return_exceptions=True)
        outcomes = [getattr(r, "outcome", None) for i, r in enumerate(results) if i != victim]
        assert outcomes == ["over"] * len(outcomes) and len(outcomes) == peers - (victim is not None)
        return [where / f"p{i}.json" for i in range(peers)]

    played = {}
    for name, (peers, victim) in GAMES.items():
        for attempt in range(5):
            played[name] = asyncio.run(main(folder / f"{name} {attempt}", peers, victim))
            if name != "3 peers" or shapes(played[name][0]).out_of_turn:
                break
    return played


class Shape(NamedTuple):
    """What a saved game holds, so that a test knows what it covered."""

    chance: int  # chance steps
    chance_after_changes: int  # chance steps after the last removal (a removed peer's links used)
    out_of_turn: int  # moves by a seat other than the one to act
    changes: int
    shares: int


def shapes(path: Path) -> Shape:
    data = json.loads(path.read_text())
    log = GameLog.from_json(json.dumps(data))
    changes = data["network"]["changes"]
    last = max((c["step"] for c in changes), default=0)
    game, chance, later, out_of_turn = log.new_game(), 0, 0, 0
    for k, action in enumerate(log.inputs, 1):
        chance += game.is_chance_node
        later += game.is_chance_node and k >= last > 0
        out_of_turn += "player" in action and action["player"] != game.current_player
        game.apply(action)
    return Shape(chance, later, out_of_turn, len(changes), sum(len(c["shares"]) for c in changes))


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


@pytest.mark.parametrize("name", GAMES)
def test_every_peers_saved_game_agrees_with_the_same_final_hash(
    games: dict[str, list[Path]], capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """The peers that played to the end saved a complete game, all with one final hash; a killed
    peer's file is unfinished where it stopped."""
    _, victim = GAMES[name]
    verdicts = [agreed(path, capsys) for path in games[name]]
    survivors = [v for i, v in enumerate(verdicts) if i != victim]
    assert {v.kind for v in survivors} == {"complete"} and len({v.final_hash for v in survivors}) == 1
    assert victim is None or (verdicts[victim].kind, verdicts[victim].steps >= 12) == ("unfinished", True)
    shape = shapes(games[name][0])
    expected = {"2 peers": (0, 0), "3 peers": (0, 0), "2 peers, one removed": (1, 0), "3 peers, one removed": (1, 2)}
    assert shape.chance > 2 and (shape.changes, shape.shares) == expected[name], shape
    assert name != "3 peers" or shape.out_of_turn > 0
    assert name != "3 peers, one removed" or shape.chance_after_changes > 0


@pytest.mark.parametrize("name", GAMES)
def test_a_die_rewritten_in_a_consistent_log_fails_at_its_step(
    games: dict[str, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """Two different dice swapped (the same total: every later input stays legal) and the log
    re-hashed from there (self-consistent), the network record left alone."""
    data = json.loads(games[name][0].read_text())
    log = GameLog.from_json(json.dumps(data))
    dice = [i for i, a in enumerate(log.inputs, 1) if a["type"] == "dice" and i > 4 and len(set(a["dice"])) == 2]
    changes = [c["step"] for c in data["network"]["changes"]]
    k = next((i for i in dice if i > max(changes)), dice[-1]) if changes else dice[0]  # after a removal if any
    game = log.new_game()
    for i, step in enumerate(data["steps"], 1):
        if i == k:
            step["input"]["dice"].reverse()
        game.apply(step["input"])
        step["hash"] = game.state_hash().hex()
    assert GameLog.from_json(json.dumps(data)).replay().step == len(data["steps"])
    verdict = agreed(edited(tmp_path, data), capsys)
    assert (verdict.kind, verdict.failed_at) == ("failed", k), verdict


@pytest.mark.parametrize(
    ("name", "end"), [("2 peers", 1), ("2 peers", 9), ("3 peers", 0), ("3 peers", 2), ("3 peers", 25), ("3 peers", -1)]
)
def test_a_consistently_truncated_file_is_unfinished_at_its_last_step(
    games: dict[str, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, end: int
) -> None:
    data = json.loads(games[name][0].read_text())
    n = len(data["steps"]) + end if end < 0 else end
    verdict = agreed(edited(tmp_path, cut(data, n)), capsys)
    assert (verdict.kind, verdict.steps) == ("unfinished", n), verdict


def cut(data: dict[str, Any], n: int) -> dict[str, Any]:
    """The file as saved after step ``n`` (changes made for later steps left out)."""
    data = copy.deepcopy(data)
    data["steps"] = data["steps"][:n]
    data["network"]["steps"] = data["network"]["steps"][:n]
    data["network"]["changes"] = [c for c in data["network"]["changes"] if c["step"] <= n + 1]
    data["network"]["end"] = None
    return data


@pytest.mark.parametrize(
    ("name", "step", "message"),
    [("2 peers", 1, 1), ("2 peers", 6, 0), ("3 peers", 2, 2), ("3 peers", 9, 0), ("3 peers", -1, 0)],
)
def test_a_flipped_signature_byte_fails_at_its_step(
    games: dict[str, list[Path]],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    step: int,
    message: int,
) -> None:
    data = json.loads(games[name][1].read_text())
    steps = data["network"]["steps"]
    k = len(steps) + 1 + step if step < 0 else step
    flip(steps[k - 1][message % len(steps[k - 1])])
    verdict = agreed(edited(tmp_path, data), capsys)
    assert (verdict.kind, verdict.failed_at) == ("failed", k), verdict


def flip(pair: list[str]) -> None:
    """One bit of a saved ``[body, signature]``'s signature flipped."""
    signature = bytearray(base64.b64decode(pair[1]))
    signature[7] ^= 0x10
    pair[1] = base64.b64encode(bytes(signature)).decode()


@pytest.mark.parametrize("name", ["2 peers, one removed", "3 peers, one removed"])
@pytest.mark.parametrize("edit", ["cut before the change", "cut after the change", "commit", "share"])
def test_a_removal_is_checked_alike(
    games: dict[str, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, edit: str
) -> None:
    """A file saved just before or after the change (made for the step to come, or just made), a
    commit's signature flipped, or a share left out (the secret is then not rebuilt: with three
    peers the change fails; with two there are no shares to leave out, and it holds)."""
    data = json.loads(games[name][0].read_text())
    (change,) = data["network"]["changes"]
    s = change["step"]
    if edit.startswith("cut"):
        n = s - 1 if edit == "cut before the change" else s
        verdict = agreed(edited(tmp_path, cut(data, n)), capsys)
        # Where the change falls against the game's end depends on when the victim died: the game
        # goes on after it, or ends at it (the bank's seat resigns at once), or has ended by the
        # round limit one step before it (the change made for a step that never comes; seen in CI).
        last = len(data["steps"])
        over = n >= last
        assert (verdict.kind, verdict.steps) == ("complete" if over else "unfinished", min(n, last)), verdict
        return
    if edit == "commit":
        flip(change["commits"][-1])
    else:
        change["shares"] = change["shares"][1:]
    verdict = agreed(edited(tmp_path, data), capsys)
    holds = edit == "share" and not change["shares"]
    assert (verdict.kind, verdict.failed_at) == (("complete", None) if holds else ("failed", s)), verdict


@pytest.mark.parametrize(
    ("network", "kind"),
    [("absent", "unsigned"), ("null", "unsigned"), (8, "unsigned"), (10, "failed"), ("x", "failed"), ("[]", "failed")],
)
def test_a_log_whose_record_is_missing_older_or_unknown_is_unsigned_or_fails(
    games: dict[str, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str], network: object, kind: str
) -> None:
    """No record, or one of protocols 1 to 8, leaves a log whose hashes alone are checked; a record
    of another protocol, or not an object, fails (at step 0)."""
    data = json.loads(games["3 peers"][2].read_text())
    if network == "absent":
        del data["network"]
    elif network in ("null", "[]"):
        data["network"] = json.loads(str(network))
    else:
        data["network"]["protocol"] = network
    assert agreed(edited(tmp_path, data), capsys).kind == kind


class Signer:
    """Signs as the game's peers, with the seeds their secret files hold: what the peers could
    have signed and did not (a forwarded move, an ack with another state), to compare verdicts on."""

    TAGS: ClassVar[dict[int, bytes]] = {
        40: b"lanopoly/9/action\0",
        41: b"lanopoly/9/forward\0",
        43: b"lanopoly/9/ack\0",
    }

    def __init__(self, saved: list[Path]) -> None:
        seeds = [base64.b64decode(json.loads(Path(f"{p}.secret").read_text())["key"]) for p in saved]
        self.keys = [SigningKey(seed) for seed in seeds]

    def pair(self, fields: list[Any]) -> list[str]:
        """``[body, signature]`` (base64) of a body ``[type, 9, game id, step, signer, ...]``."""
        body = msgpack.packb(fields)
        signature = self.keys[fields[4]].sign(self.TAGS[fields[0]] + body).signature
        return [base64.b64encode(x).decode() for x in (body, signature)]

    def genesis(self, data: dict[str, Any], start: list[Any]) -> None:
        """Replace the saved game's start record with ``start``, every peer signing the new genesis."""
        genesis = data["network"]["genesis"]
        raw = msgpack.packb(start)
        g = hashlib.sha256(b"lanopoly/9/genesis\0" + len(raw).to_bytes(4, "big") + raw)
        for points in genesis["commitments"]:
            g.update(bytes([len(points)]) + b"".join(base64.b64decode(c) for c in points))
        signatures = [key.sign(b"lanopoly/9/genesis-sig\0" + g.digest()).signature for key in self.keys]
        genesis["start"] = base64.b64encode(raw).decode()
        genesis["signatures"] = [base64.b64encode(x).decode() for x in signatures]


def first_out_of_turn(log: GameLog) -> tuple[int, Game]:
    """The first step decided by an out-of-turn move, and the game before it."""
    game = log.new_game()
    for k, action in enumerate(log.inputs, 1):
        if "player" in action and action["player"] != game.current_player:
            return k, game
        game.apply(action)
    raise AssertionError("no out-of-turn move in the game")


def body(pair: list[str]) -> Any:
    return msgpack.unpackb(base64.b64decode(pair[0]))


class OutOfTurn(NamedTuple):
    """The first step of a saved game decided out of turn, to sign otherwise."""

    data: dict[str, Any]  # the saved file
    k: int  # the step
    signer: Signer
    ack: list[Any]  # the body of the ack that carried the move
    move: list[Any]  # the body of the move nested in it
    leader: int  # the peer that leads the step (controls the seat to act)

    @classmethod
    def of(cls, paths: list[Path]) -> OutOfTurn:
        data = json.loads(paths[0].read_text())
        k, game = first_out_of_turn(GameLog.from_json(json.dumps(data)))
        (ack,) = (body(p) for p in data["network"]["steps"][k - 1])
        start = msgpack.unpackb(base64.b64decode(data["network"]["genesis"]["start"]))
        return cls(data, k, Signer(paths), ack, msgpack.unpackb(ack[7]), start[5][game.current_player])

    def forwarded_by(self, forwarder: int) -> list[str]:
        """The move, signed alone, passed on in a ``FORWARD`` signed by ``forwarder``."""
        offer = [base64.b64decode(x) for x in self.signer.pair(self.move)]
        return self.signer.pair([41, 9, self.move[2], self.k, forwarder, self.move[5], offer])


@pytest.mark.parametrize("how", ["alone", "forwarded by the leader", "forwarded by another", "ack lies"])
def test_an_out_of_turn_move_signed_otherwise_is_judged_alike(
    games: dict[str, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    """The out-of-turn move of a real game (nested in its signer's ack) signed alone instead, or
    forwarded by the step's leader (both hold: "A step" 1), or forwarded by a peer that does not
    lead (fails); or its carrier ack re-signed with a false state hash (holds: only the ack's
    signature is checked, "Verifying a saved game")."""
    step = OutOfTurn.of(games["3 peers"])
    data, k, leader = step.data, step.k, step.leader
    if how == "ack lies":
        step.ack[6] = bytes(32)
        pairs = [step.signer.pair(step.ack)]
    elif how == "alone":
        pairs = [step.signer.pair(step.move)]
    else:
        forwarder = leader if how == "forwarded by the leader" else next(i for i in range(3) if i != leader)
        pairs = [step.forwarded_by(forwarder)]
    data["network"]["steps"][k - 1] = pairs
    verdict = agreed(edited(tmp_path, data), capsys)
    assert (verdict.kind, verdict.failed_at) == (("failed", k) if how == "forwarded by another" else ("complete", None))


def run_before(monkeypatch: pytest.MonkeyPatch, k: int, run: int) -> None:
    """Both verifiers take ``run`` steps in a row to have gone out of turn just before step ``k``
    (no real game reaches the cap, so each verifier's count is set by hand)."""

    def at_k(original: Callable[..., Any], step_of: Callable[..., int]) -> Callable[..., Any]:
        def patched(self: Any, *args: Any) -> Any:
            if step_of(*args) == k:
                if isinstance(self, Session):
                    self.out_of_turn.run = run
                else:
                    self.run = run
            return original(self, *args)

        return patched

    monkeypatch.setattr(Checker, "decide", at_k(Checker.decide, lambda step, _messages: step))
    monkeypatch.setattr(Session, "check_step", at_k(Session.check_step, lambda record: record.step))


@pytest.mark.parametrize(("run", "kind"), [(3, "failed"), (2, "complete")])
def test_a_nested_out_of_turn_move_past_the_run_cap_is_refused_alike(
    games: dict[str, list[Path]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    run: int,
    kind: str,
) -> None:
    """An out-of-turn move nested in an ack is taken only while fewer steps in a row than there
    are peers went out of turn ("A step" 1): both verifiers refuse the real game's first one when
    the three steps before it are taken to have gone out of turn, and take it after two."""
    path = games["3 peers"][0]
    k, _ = first_out_of_turn(GameLog.from_json(path.read_text()))
    run_before(monkeypatch, k, run)
    verdict = agreed(path, capsys)
    assert (verdict.kind, verdict.failed_at) == (kind, k if kind == "failed" else None), verdict.reason
    if kind == "failed":
        assert "an out-of-turn move after 3 in a row" in verdict.reason, verdict.reason


@pytest.mark.parametrize(("run", "kind"), [(3, "failed"), (2, "complete")])
def test_a_forward_past_the_run_cap_is_refused_alike(
    games: dict[str, list[Path]],
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    run: int,
    kind: str,
) -> None:
    """A leader's forward is held to the same cap (no change at the step): two colluding peers, one
    offering and the leader forwarding, could otherwise put the leader's turn off until the step
    limit. The real game's first out-of-turn move, forwarded by the step's leader instead."""
    step = OutOfTurn.of(games["3 peers"])
    data, k = step.data, step.k
    data["network"]["steps"][k - 1] = [step.forwarded_by(step.leader)]
    run_before(monkeypatch, k, run)
    verdict = agreed(edited(tmp_path, data), capsys)
    assert (verdict.kind, verdict.failed_at) == (kind, k if kind == "failed" else None), verdict.reason


@pytest.mark.parametrize(
    ("edit", "failed_at"),
    [
        ("bid timer 30", None),
        ("bid timer 0", 0),
        ("replace with xyz", 0),
        ("chain length 0", 0),
        ("no rent_claim rule", 1),  # read as Rules.recorded: "automatic", another game from step 1
    ],
)
def test_a_start_record_signed_by_every_peer_is_read_alike(
    games: dict[str, list[Path]], tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: str, failed_at: int | None
) -> None:
    """The start record's ranges ("Lobby and start" 3), and its rules read as a log's are (an
    option it lacks plays as before the option existed), with a genesis every peer signed anew."""
    paths = games["3 peers"]
    data = json.loads(paths[0].read_text())
    start = msgpack.unpackb(base64.b64decode(data["network"]["genesis"]["start"]))
    if edit.startswith("bid timer"):
        start.append(int(edit.split()[-1]))
    elif edit == "replace with xyz":
        start[9] = "xyz"
    elif edit == "chain length 0":
        start[8] = 0
    else:
        del start[7]["rent_claim"]
        del data["rules"]["rent_claim"]
    Signer(paths).genesis(data, start)
    verdict = agreed(edited(tmp_path, data), capsys)
    assert verdict.failed_at == failed_at and verdict.kind == ("complete" if failed_at is None else "failed")
