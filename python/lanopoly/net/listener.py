"""Accepting TCP connections under limits: what an unauthenticated connection may hold, and for how long.

Every incoming connection runs a caller-supplied handshake coroutine until it returns; the
listener knows nothing of the protocol. It only bounds the connections still in their handshake,
so that unauthenticated connections can never block authenticated ones:

- a first byte within ``first_byte`` seconds, the whole handshake within ``handshake`` seconds;
- at most ``per_address`` of them at once from one source address, and at most
  ``starts_per_address`` handshakes started by one address per ``window`` seconds: more are
  closed at once, before any handshake work;
- at most ``total`` of them at once: a new one evicts another (``victim``): one whose handshake has
  not made progress (``Listener.progress``: the handshake says so, say when the peer's second frame
  arrives) before any that has, silent ones first, then those of the address holding the most
  slots, then the oldest, so neither idle connections nor a churn of new ones from many addresses,
  one connection each, cuts an honest handshake in flight; progress protects only within
  ``progress`` seconds of the accept, so handshakes that make progress and stall can hold no more
  protected slots than progress costs in that time (a lobby's SPAKE2 starts: 20 a second and a
  burst of 10), and a churn always finds one of theirs to cut before a handshake that has not made
  progress yet;
- an address for which ``reserved(host)`` holds (a start record peer's) has its own
  ``reserved_per_address`` slots, never counts against ``total`` and is never evicted;
- the address table behind the start rate forgets addresses quiet for a window, and the oldest
  when full: it never refuses a new address.

A refusal costs what asyncio spends on accepting a connection, then an abort: no handshake task,
no timer. Evictions and timeouts abort the connection and cancel its handshake. Each is logged at
debug level with its reason and counted in ``stats``. Everything here is O(1) per connection
(amortised; an eviction looks at ``total`` handshakes at most): nothing blocks the event loop. The
first byte is noticed as it arrives (``data_received``) without being consumed: the handshake reads
the stream from its start.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import math
import time
from collections import OrderedDict, deque
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from lanopoly.net.streams import KeepingProtocol

log = logging.getLogger(__name__)

T = TypeVar("T")

FIRST_BYTE = "first byte"
HANDSHAKE = "handshake"
SLOTS = "slots"
RATE = "rate"
CLOSED = "closed"
NO_ADDRESS = "no address"
ERROR = "error"
EVICTED = "evicted"


@dataclass(frozen=True)
class Limits:
    """What connections still in their handshake may hold (counts) and how long (seconds)."""

    per_address: int = 4
    """Connections in their handshake at once from one (not reserved) address."""
    reserved_per_address: int = 4
    """The same for a reserved address (a start record peer's), outside ``total``."""
    total: int = 64
    """Connections in their handshake at once from addresses not reserved; a new one evicts another (``_victim``)."""
    first_byte: float = 2.0
    """Seconds from the accept until the first byte; also the grace to flush a declined connection's reply."""
    handshake: float = 5.0
    """Seconds from the accept until the handshake returns."""
    progress: float = 1.0
    """Seconds from the accept during which progress keeps a handshake from eviction; after that it
    is evicted like one that made none (an honest handshake is over within a few round trips)."""
    starts_per_address: int = 60
    """Handshakes one address may start within ``window`` seconds."""
    window: float = 10.0
    table: int = 1024
    """Addresses whose recent starts are remembered; the one started least recently is forgotten first."""

    def __post_init__(self) -> None:
        for name in ("per_address", "reserved_per_address", "total", "starts_per_address", "table"):
            count = getattr(self, name)
            if type(count) is not int or count < 1:
                raise ValueError(f"Limits.{name} must be a positive integer, not {count!r}")
        for name in ("first_byte", "handshake", "progress", "window"):
            seconds = getattr(self, name)
            if type(seconds) not in (int, float) or not 0 < seconds < math.inf:
                raise ValueError(f"Limits.{name} must be a positive number of seconds, not {seconds!r}")


DEFAULT_LIMITS = Limits()

PORT_TRIES = 8
"""Ports tried when any port will do on several addresses and the first one's is taken on another."""


@dataclass
class Stats:
    """Counters of what the listener did with its connections, for logs and tests."""

    accepted: int = 0
    """TCP connections accepted (each then refused or started)."""
    started: int = 0
    """Handshakes started."""
    completed: int = 0
    """Handshakes that returned a result, handed to ``on_done``."""
    declined: int = 0
    """Handshakes that returned None (the handshake refused the peer)."""
    failed: int = 0
    """Handshakes (or ``on_done`` calls) that raised."""
    evicted: int = 0
    """Handshakes cut to make room for a new connection (``total`` was reached)."""
    closed: int = 0
    """Handshakes cut by ``Listener.close``."""
    refused: dict[str, int] = field(default_factory=dict)
    """Connections closed at once, by reason: ``slots``, ``rate``, ``closed``, ``no address``, ``error``."""
    timed_out: dict[str, int] = field(default_factory=dict)
    """Handshakes cut by a deadline: ``first byte`` or ``handshake``."""


class _Pending:
    """A connection in its handshake: where from, its deadline timer, its task, why it was dropped."""

    __slots__ = ("accepted", "dropped", "heard", "host", "progressed", "reserved", "task", "timer", "writer")

    def __init__(self, host: str, reserved: bool, writer: asyncio.StreamWriter, accepted: float) -> None:
        self.accepted = accepted
        """When the connection was accepted (the listener's clock)."""
        self.host = host
        self.reserved = reserved
        self.writer = writer
        self.heard = False
        self.progressed = False
        self.dropped = ""
        self.timer: asyncio.TimerHandle | None = None
        self.task: asyncio.Task[None] | None = None

    def __str__(self) -> str:
        peer = self.writer.get_extra_info("peername")
        return f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) and len(peer) >= 2 else self.host


@dataclass(frozen=True)
class Candidate:
    """What the eviction choice knows of a handshake: whether it made progress, said a word, and how
    many slots its address holds."""

    progressed: bool
    heard: bool
    slots: int


def victim(candidates: Iterable[Candidate]) -> int:
    """The index of the handshake to cut for a newcomer among ``candidates`` (oldest first, at least
    one): one that has not made progress before any that has; then one that has not said a word; then
    one of the address holding the most slots; then the oldest. Cutting the oldest alone let a churn
    of connections from many addresses, one each, cut every honest handshake in flight (it dials once,
    and is the oldest as soon as the churn outnumbers the slots)."""
    best, best_key = -1, (True, True, 0)
    for index, c in enumerate(candidates):  # a later one is chosen only if strictly more to cut
        key = (c.progressed, c.heard, -c.slots)
        if best < 0 or key < best_key:
            best, best_key = index, key
    if best < 0:
        raise ValueError("no handshake to evict")
    return best


class _Protocol(KeepingProtocol):
    """A stream protocol that admits (or refuses) its connection and reports its first bytes (and,
    as every connection of the game, keeps what came before a break: ``streams.py``)."""

    def __init__(self, listener: Listener[Any], loop: asyncio.AbstractEventLoop) -> None:
        self._listener = listener
        self._pending: _Pending | None = None
        super().__init__(asyncio.StreamReader(loop=loop), self._connected, loop)

    def _connected(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._pending = self._listener._admit(reader, writer)

    def data_received(self, data: bytes) -> None:
        pending, self._pending = self._pending, None
        if pending is not None:
            pending.heard = True  # from now on only the handshake deadline applies
        super().data_received(data)


def _host(peername: object) -> str | None:
    """The source address of a connection (an IPv4-mapped IPv6 address as plain IPv4)."""
    if not isinstance(peername, tuple) or not peername or not isinstance(peername[0], str):
        return None
    host: str = peername[0]
    return host[7:] if host.startswith("::ffff:") and "." in host else host


class Listener(Generic[T]):
    """Accepts TCP connections and runs ``handshake`` on each under ``limits``; hands results to ``on_done``.

    ``handshake(reader, writer)`` returns what ``on_done`` gets (the connection is then the
    caller's), or None to refuse the peer (the listener closes the connection, after flushing what
    the handshake wrote): a handshake that keeps the connection, a lobby's joiner say, returns it.
    It may raise: the connection is closed and counted, the listener carries on. ``reserved(host)``
    says whether a source address is a known peer's. ``clock`` (seconds) drives the start rate
    window, the address table and how long progress protects; the deadlines run on the event
    loop's clock.
    """

    def __init__(
        self,
        handshake: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[T | None]],
        on_done: Callable[[T], None],
        limits: Limits = DEFAULT_LIMITS,
        reserved: Callable[[str], bool] = lambda host: False,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._handshake = handshake
        self._on_done = on_done
        self.limits = limits
        self._reserved = reserved
        self._clock = clock
        self.stats = Stats()
        self.port = 0
        self._servers: list[asyncio.Server] = []
        self._open: OrderedDict[_Pending, None] = OrderedDict()  # not reserved, oldest first
        self._open_reserved: set[_Pending] = set()
        self._by_writer: dict[asyncio.StreamWriter, _Pending] = {}
        self._per_host: dict[str, int] = {}
        self._starts: OrderedDict[str, deque[float]] = OrderedDict()  # least recently started first
        self._tasks: set[asyncio.Task[None]] = set()
        self._changed = asyncio.Event()
        self._closing = False

    # ------------------------------------------------------------------------------- public

    async def start(self, hosts: str | Sequence[str], port: int = 0) -> int:
        """Listen on each address of ``hosts`` (the same port on all; 0: any free one); returns the port.

        May be called again to listen on more addresses (pass the port the first call returned).
        With any port asked for, the port the first address got may be taken on another one (by
        another program): then another port is tried, a few times, before giving up.
        """
        if self._closing:
            raise RuntimeError("the listener is closed")
        addresses = [hosts] if isinstance(hosts, str) else list(hosts)
        if not addresses:
            raise ValueError("no address to listen on")
        tries = PORT_TRIES if port == 0 and len(addresses) > 1 else 1
        for attempt in range(1, tries + 1):
            try:
                servers = await self._listen(addresses, port)
                break
            except OSError as e:
                if e.errno != errno.EADDRINUSE or attempt == tries:
                    raise
                log.info("the port found free on %s is taken on another address: trying another", addresses[0])
        self._servers += servers
        self.port = int(servers[0].sockets[0].getsockname()[1])
        return self.port

    async def _listen(self, addresses: list[str], port: int) -> list[asyncio.Server]:
        """One server per address, all on ``port`` (0: the port the first address gets); none if one fails."""
        loop = asyncio.get_running_loop()
        servers: list[asyncio.Server] = []
        try:
            for address in addresses:
                server = await loop.create_server(lambda: _Protocol(self, loop), address, port)
                servers.append(server)
                port = int(server.sockets[0].getsockname()[1])
        except BaseException:
            for server in servers:
                server.close()
            raise
        return servers

    async def close(self) -> None:
        """Stop listening and cut every handshake still running; connections handed over are the caller's.

        ``Server.wait_closed`` is not awaited: from Python 3.12 on it also waits for the
        connections handed over, which the listener does not own.
        """
        self._closing = True
        for server in self._servers:
            server.close()
        self._servers.clear()
        for pending in [*self._open_reserved, *self._open]:
            log.debug("closing %s: the listener is closing", pending)
            self._count("closed")
            self._drop(pending, CLOSED)
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    def progress(self, writer: asyncio.StreamWriter) -> None:
        """The handshake on ``writer`` made progress (the peer did more than connect and say hello): up
        to ``limits.progress`` seconds from its accept it is evicted only after every handshake that
        has not. A connection no longer held: no effect."""
        pending = self._by_writer.get(writer)
        if pending is not None:
            pending.progressed = True

    @property
    def pending(self) -> int:
        """Connections from addresses not reserved in their handshake now."""
        return len(self._open)

    @property
    def pending_reserved(self) -> int:
        """Connections from reserved addresses in their handshake now."""
        return len(self._open_reserved)

    @property
    def tracked(self) -> int:
        """Addresses the start rate table remembers now."""
        return len(self._starts)

    async def until(self, predicate: Callable[[Stats], bool]) -> None:
        """Wait until ``predicate(stats)`` holds; it is checked again each time a counter changes."""
        while not predicate(self.stats):
            self._changed.clear()
            await self._changed.wait()

    # ---------------------------------------------------------------------- admission (sync)

    def _admit(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> _Pending | None:
        """Start a handshake on a new connection, or close it at once; never raises (a protocol callback)."""
        self._count("accepted")
        try:
            host = _host(writer.get_extra_info("peername"))
            if self._closing or host is None:
                self._refuse(writer, CLOSED if self._closing else NO_ADDRESS)
                return None
            reserved = self._reserved(host)
            limit = self.limits.reserved_per_address if reserved else self.limits.per_address
            if self._per_host.get(host, 0) >= limit:
                self._refuse(writer, SLOTS)
                return None
            if not self._may_start(host):
                self._refuse(writer, RATE)
                return None
            pending = _Pending(host, reserved, writer, self._clock())
            if not reserved and len(self._open) >= self.limits.total:
                self._evict(pending)
            self._hold(pending, reader)
        except Exception as e:
            log.exception("refusing a connection: %s", str(e) or type(e).__name__)
            self._refuse(writer, ERROR)
            return None
        return pending

    def _refuse(self, writer: asyncio.StreamWriter, reason: str) -> None:
        """Close a connection at once, before any handshake work."""
        log.debug("refusing a connection from %s: %s", writer.get_extra_info("peername"), reason)
        self._count("refused", reason)
        writer.transport.abort()

    def _evict(self, newcomer: _Pending) -> None:
        victim = self._victim()
        log.debug("evicting %s, one of %d in their handshake, for %s", victim, len(self._open), newcomer)
        self._count("evicted")
        self._drop(victim, EVICTED)

    def _victim(self) -> _Pending:
        """The handshake cut for a newcomer (``victim``); called with every slot taken, so looks at
        ``total`` handshakes."""
        handshakes = list(self._open)
        per_host = self._per_host
        since = self._clock() - self.limits.progress
        return handshakes[
            victim(Candidate(p.progressed and p.accepted > since, p.heard, per_host[p.host]) for p in handshakes)
        ]

    def _may_start(self, host: str) -> bool:
        """Record a handshake started by ``host`` now, unless it started its share within the window."""
        now = self._clock()
        horizon = now - self.limits.window
        starts_by_host = self._starts
        while starts_by_host:
            quiet, starts = next(iter(starts_by_host.items()))
            if starts[-1] > horizon:
                break
            del starts_by_host[quiet]
        starts = starts_by_host.get(host, deque())
        while starts and starts[0] <= horizon:
            starts.popleft()
        if len(starts) >= self.limits.starts_per_address:
            return False
        starts.append(now)
        starts_by_host[host] = starts
        starts_by_host.move_to_end(host)
        while len(starts_by_host) > self.limits.table:
            starts_by_host.popitem(last=False)
        return True

    def _hold(self, pending: _Pending, reader: asyncio.StreamReader) -> None:
        """Take a slot for ``pending``, arm its first byte deadline and start its handshake."""
        loop = asyncio.get_running_loop()
        if pending.reserved:
            self._open_reserved.add(pending)
        else:
            self._open[pending] = None
        self._per_host[pending.host] = self._per_host.get(pending.host, 0) + 1
        self._by_writer[pending.writer] = pending
        deadline = min(self.limits.first_byte, self.limits.handshake)
        pending.timer = loop.call_later(deadline, self._expire, pending, loop.time() + self.limits.handshake)
        pending.task = loop.create_task(self._serve(pending, reader))
        self._tasks.add(pending.task)
        pending.task.add_done_callback(self._tasks.discard)
        self._count("started")

    def _expire(self, pending: _Pending, then: float | None) -> None:
        """The first byte deadline passed (the handshake deadline ``then`` follows if bytes came), or the last."""
        if pending.heard and then is not None:
            pending.timer = asyncio.get_running_loop().call_at(then, self._expire, pending, None)
            return
        which = HANDSHAKE if pending.heard else FIRST_BYTE
        log.debug("closing %s: %s deadline passed", pending, which)
        self._count("timed_out", which)
        self._drop(pending, which)

    # ------------------------------------------------------------------------ handshakes

    def _release(self, pending: _Pending) -> bool:
        """Free the slot of ``pending`` and stop its timer; False when it was freed already."""
        if pending.reserved:
            if pending not in self._open_reserved:
                return False
            self._open_reserved.discard(pending)
        elif pending in self._open:
            del self._open[pending]
        else:
            return False
        self._by_writer.pop(pending.writer, None)
        left = self._per_host[pending.host] - 1
        if left:
            self._per_host[pending.host] = left
        else:
            del self._per_host[pending.host]
        if pending.timer is not None:
            pending.timer.cancel()
        return True

    def _drop(self, pending: _Pending, why: str) -> None:
        """Cut a handshake: free its slot, abort its connection, cancel its task."""
        if self._release(pending):
            pending.dropped = why
            pending.writer.transport.abort()
            if pending.task is not None:
                pending.task.cancel()

    async def _serve(self, pending: _Pending, reader: asyncio.StreamReader) -> None:
        """Run the handshake of ``pending``; hand its result over, or close the connection."""
        writer = pending.writer
        try:
            result = await self._handshake(reader, writer)
        except asyncio.CancelledError:
            if not pending.dropped:  # not cut by the listener: free the slot and pass it on
                self._release(pending)
                writer.transport.abort()
                raise
            return
        except Exception as e:
            if self._release(pending):
                log.debug("closing %s: handshake failed: %s", pending, str(e) or type(e).__name__)
                self._count("failed")
                writer.transport.abort()
            return
        if not self._release(pending):  # cut while the handshake ignored its cancellation
            return
        if result is None:
            log.debug("closing %s: the handshake declined it", pending)
            self._count("declined")
            self._close_flushed(writer)
            return
        try:
            self._on_done(result)
        except Exception as e:
            log.exception("closing %s: on_done failed: %s", pending, str(e) or type(e).__name__)
            self._count("failed")
            writer.transport.abort()
            return
        self._count("completed")

    def _close_flushed(self, writer: asyncio.StreamWriter) -> None:
        """Close after sending what is buffered, but abort if that takes longer than ``first_byte``."""
        transport = writer.transport
        transport.close()
        if transport.get_write_buffer_size():
            asyncio.get_running_loop().call_later(self.limits.first_byte, transport.abort)

    def _count(self, name: str, key: str = "") -> None:
        """Add one to a counter of ``stats`` (``key``: in a by-reason one) and wake ``until``."""
        if key:
            by_reason: dict[str, int] = getattr(self.stats, name)
            by_reason[key] = by_reason.get(key, 0) + 1
        else:
            setattr(self.stats, name, getattr(self.stats, name) + 1)
        self._changed.set()
