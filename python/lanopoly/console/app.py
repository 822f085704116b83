"""The full-screen console: the board, the log, the decision in front of you, a command line.

Layout (80x24 and up): the board ring with the players, the game's status and the current
decision in its middle, the log of what happened, a feedback line, the command line with
completion, and a line of hints. A square's card (``info``, F7, a click on the board) or a
player's portfolio (``portfolio``, F8) takes the place of the board and the log until a key is
pressed. Bots and chance play in an asyncio task beside the user interface, one step at a time.

The screen is made of parts, each in a module of its own and each a class the next one builds
on: :mod:`screen_state` (what the screen holds, its geometry), :mod:`decision` (the decision in
words), :mod:`drawing` (the layout and what each window shows), :mod:`moves` (commands and panel
moves sent to the table) and :mod:`key_bindings`; this module puts them together with the loop
that moves the game on.
"""

from __future__ import annotations

import asyncio

from prompt_toolkit.application import Application
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.input import Input
from prompt_toolkit.layout import Layout
from prompt_toolkit.output import ColorDepth, Output

from lanopoly._core import IllegalAction
from lanopoly.console.claims import WAIT as CLAIM_WAIT
from lanopoly.console.claims import ending_now
from lanopoly.console.commands import CommandError
from lanopoly.console.completion import CommandCompleter
from lanopoly.console.escape import quick_escape
from lanopoly.console.key_bindings import Keys
from lanopoly.console.net_session import NetTable
from lanopoly.console.session import LocalTable, Table
from lanopoly.console.small import guarded
from lanopoly.console.style import no_color, style
from lanopoly.i18n import t

AWAY_TICK = 1.0
"""Seconds between two redraws of a LAN game while a peer is away (its clock runs on the screen)."""


class ConsoleApp(Keys):
    """The application around one local table."""

    def __init__(
        self,
        table: Table,
        *,
        delay: float = 0.3,
        input: Input | None = None,
        output: Output | None = None,
    ) -> None:
        super().__init__(table)
        self.delay = delay
        self.buffer = Buffer(multiline=False, completer=CommandCompleter(table), accept_handler=self._accept)
        self.app = Application(
            layout=Layout(guarded(self._body(), lambda: self.table.lang), focused_element=self.buffer),
            key_bindings=self._keys(),
            style=style(no_color()),
            color_depth=ColorDepth.DEPTH_1_BIT if no_color() else None,
            full_screen=True,
            mouse_support=True,
            input=input,
            output=output,
        )
        quick_escape(self.app)

    # -- running -------------------------------------------------------------------------------

    async def run(self) -> int:
        """Run until the person quits; bots play in a task beside the interface."""
        driver = asyncio.create_task(self._drive())
        try:
            return await self.app.run_async()
        finally:
            driver.cancel()
            await self.table.close()

    async def _drive(self) -> None:
        """Move the game on: a local table one step at a time (``_step``), a LAN table by its
        session, the screen following its events (``_follow``)."""
        if isinstance(self.table, NetTable):
            await self._follow(self.table)
        elif isinstance(self.table, LocalTable):
            await self._step(self.table)

    async def _step(self, table: LocalTable) -> None:
        """Move the game on one step at a time, pausing ``delay`` seconds after each so the person
        sees every move (and may act out of turn meanwhile: bid, build, mortgage, answer an
        offer); never pausing at a pending chance event, when nobody may act. Before the roll that
        would end rent owed to the person, the bots wait up to ``claims.WAIT`` seconds for it to
        be claimed (the hint line says how). When the start screen's bid timer runs out in an
        auction the person is still in, the console passes for them (``_timed_out``), as on the LAN."""
        loop = asyncio.get_running_loop()
        waited: dict[tuple[int, int, int], float] = {}
        ticking: int | None = None
        while True:
            self._timed_out(table)  # the person's bid timer ran out: pass for them
            ending = [(c["square"], c["payer"], c["lapses_at_turn"]) for c in ending_now(table.game, table.me)]
            now = loop.time()
            if any(now < waited.setdefault(claim, now + CLAIM_WAIT) for claim in ending):
                await asyncio.sleep(0.05)
                continue
            if table.step():
                self.app.invalidate()
                if not table.game.is_chance_node:
                    await asyncio.sleep(self.delay)
            else:
                shown = self.clock.shown(table.game)
                if shown != ticking:  # the seconds left to bid, on the screen as they go
                    ticking = shown
                    self.app.invalidate()
                await asyncio.sleep(0.02)

    def _send_then(self, table: NetTable) -> None:
        """Propose the counter-offer kept until its rejection was played; a refusal is told."""
        action, self._then = self._then, None
        if action is None:
            return
        try:
            table.act(action)
        except (IllegalAction, CommandError) as e:
            self._refused(e)

    async def _follow(self, table: NetTable) -> None:
        """Run the LAN table's session and redraw whenever it tells of an event; while a peer is
        away or an auction's bid timer runs, also every second (the clocks on the screen), and
        when the timer runs out (``_timed_out``). Nothing is polled otherwise."""
        table.start()
        while True:
            seen = table.changes.count  # what is drawn below is of these events, or later ones
            if self._then is not None and not table.move_pending:
                self._send_then(table)
            self._timed_out(table)
            self.app.invalidate()
            wake = asyncio.ensure_future(table.changes.since(seen))
            left = self.clock.left(table.game)
            ticks = [AWAY_TICK] if table.away() else []
            ticks += [] if left is None else [min(AWAY_TICK, left - int(left) or AWAY_TICK)]
            try:
                await asyncio.wait([wake], timeout=min(ticks, default=None))
            finally:
                wake.cancel()

    def _timed_out(self, table: Table) -> None:
        """The bid timer ran out while the person is still in the auction: pass for them, as if
        they typed it (a move of this console's, never forced on another peer), and say so."""
        if not self.clock.due(table.game, table.me):
            return
        self.clock.passed()
        action = {"type": "pass", "player": table.me}
        try:
            note = table.act(action)
        except (IllegalAction, CommandError) as e:
            self._refused(e)
            return
        self.say("class:hint", t(table.lang, "auction.timed_out"), queued=action if note else None)
