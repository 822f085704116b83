"""Signed proof that a peer misbehaved, which anyone holding the genesis can check offline.

An honest peer signs at most one message per slot (signer, slot kind, step): one move, one reveal,
one ack, one vote for a step; one share of each dealer. So two valid signatures by one key over
different bodies of one slot prove that the peer told different peers different things
(``equivocation``), whoever passes them on. A move or reveal nested in an ack is signed by the
ack's signature: its proof is the ack that carries it (two acks of one step nesting different
moves are already two different acks in one slot). A released share that does not match its dealer's
commitments proves its holder lied (``bad_share``); shares that match yet rebuild a secret whose
chain does not reach the dealer's anchor prove the dealer dealt another secret (``bad_deal``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lanopoly.net.chain import HashChain
from lanopoly.net.genesis import Genesis, b64, unb64
from lanopoly.net.protocol import Ack, Forward, Share, Signed, decode_signed
from lanopoly.net.shares import check_share, combine, threshold
from lanopoly.net.wire import WireError

Verify = Callable[[bytes, bytes, bytes], bool]


@dataclass(frozen=True)
class Proof:
    """``peer`` misbehaved (``kind``), as ``messages`` (signed) show."""

    peer: int
    kind: str
    messages: tuple[Signed, ...]

    def describe(self) -> str:
        if self.kind == "equivocation":
            _, slot, step = self.messages[0].slot
            return f"signed two different {slot} messages for step {step}"
        if self.kind == "bad_share":
            return "released a share that does not match its dealer's commitments"
        return "dealt shares of another secret than its hash chain's"

    def to_json(self) -> dict[str, Any]:
        return {
            "peer": self.peer,
            "kind": self.kind,
            "signed": [[b64(body), b64(signature)] for body, signature in (m.pair() for m in self.messages)],
        }


def expand(messages: Iterable[Signed]) -> list[Signed]:
    """The messages and those nested in them (an ack's move or reveal, a forward's offer)."""
    out: list[Signed] = []
    for m in messages:
        out.append(m)
        if isinstance(m, Ack) and m.nested is not None:
            out.append(m.nested)
        elif isinstance(m, Forward):
            out.append(m.offer)
    return out


class SlotBook:
    """The first valid message seen in each slot; a second, different one is an equivocation."""

    def __init__(self) -> None:
        self._slots: dict[tuple[int, str, int], Signed] = {}

    def file(self, message: Signed) -> Proof | None:
        """Remember ``message`` (already verified); a Proof if its slot held another message."""
        slot = message.slot
        seen = self._slots.get(slot)
        if seen is None:
            self._slots[slot] = message
            return None
        if seen.body == message.body:
            return None  # the same message (nested and alone, or carried by one ack or another)
        return Proof(message.signer, "equivocation", (seen, message))

    def forget_before(self, step: int) -> None:
        """Drop the slots of steps before ``step`` (older steps are settled)."""
        if any(s < step for _, _, s in self._slots):
            self._slots = {k: v for k, v in self._slots.items() if k[2] >= step}


def find_proofs(messages: Iterable[Signed], keys: Sequence[bytes], verify: Verify) -> list[Proof]:
    """Every equivocation among ``messages`` (signatures checked here; invalid ones prove nothing)."""
    book = SlotBook()
    proofs: dict[tuple[int, str, int], Proof] = {}
    for m in expand(messages):
        if m.signer >= len(keys) or not verify(keys[m.signer], m.signed_data, m.signature):
            continue
        proof = book.file(m)
        if proof is not None:
            proofs.setdefault(m.slot, proof)
    return [proofs[k] for k in sorted(proofs)]


def check_proof(proof: Proof, genesis: Genesis, verify: Verify) -> bool:
    """Whether ``proof`` holds given the genesis' keys and commitments (offline)."""
    keys = genesis.keys
    if not proof.messages or not 0 <= proof.peer < len(keys):
        return False
    if proof.kind == "equivocation":
        if len(proof.messages) != 2:
            return False
        first, second = proof.messages
        return (
            first.body != second.body
            and first.game_id == second.game_id == genesis.game_id
            and first.slot == second.slot
            and first.signer == proof.peer
            and all(verify(keys[proof.peer], m.signed_data, m.signature) for m in proof.messages)
        )
    if proof.kind == "bad_share":
        (share,) = proof.messages if len(proof.messages) == 1 else (None,)
        return (
            isinstance(share, Share)
            and share.signer == proof.peer
            and share.game_id == genesis.game_id
            and share.dealer < len(keys)
            and verify(keys[proof.peer], share.signed_data, share.signature)
            and not check_share(genesis.commitments[share.dealer], share.signer, share.value)
        )
    if proof.kind == "bad_deal":
        t = threshold(len(keys))
        good = [
            m
            for m in proof.messages
            if isinstance(m, Share)
            and m.dealer == proof.peer
            and m.game_id == genesis.game_id
            and verify(keys[m.signer], m.signed_data, m.signature)
            and check_share(genesis.commitments[proof.peer], m.signer, m.value)
        ]
        holders = {m.signer: m.value for m in good}
        if t is None or len(holders) < t:
            return False
        secret = combine(holders, t)
        anchor = genesis.record.peers[proof.peer].anchor
        return HashChain.of(genesis.record.chain_length, secret).anchor != anchor
    return False


def proof_from_json(data: Any) -> Proof | None:
    """A proof from its JSON form, or None when malformed."""
    try:
        messages = tuple(decode_signed(unb64(b, "body"), unb64(s, "signature")) for b, s in data["signed"])
        return Proof(int(data["peer"]), str(data["kind"]), _nested_slot(messages))
    except (KeyError, TypeError, ValueError, WireError):
        return None


def _nested_slot(messages: tuple[Signed, ...]) -> tuple[Signed, ...]:
    """A proof's messages as they prove: a nested move or reveal is saved as its carrier, so an ack
    beside a message of another slot stands for the message it nests (the proof is of that slot)."""
    if len(messages) != 2 or messages[0].slot == messages[1].slot:
        return messages
    out = tuple(m.nested if isinstance(m, Ack) and m.nested is not None else m for m in messages)
    return out if out[0].slot == out[1].slot else messages
