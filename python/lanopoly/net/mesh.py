"""The lobby and the full TCP mesh: host accepts joins, everyone agrees on one start record, everyone dials.

0. Every connection, lobby or mesh, first runs the PIN handshake (``secure``: SPAKE2 + key
   confirmation, then ChaCha20-Poly1305 on every frame). A wrong PIN is refused on both sides; a
   listener that has seen ``MAX_AUTH_FAILURES`` wrong PINs refuses every further connection (the
   host's lobby then fails: host a new game with a new PIN).
1. The host listens; a joiner (which listens too) connects and sends ``HELLO`` (name, listening
   port, peer id, hash-chain anchor, Ed25519 public key and a signature of the channel binding
   with it); the host answers ``WELCOME`` or ``REJECT``.
2. When the lobby is full, the host sends every joiner the same ``START`` record: game id, peers
   (id, name, address, port, anchor, public key), seat names, the peer controlling each seat, board, rules.
   A joiner's address is the one the host saw its connection come from.
3. Peer j dials every peer i with 0 < i < j (``PEER_HELLO``, with j's signature of the channel
   binding, checked against the start record's key for j); i answers ``ACCEPT``, its own
   signature of the binding (another tag), which j checks against the start record's key for i:
   whoever answers at i's address without i's key is not taken for i (``read_accept``). The
   host's links are the lobby connections. Each pair of peers thus has exactly one connection.
4. Every peer sends every other the SHA-256 of the start record bytes it got, signed with its key
   (``START_ACK``), and checks theirs (hash and signature) against its own: a host that sent
   different records to different joiners is caught here, and every peer has signed the record.
   Only then is the frame cap raised from 4 KiB to 64 KiB and the game may start.

Every step of the handshake has a deadline; the number of connections still in their handshake is
capped (in total and per source address), and so is the rate at which one address starts
handshakes (each costs the listener a SPAKE2 computation); anything malformed closes that
connection and is logged.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import secrets
import time
from collections import Counter, deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanopoly.net import reason, secure
from lanopoly.net.chain import DEFAULT_CHAIN_LENGTH, HashChain
from lanopoly.net.framing import MAX_FRAME, ConnectionClosed, FramedConnection, FrameError, pack
from lanopoly.net.messages import (
    MAX_NAME,
    MAX_PEERS,
    MAX_SEATS,
    VOTE_CHOICES,
    Accept,
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
MAX_PENDING_PER_HOST = 8
MAX_AUTH_FAILURES = 10
"""Wrong PINs a listener accepts before it refuses every further connection (10 guesses of 10^6)."""
HANDSHAKES_PER_HOST = 60
HANDSHAKE_WINDOW = 10.0
"""At most ``HANDSHAKES_PER_HOST`` handshakes started by one source address in any
``HANDSHAKE_WINDOW`` seconds: each costs the listener a SPAKE2 computation (about 4.4 ms of CPU
for its offer here, in pure Python: ``benches/bench_spake2.py``), so an address that reconnects in
a loop without ever guessing a PIN (guesses lock the game after ``MAX_AUTH_FAILURES``) gets about
3% of a core, not all of it. Joining, the mesh and
rejoining take a few; peers retrying every half second while a game resumes, a few more."""
MAX_TRACKED_HOSTS = 256
"""Source addresses whose recent handshakes a listener remembers; a new address beyond that
waits until one has been quiet for a window."""


class MeshError(Exception):
    """The lobby or the mesh could not be set up (refused, timed out, inconsistent start record...)."""


class KeyProofError(ProtocolError):
    """The peer we dialed did not prove the start record's key of the peer we meant to reach (``read_accept``)."""


@dataclass
class PeerConfig:
    """This peer's side of the setup: its name, the game PIN, and its signing key for this game."""

    name: str
    interfaces: list[str] | None = None
    port: int = 0
    handshake_timeout: float = HANDSHAKE_TIMEOUT
    chain_length: int = DEFAULT_CHAIN_LENGTH
    peer_id: bytes = field(default_factory=lambda: secrets.token_bytes(16))
    pin: str = ""
    sign_key: Ed25519PrivateKey = field(default_factory=Ed25519PrivateKey.generate)

    def pin_bytes(self) -> bytes:
        """The normalised PIN; ValueError when there is none (a game without a PIN cannot be set up)."""
        if not self.pin:
            raise ValueError("a game PIN is required")
        return secure.normalize_pin(self.pin)


@dataclass
class Mesh:
    """The agreed start record, one authenticated, encrypted connection to every other peer, this peer's key.

    ``start_sigs[i]`` is peer i's signature of the start record hash (every peer's, this one's too);
    ``start_payload`` the exact start record bytes that were hashed (saved with the log, so that
    ``lanopoly verify`` can check the record and its signatures offline).
    """

    me: int
    start: StartRecord
    start_hash: bytes
    links: dict[int, FramedConnection]
    chain: HashChain
    listener: Listener
    key: Ed25519PrivateKey
    start_sigs: dict[int, bytes] = field(default_factory=dict)
    start_payload: bytes = b""
    pin: str = ""
    host_address: tuple[str, int] = ("", 0)
    """Where this peer reached the host (peer 0, whose start record entry has no address): for a rejoin."""

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
    """A TCP listener on the configured interfaces: runs the PIN handshake, then hands the first message to a handler.

    The handshake and the first (encrypted) message must complete within the handshake deadline
    and fit the small pre-start cap; at most ``MAX_PENDING_HANDSHAKES`` connections (and
    ``MAX_PENDING_PER_HOST`` per source address) may be in their handshake at once, and one address
    may start ``HANDSHAKES_PER_HOST`` of them per ``HANDSHAKE_WINDOW`` seconds. Wrong PINs are
    counted; after ``MAX_AUTH_FAILURES`` the listener is ``locked`` and refuses everyone (the PIN
    may have leaked through guessing: the game must start over with a new one). ``game_id``
    returns the game the handshake is bound to (a joiner learns it from its host). The handler
    returns whether it keeps the connection (otherwise it is closed).
    """

    def __init__(
        self,
        handler: Handler,
        interfaces: list[str] | None,
        port: int,
        timeout: float,
        pin: bytes,
        game_id: Callable[[], Awaitable[bytes]],
        on_locked: Callable[[], None] | None = None,
    ) -> None:
        self._handler = handler
        self._interfaces = interfaces
        self._port = port
        self._timeout = timeout
        self._pin = pin
        self._game_id = game_id
        self._on_locked = on_locked
        self._servers: list[asyncio.Server] = []
        self._pending = 0
        self._pending_by_host: Counter[str] = Counter()
        self._started: dict[str, deque[float]] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self.port = 0
        self.auth_failures = 0
        self.locked = False

    @property
    def interfaces(self) -> list[str] | None:
        """The local addresses this listener (and a peer dialing from its session) uses; None: all."""
        return self._interfaces

    def set_handler(self, handler: Handler) -> None:
        """Hand later connections to ``handler`` (the game session takes over the listener from the lobby)."""
        self._handler = handler

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

    async def _handshake(self, conn: FramedConnection) -> Message:
        game_id = await self._game_id()
        await secure.accept(conn, self._pin, game_id)
        _, raw = await conn.recv_raw()
        return parse(raw)

    def _wrong_pin(self, conn: FramedConnection) -> None:
        self.auth_failures += 1
        log.warning("wrong PIN from %s (%d of %d allowed failures)", conn.label, self.auth_failures, MAX_AUTH_FAILURES)
        if self.auth_failures >= MAX_AUTH_FAILURES and not self.locked:
            self.locked = True
            log.error("%d wrong PINs: refusing every further connection", self.auth_failures)
            if self._on_locked is not None:
                self._on_locked()

    def _may_start(self, source: str, now: float) -> bool:
        """Count a handshake started by ``source`` now, unless it started its share already."""
        recent = self._started.get(source)
        if recent is None:
            if len(self._started) >= MAX_TRACKED_HOSTS:
                quiet = [host for host, times in self._started.items() if times[-1] <= now - HANDSHAKE_WINDOW]
                for host in quiet:
                    del self._started[host]
                if len(self._started) >= MAX_TRACKED_HOSTS:
                    return False
            recent = self._started[source] = deque()
        while recent and recent[0] <= now - HANDSHAKE_WINDOW:
            recent.popleft()
        if len(recent) >= HANDSHAKES_PER_HOST:
            return False
        recent.append(now)
        return True

    async def _on_connect(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        conn = FramedConnection(reader, writer)
        source = conn.remote_host
        if self.locked:
            log.warning("locked after %d wrong PINs; refusing %s", self.auth_failures, conn.label)
            with contextlib.suppress(ConnectionClosed, FrameError):
                await conn.send(Reject("too many wrong PINs: this game is locked").to_wire())
            await conn.close()
            return
        if self._pending >= MAX_PENDING_HANDSHAKES or self._pending_by_host[source] >= MAX_PENDING_PER_HOST:
            log.warning("too many connections in their handshake; dropping %s", conn.label)
            await conn.close()
            return
        if not self._may_start(source, time.monotonic()):
            log.warning("too many handshakes from %s within %g s; dropping %s", source, HANDSHAKE_WINDOW, conn.label)
            await conn.close()
            return
        self._pending += 1
        self._pending_by_host[source] += 1
        task = asyncio.current_task()
        if task is not None:
            self._tasks.add(task)
        try:
            try:
                message = await asyncio.wait_for(self._handshake(conn), self._timeout)
            except secure.AuthError as e:
                if e.wrong_pin:
                    self._wrong_pin(conn)
                log.warning("dropping connection from %s: handshake failed: %s", conn.label, e)
                await conn.close()
                return
            except (FrameError, ProtocolError, ConnectionClosed, TimeoutError) as e:
                log.warning("dropping connection from %s: %s", conn.label, reason(e))
                await conn.close()
                return
            finally:
                self._pending -= 1
                self._pending_by_host[source] -= 1
                if not self._pending_by_host[source]:
                    del self._pending_by_host[source]
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


async def dial(
    host: str, port: int, interfaces: list[str] | None, timeout: float, pin: bytes, game_id: bytes = b""
) -> tuple[FramedConnection, bytes]:
    """Connect to ``host:port`` and run the PIN handshake; returns the encrypted link and the game id.

    Connects from the first configured address when interfaces are restricted. ``game_id`` empty
    accepts whatever game the listener offers (joining by address). Everything within ``timeout``.
    """
    local = (interfaces[0], 0) if interfaces else None
    try:
        reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port, local_addr=local), timeout)
    except (OSError, TimeoutError) as e:
        raise MeshError(f"cannot connect to {host}:{port}: {reason(e)}") from None
    conn = FramedConnection(reader, writer, label=f"{host}:{port}")
    try:
        offered, _ = await asyncio.wait_for(secure.connect(conn, pin, game_id), timeout)
    except secure.GameMismatch as e:
        await conn.close()
        raise MeshError(str(e)) from None
    except secure.AuthError as e:
        await conn.close()
        raise MeshError(f"PIN handshake with {host}:{port} failed: {e}") from None
    except TimeoutError:
        await conn.close()
        raise MeshError(f"PIN handshake with {host}:{port} failed: no answer within {timeout:g} s") from None
    return conn, offered


def accept_message(conn: FramedConnection, key: Ed25519PrivateKey, game_id: bytes, index: int) -> Accept:
    """Our ``ACCEPT`` on a link a peer dialed: we are peer ``index``, proved with our key on this channel."""
    return Accept(game_id, index, key.sign(secure.accept_proof_data(conn.binding, game_id, index)))


async def read_accept(conn: FramedConnection, game_id: bytes, index: int, sign_key: bytes, timeout: float) -> None:
    """Read the ``ACCEPT`` of the peer we dialed on ``conn``, meaning to reach peer ``index`` (whose
    start record key is ``sign_key``): it proves that key on this channel, or we do not link up.

    MeshError when it refuses us (``REJECT``); KeyProofError (a ProtocolError: a dial is tried
    again) when it answers anything else, for another game or peer, or its proof does not verify;
    ConnectionClosed, FrameError, TimeoutError as ``recv_within``.
    """
    _, raw = await conn.recv_within(timeout)
    message = parse(raw)
    if isinstance(message, Reject):
        raise MeshError(f"{conn.label} refused: {message.reason}")
    if not isinstance(message, Accept) or message.game_id != game_id or message.index != index:
        what = type(message).__name__ if not isinstance(message, Accept) else f"ACCEPT as peer {message.index}"
        raise KeyProofError(f"{conn.label} did not prove its key: it answered {what}")
    data = secure.accept_proof_data(conn.binding, game_id, index)
    if not secure.verify(secure.load_public(sign_key), message.proof, data):
        raise KeyProofError(f"{conn.label} did not prove its key: its ACCEPT is not signed with peer {index}'s")


async def _agree_on_start(mesh: Mesh, timeout: float) -> None:
    """Exchange START_ACKs on every link and check every peer hashed the same start record."""
    own_sig = mesh.key.sign(secure.start_sig_data(mesh.start_hash))
    mesh.start_sigs[mesh.me] = own_sig
    ack = StartAck(mesh.start.game_id, mesh.start_hash, own_sig).to_wire()
    try:
        await asyncio.gather(*(link.send(ack) for link in mesh.links.values()))
    except ConnectionClosed as e:
        raise MeshError(f"a peer left before the start: {e}") from None

    async def check(index: int, link: FramedConnection) -> None:
        try:
            _, raw = await link.recv_within(timeout)
            message = parse(raw)
        except (FrameError, ProtocolError, ConnectionClosed, TimeoutError) as e:
            raise MeshError(f"{_name_of(mesh.start, index)} did not confirm the start record: {reason(e)}") from None
        if not isinstance(message, StartAck) or message.game_id != mesh.start.game_id:
            raise MeshError(f"{_name_of(mesh.start, index)} sent {type(message).__name__} instead of START_ACK")
        if message.start_hash != mesh.start_hash:
            raise MeshError(f"{_name_of(mesh.start, index)} received a different start record")
        key = secure.load_public(mesh.start.peers[index].sign_key)
        if not secure.verify(key, message.signature, secure.start_sig_data(mesh.start_hash)):
            raise MeshError(f"{_name_of(mesh.start, index)} did not sign the start record with its key")
        mesh.start_sigs[index] = message.signature

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
        replace_with: str = "bot",
    ) -> None:
        if not 2 <= peers <= MAX_PEERS or not peers <= seats <= MAX_SEATS:
            raise ValueError(f"need 2..{MAX_PEERS} peers and peers..{MAX_SEATS} seats")
        if replace_with not in VOTE_CHOICES:
            raise ValueError(f"replace_with is one of {', '.join(VOTE_CHOICES)}, not {replace_with!r}")
        self.replace_with = replace_with
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
        self._stirred = asyncio.Event()
        self._closed_lobby = False
        self.listener = Listener(
            self._handle,
            config.interfaces,
            config.port,
            config.handshake_timeout,
            config.pin_bytes(),
            self._own_game_id,
            on_locked=self._stirred.set,
        )

    async def _own_game_id(self) -> bytes:
        return self.game_id

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
        if message.game_id != self.game_id:
            await self._reject(conn, "this lobby hosts another game")
            return False
        if message.peer_id == self.config.peer_id or any(j.hello.peer_id == message.peer_id for j in self._joiners):
            await self._reject(conn, "peer id already in the lobby")
            return False
        key = secure.load_public(message.sign_key)
        if not secure.verify(key, message.proof, secure.hello_proof_data(conn.binding, message.peer_id)):
            await self._reject(conn, "the signing key's proof does not verify")
            return False
        own_key = secure.public_bytes(self.config.sign_key)
        if message.sign_key == own_key or any(j.hello.sign_key == message.sign_key for j in self._joiners):
            await self._reject(conn, "signing key already in the lobby")
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
            self._stirred.set()
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

    @property
    def auth_failures(self) -> int:
        """Wrong PINs seen so far."""
        return self.listener.auth_failures

    async def wait_full(self, timeout: float | None) -> None:
        """Wait until every peer has joined; TimeoutError, or MeshError once too many wrong PINs locked the lobby."""

        async def wait() -> None:
            while not self._full.is_set():
                if self.listener.locked:
                    raise MeshError(
                        f"{self.listener.auth_failures} wrong PINs: the lobby is locked; host a new game (new PIN)"
                    )
                self._stirred.clear()
                await self._stirred.wait()

        await asyncio.wait_for(wait(), timeout)

    async def start(self) -> Mesh:
        """Send the start record to every joiner, agree on it, return the mesh (call when full)."""
        self._closed_lobby = True
        for joiner in self._joiners:
            if joiner.monitor is not None:
                joiner.monitor.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await joiner.monitor
        own_key = secure.public_bytes(self.config.sign_key)
        entries = [PeerEntry(self.config.peer_id, self.config.name, "", self.listener.port, self.chain.anchor, own_key)]
        entries += [
            PeerEntry(
                j.hello.peer_id, j.hello.name, j.conn.remote_host, j.hello.listen_port, j.hello.anchor, j.hello.sign_key
            )
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
            replace_with=self.replace_with,
        )
        payload = pack(record.to_wire())
        links = {i: j.conn for i, j in enumerate(self._joiners, 1)}
        try:
            await asyncio.gather(*(link.send_payload(payload) for link in links.values()))
        except (ConnectionClosed, FrameError) as e:
            raise MeshError(f"could not send the start record: {e}") from None
        mesh = Mesh(0, record, start_hash(payload), links, self.chain, self.listener, self.config.sign_key)
        mesh.start_payload = payload
        mesh.pin = self.config.pin
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
        self.pin = config.pin_bytes()
        self.chain = HashChain(config.chain_length)
        self._game_known = asyncio.Event()
        self.listener = Listener(
            self._handle, config.interfaces, config.port, config.handshake_timeout, self.pin, self._joined_game_id
        )
        self._start: StartRecord | None = None
        self._me = -1
        self._start_known = asyncio.Event()
        self._links: dict[int, FramedConnection] = {}
        self._linked = asyncio.Event()
        self.game_id = b""

    async def _joined_game_id(self) -> bytes:
        """The game our incoming handshakes are bound to: known once the host's offer came."""
        await self._game_known.wait()
        return self.game_id

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
        proof = secure.peer_proof_data(conn.binding, start.game_id, i)
        if not secure.verify(secure.load_public(start.peers[i].sign_key), message.proof, proof):
            log.warning("dropping a PEER_HELLO claiming to be peer %d from %s: bad key proof", i, conn.label)
            return False
        try:
            await conn.send(accept_message(conn, self.config.sign_key, start.game_id, self._me).to_wire())
        except (ConnectionClosed, FrameError) as e:
            log.warning("peer %d left before we accepted it: %s", i, e)
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
        conn, offered = await dial(host, port, cfg.interfaces, cfg.handshake_timeout, self.pin, game_id)
        self.game_id = offered
        self._game_known.set()
        own_key = secure.public_bytes(cfg.sign_key)
        try:
            proof = cfg.sign_key.sign(secure.hello_proof_data(conn.binding, cfg.peer_id))
            hello = Hello(offered, cfg.name[:MAX_NAME], listen_port, cfg.peer_id, self.chain.anchor, own_key, proof)
            await conn.send(hello.to_wire())
            _, raw = await conn.recv_within(cfg.handshake_timeout)
            answer = parse(raw)
            if isinstance(answer, Reject):
                raise MeshError(f"the host refused: {answer.reason}")
            if not isinstance(answer, Welcome):
                raise MeshError(f"the host answered {type(answer).__name__} instead of WELCOME")
            if answer.game_id != offered:
                raise MeshError("the host welcomed us to another game than it offered")
            log.info("joined game %s (%d peers expected)", answer.game_id.hex(), answer.peers)
            payload, raw = await asyncio.wait_for(conn.recv_raw(), lobby_timeout)
            record = parse(raw)
        except (FrameError, ProtocolError, ConnectionClosed, TimeoutError) as e:
            await conn.close()
            raise MeshError(f"lobby handshake with {host}:{port} failed: {reason(e)}") from None
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
        elif (
            record.peers[me].anchor != self.chain.anchor
            or record.peers[me].port != listen_port
            or record.peers[me].sign_key != own_key
        ):
            problem = "the start record misstates this peer's anchor, port or key"
        elif record.chain_length != self.chain.length:
            problem = f"chain length {record.chain_length} differs from ours ({self.chain.length})"
        if problem:
            await conn.close()
            raise MeshError(problem)
        self._start, self._me = record, me
        conn.label = _name_of(record, 0)
        self._links[0] = conn
        self._start_known.set()
        mesh = Mesh(me, record, start_hash(payload), self._links, self.chain, self.listener, cfg.sign_key)
        mesh.start_payload = payload
        mesh.pin, mesh.host_address = cfg.pin, (host, port)
        try:
            for i in range(1, me):
                peer = record.peers[i]
                link, _ = await dial(
                    peer.host, peer.port, cfg.interfaces, cfg.handshake_timeout, self.pin, self.game_id
                )
                link.label = _name_of(record, i)
                self._links[i] = link
                proof = cfg.sign_key.sign(secure.peer_proof_data(link.binding, record.game_id, me))
                try:
                    await link.send(PeerHello(record.game_id, me, cfg.peer_id, proof).to_wire())
                    # It proves its key of the start record in turn (it waits for the record up to a deadline).
                    timeout = cfg.handshake_timeout * 2
                    await read_accept(link, record.game_id, i, peer.sign_key, timeout)
                except KeyProofError as e:
                    raise MeshError(str(e)) from None
                except (FrameError, ProtocolError, ConnectionClosed, TimeoutError) as e:
                    raise MeshError(f"{link.label} did not accept us: {reason(e)}") from None
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
