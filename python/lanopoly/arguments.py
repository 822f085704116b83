"""Argument types for the command lines: numbers checked for range when parsed, so a bad value
gets a usage error naming the option instead of a traceback from deep inside; and the options
typed before a subcommand carried over to it."""

from __future__ import annotations

import argparse
import copy
import math
from collections.abc import Callable, Sequence


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

BID_TIMER = bounded(0, 600)
"""A LAN lobby's bid timer, in seconds (0: off; at most ``genesis.MAX_BID_TIMER``)."""


def carry_over(parser: argparse.ArgumentParser, args: argparse.Namespace, argv: Sequence[str]) -> None:
    """Give a subcommand the options the person typed before its name (``lanopoly --lang it host``).

    argparse lets a subcommand's own default for an option of the main command (``host --lang``)
    overwrite what was typed before the subcommand, so that typing was silently ignored. An option
    typed again after the subcommand's name still wins."""
    command = getattr(args, "command", None)
    chooser = next((a for a in parser._actions if isinstance(a, argparse._SubParsersAction)), None)
    if command is None or chooser is None or command not in chooser.choices:
        return
    own = {a.dest: a for a in chooser.choices[command]._actions if a.option_strings}
    typed = argparse.ArgumentParser(add_help=False, exit_on_error=False)
    for action in parser._actions:
        if action.option_strings and action.dest in own and action.dest != "help":
            quiet = copy.copy(action)
            quiet.default = argparse.SUPPRESS
            typed._add_action(quiet)
    for at, word in enumerate(argv):
        if word != command:
            continue
        try:  # the first place where what comes before parses alone is the subcommand's name
            before, _ = typed.parse_known_args(list(argv[:at]))
            after, _ = typed.parse_known_args(list(argv[at + 1 :]))
        except argparse.ArgumentError:
            continue
        for dest, value in vars(before).items():
            if dest not in vars(after):
                kind = own[dest].type
                setattr(args, dest, kind(value) if callable(kind) and isinstance(value, str) else value)
        return
