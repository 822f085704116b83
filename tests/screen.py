"""Driving the real console application on a pipe and reading the screen it draws.

``Terminal`` is an output of a fixed size (80x24 unless told): the application lays its screen
out for that size and renders it; ``screen_lines`` reads back the characters of the last frame
from the renderer. ``wait_for`` polls the screen until a text shows (the application redraws
asynchronously after each key).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

from prompt_toolkit.application import Application
from prompt_toolkit.data_structures import Size
from prompt_toolkit.output import DummyOutput

PAGE_UP = "\x1b[5~"
PAGE_DOWN = "\x1b[6~"


class Terminal(DummyOutput):
    """An output that reports a terminal of ``columns`` x ``rows``."""

    def __init__(self, columns: int = 80, rows: int = 24) -> None:
        self.size = Size(rows=rows, columns=columns)

    def get_size(self) -> Size:
        return self.size


def screen_lines(app: Application[object]) -> list[str]:
    """The characters of the last frame the application drew, one string per row."""
    screen = app.renderer._last_screen  # the frame drawn last (prompt_toolkit has no public accessor)
    size = app.output.get_size()
    if screen is None:
        return [""] * size.rows
    return [
        "".join(screen.data_buffer[row][col].char for col in range(size.columns)).rstrip() for row in range(size.rows)
    ]


async def wait_for(app: Application[object], check: Callable[[list[str]], bool], seconds: float = 10) -> list[str]:
    """The screen once ``check`` holds for it (or the last one, after ``seconds``)."""
    deadline = time.monotonic() + seconds
    lines = screen_lines(app)
    while not check(lines) and time.monotonic() < deadline:
        app.invalidate()
        await asyncio.sleep(0.02)
        lines = screen_lines(app)
    return lines
