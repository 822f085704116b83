"""Lobby discovery on the LAN with python-zeroconf (mDNS / DNS-SD, asyncio API).

A hosting peer advertises one DNS-SD service per lobby: a unique instance name (the table name and
a random suffix, since name conflicts are not reliably detected) and a small TXT record (protocol
version, game id, seats taken and total, rules preset, board, lobby state, the fingerprint of the
host's signing key; never a secret). Others browse and see lobbies appear, change and vanish.
Anyone on the LAN can advertise, so every field is checked (``adverts``) before a lobby is shown,
and one that fails is dropped and logged. Everything learnt this way is a hint: it only says where
to connect; the handshake decides the rest.

Zeroconf is always created on explicit interfaces when ``LANOPOLY_INTERFACES`` is set, IPv4 only,
and the service type can be changed (``LANOPOLY_SERVICE_TYPE``) so that tests never show up in
real lobbies.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
from collections.abc import AsyncIterator, Coroutine, Mapping
from dataclasses import dataclass, replace
from typing import Any, Literal

import ifaddr
from zeroconf import BadTypeInNameException, InterfaceChoice, IPVersion, ServiceStateChange, Zeroconf
from zeroconf.asyncio import AsyncServiceBrowser, AsyncServiceInfo, AsyncZeroconf

from lanopoly.net import PROTOCOL_VERSION, reason
from lanopoly.net.adverts import (
    TXT_VERSION,
    AdvertError,
    LobbyState,
    check_txt,
    service_port,
    table_name,
)
from lanopoly.net.interfaces import configured_interfaces
from lanopoly.net.text import display_text

log = logging.getLogger(__name__)

DEFAULT_SERVICE_TYPE = "_lanopoly._tcp.local."
SERVICE_TYPE_ENV = "LANOPOLY_SERVICE_TYPE"


def service_type(environ: Mapping[str, str] | None = None) -> str:
    """The DNS-SD service type: ``LANOPOLY_SERVICE_TYPE`` if set (tests), else ``_lanopoly._tcp.local.``."""
    env = os.environ if environ is None else environ
    value = env.get(SERVICE_TYPE_ENV, "").strip() or DEFAULT_SERVICE_TYPE
    if not value.endswith("."):
        value += "."
    if not (value.startswith("_") and value.endswith("._tcp.local.")):
        raise ValueError(f"{SERVICE_TYPE_ENV}={value!r}: expected a type like _lanopoly-test._tcp.local.")
    return value


def make_zeroconf(interfaces: list[str] | None = None) -> AsyncZeroconf:
    """An AsyncZeroconf bound to ``interfaces`` (all interfaces when None), IPv4 only.

    Must be called with the event loop running. Pass ``configured_interfaces()`` to honour
    ``LANOPOLY_INTERFACES``.
    """
    choice: list[str] | InterfaceChoice = list(interfaces) if interfaces is not None else InterfaceChoice.All
    return AsyncZeroconf(interfaces=choice, ip_version=IPVersion.V4Only)


def advertised_addresses(interfaces: list[str] | None) -> list[str]:
    """The addresses a lobby advertises: the configured ones, or every non-loopback IPv4 address."""
    if interfaces is not None:
        return list(interfaces)
    found: list[str] = []
    for adapter in ifaddr.get_adapters():
        for ip in adapter.ips:
            if isinstance(ip.ip, str) and not ip.ip.startswith("127.") and ip.ip not in found:
                found.append(ip.ip)
    return found or ["127.0.0.1"]


@dataclass(frozen=True)
class LobbyAd:
    """What a lobby says about itself in its TXT record (all public). ``fingerprint`` is
    ``keys.fingerprint`` of the host's public signing key. Checked as browsers check it, so a
    lobby never advertises what every browser would drop (AdvertError, a ValueError)."""

    table: str
    game_id: str
    seats_taken: int
    seats_total: int
    rules: str
    board: str
    fingerprint: str
    state: LobbyState = "open"

    def __post_init__(self) -> None:
        check_txt({key.encode(): value.encode() for key, value in self.txt().items()})

    def txt(self) -> dict[str, str]:
        """TXT keys (at most 9 characters each, RFC 6763 section 6.4), ``txtvers`` first."""
        return {
            "txtvers": TXT_VERSION,
            "v": str(PROTOCOL_VERSION),
            "gid": self.game_id,
            "taken": str(self.seats_taken),
            "seats": str(self.seats_total),
            "rules": self.rules,
            "board": self.board,
            "state": self.state,
            "fp": self.fingerprint,
        }


@dataclass(frozen=True)
class Lobby:
    """A lobby seen on the network, every field checked (a hint: nothing here is authenticated).

    ``instance`` and ``table`` are shown safely (``adverts.display_text``); ``fingerprint`` is the
    one its host advertises for its signing key (not proven yet: anyone may copy it)."""

    instance: str
    table: str
    addresses: tuple[str, ...]
    port: int
    version: int
    game_id: str
    seats_taken: int
    seats_total: int
    rules: str
    board: str
    state: LobbyState
    fingerprint: str

    @property
    def address(self) -> str:
        """``host:port`` of the first address, for ``lanopoly join``."""
        return f"{self.addresses[0]}:{self.port}" if self.addresses else f"?:{self.port}"


@dataclass(frozen=True)
class LobbyEvent:
    """A change seen by a browser."""

    kind: Literal["added", "updated", "removed"]
    lobby: Lobby


MAX_INSTANCE = 63 + 1 + 64
"""Characters of an instance name as shown: a label, a dot, a service type."""
MAX_DROPPED = 256
MAX_LOBBIES = 256
"""Adverts a browser keeps (shown, or being resolved) at once: a flood of adverts under new names
costs at most this many entries and resolves (each sends mDNS queries for up to ``resolve_ms``)."""
"""Names of dropped adverts a browser remembers (each is warned about once)."""


def _instance_label(table: str) -> str:
    """A unique instance label: the table name (trimmed to fit 63 bytes) and 4 random hex digits."""
    suffix = " " + secrets.token_hex(2)
    name = "".join(ch for ch in table if ch.isprintable() and ch != ".") or "lanopoly"
    encoded = name.encode("utf-8")[: 63 - len(suffix)]
    return encoded.decode("utf-8", errors="ignore").rstrip() + suffix


class LobbyAdvertiser:
    """Advertises one lobby; ``update`` changes its TXT record, ``close`` withdraws it (goodbye packets)."""

    def __init__(
        self, aiozc: AsyncZeroconf, ad: LobbyAd, addresses: list[str], port: int, stype: str = DEFAULT_SERVICE_TYPE
    ) -> None:
        self._aiozc = aiozc
        self.ad = ad
        self.service_type = stype
        self.instance = f"{_instance_label(ad.table)}.{stype}"
        self._info = self._make_info(addresses, port)
        self._registered = False

    def _make_info(self, addresses: list[str], port: int) -> AsyncServiceInfo:
        return AsyncServiceInfo(
            self.service_type,
            self.instance,
            port=port,
            properties=self.ad.txt(),
            server=f"lanopoly-{secrets.token_hex(4)}.local.",
            parsed_addresses=addresses,
        )

    async def register(self) -> None:
        """Register and wait until the announcements are sent (about 2 s)."""
        task = await self._aiozc.async_register_service(self._info)
        await task
        self._registered = True
        log.info("advertising %s", self.instance)

    async def update(self, **changes: object) -> None:
        """Change fields of the ad (e.g. ``seats_taken=2, state="full"``) and re-announce the TXT record."""
        self.ad = replace(self.ad, **changes)  # type: ignore[arg-type]
        addresses = self._info.parsed_addresses()
        port = self._info.port or 0
        server = self._info.server
        self._info = self._make_info(addresses, port)
        if server is not None:
            self._info.server = server
        if self._registered:
            task = await self._aiozc.async_update_service(self._info)
            await task

    async def close(self) -> None:
        """Unregister (sends goodbyes so browsers see the lobby vanish at once)."""
        if self._registered:
            self._registered = False
            try:
                task = await self._aiozc.async_unregister_service(self._info)
                await task
            except Exception:  # the lobby is going away anyway
                log.debug("unregistering %s failed", self.instance, exc_info=True)


def lobby_from_info(info: AsyncServiceInfo, stype: str) -> Lobby:
    """A Lobby from a resolved service, every field checked; AdvertError when one fails."""
    txt = check_txt(info.properties)
    return Lobby(
        instance=display_text(info.name, MAX_INSTANCE),
        table=table_name(info.name, stype),
        addresses=tuple(info.parsed_addresses(IPVersion.V4Only)),
        port=service_port(info.port),
        version=txt.version,
        game_id=txt.game_id,
        seats_taken=txt.seats_taken,
        seats_total=txt.seats_total,
        rules=txt.rules,
        board=txt.board,
        state=txt.state,
        fingerprint=txt.fingerprint,
    )


class LobbyBrowser:
    """Lists lobbies live: ``lobbies`` is the current view, ``events()`` yields every change.

    Zeroconf calls the handler inside the event loop, so it only schedules the resolution
    (``async_request``) in a task and never blocks.
    """

    def __init__(self, aiozc: AsyncZeroconf, stype: str = DEFAULT_SERVICE_TYPE, resolve_ms: int = 3000) -> None:
        self._aiozc = aiozc
        self.service_type = stype
        self._resolve_ms = resolve_ms
        self.lobbies: dict[str, Lobby] = {}
        self._queue: asyncio.Queue[LobbyEvent] = asyncio.Queue()
        self._tasks: set[asyncio.Task[None]] = set()
        self._browser: AsyncServiceBrowser | None = None
        self._present: set[str] = set()
        self.dropped: set[str] = set()
        """The names of the adverts dropped because a field failed its check (never in ``lobbies``)."""
        self._resolving: set[str] = set()
        self._again: set[str] = set()
        self.ignored = 0
        """Adverts under new names ignored because ``MAX_LOBBIES`` were kept already."""

    async def start(self) -> None:
        self._browser = AsyncServiceBrowser(self._aiozc.zeroconf, [self.service_type], handlers=[self._on_change])

    def _on_change(self, zeroconf: Zeroconf, service_type: str, name: str, state_change: ServiceStateChange) -> None:
        if state_change is ServiceStateChange.Removed:
            self._present.discard(name)
            self._again.discard(name)
            lobby = self.lobbies.pop(name, None)
            if lobby is not None:
                self._queue.put_nowait(LobbyEvent("removed", lobby))
            return
        if name not in self._present and len(self._present) >= MAX_LOBBIES:
            self.ignored += 1
            log.log(
                logging.WARNING if self.ignored == 1 else logging.DEBUG,
                "ignoring %r: %d adverts kept",
                name,
                MAX_LOBBIES,
            )
            return
        self._present.add(name)
        if name in self._resolving:  # one resolve per name at a time; an update resolves again after it
            self._again.add(name)
            return
        self._resolving.add(name)
        task = asyncio.get_running_loop().create_task(self._resolve(name))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _resolve(self, name: str) -> None:
        try:
            await self._resolve_once(name)
        finally:
            self._resolving.discard(name)
        if name in self._again and name in self._present:
            self._again.discard(name)
            self._resolving.add(name)
            await self._resolve(name)

    async def _resolve_once(self, name: str) -> None:
        try:
            info = AsyncServiceInfo(self.service_type, name)
            if not await info.async_request(self._aiozc.zeroconf, self._resolve_ms):
                log.debug("could not resolve %r", name)
                return
        except (BadTypeInNameException, OSError) as e:
            log.info("could not resolve %r: %s", name, reason(e))
            return
        try:
            lobby = lobby_from_info(info, self.service_type)
        except AdvertError as e:
            self._drop(name, e)
            return
        if name not in self._present:  # gone while we resolved it
            return
        kind: Literal["added", "updated"] = "updated" if name in self.lobbies else "added"
        if self.lobbies.get(name) == lobby:
            return
        self.lobbies[name] = lobby
        self._queue.put_nowait(LobbyEvent(kind, lobby))

    def _drop(self, name: str, error: AdvertError) -> None:
        """Forget a lobby whose advert fails a check (it may have been valid before): a warning the
        first time for a name, debug after (a hostile advert may repeat itself, or flood names)."""
        first = name not in self.dropped and len(self.dropped) < MAX_DROPPED
        level = logging.WARNING if first else logging.DEBUG
        if first:
            self.dropped.add(name)
        log.log(level, "ignoring the lobby advertised as %r: %s", name, error)
        lobby = self.lobbies.pop(name, None)
        if lobby is not None:
            self._queue.put_nowait(LobbyEvent("removed", lobby))

    async def next_event(self, timeout: float) -> LobbyEvent | None:
        """The next change within ``timeout`` seconds, or None."""
        try:
            return await asyncio.wait_for(self._queue.get(), timeout)
        except TimeoutError:
            return None

    async def events(self) -> AsyncIterator[LobbyEvent]:
        """Every change, as it happens (runs until the browser is closed or the consumer stops)."""
        while True:
            yield await self._queue.get()

    async def close(self) -> None:
        if self._browser is not None:
            await self._browser.async_cancel()
            self._browser = None
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)

    async def __aenter__(self) -> LobbyBrowser:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


async def list_lobbies(
    seconds: float = 3.0, interfaces: list[str] | None = None, stype: str | None = None
) -> list[Lobby]:
    """Browse for ``seconds`` and return the lobbies seen (a one-shot ``lanopoly list``)."""
    ifaces = interfaces if interfaces is not None else configured_interfaces()
    aiozc = make_zeroconf(ifaces)
    try:
        async with LobbyBrowser(aiozc, stype or service_type()) as browser:
            await asyncio.sleep(seconds)
            return sorted(browser.lobbies.values(), key=lambda lobby: lobby.instance)
    finally:
        await aiozc.async_close()


class BackgroundAdvert:
    """A lobby's advertisement kept in the background: registered, updated and withdrawn in
    order, never blocking the caller; a failure only costs discovery (joining by address still
    works). Used by ``lanopoly host`` and by the console's host screen."""

    def __init__(self, advertiser: LobbyAdvertiser) -> None:
        self.advertiser = advertiser
        self._lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[None]] = set()
        self._spawn(advertiser.register())

    def _spawn(self, coro: Coroutine[Any, Any, None]) -> None:
        async def guarded() -> None:
            try:
                async with self._lock:
                    await coro
            except asyncio.CancelledError:
                coro.close()  # never started: no "never awaited" warning
                raise
            except Exception as e:
                log.warning("lobby advertisement failed: %s", reason(e))

        task = asyncio.get_running_loop().create_task(guarded())
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def update(self, **changes: object) -> None:
        self._spawn(self.advertiser.update(**changes))

    async def close(self) -> None:
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.advertiser.close(), 3)
