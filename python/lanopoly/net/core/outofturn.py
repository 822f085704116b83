"""Out-of-turn moves on one peer: the run of steps they decided, and the person's moves that wait.

Any peer may play a seat that is not on turn (a bid, an answer to an offer, rent claimed) by nesting
the move in its ack of the step before or by offering it to the step's leader. Steps in a row
decided out of turn are capped by the number of present peers, so that the seat on turn always gets
its step (``moves.over_cap``); ``run`` counts them. The person's out-of-turn moves wait here, one per
seat, until a step takes them; one signed for a step that another move decided waits again.

A sub-machine of the session (``session.py``): it owns this state; the session asks and tells it,
and turns what it returns into effects.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from lanopoly.net.core.evidence import expand
from lanopoly.net.protocol import Signed

Move = Mapping[str, Any]


class OutOfTurn:
    """The out-of-turn side of one peer's session."""

    def __init__(self) -> None:
        self.run = 0
        """Steps in a row decided by out-of-turn moves (capped by the number of present peers)."""
        self.kinds: Counter[str] = Counter()
        """How many steps each kind of move decided out of turn (the session's result says it)."""
        self.signers: set[int] = set()
        """The peers whose out-of-turn moves decided a step."""
        self._queue: dict[int, dict[str, Any]] = {}
        """Seat -> the person's out-of-turn move for it, not yet signed for a step."""
        self._offered: dict[int, tuple[int, dict[str, Any]]] = {}
        """Step -> (seat, move) of the person's out-of-turn move signed for that step (nested or offered)."""

    def allows(self, present: int) -> bool:
        """Whether one more step may be decided out of turn with ``present`` peers playing."""
        return self.run < present

    @property
    def has_queued(self) -> bool:
        return bool(self._queue)

    def queue(self, seat: int, action: Move) -> dict[str, Any] | None:
        """Keep the person's move for ``seat`` until a step takes it; the different move of the seat
        it replaced, if any (one move waits per seat: the person is told)."""
        replaced = self._queue.get(seat)
        self._queue[seat] = dict(action)
        return replaced if replaced is not None and replaced != self._queue[seat] else None

    def take(
        self, step: int, on_turn: int | None, refusal: Callable[[Move], str | None]
    ) -> tuple[tuple[int, dict[str, Any]] | None, list[tuple[int, dict[str, Any], str]]]:
        """The person's first queued move that is legal now, taken to be signed for ``step`` (not the
        seat on turn's: that one is in turn); and the moves dropped on the way as no longer legal,
        each with the engine's reason."""
        dropped: list[tuple[int, dict[str, Any], str]] = []
        for seat in sorted(self._queue):
            if seat == on_turn:
                continue
            action = self._queue.pop(seat)
            why = refusal(action)
            if why is not None:
                dropped.append((seat, action, why))
                continue
            self._offered[step] = (seat, action)
            return (seat, action), dropped
        return None, dropped

    def settle(self, step: int, own: Signed | None, inputs: Sequence[Signed]) -> None:
        """Step ``step`` was decided by ``inputs``. The person's move signed for it (``own`` is this
        peer's signed move of the step) that another move went before waits again, unless a newer
        one for its seat was queued meanwhile; it is dropped only once it is no longer legal."""
        offered = self._offered.pop(step, None)
        if offered is not None and own not in expand(inputs):
            seat, action = offered
            self._queue.setdefault(seat, action)

    def decided(self, kind: str, signer: int | None) -> None:
        """A step was decided: out of turn by ``signer``'s move of ``kind``, or in turn (None)."""
        if signer is None:
            self.run = 0
            return
        self.run += 1
        self.kinds[kind] += 1
        self.signers.add(signer)
