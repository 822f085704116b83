"""Proof of equivocation: two different messages signed by one peer for the same slot.

An honest peer signs at most one message per slot: one ``ACK`` per step, and one ``ACTION`` per
step (its in-turn action, or the interjection for that step carried in its previous ack: the rule
of ``order`` guarantees that a peer whose interjection was not taken is never asked for an in-turn
action of that step). So two valid signatures by the same key over different bodies of one slot
prove that the peer told different peers different things, whoever relays them: the links are
authenticated (AEAD), but only signatures can be shown to a third party.

Ack signatures are not checked when acks arrive (the link already authenticates them); they are
checked here, lazily, when the peers exchange what they hold after the inputs of a step diverged.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from lanopoly.net import secure
from lanopoly.net.messages import Ack, ActionMsg, Signed

Slot = tuple[str, int]
"""("ack" or "action", step)."""


@dataclass(frozen=True)
class Proof:
    """``peer`` signed both ``first`` and ``second``, two different messages for ``slot``."""

    peer: int
    slot: Slot
    first: Signed
    second: Signed

    def describe(self) -> str:
        kind, step = self.slot
        return f"two different {'ACKs' if kind == 'ack' else 'ACTIONs'} for step {step}, both signed by its key"

    def to_json(self) -> dict[str, Any]:
        """The proof as JSON: each message as [type, base64 body, base64 signature] (checkable offline)."""

        def item(m: Signed) -> list[str]:
            kind = "ACK" if isinstance(m, Ack) else "ACTION"
            return [kind, base64.b64encode(m.body).decode(), base64.b64encode(m.signature).decode()]

        return {"peer": self.peer, "slot": list(self.slot), "signed": [item(self.first), item(self.second)]}


def slot_of(message: Signed) -> Slot:
    return ("ack" if isinstance(message, Ack) else "action", message.step)


def signer_of(message: Signed, controllers: Sequence[int]) -> int | None:
    """Who must have signed it: the acking peer, or the controller of the action's seat."""
    if isinstance(message, Ack):
        return message.peer
    return controllers[message.seat] if message.seat < len(controllers) else None


def _expand(messages: Iterable[Signed]) -> list[Signed]:
    """The messages and the interjections nested in acks (each is signed on its own)."""
    out: list[Signed] = []
    for m in messages:
        out.append(m)
        if isinstance(m, Ack) and m.interjection is not None:
            out.append(m.interjection)
    return out


def find_proofs(
    messages: Iterable[Signed], controllers: Sequence[int], keys: Sequence[secure.PublicKey | None]
) -> list[Proof]:
    """Every peer that signed two different messages for one slot, with the two as proof.

    Signatures are checked here (and only for slots with two or more distinct bodies): a message
    whose signature does not verify with its signer's key proves nothing and is ignored.
    """
    by_slot: dict[tuple[int, Slot], dict[bytes, Signed]] = {}
    for m in _expand(messages):
        signer = signer_of(m, controllers)
        if signer is None or signer >= len(keys):
            continue
        by_slot.setdefault((signer, slot_of(m)), {}).setdefault(m.body, m)
    proofs = []
    for (signer, slot), bodies in sorted(by_slot.items(), key=lambda kv: kv[0]):
        if len(bodies) < 2:
            continue
        valid = [m for m in bodies.values() if secure.verify(keys[signer], m.signature, m.signed_data)]
        if len(valid) >= 2:
            proofs.append(Proof(signer, slot, valid[0], valid[1]))
    return proofs


def check_proof(proof: Proof, controllers: Sequence[int], keys: Sequence[secure.PublicKey | None]) -> bool:
    """Whether a proof holds: two different bodies, same slot, both signed by the blamed peer's key."""
    pair = (proof.first, proof.second)
    return (
        proof.first.body != proof.second.body
        and all(slot_of(m) == proof.slot and signer_of(m, controllers) == proof.peer for m in pair)
        and all(secure.verify(keys[proof.peer], m.signature, m.signed_data) for m in pair)
        and isinstance(proof.first, ActionMsg | Ack)
    )
