"""Who this peer waits for, since when, and what to do when a wait lasts too long.

Silence is timed per thing awaited (a peer's ack of a step, its move, its vote...): a wait begins
when the session first waits for that thing, and ends when it no longer does. ``check`` turns
waits that lasted too long into decisions the session carries out, in order:

- a peer **away** (its link down): wanted out after ``replace_after`` (``WantOut``), the session
  freezes after ``rejoin_timeout`` (``Absent``);
- a peer **linked**: after half the step timeout the others are asked to pass on what they hold of
  it, once a wait (``AskOthers``); after the step timeout it is voted out (``WantOut``, with
  ``replace_after``; then it has one more step timeout before the freeze), or the session freezes
  naming it silent (``Silent``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class WantOut:
    """Vote ``peer`` out for now: away or silent too long while awaited (``replace_after``)."""

    peer: int


@dataclass(frozen=True)
class AskOthers:
    """Ask the others to pass on what they hold of ``peer``'s, awaited (``what``) half the step timeout."""

    peer: int
    what: str


@dataclass(frozen=True)
class Absent:
    """Freeze: ``peer``'s link is down and it did not come back in time (``detail`` says how)."""

    peer: int
    what: str
    detail: str


@dataclass(frozen=True)
class Silent:
    """Freeze naming ``peer`` silent: linked, it sent nothing awaited for the step timeout."""

    peer: int
    what: str
    detail: str


Decision = WantOut | AskOthers | Absent | Silent


class Silence:
    """The waits of one session (seconds: ``step_timeout``, ``rejoin_timeout``, ``replace_after``)."""

    def __init__(self, step_timeout: float, rejoin_timeout: float, replace_after: float | None) -> None:
        self._step_timeout = step_timeout
        self._rejoin_timeout = rejoin_timeout
        self._replace_after = replace_after
        self._awaited: dict[tuple[int, str], float] = {}
        """(peer, what this peer waits for from it) -> since when: silence is timed per thing awaited."""
        self._asked: set[tuple[int, str]] = set()
        """The things awaited from a linked peer for half the step timeout, for which the others were
        asked to pass on what they hold of that peer's (``AskOthers``)."""
        self._waiting: dict[int, str] = {}
        """What the session waited for when the last input was handled (``deadlines`` reads it)."""
        self._voted: dict[int, float] = {}
        """Linked peers voted out for their silence, and when."""
        self._voted_for: dict[int, str] = {}
        """What each of those peers was silent about: once it is no longer awaited, the peer spoke."""

    @property
    def waiting(self) -> Mapping[int, str]:
        """The peers waited for after the last input, and for what."""
        return self._waiting

    def since(self, peer: int, now: float) -> float:
        """Since when this peer has waited for what it waits for now from ``peer``."""
        return self._awaited.get((peer, self._waiting.get(peer, "")), now)

    # ----------------------------------------------------------------------------- the waits

    def wait(self, waiting: dict[int, str], now: float) -> list[int]:
        """After an input the session waits for ``waiting``: a thing awaited already keeps its time,
        a new one is awaited from ``now``. Returns the peers with something newly awaited."""
        if waiting == self._waiting and len(self._awaited) == len(waiting):
            # The same wait as after the last input (most messages change nothing awaited): the
            # times stand. ``_awaited`` only loses entries between inputs, so equal sizes say
            # that it still holds one per thing awaited.
            return []
        before = self._awaited
        new = [peer for peer, what in waiting.items() if (peer, what) not in before]
        self._awaited = {(peer, what): before.get((peer, what), now) for peer, what in waiting.items()}
        self._asked = {k for k in self._asked if k in before and k in self._awaited}  # a wait begun anew: not asked
        self._waiting = waiting
        return new

    def linked(self, peer: int) -> None:
        """``peer``'s link came up: a peer is silent only while linked, so what it owes is awaited
        from now, and a vote on its silence is forgotten."""
        self.unlinked(peer)
        self.removed(peer)

    def unlinked(self, peer: int) -> None:
        """``peer``'s link went down: what it owes is awaited anew once it is back."""
        self._awaited = {k: since for k, since in self._awaited.items() if k[0] != peer}

    def removed(self, peer: int) -> None:
        self._voted.pop(peer, None)
        self._voted_for.pop(peer, None)

    def agreed(self) -> None:
        """Every present peer acked the step: nobody is silent any more."""
        self._voted.clear()
        self._voted_for.clear()

    @property
    def voted(self) -> bool:
        """Whether a linked peer was voted out for its silence (``heard`` may then forget it)."""
        return bool(self._voted_for)

    def heard(self, waiting: Mapping[int, str], away: Mapping[int, float]) -> list[int]:
        """The linked peers (not in ``away``) voted out for their silence that are no longer awaited
        for what they were silent about (``waiting``: what the session waits for now): it came, so
        they spoke, and the vote on their silence is forgotten. A process stopped past the step
        timeout (``kill -STOP``, a laptop asleep) that runs again is then kept, not removed by the
        peers that waited for it (soak seed 11033911: the stopped peer, back, voted out a third
        that had died; the peer that had waited for it went on voting out both, and with neither
        vote able to pass the game hung)."""
        spoke = [p for p, what in self._voted_for.items() if waiting.get(p) != what and p not in away]
        for peer in spoke:
            self.removed(peer)
        return spoke

    # ----------------------------------------------------------------------------- time

    def check(self, now: float, waiting: Mapping[int, str], away: Mapping[int, float]) -> list[Decision]:
        """What to do at ``now`` about the waits for ``waiting`` (``away``: peers whose link is down,
        since when). A freeze (``Absent``, ``Silent``) comes last: nothing after it is looked at."""
        out: list[Decision] = []
        step_timeout, replace_after = self._step_timeout, self._replace_after
        for peer, what in waiting.items():
            if peer in away:
                since = away[peer]
                if replace_after is not None and now >= since + replace_after:
                    out.append(WantOut(peer))
                if now >= since + self._rejoin_timeout:
                    out.append(Absent(peer, what, self._dropped()))
                    return out
                continue
            if (peer, what) not in self._asked and now >= self.since(peer, now) + step_timeout / 2:
                self._asked.add((peer, what))
                out.append(AskOthers(peer, what))
            if now >= self.since(peer, now) + step_timeout:
                voted = self._voted.get(peer)
                if replace_after is not None and voted is None:
                    self._voted[peer] = now
                    self._voted_for[peer] = what
                    out.append(WantOut(peer))
                elif voted is None or now >= voted + step_timeout:
                    out.append(Silent(peer, what, f"silent for {now - self.since(peer, now):.0f} s"))
                    return out
        return out

    def _dropped(self) -> str:
        rejoin = self._rejoin_timeout
        return "dropped" if rejoin <= 0 else f"dropped and did not come back within {rejoin:g} s"

    def deadlines(self, now: float, away: Mapping[int, float], wanted_out: Callable[[int], bool]) -> list[float]:
        """When ``check`` may decide something about the current waits (``wanted_out``: whether a
        peer is wanted out already)."""
        times: list[float] = []
        step_timeout, replace_after = self._step_timeout, self._replace_after
        for peer in self._waiting:
            if peer in away:
                since = away[peer]
                times.append(since + self._rejoin_timeout)
                if replace_after is not None and not wanted_out(peer):
                    times.append(since + replace_after)
            elif peer in self._voted:
                # ``check`` freezes once both are past: a wait begun after the vote (the peer's ack
                # of a later step, passed on by another) kept this deadline in the past, and the
                # driver called ``timer`` in a busy loop until the later one came.
                since = max(self._voted[peer], self.since(peer, now))
                times.append(since + step_timeout)
            else:
                times.append(self.since(peer, now) + step_timeout)
                if (peer, self._waiting[peer]) not in self._asked:
                    times.append(self.since(peer, now) + step_timeout / 2)
        return times
