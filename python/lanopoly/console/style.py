"""The console's colours: a colour per seat and per group of streets, and a monochrome style for
NO_COLOR (https://no-color.org), where the text says everything the colours do.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from prompt_toolkit.styles import Style

PLAYER_COLOURS = ["#ff5f5f", "#5fafff", "#ffd75f", "#d787ff", "#5fd7af", "#ff87d7", "#d7af87", "#afd700"]
"""A colour per seat (1 to 8): its owner marks and token on the board, its name in the panels."""

COLOURS = {
    "cell": "",
    "group.brown": "bg:#8b4513 #ffffff",
    "group.lightblue": "bg:#87ceeb #000000",
    "group.pink": "bg:#d63384 #ffffff",
    "group.orange": "bg:#fd7e14 #000000",
    "group.red": "bg:#dc3545 #ffffff",
    "group.yellow": "bg:#ffc107 #000000",
    "group.green": "bg:#198754 #ffffff",
    "group.darkblue": "bg:#0d3b8e #ffffff",
    **{f"player.p{seat + 1}": colour for seat, colour in enumerate(PLAYER_COLOURS)},
    "owner": "",
    "owner.me": "bold underline",
    "building": "#ffaa00 bold",
    "token": "reverse",
    "token.me": "reverse bold",
    "me": "bold underline",
    "turn": "bold",
    "decision": "bold #ffffff bg:#333333",
    "error": "#ff5555 bold",
    "hint": "#888888",
    "prompt": "bold",
    "card": "",
    "card.title": "reverse bold",
    "card.current": "reverse",
    "card.now": "bold",
}
"""The console's style in colour."""

MONOCHROME = {
    **{name: "" for name in COLOURS},
    "owner.me": "bold underline",
    "building": "bold",
    "token": "reverse",
    "token.me": "reverse bold",
    "me": "bold underline",
    "turn": "bold",
    "decision": "reverse bold",
    "error": "bold",
    "prompt": "bold",
    "card.title": "reverse bold",
    "card.current": "reverse",
    "card.now": "bold",
}
"""The console's style without colours (NO_COLOR): bold, underline and reverse only; the text
says everything the colours do (labels, seat digits, the card's ``>``)."""


def no_color(environ: Mapping[str, str] | None = None) -> bool:
    """Whether the person asked for no colours: NO_COLOR set and not empty (https://no-color.org)."""
    return bool((os.environ if environ is None else environ).get("NO_COLOR"))


def style(monochrome: bool) -> Style:
    """The console's style, in colour or monochrome."""
    return Style.from_dict(MONOCHROME if monochrome else COLOURS)
