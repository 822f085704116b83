"""The checks of what a lobby advertises (``net/adverts.py``), field by field, with hostile values.

Anyone on the LAN can publish an mDNS advert: each TXT field is refused unless it is exactly what
this version advertises, and the table name is shown with every control character and escape
sequence neutralised. The values an outside tester published are among the cases.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from hypothesis import given, settings
from hypothesis import strategies as st

from lanopoly.net import PROTOCOL_VERSION, adverts
from lanopoly.net.adverts import AdvertError, check_txt
from lanopoly.net.discovery import LobbyAd
from lanopoly.net.keys import fingerprint
from lanopoly.net.text import display_text

GOOD: dict[bytes, bytes | None] = {
    b"txtvers": b"1",
    b"v": str(PROTOCOL_VERSION).encode(),
    b"gid": b"ab" * 16,
    b"taken": b"1",
    b"seats": b"4",
    b"rules": b"official",
    b"board": b"classic",
    b"state": b"open",
    b"fp": b"3fa2-91c0-77d4-e2b1",
}

HOSTILE: list[tuple[Callable[[Any], Any], bytes | None]] = [
    # txtvers: the record's layout
    (adverts.txt_version, None),
    (adverts.txt_version, b"2"),
    (adverts.txt_version, b"1 "),
    # v: the protocol version, one this build speaks
    (adverts.protocol_version, b"99"),
    (adverts.protocol_version, str(PROTOCOL_VERSION + 1).encode()),
    (adverts.protocol_version, b"0"),
    (adverts.protocol_version, b"-7"),
    (adverts.protocol_version, b"+7"),
    (adverts.protocol_version, b"07"),
    (adverts.protocol_version, b" 7"),
    (adverts.protocol_version, "\u0667".encode()),  # an Arabic-Indic seven: int() would take it
    (adverts.protocol_version, b"7\n"),
    (adverts.protocol_version, b""),
    (adverts.protocol_version, None),
    # gid: 32 lowercase hex digits
    (adverts.game_id, b"ab" * 15),
    (adverts.game_id, b"AB" * 16),
    (adverts.game_id, b"zz" * 16),
    (adverts.game_id, b"ab" * 16 + b"\x1b[2J"),
    (adverts.game_id, None),
    # seats: 2 to 8
    (adverts.seats_total, b"999999999999"),
    (adverts.seats_total, b"9"),
    (adverts.seats_total, b"1"),
    (adverts.seats_total, b"0"),
    (adverts.seats_total, b"-5"),
    (adverts.seats_total, b"4.0"),
    (adverts.seats_total, b"1_0"),
    (adverts.seats_total, b"0x4"),
    # rules, board: names this build has
    (adverts.rules_name, b"official\x1b]0;pwned\x07"),
    (adverts.rules_name, b"Official"),
    (adverts.rules_name, b"homebrew"),
    (adverts.rules_name, b"x" * 1000),
    (adverts.board_name, b"classic\r"),
    (adverts.board_name, "paris\u202e".encode()),
    (adverts.board_name, b""),
    (adverts.board_name, None),
    # state: the enum
    (adverts.lobby_state, b"hacked"),
    (adverts.lobby_state, b"OPEN"),
    (adverts.lobby_state, b"open\x00"),
    # fp: 4 groups of 4 lowercase hex digits
    (adverts.key_fingerprint, b"3fa291c077d4e2b1"),
    (adverts.key_fingerprint, b"3FA2-91C0-77D4-E2B1"),
    (adverts.key_fingerprint, b"3fa2-91c0-77d4-e2b1-0000"),
    (adverts.key_fingerprint, b"3fa2-91c0-77d4-e2b\x1b"),
    (adverts.key_fingerprint, b""),
    (adverts.key_fingerprint, None),
]


@pytest.mark.parametrize(("check", "raw"), HOSTILE, ids=lambda v: repr(v)[:40] if isinstance(v, bytes) else None)
def test_a_hostile_field_is_refused(check: Callable[[Any], Any], raw: bytes | None) -> None:
    with pytest.raises(AdvertError) as refusal:
        check(raw)
    assert "\x1b" not in str(refusal.value) and "\r" not in str(refusal.value)  # the reason is safe to log


@pytest.mark.parametrize(("raw", "total"), [(b"-5", 4), (b"5", 4), (b"9", 8), (b"3", 2), (b"1 ", 4), (None, 4)])
def test_seats_taken_are_from_0_to_the_seats(raw: bytes | None, total: int) -> None:
    with pytest.raises(AdvertError):
        adverts.seats_taken(raw, total)
    assert adverts.seats_taken(b"0", total) == 0 and adverts.seats_taken(str(total).encode(), total) == total


@pytest.mark.parametrize(
    ("check", "raw", "value"),
    [
        (adverts.txt_version, b"1", "1"),
        (adverts.protocol_version, str(PROTOCOL_VERSION).encode(), PROTOCOL_VERSION),
        (adverts.game_id, b"0f" * 16, "0f" * 16),
        (adverts.seats_total, b"2", 2),
        (adverts.seats_total, b"8", 8),
        (adverts.rules_name, b"it", "it"),
        (adverts.board_name, b"paris", "paris"),
        (adverts.lobby_state, b"playing", "playing"),
        (adverts.key_fingerprint, b"0000-ffff-1234-abcd", "0000-ffff-1234-abcd"),
    ],
)
def test_a_valid_field_is_taken(check: Callable[[Any], Any], raw: bytes, value: object) -> None:
    assert check(raw) == value


def test_a_record_is_checked_whole() -> None:
    checked = check_txt(GOOD)
    assert (checked.seats_taken, checked.seats_total, checked.state) == (1, 4, "open")
    assert checked.fingerprint == "3fa2-91c0-77d4-e2b1" and checked.version == PROTOCOL_VERSION
    assert check_txt(GOOD | {b"later": b"\x1b[2J"}) == checked  # a key this version does not know: ignored
    for key in GOOD:  # each field is required
        with pytest.raises(AdvertError, match=key.decode()):
            check_txt({k: v for k, v in GOOD.items() if k != key})
    # What the outside tester advertised.
    for key, value in [(b"taken", b"-5"), (b"seats", b"999999999999"), (b"v", b"99"), (b"taken", b"5")]:
        with pytest.raises(AdvertError):
            check_txt(GOOD | {key: value})


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("Ada's table 3f2a", "Ada's table 3f2a"),
        ("Café 日本 ♠", "Café 日本 ♠"),
        ("\x1b]0;pwned\x07Ada's table", "?Ada's table"),  # OSC title change
        ("\x1b]8;;http://evil\x1b\\link", "?link"),  # OSC 8 hyperlink, ST-terminated
        ("\x1b[2J\x1b[HAda", "??Ada"),  # CSI clear screen, cursor home
        ("\x9b31mred", "?red"),  # 8-bit CSI
        ("Ada\rEve's table", "Ada?Eve's table"),  # carriage return: overwrite the line
        ("Ada\n2nd line", "Ada?2nd line"),
        ("evil\u202eelbat s'adA", "evil?elbat s'adA"),  # bidi override
        ("Ada\u2066x\u2069", "Ada?x?"),  # bidi isolates
        ("A\u200bda", "A?da"),  # zero-width space
        ("A\x00da\x7f", "A?da?"),
        ("\u00a0 Ada\u2003table ", "Ada table"),  # other spaces are spaces
        ("x\x1b", "x?"),  # a lone escape
        ("\ue000private", "?private"),
    ],
)
def test_display_text_neutralises_what_a_terminal_would_interpret(text: str, shown: str) -> None:
    assert display_text(text) == shown


def test_display_text_is_bounded() -> None:
    shown = display_text("x" * 1000)
    assert len(shown) == adverts.MAX_TABLE and shown.endswith("...")
    assert display_text("\x1b]0;" + "y" * 10_000) == "?"  # an unterminated string is cut whole


def test_fingerprint_of_a_key() -> None:
    key = Ed25519PrivateKey.generate()
    raw = key.public_key().public_bytes_raw()
    shown = fingerprint(raw)
    assert adverts.key_fingerprint(shown.encode()) == shown  # what the lobby advertises passes the check
    assert shown.replace("-", "") == hashlib.sha256(raw).hexdigest()[:16]
    assert fingerprint(Ed25519PrivateKey.generate().public_key().public_bytes_raw()) != shown
    with pytest.raises(ValueError):
        fingerprint(raw[:31])


def test_a_lobby_never_advertises_what_browsers_drop() -> None:
    fields: dict[str, Any] = {
        "table": "t",
        "game_id": "00" * 16,
        "seats_taken": 1,
        "seats_total": 4,
        "rules": "official",
        "board": "classic",
        "fingerprint": "3fa2-91c0-77d4-e2b1",
    }
    LobbyAd(**fields)
    for key, value in [("seats_taken", 5), ("seats_total", 9), ("rules", "x"), ("fingerprint", ""), ("game_id", "")]:
        with pytest.raises(AdvertError):
            LobbyAd(**fields | {key: value})


@settings(max_examples=1000, deadline=None)
@given(st.data())
def test_any_txt_record_is_checked_or_refused_and_what_passes_is_in_range(data: st.DataObject) -> None:
    """The good record with one or two fields changed (to nothing, random bytes, any number, or text
    with escape sequences), or one dropped: an ``AdvertError`` with a reason, or a record whose
    numbers are in range and whose text shows as it is."""
    props = dict(GOOD)
    value = (
        st.none()
        | st.binary(max_size=40)
        | st.integers(-5, 1200).map(lambda n: str(n).encode())
        | st.text(max_size=34).map(lambda t: t.encode())
        | st.sampled_from([b"\x1b]0;x\x07", b"ab" * 15 + b"\r\n", b"3fa2-91c0-77d4-e2b\x1b"])
    )
    for key in data.draw(st.lists(st.sampled_from([*GOOD, b"extra"]), min_size=1, max_size=2)):
        props[key] = data.draw(value)
    if data.draw(st.booleans()):
        props.pop(data.draw(st.sampled_from(list(props))), None)
    try:
        checked = check_txt(props)
    except AdvertError as e:
        assert str(e)
        return
    assert 0 <= checked.seats_taken <= checked.seats_total <= 8
    assert checked.version in adverts.KNOWN_VERSIONS
    for text in (checked.game_id, checked.rules, checked.board, checked.fingerprint):
        assert text == display_text(text) and text.isprintable(), text
