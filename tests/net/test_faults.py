"""Faulty peers, as separate processes: each fault is detected and attributed to the right peer.

- A peer that sends an action for a seat it does not control (signed with its own key, the only
  one it has): every honest peer rejects it because the seat's controller's key does not verify,
  finds the real signer by its signature, logs a ``forged_action`` fault naming it, and the game
  goes on to the same final hash.
- A peer that re-sends, byte for byte, a signed action another peer made earlier and one of its
  own earlier signed actions: both are rejected as ``replayed`` (wrong link, already played
  step) and attributed to the replaying peer; the game goes on to the same final hash.
- A peer that announces a wrong state hash in an ack: the honest peers freeze at that step, name
  that peer (the majority disagrees with it), and write desync reports with every peer's hashes.
"""

from __future__ import annotations

import json
from pathlib import Path

from lanopoly.log import GameLog

from .peers import run_game


def test_forged_action_is_rejected_and_attributed(tmp_path: Path) -> None:
    runs = run_game(
        tmp_path, ["127.0.0.41", "127.0.0.42", "127.0.0.43"], players=3, rounds=20, misbehave={2: "forge:5"}
    )
    results = [run.result for run in runs]
    assert all(r is not None for r in results), [run.err for run in runs]
    forger = results[2]["me"]  # type: ignore[index]
    for run, result in zip(runs, results, strict=True):
        assert run.code == 0 and result is not None and result["outcome"] == "over", run.err
        if result["me"] != forger:
            forged = [f for f in result["faults"] if f["kind"] == "forged_action"]
            assert len(forged) == 1 and forged[0]["peer"] == forger, result["faults"]
            assert "controlled by peer" in forged[0]["detail"] and "forged" not in run.out
            assert forged[0]["detail"].startswith("signed an action for seat")
    assert len({r["state_hash"] for r in results if r}) == 1
    assert GameLog.load(runs[0].log).replay().state_hash().hex() == results[0]["state_hash"]  # type: ignore[index]


def test_replayed_signed_actions_are_rejected_and_attributed(tmp_path: Path) -> None:
    runs = run_game(
        tmp_path, ["127.0.0.61", "127.0.0.62", "127.0.0.63"], players=3, rounds=20, misbehave={2: "replay:30"}
    )
    results = [run.result for run in runs]
    assert all(r is not None for r in results), [run.err for run in runs]
    replayer = results[2]["me"]  # type: ignore[index]
    for run, result in zip(runs, results, strict=True):
        assert run.code == 0 and result is not None and result["outcome"] == "over", run.err
        if result["me"] == replayer:
            assert result["faults"] == []
            continue
        assert result["faults"], run.err
        assert all(f["peer"] == replayer and f["kind"] == "replayed" for f in result["faults"]), result["faults"]
        assert len(result["faults"]) == 2 and all("a replay" in f["detail"] for f in result["faults"])
    assert len({r["state_hash"] for r in results if r}) == 1


def test_wrong_state_hash_in_ack_freezes_and_names_the_liar(tmp_path: Path) -> None:
    lie_at = 40
    runs = run_game(
        tmp_path, ["127.0.0.51", "127.0.0.52", "127.0.0.53"], players=3, rounds=20, misbehave={2: f"lie:{lie_at}"}
    )
    results = [run.result for run in runs]
    assert all(r is not None for r in results), [run.err for run in runs]
    liar = results[2]["me"]  # type: ignore[index]
    for run, result in zip(runs, results, strict=True):
        assert run.code == 3 and result is not None and result["outcome"] == "frozen", run.err
        if result["me"] == liar:
            assert "froze the session" in result["freeze"]["reason"]
            continue
        freeze = result["freeze"]
        assert freeze["step"] == lie_at and freeze["blamed"] == [liar], freeze
        assert freeze["hashes"][str(liar)][1] == "00" * 32
        report = json.loads(Path(result["report"]).read_text())
        assert report["step"] == lie_at and [b["peer"] for b in report["blamed"]] == [liar]
        assert len(report["hashes"]) == 3 and len(report["log"]["steps"]) == lie_at
        assert "state hashes differ" in report["reason"]
        assert "desync report" in run.err
