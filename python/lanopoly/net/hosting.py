"""Setting a LAN game up (asyncio): the host's lobby, joining it, linking every peer, agreeing.

1. **Lobby.** The host listens and advertises (``discovery.py``). A joiner connects and runs the PIN
   handshake (``core/pinauth.py``, the joiner speaking first); the host proves its key (``WELCOME``,
   whose fingerprint the advert carries), the joiner proves its own (``HELLO``); everyone in the
   lobby hears ``ROSTER`` when someone joins or leaves (a joiner's connection closing). Three wrong
   PINs from one address and that address is refused for the lobby; in all, guesses are bounded by
   the SPAKE2 budget (``StartBudget``). The PIN never changes: a lobby that took a new one after
   wrong guesses let any stranger lock out the joiners holding the PIN, and gained nothing, since
   each guess has the same odds either way.
2. **Start.** The host sends every joiner the start record. Peer ``j`` links to every peer ``i < j``
   by their start-record keys (``core/linkauth.py``): no PIN from here on.
3. **Agreement.** On every link each peer sends its ``DEAL`` and, once it holds every deal, its
   genesis signature (``core/lobby.py``). The links then carry the game (``driver.py``).

The one listening port of a peer serves, by the first frame a connection sends, the lobby (until
the start) and link handshakes (from the start on, for the game's whole life): ``Gate``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
import secrets
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from lanopoly.net import reason, shares, wire
from lanopoly.net.chain import DEFAULT_CHAIN_LENGTH, HashChain
from lanopoly.net.core import lobby as lm
from lanopoly.net.core.linkauth import LINK_HELLO, KeyDialer, KeyListener, LinkAuthError, LinkUp
from lanopoly.net.core.pinauth import (
    AUTH_HELLO,
    BUSY,
    PinError,
    PinHost,
    PinJoiner,
    StartBudget,
    normalize_pin,
    other_version,
    reject,
    reject_version,
)
from lanopoly.net.genesis import MAX_BID_TIMER, Genesis, PeerEntry, StartRecord, parse_start
from lanopoly.net.keys import ED25519, Signer, Suite, fingerprint
from lanopoly.net.links import Conn, LinkClosed, connect
from lanopoly.net.listener import Limits, Listener
from lanopoly.net.protocol import VOTE_CHOICES
from lanopoly.net.wire import WireError

log = logging.getLogger(__name__)

HANDSHAKE_TIMEOUT = 5.0
SETUP_TIMEOUT = 30.0
"""Seconds from the start record to an agreed genesis (every link up, every deal and signature in)."""
WRONG_PINS_PER_ADDRESS = 3
BUSY_RETRY_FOR = 20.0
"""Seconds a joiner keeps trying again while the host answers ``BUSY`` (its SPAKE2 budget spent)."""
BUSY_BACKOFF = (0.2, 0.4)
"""Seconds a joiner waits before trying again after a ``BUSY`` (uniform in this range): at least
the listener's window over its starts per address (10 s / 60), else a joiner kept waiting by a
flood tripped that limit itself after 9.7 s and failed with "end of stream"."""
PIN_DIGITS = 6


class SetupError(Exception):
    """The lobby, the links or the agreement failed; the message says why and whom."""


def new_pin() -> str:
    """A fresh random PIN of six decimal digits (what the host shows)."""
    return f"{secrets.randbelow(10**PIN_DIGITS):0{PIN_DIGITS}d}"


@dataclass
class Started:
    """A game ready to play: the genesis, this peer's secrets, a link to every other peer, the gate."""

    genesis: Genesis
    me: int
    key: Signer
    chain_secret: bytes
    held: dict[int, bytes]
    links: dict[int, tuple[Conn, int]]
    gate: Gate
    pin: str
    host_address: str = ""


class Gate:
    """A peer's listening port: each connection's first frame says what it is (the dialer speaks
    first): ``AUTH_HELLO``, a joiner for the lobby; ``LINK_HELLO``, a peer of the game."""

    def __init__(self, interfaces: list[str] | None, port: int, limits: Limits | None = None) -> None:
        self.interfaces = interfaces
        self.port = port
        self.lobby: Callable[[Conn, bytes], Awaitable[None]] | None = None
        """Handles a joiner's connection (its first payload given), while the lobby is open."""
        self.record: StartRecord | None = None
        self.me = 0
        self.key: Signer | None = None
        self.suite: Suite = ED25519
        self.on_link: Callable[[LinkUp, Conn], None] | None = None
        """Gets every link a peer of the game proved (the setup's, then the driver's)."""
        self.reserved_hosts: set[str] = set()
        self.listener = Listener(self._handshake, self._done, limits or Limits(), reserved=self._reserved)

    def _reserved(self, host: str) -> bool:
        return host in self.reserved_hosts

    async def open(self) -> int:
        """Listen on every configured address (all when None), the same port on each."""
        hosts = self.interfaces if self.interfaces is not None else ["0.0.0.0"]
        self.port = await self.listener.start(hosts, self.port)
        return self.port

    def accept_links(self, record: StartRecord, me: int, key: Signer, suite: Suite) -> None:
        """From now on, prove links for this game (the start record is known)."""
        self.record, self.me, self.key, self.suite = record, me, key, suite
        self.reserved_hosts = {p.host for i, p in enumerate(record.peers) if p.host and i != me}

    async def _handshake(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> Any:
        conn = Conn(reader, writer)
        try:
            first = await conn.recv(HANDSHAKE_TIMEOUT)
            kind = wire.unpack(first)[0]
            if kind == AUTH_HELLO and self.lobby is not None:
                await self.lobby(conn, first)
                return (None, conn)  # the lobby keeps the joiner's connection
            if kind == LINK_HELLO and self.record is not None and self.key is not None:
                machine = KeyListener(self.record, self.me, self.key, self.suite)
                conn.send(machine.hello(first))
                proof = await conn.recv(HANDSHAKE_TIMEOUT)
                self.progress(conn)
                up = machine.proof(proof)
                conn.secure(up.cipher)
                return (up, conn)
            raise LinkClosed(f"unexpected first message {kind!r}")
        except (LinkClosed, LinkAuthError, WireError, PinError) as e:
            log.debug("connection from %s refused: %s", conn.label, reason(e))
            return None  # the listener closes it

    def progress(self, conn: Conn) -> None:
        """The handshake on ``conn`` got the dialer's second frame: it made progress (``Listener.progress``),
        so a churn of connections that only say hello cannot evict it."""
        self.listener.progress(conn.writer)

    def _done(self, result: Any) -> None:
        up, conn = result
        if up is None:
            return
        if self.on_link is None:
            asyncio.get_running_loop().create_task(conn.close())
            return
        self.on_link(up, conn)

    async def close(self) -> None:
        await self.listener.close()


# ----------------------------------------------------------------------------- linking every peer


async def dial_link(
    record: StartRecord,
    me: int,
    key: Signer,
    suite: Suite,
    peer: int,
    host: str,
    port: int,
    my_port: int,
    source: str | None = None,
) -> tuple[Conn, LinkUp]:
    """Link to ``peer`` at ``host:port`` by its start-record key (LinkClosed when it does not prove it)."""
    conn = await connect(host, port, source, HANDSHAKE_TIMEOUT)
    machine = KeyDialer(record, me, key, peer, my_port, suite)
    try:
        conn.send(machine.hello())
        proof, up = machine.accept(await conn.recv(HANDSHAKE_TIMEOUT))
        conn.send(proof)
    except (LinkAuthError, WireError, LinkClosed) as e:
        await conn.close()
        raise LinkClosed(f"peer {peer} at {host}:{port} did not prove its key: {reason(e)}") from None
    conn.secure(up.cipher)
    return conn, up


async def agree(
    start: bytes,
    me: int,
    key: Signer,
    chain_secret: bytes,
    gate: Gate,
    suite: Suite,
    host_address: str,
    source: str | None,
    pin: str,
) -> Started:
    """Link to every peer of the start record and agree on its genesis (within ``SETUP_TIMEOUT``)."""
    record = parse_start(start)
    agreement = lm.Agreement(start, me, key, chain_secret, suite)
    linked: dict[int, tuple[Conn, int]] = {}
    arrived = asyncio.Queue[tuple[LinkUp, Conn]]()
    gate.accept_links(record, me, key, suite)
    gate.on_link = lambda up, conn: arrived.put_nowait((up, conn))

    async def dial(peer: int) -> None:
        entry = record.peers[peer]
        host = entry.host or host_address
        while True:
            try:
                conn, up = await dial_link(record, me, key, suite, peer, host, entry.port, gate.port, source)
            except LinkClosed as e:
                log.debug("linking to peer %d: %s; trying again", peer, e)
                await asyncio.sleep(0.3)
                continue
            await arrived.put((up, conn))
            return

    async def exchange(peer: int, conn: Conn) -> None:
        conn.send(agreement.deal_for(peer))
        signed = False
        while not signed:
            message = lm.parse(await conn.recv(SETUP_TIMEOUT))
            if isinstance(message, lm.Deal):
                payload = agreement.take_deal(peer, message)
                if payload is not None:
                    for c, _ in linked.values():
                        c.send(payload)
            elif isinstance(message, tuple):
                agreement.take_signature(peer, message[1])
                signed = True  # the last setup message from this peer: what follows is the game's
            else:
                raise SetupError(f"peer {peer} sent {type(message).__name__} during the setup")

    dials = [asyncio.get_running_loop().create_task(dial(p)) for p in range(me)]
    exchanges: list[asyncio.Task[None]] = []
    try:
        async with asyncio.timeout(SETUP_TIMEOUT):
            while len(linked) < len(record.peers) - 1:
                up, conn = await arrived.get()
                if up.peer in linked or up.peer == me:
                    await conn.close()
                    continue
                linked[up.peer] = (conn, max(up.peer, me))
                exchanges.append(asyncio.get_running_loop().create_task(exchange(up.peer, conn)))
            await asyncio.gather(*exchanges)
    except TimeoutError:
        missing = [p for p in range(len(record.peers)) if p != me and p not in linked]
        names = ", ".join(f"peer {p} ({record.peers[p].name})" for p in missing) or "every peer's deal and signature"
        raise SetupError(f"the game could not start: no answer from {names} within {SETUP_TIMEOUT:g} s") from None
    except (lm.AgreementError, WireError, LinkClosed) as e:
        raise SetupError(f"the game could not start: {reason(e)}") from None
    finally:
        for task in dials + exchanges:
            task.cancel()
        gate.on_link = None
    genesis = agreement.genesis()
    if genesis is None:
        raise SetupError("the game could not start: a genesis signature is missing")
    return Started(genesis, me, key, chain_secret, dict(agreement.held), linked, gate, pin, host_address)


# ----------------------------------------------------------------------------- the host


@dataclass
class _Joiner:
    conn: Conn
    hello: lm.Hello
    address: str
    watch: asyncio.Task[None] | None = None


@dataclass
class HostLobby:
    """The hosting peer's lobby: joiners in the order they came, then ``start``.

    Seats: the host's first, then each joiner's, the rest (up to ``seats``) bots on the host.
    ``on_change`` is called with the roster whenever someone joins or leaves.
    """

    name: str
    peers: int
    seats: int
    board: str
    rules: dict[str, Any]
    pin: str
    interfaces: list[str] | None = None
    port: int = 0
    replace_with: str = "bot"
    bid_timer: int = 0
    """The bid timer agreed in the start record (seconds, 0 off): the consoles', see ``genesis``."""
    chain_length: int = DEFAULT_CHAIN_LENGTH
    suite: Suite = ED25519
    on_change: Callable[[list[str]], None] | None = None
    bot_names: Sequence[str] = ()
    """The names of the bots' seats, in order (the host console's language: "robot 1"); beyond
    them, "bot N"."""
    joiners: list[_Joiner] = field(default_factory=list)

    def __post_init__(self) -> None:
        if not 2 <= self.peers <= 8 or not self.peers <= self.seats <= 8:
            raise ValueError("need 2 to 8 peers and as many seats or more, at most 8")
        if self.replace_with not in VOTE_CHOICES:
            raise ValueError(f"replace_with is one of {', '.join(VOTE_CHOICES)}")
        if not 0 <= self.bid_timer <= MAX_BID_TIMER:
            raise ValueError(f"the bid timer is 0 (off) to {MAX_BID_TIMER} seconds")
        normalize_pin(self.pin)
        self.game_id = secrets.token_bytes(16)
        self.key = self.suite.new_signer(None)
        self.chain_secret = shares.new_secret()
        self.anchor = HashChain(self.chain_length, self.chain_secret).anchor
        self.gate = Gate(self.interfaces, self.port)
        self.gate.lobby = self._lobby
        self.wrong_pins = 0
        self._wrong_by_address: dict[str, int] = {}
        self.budget = StartBudget()
        self._full = asyncio.Event()
        self._open = True

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.key.public)

    @property
    def roster(self) -> list[str]:
        return [self.name] + [j.hello.name for j in self.joiners]

    async def open(self) -> int:
        return await self.gate.open()

    async def _lobby(self, conn: Conn, first: bytes) -> None:
        version = other_version(first)
        if version is not None:
            conn.send(reject_version(version))
            raise LinkClosed(f"a joiner of LAN protocol {version}")
        if not self._open or self._full.is_set():
            conn.send(reject("the lobby is full"))
            raise LinkClosed("the lobby is full")
        if self._wrong_by_address.get(conn.remote_host, 0) >= WRONG_PINS_PER_ADDRESS:
            conn.send(reject("too many wrong PINs from this address"))
            raise LinkClosed("too many wrong PINs from this address")
        if not self.budget.take(conn.remote_host, time.monotonic()):
            conn.send(reject(BUSY))
            raise LinkClosed(BUSY)
        pake = PinHost(normalize_pin(self.pin), self.game_id)
        conn.send(await asyncio.to_thread(pake.hello, first))
        reply = await conn.recv(HANDSHAKE_TIMEOUT)
        self.gate.progress(conn)
        try:
            answer, channel = await asyncio.to_thread(pake.reply, reply)
        except PinError as e:
            if e.wrong_pin:
                self._wrong_pin(conn)
                conn.send(reject("wrong PIN"))
            raise
        conn.send(answer)
        conn.secure(channel.cipher)
        proof = lm.prove(self.key, lm.WELCOME_TAG, channel.binding)
        conn.send(lm.encode(lm.Welcome(self.key.public, proof, self.seats, tuple(self.roster), self.chain_length)))
        hello = lm.parse(await conn.recv(HANDSHAKE_TIMEOUT))
        if not isinstance(hello, lm.Hello):
            raise LinkClosed("expected HELLO")
        problem = self._check(hello, channel.binding)
        if problem is not None:
            conn.send(reject(problem))
            raise LinkClosed(problem)
        joiner = _Joiner(conn, hello, conn.remote_host)
        self.joiners.append(joiner)
        joiner.watch = asyncio.get_running_loop().create_task(self._watch(joiner))
        log.info("%s joined from %s (%d/%d peers)", hello.name, conn.label, len(self.roster), self.peers)
        if len(self.roster) == self.peers:
            self._full.set()
        self._changed()

    def _check(self, hello: lm.Hello, binding: bytes) -> str | None:
        if not self.suite.verify(hello.key, lm.HELLO_TAG + binding, hello.proof):
            return "the key's proof does not verify"
        if hello.key == self.key.public or any(j.hello.key == hello.key for j in self.joiners):
            return "that key is in the lobby already"
        if self._full.is_set():
            return "the lobby is full"
        return None

    def _wrong_pin(self, conn: Conn) -> None:
        self.wrong_pins += 1
        self._wrong_by_address[conn.remote_host] = self._wrong_by_address.get(conn.remote_host, 0) + 1
        log.warning("wrong PIN from %s (%d so far)", conn.label, self.wrong_pins)

    async def _watch(self, joiner: _Joiner) -> None:
        """A joiner says nothing until the start: its connection closing means it left."""
        with contextlib.suppress(LinkClosed):
            await joiner.conn.recv()
        if joiner in self.joiners and self._open:
            self._leave(joiner)
            await joiner.conn.close()
            self._changed()

    def _leave(self, joiner: _Joiner) -> None:
        self.joiners.remove(joiner)
        self._full.clear()
        log.info("%s left the lobby", joiner.hello.name)

    async def drop_departed(self) -> list[str]:
        """Take out of the lobby the joiners whose connection has already ended, though their watch
        has not yet seen it; their names. Called just before ``start``: a seat left at the last
        moment is free again, rather than the start failing ("left before the start") or waiting
        for an answer that never comes."""
        gone = [j for j in self.joiners if j.conn.closed or j.conn.reader.at_eof()]
        for joiner in gone:
            self._leave(joiner)
            if joiner.watch is not None:
                joiner.watch.cancel()
            await joiner.conn.close()
        if gone:
            self._changed()
        return [j.hello.name for j in gone]

    def set_bid_timer(self, seconds: int) -> None:
        """The host chose another bid timer before the start: every joiner is told (a ROSTER), so
        each screen in the lobby shows the timer the game will be played with."""
        if not 0 <= seconds <= MAX_BID_TIMER:
            raise ValueError(f"the bid timer is 0 (off) to {MAX_BID_TIMER} seconds")
        if seconds != self.bid_timer and self._open:
            self.bid_timer = seconds
            self._changed()

    def _changed(self) -> None:
        roster = lm.encode(lm.Roster(tuple(self.roster), self.seats, self.bid_timer))
        for joiner in self.joiners:
            with contextlib.suppress(LinkClosed):
                joiner.conn.send(roster)
        if self.on_change is not None:
            self.on_change(self.roster)

    async def wait_full(self, timeout: float | None = None) -> None:
        async with asyncio.timeout(timeout):
            await self._full.wait()

    def record(self) -> StartRecord:
        entries = [PeerEntry(self.name, "", self.gate.port, self.key.public, self.anchor)]
        entries += [PeerEntry(j.hello.name, j.address, j.hello.port, j.hello.key, j.hello.anchor) for j in self.joiners]
        named = list(self.bot_names)
        bots = [named[i - 1] if i <= len(named) else f"bot {i}" for i in range(1, self.seats - len(entries) + 1)]
        names = _unique([e.name for e in entries] + bots)
        return StartRecord(
            game_id=self.game_id,
            peers=tuple(entries),
            names=tuple(names),
            controllers=tuple(list(range(len(entries))) + [0] * len(bots)),
            board=self.board,
            rules=dict(self.rules),
            chain_length=self.chain_length,
            replace_with=self.replace_with,
            bid_timer=self.bid_timer,
        )

    async def start(self, seats: int | None = None) -> Started:
        """Close the lobby, send the start record, link every peer and agree. ``seats`` (default: as
        opened) may be fewer, not fewer than the peers in the lobby: the game starts without waiting
        for the lobby to fill, bots in the seats no peer took (ValueError when it does not fit)."""
        if seats is not None:
            if not max(2, len(self.roster)) <= seats <= self.seats:
                raise ValueError(f"{seats} seats for {len(self.roster)} peers in a lobby of {self.seats} seats")
            self.seats = seats
        if len(self.roster) < 2:
            raise ValueError("nobody joined the lobby")
        self._open = False
        self.gate.lobby = None
        for joiner in self.joiners:
            if joiner.watch is not None:
                joiner.watch.cancel()
        start = self.record().encode()
        for joiner in self.joiners:
            try:
                joiner.conn.send(lm.encode(start))
            except LinkClosed as e:
                raise SetupError(f"{joiner.hello.name} left before the start: {e}") from None
        started = await agree(start, 0, self.key, self.chain_secret, self.gate, self.suite, "", None, self.pin)
        for joiner in self.joiners:
            await joiner.conn.close()
        return started

    async def close(self) -> None:
        self._open = False
        for joiner in self.joiners:
            if joiner.watch is not None:
                joiner.watch.cancel()
            await joiner.conn.close()
        await self.gate.close()


def _unique(names: list[str]) -> list[str]:
    """Seat names made unique by numbering repeats (``ann``, ``ann 2``)."""
    seen: dict[str, int] = {}
    out = []
    for name in names:
        seen[name] = seen.get(name, 0) + 1
        out.append(name if seen[name] == 1 else f"{name} {seen[name]}")
    return out


# ----------------------------------------------------------------------------- a joiner


@dataclass
class Joining:
    """A joiner in a lobby: what the host said (its key's fingerprint, the roster) while it waits."""

    host: str
    port: int
    name: str
    pin: str
    interfaces: list[str] | None = None
    game_id: bytes = b""
    expect_fingerprint: str | None = None
    suite: Suite = ED25519
    on_roster: Callable[[list[str], int], None] | None = None
    fingerprint: str = ""
    roster: list[str] = field(default_factory=list)
    bid_timer: int | None = None
    """The bid timer the host last told (seconds, 0 off; checked on the wire: 1 to
    ``MAX_BID_TIMER`` or absent); None until the first ROSTER."""

    async def run(self) -> Started:
        """Join, wait for the start, link every peer, agree: the game (SetupError otherwise)."""
        source = self.interfaces[0] if self.interfaces else None
        key = self.suite.new_signer(None)
        gate = Gate(self.interfaces, 0)
        my_port = await gate.open()
        give_up = time.monotonic() + BUSY_RETRY_FOR
        while True:
            try:
                conn = await connect(self.host, self.port, source, HANDSHAKE_TIMEOUT)
            except LinkClosed as e:  # chained: a screen tells an address nobody answers at in its words
                await gate.close()
                raise SetupError(f"could not join: {e}") from e
            try:
                start, chain_secret = await self._lobby(conn, key, my_port)
                break
            except PinError as e:
                await conn.close()
                if e.busy and time.monotonic() < give_up:
                    log.debug("the host is busy: trying again")
                    await asyncio.sleep(random.uniform(*BUSY_BACKOFF))
                    continue
                await gate.close()
                raise SetupError(f"could not join: {reason(e)}") from None
            except (LinkClosed, WireError, TimeoutError) as e:
                await conn.close()
                await gate.close()
                raise SetupError(f"could not join: {reason(e)}") from None
            except BaseException:  # cancelled (the person left the lobby): the host sees the seat free again
                await conn.close()
                await gate.close()
                raise
        await conn.close()
        record = parse_start(start)
        me = next((i for i, p in enumerate(record.peers) if p.key == key.public), None)
        if me is None or record.peers[me].port != my_port:
            await gate.close()
            raise SetupError("could not join: the start record does not list this peer as it joined")
        return await agree(start, me, key, chain_secret, gate, self.suite, self.host, source, self.pin)

    async def _lobby(self, conn: Conn, key: Signer, my_port: int) -> tuple[bytes, bytes]:
        pake = PinJoiner(normalize_pin(self.pin), self.game_id)
        conn.send(pake.hello())
        conn.send(await asyncio.to_thread(pake.offer, await conn.recv(HANDSHAKE_TIMEOUT)))
        channel = pake.confirm(await conn.recv(HANDSHAKE_TIMEOUT))
        conn.secure(channel.cipher)
        welcome = lm.parse(await conn.recv(HANDSHAKE_TIMEOUT))
        if isinstance(welcome, tuple) and welcome[0] == "reject":
            raise LinkClosed(f"refused: {welcome[1]}")
        if not isinstance(welcome, lm.Welcome):
            raise LinkClosed("the host sent no WELCOME")
        if not self.suite.verify(welcome.key, lm.WELCOME_TAG + channel.binding, welcome.proof):
            raise LinkClosed("the host did not prove its key")
        self.fingerprint = fingerprint(welcome.key)
        if self.expect_fingerprint is not None and self.fingerprint != self.expect_fingerprint:
            raise LinkClosed(f"the host's key is {self.fingerprint}, not the advertised {self.expect_fingerprint}")
        chain_secret = shares.new_secret()
        anchor = HashChain(welcome.chain_length, chain_secret).anchor
        proof = lm.prove(key, lm.HELLO_TAG, channel.binding)
        conn.send(lm.encode(lm.Hello(self.name, my_port, key.public, anchor, proof)))
        while True:
            message = lm.parse(await conn.recv())
            if isinstance(message, tuple) and message[0] == "reject":
                raise LinkClosed(f"refused: {message[1]}")
            if isinstance(message, lm.Roster):
                self.roster = list(message.names)
                self.bid_timer = message.bid_timer
                if self.on_roster is not None:
                    self.on_roster(self.roster, message.seats)
            elif isinstance(message, bytes):
                return message, chain_secret
            else:
                raise LinkClosed(f"unexpected {type(message).__name__} in the lobby")
