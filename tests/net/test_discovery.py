"""Real zeroconf discovery between two AsyncZeroconf instances on loopback (no mocks)."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import unicodedata

import pytest
from zeroconf.asyncio import AsyncServiceInfo, AsyncZeroconf

from lanopoly.net import PROTOCOL_VERSION
from lanopoly.net.cli import EXIT_SETUP, add_commands, join_main
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

FP = "3fa2-91c0-77d4-e2b1"
TWIN_FP = "0bad-0bad-0bad-0bad"


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
        "Ada's table", "00" * 16, seats_taken=1, seats_total=4, rules="official", board="classic", fingerprint=FP
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
            assert lobby.fingerprint == FP
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
        ad = LobbyAd("listed", "11" * 16, seats_taken=2, seats_total=2, rules="it", board="paris", fingerprint=FP)
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

    async def main() -> None:
        host_zc = make_zeroconf(["127.0.0.6"])
        ad = LobbyAd(
            "cli table", "22" * 16, seats_taken=1, seats_total=3, rules="speed", board="classic", fingerprint=FP
        )
        advertiser = LobbyAdvertiser(host_zc, ad, ["127.0.0.6"], 40002, service_type())
        try:
            await advertiser.register()
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "lanopoly", "list", "--seconds", "2", "--json",
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
            assert ours[0]["fingerprint"] == FP
        finally:
            await advertiser.close()
            await host_zc.async_close()

    asyncio.run(asyncio.wait_for(main(), 20))


def spoofed_txt(**changes: bytes | None) -> dict[bytes, bytes | None]:
    """A valid TXT record (the twin's key) with ``changes``; None leaves the key out."""
    txt: dict[bytes, bytes | None] = {
        b"txtvers": b"1",
        b"v": str(PROTOCOL_VERSION).encode(),
        b"gid": b"33" * 16,
        b"taken": b"1",
        b"seats": b"4",
        b"rules": b"official",
        b"board": b"classic",
        b"state": b"open",
        b"fp": TWIN_FP.encode(),
    }
    for key, value in changes.items():
        if value is None:
            del txt[key.encode()]
        else:
            txt[key.encode()] = value
    return txt


HOSTILE = {
    "hostile taken 0001": spoofed_txt(taken=b"-5"),
    "hostile seats 0002": spoofed_txt(seats=b"999999999999"),
    "hostile version 0003": spoofed_txt(v=b"99"),
    "hostile title 0004": spoofed_txt(rules=b"\x1b]0;pwned\x07official"),  # OSC: the terminal's title
    "hostile return 0005": spoofed_txt(state=b"open\r" + b" " * 40),  # CR: overwrite the line
    "hostile keyless 0006": spoofed_txt(fp=None),
}
"""Adverts that fail a check: none may be shown. What an outside tester published is among them."""
WEIRD = "\u009b2JEve\u202e's table 0007"
"""A valid advert whose name holds an 8-bit CSI (erase the screen) and a bidi override (python-zeroconf
refuses ASCII control characters in names on both sides, so ESC itself never reaches a browser)."""


def spoofed(stype: str, label: str, txt: dict[bytes, bytes | None], port: int) -> AsyncServiceInfo:
    """An advert published with python-zeroconf itself, as anyone on the LAN can."""
    return AsyncServiceInfo(
        stype, f"{label}.{stype}", port=port, properties=txt, server="spoof.local.", parsed_addresses=["127.0.0.9"]
    )


async def _publish(aiozc: AsyncZeroconf, info: AsyncServiceInfo) -> None:
    await (await aiozc.async_register_service(info))


def _safe(text: str) -> bool:
    """No control, format (bidi), or other hidden character but newlines."""
    return all(ch == "\n" or unicodedata.category(ch)[0] not in "CZ" or ch == " " for ch in text)


def test_spoofed_adverts_are_never_shown_and_names_are_neutralised(capsys: pytest.CaptureFixture[str]) -> None:
    """Adverts with hostile TXT fields are dropped (``browse``, ``lanopoly list``, ``join``); a
    valid one with an escape sequence in its name is shown with it neutralised; a twin of a real
    lobby (its very name, another key) is shown beside it, told apart by the host key, and
    ``lanopoly join NAME`` refuses to pick one of the two."""

    async def main() -> None:
        stype = service_type()
        host_zc, spoof_zc, browse_zc = (make_zeroconf([f"127.0.0.{i}"]) for i in (8, 9, 10))
        real = LobbyAdvertiser(
            host_zc, LobbyAd("Ada's table", "44" * 16, 1, 4, "official", "classic", FP), ["127.0.0.8"], 40003, stype
        )
        suffix = "0000" if not real.instance.startswith("Ada's table 0000.") else "0001"
        twin = spoofed(stype, f"Ada's table {suffix}", spoofed_txt(), 40004)
        weird = spoofed(stype, WEIRD, spoofed_txt(), 40005)
        hostile = [spoofed(stype, label, txt, 40006) for label, txt in HOSTILE.items()]
        try:
            await asyncio.gather(real.register(), *(_publish(spoof_zc, info) for info in [twin, weird, *hostile]))
            async with LobbyBrowser(browse_zc, stype) as browser:
                events: list[LobbyEvent] = []
                wanted, dropped = {real.instance, twin.name, weird.name}, {info.name for info in hostile}
                deadline = time.monotonic() + 10
                while not (wanted <= browser.lobbies.keys() and dropped <= browser.dropped):
                    left = deadline - time.monotonic()
                    assert left > 0, (browser.lobbies.keys(), browser.dropped)
                    event = await browser.next_event(min(left, 0.1))  # dropped adverts make no event
                    events += [event] if event is not None else []
                assert not dropped & browser.lobbies.keys()
                assert not [e for e in events if "hostile" in e.lobby.instance]
                ada, ada_twin, eve = (browser.lobbies[name] for name in (real.instance, twin.name, weird.name))
                assert ada.table.startswith("Ada's table ") and ada_twin.table == f"Ada's table {suffix}"
                assert (ada.fingerprint, ada_twin.fingerprint) == (FP, TWIN_FP)
                assert eve.table == "?Eve?'s table 0007" and eve.instance == f"?Eve?'s table 0007.{stype}"
            listing, _ = await asyncio.gather(_list_in_a_process("127.0.0.11"), _join_by_name("127.0.0.12"))
            out, err = listing
            assert "hostile" not in out and _safe(out), out
            assert "?Eve?'s table 0007" in out, out
            ada_lines = [line for line in out.splitlines() if line.startswith("Ada's table ")]
            assert len(ada_lines) == 2 and {FP, TWIN_FP} == {line.split("host key ")[1][:19] for line in ada_lines}
            for label in HOSTILE:  # seen, and dropped with a warning
                assert f"ignoring the lobby advertised as '{label}." in err, err
            joined = capsys.readouterr().err
            assert '2 lobbies match "Ada\'s table"; name one by its host key or game id:' in joined, joined
            assert f"host key {FP}" in joined and f"host key {TWIN_FP}" in joined, joined
        finally:
            await real.close()
            await spoof_zc.async_unregister_all_services()
            await asyncio.gather(*(zc.async_close() for zc in (host_zc, spoof_zc, browse_zc)))

    asyncio.run(asyncio.wait_for(main(), 40))


async def _list_in_a_process(address: str) -> tuple[str, str]:
    """``lanopoly list`` (text, as a person reads it) in another process on ``address``: stdout, stderr."""
    from .conftest import peer_env

    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "lanopoly", "list", "--seconds", "3",
        env=peer_env(address), stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    try:
        out, err = await asyncio.wait_for(proc.communicate(), 20)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert proc.returncode == 0, err
    return out.decode(), err.decode()


async def _join_by_name(address: str) -> None:
    """``lanopoly join "Ada's table"`` (in this process): two lobbies have that name, so it joins neither."""
    parser = argparse.ArgumentParser()
    add_commands(parser.add_subparsers())
    args = parser.parse_args(
        ["join", "Ada's table", "--pin", "123456", "--browse-seconds", "3", "--interfaces", address]
    )
    assert await join_main(args) == EXIT_SETUP


def test_a_copy_of_a_lobbys_advert_elsewhere_does_not_keep_a_joiner_out() -> None:
    """Anyone may copy a lobby's advert (its name, game id and host key) and point it at its own
    port. ``lanopoly join NAME`` refused to pick one of two adverts claiming the same lobby and host
    key, and told the person to name one by its host key or game id, which were the same: nobody
    could join by name. Now it tries each: only the real host proves the key, and the joiner plays."""
    from lanopoly.net.core.session import Config
    from lanopoly.net.play import driver_for, play

    from .inproc import PIN, bots, open_lobby

    async def main() -> None:
        stype = service_type()
        real, impostor = await open_lobby(2, rounds=1), await open_lobby(2, rounds=1)
        host_zc, spoof_zc = make_zeroconf(["127.0.0.8"]), make_zeroconf(["127.0.0.9"])
        ad = LobbyAd("Bob's table", real.game_id.hex(), 1, 2, "official", "classic", real.fingerprint)
        advert = LobbyAdvertiser(host_zc, ad, ["127.0.0.1"], real.gate.port, stype)
        suffix = "0000" if not advert.instance.startswith("Bob's table 0000.") else "0001"
        txt = spoofed_txt(gid=real.game_id.hex().encode(), fp=real.fingerprint.encode(), seats=b"2")
        copy = AsyncServiceInfo(
            stype, f"Bob's table {suffix}.{stype}", port=impostor.gate.port, properties=txt,
            server="spoof.local.", parsed_addresses=["127.0.0.1"],
        )  # fmt: skip
        try:
            await asyncio.gather(advert.register(), _publish(spoof_zc, copy))
            parser = argparse.ArgumentParser()
            add_commands(parser.add_subparsers())
            args = parser.parse_args(
                ["join", "Bob's table", "--pin", PIN, "--browse-seconds", "3", "--interfaces", "127.0.0.2"]
            )
            joiner = asyncio.create_task(join_main(args))
            full = asyncio.create_task(real.wait_full(20))
            await asyncio.wait({joiner, full}, return_when=asyncio.FIRST_COMPLETED)
            assert not joiner.done(), f"the joiner gave up (exit {joiner.result()}) instead of joining"
            await full
            started = await real.start()
            host = driver_for(started, bots, Config(step_timeout=10, rejoin_timeout=30), interfaces=["127.0.0.1"])
            result = await play(host, started)
            assert await joiner == 0 and result.outcome == "over"
        finally:
            await advert.close()
            await spoof_zc.async_unregister_all_services()
            await asyncio.gather(real.close(), impostor.close(), host_zc.async_close(), spoof_zc.async_close())

    asyncio.run(asyncio.wait_for(main(), 60))


def test_a_flood_of_adverts_under_new_names_costs_a_bounded_number_of_resolves() -> None:
    """1,000 adverts under new names, then 100 updates of one: the browser keeps and resolves at most
    ``MAX_LOBBIES`` at once, one resolve per name; a real lobby advertised once the flood is gone is
    shown. (Each advert started its own resolve, 3 s of mDNS queries, with no bound on their number
    nor on the names kept: 1,000 tasks.) The zeroconf browser's calls are made here directly."""
    from zeroconf import ServiceStateChange

    from lanopoly.net.discovery import MAX_LOBBIES

    async def main() -> None:
        stype = service_type()
        browse_zc, host_zc = make_zeroconf(["127.0.0.12"]), make_zeroconf(["127.0.0.13"])
        try:
            async with LobbyBrowser(browse_zc, stype, resolve_ms=300) as browser:
                for i in range(1000):
                    browser._on_change(browse_zc.zeroconf, stype, f"flood {i}.{stype}", ServiceStateChange.Added)
                for _ in range(100):
                    browser._on_change(browse_zc.zeroconf, stype, f"flood 0.{stype}", ServiceStateChange.Updated)
                assert len(browser._tasks) == MAX_LOBBIES and browser.ignored == 1000 - MAX_LOBBIES
                for i in range(1000):
                    browser._on_change(browse_zc.zeroconf, stype, f"flood {i}.{stype}", ServiceStateChange.Removed)
                ad = LobbyAd("Ada's table", "55" * 16, 1, 4, "official", "classic", FP)
                advertiser = LobbyAdvertiser(host_zc, ad, ["127.0.0.13"], 40007, stype)
                await asyncio.wait_for(advertiser.register(), 5)
                await _expect(browser, "added", advertiser.instance, 5)
                await advertiser.close()
        finally:
            await asyncio.gather(browse_zc.async_close(), host_zc.async_close())

    asyncio.run(main())
