"""The keys the screens before a game share: stepping through lines or values, and leaving.

The start screen, the host's lobby and the join screen are small forms: a pair of keys moves a
choice back or forth (Up/Down through lines, Left/Right through values) and Escape, Ctrl-C or
Ctrl-Q leaves. Each screen builds its bindings from these and adds its own (Enter, F2...).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from prompt_toolkit.filters import FilterOrBool
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent


def stepping(
    back: Callable[[], None],
    forth: Callable[[], None],
    back_keys: Iterable[str],
    forth_keys: Iterable[str],
    *,
    filter: FilterOrBool = True,
) -> KeyBindings:
    """``back_keys`` call ``back`` and ``forth_keys`` call ``forth`` (when ``filter`` holds)."""
    keys = KeyBindings()
    for names, step in ((back_keys, back), (forth_keys, forth)):
        for name in names:

            def run(event: KeyPressEvent, step: Callable[[], None] = step) -> None:
                step()

            keys.add(name, filter=filter)(run)
    return keys


def leaving() -> KeyBindings:
    """Escape (at once, not waiting for a key sequence), Ctrl-C or Ctrl-Q leave the screen with
    no result: back to the start screen, or out of the program from there."""
    keys = KeyBindings()

    @keys.add("escape", eager=True)
    @keys.add("c-c")
    @keys.add("c-q")
    def _leave(event: KeyPressEvent) -> None:
        event.app.exit(result=None)

    return keys
