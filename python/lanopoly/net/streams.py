"""Stream connections that keep every byte the other end sent before the connection broke.

When a write fails (the other end's process is gone: its kernel answers with a reset) or a read
fails with a reset, asyncio's socket transport stops reading at once and its stream reader raises
that error before any byte it still buffers. Yet the kernel keeps what arrived before the reset,
and it is often the most important message of the connection: a peer that was stopped
(``kill -STOP``, a laptop asleep) past the others' step timeout runs again, sends what it had to
send, and its first write to a peer that froze and exited breaks the connection before it read
that peer's FREEZE. It then found the others "dropped and did not come back" instead of learning
why the game froze.

``KeepingProtocol`` reads, when the connection breaks, what the kernel still holds for it, and
ends the stream after those bytes rather than raising: a reader sees everything that was sent,
then the end of the stream; ``broken`` says why it ended. Every connection of the game is made
with it (``open_connection`` here, and the listener's protocol).
"""

from __future__ import annotations

import asyncio
import os
import socket

READ_SIZE = 64 * 1024
UNREAD_CAP = 8 * 1024 * 1024
"""Bytes taken at most from the kernel when a connection breaks (its receive buffer holds less)."""


def unread(transport: asyncio.BaseTransport | None) -> bytes:
    """What the kernel still holds for ``transport``'s socket (read without blocking, on a duplicate
    of its descriptor: the transport closes its own just after)."""
    held = transport.get_extra_info("socket") if transport is not None else None
    if held is None:
        return b""
    try:
        sock = socket.socket(held.family, held.type, held.proto, fileno=os.dup(held.fileno()))
    except OSError:
        return b""
    chunks: list[bytes] = []
    size = 0
    with sock:
        sock.setblocking(False)
        while size < UNREAD_CAP:
            try:
                data = sock.recv(READ_SIZE)
            except OSError:  # nothing more now (BlockingIOError), or the reset itself after the data
                break
            if not data:
                break
            chunks.append(data)
            size += len(data)
    return b"".join(chunks)


class KeepingProtocol(asyncio.StreamReaderProtocol):
    """A stream reader protocol whose stream ends after every byte received, even when it broke."""

    def __init__(self, reader: asyncio.StreamReader, *args: object, **kwargs: object) -> None:
        super().__init__(reader, *args, **kwargs)  # type: ignore[arg-type]
        self._kept_reader = reader
        self._kept_transport: asyncio.BaseTransport | None = None
        self.broken: BaseException | None = None
        """Why the connection broke (None: it ended, or is still up)."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self._kept_transport = transport
        super().connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is not None:
            self.broken = exc
            rest = unread(self._kept_transport)
            if rest:
                self._kept_reader.feed_data(rest)
        self._kept_transport = None
        super().connection_lost(None)  # the end of the stream, after what came: an error would hide it


async def open_connection(
    host: str, port: int, local_addr: tuple[str, int] | None = None
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """``asyncio.open_connection`` with a ``KeepingProtocol``."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(loop=loop)
    protocol = KeepingProtocol(reader, loop=loop)
    transport, _ = await loop.create_connection(lambda: protocol, host, port, local_addr=local_addr)
    return reader, asyncio.StreamWriter(transport, protocol, reader, loop)
