"""TCP connections carrying frames, plain during a handshake and encrypted after it (asyncio).

A frame is ``[u32 length][payload]`` (``wire.py``); its length is checked against the connection's
cap before anything is buffered: 4 KiB until the handshake is done, 64 KiB after. Once secured,
every payload is sealed with the link's cipher (``cipher.py``). A connection never raises anything
but ``LinkClosed`` (the other end is gone, or sent something that is no frame): callers close it
and log the reason, which is never empty. A connection that broke still yields every frame that
arrived before the break, then ``LinkClosed`` (``streams.py``): a write that failed because the
other end is gone must not lose what it said last. A handshake reads with ``recv``; a game link, once
secured and adopted, is read by push (``deliver``): its payloads are handed on as they are read, and
the reason the connection ended is handed on the same way.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from lanopoly.net import reason
from lanopoly.net.cipher import OVERHEAD, Cipher
from lanopoly.net.streams import KeepingProtocol, open_connection, unread
from lanopoly.net.wire import HEADER, WireError, frame

log = logging.getLogger(__name__)

HANDSHAKE_CAP = 4 * 1024
GAME_CAP = 64 * 1024
READ_SIZE = 64 * 1024
"""Bytes asked of the socket at a time: frames that arrived together are taken from one read."""
MAX_BUFFERED = 4 * 1024 * 1024
"""Bytes queued towards a peer that does not read: past this the link is closed (it is stuck)."""


class LinkClosed(Exception):
    """The connection is gone (closed, broken, or it carried something that is no frame)."""


class Unreachable(LinkClosed):
    """No connection could be made to ``host:port``: ``why`` is ``refused`` (nothing listens
    there), ``timeout`` (no answer within ``timeout`` seconds) or ``other`` (the message says)."""

    def __init__(self, message: str, host: str, port: int, why: str, timeout: float) -> None:
        super().__init__(message)
        self.host = host
        self.port = port
        self.why = why
        self.timeout = timeout


class Conn:
    """One TCP connection: frames in and out, encrypted once ``secure`` was called."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, label: str = "") -> None:
        self.reader = reader
        self.writer = writer
        protocol = writer.transport.get_protocol()
        self._protocol = protocol if isinstance(protocol, KeepingProtocol) else None
        peer = writer.get_extra_info("peername")
        self.remote_host = str(peer[0]) if isinstance(peer, tuple) and peer else ""
        self.label = label or (f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) and len(peer) >= 2 else "?")
        self.cap = HANDSHAKE_CAP
        self.cipher: Cipher | None = None
        self._closed = False
        self._buffer = bytearray()
        """Bytes read and not yet taken: at most one frame and one read beyond it (``recv``)."""

    def secure(self, cipher: Cipher) -> None:
        """Encrypt every later frame in both directions; the game's larger frames are allowed."""
        self.cipher = cipher
        self.cap = GAME_CAP

    async def recv(self, timeout: float | None = None) -> bytes:
        """The next payload (decrypted); LinkClosed if the connection ends or misbehaves. Handshakes
        use it; a game link is read by ``deliver``."""
        data = self._next_frame()
        if data is None:
            try:
                if timeout is None:  # a game's link: no timer to arm and cancel for every frame
                    data = await self._read_frame()
                else:
                    async with asyncio.timeout(timeout):
                        data = await self._read_frame()
            except TimeoutError:
                raise LinkClosed(f"nothing received within {timeout:g} s") from None
            except (ConnectionError, OSError) as e:
                raise LinkClosed(f"connection broke: {reason(e)}") from None
        if self.cipher is not None:
            try:
                data = self.cipher.open(data)
            except WireError as e:
                raise LinkClosed(str(e)) from None
        return data

    async def _read_frame(self) -> bytes:
        """Read until a whole frame is in; its payload (still sealed)."""
        while True:
            chunk = await self.reader.read(READ_SIZE)
            if not chunk:
                broken = self._protocol.broken if self._protocol is not None else None
                if broken is not None:
                    raise LinkClosed(f"connection broke: {reason(broken)}")
                raise LinkClosed("stream ended inside a frame" if self._buffer else "end of stream")
            self._buffer += chunk
            data = self._next_frame()
            if data is not None:
                return data

    def _next_frame(self) -> bytes | None:
        """The first whole frame's payload taken from the bytes read, or None. Its length is checked
        against the cap as soon as its header is in, before its bytes are waited for; frames are cut
        one at a time, so a frame read along with the handshake's last one gets the game's cap."""
        buffer = self._buffer
        if len(buffer) < HEADER.size:
            return None
        (length,) = HEADER.unpack_from(buffer)
        if length == 0 or length > self.cap:
            raise LinkClosed(f"frame of {length} bytes (cap {self.cap})")
        end = HEADER.size + length
        if len(buffer) < end:
            return None
        data = bytes(buffer[HEADER.size : end])
        del buffer[:end]
        return data

    def send(self, payload: bytes) -> None:
        """Queue one payload; LinkClosed if the connection is gone or the other end stopped reading."""
        if self._closed or self.writer.is_closing():
            raise LinkClosed(f"connection to {self.label} is closed")
        transport = self.writer.transport
        if transport is not None and transport.get_write_buffer_size() > MAX_BUFFERED:
            raise LinkClosed(f"{self.label} does not read what it is sent")
        if self.cipher is not None:
            if len(payload) > self.cap - OVERHEAD:
                raise LinkClosed(f"a payload of {len(payload)} bytes does not fit a frame")
            payload = self.cipher.seal(payload)
        try:
            self.writer.write(frame(payload, self.cap))
        except (WireError, ConnectionError, OSError) as e:
            raise LinkClosed(reason(e)) from None

    def deliver(self, on_payload: Callable[[bytes], bool], on_closed: Callable[[str], None]) -> None:
        """Push instead of pull, for a secured game link: from the next pass of the event loop, every
        payload is opened and handed to ``on_payload`` from the transport's ``data_received`` itself,
        frames of one read in order, until it returns False; ``on_closed`` gets the reason once if the
        connection ends or misbehaves first. ``recv`` is not called again. A game link read by a task
        cost two passes of the event loop per read (the stream wakes the task, the task runs) and a
        coroutine chain per frame."""
        transport = self.writer.transport
        feed = _Feed(self, transport, on_payload, on_closed)
        transport.set_protocol(feed)  # bytes arriving from now on come to the feed
        stream: bytearray = self.reader._buffer  # type: ignore[attr-defined]  # read by the stream, not yet taken
        self._buffer += stream
        stream.clear()
        broke = self.reader.exception()
        if broke is not None:
            feed.ended = f"connection broke: {reason(broke)}"
        elif self.reader.at_eof():
            feed.eof_received()
        asyncio.get_running_loop().call_soon(feed.start)

    @property
    def closed(self) -> bool:
        return self._closed or self.writer.is_closing()

    async def close(self) -> None:
        """Close after what was queued is sent (never raises, never waits more than 2 s)."""
        if self._closed:
            return
        self._closed = True
        with contextlib.suppress(Exception):
            async with asyncio.timeout(2.0):
                await self.writer.drain()
        self.writer.close()
        with contextlib.suppress(Exception):
            async with asyncio.timeout(2.0):
                await self.writer.wait_closed()


class _Feed(asyncio.Protocol):
    """A game link's reading side once ``Conn.deliver`` was called. Writing, ``drain`` and ``close``
    stay the stream's: its protocol still hears of flow control and of the connection's end. Until
    ``start`` (the next pass of the loop, after the driver adopted the link) bytes are only kept."""

    def __init__(
        self,
        conn: Conn,
        transport: asyncio.BaseTransport,
        on_payload: Callable[[bytes], bool],
        on_closed: Callable[[str], None],
    ) -> None:
        self.conn = conn
        self.transport = transport
        self.stream = transport.get_protocol()
        self.on_payload = on_payload
        self.on_closed = on_closed
        self.started = False
        self.done = False
        self.ended: str | None = None
        """Why the connection ended before ``start``."""

    def start(self) -> None:
        """Hand on what came so far, frames first, then the end if it came."""
        self.started = True
        self.data_received(b"")
        if self.ended is not None:
            self._end(self.ended)

    def data_received(self, data: bytes) -> None:
        conn = self.conn
        if self.done:
            return
        conn._buffer += data
        if not self.started:
            return
        try:
            while (sealed := conn._next_frame()) is not None:
                assert conn.cipher is not None  # delivered links are secured
                try:
                    payload = conn.cipher.open(sealed)
                except WireError as e:
                    raise LinkClosed(str(e)) from None
                if not self.on_payload(payload):
                    self.done = True
                    return
        except LinkClosed as e:
            self._end(reason(e))

    def eof_received(self) -> bool | None:
        self._end("end of stream")
        return None  # the transport closes

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is not None:  # a break: what the kernel still holds came before it (``streams.py``)
            self.data_received(unread(self.transport))
        self.stream.connection_lost(exc)
        self._end(f"connection broke: {reason(exc)}" if exc is not None else "end of stream")

    def pause_writing(self) -> None:
        self.stream.pause_writing()

    def resume_writing(self) -> None:
        self.stream.resume_writing()

    def _end(self, why: str) -> None:
        if self.done:
            return
        if not self.started:  # said at start, after the frames that came before it
            self.ended = self.ended or why
            return
        self.done = True
        if why == "end of stream" and self.conn._buffer:
            why = "stream ended inside a frame"
        self.on_closed(why)


async def connect(host: str, port: int, source: str | None = None, timeout: float = 5.0) -> Conn:
    """A TCP connection to ``host:port`` (from the address ``source`` when given); LinkClosed on failure."""
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await open_connection(host, port, local_addr=(source, 0) if source else None)
    except TimeoutError:
        message = f"cannot reach {host}:{port}: no answer within {timeout:g} s"
        raise Unreachable(message, host, port, "timeout", timeout) from None
    except OSError as e:
        why = "refused" if isinstance(e, ConnectionRefusedError) else "other"
        raise Unreachable(f"cannot reach {host}:{port}: {reason(e)}", host, port, why, timeout) from None
    return Conn(reader, writer, f"{host}:{port}")
