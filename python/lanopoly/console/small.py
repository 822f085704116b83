"""The screen shown instead of a console screen when the terminal is smaller than 80x24.

Every screen of the console is laid out for 80x24; in a smaller terminal it would be clipped
without a word (the board's right column and GO gone). :func:`guarded` swaps the screen for one
that says how large the window must be and how large it is, and swaps it back as soon as the
terminal is resized enough. The keys keep working meanwhile (Ctrl-C, Esc, typing).
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable

from prompt_toolkit.application import get_app
from prompt_toolkit.data_structures import Size
from prompt_toolkit.filters import Condition
from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout import AnyContainer, ConditionalContainer, HSplit, Window
from prompt_toolkit.layout.controls import FormattedTextControl

from lanopoly.i18n import t

COLUMNS, ROWS = 80, 24
"""The smallest terminal the console's screens are laid out for."""


def _size() -> Size:
    return get_app().output.get_size()


def too_small(size: Size) -> bool:
    """Whether a terminal of ``size`` is too small for the console's screens."""
    return size.columns < COLUMNS or size.rows < ROWS


def enlarge_text(lang: str, size: Size) -> str:
    """What the person reads in a too small terminal, in their language."""
    return t(lang, "small.enlarge", columns=COLUMNS, rows=ROWS, width=size.columns, height=size.rows)


def guarded(body: AnyContainer, lang: Callable[[], str]) -> HSplit:
    """``body`` in a terminal of 80x24 or more; else a screen asking for a larger window."""
    small = Condition(lambda: too_small(_size()))

    def text() -> StyleAndTextTuples:
        size = _size()
        return [("class:error", textwrap.fill(enlarge_text(lang(), size), max(1, size.columns)))]

    notice = Window(FormattedTextControl(text))
    return HSplit([ConditionalContainer(body, filter=~small), ConditionalContainer(notice, filter=small)])
