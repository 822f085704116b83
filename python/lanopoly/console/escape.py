"""How long the console's screens wait after Escape before taking it as Escape alone.

A terminal sends Alt+letter as Escape and the letter at once, and Escape alone as itself; only a
wait tells them apart. prompt_toolkit waits 0.5 s for the bytes of a key (``ttimeoutlen``) and
then 1 s for the rest of a key binding that starts with Escape (``timeoutlen``: its Emacs keys,
Alt+B back a word, Alt+D delete one...). A person who pressed Escape (to close a card, or by
habit) and typed ``buy`` within that second lost the ``b`` to Alt+B (found in a tmux run).
Every screen waits :data:`WAIT` instead: the bytes of one key reach the console together, and
a person does not type two keys 50 ms apart on purpose.
"""

from __future__ import annotations

from typing import Any

from prompt_toolkit.application import Application

WAIT = 0.05
"""Seconds after Escape (or the first key of a binding of two) before it is taken alone."""


def quick_escape(app: Application[Any]) -> Application[Any]:
    """Set ``app``'s waits after Escape to :data:`WAIT`; the application itself, for chaining."""
    app.ttimeoutlen = WAIT
    app.timeoutlen = WAIT
    return app
