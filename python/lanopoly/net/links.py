"""TCP connections carrying frames, plain during a handshake and encrypted after it (asyncio).

A frame is ``[u32 length][payload]`` (``wire.py``); its length is checked against the connection's
cap before anything is buffered: 4 KiB until the handshake is done, 64 KiB after. Once secured,
every payload is sealed with the link's cipher (``cipher.py``). A connection never raises anything
but ``LinkClosed`` (the other end is gone, or sent something that is no frame): callers close it
and log the reason, which is never empty.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from lanopoly.net import reason
from lanopoly.net.cipher import OVERHEAD, Cipher
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


class Conn:
    """One TCP connection: frames in and out, encrypted once ``secure`` was called."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter, label: str = "") -> None:
        self.reader = reader
        self.writer = writer
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
        """The next payload (decrypted); LinkClosed if the connection ends or misbehaves."""
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


async def connect(host: str, port: int, source: str | None = None, timeout: float = 5.0) -> Conn:
    """A TCP connection to ``host:port`` (from the address ``source`` when given); LinkClosed on failure."""
    try:
        async with asyncio.timeout(timeout):
            reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0) if source else None)
    except TimeoutError:
        raise LinkClosed(f"cannot reach {host}:{port}: no answer within {timeout:g} s") from None
    except OSError as e:
        raise LinkClosed(f"cannot reach {host}:{port}: {reason(e)}") from None
    return Conn(reader, writer, f"{host}:{port}")
