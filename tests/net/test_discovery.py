"""Real zeroconf discovery between two AsyncZeroconf instances on loopback (no mocks)."""

from __future__ import annotations

import asyncio
import json
import sys
import time

from lanopoly.net import PROTOCOL_VERSION
from lanopoly.net.discovery import (
    LobbyAd,
    LobbyAdvertiser,
    LobbyBrowser,
    LobbyEvent,
    list_lobbies,
    make_zeroconf,
    service_type,
)

from .conftest import TEST_SERVICE_TYPE


async def _expect(browser: LobbyBrowser, kind: str, instance: str, timeout: float) -> LobbyEvent:
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        event = await browser.next_event(left)
        if event is not None and event.kind == kind and event.lobby.instance == instance:
            return event
    raise AssertionError(f"no {kind} event for {instance} within {timeout} s")


async def _advertise_and_browse(host_addr: str, browse_addr: str) -> None:
    stype = service_type()
    assert stype == TEST_SERVICE_TYPE
    host_zc = make_zeroconf([host_addr])
    browse_zc = make_zeroconf([browse_addr])
    ad = LobbyAd(
        table="Ada's table", game_id="00" * 16, seats_taken=1, seats_total=4, rules="official", board="classic"
    )
    advertiser = LobbyAdvertiser(host_zc, ad, [host_addr], 45678, stype)
    try:
        async with LobbyBrowser(browse_zc, stype) as browser:
            await asyncio.wait_for(advertiser.register(), 5)
            added = await _expect(browser, "added", advertiser.instance, 5)
            lobby = added.lobby
            assert lobby.addresses == (host_addr,) and lobby.port == 45678
            assert (lobby.seats_taken, lobby.seats_total, lobby.state) == (1, 4, "open")
            assert lobby.table.startswith("Ada's table ") and lobby.version == PROTOCOL_VERSION
            await asyncio.wait_for(advertiser.update(seats_taken=4, state="full"), 5)
            updated = await _expect(browser, "updated", advertiser.instance, 5)
            assert (updated.lobby.seats_taken, updated.lobby.state) == (4, "full")
            await advertiser.close()
            await _expect(browser, "removed", advertiser.instance, 5)
            assert advertiser.instance not in browser.lobbies
    finally:
        await advertiser.close()
        await asyncio.gather(host_zc.async_close(), browse_zc.async_close())


def test_discovery_same_address() -> None:
    asyncio.run(asyncio.wait_for(_advertise_and_browse("127.0.0.1", "127.0.0.1"), 15))


def test_discovery_distinct_addresses() -> None:
    asyncio.run(asyncio.wait_for(_advertise_and_browse("127.0.0.2", "127.0.0.3"), 15))


def test_list_lobbies_one_shot() -> None:
    async def main() -> None:
        host_zc = make_zeroconf(["127.0.0.4"])
        ad = LobbyAd(table="listed", game_id="11" * 16, seats_taken=2, seats_total=2, rules="it", board="paris")
        advertiser = LobbyAdvertiser(host_zc, ad, ["127.0.0.4"], 40001, service_type())
        try:
            await advertiser.register()
            lobbies = await list_lobbies(2.0, ["127.0.0.5"])
            ours = [lobby for lobby in lobbies if lobby.instance == advertiser.instance]
            assert len(ours) == 1 and ours[0].address == "127.0.0.4:40001" and ours[0].board == "paris"
        finally:
            await advertiser.close()
            await host_zc.async_close()

    asyncio.run(asyncio.wait_for(main(), 15))


def test_list_command_in_a_separate_process() -> None:
    """``lanopoly list`` (through the CLI, another process on another address) sees a live lobby."""
    from .conftest import peer_env
    from .peers import ENTRY

    async def main() -> None:
        host_zc = make_zeroconf(["127.0.0.6"])
        ad = LobbyAd(table="cli table", game_id="22" * 16, seats_taken=1, seats_total=3, rules="speed", board="classic")
        advertiser = LobbyAdvertiser(host_zc, ad, ["127.0.0.6"], 40002, service_type())
        try:
            await advertiser.register()
            proc = await asyncio.create_subprocess_exec(
                sys.executable, str(ENTRY), "list", "--seconds", "2", "--json",
                env=peer_env("127.0.0.7"), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            try:
                out, err = await asyncio.wait_for(proc.communicate(), 15)
            finally:
                if proc.returncode is None:
                    proc.kill()
                    await proc.wait()
            assert proc.returncode == 0, err
            lobbies = [json.loads(line) for line in out.decode().splitlines()]
            ours = [lobby for lobby in lobbies if lobby["instance"] == advertiser.instance]
            assert len(ours) == 1 and ours[0]["address"] == "127.0.0.6:40002" and ours[0]["rules"] == "speed"
        finally:
            await advertiser.close()
            await host_zc.async_close()

    asyncio.run(asyncio.wait_for(main(), 20))
