"""A networked table: the console's view of a LAN game played in lockstep with other peers.

``NetTable`` has the interface the console uses for a local table (``game``, ``me``, ``lang``,
``lines``, ``my_move``, ``step``, ``act``, ``legal``, ``summary``), but the game is the one the
:class:`~lanopoly.net.lockstep.LockstepSession` plays: the person's moves are sent as this peer's
actions, the other peers' moves arrive over the network, and the bots this peer controls (the
host's free seats) play their seats here. The session runs in a task beside the user interface.

Only moves in turn are supported by the LAN layer for now (the seat the engine's
``current_player`` names acts; auctions and debts are walked seat by seat): a move typed while the
game waits for someone else is refused with a message saying so.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from lanopoly._core import Game
from lanopoly.bots import Policy
from lanopoly.console.commands import CommandError
from lanopoly.console.session import Ledger, Summary, summary_lines
from lanopoly.describe import describe
from lanopoly.i18n import t
from lanopoly.net.lockstep import LockstepSession, SessionResult
from lanopoly.net.mesh import Mesh

Action = dict[str, Any]

log = logging.getLogger(__name__)

CLOSE_TIMEOUT = 3.0
"""Seconds leaving a LAN game may take (the session stops and closes its connections)."""

STEP_TIMEOUT = 3600.0
"""Seconds a peer waits for another peer's input: people think, so it is long (a lost
connection is still noticed at once)."""


class _Person:
    """The policy placeholder for the person's seat: the session asks the table instead."""

    def choose(self, game: Game, seat: int, legal: list[Action] | None = None) -> Action:
        raise AssertionError("the person's moves come from the console")


class ConsoleSession(LockstepSession):
    """A lockstep session where one seat of this peer is played by a person at the console.

    ``submit`` hands the person's move over (already checked against the current state); the
    session sends it as this peer's signed action when the step comes. Bots of this peer wait
    ``bot_delay`` seconds before each move so that people can follow the game.
    """

    def __init__(
        self,
        mesh: Mesh,
        person: int,
        bot: Callable[[], Policy],
        *,
        bot_delay: float = 0.3,
        step_timeout: float = STEP_TIMEOUT,
        log_path: Path | None = None,
        report_dir: Path | None = None,
        on_events: Callable[[Game, list[dict[str, Any]]], None] | None = None,
    ) -> None:
        mine = [seat for seat, ctrl in enumerate(mesh.start.controllers) if ctrl == mesh.me]
        if person not in mine:
            raise ValueError(f"seat {person} is not controlled by this peer")
        policies: dict[int, Policy] = {seat: (_Person() if seat == person else bot()) for seat in mine}
        super().__init__(
            mesh,
            policies,
            log_path=log_path,
            report_dir=report_dir,
            step_timeout=step_timeout,
            on_events=on_events,
        )
        self.person = person
        self.bot_delay = bot_delay
        self.waiting_for_person = False
        self._move: tuple[int, Action] | None = None
        self._move_ready = asyncio.Event()

    def submit(self, action: Action) -> None:
        """The person's move for the next step (checked by the caller against the current state)."""
        self._move = (self.game.step, action)
        self._move_ready.set()

    @property
    def move_pending(self) -> bool:
        """A move of the person was handed over and not yet played."""
        return self._move is not None

    async def _person_move(self) -> None:
        self.waiting_for_person = True
        try:
            while self._move is None or self._move[0] != self.game.step:
                self._move = None  # a move for an earlier state (cannot happen: checked on submit)
                self._move_ready.clear()
                await self._move_ready.wait()
        finally:
            self.waiting_for_person = False

    async def move_input(self, step: int, prev: bytes) -> tuple[dict[str, Any], int]:
        seat = self.game.current_player
        if seat is not None and seat >= 0 and self.controllers[seat] == self.me:
            if seat == self.person:
                await self._person_move()
            elif self.bot_delay > 0:
                await asyncio.sleep(self.bot_delay)
        return await super().move_input(step, prev)

    def choose(self, seat: int) -> dict[str, Any]:
        if seat == self.person:
            assert self._move is not None
            action = self._move[1]
            self._move = None
            return action
        return super().choose(seat)


class NetTable:
    """The person's seat in a LAN game; the console's table for it.

    ``me`` is the person's seat (the first seat this peer controls); the log is in ``lang``.
    ``start()`` runs the session in a task (the console does it when the game screen opens);
    ``close()`` leaves the game (the other peers see this peer disconnect).
    """

    def __init__(
        self,
        mesh: Mesh,
        *,
        bot: Callable[[], Policy],
        lang: str = "en",
        bot_delay: float = 0.3,
        step_timeout: float = STEP_TIMEOUT,
        log_path: Path | None = None,
        report_dir: Path | None = None,
    ) -> None:
        self.mesh = mesh
        self.lang = lang
        self.me = next(seat for seat, ctrl in enumerate(mesh.start.controllers) if ctrl == mesh.me)
        self.session = ConsoleSession(
            mesh,
            self.me,
            bot,
            bot_delay=bot_delay,
            step_timeout=step_timeout,
            log_path=log_path,
            report_dir=report_dir,
            on_events=self._events,
        )
        self.lines: list[str] = []
        self.ledger = Ledger(self.game.num_players)
        self.summarized = False
        self.result: SessionResult | None = None
        self.failure = ""
        self._task: asyncio.Task[SessionResult] | None = None
        self._seen: tuple[object, ...] = ()

    # -- the table interface ---------------------------------------------------------------------

    @property
    def game(self) -> Game:
        return self.session.game

    @property
    def my_move(self) -> bool:
        """Does the game wait for the person (and is the session still playing)?"""
        return self.playing and self.game.current_player == self.me

    @property
    def over(self) -> bool:
        return self.game.is_over

    @property
    def playing(self) -> bool:
        """The session runs: not over, not frozen, not left."""
        return self.result is None and not self.failure and not self.game.is_over

    @property
    def frozen(self) -> bool:
        return self.result is not None and self.result.outcome == "frozen"

    @property
    def bots(self) -> Mapping[int, Policy]:
        """The bots this peer plays (the host's free seats)."""
        return {seat: p for seat, p in self.session.policies.items() if seat != self.me}

    def start(self) -> None:
        """Run the session in a task of the running event loop (once)."""
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self.session.run())
            self._task.add_done_callback(self._ended)

    async def close(self) -> None:
        """Leave the game: stop the session (it closes every connection)."""
        task = self._task
        if task is not None and not task.done():
            # Cancel until it stops: asyncio.wait_for (Python 3.11) may swallow a cancellation
            # that races with the session's wake-up event, and the session would wait on.
            deadline = time.monotonic() + CLOSE_TIMEOUT
            while not task.done() and time.monotonic() < deadline:
                task.cancel()
                await asyncio.wait([task], timeout=0.1)
            if task.done():
                return
            log.warning("the LAN session did not stop within %g s; closing its connections", CLOSE_TIMEOUT)
        if task is None or not task.done():
            with contextlib.suppress(Exception):
                await asyncio.wait_for(self.mesh.close(), CLOSE_TIMEOUT)

    def step(self) -> bool:
        """True when the game or the LAN status changed since the last call (the screen is then
        redrawn). The session moves the game; this also starts the session the first time."""
        self.start()
        seen = (self.game.step, self.result is None, self.failure, len(self.disconnected()), self.session.move_pending)
        changed = seen != self._seen
        self._seen = seen
        return changed

    def act(self, action: Action) -> None:
        """Send the person's move; raises CommandError when it is not their turn (only moves in
        turn work on the LAN for now) and IllegalAction with the core's reason (nothing is sent)."""
        lang, game = self.lang, self.game
        if self.frozen:
            raise CommandError(t(lang, "net.refused_frozen"))
        if not self.playing:
            raise CommandError(t(lang, "net.refused_over"))
        seat = game.current_player
        if seat != self.me:
            who = t(lang, "net.the_dice") if seat is None or seat < 0 else game.names[seat]
            raise CommandError(t(lang, "net.in_turn_only", player=who))
        if self.session.move_pending:
            raise CommandError(t(lang, "net.sending"))
        game.check(action)
        self.session.submit(action)

    def legal(self) -> list[Action]:
        """What the person may do now: moves in turn only on the LAN."""
        if not self.my_move or self.game.is_chance_node or self.session.move_pending:
            return []
        return self.game.legal_actions(self.me)

    def summary(self) -> Summary:
        return self.ledger.summary(self.game)

    def summary_lines(self) -> list[str]:
        return summary_lines(self.game, self.summary(), self.lang)

    # -- the LAN status --------------------------------------------------------------------------

    def peer_names(self) -> list[str]:
        return [p.name for p in self.mesh.start.peers]

    def disconnected(self) -> dict[int, str]:
        """Peers whose connection broke, with why (from the session's view)."""
        lost: dict[int, str] = getattr(self.session, "_lost", {})
        return dict(lost)

    def waiting_for(self) -> str:
        """Who the game waits for, in words (empty when it waits for nobody)."""
        lang, game = self.lang, self.game
        if not self.playing:
            return ""
        if game.is_chance_node:
            return t(lang, "net.wait_dice")
        seat = game.current_player
        if seat is None or seat < 0:
            return ""
        ctrl = self.mesh.start.controllers[seat]
        if seat == self.me:
            return t(lang, "net.wait_you")
        if ctrl == self.mesh.me:
            return t(lang, "net.wait_bot_here", player=game.names[seat])
        peer = self.peer_names()[ctrl]
        if game.names[seat] == peer:
            return t(lang, "net.wait_peer", peer=peer)
        return t(lang, "net.wait_bot", player=game.names[seat], peer=peer)

    def status(self) -> tuple[str, str]:
        """The LAN line of the game screen: (style, text)."""
        lang = self.lang
        if self.failure:
            return "class:error", t(lang, "net.failed", reason=self.failure)
        if self.frozen:
            assert self.result is not None and self.result.freeze is not None
            return "class:error", t(lang, "net.frozen", reason=self.result.freeze.reason)
        lost = self.disconnected()
        peers = []
        for index, name in enumerate(self.peer_names()):
            if index == self.mesh.me:
                peers.append(t(lang, "net.peer_you", peer=name))
            elif index in lost:
                peers.append(t(lang, "net.peer_lost", peer=name))
            else:
                peers.append(name)
        text = t(lang, "net.peers", peers=", ".join(peers))
        waiting = self.waiting_for()
        if waiting:
            text += " | " + waiting
        if self.result is not None and self.result.outcome == "over":
            text += " | " + t(lang, "net.agreed")
        return ("class:error" if lost else "class:hint"), text

    # -- events ----------------------------------------------------------------------------------

    def _events(self, game: Game, events: list[dict[str, Any]]) -> None:
        for event in events:
            self.ledger.see(event)
            line = describe(game, event, lang=self.lang)
            if line:
                self.lines.append(line)
        if game.is_over and not self.summarized:
            self.summarized = True
            self.lines.extend(self.summary_lines())

    def _ended(self, task: asyncio.Task[SessionResult]) -> None:
        if task.cancelled():
            return
        error = task.exception()
        if error is not None:
            self.failure = str(error) or type(error).__name__
            self.lines.append(t(self.lang, "net.failed", reason=self.failure))
            return
        self.result = task.result()
        if self.result.freeze is not None:
            self.lines.append(t(self.lang, "net.frozen", reason=self.result.freeze.reason))
            if self.result.report is not None:
                self.lines.append(t(self.lang, "net.report", path=str(self.result.report)))
