"""The lobby and the full TCP mesh: host accepts joins, everyone agrees on one start record, everyone dials.

1. The host listens; a joiner (which listens too) connects and sends ``HELLO`` (name, listening
   port, peer id, hash-chain anchor); the host answers ``WELCOME`` or ``REJECT``.
2. When the lobby is full, the host sends every joiner the same ``START`` record: game id, peers
   (id, name, address, port, anchor), seat names, the peer controlling each seat, board, rules.
   A joiner's address is the one the host saw its connection come from.
3. Peer j dials every peer i with 0 < i < j (``PEER_HELLO``); the host's links are the lobby
   connections. Each pair of peers thus has exactly one connection.
4. Every peer sends every other the SHA-256 of the start record bytes it got (``START_ACK``) and
   checks theirs against its own: a host that sent different records to different joiners is
   caught here. Only then is the frame cap raised from 4 KiB to 64 KiB and the game may start.

Every step of the handshake has a deadline; the number of connections still in their handshake is
capped; anything malformed closes that connection and is logged. Nothing here authenticates peers
yet (a PIN and PAKE come later): the start agreement only makes every peer see the same record.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from lanopoly.net.chain import DEFAULT_CHAIN_LENGTH, HashChain
from lanopoly.net.framing import MAX_FRAME, ConnectionClosed, FramedConnection, FrameError, pack
from lanopoly.net.messages import (
    MAX_NAME,
    MAX_PEERS,
    MAX_SEATS,
    Hello,
    Message,
    PeerEntry,
    PeerHello,
    ProtocolError,
    Reject,
    StartAck,
    StartRecord,
    Welcome,
    parse,
)

log = logging.getLogger(__name__)

HANDSHAKE_TIMEOUT = 5.0
MAX_PENDING_HANDSHAKES = 32


class MeshError(Exception):
    """The lobby or the mesh could not be set up (refused, timed out, inconsistent start record...)."""


@dataclass
class PeerConfig:
    """This peer's side of the setup."""

    name: str
    interfaces: list[str] | None = None
    port: int = 0
    handshake_timeout: float = HANDSHAKE_TIMEOUT
    chain_length: int = DEFAULT_CHAIN_LENGTH
    peer_id: bytes = field(default_factory=lambda: secrets.token_bytes(16))


@dataclass
class Mesh:
    """The agreed start record and one open, framed connection to every other peer."""

    me: int
    start: StartRecord
    start_hash: bytes
    links: dict[int, FramedConnection]
    chain: HashChain
    listener: Listener

    async def close(self) -> None:
        """Close every link and the listener."""
        await asyncio.gather(*(link.close() for link in self.links.values()))
        await self.listener.close()


def _name_of(start: StartRecord, index: int) -> str:
    return f"peer {index} ({start.peers[index].name})"


def start_hash(payload: bytes) -> bytes:
    """The hash every peer echoes: SHA-256 of the exact start record bytes on the wire."""
    return hashlib.sha256(b"lanopoly/start/v1\x00" + payload).digest()


Handler = Callable[[FramedConnection, Message], Awaitable[bool]]


class Listener:
    """A TCP listener on the configured interfaces that hands each new connection's first message to a handler.

    The first message must arrive within the handshake deadline and fit the small pre-start cap;
    at most ``MAX_PENDING_HANDSHAKES`` connections may be waiting for it. The handler returns
    whether it keeps the connection (otherwise it is closed).
    """

    def __init__(self, handler: Handler, interfaces: list[str] | None, port: int, timeout: float) -> None:
        self._handler = handler
        self._interfaces = interfaces
        self._port = port
        self._timeout = timeout
        self._servers: list[asyncio.Server] = []
        self._pending = 0
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0

    async def start(self) -> int:
        """Start listening; returns the port (the same port on every configured address)."""
        if self._interfaces is None:
            server = await asyncio.start_server(self._on_connect, host="0.0.0.0", port=self._port)
            self._servers.append(server)
        else:
            port = self._port
            for address in self._interfaces:
                server = await asyncio.start_server(self._on_connect, host=address, port=port)
                self._servers.append(server)
                port = server.sockets[0].getsockname()[1]
        self.port = int(self._servers[0].sockets[0].getsockname()[1])
        return self.port

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = FramedConnection(reader, writer)
        if self._pending >= MAX_PENDING_HANDSHAKES:
            log.warning("too many connections in their handshake; dropping %s", conn.label)
            await conn.close()
            return
        self._pending += 1
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            try:
                _, raw = await conn.recv_within(self._timeout)
                message = parse(raw)
            except (FrameError, ProtocolError, ConnectionClosed, TimeoutError) as e:
                log.warning("dropping connection from %s: %s", conn.label, e or type(e).__name__)
                await conn.close()
                return
            finally:
                self._pending -= 1
            keep = await self._handler(conn, message)
            if not keep:
                await conn.close()
        except Exception:  # a handler bug must not kill the listener or the peer
            log.exception("error while handling a connection from %s", conn.label)
            await conn.close()
        finally:
            if task is not None:
                self._tasks.discard(task)

    async def close(self) -> None:
        for server in self._servers:
            server.close()
        for task in list(self._tasks):
            task.cancel()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        for server in self._servers:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.wait_closed(), 2)
        self._servers.clear()


async def dial(host: str, port: int, interfaces: list[str] | None, timeout: float) -> FramedConnection:
    """Connect to ``host:port`` (from the first configured address when interfaces are restricted)."""
    local = (interfaces[0], 0) if interfaces else None
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port, local_addr=local), timeout)
    except (OSError, TimeoutError) as e:
        raise MeshError(f"cannot connect to {host}:{port}: {e or type(e).__name__}") from None
    return FramedConnection(reader, writer, label=f"{host}:{port}")


async def _agree_on_start(mesh: Mesh, timeout: float) -> None:
    """Exchange START_ACKs on every link and check every peer hashed the same start record."""
    ack = StartAck(mesh.start.game_id, mesh.start_hash).to_wire()
    try:
        await asyncio.gather(*(link.send(ack) for link in mesh.links.values()))
    except ConnectionClosed as e:
        raise MeshError(f"a peer left before the start: {e}") from None

    async def check(index: int, link: FramedConnection) -> None:
        try:
            _, raw = await link.recv_within(timeout)
            message = parse(raw)
        except (FrameError, ProtocolError, ConnectionClosed, TimeoutError) as e:
            raise MeshError(f"{_name_of(mesh.start, index)} did not confirm the start record: {e}") from None
        if not isinstance(message, StartAck) or message.game_id != mesh.start.game_id:
            raise MeshError(f"{_name_of(mesh.start, index)} sent {type(message).__name__} instead of START_ACK")
        if message.start_hash != mesh.start_hash:
            raise MeshError(f"{_name_of(mesh.start, index)} received a different start record")

    await asyncio.gather(*(check(i, link) for i, link in mesh.links.items()))
    for link in mesh.links.values():
        link.max_frame = MAX_FRAME


def _unique(names: list[str]) -> list[str]:
    out: list[str] = []
    for name in names:
        candidate, n = name[:MAX_NAME], 2
        while candidate in out:
            candidate = f"{name[: MAX_NAME - 4]} ({n})"
            n += 1
        out.append(candidate)
    return out


@dataclass
class _Joiner:
    conn: FramedConnection
    hello: Hello
    monitor: asyncio.Task[None] | None = None


class HostLobby:
    """The hosting peer's lobby: accepts ``peers - 1`` joiners, then builds and agrees the start record.

    Seats: seat 0 is the host, seats 1.. the joiners in the order they came, the remaining seats
    (up to ``seats``) are bots played on the host. ``on_change(taken)`` is called whenever the
    number of peers in the lobby changes (to update the advertised TXT record).
    """

    def __init__(
        self,
        config: PeerConfig,
        peers: int,
        seats: int,
        board: str,
        rules: dict[str, Any],
        on_change: Callable[[int], None] | None = None,
    ) -> None:
        if not 2 <= peers <= MAX_PEERS or not peers <= seats <= MAX_SEATS:
            raise ValueError(f"need 2..{MAX_PEERS} peers and peers..{MAX_SEATS} seats")
        self.config = config
        self.peers = peers
        self.seats = seats
        self.board = board
        self.rules = rules
        self.game_id = secrets.token_bytes(16)
        self.chain = HashChain(config.chain_length)
        self._on_change = on_change
        self._joiners: list[_Joiner] = []
        self._full = asyncio.Event()
        self._closed_lobby = False
        self.listener = Listener(self._handle, config.interfaces, config.port, config.handshake_timeout)

    async def open(self) -> int:
        """Start listening; returns the port."""
        return await self.listener.start()

    @property
    def taken(self) -> int:
        """Peers in the lobby, the host included."""
        return 1 + len(self._joiners)

    async def _handle(self, conn: FramedConnection, message: Message) -> bool:
        if not isinstance(message, Hello):
            await self._reject(conn, f"this peer hosts a lobby; expected HELLO, got {type(message).__name__}")
            return False
        if self._closed_lobby or self._full.is_set():
            await self._reject(conn, "the lobby is full")
            return False
        if message.game_id and message.game_id != self.game_id:
            await self._reject(conn, "this lobby hosts another game")
            return False
        if message.peer_id == self.config.peer_id or any(j.hello.peer_id == message.peer_id for j in self._joiners):
            await self._reject(conn, "peer id already in the lobby")
            return False
        joiner = _Joiner(conn, message)
        self._joiners.append(joiner)
        try:
            await conn.send(Welcome(self.game_id, len(self._joiners), self.peers).to_wire())
        except ConnectionClosed:
            self._joiners.remove(joiner)
            return False
        log.info("%s joined from %s (%d/%d peers)", message.name, conn.label, self.taken, self.peers)
        joiner.monitor = asyncio.get_running_loop().create_task(self._watch(joiner))
        if self.taken == self.peers:
            self._full.set()
        if self._on_change is not None:
            self._on_change(self.taken)
        return True

    async def _watch(self, joiner: _Joiner) -> None:
        """A joiner sends nothing until the start record: end of stream or any byte means it is gone."""
        try:
            data = await joiner.conn.reader.read(1)
        except (ConnectionError, OSError):
            data = b""
        if joiner in self._joiners and not self._full.is_set():
            log.info("%s left the lobby%s", joiner.hello.name, "" if not data else " (sent data out of turn)")
            self._joiners.remove(joiner)
            await joiner.conn.close()
            if self._on_change is not None:
                self._on_change(self.taken)

    async def _reject(self, conn: FramedConnection, reason: str) -> None:
        log.info("rejecting %s: %s", conn.label, reason)
        with contextlib.suppress(ConnectionClosed, FrameError):
            await conn.send(Reject(reason).to_wire())

    async def wait_full(self, timeout: float | None) -> None:
        """Wait until every peer has joined (TimeoutError otherwise)."""
        await asyncio.wait_for(self._full.wait(), timeout)

    async def start(self) -> Mesh:
        """Send the start record to every joiner, agree on it, return the mesh (call when full)."""
        self._closed_lobby = True
        for joiner in self._joiners:
            if joiner.monitor is not None:
                joiner.monitor.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await joiner.monitor
        entries = [PeerEntry(self.config.peer_id, self.config.name, "", self.listener.port, self.chain.anchor)]
        entries += [
            PeerEntry(j.hello.peer_id, j.hello.name, j.conn.remote_host, j.hello.listen_port, j.hello.anchor)
            for j in self._joiners
        ]
        bots = [f"bot {i}" for i in range(1, self.seats - len(entries) + 1)]
        names = _unique([e.name for e in entries] + bots)
        controllers = list(range(len(entries))) + [0] * len(bots)
        record = StartRecord(
            game_id=self.game_id,
            peers=tuple(entries),
            names=tuple(names),
            controllers=tuple(controllers),
            board=self.board,
            rules=dict(self.rules),
            chain_length=self.chain.length,
        )
        payload = pack(record.to_wire())
        links = {i: j.conn for i, j in enumerate(self._joiners, 1)}
        try:
            await asyncio.gather(*(link.send_payload(payload) for link in links.values()))
        except (ConnectionClosed, FrameError) as e:
            raise MeshError(f"could not send the start record: {e}") from None
        mesh = Mesh(0, record, start_hash(payload), links, self.chain, self.listener)
        await _agree_on_start(mesh, self.config.handshake_timeout * 2)
        return mesh

    async def close(self) -> None:
        """Close the lobby without starting (closes the joiners' connections and the listener)."""
        for joiner in self._joiners:
            if joiner.monitor is not None:
                joiner.monitor.cancel()
            await joiner.conn.close()
        await self.listener.close()


class MeshJoiner:
    """A joining peer: connects to a host, waits for the start record, dials the other peers."""

    def __init__(self, config: PeerConfig) -> None:
        self.config = config
        self.chain = HashChain(config.chain_length)
        self.listener = Listener(self._handle, config.interfaces, config.port, config.handshake_timeout)
        self._start: StartRecord | None = None
        self._me = -1
        self._start_known = asyncio.Event()
        self._links: dict[int, FramedConnection] = {}
        self._linked = asyncio.Event()
        self.game_id = b""

    def _expected_links(self) -> int:
        assert self._start is not None
        return len(self._start.peers) - 1

    async def _handle(self, conn: FramedConnection, message: Message) -> bool:
        if not isinstance(message, PeerHello):
            reason = "not a host" if isinstance(message, Hello) else f"unexpected {type(message).__name__}"
            with contextlib.suppress(ConnectionClosed, FrameError):
                await conn.send(Reject(reason).to_wire())
            return False
        try:
            await asyncio.wait_for(self._start_known.wait(), self.config.handshake_timeout)
        except TimeoutError:
            log.warning("PEER_HELLO from %s before any start record; dropping it", conn.label)
            return False
        start = self._start
        assert start is not None
        i = message.index
        if (
            message.game_id != start.game_id
            or not self._me < i < len(start.peers)
            or start.peers[i].peer_id != message.peer_id
            or i in self._links
        ):
            log.warning("dropping an unexpected PEER_HELLO (index %d) from %s", i, conn.label)
            return False
        conn.label = _name_of(start, i)
        self._links[i] = conn
        if len(self._links) == self._expected_links():
            self._linked.set()
        return True

    async def join(self, host: str, port: int, game_id: bytes = b"", lobby_timeout: float | None = None) -> Mesh:
        """Join the lobby at ``host:port`` and return the agreed mesh once the game starts."""
        listen_port = await self.listener.start()
        cfg = self.config
        conn = await dial(host, port, cfg.interfaces, cfg.handshake_timeout)
        try:
            hello = Hello(game_id, cfg.name[:MAX_NAME], listen_port, cfg.peer_id, self.chain.anchor)
            await conn.send(hello.to_wire())
            _, raw = await conn.recv_within(cfg.handshake_timeout)
            answer = parse(raw)
            if isinstance(answer, Reject):
                raise MeshError(f"the host refused: {answer.reason}")
            if not isinstance(answer, Welcome):
                raise MeshError(f"the host answered {type(answer).__name__} instead of WELCOME")
            self.game_id = answer.game_id
            log.info("joined game %s (%d peers expected)", answer.game_id.hex(), answer.peers)
            payload, raw = await asyncio.wait_for(conn.recv_raw(), lobby_timeout)
            record = parse(raw)
        except (FrameError, ProtocolError, ConnectionClosed, TimeoutError) as e:
            await conn.close()
            raise MeshError(f"lobby handshake with {host}:{port} failed: {e or type(e).__name__}") from None
        except BaseException:
            await conn.close()
            raise
        if not isinstance(record, StartRecord):
            await conn.close()
            raise MeshError(f"the host sent {type(record).__name__} instead of the start record")
        me = next((i for i, p in enumerate(record.peers) if p.peer_id == cfg.peer_id), -1)
        problem = ""
        if record.game_id != self.game_id:
            problem = "the start record is for another game"
        elif me <= 0:
            problem = "the start record does not list this peer"
        elif record.peers[me].anchor != self.chain.anchor or record.peers[me].port != listen_port:
            problem = "the start record misstates this peer's anchor or port"
        elif record.chain_length != self.chain.length:
            problem = f"chain length {record.chain_length} differs from ours ({self.chain.length})"
        if problem:
            await conn.close()
            raise MeshError(problem)
        self._start, self._me = record, me
        conn.label = _name_of(record, 0)
        self._links[0] = conn
        self._start_known.set()
        mesh = Mesh(me, record, start_hash(payload), self._links, self.chain, self.listener)
        try:
            for i in range(1, me):
                peer = record.peers[i]
                link = await dial(peer.host, peer.port, cfg.interfaces, cfg.handshake_timeout)
                link.label = _name_of(record, i)
                self._links[i] = link
                await link.send(PeerHello(record.game_id, me, cfg.peer_id).to_wire())
            if len(self._links) == self._expected_links():
                self._linked.set()
            try:
                await asyncio.wait_for(self._linked.wait(), cfg.handshake_timeout * 2)
            except TimeoutError:
                missing = [_name_of(record, i) for i in range(len(record.peers)) if i != me and i not in self._links]
                raise MeshError(f"no connection from {', '.join(missing)}") from None
            await _agree_on_start(mesh, cfg.handshake_timeout * 2)
        except BaseException:
            await mesh.close()
            raise
        return mesh

    async def close(self) -> None:
        await asyncio.gather(*(link.close() for link in self._links.values()))
        await self.listener.close()
