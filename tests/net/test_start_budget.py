"""The lobby's SPAKE2 budget (``StartBudget``), sans-I/O with injected times: a flood of AUTH_HELLO
from any number of addresses gets at most ``rate`` starts a second, and a new address still gets one."""

from __future__ import annotations

import pytest

from lanopoly.net.core.pinauth import StartBudget


def test_a_flood_gets_at_most_the_rate() -> None:
    """1,000 hellos a second from 256 addresses for 10 s: the burst, then 20 a second, no more."""
    budget = StartBudget(rate=20, burst=10, reserve=5, window=30)
    granted = sum(budget.take(f"10.0.{i % 256 // 250}.{i % 250}", i / 1000) for i in range(10_000))
    assert 10 + 20 * 10 - 5 - 1 <= granted <= 10 + 20 * 10


def test_a_new_address_gets_a_start_during_a_flood() -> None:
    """Addresses already served drain the bucket down to the reserve only: a new one is served at once."""
    budget = StartBudget(rate=20, burst=10, reserve=5, window=30)
    now = 0.0
    for i in range(5000):
        now = i / 1000
        budget.take(f"10.0.0.{i % 4}", now)
    assert not budget.take("10.0.0.1", now)
    assert budget.take("10.0.9.9", now)
    assert not budget.take("10.0.9.9", now)  # now served: it waits like the others
    assert budget.take("10.0.9.8", now)


def test_tokens_refill_and_served_addresses_are_forgotten() -> None:
    budget = StartBudget(rate=10, burst=2, reserve=1, window=5)
    assert budget.take("a", 0.0) and not budget.take("a", 0.0)
    assert budget.take("b", 0.0)  # the reserve, for an address not served yet
    assert not budget.take("c", 0.0)
    assert not budget.take("a", 0.1)  # one token back, the reserve: not for "a"
    assert budget.take("a", 5.2)  # full again, and "a" forgotten
    assert budget.take("b", 5.2) and not budget.take("d", 5.2)  # "b" forgotten too: new again
    assert budget.take("x", 4.0) is False  # a clock going back gives nothing


@pytest.mark.parametrize("bad", [{"rate": 0}, {"burst": 2, "reserve": 2}, {"reserve": -1}, {"window": 0}])
def test_nonsense_is_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError):
        StartBudget(**bad)  # type: ignore[arg-type]
