"""The deterministic rules of out-of-turn play: which interjection takes a step, and what proves equivocation.

Pure functions on shared data, so no network here: the order of ``order.interjection_order`` (seat
order after the seat to act, ties to the lower peer), the cap of ``interjections_open``, the wire
round trip of signed acks carrying an interjection, and ``evidence.find_proofs`` (two different
bodies signed by one key for one slot are a proof; one body twice, or a bad signature, is not).
"""

from __future__ import annotations

import secrets

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanopoly.net import PROTOCOL_VERSION, secure
from lanopoly.net.evidence import check_proof, find_proofs
from lanopoly.net.framing import pack, unpack
from lanopoly.net.messages import Ack, ActionMsg, Evidence, Kind, ProtocolError, Reveal, parse
from lanopoly.net.order import interjection_order, interjections_open

GAME = secrets.token_bytes(16)
PREV = bytes(32)


@pytest.mark.parametrize(
    ("claims", "current", "seats", "expected"),
    [
        ({0: 3, 1: 1, 2: 2}, 0, 4, [1, 2, 0]),  # seats 1, 2, 3 after seat 0
        ({0: 3, 1: 1, 2: 2}, 2, 4, [0, 1, 2]),  # seats 3, then round to 1; the seat to act last
        ({5: 1, 3: 1}, 0, 4, [3, 5]),  # two claims for one seat: lower peer first
        ({0: 9, 1: 0}, 3, 4, [1, 0]),  # a seat that does not exist sorts last
        ({}, 0, 2, []),
    ],
)
def test_interjection_order_is_seat_order_after_the_seat_to_act(
    claims: dict[int, int], current: int, seats: int, expected: list[int]
) -> None:
    assert interjection_order(claims, current, seats) == expected
    assert interjection_order(dict(reversed(list(claims.items()))), current, seats) == expected  # arrival order


def test_interjections_stop_after_a_run_as_long_as_the_peers() -> None:
    assert [interjections_open(run, 3) for run in range(5)] == [True, True, True, False, False]


def _action(key: Ed25519PrivateKey, step: int, seat: int, amount: int) -> ActionMsg:
    return ActionMsg.signed(key, GAME, step, PREV, seat, {"type": "bid", "player": seat, "amount": amount})


def test_a_signed_ack_carries_its_interjection_over_the_wire() -> None:
    key = Ed25519PrivateKey.generate()
    nested = _action(key, 8, 2, 120)
    ack = Ack.signed(key, GAME, 7, 1, bytes(32), bytes(32), nested)
    back = parse(unpack(pack(ack.to_wire())))
    assert back == ack and isinstance(back, Ack) and back.interjection == nested
    assert secure.verify(secure.load_public(secure.public_bytes(key)), back.signature, back.signed_data)
    evidence = Evidence(GAME, 8, (nested, ack))
    assert parse(unpack(pack(evidence.to_wire()))) == evidence
    with pytest.raises(ProtocolError):
        parse([*ack.to_wire()[:2], ack.body[:-1], ack.signature])  # a truncated body


def test_a_signed_ack_carries_the_next_chance_step_s_reveal_over_the_wire() -> None:
    key = Ed25519PrivateKey.generate()
    reveal = Reveal.signed(key, GAME, 8, PREV, 1, 3, bytes(range(32)))
    ack = Ack.signed(key, GAME, 7, 1, bytes(32), bytes(32), reveal=reveal)
    back = parse(unpack(pack(ack.to_wire())))
    assert back == ack and isinstance(back, Ack) and back.reveal == reveal and back.interjection is None
    with pytest.raises(ValueError, match="not both"):
        Ack.signed(key, GAME, 7, 1, bytes(32), bytes(32), _action(key, 8, 2, 120), reveal)
    forged = pack([Kind.ACK, PROTOCOL_VERSION, GAME, 7, 1, bytes(32), bytes(32), [b"\xc1", bytes(64)]])
    with pytest.raises(ProtocolError, match="nested message"):
        parse([Kind.ACK, PROTOCOL_VERSION, forged, bytes(64)])  # an undecodable nested body


def test_two_different_signed_messages_for_one_slot_prove_equivocation() -> None:
    keys = [Ed25519PrivateKey.generate() for _ in range(3)]
    public = [secure.load_public(secure.public_bytes(k)) for k in keys]
    controllers = [0, 1, 2]
    with_bid = Ack.signed(keys[1], GAME, 7, 1, bytes(32), bytes(32), _action(keys[1], 8, 1, 50))
    without = Ack.signed(keys[1], GAME, 7, 1, bytes(32), bytes(32))
    honest = Ack.signed(keys[0], GAME, 7, 0, bytes(32), bytes(32))
    assert find_proofs([with_bid, honest, honest, with_bid], controllers, public) == []  # the same body twice
    proofs = find_proofs([with_bid, honest, without], controllers, public)
    assert [(p.peer, p.slot) for p in proofs] == [(1, ("ack", 7))]
    assert check_proof(proofs[0], controllers, public)
    assert not check_proof(proofs[0], controllers, [public[0], public[0], public[2]])

    a, b = _action(keys[2], 9, 2, 10), _action(keys[2], 9, 2, 11)
    assert [(p.peer, p.slot) for p in find_proofs([a, b], controllers, public)] == [(2, ("action", 9))]
    forged = _action(keys[0], 9, 2, 12)  # seat 2's action signed by peer 0: proves nothing against peer 2
    assert find_proofs([a, forged], controllers, public) == []
