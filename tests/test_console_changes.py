"""A LAN table's events, followed by more than one follower at once (``console/changes.py``).

test_console_lan's queued-message test timed out once under load: the test and the game screen
both followed the table's one ``asyncio.Event``, and each cleared it once woken. When the screen
woke first and cleared it before the test's wait had started, the test slept until an event that
never came (the game waited for ann). The order is made here on purpose, without the network.
"""

from __future__ import annotations

import asyncio

from lanopoly.console.changes import Changes


def test_a_follower_whose_wait_starts_after_another_handled_the_event_still_sees_it() -> None:
    """The order that lost the event: the screen's wait is made but has not run yet when the
    table tells of an event; the test, already waiting, wakes and handles it first (it cleared
    the event there); then the screen's wait runs. It must still see the event."""

    async def run() -> None:
        changes = Changes()
        test = asyncio.ensure_future(changes.since(changes.count))
        await asyncio.sleep(0)  # the test's wait runs up to waiting (a turn of the loop)
        seen = changes.count
        screen = asyncio.ensure_future(changes.since(seen))  # made, not run yet
        changes.tell()
        assert await test == 1  # handled before the screen's wait first runs
        assert await asyncio.wait_for(screen, 5) == 1

    asyncio.run(run())


def test_a_follower_waits_only_for_events_after_the_count_it_saw() -> None:
    async def run() -> None:
        changes = Changes()
        changes.tell()
        assert await changes.since(0) == 1, "an event already told is not waited for"
        waiting = asyncio.ensure_future(changes.since(1))
        await asyncio.sleep(0)
        assert not waiting.done()
        changes.tell()
        changes.tell()
        assert await asyncio.wait_for(waiting, 5) == 3

    asyncio.run(run())
