"""The deterministic rules of out-of-turn play and of proof: which out-of-turn move takes a step,
and which pairs of signed messages prove an equivocation.

Pure functions on data every peer holds, so no network here: the order of
``order.interjection_order`` (seat order after the seat to act, ties to the lower peer), the cap of
``interjections_open``, and ``core/evidence`` (two different bodies signed by one key for one slot
are proof, checkable against the genesis; one body twice, or a bad signature, is not).
"""

from __future__ import annotations

import json

import pytest

from lanopoly.net import protocol as p8
from lanopoly.net.core.evidence import Proof, check_proof, find_proofs, proof_from_json
from lanopoly.net.core.order import interjection_order, interjections_open
from lanopoly.net.genesis import Genesis
from lanopoly.net.keys import ED25519

from .test_protocol9 import GAME, record


@pytest.mark.parametrize(
    ("claims", "current", "seats", "expected"),
    [
        ({0: 2, 1: 3, 2: 0}, 1, 4, [0, 1, 2]),  # seats 2, 3, then 0 after the seat to act (1)
        ({0: 1, 1: 1}, 0, 4, [0, 1]),  # the same seat claimed twice: lower peer first
        ({0: 2, 1: 9}, 0, 4, [0, 1]),  # a seat that does not exist sorts last
        ({2: 0, 1: 3}, 3, 4, [2, 1]),  # the seat to act itself comes last
    ],
)
def test_interjection_order_is_seat_order_after_the_seat_to_act(
    claims: dict[int, int], current: int, seats: int, expected: list[int]
) -> None:
    assert interjection_order(claims, current, seats) == expected


def test_interjections_stop_after_a_run_as_long_as_the_peers() -> None:
    assert interjections_open(0, 3) and interjections_open(2, 3)
    assert not interjections_open(3, 3)


def _genesis() -> tuple[Genesis, list[object]]:
    rec, keys, _ = record(3)
    start = rec.encode()
    return Genesis(start, rec, ((), (), ()), (bytes(64),) * 3), keys


def test_two_different_signed_messages_for_one_slot_prove_equivocation() -> None:
    genesis, keys = _genesis()
    liar = keys[1]
    a = p8.sign_ack(liar, GAME, 5, 1, bytes(32), bytes(32), None)  # type: ignore[arg-type]
    b = p8.sign_ack(liar, GAME, 5, 1, bytes(32), b"\x01" * 32, None)  # type: ignore[arg-type]
    honest = p8.sign_ack(keys[0], GAME, 5, 0, bytes(32), bytes(32), None)  # type: ignore[arg-type]
    proofs = find_proofs([a, honest, b, a], genesis.keys, ED25519.verify)
    assert [p.peer for p in proofs] == [1] and proofs[0].kind == "equivocation"
    assert check_proof(proofs[0], genesis, ED25519.verify)
    # The same body twice, or a second body that its key did not sign, proves nothing.
    forged = p8.decode_signed(b.body, a.signature)
    assert find_proofs([a, a, forged], genesis.keys, ED25519.verify) == []
    assert not check_proof(Proof(1, "equivocation", (a, forged)), genesis, ED25519.verify)
    # A move and a forward by the leader for one step are one slot ("move").
    move = p8.sign_action(liar, GAME, 6, 1, bytes(32), 1, {"type": "roll", "player": 1})  # type: ignore[arg-type]
    offer = p8.sign_action(keys[2], GAME, 6, 2, bytes(32), 2, {"type": "pass", "player": 2})  # type: ignore[arg-type]
    forward = p8.sign_forward(liar, GAME, 6, 1, bytes(32), offer)  # type: ignore[arg-type]
    (proof,) = find_proofs([move, forward], genesis.keys, ED25519.verify)
    assert proof.peer == 1 and check_proof(proof, genesis, ED25519.verify)


def test_a_move_nested_in_an_ack_is_proven_by_the_ack_that_carries_it() -> None:
    """Protocol 9: a nested move has no signature of its own. Two acks of one step nesting different
    moves are two signed acks in one slot; an ack nesting a move beside another move signed alone
    for that step are two moves in one slot, proven by the ack and the move, also once saved (a
    saved proof holds the ack, which stands for the move it carries). One move nested in an ack
    and signed alone too (the same body) proves nothing."""
    genesis, keys = _genesis()
    liar = keys[1]
    roll = p8.unsigned_body(p8.Kind.ACTION, GAME, 6, 1, bytes(32), 1, {"type": "roll", "player": 1})
    a = p8.sign_ack(liar, GAME, 5, 1, bytes(32), bytes(32), roll)  # type: ignore[arg-type]
    pay = {"type": "pay_bail", "player": 1}
    b = p8.sign_ack(
        liar, GAME, 5, 1, bytes(32), bytes(32), p8.unsigned_body(p8.Kind.ACTION, GAME, 6, 1, bytes(32), 1, pay)
    )  # type: ignore[arg-type]
    (proof,) = find_proofs([a, b], genesis.keys, ED25519.verify)[:1]
    assert proof.peer == 1 and check_proof(proof, genesis, ED25519.verify)
    alone = p8.sign_action(liar, GAME, 6, 1, bytes(32), 1, pay)  # type: ignore[arg-type]
    (proof,) = find_proofs([a, alone], genesis.keys, ED25519.verify)
    assert proof.messages[0].carrier is a and check_proof(proof, genesis, ED25519.verify)
    saved = proof_from_json(json.loads(json.dumps(proof.to_json())))
    assert saved is not None and saved.messages[0].slot == saved.messages[1].slot
    assert check_proof(saved, genesis, ED25519.verify)
    same = p8.sign_action(liar, GAME, 6, 1, bytes(32), 1, {"type": "roll", "player": 1})  # type: ignore[arg-type]
    assert same.body == a.nested.body and find_proofs([a, same], genesis.keys, ED25519.verify) == []  # type: ignore[union-attr]
