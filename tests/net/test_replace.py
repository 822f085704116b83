"""Replacing a peer by a bot on the votes of all the others: a peer that dropped, a silent one, a liar.

Real peers as separate processes over real sockets. The others vote (signed), every one of them
makes the same change at the same step, plays on to the end with identical hashes, and their
saved logs verify offline, votes included.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanopoly import Game
from lanopoly.log import GameLog
from lanopoly.net.membership import Membership, target_mask, targets
from lanopoly.net.messages import Vote
from lanopoly.net.verify import VerifyError, verify_text

from .peers import PeerRun, run_game

REPLACE = ["--replace-after", "1"]


def _played_on(runs: list[PeerRun], gone: int) -> str:
    """Check the peers but process ``gone`` finished alike, their logs verify with the change; the final hash."""
    others = [run for i, run in enumerate(runs) if i != gone]
    for run in others:
        assert run.code == 0, f"{run.address} exited {run.code}:\n{run.err}"
        assert run.result is not None and run.result["outcome"] == "over", run.result
    replaced = ({0, 1, 2} - {run.result["me"] for run in others if run.result}).pop()
    hashes = {run.result["state_hash"] for run in others if run.result}
    assert len(hashes) == 1, [run.result for run in others]
    assert all(run.result and run.result["faults"] == [] for run in others), [run.result for run in others]
    final = hashes.pop()
    for run in others:
        verified = verify_text(run.log.read_text())
        assert verified.replaced == 1 and verified.final_hash.hex() == final
        changes = json.loads(run.log.read_text())["network"]["changes"]
        assert [c["removed"] for c in changes] == [[replaced]] and len(changes[0]["votes"]) == 2
    return final


def test_a_peer_that_dropped_is_replaced_by_a_bot_and_the_others_finish(tmp_path: Path) -> None:
    addresses = ["127.0.0.81", "127.0.0.82", "127.0.0.83"]
    runs = run_game(tmp_path, addresses, players=4, rounds=30, timeout=120, crash=(2, 60), restart=False, extra=REPLACE)
    _played_on(runs, 2)
    assert "dropped" in runs[0].err and "replaced" in runs[0].err


def test_a_peer_that_stops_revealing_is_voted_out(tmp_path: Path) -> None:
    addresses = ["127.0.0.84", "127.0.0.85", "127.0.0.86"]
    runs = run_game(tmp_path, addresses, players=3, rounds=30, timeout=120, misbehave={2: "silent:30"}, extra=REPLACE)
    _played_on(runs, 2)
    silent = runs[2]
    assert silent.result is not None and silent.result["outcome"] == "frozen"
    assert "replaced by a bot" in silent.result["freeze"]["reason"], silent.result


def test_a_tampered_vote_fails_verification(tmp_path: Path) -> None:
    addresses = ["127.0.0.87", "127.0.0.88", "127.0.0.89"]
    runs = run_game(tmp_path, addresses, players=4, rounds=30, timeout=120, crash=(2, 60), restart=False, extra=REPLACE)
    data = json.loads(runs[0].log.read_text())
    data["network"]["changes"][0]["votes"].pop()
    with pytest.raises(VerifyError, match="every present peer"):
        verify_text(json.dumps(data))


def test_a_silent_peer_voted_out_to_the_bank_resigns_its_seats_and_the_others_finish(tmp_path: Path) -> None:
    """The host alone says ``--replace-with bank`` (a joiner says ``bot``): the start record carries
    the host's choice, so every peer's automatic vote agrees on it."""
    addresses = ["127.0.0.90", "127.0.0.91", "127.0.0.92"]
    runs = run_game(
        tmp_path,
        addresses,
        players=3,
        rounds=30,
        timeout=120,
        misbehave={2: "silent:30"},
        extra=REPLACE,
        host_extra=["--replace-with", "bank"],
        joiner_extra=["--replace-with", "bot"],
    )
    assert "note: the host chose --replace-with bank for this game" in runs[1].err
    others = runs[:2]
    for run in others:
        assert run.code == 0, f"{run.address} exited {run.code}:\n{run.err}"
        assert run.result is not None and run.result["outcome"] == "over" and run.result["faults"] == []
    assert len({run.result["state_hash"] for run in others if run.result}) == 1
    silent = runs[2].result
    assert silent is not None and "voted out, the bank taking their assets" in silent["freeze"]["reason"], silent
    gone = silent["me"]  # its peer index (peers join in any order); with one seat each, also its seat
    record = json.loads(runs[0].log.read_text())
    change = record["network"]["changes"][0]
    assert (change["removed"], change["choice"], change["controller"]) == ([gone], "bank", 0 if gone else 1)
    verified = verify_text(runs[0].log.read_text())
    assert (verified.resigned, verified.replaced) == (1, 0)
    log = GameLog.from_json(runs[0].log.read_text())
    resigned = [i for i, a in enumerate(log.inputs, 1) if a.get("type") == "resign"]
    assert [log.inputs[i - 1]["player"] for i in resigned] == [gone], "its seat resigned, once"
    assert resigned[0] >= change["step"]
    game = log.new_game()
    for action in log.inputs[: resigned[0]]:
        game.apply(action)
    seat = game.player(gone)
    assert seat["bankrupt"] and seat["cash"] == 0 and seat["properties"] == []


def test_a_controller_that_plays_a_seat_voted_out_to_the_bank_is_caught(tmp_path: Path) -> None:
    addresses = ["127.0.0.93", "127.0.0.94", "127.0.0.95"]
    bank = [*REPLACE, "--replace-with", "bank"]
    runs = run_game(
        tmp_path, addresses, players=3, rounds=30, timeout=120, misbehave={0: "keep:0", 2: "silent:30"}, extra=bank
    )
    honest = runs[1].result
    assert honest is not None and honest["outcome"] == "frozen", honest
    assert "was voted out to the bank: it may only resign" in honest["freeze"]["reason"], honest
    assert honest["freeze"]["blamed"] == [0], honest
    verified = verify_text(runs[1].log.read_text())  # what it applied before stopping verifies
    assert verified.resigned == 1


def test_only_resigning_is_left_to_a_seat_voted_out_to_the_bank() -> None:
    game = Game(["ann", "bob", "cid"], seed=3)
    while game.is_chance_node:
        game.resolve_chance()
    m = Membership(3, [0, 1, 2])
    votes = {p: _vote(p, 5, [2], choice="bank") for p in (0, 1)}
    change = m.decide(votes, 5, b"h" * 32)
    assert change is not None and m.apply(change) == [2] and m.resigning == {2}
    seat = game.current_player
    assert seat != 2 and m.refusal(game, {"type": "roll", "player": seat}) is None  # other seats play on
    m.check(game, {"type": "roll", "player": seat})
    offer = {"type": "propose_trade", "player": 2, "to": 0, "give": {"cash": 5}, "get": {}}
    game.check(offer)  # the engine allows it...
    assert m.refusal(game, offer) == "seat 2 was voted out to the bank: it may only resign"  # ...the vote not
    with pytest.raises(ValueError, match="it may only resign"):
        m.check(game, offer)
    assert m.refusal(game, {"type": "resign", "player": 2}) is None
    game.apply({"type": "roll", "player": seat})
    assert game.is_chance_node and m.refusal(game, offer) is None  # it cannot resign now: no refusal


def _vote(voter: int, step: int, removed: list[int], prev: bytes = b"h" * 32, choice: str = "bot") -> Vote:
    return Vote.signed(Ed25519PrivateKey.generate(), b"g" * 16, step, prev, voter, target_mask(removed), choice)


def test_a_change_needs_every_other_present_peer_to_vote_the_same() -> None:
    m = Membership(4, [0, 1, 2, 3, 0])
    assert targets(_vote(0, 5, [1, 3])) == (1, 3)
    assert m.decide({0: _vote(0, 5, [3]), 1: _vote(1, 5, [3])}, 5, b"h" * 32) is None  # peer 2 has not voted
    votes = {0: _vote(0, 5, [3]), 1: _vote(1, 5, [3]), 2: _vote(2, 6, [3])}
    assert m.decide(votes, 5, b"h" * 32) is None  # peer 2 voted for another step
    votes[2] = _vote(2, 5, [1, 3])
    assert m.decide(votes, 5, b"h" * 32) is None  # peer 2 wants another change
    votes[2] = _vote(2, 5, [3])
    assert m.decide(votes, 5, b"x" * 32) is None  # another state
    change = m.decide(votes, 5, b"h" * 32)
    assert change is not None and change.removed == (3,) and change.controller == 0
    assert m.apply(change) == [3] and m.active == [0, 1, 2] and m.controllers == [0, 1, 2, 0, 0]
    assert m.decide({0: _vote(0, 7, [1, 2])}, 7, b"h" * 32) is None  # one peer cannot vote out two
    split = {0: _vote(0, 8, [2]), 1: _vote(1, 8, [2], choice="bank")}
    assert m.decide(split, 8, b"h" * 32) is None  # they disagree on what becomes of its seats
    split[0] = _vote(0, 8, [2], choice="bank")
    change = m.decide(split, 8, b"h" * 32)
    assert change is not None and change.choice == "bank" and change.removed == (2,)
    five = Membership(5, [0, 1, 2, 3, 4])
    change = five.decide({p: _vote(p, 3, [1, 4]) for p in (0, 2, 3)}, 3, b"h" * 32)  # three out-vote two
    assert change is not None and change.removed == (1, 4) and change.controller == 0
