"""Which lines of the log the game screen shows: the newest ones, or a page the person scrolled to.

The log window is what is left of the screen under the board (10 rows at 80x24), so longer texts
(the command list, the end-of-game summary) do not fit at once. The view follows the newest lines
until the person scrolls (PageUp/PageDown, the mouse wheel) or the console anchors it at the start of a text worth
reading from its top (the summary when the game ends, the command list after ``help``). Lines
longer than the window wrap between words, each taking as many rows as it needs.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from prompt_toolkit.formatted_text import StyleAndTextTuples
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.mouse_events import MouseEvent, MouseEventType
from prompt_toolkit.utils import get_cwidth

if TYPE_CHECKING:
    from prompt_toolkit.key_binding.key_bindings import NotImplementedOrNone

SECOND_COLUMN = re.compile(r"^\s*\S.*?\s{2,}(?=\S)")
"""Where the second column of a two-column line starts (the command list: command, then what it does)."""


_GLUED = re.compile(r" (?=[;:!?»])|(?<=«) ")
"""The spaces a row never breaks at: French typography puts a no-break space before ; : ! ? and
inside « » (the French help's ";" began a row of its own at 80 columns)."""


def rows_between_words(text: str, width: int, **options: Any) -> list[str]:
    """``textwrap.wrap`` of ``text`` (with ``options``), never breaking at a :data:`_GLUED` space."""
    rows = textwrap.wrap(_GLUED.sub("\u00a0", text), width, **options)
    return [row.replace("\u00a0", " ") for row in rows]


def wrap(line: str, width: int) -> list[str]:
    """The rows of ``line`` in a window ``width`` columns wide: broken between words, a row that
    goes on indented under the line's text (under its second column, for a two-column line)."""
    width = max(1, width)
    if get_cwidth(line) <= width:
        return [line]
    column = SECOND_COLUMN.match(line)
    indent = column.end() if column else len(line) - len(line.lstrip()) + 2
    if indent > width - 20:  # leave the words room: a narrow window indents little
        indent = min(2, width // 2)
    return rows_between_words(line, width, subsequent_indent=" " * indent, break_on_hyphens=False) or [line]


def rows_of(line: str, width: int) -> int:
    """The rows a line takes in a window ``width`` columns wide, wrapped."""
    return len(wrap(line, width))


@dataclass(frozen=True)
class Page:
    """The lines shown, where they start in the log, and how many lines are below them."""

    lines: list[str]
    first: int
    below: int


class LogView:
    """The scroll position of the log: ``top`` is the first line shown, or None to follow the
    newest lines."""

    def __init__(self) -> None:
        self.top: int | None = None

    def page(self, lines: list[str], height: int, width: int) -> Page:
        """The lines that fit in ``height`` rows of ``width`` columns."""
        if self.top is None or self.top >= len(lines):
            first, used = len(lines), 0
            while first > 0 and used + rows_of(lines[first - 1], width) <= height:
                first -= 1
                used += rows_of(lines[first], width)
            if used == 0 and lines:
                first = len(lines) - 1  # a line taller than the window: its start
            return Page(lines[first:], first, 0)
        end, used = self.top, 0
        while end < len(lines) and used + rows_of(lines[end], width) <= height:
            used += rows_of(lines[end], width)
            end += 1
        end = max(end, self.top + 1)
        return Page(lines[self.top : end], self.top, len(lines) - end)

    def anchor(self, line: int) -> None:
        """Show the log from this line on (until the person scrolls or plays)."""
        self.top = line

    def follow(self) -> None:
        """Show the newest lines again."""
        self.top = None

    def page_up(self, lines: list[str], height: int, width: int) -> None:
        first = self.page(lines, height, width).first
        self.top = max(0, first - max(1, height - 1))

    def page_down(self, lines: list[str], height: int, width: int) -> None:
        shown = self.page(lines, height, width)
        if shown.below == 0:
            return
        self._down_to(shown.first + max(1, len(shown.lines) - 1), lines, height, width)

    def scroll(self, lines: list[str], height: int, width: int, step: int) -> None:
        """Move the view ``step`` lines (up when negative), as a mouse wheel's notch does; down
        to the newest lines, the view follows them again."""
        shown = self.page(lines, height, width)
        if step < 0:
            self.top = max(0, shown.first + step)
        elif shown.below:
            self._down_to(shown.first + step, lines, height, width)

    def _down_to(self, top: int, lines: list[str], height: int, width: int) -> None:
        """Show the log from line ``top``; when that shows its end, follow the newest lines."""
        self.top = top
        if self.page(lines, height, width).below == 0 and LogView().page(lines, height, width).first <= self.top:
            self.follow()


class WheelControl(FormattedTextControl):
    """A text that the mouse wheel scrolls: ``on_wheel`` gets -1 for a notch up, 1 for a notch
    down, wherever the pointer is over the window (other mouse events as the text's own)."""

    def __init__(self, text: Callable[[], StyleAndTextTuples], on_wheel: Callable[[int], None]) -> None:
        super().__init__(text)
        self.on_wheel = on_wheel

    def mouse_handler(self, mouse_event: MouseEvent) -> NotImplementedOrNone:
        if mouse_event.event_type in (MouseEventType.SCROLL_UP, MouseEventType.SCROLL_DOWN):
            self.on_wheel(-1 if mouse_event.event_type == MouseEventType.SCROLL_UP else 1)
            return None
        return super().mouse_handler(mouse_event)
