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
- A peer that interjects an out-of-range bid (correctly signed, in its ack): every peer, itself
  included, rejects it with the engine's reason and logs an ``illegal_action`` fault naming it; the
  game goes on to the same final hash.
- A peer that sends different things to different peers (an out-of-turn action in its ack to one
  peer only; or two different in-turn actions): the inputs diverge, the peers exchange evidence, and
  every honest peer blames it with two messages it signed for the same slot; the proof in the
  result and the desync report checks offline against the keys of the signed start record.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from lanopoly.log import GameLog
from lanopoly.net import secure
from lanopoly.net.evidence import Proof, check_proof
from lanopoly.net.framing import unpack
from lanopoly.net.messages import Ack, ActionMsg, Kind, StartRecord, parse
from lanopoly.net.verify import verify_text

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


def test_wrong_state_hash_in_ack_names_the_liar_and_the_honest_majority_plays_on(tmp_path: Path) -> None:
    lie_at = 40
    runs = run_game(
        tmp_path, ["127.0.0.51", "127.0.0.52", "127.0.0.53"], players=3, rounds=20, misbehave={2: f"lie:{lie_at}"}
    )
    results = [run.result for run in runs]
    assert all(r is not None for r in results), [run.err for run in runs]
    liar = results[2]["me"]  # type: ignore[index]
    honest = [(run, r) for run, r in zip(runs, results, strict=True) if r is not None and r["me"] != liar]
    liar_result = results[2]
    assert runs[2].code == 3 and liar_result is not None and liar_result["outcome"] == "frozen"
    assert "replaced by a bot" in liar_result["freeze"]["reason"]
    for run, result in honest:
        assert run.code == 0 and result["outcome"] == "over", run.err
        assert [(f["kind"], f["peer"], f["step"]) for f in result["faults"]] == [("diverged", liar, lie_at)]
        report = json.loads(next(tmp_path.glob(f"desync-*-peer{result['me']}-step{lie_at}.json")).read_text())
        assert report["step"] == lie_at and [b["peer"] for b in report["blamed"]] == [liar]
        assert report["hashes"][str(liar)]["state_hash"] == "00" * 32 and len(report["log"]["steps"]) == lie_at
        assert "state hashes differ" in report["reason"] and "plays on" in report["reason"]
        assert verify_text(run.log.read_text()).replaced == 1
    assert len({r["state_hash"] for _, r in honest}) == 1


def test_out_of_range_bid_interjection_is_rejected_and_the_game_goes_on(tmp_path: Path) -> None:
    runs = run_game(
        tmp_path, ["127.0.0.91", "127.0.0.92", "127.0.0.93"], players=3, rounds=30, misbehave={2: "badbid:1"}
    )
    results = [run.result for run in runs]
    assert all(r is not None for r in results), [run.err for run in runs]
    bidder = results[2]["me"]  # type: ignore[index]
    for run, result in zip(runs, results, strict=True):
        assert run.code == 0 and result is not None and result["outcome"] == "over", run.err
        illegal = [f for f in result["faults"] if f["kind"] == "illegal_action"]
        assert len(illegal) == 1 and illegal[0]["peer"] == bidder, result["faults"]
        assert "interjected an illegal action {'type': 'bid'" in illegal[0]["detail"], illegal
        assert "(your cash)" in illegal[0]["detail"]
        assert result["faults"] == illegal
    assert len({r["state_hash"] for r in results if r}) == 1
    assert verify_text(runs[0].log.read_text()).final_hash.hex() == results[0]["state_hash"]  # type: ignore[index]


def _start_keys(log: Path) -> tuple[StartRecord, list[object]]:
    network = json.loads(log.read_text())["network"]
    record = parse(unpack(base64.b64decode(network["start"])))
    assert isinstance(record, StartRecord)
    return record, [secure.load_public(p.sign_key) for p in record.peers]


def _proof(data: dict[str, object]) -> Proof:
    messages: list[ActionMsg | Ack] = []
    for kind, body, sig in data["signed"]:  # type: ignore[attr-defined]
        code = Kind.ACK if kind == "ACK" else Kind.ACTION
        message = parse([code, unpack(base64.b64decode(body))[1], base64.b64decode(body), base64.b64decode(sig)])
        assert isinstance(message, ActionMsg | Ack)
        messages.append(message)
    slot = data["slot"]
    return Proof(data["peer"], (slot[0], slot[1]), messages[0], messages[1])  # type: ignore[arg-type,index]


@pytest.mark.parametrize(
    ("mode", "slot"), [("equivocate:30", "ack"), ("equivocate-action:30", "action")], ids=["acks", "actions"]
)
def test_different_messages_to_different_peers_are_proven_by_two_signatures(
    tmp_path: Path, mode: str, slot: str
) -> None:
    addresses = ["127.0.0.94", "127.0.0.95", "127.0.0.96"]
    runs = run_game(tmp_path, addresses, players=3, rounds=30, misbehave={2: mode})
    results = [run.result for run in runs]
    assert all(r is not None for r in results), [run.err for run in runs]
    cheat = results[2]["me"]  # type: ignore[index]
    record, keys = _start_keys(runs[0].log)
    for run, result in zip(runs, results, strict=True):
        assert run.code == 3 and result is not None and result["outcome"] == "frozen", run.err
        if result["me"] == cheat:
            continue
        freeze = result["freeze"]
        assert freeze["blamed"] == [cheat] and "equivocation" in freeze["reason"], freeze
        assert len(freeze["proofs"]) >= 1 and all(p["peer"] == cheat for p in freeze["proofs"])
        proof = _proof(freeze["proofs"][0])
        assert proof.slot[0] == slot and check_proof(proof, record.controllers, keys)  # type: ignore[arg-type]
        report = json.loads(Path(result["report"]).read_text())
        assert [b["peer"] for b in report["blamed"]] == [cheat] and report["proofs"] == freeze["proofs"]
