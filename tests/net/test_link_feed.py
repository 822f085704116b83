"""A game link read by push (``Conn.deliver``): payloads handed on from ``data_received``, in order.

Real TCP on 127.0.0.1: a dialed ``Conn`` and the listener's, both secured with matching ciphers.
Frames that the stream had already read when ``deliver`` was called come first, then the rest; a
frame that does not open ends the link with its reason, once; the consumer may stop reading; the
stream still hears of the end, so closing the connection does not wait for a timeout.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from lanopoly.net import wire
from lanopoly.net.cipher import Cipher
from lanopoly.net.links import Conn, connect

A, B = b"a" * 32, b"b" * 32


class Sink:
    """What a link delivered, and why it ended; ``stop_after`` payloads then False."""

    def __init__(self, stop_after: int | None = None) -> None:
        self.payloads: list[bytes] = []
        self.ends: list[str] = []
        self.stop_after = stop_after
        self.changed = asyncio.Event()

    def payload(self, data: bytes) -> bool:
        self.payloads.append(data)
        self.changed.set()
        return self.stop_after is None or len(self.payloads) < self.stop_after

    def closed(self, why: str) -> None:
        self.ends.append(why)
        self.changed.set()

    async def until(self, done: Callable[[], bool]) -> None:
        async with asyncio.timeout(10):  # a guard against a hang, never a wait for time to pass
            while not done():
                self.changed.clear()
                await self.changed.wait()


async def pair(body: Callable[[Conn, Conn], Awaitable[None]]) -> None:
    """Run ``body(dialed, accepted)`` on a fresh, secured loopback connection."""
    accepted: asyncio.Queue[Conn] = asyncio.Queue()

    async def on_client(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await accepted.put(Conn(reader, writer))

    server = await asyncio.start_server(on_client, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        dialed = await connect("127.0.0.1", port)
        other = await accepted.get()
        dialed.secure(Cipher(A, B))
        other.secure(Cipher(B, A))
        await body(dialed, other)
        await dialed.close()
        await other.close()
    finally:
        server.close()
        await server.wait_closed()


def sealed(conn: Conn, payload: bytes) -> bytes:
    """The frame ``conn.send(payload)`` would write."""
    assert conn.cipher is not None
    return wire.frame(conn.cipher.seal(payload), conn.cap)


def test_frames_read_before_deliver_come_first_then_the_rest_in_order() -> None:
    async def body(dialed: Conn, other: Conn) -> None:
        dialed.writer.write(b"".join(sealed(dialed, b"early %d" % i) for i in range(3)))  # one segment
        assert await other.recv(5) == b"early 0"  # one read took all three: two wait in the conn
        other.reader.feed_data(sealed(dialed, b"early 3"))  # as if the stream had read it since
        sink = Sink()
        other.deliver(sink.payload, sink.closed)
        assert sink.payloads == []  # nothing from within deliver: the caller adopts the link first
        for i in range(4, 6):
            dialed.send(b"late %d" % i)
        await sink.until(lambda: len(sink.payloads) == 5 or bool(sink.ends))
        assert sink.payloads == [b"early 1", b"early 2", b"early 3", b"late 4", b"late 5"]
        assert sink.ends == []

    asyncio.run(pair(body))


def test_a_frame_that_does_not_open_ends_the_link_once_with_its_reason() -> None:
    async def body(dialed: Conn, other: Conn) -> None:
        sink = Sink()
        other.deliver(sink.payload, sink.closed)
        dialed.send(b"fine")
        dialed.cipher = Cipher(b"x" * 32, B)  # the next frames are sealed with another key
        dialed.cipher.sent = 1
        dialed.send(b"forged")
        dialed.send(b"after")
        await sink.until(lambda: bool(sink.ends))
        assert sink.payloads == [b"fine"]
        assert sink.ends == ["frame 1 failed authentication (tampered or forged)"]

    asyncio.run(pair(body))


def test_the_consumer_stops_the_reading() -> None:
    async def body(dialed: Conn, other: Conn) -> None:
        sink = Sink(stop_after=2)
        other.deliver(sink.payload, sink.closed)
        for i in range(4):
            dialed.send(b"%d" % i)
        await dialed.close()
        await sink.until(lambda: len(sink.payloads) >= 2)
        async with asyncio.timeout(10):
            await other.writer.wait_closed()  # the stream hears of the end (its close does not time out)
        assert sink.payloads == [b"0", b"1"]
        assert sink.ends == []

    asyncio.run(pair(body))


def test_the_end_of_the_stream_is_said_once_after_the_frames_before_it() -> None:
    async def body(dialed: Conn, other: Conn) -> None:
        sink = Sink()
        other.deliver(sink.payload, sink.closed)
        dialed.send(b"last")
        await dialed.close()
        await sink.until(lambda: bool(sink.ends))
        assert sink.payloads == [b"last"]
        assert sink.ends == ["end of stream"]
        async with asyncio.timeout(10):
            await other.writer.wait_closed()

    asyncio.run(pair(body))


def test_an_end_before_deliver_is_said_after_the_frames_already_read() -> None:
    async def body(dialed: Conn, other: Conn) -> None:
        dialed.writer.write(sealed(dialed, b"one") + sealed(dialed, b"two"))
        assert await other.recv(5) == b"one"
        other.reader.feed_data(sealed(dialed, b"three"))
        other.reader.feed_eof()  # as if the stream had read the end
        sink = Sink()
        other.deliver(sink.payload, sink.closed)
        await sink.until(lambda: bool(sink.ends))
        assert sink.payloads == [b"two", b"three"]
        assert sink.ends == ["end of stream"]

    asyncio.run(pair(body))
