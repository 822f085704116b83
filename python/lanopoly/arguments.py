"""Argument types for the command lines: numbers checked for range when parsed, so a bad value
gets a usage error naming the option instead of a traceback from deep inside."""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable


def bounded(low: int, high: int) -> Callable[[str], int]:
    """An integer from ``low`` to ``high``."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{value} is out of range ({low} to {high})")
        return value

    return parse


def seconds(text: str) -> float:
    """A duration in seconds: a finite number, zero or more."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number of seconds: {text!r}") from None
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text} is not a duration (0 or more seconds)")
    return value


ROUNDS = bounded(0, 65_535)
"""A round limit (0: the preset's)."""

SEATS = bounded(2, 8)
"""Players (or peers) at a table."""

PORT = bounded(0, 65_535)
"""A TCP port (0: any free one)."""
