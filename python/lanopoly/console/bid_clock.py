"""The bid timer of an auction: the console's clock, never the session core's.

Alone against bots the person picks a timer on the start screen (kept in the preferences); it
works as on the LAN, below: when it runs out the console passes for the person.

The host picks the timer in the lobby and it travels in the start record every peer signs
(``genesis.StartRecord.bid_timer``), so every console shows the same value. During an auction each
console counts down on its own clock from the last new bid (a new bid gives everyone the full
time again) and, when it runs out, passes for its own person's seat: a local action like any other
move the person types, so nobody can force it on a peer, and the bots (the session's policies)
are unaffected.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable

from lanopoly._core import Game
from lanopoly.i18n import t

BID_TIMERS = (0, 10, 15, 20, 30, 45, 60)
"""The bid timers the start screen and the host screen offer (seconds; 0: off)."""

Key = tuple[object, ...]
"""What makes a new countdown: the lot, its leader and the leading bid."""


def timer_text(lang: str, seconds: int) -> str:
    """A bid timer in words: "20 s", or "off"."""
    return t(lang, "timer.seconds", n=seconds) if seconds else t(lang, "timer.off")


class BidClock:
    """The countdown of the running auction, ``seconds`` long (0: no timer)."""

    def __init__(self, seconds: float, now: Callable[[], float] = time.monotonic) -> None:
        self.seconds = seconds
        self._now = now
        self._key: Key | None = None
        self._deadline = 0.0
        self._passed: Key | None = None
        """The countdown this console already passed on (it passes once for each)."""

    def _follow(self, game: Game) -> Key | None:
        """The countdown of ``game``'s auction (started now if its lot, leader or bid is new)."""
        a = game.auction
        if not self.seconds or a is None or game.is_over:
            self._key = self._passed = None
            return None
        key: Key = (a["lot"], a["square"], a["high_bidder"], a["high_bid"])
        if key != self._key:
            self._key, self._deadline = key, self._now() + self.seconds
        return key

    def left(self, game: Game) -> float | None:
        """Seconds left in the running auction's countdown, or None when no countdown runs."""
        if self._follow(game) is None:
            return None
        return max(0.0, self._deadline - self._now())

    def shown(self, game: Game) -> int | None:
        """The whole seconds left, as the screen shows them (rounded up: 0 only when run out)."""
        left = self.left(game)
        return None if left is None else math.ceil(left)

    def due(self, game: Game, me: int) -> bool:
        """Whether the console is to pass for ``me`` now: the countdown ran out while ``me`` is
        still in the auction and not leading it (once per countdown)."""
        left = self.left(game)
        a = game.auction
        if left is None or left > 0 or a is None or self._key == self._passed:
            return False
        return me in a["bidders"] and a["high_bidder"] != me

    def passed(self) -> None:
        """The console passed (or tried to) on this countdown: not again on the same one."""
        self._passed = self._key
