"""LAN games in one process over real sockets: a host's lobby, joiners, drivers, files.

Each peer listens on its own loopback address (127.0.0.x: all of 127/8 is loopback on Linux), so
the tests see the product's listener, handshakes, links and driver exactly as separate hosts would,
without a process per peer. Waiting is always on events (tasks, futures, the listener's ``until``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from pathlib import Path

from lanopoly._core import Rules
from lanopoly.bots import Policy, SimpleBot
from lanopoly.net.core.session import Config
from lanopoly.net.driver import Driver
from lanopoly.net.genesis import StartRecord
from lanopoly.net.hosting import HostLobby, Joining, Started
from lanopoly.net.play import driver_for

PIN = "246810"


def bots(record: StartRecord, me: int) -> Mapping[int, Policy | None]:
    return {seat: SimpleBot() for seat in record.seats_of(me)}


def address(i: int) -> str:
    return f"127.0.0.{i + 1}"


async def open_lobby(peers: int, *, rounds: int = 2, seats: int | None = None) -> HostLobby:
    rules = Rules.preset("official", round_limit=rounds).to_dict()
    lobby = HostLobby("host", peers, seats or peers, "classic", rules, PIN, interfaces=[address(0)], chain_length=500)
    await lobby.open()
    return lobby


async def set_up(peers: int, *, rounds: int = 2) -> list[Started]:
    """A game of ``peers`` peers, every link formed and the genesis agreed."""
    lobby = await open_lobby(peers, rounds=rounds)
    joins = []
    for i in range(1, peers):
        joining = Joining(
            address(0), lobby.gate.port, f"guest{i}", PIN, [address(i)], expect_fingerprint=lobby.fingerprint
        )
        joins.append(asyncio.create_task(joining.run()))
        await _joined(lobby, i + 1)
    started = [await lobby.start()] + [await j for j in joins]
    return sorted(started, key=lambda s: s.me)


async def _joined(lobby: HostLobby, count: int) -> None:
    """Wait until ``count`` peers are in the lobby (joiners join in order: their seats are known)."""
    changed = asyncio.Event()
    lobby.on_change = lambda roster: changed.set()
    while len(lobby.roster) < count:
        changed.clear()
        await changed.wait()


def drivers(started: list[Started], tmp: Path | None, config: Config | None = None) -> list[Driver]:
    config = config or Config(step_timeout=10, rejoin_timeout=30)
    return [
        driver_for(s, bots, config, save=None if tmp is None else tmp / f"p{s.me}.json", interfaces=[address(s.me)])
        for s in started
    ]
