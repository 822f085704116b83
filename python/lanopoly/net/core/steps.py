"""The signed messages a peer has received for the steps not yet settled, and the ones it signed.

``Inbox`` files verified messages by step and signer: moves sent directly (``ACTION``/``FORWARD``),
reveals (alone or nested in an ack), acks, the out-of-turn moves nested in acks, and the offers a
leader receives. ``Mine`` keeps every message this peer signed for those steps, with how it went
out, so that it can repeat them exactly on a new link and never sign a second message for a slot
(also after a restart: they are restored from the journal).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from lanopoly.net.protocol import Ack, Action, Forward, Kind, Reveal, Signed

SEND_ORDER = {Kind.VOTE: 0, Kind.COMMIT: 0, Kind.SHARE: 1, Kind.ACTION: 2, Kind.FORWARD: 2, Kind.REVEAL: 3, Kind.ACK: 4}
"""Within a step, the order in which repeated messages go out: a step's move before its ack."""


class Inbox:
    """Verified messages of the steps in play, by step then signer."""

    def __init__(self) -> None:
        self.moves: dict[int, dict[int, Action | Forward]] = {}
        self.reveals: dict[int, dict[int, Reveal]] = {}
        self.acks: dict[int, dict[int, Ack]] = {}
        self.nested: dict[int, dict[int, Action]] = {}
        """Out-of-turn moves for a step, nested in the signers' acks of the step before."""
        self.offers: dict[int, dict[int, Action]] = {}
        self.direct: set[tuple[int, int]] = set()
        """(step, signer) of the acks that came on their signer's own link."""
        self.sent_moves: set[tuple[int, int]] = set()
        """(step, signer) of the moves that came on their signer's own link: the signer sent them
        (one passed on by another may be an offer, which its signer sent to the leader alone)."""
        self._seen: dict[int, set[Signed]] = {}

    def seen(self, message: Signed) -> bool:
        """Whether ``message`` was taken already (``taken``)."""
        return message in self._seen.get(message.step, ())

    def taken(self, message: Signed) -> None:
        """Remember that ``message`` was verified and filed (it is not taken again)."""
        self._seen.setdefault(message.step, set()).add(message)

    def add_move(self, message: Action | Forward, direct: bool = False) -> None:
        self.moves.setdefault(message.step, {}).setdefault(message.signer, message)
        if direct:
            self.sent_moves.add((message.step, message.signer))

    def sent_by_signer(self, step: int, peer: int) -> bool:
        """Whether ``peer``'s move for ``step`` came on its own link (``add_move``)."""
        return (step, peer) in self.sent_moves

    def add_reveal(self, reveal: Reveal) -> None:
        self.reveals.setdefault(reveal.step, {}).setdefault(reveal.signer, reveal)

    def add_ack(self, ack: Ack, direct: bool = False) -> None:
        self.acks.setdefault(ack.step, {}).setdefault(ack.signer, ack)
        if direct:
            self.direct.add((ack.step, ack.signer))
        if isinstance(ack.nested, Reveal):
            self.add_reveal(ack.nested)
        elif isinstance(ack.nested, Action):
            self.nested.setdefault(ack.nested.step, {}).setdefault(ack.signer, ack.nested)

    def add_offer(self, offer: Action) -> None:
        self.offers.setdefault(offer.step, {}).setdefault(offer.signer, offer)

    def acked_directly(self, step: int, peer: int) -> bool:
        return (step, peer) in self.direct

    def held_by(self, peer: int, since: int) -> list[Signed]:
        """``peer``'s messages for steps from ``since`` on (to pass on for it)."""
        out: list[Signed] = []
        for box in (self.moves, self.reveals, self.acks):
            for step, by in box.items():
                if step >= since and peer in by:
                    out.append(by[peer])
        return out

    def of_step(self, step: int) -> list[Signed]:
        """Everything held for ``step`` (evidence)."""
        out: list[Signed] = []
        for box in (self.moves, self.reveals, self.acks, self.offers):
            out.extend(box.get(step, {}).values())
        return out

    def forget_before(self, step: int) -> None:
        for box in (self.moves, self.reveals, self.acks, self.nested, self.offers):
            for s in [s for s in box if s < step]:
                del box[s]
        self.direct = {d for d in self.direct if d[0] >= step}
        self.sent_moves = {d for d in self.sent_moves if d[0] >= step}
        for s in [s for s in self._seen if s < step]:
            del self._seen[s]

    def drop_from(self, peer: int) -> None:
        """Forget a removed peer's messages."""
        for box in (self.moves, self.reveals, self.acks, self.nested, self.offers):
            for by in box.values():
                by.pop(peer, None)


@dataclass(frozen=True)
class Sent:
    """A message this peer signed, and to whom it went: ``all`` present peers, or the step's leader."""

    message: Signed
    to: str = "all"


class Mine:
    """Every message this peer signed for the steps in play, one per slot."""

    def __init__(self) -> None:
        self._slots: dict[tuple[str, int], Sent] = {}

    def get(self, slot: str, step: int) -> Signed | None:
        sent = self._slots.get((slot, step))
        return None if sent is None else sent.message

    def keep(self, message: Signed, to: str = "all") -> None:
        _, slot, step = message.slot
        self._slots.setdefault((slot, step), Sent(message, to))

    def since(self, step: int) -> Iterator[Sent]:
        """What to repeat on a new link: the messages for ``step`` on, in send order."""
        chosen = [s for (_, st), s in self._slots.items() if st >= step]
        yield from sorted(chosen, key=lambda s: (s.message.step, SEND_ORDER[s.message.kind]))

    def forget_before(self, step: int) -> None:
        if any(st < step for _, st in self._slots):
            self._slots = {k: v for k, v in self._slots.items() if k[1] >= step}
