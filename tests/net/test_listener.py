"""The listener's limits over real loopback sockets: idle and flooding connections never lock out an
honest handshake, deadlines cut idle and slow ones, one address reconnecting in a loop is cut off,
and closing the listener or a failing handshake leaves nothing behind.

Clients bind to their own 127.0.x.y source address (all of 127/8 is loopback on Linux). The
handshake is a small real one: one frame in (``["hello", name]``), one frame out. Tests wait for
the listener's own counters (``Listener.until``), never for time to pass.
"""

from __future__ import annotations

import asyncio
import logging
import socket
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from lanopoly.net import wire
from lanopoly.net.listener import (
    FIRST_BYTE,
    HANDSHAKE,
    RATE,
    SLOTS,
    Candidate,
    Limits,
    Listener,
    Stats,
    _host,
    victim,
)

SERVER = "127.0.0.1"
CAP = 256
LONG = 60.0
"""A deadline no test reaches: connections meant to stay idle."""

Joined = tuple[str, asyncio.StreamWriter]


async def read_frame(reader: asyncio.StreamReader) -> list[Any]:
    (length,) = wire.HEADER.unpack(await reader.readexactly(wire.HEADER.size))
    if not 0 < length <= CAP:
        raise wire.WireError(f"frame of {length} bytes")
    return wire.unpack(await reader.readexactly(length))


def frame(*message: Any) -> bytes:
    return wire.frame(wire.pack(message), CAP)


async def hello(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> Joined | None:
    """The test handshake: ``hello NAME`` is welcomed, ``boom`` raises, anything else is declined."""
    message = await read_frame(reader)
    if message == ["boom"]:
        raise RuntimeError()
    if len(message) != 2 or message[0] != "hello" or not isinstance(message[1], str):
        writer.write(frame("no"))
        return None
    writer.write(frame("welcome", message[1]))
    await writer.drain()
    return message[1], writer


class Server:
    """A real Listener on SERVER running ``hello`` (or ``two_frames``); the names it handed over, in order."""

    def __init__(
        self,
        limits: Limits,
        reserved: Callable[[str], bool] = lambda host: False,
        two_frames: bool = False,
        **kwargs: Any,
    ) -> None:
        self.joined: list[str] = []
        handshake = self.two_frames if two_frames else kwargs.pop("handshake", hello)
        self.listener: Listener[Joined] = Listener(handshake, self.on_done, limits, reserved, **kwargs)
        self.clients: list[asyncio.StreamWriter] = []

    async def two_frames(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> Joined | None:
        """A handshake of two frames from the dialer (``hello NAME``, then ``go``) that tells the
        listener it made progress once the first is in, as the lobby's and the links' do."""
        message = await read_frame(reader)
        self.listener.progress(writer)
        writer.write(frame("more"))
        if await read_frame(reader) != ["go"]:
            return None
        writer.write(frame("welcome", message[1]))
        await writer.drain()
        return message[1], writer

    def on_done(self, joined: Joined) -> None:
        name, writer = joined
        self.joined.append(name)
        writer.close()
        if name == "bad":
            raise ValueError("on_done failed for this one")

    @property
    def stats(self) -> Stats:
        return self.listener.stats

    async def connect(self, source: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
        reader, writer = await asyncio.open_connection(SERVER, self.listener.port, local_addr=(source, 0))
        self.clients.append(writer)
        return reader, writer

    async def join(self, source: str, name: str) -> list[Any] | None:
        """An honest handshake from ``source``: the answer, or None when the listener closed the connection."""
        reader, writer = await self.connect(source)
        writer.write(frame("hello", name))
        try:
            return await read_frame(reader)
        except (asyncio.IncompleteReadError, ConnectionError):
            return None

    async def idle(self, source: str, first: bytes = b"") -> asyncio.StreamReader:
        """A connection from ``source`` that sends ``first`` and then nothing."""
        reader, writer = await self.connect(source)
        writer.write(first)
        return reader


def run(test: Callable[[Server], Coroutine[Any, Any, None]], server: Server) -> None:
    async def main() -> None:
        await server.listener.start(SERVER)
        try:
            await test(server)
        finally:
            for writer in server.clients:
                writer.transport.abort()
            await server.listener.close()

    asyncio.run(asyncio.wait_for(main(), 15))


async def closed(reader: asyncio.StreamReader) -> bool:
    """Whether the other side closed (or reset) the connection, after whatever it sent."""
    try:
        await reader.read()
    except ConnectionError:
        return True
    return reader.at_eof()


def welcome(name: str) -> list[Any]:
    return ["welcome", name]


OLD_LIMITS = Limits(per_address=8, total=32, first_byte=LONG, handshake=LONG)
"""The protocol 7 listener's numbers (8 per address, 32 in all): 4 addresses fill every slot."""


@pytest.mark.parametrize("limits", [OLD_LIMITS, Limits(first_byte=LONG, handshake=LONG)], ids=["8x32", "default"])
def test_slowloris_never_locks_out_an_honest_or_a_reserved_handshake(limits: Limits) -> None:
    """32 idle connections from 4 addresses: a new address still joins (the oldest idle one is
    evicted when every slot is taken), and a start record peer's slow rejoin is never evicted."""
    rejoiner = "127.0.0.200"

    async def test(server: Server) -> None:
        listener = server.listener
        hello_frame = frame("hello", "rejoiner")
        reader, writer = await server.connect(rejoiner)
        writer.write(hello_frame[:3])
        await listener.until(lambda s: s.started == 1)
        for i in range(32):
            await server.idle(f"127.0.1.{1 + i % 4}")
        await listener.until(lambda s: s.accepted == 33)
        held = min(32, 4 * limits.per_address, limits.total)
        slots = (listener.pending, listener.pending_reserved, dict(server.stats.refused))

        assert await server.join("127.0.0.5", "honest") == welcome("honest")
        writer.write(hello_frame[3:])
        assert await read_frame(reader) == welcome("rejoiner")
        assert server.joined == ["honest", "rejoiner"]
        assert slots == (held, 1, {SLOTS: 32 - held} if held < 32 else {})
        assert server.stats.evicted == (1 if held == limits.total else 0)

    run(test, Server(limits, reserved=lambda host: host == rejoiner))


def test_a_flood_from_256_addresses_never_locks_out_a_new_one() -> None:
    """256 addresses each start a handshake and go idle: the table forgets the oldest addresses,
    the oldest handshakes are evicted, and a 257th address still joins."""
    limits = Limits(table=16, first_byte=LONG, handshake=LONG)

    async def test(server: Server) -> None:
        for i in range(256):
            await server.idle(f"127.0.{2 + i // 128}.{1 + i % 128}", b"\0")
        await server.listener.until(lambda s: s.accepted == 256)
        assert server.stats.started == 256 and server.stats.refused == {}
        assert server.stats.evicted == 256 - limits.total
        assert server.listener.tracked == limits.table
        assert await server.join("127.0.9.9", "newcomer") == welcome("newcomer")

    run(test, Server(limits))


@pytest.mark.parametrize("first", [b"", b"\0"], ids=["silent", "one byte"])
def test_a_burst_from_many_addresses_does_not_cut_an_honest_handshake_in_flight(first: bytes) -> None:
    """An honest handshake has begun (part of its frame sent) when ``total`` connections arrive from
    16 addresses, four each, silent or after one byte: each newcomer over the limit evicts one of
    theirs, never the honest one, which then completes. (Cutting the oldest let any burst or churn
    of connections from many addresses cut every join in flight: a lobby's joiners failed 5 of 5
    under a connect-and-abort loop from 256 loopback addresses.)"""
    limits = Limits(first_byte=LONG, handshake=LONG)

    async def test(server: Server) -> None:
        listener = server.listener
        hello_frame = frame("hello", "honest")
        reader, writer = await server.connect("127.0.0.5")
        writer.write(hello_frame[:3])
        await listener.until(lambda s: s.started == 1)
        for i in range(limits.total):
            await server.idle(f"127.0.1.{1 + i % 16}", first)
        await listener.until(lambda s: s.accepted == 1 + limits.total)
        assert server.stats.evicted == 1 and listener.pending == limits.total
        writer.write(hello_frame[3:])
        assert await read_frame(reader) == welcome("honest")

    run(test, Server(limits))


def test_a_churn_one_connection_per_address_does_not_cut_a_handshake_that_made_progress() -> None:
    """An honest two-frame handshake has made progress (its first frame is in, the listener told) when
    256 addresses connect once each and send one byte: each newcomer over the limit evicts one of
    theirs, never the honest one, which then completes. (Before progress counted, every churn
    connection tied with the honest one (one byte heard, one slot) and the oldest, the honest
    one, was cut: 2 of 2 lobby joins in flight failed under a connect-and-abort churn.)"""
    limits = Limits(first_byte=LONG, handshake=LONG)

    async def test(server: Server) -> None:
        listener = server.listener
        reader, writer = await server.connect("127.0.0.5")
        writer.write(frame("hello", "honest"))
        assert await read_frame(reader) == ["more"]
        for i in range(256):
            await server.idle(f"127.0.{2 + i // 128}.{1 + i % 128}", b"\0")
        await listener.until(lambda s: s.accepted == 257)
        assert server.stats.evicted == 257 - limits.total and listener.pending == limits.total
        writer.write(frame("go"))
        assert await read_frame(reader) == welcome("honest")

    run(test, Server(limits, two_frames=True))


def test_stalled_handshakes_that_made_progress_cannot_leave_a_churn_only_the_new_ones_to_cut() -> None:
    """``total`` connections from 16 addresses make progress late and stall (a lobby's joiners that
    know the PIN, stopping after WELCOME: each costs one SPAKE2 start, so they are taken in turn and
    held); then an honest one from a new address begins, and 32 addresses connect once each. Once
    the stalled ones were accepted ``limits.progress`` ago their progress no longer protects them:
    the churn evicts them, and the honest one completes. (While progress protected for the whole
    handshake deadline, the honest one was the only handshake without progress, and the first
    newcomer cut it.)"""
    limits = Limits(first_byte=LONG, handshake=LONG)
    now = [0.0]

    async def test(server: Server) -> None:
        listener = server.listener
        stalled = [await server.connect(f"127.0.1.{1 + i % 16}") for i in range(limits.total)]
        await listener.until(lambda s: s.started == limits.total)
        now[0] += limits.progress * 0.9  # progress late in the window, so protected the longest
        for i, (reader, writer) in enumerate(stalled):
            writer.write(frame("hello", f"stalled{i}"))
            assert await read_frame(reader) == ["more"]
        now[0] += limits.progress * 0.1
        hello_frame = frame("hello", "honest")
        reader, writer = await server.connect("127.0.0.5")
        writer.write(hello_frame[:3])
        await listener.until(lambda s: s.started == limits.total + 1)
        for i in range(32):
            await server.idle(f"127.0.2.{1 + i}", b"\0")
        await listener.until(lambda s: s.accepted == limits.total + 33)
        assert server.stats.evicted == 33 and listener.pending == limits.total
        writer.write(hello_frame[3:])
        assert await read_frame(reader) == ["more"]
        writer.write(frame("go"))
        assert await read_frame(reader) == welcome("honest")

    run(test, Server(limits, two_frames=True, clock=lambda: now[0]))


def test_the_eviction_choice() -> None:
    """Progress first, then a word said, then the address's slots, then age (oldest first) decide."""
    fresh, heard, progressed = Candidate(False, False, 1), Candidate(False, True, 1), Candidate(True, True, 1)
    assert victim([progressed, heard, fresh]) == 2
    assert victim([progressed, heard]) == 1
    assert victim([progressed, Candidate(True, False, 1)]) == 1
    assert victim([heard, heard, Candidate(False, True, 2)]) == 2
    assert victim([progressed, progressed]) == 0
    assert victim([Candidate(True, False, 9), heard]) == 1
    with pytest.raises(ValueError):
        victim([])


def test_deadlines_close_idle_and_slow_connections() -> None:
    """No first byte within ``first_byte``: closed. A first byte in time extends the deadline to
    ``handshake`` from the accept, and an unfinished handshake is closed then."""
    limits = Limits(first_byte=0.05, handshake=0.5)

    async def test(server: Server) -> None:
        loop = asyncio.get_running_loop()
        began = loop.time()
        silent = await server.idle("127.0.0.2")
        await server.listener.until(lambda s: s.timed_out.get(FIRST_BYTE) == 1)
        assert loop.time() - began < limits.handshake
        assert await closed(silent)

        began = loop.time()
        slow = await server.idle("127.0.0.3", frame("hello", "slow")[:5])
        await server.listener.until(lambda s: s.timed_out.get(HANDSHAKE) == 1)
        assert loop.time() - began >= limits.handshake
        assert await closed(slow)
        assert server.stats.timed_out == {FIRST_BYTE: 1, HANDSHAKE: 1}
        assert server.listener.pending == 0

        assert await server.join("127.0.0.4", "quick") == welcome("quick")

    run(test, Server(limits))


def test_an_address_reconnecting_in_a_loop_is_cut_off_and_others_are_not() -> None:
    """``starts_per_address`` handshakes per window from one address; then it is refused until the
    window has passed, while another address joins; the table forgets addresses quiet for a window."""
    now = [100.0]
    limits = Limits(starts_per_address=3, window=10.0)

    async def test(server: Server) -> None:
        answers = [await server.join("127.0.0.7", f"loop{i}") for i in range(6)]
        assert answers == [welcome("loop0"), welcome("loop1"), welcome("loop2"), None, None, None]
        assert server.stats.refused == {RATE: 3}
        assert await server.join("127.0.0.8", "other") == welcome("other")
        assert server.listener.tracked == 2
        now[0] += limits.window
        assert await server.join("127.0.0.7", "later") == welcome("later")
        assert server.listener.tracked == 1

    run(test, Server(limits, clock=lambda: now[0]))


def test_one_address_holds_at_most_its_slots() -> None:
    """A fifth connection in its handshake from one address is refused at once; another address is not;
    a slot is free again once a handshake ends."""

    async def test(server: Server) -> None:
        idle = [await server.idle("127.0.0.9") for _ in range(4)]
        await server.listener.until(lambda s: s.started == 4)
        assert await server.join("127.0.0.9", "fifth") is None
        assert server.stats.refused == {SLOTS: 1}
        assert await server.join("127.0.0.10", "other") == welcome("other")
        server.clients[0].close()
        await server.listener.until(lambda s: s.failed == 1)
        assert await server.join("127.0.0.9", "again") == welcome("again")
        assert not any(reader.at_eof() for reader in idle[1:])

    run(test, Server(Limits(first_byte=LONG, handshake=LONG)))


def test_closing_cuts_pending_handshakes() -> None:
    cancelled: list[str] = []

    async def recording(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> Joined | None:
        try:
            return await hello(reader, writer)
        except asyncio.CancelledError:
            cancelled.append("cancelled")
            raise

    async def test(server: Server) -> None:
        readers = [await server.idle(f"127.0.0.{20 + i}", b"\0" * i) for i in range(3)]
        await server.listener.until(lambda s: s.started == 3)
        await server.listener.close()
        assert cancelled == ["cancelled"] * 3 and server.stats.closed == 3
        assert [await closed(reader) for reader in readers] == [True] * 3
        with pytest.raises(ConnectionRefusedError):
            await asyncio.open_connection(SERVER, server.listener.port)

    run(test, Server(Limits(first_byte=LONG, handshake=LONG), handshake=recording))


def test_a_failing_handshake_or_on_done_never_kills_the_listener(caplog: pytest.LogCaptureFixture) -> None:
    """Each is counted, logged with a reason (the exception's type when it has no message), and its
    connection closed; a declined peer gets the handshake's answer before the close."""
    caplog.set_level(logging.DEBUG, logger="lanopoly.net.listener")

    async def test(server: Server) -> None:
        reader, writer = await server.connect("127.0.0.30")
        writer.write(frame("boom"))
        assert await closed(reader)
        await server.listener.until(lambda s: s.failed == 1)
        assert any("handshake failed: RuntimeError" in r.getMessage() for r in caplog.records)

        reader, writer = await server.connect("127.0.0.31")
        writer.write(frame("let me in"))
        assert await read_frame(reader) == ["no"]
        assert await closed(reader)
        assert server.stats.declined == 1

        assert await server.join("127.0.0.32", "bad") == welcome("bad")
        await server.listener.until(lambda s: s.failed == 2)
        assert any("on_done failed for this one" in r.getMessage() for r in caplog.records)

        assert await server.join("127.0.0.33", "fine") == welcome("fine")
        assert server.stats.completed == 1 and server.joined == ["bad", "fine"]

    run(test, Server(Limits()))


def test_one_port_on_several_addresses() -> None:
    """``start`` binds the same port on every address given, also across calls; a taken port fails
    without leaving a half-started listener behind."""

    async def main() -> None:
        listener: Listener[Joined] = Listener(hello, lambda joined: joined[1].close())
        port = await listener.start(["127.0.0.1", "127.0.0.3"])
        assert await listener.start("127.0.0.4", port) == port
        for address in ("127.0.0.1", "127.0.0.3", "127.0.0.4"):
            reader, writer = await asyncio.open_connection(address, port)
            writer.write(frame("hello", address))
            assert await read_frame(reader) == welcome(address)
            writer.close()
        other: Listener[Joined] = Listener(hello, lambda joined: None)
        with pytest.raises(OSError):
            await other.start(["127.0.0.5", "127.0.0.4"], port)
        with pytest.raises(ConnectionRefusedError):
            await asyncio.open_connection("127.0.0.5", port)
        await listener.close()
        with pytest.raises(RuntimeError, match="closed"):
            await listener.start("127.0.0.1")

    asyncio.run(asyncio.wait_for(main(), 15))


def test_any_port_on_several_addresses_is_one_free_on_all() -> None:
    """The port the first address got may be taken on the next one by another program (a LAN test
    failed so, under load): ``start`` then tries another port instead of failing. The test takes
    the first port found on 127.0.0.3, with a real socket, just before the listener binds it there."""

    async def main() -> None:
        loop = asyncio.get_running_loop()
        create_server = loop.create_server
        taken: list[socket.socket] = []

        async def another_program_took_it(factory: Any, host: str, port: int, **kwargs: Any) -> asyncio.Server:
            if host == "127.0.0.3" and not taken:
                blocker = socket.socket()
                blocker.bind((host, port))
                blocker.listen()
                taken.append(blocker)
            return await create_server(factory, host, port, **kwargs)

        loop.create_server = another_program_took_it  # type: ignore[method-assign]
        listener: Listener[Joined] = Listener(hello, lambda joined: joined[1].close())
        try:
            port = await listener.start(["127.0.0.1", "127.0.0.3"])
            assert taken and port != taken[0].getsockname()[1]
            for address in ("127.0.0.1", "127.0.0.3"):
                reader, writer = await asyncio.open_connection(address, port)
                writer.write(frame("hello", address))
                assert await read_frame(reader) == welcome(address)
                writer.close()
        finally:
            await listener.close()
            for blocker in taken:
                blocker.close()

    asyncio.run(asyncio.wait_for(main(), 15))


@pytest.mark.parametrize(
    "bad",
    [
        {"total": 0},
        {"per_address": -1},
        {"table": True},
        {"window": 0.0},
        {"handshake": float("nan")},
        {"progress": -1.0},
    ],
)
def test_limits_refuse_nonsense(bad: dict[str, Any]) -> None:
    name = next(iter(bad))
    with pytest.raises(ValueError, match=f"Limits.{name} must be a positive"):
        Limits(**bad)


def test_source_addresses_are_plain() -> None:
    """An IPv4-mapped IPv6 peer counts as its IPv4 address; a connection without one is refused."""
    assert _host(("::ffff:192.168.1.5", 4000, 0, 0)) == "192.168.1.5"
    assert _host(("fe80::1", 4000, 0, 2)) == "fe80::1"
    assert _host(("10.0.0.7", 4000)) == "10.0.0.7"
    assert _host(None) is None and _host("") is None
