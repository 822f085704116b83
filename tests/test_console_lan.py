"""The console on the LAN: the networked tables and the lobby screens driven without a terminal, and
console peers in real terminals (tmux, 80x24) that host, discover, join with the PIN and play by
typed commands.

Every test and every process here uses loopback addresses only (``LANOPOLY_INTERFACES``) and a
test-only DNS-SD type (``LANOPOLY_SERVICE_TYPE``): nothing is sent on the machine's network card.
The tables are followed by their events (``NetTable.changes``), the screens by their redraws: no
test sleeps to wait for a condition, but the real terminals, which are read as a person would.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.application import Application
from prompt_toolkit.input import PipeInput, create_pipe_input
from prompt_toolkit.output import DummyOutput
from zeroconf.asyncio import AsyncServiceInfo

import lanopoly.console
from lanopoly import IllegalAction, Rules
from lanopoly.bots import SimpleBot
from lanopoly.console import session
from lanopoly.console.app import ConsoleApp
from lanopoly.console.commands import CommandError
from lanopoly.console.lobby import HostScreen, JoinScreen
from lanopoly.console.net_session import NetTable
from lanopoly.console.rejoin import open_saved
from lanopoly.console.saves import unfinished
from lanopoly.console.start import Setup, StartScreen
from lanopoly.i18n import t
from lanopoly.log import GameLog
from lanopoly.net import PROTOCOL_VERSION
from lanopoly.net.core.record import StepEntry
from lanopoly.net.discovery import LobbyAd, LobbyAdvertiser, make_zeroconf
from lanopoly.net.genesis import StartRecord
from lanopoly.net.hosting import HostLobby, Joining, Started
from lanopoly.net.keys import fingerprint
from lanopoly.net.store import Journal, journal_path
from lanopoly.net.verdict import judge_file
from lanopoly.refusals import explain
from screen import Terminal as Screen
from screen import screen_lines

TEST_SERVICE_TYPE = f"_lanopoly-t{os.getpid() % 100000}._tcp.local."
"""A DNS-SD type of this test process only: a test run beside this one (another checkout on the
same machine) advertises its lobbies under its own type, so neither joins the other's."""

PIN = "246810"
BOT = "a bot, unless a player joins"
"""A free seat of the host's lobby that a bot takes at the start (the host chose bots)."""
LOOPBACK = ["127.0.0.1"]


@pytest.fixture(autouse=True)
def loopback_only(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv("LANOPOLY_INTERFACES", "127.0.0.1")
    monkeypatch.setenv("LANOPOLY_SERVICE_TYPE", TEST_SERVICE_TYPE)
    yield


async def _set_up(names: Sequence[str], seats: int, rounds: int = 0, bid_timer: int = 0) -> list[Started]:
    """A lobby on 127.0.0.1 hosted by ``names[0]``, the others joining in order, started with
    ``seats`` seats (bots on the host in those nobody took) and ``bid_timer``: each peer's game set up."""
    rules = Rules(round_limit=rounds).to_dict()
    joined = asyncio.Event()
    lobby = HostLobby(names[0], len(names), seats, "classic", rules, PIN, interfaces=LOOPBACK, bid_timer=bid_timer)
    lobby.on_change = lambda roster: joined.set()
    port = await lobby.open()
    joining = []
    for count, name in enumerate(names[1:], 2):
        joining.append(asyncio.create_task(Joining("127.0.0.1", port, name, PIN, LOOPBACK).run()))
        while len(lobby.roster) < count:
            joined.clear()
            await joined.wait()
    assert lobby.roster == list(names)
    return [await lobby.start(seats), *[await task for task in joining]]


def _table(started: Started, lang: str = "en", **options: Any) -> NetTable:
    table = NetTable.new(started, bot=SimpleBot, lang=lang, interfaces=LOOPBACK, **options)
    table.start()
    return table


async def _two_tables(
    seats: int,
    rounds: int = 0,
    rejoin_timeout: float = 0,
    saves: Path | None = None,
    bot_delay: float = 0.0,
    bid_timer: int = 0,
) -> tuple[NetTable, NetTable]:
    """A host, ann (with ``seats - 2`` bots, each move after ``bot_delay`` seconds), and one joiner,
    bob (French), on 127.0.0.1, as two running tables (saving to ``saves``/host.json and
    guest.json when given; with the lobby's ``bid_timer``)."""
    host, guest = await _set_up(["ann", "bob"], seats, rounds, bid_timer)
    options: dict[str, Any] = {"bot_delay": bot_delay, "rejoin_timeout": rejoin_timeout}
    return (
        _table(host, save=saves / "host.json" if saves else None, **options),
        _table(guest, lang="fr", save=saves / "guest.json" if saves else None, **options),
    )


@contextlib.asynccontextmanager
async def _pair(seats: int, **options: Any) -> AsyncIterator[tuple[NetTable, NetTable]]:
    """``_two_tables`` (ann hosting, bob joining), both closed on the way out, whatever happened."""
    tables = await _two_tables(seats, **options)
    try:
        yield tables
    finally:
        for table in tables:
            await table.close()


@contextlib.asynccontextmanager
async def _console(table: NetTable) -> AsyncIterator[tuple[ConsoleApp, PipeInput, asyncio.Task[int]]]:
    """The real game screen of ``table`` (80x24) on a pipe, once it runs: the application, the
    keys to send it, and its task (the person's exit status once they quit)."""
    with create_pipe_input() as pipe:
        app = ConsoleApp(table, delay=0, input=pipe, output=Screen())
        running = asyncio.create_task(app.run())
        await _drawn(app.app, lambda: app.app.is_running)
        yield app, pipe, running


def _to_roll(table: NetTable) -> bool:
    """The person of ``table`` is asked to move and may roll (no deed to buy or debt first)."""
    return table.waiting_for_you and "roll" in {a["type"] for a in table.legal()}


async def _changed(tables: Sequence[NetTable]) -> None:
    """Wait until one of the tables tells of an event of its session after this call (the
    console's screen follows the same events: neither can take one from the other)."""
    waits = [asyncio.ensure_future(table.changes.since(table.changes.count)) for table in tables]
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for wait in waits:
            wait.cancel()


async def _until(
    check: Callable[[], bool],
    tables: Sequence[NetTable],
    seconds: float,
    play: bool = True,
    players: Sequence[NetTable] | None = None,
) -> None:
    """Follow the tables' events until ``check``; meanwhile (``play``) the persons of ``players``
    (default: every table) move in turn like a simple bot when their session asks them."""
    person = SimpleBot()
    movers = tables if players is None else players
    try:
        async with asyncio.timeout(seconds):
            while not check():
                moved = False
                for table in movers if play else ():
                    if table.waiting_for_you and table.legal():
                        table.act(person.choose(table.game, table.me, table.legal()))
                        moved = True
                if not moved:
                    await _changed(tables)
    except TimeoutError:
        raise AssertionError([table.status()[1] for table in tables]) from None


async def _drawn(app: Application[Any], check: Callable[[], bool], seconds: float = 20) -> None:
    """Wait until ``check`` holds for a screen, looking after each of its redraws."""
    drawn = asyncio.Event()

    def redrawn(_: object) -> None:
        drawn.set()

    app.after_render += redrawn
    try:
        async with asyncio.timeout(seconds):
            while not check():
                drawn.clear()
                await drawn.wait()
    finally:
        app.after_render -= redrawn


def _steps_journaled(save: Path) -> int:
    _, entries = Journal.read(journal_path(save))
    return sum(isinstance(entry, StepEntry) for entry in entries)


def test_two_networked_tables_play_a_game_to_the_end_and_agree():
    async def run() -> None:
        async with _pair(3, rounds=4) as tables:
            host, guest = tables
            assert (host.me, guest.me) == (0, 1)
            assert host.game.names == ["ann", "bob", "bot 1"] and set(host.bots) == {2} and not guest.bots
            person = SimpleBot()
            refused: list[str] = []

            async def play() -> None:
                while not (host.result and guest.result):
                    for table in tables:
                        if table.waiting_for_you and table.legal():
                            table.act(person.choose(table.game, table.me, table.legal()))
                        elif table.playing and table.game.current_player not in (None, -1, table.me):
                            with pytest.raises(IllegalAction) as refusal:  # the engine's reason
                                table.act({"type": "roll", "player": table.me})
                            refused.append(explain(refusal.value, table.game, table.lang))
                    await _changed(tables)

            await asyncio.wait_for(play(), 30)
            assert host.result is not None and guest.result is not None
            assert host.result.outcome == guest.result.outcome == "over"
            assert host.game.state_hash() == guest.game.state_hash()
            assert any(line.startswith("Game over") for line in host.lines)
            assert any(line.startswith("Partie terminée") for line in guest.lines)
            assert any(re.fullmatch(r"it is (ann|bob|bot 1)'s turn|c'est à .* de jouer", r) for r in refused), refused
            assert "every peer agrees" in host.status()[1]
            with pytest.raises(CommandError, match="over"):
                host.act({"type": "roll", "player": 0})

    asyncio.run(asyncio.wait_for(run(), 40))


def test_an_illegal_move_is_refused_here_and_nothing_is_sent():
    async def run() -> None:
        host, guest = await _two_tables(2)
        tables = (host, guest)
        try:
            await _until(lambda: host.waiting_for_you or guest.waiting_for_you, tables, 10, play=False)
            table = host if host.waiting_for_you else guest
            before, inputs = table.game.state_hash(), len(table.core.log.inputs)
            with pytest.raises(IllegalAction):
                table.act({"type": "end_turn", "player": table.me})  # must roll first
            assert not table.move_pending and table.game.state_hash() == before
            assert table.waiting_for_you and len(table.core.log.inputs) == inputs
            assert table.status()[1].endswith(("waiting for you", "on vous attend"))
            table.act({"type": "roll", "player": table.me})
            with pytest.raises((CommandError, IllegalAction)):
                table.act({"type": "roll", "player": table.me})  # being sent, or played: the dice are next
            rolls = [a for a in table.core.log.inputs[inputs:] if a == {"type": "roll", "player": table.me}]
            assert len(rolls) == 1, table.core.log.inputs[inputs:]
        finally:
            await host.close()
            await guest.close()

    asyncio.run(asyncio.wait_for(run(), 30))


def test_a_peer_that_leaves_is_shown_and_freezes_the_game():
    """With no rejoin timeout, a peer that leaves stops the game for the other as soon as it is
    waited for: frozen, saying who dropped, and no more moves."""

    async def run() -> None:
        host, guest = await _two_tables(2)
        try:
            await _until(lambda: host.game.step > 2, (host, guest), 10)
            # Nobody plays from here: once a person is asked, the other peer waits for that one's move.
            await _until(lambda: host.waiting_for_you or guest.waiting_for_you, (host, guest), 10, play=False)
            waited = guest if host.waiting_for_you else host  # (not the one whose own person is to move)
            await (guest if waited is host else host).close()
            await _until(lambda: waited.frozen, (waited,), 10, play=False)
            style, text = waited.status()
            assert waited.frozen and style == "class:error", text
            assert "GAME FROZEN" in text or "PARTIE GELÉE" in text
            assert re.search(r"peer \d \((ann|bob)\) dropped", text), text
            assert any("FROZEN" in line or "GELÉE" in line for line in waited.lines)
            with pytest.raises(CommandError):
                waited.act({"type": "roll", "player": waited.me})
        finally:
            await host.close()
            await guest.close()

    asyncio.run(asyncio.wait_for(run(), 30))


def test_a_freeze_for_a_desync_writes_a_report_beside_the_saved_game_and_says_where(tmp_path: Path):
    """When the session freezes for a fault or a desync, the console writes the same report as the
    command line (``net/desync.py``) beside its saved game, and its log says where; a freeze for a
    peer that dropped writes none."""
    from lanopoly.net.core import effects as fx
    from lanopoly.net.core.outcome import FreezeInfo

    async def run() -> None:
        host, guest = await _two_tables(2, saves=tmp_path)
        try:
            await _until(lambda: host.game.step > 2, (host, guest), 10)
            step = host.game.step
            host.driver.apply([fx.Notify(fx.Frozen(FreezeInfo(step, "peer 1 (bob) dropped", (1,), cause="absent")))])
            assert not list(tmp_path.glob("desync-*.json"))
            reason = f"acks of step {step} disagree: same inputs, different states"
            host.driver.apply([fx.Notify(fx.Frozen(FreezeInfo(step, reason, (1,), cause="desync")))])
            (report,) = tmp_path.glob("desync-*.json")
            data = json.loads(report.read_text())
            assert data["step"] == step and data["reason"] == reason and data["blamed"][0]["name"] == "bob"
            assert any(report.name in line and "report" in line for line in host.lines), host.lines[-3:]
        finally:
            await host.close()
            await guest.close()

    asyncio.run(asyncio.wait_for(run(), 30))


def test_an_out_of_turn_trade_offer_is_queued_and_then_played_or_told_not_taken():
    """bob offers ann $1 while ann's bot plays: queued at once (the engine refuses a bad move at
    once); then it is played at a step to come, or bob's log says it was not taken: it never
    vanishes unsaid."""

    async def run() -> None:
        async with _pair(3, bot_delay=0.05) as tables:
            host, guest = tables

            def bot_ends_its_turn() -> bool:
                # Not just any bot move: one that owes rent (a debt), or declines a deed (an auction
                # bob bids in), would make the offer illegal, so that it is refused.
                game = guest.game
                return (
                    game.current_player == 2
                    and not game.is_chance_node
                    and game.phase == "after_roll"
                    and not game.debts
                    and game.auction is None
                )

            await _until(bot_ends_its_turn, tables, 30)
            offer = {"type": "propose_trade", "player": 1, "to": 0, "give": {"cash": 1}, "get": {}}
            note = guest.act(offer)
            assert note == "Envoyé, en attente de la prochaine étape : trade ann give $1 for nothing", note
            assert offer in guest.queued() and "1 envoyé, en attente" in guest.status()[1]
            with pytest.raises(IllegalAction) as refusal:  # the engine refuses at once, saying why
                guest.act({"type": "mortgage", "player": 1, "square": 0})
            assert explain(refusal.value, guest.game, "fr") == "GO n'est pas une propriété", refusal.value
            assert guest.queued() == [offer]
            await _until(lambda: not guest.queued(), tables, 60, play=False)
            await _until(lambda: host.game.step == guest.game.step, tables, 30, play=False)
            assert host.game.state_hash() == guest.game.state_hash()
            told = [line for line in guest.lines if line.startswith("Non retenu : trade ann give $1 for nothing")]
            played = [table.core.log.inputs.count(offer) for table in tables]
            assert played in ([0, 0], [1, 1]), played
            assert len(told) == 1 - played[0], (played, told)
            assert guest.core.out_of_turn.kinds["propose_trade"] == played[0]

    asyncio.run(asyncio.wait_for(run(), 90))


def test_an_out_of_turn_move_is_taken_while_a_person_is_still_deciding():
    """While ann (a person) thinks about her turn, bob's trade offer is offered to ann's peer, which
    decides the step with it (a signed forward): both play it at once, and ann is still to move."""

    async def run() -> None:
        async with _pair(3) as tables:
            host, guest = tables

            # (a buy decision, say, would come before an offer on her screen)
            await _until(lambda: _to_roll(host), tables, 30, players=(guest,))
            step = host.game.step
            offer = {"type": "propose_trade", "player": 1, "to": 0, "give": {"cash": 1}, "get": {}}
            guest.act(offer)
            await _until(lambda: host.game.step > step and guest.game.step > step, tables, 20, play=False)
            for table in tables:
                assert table.core.log.inputs[step] == offer, table.core.log.inputs[step:]
                assert table.game.current_player == 0 and table.my_move == (table is host)
            assert host.game.state_hash() == guest.game.state_hash()
            assert (
                guest.core.out_of_turn.kinds["propose_trade"] == 1 and host.core.out_of_turn.kinds["propose_trade"] == 1
            )
            assert not guest.queued() and not any(line.startswith("Non retenu") for line in guest.lines)
            # ann, still to move, sees the offer in front of her (her hints still offer the roll).
            decision = ConsoleApp(host, delay=0, input=None, output=DummyOutput()).decision()
            assert decision.startswith("bob offers $1 for "), decision
            assert {"accept_trade", "reject_trade"} <= {a["type"] for a in host.legal()}
            assert [f for table in tables for f in table.core.faults] == []
            await _until(lambda: host.game.step > step + 2, tables, 30)  # ann plays on as usual
            assert host.core.log.hashes[: step + 2] == guest.core.log.hashes[: step + 2]

    asyncio.run(asyncio.wait_for(run(), 90))


def test_the_message_that_a_move_is_queued_goes_once_it_is_taken():
    """Issue 14, item 7: bob's screen said "Sent, waiting for the next step" long after his offer
    was played. Typed in his running console while ann thinks, it goes once the offer is taken."""

    async def run() -> None:
        async with _pair(3) as tables:
            host, guest = tables

            await _until(lambda: _to_roll(host), tables, 30, players=(guest,))
            async with _console(guest) as (app, pipe, running):
                # What the message line is told, as it is told: the offer may be taken before the
                # screen is next drawn (host and guest share this loop), and that draw clears it.
                said: list[str] = []
                say = app.say

                def recorded(style: str, text: str, **how: Any) -> None:
                    said.append(text)
                    say(style, text, **how)

                app.say = recorded  # type: ignore[method-assign]
                pipe.send_text("trade ann give 1 for nothing\r")
                await _drawn(app.app, lambda: bool(said))
                assert said[0].startswith("Envoyé, en attente de la prochaine étape"), said
                await _until(lambda: not guest.queued(), tables, 30, play=False)
                await _drawn(app.app, lambda: "Envoyé" not in app.feedback[1])
                assert app.feedback == ("class:hint", "")
                pipe.send_text("quit\ry\r")  # leaving a LAN game is asked first
                assert await asyncio.wait_for(running, 30) == 0

    asyncio.run(asyncio.wait_for(run(), 90))


def test_leaving_a_lan_game_is_asked_first():
    """Issue 14, item 11: ``q`` or Ctrl-Q left a LAN game at once. Now the message line asks; a no
    keeps the game, a yes (or Ctrl-Q again) leaves it."""

    async def run() -> None:
        async with _pair(2) as tables:
            host = tables[0]
            await _until(lambda: host.game.step > 0 and not host.game.is_chance_node, tables, 30, play=False)
            async with _console(host) as (app, pipe, running):
                question = "Leave the LAN game? It is saved and you can rejoin it. (y/n)"
                pipe.send_text("q\r")
                await _drawn(app.app, lambda: app.feedback[1] == question)
                pipe.send_text("n\r")
                await _drawn(app.app, lambda: app.feedback[1] == "Not done: the game goes on.")
                assert not running.done()
                pipe.send_text("\x11")  # Ctrl-Q
                await _drawn(app.app, lambda: app.feedback[1] == question)
                assert not running.done()
                pipe.send_text("\x11")  # Ctrl-Q again: leave
                assert await asyncio.wait_for(running, 30) == 0

    asyncio.run(asyncio.wait_for(run(), 90))


def test_the_screen_redraws_on_the_sessions_events_and_ticks_only_while_a_peer_is_away():
    """The game screen of a LAN table follows its session's events: a move typed there is played
    and drawn; while the game waits for the person nothing is redrawn (nothing polls); while a
    peer is away the screen is redrawn every second, for its clock."""

    async def run() -> None:
        host, guest = await _two_tables(2, rejoin_timeout=60)
        draws = 0
        with create_pipe_input() as pipe:
            app = ConsoleApp(host, input=pipe, output=DummyOutput())
            invalidate = app.app.invalidate

            def counted() -> None:
                nonlocal draws
                draws += 1
                invalidate()

            app.app.invalidate = counted  # type: ignore[method-assign]
            running = asyncio.create_task(app.run())
            try:
                await _until(
                    lambda: host.waiting_for_you and "roll" in {a["type"] for a in host.legal()},
                    (host, guest),
                    30,
                    players=(guest,),
                )
                await _drawn(app.app, lambda: app.app.is_running)
                await asyncio.sleep(0.5)  # the screen catches up with what it was told before
                quiet = draws
                await asyncio.sleep(1.5)  # a span of time measured: the game waits for ann
                assert draws == quiet, draws - quiet
                step = host.game.step
                pipe.send_text("roll\r")
                await _until(lambda: host.game.step > step, (host,), 10, play=False)
                assert draws > quiet
                await guest.close()
                await _until(lambda: bool(host.away()), (host,), 10, play=False)
                away = draws
                await asyncio.sleep(2.5)  # the clock: about one redraw a second
                assert 2 <= draws - away <= 4, draws - away
                pipe.send_text("\x11\x11")  # Ctrl-Q asks, Ctrl-Q again leaves
                assert await asyncio.wait_for(running, 10) == 0
            finally:
                if not running.done():
                    running.cancel()
                await host.close()
                await guest.close()

    asyncio.run(asyncio.wait_for(run(), 60))


def test_the_journals_hold_every_step_when_the_game_waits_for_a_person(tmp_path: Path):
    """Each step is in both journals (``FILE.journal``) before anything about the next one is sent,
    so a console killed while its player thinks loses nothing; the secrets are beside them."""

    async def run() -> None:
        async with _pair(2, saves=tmp_path) as tables:
            host, guest = tables
            await _until(lambda: host.game.step > 20, tables, 60)
            # ann thinks: only bob plays, until the game waits for ann and both peers agree on the step
            await _until(
                lambda: host.waiting_for_you and host.game.step == guest.game.step, tables, 30, players=(guest,)
            )
            steps = host.game.step
            assert [_steps_journaled(tmp_path / name) for name in ("host.json", "guest.json")] == [steps, steps]
            assert (tmp_path / "host.json.secret").stat().st_mode & 0o077 == 0

    asyncio.run(asyncio.wait_for(run(), 90))


def test_a_peer_that_drops_is_shown_away_and_rejoins_from_its_saved_game(tmp_path: Path):
    """bob's table stops (as a crashed console would); ann's shows him away with a clock; his
    saved game and its secrets take him back in, and both go on with the same states."""

    async def run() -> None:
        host, guest = await _two_tables(2, rejoin_timeout=60, saves=tmp_path)
        back: NetTable | None = None
        try:
            assert (tmp_path / "guest.json.secret").exists() and (tmp_path / "guest.json.journal").exists()
            await _until(lambda: host.game.step > 20, (host, guest), 60)
            await guest.close()
            await _until(lambda: bool(host.away()), (host,), 20, play=False)
            _, text = host.status()
            assert re.search(r"bob \(AWAY 0:0\d\)", text), text
            assert host.away_seats().keys() == {1}
            assert any(line.startswith("bob dropped out; the game waits up to 1:00") for line in host.lines)
            alert = host.alert()
            assert alert is not None and alert.startswith("bob away for 0:0"), alert
            # The start screen would list the unfinished games saved there, with the command.
            saved = unfinished(tmp_path)
            assert {game.path.name for game in saved} == {"host.json", "guest.json"}
            assert all(game.names == ("ann", "bob") and game.steps > 0 for game in saved)
            start = StartScreen(Setup(), saved=[game for game in saved if game.path.name == "guest.json"])
            assert start.shown("saved_game").startswith("ann, bob, ")
            assert (
                start.saved_text()
                == f"File {saved[0].path.parent}/guest.json (in a shell: lanopoly rejoin FILE, or resume)"
            )
            back = await open_saved(
                tmp_path / "guest.json",
                resume_all=False,
                bot=SimpleBot,
                lang="en",
                interfaces=LOOPBACK,
                bot_delay=0,
                rejoin_timeout=60,
            )
            assert back.me == 1 and any(line.startswith("You are back in the game") for line in back.lines)
            assert any("rolls" in line for line in back.lines)  # the log is told again from the start
            tables = (host, back)
            await _until(lambda: not host.away() and host.alert() is None, tables, 30, play=False)
            assert "bob is back." in host.lines and "AWAY" not in host.status()[1]
            assert not any(line.endswith(" is back.") for line in back.lines)  # bob was away, not ann
            step = host.game.step
            await _until(lambda: min(host.game.step, back.game.step) > step + 10, tables, 60)
            await _until(lambda: host.game.step == back.game.step, tables, 10, play=False)
            assert host.game.state_hash() == back.game.state_hash()
        finally:
            for table in (host, guest, back):
                if table is not None:
                    await table.close()

    asyncio.run(asyncio.wait_for(run(), 150))


def test_rejoining_from_the_start_screen_when_nobody_plays_on_says_why_and_comes_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
):
    """Both peers stopped: F4 on the start screen (rejoin bob's saved game) cannot reach ann; the
    start screen comes back with the reason in red and the advice to resume, no traceback."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path))
    games = tmp_path / "lanopoly" / "games"
    games.mkdir(parents=True)
    screens: list[StartScreen] = []
    opened = asyncio.Event()

    class Recorded(StartScreen):
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            screens.append(self)
            opened.set()

    monkeypatch.setattr(lanopoly.console, "StartScreen", Recorded)

    async def shown(index: int) -> StartScreen:
        while len(screens) <= index:
            opened.clear()
            await opened.wait()
        await _drawn(screens[index].app, lambda: screens[index].app.is_running)
        return screens[index]

    async def run() -> int:
        host, guest = await _two_tables(2, saves=games)
        try:
            await _until(lambda: host.game.step > 10, (host, guest), 30)
        finally:
            await host.close()
            await guest.close()
        with create_pipe_input() as pipe:
            running = asyncio.create_task(session(Setup(), ask=True, input=pipe, output=DummyOutput(), saved_wait=1.0))
            first = await shown(0)
            assert first.shown("saved_game").startswith("ann, bob, ") and first.shown("saved_game").endswith("(1/2)")
            pipe.send_text("\x1b[A")  # Up: the saved games' line
            if first.saved[first.pick].path.name != "guest.json":
                pipe.send_text("\x1b[C")
            await _drawn(first.app, lambda: first.saved[first.pick].path.name == "guest.json")
            pipe.send_text("\x1bOS")  # F4: rejoin
            again = await shown(1)
            assert again.saved[again.pick].path == games / "guest.json"  # still picked
            pipe.send_text("\x1b")
            return await asyncio.wait_for(running, timeout=10)

    assert asyncio.run(asyncio.wait_for(run(), 60)) == 0
    assert len(screens) == 2
    message = screens[1].message
    assert (
        message == "Could not rejoin: no answer from ann within 1 s. If every player stopped, each one resumes it (F5)."
    )
    out = capsys.readouterr().out
    assert f"Rejoining the game saved in {games / 'guest.json'}..." in out


def test_the_host_screen_shows_its_key_fingerprint():
    """The host reads its key's fingerprint out to the players, who see it beside its lobby."""
    screen = HostScreen(Setup(name="ann"), advertise=False, input=None, output=DummyOutput())
    shown = "".join(text for _, text, *_ in screen._text())
    assert screen.fingerprint == fingerprint(screen.lobby.key.public)
    assert f"Host key: {screen.fingerprint}   (the players compare it aloud with theirs)" in shown, shown


def test_the_join_screen_shows_each_lobby_with_its_host_key_and_never_a_spoofed_one():
    """A real lobby and a valid advert with an escape sequence and a bidi override in its name are
    listed, each with the host key it advertises, the name neutralised; an advert with a hostile
    TXT field (``taken=-5``) never shows."""
    stype = TEST_SERVICE_TYPE
    fp, other = "3fa2-91c0-77d4-e2b1", "0bad-0bad-0bad-0bad"

    def spoofed(label: str, **changes: bytes) -> AsyncServiceInfo:
        txt = {b"txtvers": b"1", b"v": str(PROTOCOL_VERSION).encode(), b"gid": b"66" * 16, b"taken": b"1"}
        txt |= {b"seats": b"3", b"rules": b"official", b"board": b"classic", b"state": b"open", b"fp": other.encode()}
        props = txt | {key.encode(): value for key, value in changes.items()}
        return AsyncServiceInfo(stype, f"{label}.{stype}", port=40021, properties=props, parsed_addresses=["127.0.0.1"])

    async def run() -> None:
        host_zc, spoof_zc = make_zeroconf(["127.0.0.1"]), make_zeroconf(["127.0.0.1"])
        ad = LobbyAd("Ada's table", "55" * 16, 1, 3, "official", "classic", fp)
        real = LobbyAdvertiser(host_zc, ad, ["127.0.0.1"], 40020, stype)
        weird, hostile = spoofed("\u009b2JEve\u202e's table 0001"), spoofed("hostile 0002", taken=b"-5")

        async def publish(info: AsyncServiceInfo) -> None:
            await (await spoof_zc.async_register_service(info))

        try:
            await asyncio.gather(real.register(), publish(weird), publish(hostile))
            with create_pipe_input() as pipe:
                screen = JoinScreen(Setup(name="bob"), input=pipe, output=DummyOutput())
                running = asyncio.create_task(screen.run())
                deadline = time.monotonic() + 10
                while not (
                    screen.browser is not None
                    and {real.instance, weird.name} <= screen.browser.lobbies.keys()
                    and hostile.name in screen.browser.dropped
                ):
                    seen = (screen.browser.lobbies.keys(), screen.browser.dropped) if screen.browser else None
                    assert time.monotonic() < deadline and not running.done(), f"shown, dropped: {seen}"
                    await asyncio.sleep(0.02)
                rows = "".join(text for _, text, *_ in screen._games()).splitlines()
                pipe.send_text("\x1b")  # Esc: back
                assert await asyncio.wait_for(running, 10) is None
        finally:
            await real.close()
            await spoof_zc.async_unregister_all_services()
            await asyncio.gather(host_zc.async_close(), spoof_zc.async_close())
        assert not any("hostile" in row for row in rows), rows
        ada = [i for i, row in enumerate(rows) if row[2:].startswith("Ada's table ")]
        eve = [i for i, row in enumerate(rows) if row[2:].startswith("?Eve?'s table 0001")]
        assert len(ada) == len(eve) == 1, rows
        assert rows[ada[0] + 1] == f"    host key {fp}" and rows[eve[0] + 1] == f"    host key {other}", rows
        assert all(ch.isprintable() for row in rows for ch in row), rows

    asyncio.run(asyncio.wait_for(run(), 40))


async def _cid_joins_and_ann_starts(
    app: Application[Any],
    seat_lines: Callable[[], list[str]],
    keys: Any,
    running: asyncio.Task[Started | None],
    port: int,
    before_enter: Callable[[], Awaitable[None]] | None = None,
) -> tuple[StartRecord, StartRecord]:
    """cid joins seat 2 of ann's lobby at ``port``; ann presses Enter (after ``before_enter``):
    both sides start the same game of ann and cid, whose links are then closed; the start record
    each side agreed to (ann's, cid's)."""
    cid = asyncio.create_task(Joining("127.0.0.1", port, "cid", PIN, LOOPBACK).run())
    try:
        await _drawn(app, lambda: "  2  cid (joined)" in seat_lines())
        if before_enter is not None:
            await before_enter()
        keys.send_text("\r")
        started = await asyncio.wait_for(running, 30)
        assert started is not None and started.genesis.record.names == ("ann", "cid")
        joined = await cid
        assert joined.genesis.game_id == started.genesis.game_id
        for game in (started, joined):
            for conn, _ in game.links.values():
                await conn.close()
            await game.gate.close()
        return started.genesis.record, joined.genesis.record
    finally:
        cid.cancel()


def test_the_host_screen_frees_the_seat_of_a_joiner_who_leaves_and_starts_with_fewer_peers():
    """Issue 14, item 3: bob joins ann's lobby of three seats, then leaves it: ann's screen shows
    his seat free again (a bot's at the start). Enter with nobody there says to wait; cid joins,
    ann takes the bots out with Left, and Enter starts a game of two peers and no bot."""

    async def run() -> None:
        setup = Setup(name="ann", bots=2, lang="en")
        with create_pipe_input() as pipe:
            screen = HostScreen(setup, pin=PIN, advertise=False, interfaces=LOOPBACK, input=pipe, output=DummyOutput())
            running = asyncio.create_task(screen.run())
            try:
                await _drawn(screen.app, lambda: screen.app.is_running and bool(screen.address))
                port = int(screen.address.rsplit(":", 1)[1])
                assert re.fullmatch(r"[0-9a-f]{4}(-[0-9a-f]{4}){3}", screen.fingerprint), screen.fingerprint
                bob = asyncio.create_task(Joining("127.0.0.1", port, "bob", PIN, LOOPBACK).run())
                await _drawn(screen.app, lambda: "  2  bob (joined)" in screen.seat_lines())
                assert screen.seat_lines() == ["  1  ann (you)", "  2  bob (joined)", f"  3  {BOT}"]
                bob.cancel()  # bob leaves the lobby (Esc on his join screen)
                await asyncio.wait([bob])
                await _drawn(screen.app, lambda: screen.taken == 1)
                assert screen.seat_lines() == ["  1  ann (you)", f"  2  {BOT}", f"  3  {BOT}"]
                pipe.send_text("\r")  # Enter: nobody to play with
                await _drawn(screen.app, lambda: "Nobody has joined yet" in screen.message[1])

                async def no_bots() -> None:
                    pipe.send_text("\x1b[D")  # Left: one bot
                    await _drawn(screen.app, lambda: screen.bots_at_start() == 0)

                await _cid_joins_and_ann_starts(screen.app, screen.seat_lines, pipe, running, port, no_bots)
            finally:
                running.cancel()

    asyncio.run(asyncio.wait_for(run(), 60))


def _ann_hosts_two_seats(keys: Any) -> HostScreen:
    """ann's lobby screen of two seats (one bot at the start), on loopback, keys from ``keys``."""
    setup = Setup(name="ann", bots=1, lang="en")
    return HostScreen(setup, pin=PIN, advertise=False, interfaces=LOOPBACK, input=keys, output=DummyOutput())


def test_a_full_lobby_frees_the_seat_of_a_joiner_who_leaves_and_starts_with_another():
    """Issue 14, item 3: in ann's lobby of two seats, full once bob joined from his join screen,
    bob presses Esc: ann's screen shows his seat open again; Enter says to wait rather than failing
    ("a peer left before the start"); cid joins the seat and Enter starts the game of ann and cid."""

    async def run() -> None:
        with create_pipe_input() as keys, create_pipe_input() as bob_keys:
            host = _ann_hosts_two_seats(keys)
            running = asyncio.create_task(host.run())
            try:
                await _drawn(host.app, lambda: host.app.is_running and bool(host.address))
                bob = JoinScreen(
                    Setup(name="bob", lang="en"),
                    address=host.address,
                    pin=PIN,
                    interfaces=LOOPBACK,
                    input=bob_keys,
                    output=DummyOutput(),
                )
                bob_running = asyncio.create_task(bob.run())
                await _drawn(bob.app, lambda: bob.app.is_running)
                bob_keys.send_text("\r")  # Enter: join
                await _drawn(host.app, lambda: host.seat_lines() == ["  1  ann (you)", "  2  bob (joined)"])
                assert host.free() == 0 and host.lobby._full.is_set(), "the lobby is full"
                bob_keys.send_text("\x1b")  # Esc: bob leaves the lobby
                assert await asyncio.wait_for(bob_running, 10) is None
                await _drawn(host.app, lambda: host.seat_lines() == ["  1  ann (you)", f"  2  {BOT}"])
                keys.send_text("\r")  # Enter: nobody to play with, and the lobby stays open
                await _drawn(host.app, lambda: "Nobody has joined yet" in host.message[1])
                assert not host.failed and not running.done()
                port = int(host.address.rsplit(":", 1)[1])
                await _cid_joins_and_ann_starts(host.app, host.seat_lines, keys, running, port)
            finally:
                running.cancel()

    asyncio.run(asyncio.wait_for(run(), 60))


def test_enter_just_as_a_joiner_leaves_frees_the_seat_and_the_lobby_stays_open():
    """Issue 14, item 3: Enter failed with "a peer left before the start" when the host had not yet
    seen bob leave, and the lobby was dead. Here bob's connection has ended but the lobby has not
    noticed (its watch of bob is stopped, as between the end and the watch's next turn): Enter
    frees the seat and says so, the lobby stays open, and cid takes the seat."""

    async def run() -> None:
        with create_pipe_input() as keys:
            host = _ann_hosts_two_seats(keys)
            running = asyncio.create_task(host.run())
            try:
                await _drawn(host.app, lambda: host.app.is_running and bool(host.address))
                port = int(host.address.rsplit(":", 1)[1])
                bob = asyncio.create_task(Joining("127.0.0.1", port, "bob", PIN, LOOPBACK).run())
                await _drawn(host.app, lambda: "  2  bob (joined)" in host.seat_lines())
                (seat,) = host.lobby.joiners
                assert seat.watch is not None
                seat.watch.cancel()  # the lobby does not see bob leave by itself now
                bob.cancel()
                await asyncio.wait([bob])
                assert await asyncio.wait_for(seat.conn.reader.read(), 10) == b""  # bob's end of stream
                assert seat.conn.reader.at_eof()
                assert host.seat_lines() == ["  1  ann (you)", "  2  bob (joined)"]
                keys.send_text("\r")  # Enter
                left = "bob left the lobby: the seat is free. Enter starts without them, or wait for a player."
                await _drawn(host.app, lambda: host.message[1] == left)
                assert host.seat_lines() == ["  1  ann (you)", f"  2  {BOT}"]
                assert not host.failed and not running.done()
                await _cid_joins_and_ann_starts(host.app, host.seat_lines, keys, running, port)
            finally:
                running.cancel()

    asyncio.run(asyncio.wait_for(run(), 60))


# -- two console peers in real terminals ---------------------------------------------------------


class Terminal:
    """One console peer in a tmux session (80x24) on one loopback address, running ``lanopoly
    ARGS`` with its own data folder (``XDG_DATA_HOME``: where the console saves LAN games)."""

    def __init__(self, server: str, name: str, address: str, workdir: Path, args: str = "play --lang en") -> None:
        assert address.startswith("127."), "tests use loopback addresses only"
        self.server, self.name = server, name
        self.data = workdir / f"{name.rstrip('0123456789')}-data"
        env = f"env -u LC_ALL -u LC_MESSAGES LANG=C.UTF-8 LANOPOLY_INTERFACES={address} "
        env += f"LANOPOLY_SERVICE_TYPE={TEST_SERVICE_TYPE} XDG_DATA_HOME={shlex.quote(str(self.data))} "
        env += f"XDG_CONFIG_HOME={shlex.quote(str(self.data / 'config'))} "
        command = f"exec {env}{shlex.quote(sys.executable)} -m lanopoly {args} 2>{name}.err"
        self.tmux("new-session", "-d", "-s", name, "-x", "80", "-y", "24", "-c", str(workdir), command)

    def tmux(self, *args: str) -> str:
        env = {**os.environ, "LANOPOLY_INTERFACES": "127.0.0.1", "LANOPOLY_SERVICE_TYPE": TEST_SERVICE_TYPE}
        done = subprocess.run(["tmux", "-L", self.server, *args], capture_output=True, text=True, env=env, check=True)
        return done.stdout

    def pid(self) -> int:
        """The console's process (the pane runs it with ``exec``)."""
        return int(self.tmux("list-panes", "-t", self.name, "-F", "#{pane_pid}").split()[0])

    def saved(self) -> Path:
        """The LAN game this console saved (by default, in its data folder)."""
        files = list((self.data / "lanopoly" / "games").glob("*.json"))
        assert len(files) == 1, files
        return files[0]

    def screen(self) -> str:
        return self.tmux("capture-pane", "-t", self.name, "-p")

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", self.name, *keys)

    def type(self, text: str) -> None:
        self.tmux("send-keys", "-t", self.name, "-l", text)
        self.keys("Enter")

    def wait_for(self, pattern: str, seconds: float = 30) -> str:
        deadline = time.monotonic() + seconds
        while True:
            screen = self.screen()
            if re.search(pattern, screen):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name}: no {pattern!r} on the screen:\n{screen}")
            time.sleep(0.1)


def _rows(screen: str) -> list[str]:
    return (screen.splitlines() + [""] * 24)[:24]


def _shared(screen: str) -> tuple[list[str], list[str]]:
    """What every peer must show alike: the player panels and the log."""
    rows = _rows(screen)
    panels = []
    for row in rows[2:10]:  # a line per player in the middle of the board: ">1 ann  $1500 ..."
        if not re.match(r"[ >*]\d ", row[11:]):  # the middle starts at column 10 with a space
            break
        panels.append(row[11:63].rstrip())
    log = []
    for row in rows[13:]:  # the board's 13 rows, then the log
        if row.startswith("LAN:"):  # the status line, under the log
            break
        log.append(row.rstrip())
    # The last rows of the log only: a trade offered to one peer shows under its log, which is
    # shorter by as many rows there.
    return panels, [row for row in log if row.strip()][-4:]


def _command(screen: str) -> str:
    """The command a simple player types now, from the hints line: first the rent owed to them,
    which the line tells (over its last two rows) while it is open, then the move."""
    if re.search("owes you|owed to you", " ".join(_rows(screen)[22:24])):
        return "claim"
    hints = _rows(screen)[23]
    words = set(re.sub(r"^.*?:", "", hints).replace(",", " ").split())
    for word in ("buy", "roll", "end", "pay", "fine", "pass", "decline", "bankrupt"):
        if word in words:
            return word
    raise AssertionError(f"nothing to type:\n{screen}")


def _lan_game(host: Terminal, *guests: Terminal) -> None:
    """From the start screens to a game: the host (ann) hosts with a seat for each guest, the
    guests (bob, then cid) find the game on the network and join with the PIN, the host starts."""
    seats = 1 + len(guests)
    names = ["bob", "cid"][: len(guests)]
    host.wait_for("a new game")
    for guest in guests:
        guest.wait_for("a new game")
    host.keys("a", "n", "n", "Down", "Down", *["Left"] * (4 - seats), "F2")  # 3 bots by default
    for guest, name in zip(guests, names, strict=True):
        guest.keys(*name, "F3")
    pin = re.search(r"Game PIN: (\d{6})", host.wait_for(r"Game PIN: \d{6}"))
    assert pin is not None
    key = re.search(r"Host key: ([0-9a-f]{4}(-[0-9a-f]{4}){3})", host.screen())  # read out to the players
    assert key is not None, host.screen()
    assert re.search(r"Address: +127\.0\.0\.2:\d+", host.screen())
    assert "1  ann (you)" in host.screen() and f"{seats}  a bot" in host.screen()
    for taken, (guest, name) in enumerate(zip(guests, names, strict=True), 1):
        listed = guest.wait_for(rf"> ann's table.*127\.0\.0\.2:\d+ +{seats - taken} free +open +official/classic")
        assert "Game PIN" in listed and f"host key {key.group(1)}" in listed, listed
        guest.type(pin.group(1))
        guest.wait_for("waiting for the host to start")
        host.wait_for(rf"{taken + 1}  {name} \(joined\)")
    host.keys("Enter")
    host.wait_for(r"LAN: ann \(you\), " + ", ".join(names))
    for guest, name in zip(guests, names, strict=True):
        guest.wait_for(r"LAN: ann, " + ", ".join(rf"{n} \(you\)" if n == name else n for n in names))


def _panels(screen: str) -> list[str]:
    return _shared(screen)[0]


def _play(
    peers: dict[str, Terminal],
    turns: int,
    out_of_turn: Callable[[str, str], None] | None = None,
    same: Callable[[str], object] = _shared,
    until: str | None = None,
) -> None:
    """Whoever the game waits for types the command a simple player would, until ``turns`` turns
    ended (and then, with ``until``, until the game waits for that peer) or the game is over; only
    when ``same`` part of every screen agrees (no other is catching up). Before a roll,
    ``out_of_turn(mover, other)`` may act on another screen."""
    ends = 0
    deadline = time.monotonic() + 60 + 30 * turns
    while time.monotonic() < deadline:
        if ends >= turns and until is None:
            return
        screens = {name: peers[name].screen() for name in peers}
        if all("Game over" in s for s in screens.values()):
            return
        mover = next((name for name, s in screens.items() if "| waiting for you" in s), None)
        if mover is None:
            time.sleep(0.1)
            continue
        others = [name for name in peers if name != mover]
        if any(same(screens[other]) != same(screens[mover]) for other in others):
            time.sleep(0.1)  # another screen is still catching up
            continue
        if ends >= turns and mover == until:
            return
        command = _command(screens[mover])
        before = _shared(screens[mover])
        if command == "roll" and out_of_turn is not None:
            out_of_turn(mover, others[0])
            out_of_turn = None
        peers[mover].type(command)
        ends += command == "end"
        wait = time.monotonic() + 20
        while _shared(peers[mover].screen()) == before and time.monotonic() < wait:
            time.sleep(0.05)
    raise AssertionError(
        f"only {ends} turns ended (of {turns}, then until {until}):\n" + "\n".join(p.screen() for p in peers.values())
    )


def _same_screens(*terminals: Terminal) -> tuple[list[str], list[str]]:
    """Every screen shows the same state: the same panels (cash, deeds) and the same log."""
    deadline = time.monotonic() + 20
    while len({repr(_shared(t.screen())) for t in terminals}) > 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    screens = [t.screen() for t in terminals]
    shared = _shared(screens[0])
    assert all(_shared(screen) == shared for screen in screens), "\n".join(screens)
    return shared


def _headless(*args: str) -> subprocess.CompletedProcess[str]:
    """``lanopoly ARGS`` as a script runs it: no terminal (stdin closed), on loopback."""
    return subprocess.run(
        [sys.executable, "-m", "lanopoly", *args],
        capture_output=True,
        text=True,
        env={**os.environ, "LANOPOLY_INTERFACES": "127.0.0.1"},
        stdin=subprocess.DEVNULL,
    )


@contextlib.contextmanager
def _tmux(tmp_path: Path) -> Iterator[str]:
    """A tmux server of this test's own (its socket's name), killed on the way out; then the
    consoles' errors, if any, are shown (``_show_errors``)."""
    server = _tmux_server()
    try:
        yield server
    finally:
        subprocess.run(["tmux", "-L", server, "kill-server"], capture_output=True)
        _show_errors(tmp_path)


def _two_consoles(server: str, tmp_path: Path, rounds: int, turns: int) -> tuple[Terminal, Terminal]:
    """ann hosts (English, a game of ``rounds`` rounds) and bob joins, in two terminals of
    ``server``; they play ``turns`` turns as simple players do, and then both screens agree."""
    host = Terminal(server, "host", "127.0.0.2", tmp_path, f"play --lang en --rounds {rounds}")
    guest = Terminal(server, "guest", "127.0.0.3", tmp_path)
    _lan_game(host, guest)
    _play({"host": host, "guest": guest}, turns)
    return host, guest


def _tmux_server() -> str:
    return f"lanopoly-lan-{os.getpid()}-{time.monotonic_ns()}"


def _show_errors(tmp_path: Path) -> None:
    for err in sorted(tmp_path.glob("*.err")):
        if err.read_text().strip():
            print(f"{err.name}:\n{err.read_text()}")


needs_tmux = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed (.ci/run installs it)")


@needs_tmux
def test_two_console_peers_host_discover_join_and_play_in_real_terminals(tmp_path: Path):
    with _tmux(tmp_path) as server:
        host = Terminal(server, "host", "127.0.0.2", tmp_path)
        guest = Terminal(server, "guest", "127.0.0.3", tmp_path)
        _lan_game(host, guest)

        def offer(mover: str, other: str) -> None:
            """Out of turn, on the screen whose player does not move: a trade offer, sent at once and
            taken while the mover is still to roll (its peer decides the step with it)."""
            names = {"host": "ann", "guest": "bob"}
            peer, moving = (host, guest) if other == "host" else (guest, host)
            peer.type(f"trade {names[mover]} give $1 for nothing")
            # ("Sent, waiting for the next step" shows until the offer is taken, which may be at once.)
            for screen in (peer, moving):
                screen.wait_for(rf"{names[other]} offers a trade to {names[mover]}: \$1 for nothing\.")
            assert "| waiting for you" in moving.screen(), moving.screen()  # the mover has not rolled

        _play({"host": host, "guest": guest}, 4, offer)
        panels, log = _same_screens(host, guest)
        assert re.search(r"1 ann +\$\d+", panels[0]) and re.search(r"2 bob +\$\d+", panels[1]), panels
        assert any("Round" in line or "rolls" in line for line in log), log
        # The offer was taken: both peers' saved games hold it (the screens have scrolled on).
        for terminal in (host, guest):
            inputs = [a["type"] for a in GameLog.load(terminal.saved()).inputs]
            assert inputs.count("propose_trade") == 1, inputs

        # The guest leaves: the host's screen says so, and waits for bob to come back.
        guest.type("quit")
        guest.type("y")  # leaving a LAN game is asked first
        host.wait_for(r"bob \(AWAY \d:\d\d\)")
        host.type("quit")
        host.type("y")  # leaving a LAN game is asked first
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            alive = subprocess.run(["tmux", "-L", server, "has-session", "-t", "host"], capture_output=True)
            if alive.returncode != 0:
                break  # the console ended and its terminal closed
            time.sleep(0.1)
        else:
            raise AssertionError(f"the host's console did not quit:\n{host.screen()}")


@needs_tmux
def test_a_killed_console_is_shown_away_and_rejoin_brings_it_back(tmp_path: Path):
    """bob's console is killed mid-game (SIGKILL: no goodbye); ann's screen shows him away, the
    clock running; ``lanopoly rejoin FILE`` in a new terminal opens the console on his seat again,
    and the game is played to the end with the same final state hash on both peers."""
    with _tmux(tmp_path) as server:
        host, guest = _two_consoles(server, tmp_path, rounds=4, turns=2)
        _same_screens(host, guest)
        saved = guest.saved()
        assert Path(f"{saved}.secret").exists()

        os.kill(guest.pid(), signal.SIGKILL)
        first = re.search(r"bob \(AWAY 0:(\d\d)\)", host.wait_for(r"bob \(AWAY 0:\d\d\)"))
        assert first is not None
        later = rf"bob \(AWAY 0:({int(first.group(1)) + 2:02d}|{int(first.group(1)) + 3:02d})\)"
        screen = host.wait_for(later)  # the clock runs, every second
        assert re.search(r"2 bob .* AWAY 0:0\d", screen), screen
        assert "bob dropped out" in screen
        if "waiting for you" not in screen:  # the middle of the board says it too, unless ann is to move
            assert re.search(r"bob away for 0:0\d: waiting for them to rejoin", screen), screen

        back = Terminal(server, "guest2", "127.0.0.3", tmp_path, f"rejoin {shlex.quote(str(saved))} --lang en")
        back.wait_for(r"LAN: ann, bob \(you\)", 60)
        host.wait_for(r"bob is back\.")
        screen = host.wait_for(r"LAN: ann \(you\), bob \|")
        assert "AWAY" not in screen

        _play({"host": host, "guest2": back}, 100, same=_panels)  # the logs differ in LAN notices
        host.wait_for("Game over", 60)
        back.wait_for("Game over", 60)
        host.wait_for("every peer agrees on the final state", 30)
        back.wait_for("every peer agrees on the final state", 30)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            logs = [GameLog.load(path) for path in (host.saved(), saved)]
            if logs[0].hashes == logs[1].hashes:
                break
            time.sleep(0.2)
        assert logs[0].hashes == logs[1].hashes and logs[0].replay().is_over


@needs_tmux
def test_a_killed_console_comes_back_by_picking_its_saved_game_on_the_start_screen(tmp_path: Path):
    """bob's console is killed mid-game; ``lanopoly`` with no arguments in a new terminal (the same
    data folder) lists the unfinished game on its start screen, F4 rejoins it: bob's seat again,
    ann's screen says he is back, and both play on to the same state."""
    with _tmux(tmp_path) as server:
        host, guest = _two_consoles(server, tmp_path, rounds=6, turns=1)
        _same_screens(host, guest)
        saved = guest.saved()
        before = len(_saved_as_shown([host, guest])[1].inputs)
        assert before > 0

        os.kill(guest.pid(), signal.SIGKILL)
        host.wait_for(r"bob \(AWAY 0:\d\d\)")

        back = Terminal(server, "guest2", "127.0.0.3", tmp_path, "")
        start = back.wait_for(rf"Saved game: +< ann, bob, {before} steps >")
        assert "a new game against bots" in start and "F4: rejoin it" in start, start
        assert saved.name in "".join(line.strip() for line in start.splitlines()), start  # its file, wrapped
        back.keys("F4")
        back.wait_for(r"LAN: ann, bob \(you\)", 60)
        back.wait_for(r"You are back in the game \(step \d+\)")
        host.wait_for(r"bob is back\.")
        assert "AWAY" not in host.wait_for(r"LAN: ann \(you\), bob \|")

        _play({"host": host, "guest2": back}, 2, same=_panels)  # the logs differ in LAN notices
        deadline = time.monotonic() + 20
        while _panels(host.screen()) != _panels(back.screen()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _panels(host.screen()) == _panels(back.screen()), f"{host.screen()}\n{back.screen()}"
        logs = _saved_as_shown([host, back])  # both consoles saved what they show
        assert len(logs[0].hashes) > before
        back.type("quit")
        back.type("y")  # leaving a LAN game is asked first
        host.wait_for(r"bob \(AWAY \d:\d\d\)")


_PANEL = re.compile(r"([ >])(\d) (\S+) +\$(\d+) +(\d+) deeds?\b")
"""A player's panel: whose turn, seat, name, cash, deeds (then maybe ``in jail``, ``AWAY``...)."""


def _saved_as_shown(terminals: list[Terminal], seconds: float = 20) -> list[GameLog]:
    """The games these consoles saved, once every file holds what the screens show (the consoles
    save at most half a second after a step): the same hashes in every file, and the replayed game
    has each seat's cash and deeds as the panels show them and waits for the player marked to move."""
    deadline = time.monotonic() + seconds
    while True:
        shown = [m.groups() for m in map(_PANEL.match, _panels(terminals[0].screen())) if m]
        logs = [GameLog.load(terminal.saved()) for terminal in terminals]  # written atomically
        game = logs[0].replay()
        saved = []
        for seat in range(len(shown)):
            player = game.player(seat)
            mark = ">" if game.current_player == seat else " "
            saved.append((mark, str(seat + 1), player["name"], str(player["cash"]), str(len(player["properties"]))))
        if shown and saved == shown and all(log.hashes == logs[0].hashes for log in logs):
            return logs
        if time.monotonic() > deadline:
            steps = [len(log.hashes) for log in logs]
            raise AssertionError(
                f"the saved games ({steps} steps) do not hold what the screens show:\n{shown}\n{saved}"
            )
        time.sleep(0.1)


@needs_tmux
def test_two_killed_consoles_resume_their_game_from_the_start_screen_with_f5(tmp_path: Path):
    """Both consoles are killed mid-game (SIGKILL: nobody left playing). ``lanopoly`` with no
    arguments in two new terminals (each with its data folder) lists the unfinished game on the
    start screen; F5 on both resumes it: both screens are back in the game with the panels they
    showed, the log saying where the game is saved and how to take it up again; two more turns
    are played alike, and both saved games agree on every state hash."""
    with _tmux(tmp_path) as server:
        host, guest = _two_consoles(server, tmp_path, rounds=6, turns=3)
        panels, _ = _same_screens(host, guest)
        before = _saved_as_shown([host, guest])
        steps = len(before[0].inputs)
        assert steps > 0

        host.tmux("new-session", "-d", "-s", "keep", "cat")  # the tmux server outlives both consoles
        for terminal in (host, guest):
            os.kill(terminal.pid(), signal.SIGKILL)
        again = {
            "host": Terminal(server, "host2", "127.0.0.2", tmp_path, ""),
            "guest": Terminal(server, "guest2", "127.0.0.3", tmp_path, ""),
        }
        for terminal in again.values():
            start = terminal.wait_for(rf"Saved game: +< ann, bob, {steps} steps >")
            assert "a new game against bots" in start and "F5: resume it" in start, start
        again["guest"].keys("F5")
        again["guest"].wait_for(r"Resuming the game saved in")  # waiting for ann to resume too
        again["host"].keys("F5")
        again["host"].wait_for(r"LAN: ann \(you\), bob \|", 60)
        again["guest"].wait_for(r"LAN: ann, bob \(you\) \|", 60)
        for terminal in again.values():
            screen = terminal.wait_for(r"You are back in the game \(step \d+\)")
            assert "it on the start screen: F4 takes your seat again" in screen, screen  # (PYTHONPATH's console)
            assert _panels(screen) == panels, f"{screen}\n{panels}"

        _play(again, 2, same=_panels)  # the logs differ in LAN notices
        deadline = time.monotonic() + 20
        while _panels(again["host"].screen()) != _panels(again["guest"].screen()) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _panels(again["host"].screen()) == _panels(again["guest"].screen()), "\n".join(
            t.screen() for t in again.values()
        )
        after = _saved_as_shown(list(again.values()))
        assert len(after[0].hashes) > steps and after[0].hashes[:steps] == before[0].hashes
        assert after[0].hashes == after[1].hashes and after[0].replay().state_hash() == after[0].hashes[-1]


def test_three_console_peers_vote_a_silent_one_out_and_play_on_with_a_bot_in_its_seat(tmp_path: Path):
    """ann hosts, bob and cid join; a few turns, then cid's console stops (SIGSTOP: silent, its
    connections open) while the game waits for cid. ann and bob type ``replace cid``: once both
    voted, both screens say a bot on ann's machine plays cid, the bot takes cid's turns, the game
    goes on with the same state on both. cid, let go again, shows it was replaced and stops."""
    server = _tmux_server()
    cid_pid = 0
    try:
        ann = Terminal(server, "host", "127.0.0.2", tmp_path)
        bob = Terminal(server, "guest", "127.0.0.3", tmp_path)
        cid = Terminal(server, "third", "127.0.0.4", tmp_path)
        _lan_game(ann, bob, cid)
        _play({"host": ann, "guest": bob, "third": cid}, 3, until="third")
        _same_screens(ann, bob, cid)
        seat = next(int(row[1]) - 1 for row in _panels(ann.screen()) if row[3:6] == "cid")

        cid_pid = cid.pid()
        os.kill(cid_pid, signal.SIGSTOP)
        ann.type("replace cid")
        ann.wait_for(r"You vote for a bot in cid's seats; done when all the others vote so\.")
        assert "REPLACED" not in ann.screen()  # one vote is not enough
        bob.type(f"replace {seat + 1}")  # a player by seat number
        replaced = r"cid replaced: a bot on ann's machine now plays cid"
        for terminal in (ann, bob):
            screen = terminal.wait_for(replaced)
            assert re.search(r"LAN: ann.*, bob.*, cid \(REPLACED\)", screen), screen
            assert re.search(rf"{seat + 1} cid .* BOT", screen), screen

        # The game goes on: ann's and bob's turns, and cid's in between, played by the bot on ann's machine.
        _play({"host": ann, "guest": bob}, 4)
        panels, _ = _same_screens(ann, bob)
        assert len(panels) == 3 and "BOT" in panels[seat], panels
        logs = _saved_as_shown([ann, bob])  # the files lag the screens by up to half a second
        changes = [json.loads(terminal.saved().read_text())["network"]["changes"] for terminal in (ann, bob)]
        assert changes[0] == changes[1] and len(changes[0]) == 1, changes
        step = changes[0][0]["step"]
        bot_moves = [a for a in logs[0].inputs[step - 1 :] if a.get("player") == seat and a["type"] == "end_turn"]
        assert len(bot_moves) >= 2, logs[0].inputs[step - 1 :]
        common = min(len(log.hashes) for log in logs)
        assert logs[0].hashes[:common] == logs[1].hashes[:common]
        verified = judge_file(ann.saved()).verified
        assert verified is not None and verified.replaced == 1, verified

        # cid's console, let go, learns it was replaced and stops playing.
        os.kill(cid_pid, signal.SIGCONT)
        cid_pid = 0
        rows = _rows(cid.wait_for(r"GAME FROZEN", 30))
        screen = re.sub(r"\s+", " ", " ".join(rows))  # a long line of the log wraps between words
        # (told by the others' notice, or found in their votes if those came first)
        voted = r"(?:removed|voted out) from step (\d+) by (?:the votes of )?peer 0 \(ann\), peer 1 \(bob\)"
        told = re.search(voted, screen)
        assert told is not None and int(told.group(1)) == step, screen
    finally:
        if cid_pid:
            os.kill(cid_pid, signal.SIGCONT)
        subprocess.run(["tmux", "-L", server, "kill-server"], capture_output=True)
        _show_errors(tmp_path)


def test_a_dropped_peer_voted_out_is_told_replaced_not_back():
    """cid's table stops (a crashed console): ann and bob see him away, vote him out; their logs
    tell the replacement at the same place, not "cid is back", and the bot on ann's plays on."""

    async def run() -> None:
        games = await _set_up(["ann", "bob", "cid"], 3)
        ann, bob, cid = (_table(started, rejoin_timeout=60) for started in games)
        try:
            await _until(lambda: min(ann.game.step, bob.game.step, cid.game.step) > 10, (ann, bob, cid), 60)
            await cid.close()
            tables = (ann, bob)
            await _until(lambda: bool(ann.away() and bob.away()), tables, 20, play=False)
            for table in tables:
                assert table.replace(2).startswith("You vote for a bot in cid's seats")
            await _until(lambda: bool(ann.replaced() and bob.replaced()), tables, 20, play=False)
            step = ann.game.step
            await _until(lambda: min(ann.game.step, bob.game.step) > step + 20, tables, 60)
            await _until(lambda: ann.game.step == bob.game.step, tables, 20, play=False)
            told = "cid replaced: a bot on ann's machine now plays cid (all the others voted so)."
            for table in tables:
                assert table.replaced() == [2] and table.replaced_seats() == {2} and not table.away()
                assert table.lines.count(told) == 1 and "cid is back." not in table.lines, table.lines
                assert "cid (REPLACED)" in table.status()[1] and "AWAY" not in table.status()[1]
            assert ann.game.state_hash() == bob.game.state_hash()
            after = [table.lines[table.lines.index(told) + 1 :] for table in tables]
            assert after[0] == after[1]  # told at the same place: before the same step's lines
            assert set(ann.bots) == {2} and not bob.bots
        finally:
            for table in (ann, bob, cid):
                await table.close()

    asyncio.run(asyncio.wait_for(run(), 120))


def test_replace_votes_only_where_there_are_others_to_agree():
    """`replace PLAYER` votes a peer's seats to a bot: with two peers there is nobody to agree
    with, one's own seat is not a peer to vote out, and a solo game has no peers at all. `remove
    PLAYER` (to the bank) needs nobody else's vote with two peers: the other's seats resign."""
    from lanopoly.console.commands import Local, parse
    from lanopoly.console.session import LocalTable

    async def run() -> None:
        host, guest = await _two_tables(3)
        try:
            assert parse(guest.game, guest.me, "replace ann", "fr") == Local("replace", "ann")
            assert parse(guest.game, guest.me, "exclure ann", "fr") == Local("remove", "ann")
            with pytest.raises(CommandError, match="personne avec qui s'accorder"):
                guest.replace(2)  # the bot seat: played on ann's machine, the only other peer
            with pytest.raises(CommandError, match="bob est joué sur votre machine"):
                guest.replace(1)
            assert guest.core.condemned == set()  # nothing was voted
            assert guest.replace(0, "bank").startswith("Vous votez pour exclure ann, biens à la banque")
            await _until(lambda: guest.replaced() == [0] and host.frozen, (host, guest), 20, play=False)
            removed = "ann exclu : ann, bot 1 abandonnent, la banque prend leurs biens (tous les autres l'ont voté)."
            assert removed in guest.lines and guest.replaced_seats() == set()
            assert host.result is not None and host.result.freeze is not None
            assert "removed from step" in host.result.freeze.reason
            await _until(lambda: guest.over, (guest,), 30)
            assert guest.game.winner == 1
        finally:
            for table in (host, guest):
                await table.close()

    asyncio.run(asyncio.wait_for(run(), 60))
    solo = LocalTable(["ann", "bea", "cid"], me=0)
    with pytest.raises(CommandError, match="Only in a LAN game"):
        solo.replace(1)


@needs_tmux
def test_lanopoly_host_and_join_in_terminals_open_the_lobby_screens(tmp_path: Path):
    """Issue 14, item 1: `lanopoly host` and `lanopoly join` in a terminal open the console's lobby
    screens (both show the host key's fingerprint), then the game; outside a terminal they stay
    headless, and --help says which is which."""
    helped = subprocess.run([sys.executable, "-m", "lanopoly", "host", "--help"], capture_output=True, text=True)
    assert "In a terminal: the console's lobby screen" in " ".join(helped.stdout.split()), helped.stdout
    headless = _headless("host", "--no-advertise", "--timeout", "0.2", "--pin", PIN)
    assert headless.returncode == 1 and "lobby open at 127.0.0.1:" in headless.stdout, headless
    with _tmux(tmp_path) as server:
        host = Terminal(server, "host", "127.0.0.2", tmp_path, f"host --name ann --players 2 --pin {PIN} --lang en")
        screen = host.wait_for(rf"Game PIN: {PIN}")
        key = re.search(r"Host key: ([0-9a-f-]{19})", screen)
        assert key is not None, screen
        guest = Terminal(server, "guest", "127.0.0.3", tmp_path, f"join ann --pin {PIN} --name bob --lang en")
        guest.wait_for(r"> ann's table.*127\.0\.0\.2:\d+ +1 free +open")
        guest.keys("Enter")
        joined = guest.wait_for(r"In the lobby: ann, bob \(2 of 2 seats\)")
        assert "waiting for the host to start" in joined and f"Host key: {key.group(1)}" in joined, joined
        host.wait_for(r"2  bob \(joined\)")
        host.keys("Enter")
        host.wait_for(r"LAN: ann \(you\), bob")
        guest.wait_for(r"LAN: ann, bob \(you\)")


def test_lanopoly_join_alone_opens_the_join_screen_and_a_script_is_told_what_it_lacks(tmp_path: Path):
    """`lanopoly join` with no target and no PIN, as its help promises for a terminal, opens the
    join screen (it was a usage error: target and --pin required); a script is told to give them."""
    headless = _headless("join")
    assert headless.returncode == 1 and "give TARGET and --pin" in headless.stderr, headless
    with _tmux(tmp_path) as server:
        guest = Terminal(server, "guest", "127.0.0.3", tmp_path, "--name bob --lang fr join")
        guest.wait_for(r"lanopoly : rejoindre une partie \(parties trouvées sur le réseau\)")


def test_a_counter_offer_on_the_lan_rejects_the_offer_then_proposes_and_both_peers_agree():
    """Issue 14, counter-offers: ann (the host) offers bob $1 while he is to roll; in his console
    F9 shows it, c opens the composer with it reversed and Enter counters it. In turn a peer
    sends one move at a time: the rejection first, then, once it is played, the counter-offer
    (sent at once, it was refused: "a move is being sent"); both peers play both and agree."""

    async def run() -> None:
        async with _pair(3) as tables:
            host, guest = tables

            await _until(lambda: _to_roll(guest), tables, 30, players=(host,))
            offer = {"type": "propose_trade", "player": 0, "to": 1, "give": {"cash": 1}, "get": {}}
            async with _console(guest) as (app, pipe, running):
                host.act(offer)
                await _until(lambda: bool(guest.game.offers), tables, 20, play=False)
                step = guest.game.step
                # F9, c and Enter at once, as soon as the offer is played: bob's session has not
                # asked for his next move yet, so his rejection waits to be sent in turn.
                pipe.send_text("\x1b[20~c\r")

                def countered() -> bool:
                    return all([(o["from"], o["to"]) for o in t.game.offers] == [(1, 0)] for t in tables)

                await _until(countered, tables, 30, play=False)
                await _until(lambda: host.game.step == guest.game.step, tables, 30, play=False)
                assert app.feedback[0] != "class:error", app.feedback
                pipe.send_text("quit\ry\r")
                assert await asyncio.wait_for(running, 30) == 0
            moves = [(i["type"], i.get("player")) for i in guest.core.log.inputs[step:]]
            assert moves[:2] == [("reject_trade", 1), ("propose_trade", 1)], moves
            assert guest.core.log.inputs[step + 1]["give"] == {"cash": 0, "properties": [], "jail_cards": []}
            assert guest.core.log.inputs[step + 1]["get"]["cash"] == 1
            assert host.game.state_hash() == guest.game.state_hash()

    asyncio.run(asyncio.wait_for(run(), 90))


def test_a_queued_move_replaced_by_a_newer_one_is_told_and_not_counted_as_waiting():
    """Found in a LAN game of two consoles: the status said "6 sent, waiting for the next step"
    for good. One out-of-turn move per seat waits in the session; a newer one replaced the older
    silently, and the console kept counting it. Now the session tells (MoveDropped, replaced)
    and the console says so in the log; the same move typed twice waits once."""

    async def run() -> None:
        async with _pair(3) as tables:
            host, guest = tables

            await _until(lambda: _to_roll(host), tables, 30, players=(guest,))
            offers = [
                {"type": "propose_trade", "player": guest.me, "to": host.me, "give": {"cash": cash}, "get": {}}
                for cash in (1, 2, 3)
            ]
            # No await between them: the first is offered to the leader at once, the second waits
            # in the session, the third takes its place (the step cannot be played in between).
            for offer in (offers[0], offers[1], offers[1], offers[2]):
                guest.act(offer)
            assert offers[1] not in guest.queued() and guest.queued().count(offers[2]) == 1, guest.queued()
            assert any(line.startswith("Remplacé : trade ann give $2") for line in guest.lines), guest.lines[-3:]
            await _until(lambda: not guest.queued(), tables, 30, play=False)

    asyncio.run(asyncio.wait_for(run(), 90))


def test_the_bid_timer_chosen_on_the_host_screen_is_in_the_start_record_both_peers_agree_to():
    """Issue 14, "an optional bid timer agreed in the lobby": ann's host screen starts with the
    timer of ``--bid-timer`` (20 s), Up makes it 30 s on the screen, and the start record ann and
    cid sign carries 30: every console plays with the same timer."""

    async def run() -> None:
        setup = Setup(name="ann", bots=1, lang="en")
        with create_pipe_input() as pipe:
            screen = HostScreen(
                setup, pin=PIN, advertise=False, interfaces=LOOPBACK, bid_timer=20, input=pipe, output=Screen()
            )
            running = asyncio.create_task(screen.run())
            try:
                await _drawn(screen.app, lambda: screen.app.is_running and bool(screen.address))
                assert " Bid timer in auctions: < 20 s >" in screen_lines(screen.app)
                port = int(screen.address.rsplit(":", 1)[1])

                async def longer() -> None:
                    pipe.send_text("\x1b[A")  # Up: the next longer timer
                    await _drawn(screen.app, lambda: " Bid timer in auctions: < 30 s >" in screen_lines(screen.app))

                records = await _cid_joins_and_ann_starts(screen.app, screen.seat_lines, pipe, running, port, longer)
                assert [record.bid_timer for record in records] == [30, 30]
            finally:
                running.cancel()

    asyncio.run(asyncio.wait_for(run(), 60))


def test_the_bid_timer_passes_for_the_consoles_own_person_only_when_it_runs_out():
    """With a bid timer of 2 s agreed in the lobby, ann (the host, no console open) declines a
    deed: bob's console shows the seconds left beside the bidders, and once they run out (not
    before) passes for bob, a move of his own that both peers play; nothing passes for ann, whose
    console is not open: the clock is the console's, not the session's."""

    async def run() -> None:
        async with _pair(2, bid_timer=2) as tables:
            host, guest = tables
            assert host.record.bid_timer == guest.record.bid_timer == 2
            assert any("2 s sans nouvelle enchère" in line for line in guest.lines), guest.lines

            def to_decide() -> bool:
                return host.waiting_for_you and "decline" in {a["type"] for a in host.legal()}

            await _until(to_decide, tables, 60)
            async with _console(guest) as (app, pipe, running):
                shown = "minuterie des enchères 2 s, puis votre console passe"  # the middle says it, for good
                await _drawn(app.app, lambda: any(shown in line for line in screen_lines(app.app)))
                host.act({"type": "decline", "player": host.me})
                await _until(lambda: guest.game.auction is not None, tables, 20, play=False)
                began = time.monotonic()
                await _drawn(app.app, lambda: any("s pour enchérir" in line for line in screen_lines(app.app)))
                counting = next(line for line in screen_lines(app.app) if "s pour enchérir" in line)
                assert re.search(r"encore en lice : ann, bob · [12] s pour enchérir", counting), counting

                def bob_out() -> bool:
                    return all(t.game.auction is not None and t.game.auction["bidders"] == [0] for t in tables)

                await _until(bob_out, tables, 20, play=False)
                assert time.monotonic() - began >= 1.5, "passed before the timer ran out"
                await _drawn(app.app, lambda: "console a passé pour vous" in app.feedback[1])
                assert host.game.legal_actions(0), "ann is still in, to bid or pass herself"
                pipe.send_text("quit\ry\r")
                assert await asyncio.wait_for(running, 30) == 0

    asyncio.run(asyncio.wait_for(run(), 90))


def test_a_joiners_lobby_shows_the_bid_timer_the_host_chose_and_each_change():
    """Issue 14, "an optional bid timer agreed in the lobby": bob, in ann's lobby from his join
    screen, sees the timer ann started with (20 s) before the start, and 30 s once ann presses Up
    (the ROSTER carries it): he knows the timer he will play with before the game begins. Once
    joined, the keys' line offers only Escape (it said "Enter: join" while he waited)."""

    async def run() -> None:
        with create_pipe_input() as keys, create_pipe_input() as bob_keys:
            setup = Setup(name="ann", bots=1, lang="en")
            host = HostScreen(
                setup, pin=PIN, advertise=False, interfaces=LOOPBACK, bid_timer=20, input=keys, output=DummyOutput()
            )
            running = asyncio.create_task(host.run())
            try:
                await _drawn(host.app, lambda: host.app.is_running and bool(host.address))
                bob = JoinScreen(
                    Setup(name="bob", lang="en"),
                    address=host.address,
                    pin=PIN,
                    interfaces=LOOPBACK,
                    input=bob_keys,
                    output=Screen(),
                )
                bob_running = asyncio.create_task(bob.run())
                await _drawn(bob.app, lambda: bob.app.is_running)
                assert any("Enter: join" in line for line in screen_lines(bob.app))
                bob_keys.send_text("\r")  # Enter: join
                timer = "Bid timer in auctions (the host's choice): {}"
                await _drawn(bob.app, lambda: timer.format("20 s") in screen_lines(bob.app))
                hints = [line for line in screen_lines(bob.app) if "Esc:" in line]
                assert hints == [" Esc: leave the table"], hints
                keys.send_text("\x1b[A")  # Up on ann's screen: 30 s
                await _drawn(bob.app, lambda: timer.format("30 s") in screen_lines(bob.app))
                keys.send_text("\x1b[B\x1b[B\x1b[B\x1b[B\x1b[B\x1b[B")  # Down to the end: off
                await _drawn(bob.app, lambda: timer.format("off") in screen_lines(bob.app))
                bob_keys.send_text("\x1b")  # Esc: bob leaves
                assert await asyncio.wait_for(bob_running, 10) is None
            finally:
                running.cancel()

    asyncio.run(asyncio.wait_for(run(), 60))


def test_a_joiner_refuses_a_hosts_bid_timer_out_of_range_and_never_shows_it(monkeypatch: pytest.MonkeyPatch):
    """A malicious host's ROSTER with a bid timer of 601 s (more than a start record may carry):
    bob's join screen says it could not join, naming the field, and shows no timer."""
    from lanopoly.net import wire
    from lanopoly.net.core import lobby as lm
    from lanopoly.net.protocol import PROTOCOL

    def hostile(lobby: HostLobby) -> None:
        payload = wire.pack([lm.ROSTER, PROTOCOL, lobby.roster, lobby.seats, 601])
        for joiner in lobby.joiners:
            joiner.conn.send(payload)

    monkeypatch.setattr(HostLobby, "_changed", hostile)

    async def run() -> None:
        with create_pipe_input() as bob_keys:
            lobby = HostLobby("ann", 2, 2, "classic", Rules().to_dict(), PIN, interfaces=LOOPBACK)
            port = await lobby.open()
            try:
                bob = JoinScreen(
                    Setup(name="bob", lang="en"),
                    address=f"127.0.0.1:{port}",
                    pin=PIN,
                    interfaces=LOOPBACK,
                    input=bob_keys,
                    output=Screen(),
                )
                bob_running = asyncio.create_task(bob.run())
                await _drawn(bob.app, lambda: bob.app.is_running)
                bob_keys.send_text("\r")  # Enter: join
                await _drawn(bob.app, lambda: "Could not join" in bob.message[1])
                assert "bid timer" in bob.message[1], bob.message
                assert not any("601" in line or "Bid timer" in line for line in screen_lines(bob.app))
                bob_keys.send_text("\x1b")
                assert await asyncio.wait_for(bob_running, 10) is None
            finally:
                await lobby.close()

    asyncio.run(asyncio.wait_for(run(), 60))


async def _failed_join(lang: str, address: str, pin: str) -> list[str]:
    """bob's join screen in ``lang`` once Enter to join ``address`` with ``pin`` failed (he then leaves)."""
    with create_pipe_input() as bob_keys:
        bob = JoinScreen(
            Setup(name="bob", lang=lang), address=address, pin=pin, interfaces=LOOPBACK, input=bob_keys, output=Screen()
        )
        bob_running = asyncio.create_task(bob.run())
        await _drawn(bob.app, lambda: bob.app.is_running)
        bob_keys.send_text("\r")  # Enter: join
        failed = t(lang, "join.failed", reason="")
        await _drawn(bob.app, lambda: any(line.startswith(failed) for line in screen_lines(bob.app)))
        lines = screen_lines(bob.app)
        bob_keys.send_text("\x1b")
        assert await asyncio.wait_for(bob_running, 10) is None
        return lines


@pytest.mark.parametrize(("lang", "said"), [("en", "the host refused the PIN"), ("fr", "l'hôte refuse le code PIN")])
def test_a_mistyped_pin_is_said_once_in_the_persons_language(lang: str, said: str):
    """bob types a wrong PIN: his join screen says so in his language, once ("Could not join:
    could not join: refused: wrong PIN" was the English of the net layer, in every language)."""

    async def run() -> list[str]:
        lobby = HostLobby("ann", 2, 2, "classic", Rules().to_dict(), PIN, interfaces=LOOPBACK)
        port = await lobby.open()
        try:
            return await _failed_join(lang, f"127.0.0.1:{port}", "135791")
        finally:
            await lobby.close()

    line = next(line for line in asyncio.run(asyncio.wait_for(run(), 60)) if said in line)
    assert line.lower().count("join") <= 1 and "refused:" not in line and "wrong PIN" not in line, line


@pytest.mark.parametrize("lang", ["en", "fr", "it", "no"])
def test_the_join_screens_labels_show_whole_at_80x24(lang: str):
    """The PIN and address labels of the join screen, whole with their colon in every language
    (the Norwegian "eller adresse (vert:port):" was cut before its colon), their fields after them."""

    async def run() -> list[str]:
        with create_pipe_input() as keys:
            screen = JoinScreen(Setup(name="bob", lang=lang), interfaces=LOOPBACK, input=keys, output=Screen())
            running = asyncio.create_task(screen.run())
            await _drawn(screen.app, lambda: screen.app.is_running)
            keys.send_text("1234")
            address = " " + t(lang, "form.label", label=t(lang, "join.address"))
            await _drawn(screen.app, lambda: any(line.endswith("1234") for line in screen_lines(screen.app)))
            lines = screen_lines(screen.app)
            keys.send_text("\x1b")
            assert await asyncio.wait_for(running, 10) is None
            assert any(line.startswith(address + " ") or line == address for line in lines), lines
            return lines

    lines = asyncio.run(asyncio.wait_for(run(), 60))
    pin = " " + t(lang, "form.label", label=t(lang, "join.pin"))
    assert any(line.startswith(pin) and line.endswith(" 1234") for line in lines), lines


@pytest.mark.parametrize(
    ("lang", "alone", "two"),
    [
        ("en", "Seats (1 taken of 3):", "Seats (2 taken of 3):"),
        ("fr", "Places (1 prise sur 3) :", "Places (2 prises sur 3) :"),
        ("it", "Posti (1 occupato su 3):", "Posti (2 occupati su 3):"),
    ],
)
def test_the_host_screen_counts_the_seats_taken_in_the_languages_plural(lang: str, alone: str, two: str):
    """ann hosts alone, then bob joins: the seats line agrees with the count ("1 prises sur 3"
    was French for one seat taken, "1 occupati" Italian)."""

    async def run() -> tuple[list[str], list[str]]:
        setup = Setup(name="ann", bots=2, lang=lang)
        with create_pipe_input() as pipe:
            screen = HostScreen(setup, pin=PIN, advertise=False, interfaces=LOOPBACK, input=pipe, output=Screen())
            running = asyncio.create_task(screen.run())
            bob: asyncio.Task[Started] | None = None
            try:
                await _drawn(screen.app, lambda: screen.app.is_running and bool(screen.address))
                await _drawn(screen.app, lambda: any(alone in line for line in screen_lines(screen.app)))
                first = screen_lines(screen.app)
                port = int(screen.address.rsplit(":", 1)[1])
                bob = asyncio.create_task(Joining("127.0.0.1", port, "bob", PIN, LOOPBACK).run())
                await _drawn(screen.app, lambda: any(two in line for line in screen_lines(screen.app)))
                return first, screen_lines(screen.app)
            finally:
                if bob is not None:
                    bob.cancel()
                    await asyncio.wait([bob])
                running.cancel()
                await asyncio.wait([running])

    first, second = asyncio.run(asyncio.wait_for(run(), 60))
    assert f" {alone}" in first and f" {two}" in second, (first, second)


@pytest.mark.parametrize(
    ("lang", "said"), [("en", "nobody answers at 127.0.0.1:{port}"), ("no", "ingen svarer på 127.0.0.1:{port}")]
)
def test_an_address_nobody_answers_at_is_said_in_the_persons_language(lang: str, said: str):
    """bob types the port of no lobby: his join screen says nobody answers there, in his language,
    and what to check ("cannot reach 127.0.0.1:1: [Errno 111] Connect call failed ..." was shown
    raw, in English, in every language)."""
    with socket.socket() as taken:  # a port nothing listens on: bound, never listening
        taken.bind(("127.0.0.1", 0))
        port = taken.getsockname()[1]
        lines = asyncio.run(asyncio.wait_for(_failed_join(lang, f"127.0.0.1:{port}", PIN), 60))
    text = " ".join(line.strip() for line in lines)
    assert said.format(port=port) in text and "Errno" not in text, lines


@pytest.mark.parametrize(("lang", "bot"), [("en", "bot 1"), ("fr", "robot 1"), ("no", "robot 1")])
def test_the_bots_of_a_lan_game_are_named_in_the_hosts_language(lang: str, bot: str):
    """Found in the French tmux run: a LAN game's bots were "bot 1" whatever the language. The
    host's console names them in its language (its start record names them so for every peer):
    ann hosts three seats from her host screen, cid joins, Enter starts with a bot in seat 3."""

    async def run() -> tuple[str, ...]:
        setup = Setup(name="ann", bots=2, lang=lang)
        with create_pipe_input() as pipe:
            screen = HostScreen(setup, pin=PIN, advertise=False, interfaces=LOOPBACK, input=pipe, output=DummyOutput())
            running = asyncio.create_task(screen.run())
            cid: asyncio.Task[Started] | None = None
            try:
                await _drawn(screen.app, lambda: screen.app.is_running and bool(screen.address))
                port = int(screen.address.rsplit(":", 1)[1])
                cid = asyncio.create_task(Joining("127.0.0.1", port, "cid", PIN, LOOPBACK).run())
                await _drawn(screen.app, lambda: any("cid" in line for line in screen.seat_lines()))
                pipe.send_text("\r")
                started = await asyncio.wait_for(running, 30)
                assert started is not None
                joined = await cid
                for game in (started, joined):
                    for conn, _ in game.links.values():
                        await conn.close()
                    await game.gate.close()
                assert joined.genesis.record.names == started.genesis.record.names
                return started.genesis.record.names
            finally:
                running.cancel()
                if cid is not None:
                    cid.cancel()

    assert asyncio.run(asyncio.wait_for(run(), 60)) == ("ann", "cid", bot)
