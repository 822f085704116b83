"""What a lobby advertises, checked before anyone sees it: every TXT field and the instance name.

Anyone on the LAN can publish an mDNS advert, so a lobby's TXT record is hostile input like any
frame (a tester's showed ``taken=-5``, ``seats=999999999999``, ``v=99`` and terminal escape
sequences). Each field has a small pure function that returns its value or raises
:class:`AdvertError`; :func:`check_txt` applies them all, and ``discovery`` drops (and logs) a
lobby whose record fails. The one free text, the table name (the DNS-SD instance label), is not
refused but neutralised by :func:`display_text`: no control character, escape sequence or bidi
override reaches a terminal, and its length is bounded. The ``fp`` field is the fingerprint of the
host's signing key (``keys.fingerprint``), so that lobbies with the same name are told apart.
Nothing here is authenticated: a valid advert is still only a hint of where to connect.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, cast, get_args

from lanopoly._core import Rules, boards
from lanopoly.net import PROTOCOL_VERSION
from lanopoly.net.protocol import MAX_SEATS
from lanopoly.net.text import display_text

LobbyState = Literal["open", "full", "playing"]
LOBBY_STATES: tuple[str, ...] = get_args(LobbyState)
TXT_VERSION = "1"
"""The layout of the TXT record (``txtvers``, RFC 6763 section 6.7)."""
KNOWN_VERSIONS = frozenset({PROTOCOL_VERSION})
"""Protocol versions whose lobbies are shown: those this build can join (every message carries it)."""
MIN_SEATS = 2
MAX_VALUE = 64
"""Bytes of a TXT value at most (the longest valid one, a game id, has 32)."""
MAX_TABLE = 48
"""Characters of a table name as shown (an instance label has at most 63 bytes)."""
_NUMBER = re.compile(rb"0|[1-9][0-9]{0,2}")  # no sign, space, leading zero, underscore or Unicode digit
_GAME_ID = re.compile(rb"[0-9a-f]{32}")
_FINGERPRINT = re.compile(rb"[0-9a-f]{4}(?:-[0-9a-f]{4}){3}")


class AdvertError(ValueError):
    """A field of a lobby's advertisement is missing or not what this version advertises."""


@dataclass(frozen=True)
class CheckedTxt:
    """The fields of a TXT record that passed every check."""

    version: int
    game_id: str
    seats_taken: int
    seats_total: int
    rules: str
    board: str
    state: LobbyState
    fingerprint: str


def _shown(raw: bytes) -> str:
    """A hostile value as an error may quote it: escaped, and short."""
    return repr(raw[:40]) + ("..." if len(raw) > 40 else "")


def _value(raw: bytes | None, key: str) -> bytes:
    if raw is None:
        raise AdvertError(f"{key}: missing")
    if len(raw) > MAX_VALUE:
        raise AdvertError(f"{key}: longer than {MAX_VALUE} bytes")
    return raw


def _matching(raw: bytes | None, key: str, pattern: re.Pattern[bytes], expected: str) -> str:
    value = _value(raw, key)
    if not pattern.fullmatch(value):
        raise AdvertError(f"{key}={_shown(value)}: expected {expected}")
    return value.decode("ascii")


def _number(raw: bytes | None, key: str, low: int, high: int) -> int:
    value = int(_matching(raw, key, _NUMBER, f"a number from {low} to {high}"))
    if not low <= value <= high:
        raise AdvertError(f"{key}={value}: expected a number from {low} to {high}")
    return value


def _one_of(raw: bytes | None, key: str, names: list[str] | tuple[str, ...]) -> str:
    value = _value(raw, key)
    text = value.decode("ascii", errors="replace")
    if text not in names:
        raise AdvertError(f"{key}={_shown(value)}: expected one of {', '.join(names)}")
    return text


def txt_version(raw: bytes | None) -> str:
    """``txtvers``: the layout of the record; only ``1`` is known."""
    return _one_of(raw, "txtvers", (TXT_VERSION,))


def protocol_version(raw: bytes | None) -> int:
    """``v``: the lobby's protocol version, one this build speaks."""
    value = _number(raw, "v", 0, 999)
    if value not in KNOWN_VERSIONS:
        raise AdvertError(f"v={value}: this version plays protocol {', '.join(map(str, sorted(KNOWN_VERSIONS)))}")
    return value


def game_id(raw: bytes | None) -> str:
    """``gid``: the game id, 16 bytes as 32 lowercase hex digits."""
    return _matching(raw, "gid", _GAME_ID, "32 lowercase hex digits")


def seats_total(raw: bytes | None) -> int:
    """``seats``: the seats of the game, 2 to 8."""
    return _number(raw, "seats", MIN_SEATS, MAX_SEATS)


def seats_taken(raw: bytes | None, total: int) -> int:
    """``taken``: the seats taken by peers so far, 0 to ``total``."""
    return _number(raw, "taken", 0, total)


def rules_name(raw: bytes | None) -> str:
    """``rules``: a rules preset this build has."""
    return _one_of(raw, "rules", Rules.presets())


def board_name(raw: bytes | None) -> str:
    """``board``: a board this build has."""
    return _one_of(raw, "board", boards())


def lobby_state(raw: bytes | None) -> LobbyState:
    """``state``: ``open``, ``full`` or ``playing``."""
    return cast(LobbyState, _one_of(raw, "state", LOBBY_STATES))


def key_fingerprint(raw: bytes | None) -> str:
    """``fp``: the fingerprint of the host's signing key, as ``keys.fingerprint`` writes it."""
    return _matching(raw, "fp", _FINGERPRINT, "4 groups of 4 lowercase hex digits (3fa2-91c0-77d4-e2b1)")


def service_port(port: int | None) -> int:
    """The lobby's TCP port (from the SRV record): 1 to 65535."""
    if port is None or not 0 < port < 65536:
        raise AdvertError(f"port {port}: expected 1 to 65535")
    return port


def check_txt(props: Mapping[bytes, bytes | None]) -> CheckedTxt:
    """Every field of a TXT record (keys and values as received), checked; AdvertError at the first
    that fails. Keys this version does not know are ignored (a later version may add some)."""
    txt_version(props.get(b"txtvers"))
    total = seats_total(props.get(b"seats"))
    return CheckedTxt(
        version=protocol_version(props.get(b"v")),
        game_id=game_id(props.get(b"gid")),
        seats_taken=seats_taken(props.get(b"taken"), total),
        seats_total=total,
        rules=rules_name(props.get(b"rules")),
        board=board_name(props.get(b"board")),
        state=lobby_state(props.get(b"state")),
        fingerprint=key_fingerprint(props.get(b"fp")),
    )


def table_name(instance: str, stype: str) -> str:
    """The name a lobby goes by: its DNS-SD instance label (``instance`` without ``.stype``), shown safely."""
    suffix = "." + stype
    label = instance[: -len(suffix)] if instance.endswith(suffix) else instance
    return display_text(label)
