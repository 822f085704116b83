"""Length-prefixed msgpack frames over asyncio streams, with hard size caps and strict decoding.

A frame is ``[u32 big-endian length][msgpack payload]``. The length is checked against the
connection's cap *before* anything is read (4 KiB until the start record is agreed, 64 KiB after),
so a peer cannot make us buffer more than that. A payload is decoded with ``msgpack.unpackb``
(whose limits scale to the frame), ``strict_map_key=True`` (only str/bytes map keys) and an
``ext_hook`` that rejects every ExtType. Messages are positional arrays ``[type, version, ...]``.

Anything malformed raises ``FrameError``; the caller closes that connection and logs it. A
connection error never propagates as anything else than ``FrameError`` or ``ConnectionClosed``.

Once a connection's handshake is done (``secure``), every frame carries ``counter || AEAD(payload)``
instead of the bare payload (see ``secure.Cipher``); the cap applies to the encrypted frame, and a
frame that fails to decrypt or is out of order is a ``FrameError`` like any malformed frame.
"""

from __future__ import annotations

import asyncio
import logging
import struct
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import msgpack  # type: ignore[import-untyped]

if TYPE_CHECKING:
    from lanopoly.net.secure import Cipher

log = logging.getLogger(__name__)

PRE_START_MAX_FRAME = 4 * 1024
"""Cap on a frame before the start record is agreed (handshakes, lobby messages, the start record)."""
MAX_FRAME = 64 * 1024
"""Cap on a frame once the game runs."""
_HEADER = struct.Struct(">I")
AEAD_OVERHEAD = 8 + 16
"""Bytes an encrypted frame adds to its payload: the 64-bit counter and the Poly1305 tag."""


class FrameError(Exception):
    """A frame that is oversized, truncated or not a well-formed message."""


class ConnectionClosed(Exception):
    """The other end closed the connection (or it broke) between frames."""


def _reject_ext(code: int, data: bytes) -> Any:
    raise FrameError(f"ExtType {code} is not allowed")


_PLAIN = (type(None), bool, int, str, bytes)


def _check_plain(value: Any) -> None:
    """Refuse anything but nil, bool, int, str, bytes, arrays and maps.

    msgpack decodes the Timestamp extension (type -1) itself, without calling ``ext_hook``; floats
    have no place in this protocol either.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is list:
            stack.extend(item)
        elif kind is dict:
            stack.extend(item.keys())
            stack.extend(item.values())
        elif kind not in _PLAIN:
            raise FrameError(f"{kind.__name__} values are not allowed")


def pack(message: Sequence[Any]) -> bytes:
    """Encode a positional message (a sequence of ints, str, bytes, lists and str-keyed dicts)."""
    payload: bytes = msgpack.packb(list(message), use_bin_type=True, strict_types=False)
    return payload


def unpack(payload: bytes) -> list[Any]:
    """Decode one message payload strictly; raise FrameError unless it is ``[type:int, version:int, ...]``."""
    try:
        message = msgpack.unpackb(
            payload,
            raw=False,
            use_list=True,
            strict_map_key=True,
            ext_hook=_reject_ext,
            timestamp=0,
        )
    except FrameError:
        raise
    except Exception as e:  # msgpack raises ValueError subclasses, StackError, UnicodeDecodeError, ...
        raise FrameError(f"undecodable payload: {type(e).__name__}: {e}") from None
    _check_plain(message)
    if not isinstance(message, list) or len(message) < 2:
        raise FrameError("a message must be an array [type, version, ...]")
    kind, version = message[0], message[1]
    if type(kind) is not int or type(version) is not int:
        raise FrameError("message type and version must be integers")
    return message


def frame(payload: bytes, max_frame: int = MAX_FRAME) -> bytes:
    """Prefix a payload with its length; refuse to build a frame the other side would reject."""
    if not 0 < len(payload) <= max_frame:
        raise FrameError(f"payload of {len(payload)} bytes does not fit a frame (cap {max_frame})")
    return _HEADER.pack(len(payload)) + payload


async def read_frame(reader: asyncio.StreamReader, max_frame: int) -> bytes:
    """Read one frame's payload; ConnectionClosed at a clean end of stream, FrameError otherwise."""
    try:
        header = await reader.readexactly(_HEADER.size)
    except asyncio.IncompleteReadError as e:
        if not e.partial:
            raise ConnectionClosed("end of stream") from None
        raise FrameError("stream ended inside a frame header") from None
    except (ConnectionError, OSError) as e:
        raise ConnectionClosed(f"connection broke: {e}") from None
    (length,) = _HEADER.unpack(header)
    if length == 0:
        raise FrameError("empty frame")
    if length > max_frame:
        raise FrameError(f"frame of {length} bytes exceeds the cap of {max_frame}")
    try:
        return await reader.readexactly(length)
    except asyncio.IncompleteReadError:
        raise FrameError("stream ended inside a frame") from None
    except (ConnectionError, OSError) as e:
        raise ConnectionClosed(f"connection broke: {e}") from None


class FramedConnection:
    """One TCP connection carrying frames; its cap can be raised once the start record is agreed.

    ``recv`` returns the exact payload bytes as well as the decoded message, so that callers can
    hash what was on the wire instead of a re-encoding (msgpack encodings are not canonical).
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        max_frame: int = PRE_START_MAX_FRAME,
        label: str = "",
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.max_frame = max_frame
        peer = writer.get_extra_info("peername")
        self.remote_host: str = str(peer[0]) if isinstance(peer, tuple) and peer else ""
        self.label = label or (f"{peer[0]}:{peer[1]}" if isinstance(peer, tuple) and len(peer) >= 2 else "?")
        self._closed = False
        self.cipher: Cipher | None = None
        self.binding = b""
        """The handshake's transcript hash (channel binding) once ``secure`` was called."""

    def secure(self, cipher: Cipher, binding: bytes) -> None:
        """Encrypt every later frame in both directions (called once the handshake succeeded)."""
        self.cipher = cipher
        self.binding = binding

    async def recv_raw(self) -> tuple[bytes, list[Any]]:
        """The next message: its exact (decrypted) payload bytes and its decoded form."""
        payload = await read_frame(self.reader, self.max_frame)
        if self.cipher is not None:
            payload = self.cipher.open(payload)
        return payload, unpack(payload)

    async def recv(self) -> list[Any]:
        """The next decoded message."""
        return (await self.recv_raw())[1]

    async def recv_within(self, timeout: float) -> tuple[bytes, list[Any]]:
        """The next message within ``timeout`` seconds (a handshake deadline); TimeoutError otherwise."""
        return await asyncio.wait_for(self.recv_raw(), timeout)

    def send_payload_nowait(self, payload: bytes) -> None:
        """Queue an already encoded payload; ConnectionClosed if the connection is gone."""
        if self._closed or self.writer.is_closing():
            raise ConnectionClosed(f"connection to {self.label} is closed")
        if self.cipher is not None:
            if not 0 < len(payload) <= self.max_frame - AEAD_OVERHEAD:
                raise FrameError(f"payload of {len(payload)} bytes does not fit an encrypted frame")
            payload = self.cipher.seal(payload)
        self.writer.write(frame(payload, self.max_frame))

    async def send_payload(self, payload: bytes) -> None:
        """Send an already encoded payload and wait until the transport buffer has room."""
        self.send_payload_nowait(payload)
        try:
            await self.writer.drain()
        except (ConnectionError, OSError) as e:
            raise ConnectionClosed(f"connection to {self.label} broke: {e}") from None

    async def send(self, message: Sequence[Any]) -> None:
        """Encode and send one message."""
        await self.send_payload(pack(message))

    @property
    def closed(self) -> bool:
        return self._closed

    async def close(self) -> None:
        """Close the connection (idempotent, never raises)."""
        if self._closed:
            return
        self._closed = True
        try:
            self.writer.close()
            await asyncio.wait_for(self.writer.wait_closed(), 2.0)
        except (ConnectionError, OSError, TimeoutError):
            pass
        except Exception:  # pragma: no cover - closing must never crash a peer
            log.debug("error while closing %s", self.label, exc_info=True)
