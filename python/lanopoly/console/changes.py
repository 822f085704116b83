"""The events of a LAN table, counted, so that any number of followers wait for them and none
misses one.

The table used to set one ``asyncio.Event`` that each follower (the game screen, ``reach``, a
test following the session) cleared once woken. A follower that cleared it could swallow the
event before another follower's wait had even started: that one then slept until the next event,
which never came when the game waited for a person (a test timed out under load). Here nobody
clears: each follower remembers the count it has seen and waits for a larger one.
"""

from __future__ import annotations

import asyncio


class Changes:
    """A count of events, and a wait for the next ones."""

    def __init__(self) -> None:
        self.count = 0
        """How many events were told so far."""
        self._next = asyncio.Event()
        """Set (and replaced) at the next event: it wakes whoever waits for it."""

    def tell(self) -> None:
        """One more event: wake every follower waiting."""
        self.count += 1
        woken, self._next = self._next, asyncio.Event()
        woken.set()

    async def since(self, seen: int) -> int:
        """Wait until more than ``seen`` events were told (at once if that is so already); the
        count then, for the follower to remember."""
        while self.count <= seen:
            await self._next.wait()
        return self.count
