"""The session's clock: the driver's time less the time this process did not run.

A process that was stopped (``kill -STOP``, a laptop asleep, a debugger, an event loop blocked)
finds on waking every peer "silent" for as long as it slept, and its timer runs before the
messages that arrived meanwhile are read: it froze blaming an honest peer for the silence it caused
itself, while the others rightly froze naming it. So the driver keeps a wake armed at most ``tick``
seconds ahead whenever the session has a deadline; a wake that comes more than ``slack`` seconds
late means the process did not run: that time is not counted in the session's time, and the
session's timer waits ``grace`` seconds more, so what arrived meanwhile (the others' freeze naming
this peer, say, which it then follows) is read first. Sans-I/O: the caller passes its time.
"""

from __future__ import annotations

import math

SLACK = 1.0
"""Seconds a wake may come late before the process counts as not having run meanwhile."""
GRACE = 1.0
"""Seconds the session's timer waits after a stop is noticed, while what arrived is read."""
TICK = 0.5
"""Seconds at most between wakes while the session has a deadline (a stop is noticed within it)."""


class RunClock:
    """The session's time for one process (``check``), and when to wake for its deadline (``wake_at``)."""

    def __init__(self, slack: float = SLACK, grace: float = GRACE, tick: float | None = TICK) -> None:
        self.slack, self.grace, self.tick = slack, grace, tick
        self.stopped = 0.0
        """Seconds this process did not run (noticed so far)."""
        self.stops = 0
        """Stops noticed."""
        self._hold = -math.inf
        self._wake: float | None = None

    def armed(self, at: float) -> None:
        """The caller armed a wake for ``at`` (its time)."""
        self._wake = at

    def check(self, now: float) -> float:
        """The session's time at ``now`` (the caller's time), on every call into the session. A wake
        armed and overdue by more than ``slack`` means the process did not run since it was due:
        that time stops counting and the session's timer holds for ``grace`` (``holding``)."""
        wake = self._wake
        if wake is not None and now - wake > self.slack:
            self.stopped += now - wake
            self.stops += 1
            self._hold = now + self.grace
            self._wake = None
        return now - self.stopped

    def holding(self, now: float) -> bool:
        """Whether the session's timer waits (a stop was noticed less than ``grace`` ago)."""
        return now < self._hold

    def wake_at(self, deadline: float | None, now: float) -> float | None:
        """When (the caller's time) to wake for the session's ``deadline`` (session time): at it, but
        within ``tick`` of ``now`` and not while ``holding``; None when there is no deadline."""
        if deadline is None:
            return None
        at = deadline + self.stopped
        while at - self.stopped < deadline:  # rounding: the session's time must reach its deadline
            at = math.nextafter(at, math.inf)
        if self.tick is not None:
            at = min(at, now + self.tick)
        return max(at, self._hold)
