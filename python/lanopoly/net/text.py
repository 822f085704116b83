"""Text from other peers made safe to show: names, lobby names, the reasons of refusals and freezes.

Whatever another peer (or any mDNS publisher) sends may hold terminal escape sequences (an OSC
title change, a screen clear, colours), control characters (a carriage return or a newline that
forges a line of output), bidi overrides that reorder what follows, or be long. Names are refused
unless they show as they are (``name_field``: a joiner's ``HELLO``, the host's roster, the start
record); free text (a reason) is neutralised (``display_text``) before anyone reads it.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from lanopoly.net import wire
from lanopoly.net.wire import WireError

REPLACEMENT = "?"
"""What stands for a control character or escape sequence in a shown name: visibly not the text."""
MAX_SHOWN = 48
"""Characters of a lobby name as shown, by default."""

_ESCAPES = re.compile(
    r"(?:\x1b[]PX^_]|[\x90\x98\x9d\x9e\x9f]).*?(?:\x07|\x1b\\|\x9c|\Z)"  # OSC, DCS, SOS, PM, APC strings
    r"|(?:\x1b\[|\x9b)[0-?]*[ -/]*[@-~]"  # CSI sequences (7- and 8-bit)
    r"|\x1b[ -/]*[0-~]",  # the other ESC sequences
    re.DOTALL,
)
_HIDDEN = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
"""Unicode categories never shown: controls, format characters (bidi overrides, zero-width
characters), surrogates, private use, unassigned, line and paragraph separators."""


def display_text(text: str, limit: int = MAX_SHOWN) -> str:
    """``text`` made safe to print: each escape sequence and each control, format (bidi overrides,
    zero-width characters), unassigned or private character becomes ``?``, other spaces a space;
    at most ``limit`` characters (``...`` ends a longer one). Printable text is left as it is."""
    shown = "".join(_shown_char(ch) for ch in _ESCAPES.sub(REPLACEMENT, text)).strip()
    return shown if len(shown) <= limit else shown[: limit - 3] + "..."


def _shown_char(ch: str) -> str:
    category = unicodedata.category(ch)
    return REPLACEMENT if category in _HIDDEN else " " if category == "Zs" else ch


def name_field(value: Any, what: str, max_len: int) -> str:
    """A name another peer sent: a string of 1 to ``max_len`` characters that shows as it is
    (``display_text`` leaves it unchanged), else WireError."""
    name = wire.str_field(value, what, max_len)
    if display_text(name, max_len) != name:
        raise WireError(f"{what}: only printable characters, without spaces around them")
    return name


def shown_field(value: Any, what: str, max_len: int) -> str:
    """Free text another peer sent (a reason), made safe to show (``display_text``); may be empty."""
    return display_text(wire.str_field(value, what, max_len, allow_empty=True), max_len)
