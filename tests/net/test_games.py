"""Full bot games over real TCP between separate peer processes on distinct loopback addresses.

Every peer must reach game over with the same final state hash, and each saved log must replay
offline (``GameLog.replay``, which checks every step's hash) to that same hash; the host's log also
passes ``lanopoly verify`` (every signature, reveal and seed). 2, 3, 4 and 8 peers.

The bots act out of turn too (``SimpleBot.interject``): they raise auctions and offer and answer
trades while another seat is to act, several peers at once. With 4 peers the test checks that
this happened (bids and trade moves out of turn, by several peers, with contested steps) and that
``lanopoly verify`` accepted those out-of-turn moves.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from lanopoly.log import GameLog
from lanopoly.net.verify import verify_text

from .peers import run_game


@pytest.mark.parametrize(
    ("addresses", "players", "by_name"),
    [
        (["127.0.0.11", "127.0.0.12"], 3, True),
        (["127.0.0.21", "127.0.0.22", "127.0.0.23"], 4, False),
        (["127.0.0.31", "127.0.0.32", "127.0.0.33", "127.0.0.34"], 4, False),
        ([f"127.0.0.{i}" for i in range(71, 79)], 8, False),
    ],
    ids=["2-peers-join-by-name", "3-peers", "4-peers", "8-peers"],
)
def test_bot_game_reaches_the_end_with_identical_hashes(
    tmp_path: Path, addresses: list[str], players: int, by_name: bool
) -> None:
    rounds = 5 if len(addresses) == 8 else 30  # 8 processes share 2 cores here: keep the biggest game short
    thrifty = None
    if len(addresses) == 4:
        # This game must show out-of-turn bids and trade moves, which the dice may not bring in 30
        # rounds (about 1 game in 8 had none of one kind): one honest peer declines its first
        # purchases so that auctions surely come, and 60 rounds leave room for trades (15 of 15
        # trial games had 2 or more).
        thrifty, rounds = {1: "thrifty:3"}, 60
    runs = run_game(
        tmp_path, addresses, players=players, rounds=rounds, timeout=90, join_by_name=by_name, misbehave=thrifty
    )
    for run in runs:
        assert run.code == 0, f"{run.address} exited {run.code}:\n{run.err}"
        assert run.result is not None and run.result["outcome"] == "over"
        assert run.result["faults"] == []
    hashes = {run.result["state_hash"] for run in runs if run.result}
    steps = {run.result["step"] for run in runs if run.result}
    assert len(hashes) == 1 and len(steps) == 1, [run.result for run in runs]
    assert {run.result["me"] for run in runs if run.result} == set(range(len(addresses)))
    final = hashes.pop()
    for run in runs:
        game = GameLog.load(run.log).replay()
        assert game.is_over and game.state_hash().hex() == final
    verified = verify_text(runs[0].log.read_text())  # signatures, reveals and seeds, offline
    assert verified.networked and verified.peers == len(addresses) and verified.final_hash.hex() == final
    results = [run.result for run in runs if run.result]
    assert len({json.dumps(r["interjections"], sort_keys=True) for r in results}) == 1  # the same on every peer
    if len(addresses) == 4:
        out_of_turn = results[0]["interjections"]
        assert out_of_turn.get("bid", 0) > 0, out_of_turn
        assert sum(out_of_turn.get(k, 0) for k in ("propose_trade", "accept_trade", "reject_trade")) > 0, out_of_turn
        assert len(results[0]["interjectors"]) >= 2 and results[0]["contested"] > 0, results[0]
        assert verified.out_of_turn == sum(out_of_turn.values())
