"""Back into a saved LAN game from the console: ``lanopoly rejoin FILE`` and ``lanopoly resume FILE``.

A console LAN game is saved continuously with this peer's journal and secrets next to it
(:mod:`lanopoly.console.saves`). When the console stopped while the others play on (a crash, a
closed terminal, ``quit``), ``rejoin`` takes the seat again: the others wait for it up to their
rejoin timeout. When every peer stopped, each runs ``resume`` with its own file and the game goes
on once all are back. Both rebuild the session from the journal (:func:`lanopoly.net.play.restart`)
and run it: it dials the other peers, and a peer behind gets the steps it lacks, every one checked;
once the others are reached (one for ``rejoin``, every one for ``resume``), the game screen opens
on the table of that session, its log retold from the start. The start screen offers the same for
the unfinished games saved here (F4 rejoins, F5 resumes: :func:`take_up`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from lanopoly.bots import Policy
from lanopoly.console.app import ConsoleApp
from lanopoly.console.net_session import REJOIN_TIMEOUT, NetTable
from lanopoly.console.start import Setup
from lanopoly.i18n import t
from lanopoly.net import reason
from lanopoly.net.interfaces import InterfaceConfigError, configured_interfaces
from lanopoly.net.store import StoreError

REJOIN_DIAL_TIMEOUT = 30.0
"""Seconds ``rejoin`` keeps trying to reach another peer before it gives up."""

RESUME_TIMEOUT = 600.0
"""Seconds ``resume`` waits for every other peer to resume too."""


class CannotRejoin(Exception):
    """The saved game could not be taken up again; the message says why."""


async def open_saved(
    path: Path,
    *,
    resume_all: bool,
    bot: Callable[[], Policy],
    lang: str,
    interfaces: list[str] | None,
    bot_delay: float = 0.3,
    rejoin_timeout: float = REJOIN_TIMEOUT,
    timeout: float | None = None,
) -> NetTable:
    """The table of the game saved at ``path``, this peer back in it (``resume_all``: every peer
    restarts it, and every one is waited for). Raises CannotRejoin with the reason."""
    wait = timeout if timeout is not None else (RESUME_TIMEOUT if resume_all else REJOIN_DIAL_TIMEOUT)
    try:
        table = await NetTable.restarted(
            path, bot=bot, lang=lang, bot_delay=bot_delay, rejoin_timeout=rejoin_timeout, interfaces=interfaces
        )
    except (StoreError, OSError) as e:
        raise CannotRejoin(reason(e)) from None
    missing = await table.reach(every=resume_all, timeout=wait)
    if missing:
        await table.stop()
        names = ", ".join(table.peer_names()[peer] for peer in missing)
        raise CannotRejoin(t(lang, "net.unreachable", peers=names, seconds=f"{wait:g}"))
    return table


def announcement(path: Path, resume_all: bool, lang: str) -> str:
    """What the terminal says while this peer gets back into a saved game (it may wait a while)."""
    return t(lang, "start.resuming" if resume_all else "start.rejoining", path=path)


async def take_up(
    setup: Setup,
    bot: Callable[[], Policy],
    *,
    bot_delay: float = 0.3,
    timeout: float | None = None,
) -> NetTable | str:
    """The table of the saved game the start screen picked (``setup.saved``, ``setup.mode``
    ``rejoin`` or ``resume``), as ``lanopoly rejoin``/``resume FILE`` open it; or, when it cannot be
    taken up, why not in the setup's language, for the start screen to show."""
    assert setup.saved is not None
    resume_all = setup.mode == "resume"
    print(announcement(setup.saved, resume_all, setup.lang), flush=True)
    try:
        return await open_saved(
            setup.saved,
            resume_all=resume_all,
            bot=bot,
            lang=setup.lang,
            interfaces=configured_interfaces(),
            bot_delay=bot_delay,
            timeout=timeout,
        )
    except (CannotRejoin, InterfaceConfigError) as e:
        why = str(e).rstrip(".")
        return t(setup.lang, "start.cannot_resume" if resume_all else "start.cannot_rejoin", reason=why)


async def play_saved(
    path: Path,
    *,
    resume_all: bool,
    bot: Callable[[], Policy],
    lang: str,
    interfaces: list[str] | None,
    delay: float = 0.3,
    rejoin_timeout: float = REJOIN_TIMEOUT,
    input: Input | None = None,
    output: Output | None = None,
) -> int:
    """Say what happens on the terminal, take the seat again, then the game screen; the exit status
    (1 when the game could not be taken up again)."""
    print(announcement(path, resume_all, lang), flush=True)
    try:
        table = await open_saved(
            path,
            resume_all=resume_all,
            bot=bot,
            lang=lang,
            interfaces=interfaces,
            bot_delay=delay,
            rejoin_timeout=rejoin_timeout,
        )
    except CannotRejoin as e:
        verb = "resume" if resume_all else "rejoin"
        print(f"lanopoly: could not {verb}: {e}", file=sys.stderr)
        if not resume_all:
            print("(if every player stopped, each runs `lanopoly resume FILE` instead)", file=sys.stderr)
        return 1
    app = ConsoleApp(table, delay=min(delay, 0.05), input=input, output=output)
    status = await app.run()
    farewell = table.farewell()
    if farewell:
        print(farewell)
    return status
