"""The session's clock (``core/runclock.py``): time the process did not run is not the others' silence."""

from __future__ import annotations

from lanopoly.net.core.runclock import RunClock


def test_a_late_wake_is_a_stop_counted_once_and_the_timer_holds_for_the_grace() -> None:
    clock = RunClock(slack=1.0, grace=1.0, tick=0.5)
    assert clock.check(10.0) == 10.0
    clock.armed(10.5)
    assert clock.check(10.9) == 10.9 and not clock.holding(10.9)  # on time, or late within the slack
    assert clock.check(18.5) == 10.5  # woke 8 s late: stopped since the wake was due
    assert clock.stops == 1 and clock.holding(18.5) and not clock.holding(19.5)
    assert clock.check(19.0) == 11.0  # counted once, whoever calls next
    assert clock.wake_at(10.6, 18.6) == 19.5  # the session's deadline is due, but the grace comes first


def test_wakes_come_within_the_tick_and_reach_the_deadline() -> None:
    clock = RunClock(tick=0.5)
    assert clock.wake_at(None, 3.0) is None
    assert clock.wake_at(30.0, 3.0) == 3.5
    clock.armed(3.5)
    clock.check(7.3)  # a stop of 3.8 s
    stopped, deadline = 39.85487813177481, 4082.1868528034543  # (deadline + stopped) - stopped < deadline
    at = RunClock(tick=None, slack=0.0)
    at.armed(0.0)
    at.check(stopped)
    wake = at.wake_at(deadline, 0.0)
    assert wake is not None and at.check(wake) >= deadline  # no spin on a deadline rounded down
