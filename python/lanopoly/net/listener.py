"""TEMPORARY stand-in for the helper's listener (not committed)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Limits:
    per_address: int = 4
    total: int = 64
    first_byte: float = 2.0
    handshake: float = 5.0
    starts_per_address: int = 60
    window: float = 10.0
    table: int = 1024


class Listener:
    def __init__(
        self,
        handshake: Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[Any]],
        on_done: Callable[[Any], None],
        limits: Limits = Limits(),
        reserved: Callable[[str], bool] = lambda h: False,
    ) -> None:
        self._handshake = handshake
        self._on_done = on_done
        self._limits = limits
        self._servers: list[asyncio.Server] = []

    async def start(self, host: str, port: int) -> int:
        async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            try:
                async with asyncio.timeout(self._limits.handshake):
                    result = await self._handshake(reader, writer)
            except Exception:
                writer.close()
                return
            self._on_done(result)

        server = await asyncio.start_server(handle, host, port)
        self._servers.append(server)
        return int(server.sockets[0].getsockname()[1])

    async def close(self) -> None:
        for s in self._servers:
            s.close()
