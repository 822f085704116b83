"""The asyncio driver of a LAN game: the only place with sockets, timers, files and tasks.

It feeds the session core (``core/session.py``) what happens (messages read from each peer's link,
links up and down, the person's moves, the time) and carries out what the core returns, in order:
sends, closes, journal lines (written and flushed before the sends that follow them), events for
whoever watches (the console, the CLI). It keeps one authenticated link to every present peer:
the higher index of a pair dials the lower when their link is down (every 0.5 s, then less often);
a restarted peer dials everyone. When both ends dialed, the link dialed by the higher index stays.
Incoming connections come through the listener (``listener.py``) and prove a start-record key
(``core/linkauth.py``) before the core hears of them.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lanopoly.net import links as links_
from lanopoly.net import reason
from lanopoly.net.core import effects as fx
from lanopoly.net.core.linkauth import KeyDialer, KeyListener, LinkAuthError, LinkUp
from lanopoly.net.core.outcome import SessionResult
from lanopoly.net.core.runclock import RunClock
from lanopoly.net.core.session import Session
from lanopoly.net.keys import ED25519, Signer, Suite
from lanopoly.net.links import Conn, LinkClosed
from lanopoly.net.store import Journal, save_text, write_atomic
from lanopoly.net.wire import WireError

log = logging.getLogger(__name__)

REDIAL = (0.5, 1.0, 2.0)
"""Seconds between attempts to reach a peer whose link is down (the last one repeats)."""
DIAL_TIMEOUT = 5.0
SAVE_INTERVAL = 0.5
LINGER = 3.0
"""Seconds a peer whose game is over keeps answering (a peer restarted at the end catches up)."""

EventCallback = Callable[[fx.Event], None]


@dataclass
class _Link:
    conn: Conn
    dialer: int


async def accept_link(conn: Conn, core: Session, key: Signer, suite: Suite, timeout: float = 5.0) -> LinkUp:
    """The listener's side of a link handshake on ``conn`` (its first frame already awaited)."""
    machine = KeyListener(core.genesis.record, core.me, key, suite)
    try:
        conn.send(machine.hello(await conn.recv(timeout)))
        up = machine.proof(await conn.recv(timeout))
    except (LinkAuthError, WireError) as e:
        raise LinkClosed(f"link handshake failed: {reason(e)}") from None
    conn.secure(up.cipher)
    return up


class Driver:
    """Runs one core over real links until the game is over or frozen."""

    def __init__(
        self,
        core: Session,
        key: Signer,
        *,
        suite: Suite = ED25519,
        save: Path | None = None,
        journal: Journal | None = None,
        host_address: str = "",
        source: str | None = None,
        port: int = 0,
        dial_all: bool = False,
    ) -> None:
        self.core = core
        self.key = key
        self.suite = suite
        self.save = save
        self.journal = journal
        self.host_address = host_address
        """Where this peer reached the host (peer 0's start-record entry has no address)."""
        self.source = source
        self.port = port
        """The port this peer listens on (told to the peers it dials)."""
        self.dial_all = dial_all
        self.links: dict[int, _Link] = {}
        self._subscribers: list[EventCallback] = []
        self._timer: asyncio.TimerHandle | None = None
        self.clock = RunClock()
        """The session's time: the loop's less the time this process did not run (``core/runclock.py``)."""
        self._save_later: asyncio.TimerHandle | None = None
        self._dials: dict[int, asyncio.Task[None]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._finished = asyncio.Event()
        self._saving: asyncio.Task[None] | None = None
        self._last_save = -math.inf
        """When (the loop's time) the game file was last written."""
        self._dirty = False
        self._closing = False
        self._loop: asyncio.AbstractEventLoop | None = None
        """The loop ``run`` runs on (``asyncio.get_running_loop`` asks the system for the process id
        at every call in Python 3.11: two system calls a message for ``now`` and ``_arm``)."""

    # ----------------------------------------------------------------------------- the console's side

    def subscribe(self, callback: EventCallback) -> None:
        """Call ``callback`` with every session event (on the event loop, in order)."""
        self._subscribers.append(callback)

    def now(self) -> float:
        """The session's time (the loop's, less the time this process was stopped), for every call into it."""
        return self.clock.check(self._running().time())

    def _running(self) -> asyncio.AbstractEventLoop:
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
        return self._loop

    def submit(self, seat: int, action: dict[str, object]) -> None:
        """The person's move (ValueError with the reason when it may not be played now)."""
        self.apply(self.core.submit(seat, dict(action), self.now()))

    def vote_replace(self, peer: int, choice: str) -> None:
        self.apply(self.core.vote_replace(peer, choice, self.now()))

    def leave(self, why: str = "the person left the game") -> None:
        self.apply(self.core.leave(why, self.now()))

    # ----------------------------------------------------------------------------- running

    async def run(self, initial: dict[int, tuple[Conn, int]] | None = None) -> SessionResult:
        """Play: ``initial`` holds the links formed at the start (peer -> connection, dialer)."""
        self._loop = asyncio.get_running_loop()
        now = self.now()
        for peer, (conn, dialer) in (initial or {}).items():
            self._attach(peer, conn, dialer, None)
        self.apply(self.core.start(now))
        self._maintain()
        try:
            await self._finished.wait()
            result = self.core.result
            away = [p for p in self.core.members.others(self.core.me) if p not in self.links]
            if result is not None and result.outcome == "over" and away:
                await asyncio.sleep(LINGER)  # a peer restarting right at the end may still catch up
        finally:
            await self.close()
        assert self.core.result is not None
        return self.core.result

    async def close(self) -> None:
        """Stop every task, close every link, write the saved game one last time."""
        if self._closing:
            return
        self._closing = True
        for handle in (self._timer, self._save_later):
            if handle is not None:
                handle.cancel()
        for task in list(self._dials.values()) + list(self._tasks):
            task.cancel()
        for link in list(self.links.values()):
            await link.conn.close()
        self.links.clear()
        await asyncio.gather(*self._dials.values(), *self._tasks, return_exceptions=True)
        if self._saving is not None:
            with contextlib.suppress(Exception):
                await self._saving
        await self._save_now()
        if self.journal is not None:
            self.journal.close()

    # ----------------------------------------------------------------------------- effects

    def apply(self, effects: list[fx.Effect]) -> None:
        """Carry out the core's effects in order, then rearm the timer and maybe save. Journal lines
        are flushed once before the first send after them and at the end (one flush a step)."""
        journal = self.journal
        for effect in effects:
            if isinstance(effect, fx.Send):
                if journal is not None and journal.pending:
                    journal.flush()  # journaled before sent
                link = self.links.get(effect.peer)
                if link is not None:
                    try:
                        link.conn.send(effect.payload)
                    except LinkClosed as e:
                        # A connection that ended (the other end is gone) is left to its reader: it
                        # reads what came before the end (that peer's FREEZE, say), then reports it.
                        # Dropping the link here lost that FREEZE for a peer stopped past the step
                        # timeout: its first send after it ran again found the others gone.
                        if not link.conn.closed:  # still up: it does not read, or the payload is too big
                            self._lost(effect.peer, link, reason(e))
            elif isinstance(effect, fx.Persist):
                if journal is not None:
                    journal.append(effect.record)  # type: ignore[arg-type]
                self._dirty = True
            elif isinstance(effect, fx.Close):
                link = self.links.pop(effect.peer, None)
                if link is not None:
                    self._spawn(self._close_link(link))
            elif isinstance(effect, fx.Notify):
                for callback in list(self._subscribers):
                    callback(effect.event)
                if isinstance(effect.event, fx.Finished):
                    self._finished.set()
        if journal is not None:
            journal.flush()
        self._arm()
        self._maybe_save()

    def _arm(self) -> None:
        """Make sure the core's ``timer`` is called by its deadline, and that a wake comes within
        ``RunClock.tick`` while there is one (so a stop of this process is noticed). A timer already
        armed for that time or sooner stays: the deadline moves later with every message heard, and
        a timer that fires early only finds nothing due and is armed again (one handle, not one per
        message)."""
        loop = self._running()
        at = None if self._closing else self.clock.wake_at(self.core.deadline, loop.time())
        if self._timer is not None:
            if at is not None and self._timer.when() <= at:
                return
            self._timer.cancel()
            self._timer = None
        if at is not None:
            self._timer = loop.call_at(at, self._on_timer)
            self.clock.armed(at)

    def _on_timer(self) -> None:
        """A wake: the core's ``timer`` when its deadline is due, unless this process was just found
        to have been stopped (then what arrived meanwhile is read first: ``RunClock``)."""
        self._timer = None
        now = self.now()
        deadline = self.core.deadline
        if deadline is not None and now >= deadline and not self.clock.holding(asyncio.get_running_loop().time()):
            self.apply(self.core.timer(now))
        else:
            self._arm()
        self._maintain()

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        task: asyncio.Task[None] = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    @staticmethod
    async def _close_link(link: _Link) -> None:
        await link.conn.close()

    # ----------------------------------------------------------------------------- links

    def _attach(self, peer: int, conn: Conn, dialer: int, port: int | None) -> bool:
        """Adopt an authenticated link to ``peer`` unless the one it has should stay (see the module)."""
        current = self.links.get(peer)
        if current is not None and not current.conn.closed:
            preferred = max(peer, self.core.me)
            if current.dialer == preferred and dialer != preferred:
                self._spawn(conn.close())
                return False
            self._spawn(self._close_link(current))
        link = _Link(conn, dialer)
        self.links[peer] = link
        conn.deliver(lambda payload: self._received(peer, link, payload), lambda why: self._lost(peer, link, why))
        self.apply(self.core.link_up(peer, self.now(), port))
        return True

    def _received(self, peer: int, link: _Link, payload: bytes) -> bool:
        """A payload read on ``link`` (``Conn.deliver``): the core takes it while the link is the
        peer's; False once it is not (closed, replaced), so the link reads nothing more."""
        if self._closing or self.links.get(peer) is not link:
            return False
        self.apply(self.core.receive(peer, payload, self.now()))
        return True

    def _lost(self, peer: int, link: _Link, why: str) -> None:
        if self.links.get(peer) is not link:
            return
        del self.links[peer]
        self._spawn(self._close_link(link))
        log.info("peer %d: link to peer %d lost: %s", self.core.me, peer, why)
        self.apply(self.core.link_down(peer, why, self.now()))
        self._maintain()

    def _maintain(self) -> None:
        """Dial the present peers this peer should dial and has no link to."""
        if self._closing or self.core.result is not None:
            return
        for peer in self.core.members.others(self.core.me):
            if peer in self.links or peer in self._dials:
                continue
            if peer < self.core.me or self.dial_all:
                self._dials[peer] = asyncio.get_running_loop().create_task(self._dial(peer))

    def address_of(self, peer: int, attempt: int = 0) -> tuple[str, int]:
        """Where to dial ``peer`` on attempt ``attempt``: the port it was last heard to listen on,
        every other attempt its start record's. A port learned from another peer's ``STATUS`` is a
        hint any peer can send: a false one kept this peer from ever dialing the right port, and the
        game froze naming the peer it could not reach."""
        entry = self.core.genesis.record.peers[peer]
        host = entry.host or self.host_address
        port = self.core.ports.get(peer, entry.port)
        return host, entry.port if attempt % 2 else port

    async def _dial(self, peer: int) -> None:
        """Reach ``peer`` until linked (or it is no longer needed)."""
        attempt = 0
        try:
            while not self._closing and peer not in self.links and self.core.members.is_present(peer):
                host, port = self.address_of(peer, attempt)
                try:
                    conn = await links_.connect(host, port, self.source, DIAL_TIMEOUT)
                    up = await self._handshake(conn, peer)
                except LinkClosed as e:
                    log.debug("peer %d: cannot link to peer %d at %s:%d: %s", self.core.me, peer, host, port, e)
                else:
                    if peer not in self.links:
                        self._attach(peer, conn, self.core.me, up.port)
                    else:
                        await conn.close()
                    return
                await asyncio.sleep(REDIAL[min(attempt, len(REDIAL) - 1)])
                attempt += 1
        finally:
            self._dials.pop(peer, None)

    async def _handshake(self, conn: Conn, peer: int) -> LinkUp:
        machine = KeyDialer(self.core.genesis.record, self.core.me, self.key, peer, self.port, self.suite)
        try:
            conn.send(machine.hello())
            proof, up = machine.accept(await conn.recv(DIAL_TIMEOUT))
            conn.send(proof)
        except (LinkAuthError, WireError) as e:
            await conn.close()
            raise LinkClosed(f"peer {peer} did not prove its key: {reason(e)}") from None
        except LinkClosed:
            await conn.close()
            raise
        conn.secure(up.cipher)
        return up

    def incoming(self, up: LinkUp, conn: Conn) -> None:
        """A link the listener authenticated (``accept_link``): adopt it."""
        if self._closing or (self.core.result is not None and self.core.result.outcome == "frozen"):
            self._spawn(conn.close())
            return
        self._attach(up.peer, conn, up.peer, up.port)

    # ----------------------------------------------------------------------------- saving

    def _maybe_save(self) -> None:
        """Write the game file if it changed, at most every ``SAVE_INTERVAL`` seconds. Paced in the
        loop's time, as its timer is armed (the session's time lags it after a stop of this process:
        a save due in session time was already past in loop time, and re-armed until it caught up)."""
        if self.save is None or not self._dirty or self._saving is not None or self._closing:
            return
        loop = self._running()
        now = loop.time()
        if now < self._last_save + SAVE_INTERVAL:
            if self._save_later is None:  # one pending save, not one per message
                self._save_later = loop.call_at(self._last_save + SAVE_INTERVAL, self._save_due)
            return
        self._last_save = now
        self._dirty = False
        text = save_text(self.core.log.to_json(), self.core.saved_text())
        self._saving = asyncio.get_running_loop().create_task(asyncio.to_thread(write_atomic, self.save, text))
        self._saving.add_done_callback(self._saved)

    def _save_due(self) -> None:
        self._save_later = None
        self._maybe_save()

    def _saved(self, task: asyncio.Task[None]) -> None:
        self._saving = None
        if not task.cancelled() and task.exception() is not None:
            log.error("could not save the game to %s: %s", self.save, task.exception())
        self._maybe_save()

    async def _save_now(self) -> None:
        if self.save is None:
            return
        text = save_text(self.core.log.to_json(), self.core.saved_text())
        try:
            await asyncio.to_thread(write_atomic, self.save, text)
        except OSError as e:
            log.error("could not save the game to %s: %s", self.save, e)
