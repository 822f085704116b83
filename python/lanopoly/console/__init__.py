"""The terminal console: play against bots, or with friends on the LAN, in a full-screen app.

A start screen (name, token, bots, difficulty, board, rules, language) comes first unless the
table is given on the command line; Enter plays alone, F2 hosts a LAN game and F3 joins one
(the lobby screens of :mod:`lanopoly.console.lobby`); then the game screen. Every game is saved
as it is played (:mod:`lanopoly.console.saves`): F6 or ``lanopoly continue`` takes the last game
against bots up again; ``lanopoly rejoin FILE`` / ``resume FILE``, or F4 / F5, take the seat
again in a LAN game (:mod:`lanopoly.console.rejoin`).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from prompt_toolkit.input import Input
from prompt_toolkit.output import Output

from lanopoly._core import Rules
from lanopoly.bots import DIFFICULTIES
from lanopoly.console import prefs
from lanopoly.console.app import ConsoleApp
from lanopoly.console.lobby import HostScreen, JoinScreen
from lanopoly.console.net_session import REJOIN_TIMEOUT, NetTable
from lanopoly.console.rejoin import play_saved, take_up
from lanopoly.console.saves import default_save, last_local, new_local_save, read_local, shown_path, unfinished
from lanopoly.console.session import LocalTable, Table
from lanopoly.console.start import Setup, StartScreen
from lanopoly.i18n import default_board, t
from lanopoly.log import ReplayMismatch
from lanopoly.net.hosting import Started
from lanopoly.net.interfaces import configured_interfaces

__all__ = [
    "DIFFICULTIES",
    "ConsoleApp",
    "HostScreen",
    "JoinScreen",
    "LanOptions",
    "LocalTable",
    "NetTable",
    "Setup",
    "StartScreen",
    "play_console",
    "play_saved",
    "play_solo",
    "session",
]


@dataclass(frozen=True)
class LanOptions:
    """How ``lanopoly host`` / ``join`` in a terminal set up the lobby screens and the game (the
    start screen's F2 and F3 take the defaults): the port and name of the lobby, whether it is
    advertised, which discovered lobby to pick, the interfaces, the patience for a dropped peer."""

    port: int = 0
    advertise: bool = True
    table: str = ""
    choose: str = ""
    interfaces: tuple[str, ...] | None = None
    rejoin_timeout: float = REJOIN_TIMEOUT
    bid_timer: int = 0
    """The host's bid timer to start with (``--bid-timer``; the host screen changes it)."""

    def addresses(self) -> list[str] | None:
        """The interfaces to listen and discover on: these, else the configured ones."""
        return list(self.interfaces) if self.interfaces is not None else configured_interfaces()


def table_for(setup: Setup, seed: int | None = None, rounds: int = 0, save: Path | None = None) -> LocalTable:
    """The table a setup describes (``rounds`` overrides the preset's round limit), saving its game
    to ``save`` when given."""
    rules = setup.rules_with(rounds)
    return LocalTable(
        setup.seat_names(),
        me=0,
        board=setup.board,
        rules=rules,
        seed=seed,
        bot=DIFFICULTIES[setup.difficulty],
        lang=setup.lang,
        save=save,
        difficulty=setup.difficulty,
        bid_timer=setup.bid_timer,
    )


def continued_table(setup: Setup) -> LocalTable | str:
    """The saved game against bots ``setup.saved`` taken up again, or why it cannot be."""
    assert setup.saved is not None
    try:
        table = LocalTable.continued(read_local(setup.saved), setup.saved, lang=setup.lang)
    except (ValueError, ReplayMismatch) as e:
        return t(setup.lang, "start.cannot_continue", reason=str(e))
    if table.over:
        return t(setup.lang, "start.cannot_continue", reason=f"{shown_path(setup.saved)}: game over")
    return table


async def session(
    setup: Setup,
    *,
    ask: bool,
    seed: int | None = None,
    rounds: int = 0,
    delay: float = 0.3,
    input: Input | None = None,
    output: Output | None = None,
    started: Callable[[ConsoleApp], None] | None = None,
    address: str = "",
    pin: str = "",
    save: Path | None = None,
    saved_wait: float | None = None,
    lan: LanOptions | None = None,
    notice: str = "",
) -> int:
    """The start screen (when ``ask``, pre-filled with ``setup``, showing ``notice`` first; else
    the lobby screen or the game screen shows it), then
    the game; the exit status. What the person chooses there is remembered for the next time
    (:mod:`lanopoly.console.prefs`).
    A setup whose ``mode`` is ``host`` or ``join`` goes through the LAN lobby screens first (back
    to the start screen when the person leaves them); the LAN game is saved to ``save``, by
    default in the console's folder of saved games. ``rejoin`` and ``resume`` take up the saved
    game the start screen picked (waiting ``saved_wait`` seconds for the others, default as the
    commands do), back to the start screen with the reason when that fails. ``started`` sees the
    game screen as it opens (tests drive it through it); ``lan`` sets the lobby up (``lanopoly
    host``/``join``)."""
    lan = lan or LanOptions()
    table: Table
    message = notice
    untold = "" if ask else notice  # with no start screen, the lobby or the game screen tells it
    while True:
        if ask:
            screen = StartScreen(
                setup, saved=unfinished(), last=last_local(), message=message, input=input, output=output
            )
            chosen = await screen.run()
            if chosen is None:
                return 0
            setup = chosen
            prefs.remember(setup)
        if setup.mode in ("rejoin", "resume"):
            taken = await take_up(setup, DIFFICULTIES[setup.difficulty], bot_delay=delay, timeout=saved_wait)
            if isinstance(taken, NetTable):
                table = taken
                break
            if not ask:
                print(taken)
                return 1
            message = taken
            continue
        if setup.mode == "continue":
            taken_up = continued_table(setup)
            if isinstance(taken_up, LocalTable):
                table = taken_up
                break
            if not ask:
                print(taken_up)
                return 1
            message, setup = taken_up, replace(setup, mode="solo", saved=None)
            continue
        message = ""
        if setup.mode not in ("host", "join"):
            table = table_for(setup, seed, rounds, save=save or new_local_save())
            break
        ready = await lan_lobby(
            setup, rounds=rounds, address=address, pin=pin, lan=lan, input=input, output=output, notice=untold
        )
        if ready is not None:
            table = NetTable.new(
                ready,
                bot=DIFFICULTIES[setup.difficulty],
                lang=setup.lang,
                bot_delay=delay,
                rejoin_timeout=lan.rejoin_timeout,
                save=save or default_save(ready.genesis.game_id),
                interfaces=lan.addresses(),
            )
            break
        if not ask:
            return 0
    app = ConsoleApp(table, delay=delay, input=input, output=output)
    if untold and setup.mode == "solo":
        app.feedback = ("class:error", untold)
    if started is not None:
        started(app)
    status = await app.run()
    farewell = table.farewell()
    if farewell:
        print(farewell)
    return status


async def lan_lobby(
    setup: Setup,
    *,
    rounds: int = 0,
    address: str = "",
    pin: str = "",
    lan: LanOptions | None = None,
    input: Input | None = None,
    output: Output | None = None,
    notice: str = "",
) -> Started | None:
    """The host's or the joiner's lobby screen (``notice`` on its message line, as what was wrong
    with the preferences file); the game set up, or None if the person left."""
    lan = lan or LanOptions()
    if setup.mode == "host":
        host = HostScreen(
            setup,
            rounds=rounds,
            pin=pin or None,
            port=lan.port,
            advertise=lan.advertise,
            table=lan.table,
            bid_timer=lan.bid_timer or setup.bid_timer,  # --bid-timer, else the start screen's
            interfaces=lan.addresses(),
            input=input,
            output=output,
            notice=notice,
        )
        return await host.run()
    join = JoinScreen(
        setup,
        address=address,
        pin=pin,
        choose=lan.choose,
        interfaces=lan.addresses(),
        input=input,
        output=output,
        notice=notice,
    )
    return await join.run()


def play_console(
    setup: Setup,
    *,
    ask: bool,
    seed: int | None = None,
    rounds: int = 0,
    delay: float = 0.3,
    address: str = "",
    pin: str = "",
    save: Path | None = None,
    lan: LanOptions | None = None,
    notice: str = "",
) -> int:
    """The console in this terminal: start screen (if ``ask``, showing ``notice``) and game;
    returns the exit status."""
    quiet_logs()
    try:
        return asyncio.run(
            session(
                setup,
                ask=ask,
                seed=seed,
                rounds=rounds,
                delay=delay,
                address=address,
                pin=pin,
                save=save,
                lan=lan,
                notice=notice,
            )
        )
    except KeyboardInterrupt:
        return 130  # Ctrl-C while no screen is up: waiting for the others to take a saved game up again


def quiet_logs() -> None:
    """Log messages (of the LAN layer) go nowhere unless logging is configured: stderr would
    scribble over the full-screen display; the game screen shows what matters."""
    if not logging.getLogger().handlers:
        logging.getLogger("lanopoly").addHandler(logging.NullHandler())


def play_solo(
    name: str = "",
    bots: int = 3,
    board: str | None = None,
    rules: Rules | None = None,
    seed: int | None = None,
    delay: float = 0.3,
    difficulty: str = "normal",
    lang: str = "en",
) -> int:
    """A game against ``bots`` bots in this terminal, no start screen; returns the exit status."""
    setup = Setup(name=name, bots=bots, difficulty=difficulty, board=board or default_board(lang), lang=lang)
    table = LocalTable(
        setup.seat_names(),
        me=0,
        board=setup.board,
        rules=rules,
        seed=seed,
        bot=DIFFICULTIES[difficulty],
        lang=lang,
    )
    return asyncio.run(ConsoleApp(table, delay=delay).run())
