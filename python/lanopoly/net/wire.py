"""The bytes on the wire: strict msgpack, length-prefixed frames, and checked field readers.

A frame is ``[u32 big-endian length][payload]``; the length is checked against a cap before
anything is buffered (``FrameBuffer``). A payload is msgpack decoded strictly: str/bytes map keys
only, no ExtType, no Timestamp, no floats (``unpack``). Messages are positional arrays
``[type, version, ...fields]``; the readers below check each field's type and range, so a message
type's parser is a short list of checks. Nothing here does I/O: the driver feeds bytes in.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from typing import Any

import msgpack  # type: ignore[import-untyped]

HEADER = struct.Struct(">I")
MAX_STEP = 2**40


class WireError(Exception):
    """Bytes that are not a well-formed frame or message: the connection they came on is closed."""


def _reject_ext(code: int, data: bytes) -> Any:
    raise WireError(f"ExtType {code} is not allowed")


_PLAIN = frozenset((type(None), bool, int, str, bytes))


def _check_plain(value: Any) -> None:
    """Refuse anything but nil, bool, int, str, bytes, arrays and maps (msgpack decodes Timestamps
    without asking ``ext_hook``; floats have no place in this protocol either)."""
    if type(value) is list:  # a flat message is the usual case: a plain loop, no generator
        for item in value:
            if type(item) not in _PLAIN:
                break
        else:
            return
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
            raise WireError(f"{kind.__name__} values are not allowed")


def pack(message: Sequence[Any]) -> bytes:
    """Encode a positional message (ints, str, bytes, lists and str-keyed dicts)."""
    payload: bytes = msgpack.packb(list(message), use_bin_type=True)
    return payload


_WHY = {"FormatError": "a byte that begins no msgpack value (0xc1)"}
"""What an exception msgpack raises without a message meant (its type's name says too little)."""


def unpack(payload: bytes) -> list[Any]:
    """Decode a payload strictly into a non-empty array; WireError otherwise."""
    try:
        value = msgpack.unpackb(
            payload, raw=False, use_list=True, strict_map_key=True, ext_hook=_reject_ext, timestamp=0
        )
    except WireError:
        raise
    except Exception as e:  # msgpack raises ValueError subclasses, StackError, UnicodeDecodeError...
        detail = str(e) or _WHY.get(type(e).__name__, "")
        raise WireError(
            f"undecodable payload: {type(e).__name__}: {detail}"
            if detail
            else f"undecodable payload ({type(e).__name__})"
        ) from None
    _check_plain(value)
    if not isinstance(value, list) or not value:
        raise WireError("a message must be a non-empty array")
    return value


def frame(payload: bytes, cap: int) -> bytes:
    """Prefix a payload with its length; refuse one the other side would reject."""
    if not 0 < len(payload) <= cap:
        raise WireError(f"payload of {len(payload)} bytes does not fit a frame (cap {cap})")
    return HEADER.pack(len(payload)) + payload


class FrameBuffer:
    """Splits a byte stream into frame payloads, never holding more than one frame's worth.

    ``feed`` returns the payloads completed by the new bytes; a zero or oversized length raises
    ``WireError`` before the frame's bytes are waited for.
    """

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[bytes]:
        self._buffer += data
        out: list[bytes] = []
        while len(self._buffer) >= HEADER.size:
            (length,) = HEADER.unpack_from(self._buffer)
            if length == 0 or length > self.cap:
                raise WireError(f"frame of {length} bytes (cap {self.cap})")
            if len(self._buffer) < HEADER.size + length:
                break
            out.append(bytes(self._buffer[HEADER.size : HEADER.size + length]))
            del self._buffer[: HEADER.size + length]
        return out

    @property
    def pending(self) -> int:
        """Bytes received that are not yet a whole frame."""
        return len(self._buffer)


# ----------------------------------------------------------------------------- field readers


def int_field(value: Any, what: str, lo: int = 0, hi: int = MAX_STEP) -> int:
    if type(value) is not int or not lo <= value <= hi:
        raise WireError(f"{what}: expected an integer in [{lo}, {hi}]")
    return value


def bin_field(value: Any, what: str, length: int) -> bytes:
    if type(value) is not bytes or len(value) != length:
        raise WireError(f"{what}: expected {length} bytes")
    return value


def bytes_field(value: Any, what: str, max_len: int) -> bytes:
    if type(value) is not bytes or len(value) > max_len:
        raise WireError(f"{what}: expected at most {max_len} bytes")
    return value


def str_field(value: Any, what: str, max_len: int, allow_empty: bool = False) -> str:
    if type(value) is not str or len(value) > max_len or (not value and not allow_empty):
        raise WireError(f"{what}: expected a string of at most {max_len} characters")
    return value


def list_field(value: Any, what: str, max_len: int, exact: int | None = None) -> list[Any]:
    if type(value) is not list or len(value) > max_len or (exact is not None and len(value) != exact):
        size = f"exactly {exact}" if exact is not None else f"at most {max_len}"
        raise WireError(f"{what}: expected an array of {size} items")
    return value


def bool_field(value: Any, what: str) -> bool:
    if type(value) is not bool:
        raise WireError(f"{what}: expected a boolean")
    return value


def json_like(value: Any, what: str, depth: int = 0) -> Any:
    """A small tree of str-keyed maps, arrays, str, int, bool and nil (a game input)."""
    if depth > 5:
        raise WireError(f"{what}: nested too deeply")
    if value is None or type(value) in (bool, int):
        return value
    if type(value) is str:
        return str_field(value, what, 64, allow_empty=True)
    if type(value) is list:
        return [json_like(v, what, depth + 1) for v in list_field(value, what, 64)]
    if type(value) is dict:
        if len(value) > 16:
            raise WireError(f"{what}: too many keys")
        return {str_field(k, what, 32): json_like(v, what, depth + 1) for k, v in value.items()}
    raise WireError(f"{what}: unsupported value of type {type(value).__name__}")
