"""Coming back into a running game after a drop or a crash: ``lanopoly rejoin SAVED_LOG``.

A peer saving its game (``--save FILE``) also writes ``FILE.secret`` (readable by its owner only):
the game PIN, its signing key, its hash-chain secret and where the host is. With both files a
restarted peer

1. rebuilds the game by replaying its own saved log, every step checked as ``lanopoly verify``
   does (signatures against the start record's keys, reveals against the hash-chain anchors);
2. dials every other peer (PIN handshake, then ``REJOIN`` proving it holds its start-record key on
   this very channel; the peer answering proves its own in turn, ``ACCEPT``, or is not taken for
   that peer: a dial that fails so is tried again until the timeout) and receives ``SYNC``: the
   signed inputs of the steps it lacks, checked the same way (nothing a peer sends is trusted),
   where that peer is, the messages of ours it holds for the steps not yet agreed, the peers it is
   waiting for: those dropped too, which we do not wait for (they may be rejoining as well;
   ``reconnect`` links us up later), and the changes of membership made after our saved steps
   (their signed votes, checked the same way: we may have dropped after our own vote reached the
   others, who then made the change), and the ports peers listen on now where not on their start
   record's (they rejoined elsewhere, their own taken): we dial those we have not reached yet there
   (``_Restart.learn``), and so does our session later when a link breaks;
3. gives each peer what it missed from it, acks the current step with everyone and plays on.

The others wait for a dropped peer up to their ``--rejoin-timeout`` (they show who and since when);
its chain secret makes its reveals the same as before the crash, and a message it sent just
before dropping comes back to it in ``held``, so it repeats exactly what it said.
"""

from __future__ import annotations

import asyncio
import base64
import json
import logging
import os
import time
from collections.abc import Container, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from lanopoly.log import GameLog
from lanopoly.net import PROTOCOL_VERSION, reason, secure
from lanopoly.net.chain import HashChain
from lanopoly.net.framing import MAX_FRAME, ConnectionClosed, FramedConnection, FrameError, unpack
from lanopoly.net.lockstep import LockstepSession
from lanopoly.net.mesh import Listener, Mesh, MeshError, dial, start_hash
from lanopoly.net.messages import Message, ProtocolError, Rejoin, StartRecord, Sync, Vote, parse
from lanopoly.net.reconnect import RECONNECT_INTERVAL, PeerState, read_sync, stop_if_cancelled
from lanopoly.net.verify import StepChecker, VerifyError, decode_signed, saved_changes, saved_steps

log = logging.getLogger(__name__)

SECRET_FORMAT = 1


def secret_path(save: Path) -> Path:
    """Where the secrets of the game saved at ``save`` go: next to it, ``.secret`` appended."""
    return save.with_name(save.name + ".secret")


@dataclass(frozen=True)
class PeerSecrets:
    """What a peer needs to take its seat again, and must keep to itself: PIN, signing key, chain secret."""

    game_id: bytes
    me: int
    pin: str
    sign_key: bytes
    chain_secret: bytes
    chain_length: int
    host_address: tuple[str, int]

    @classmethod
    def of(cls, mesh: Mesh) -> PeerSecrets:
        return cls(
            game_id=mesh.start.game_id,
            me=mesh.me,
            pin=mesh.pin,
            sign_key=mesh.key.private_bytes_raw(),
            chain_secret=mesh.chain.secret,
            chain_length=mesh.chain.length,
            host_address=mesh.host_address,
        )

    def save(self, path: Path) -> None:
        """Write the file readable by its owner only (created with mode 0600, replaced atomically)."""
        data = {
            "format": SECRET_FORMAT,
            "game_id": self.game_id.hex(),
            "me": self.me,
            "pin": self.pin,
            "sign_key": base64.b64encode(self.sign_key).decode(),
            "chain_secret": base64.b64encode(self.chain_secret).decode(),
            "chain_length": self.chain_length,
            "host_address": list(self.host_address),
        }
        tmp = path.with_name(path.name + ".tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            json.dump(data, f)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> PeerSecrets:
        """Read a secrets file; ValueError (with the reason) when it is missing or not one."""
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            if data.get("format") != SECRET_FORMAT:
                raise ValueError("unknown format")
            host, port = data["host_address"]
            return cls(
                game_id=bytes.fromhex(data["game_id"]),
                me=int(data["me"]),
                pin=str(data["pin"]),
                sign_key=base64.b64decode(data["sign_key"], validate=True),
                chain_secret=base64.b64decode(data["chain_secret"], validate=True),
                chain_length=int(data["chain_length"]),
                host_address=(str(host), int(port)),
            )
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            raise ValueError(f"{path}: not a usable secrets file: {e}") from None


@dataclass
class SavedGame:
    """A peer's saved game, parsed: the log, the start record and its signatures, the signed steps."""

    log: GameLog
    start: StartRecord
    start_payload: bytes
    start_sigs: dict[int, bytes]
    steps: list[list[tuple[bytes, bytes]]]
    changes: dict[int, tuple[list[Vote], tuple[int, ...]]]

    @property
    def replaced(self) -> set[int]:
        """The peers replaced by a bot in this game (they take no part any more)."""
        return {p for _, removed in self.changes.values() for p in removed}


def load_saved(path: Path) -> SavedGame:
    """Parse a saved networked game; ValueError when it is not one (a solo log has no network record)."""
    try:
        text = path.read_text(encoding="utf-8")
        log_ = GameLog.from_json(text)
        net = json.loads(text).get("network")
        if not isinstance(net, dict):
            raise ValueError("no network record: not a LAN game")
        if net.get("protocol", PROTOCOL_VERSION) != PROTOCOL_VERSION:
            raise ValueError(
                f"saved by LAN protocol {net.get('protocol')!r}, and this version plays protocol {PROTOCOL_VERSION}:"
                " it can be checked (lanopoly verify) but not played on"
            )
        payload = base64.b64decode(net["start"], validate=True)
        start = parse(unpack(payload))
        if not isinstance(start, StartRecord):
            raise ValueError("the start record is not a START message")
        sigs = {int(p): base64.b64decode(s, validate=True) for p, s in net["start_sigs"].items()}
        steps = saved_steps(net)
        changes = saved_changes(net)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, FrameError, ProtocolError, VerifyError) as e:
        raise ValueError(f"{path}: not a saved LAN game: {e}") from None
    return SavedGame(log_, start, payload, sigs, steps, changes)


@dataclass
class _Restart:
    """A restarting peer's own side: its saved game, secrets, key and chain, checked against each other."""

    save: Path
    saved: SavedGame
    secrets: PeerSecrets
    key: Ed25519PrivateKey
    chain: HashChain
    interfaces: list[str] | None = None
    port: int = 0
    """The port our listener is bound to (``listen``): our REJOIN tells the others."""
    ports: dict[int, int] = field(default_factory=dict)
    """Where peers we have not reached listen now, by a SYNC (``learn``): we dial them there."""
    dialed: dict[int, int] = field(default_factory=dict)
    """The port at which we last reached each peer (``dial``)."""

    @classmethod
    def open(cls, save: Path, interfaces: list[str] | None) -> _Restart:
        saved = load_saved(save)
        if len(saved.steps) != len(saved.log.inputs):
            raise ValueError(f"{save}: {len(saved.log.inputs)} logged steps but {len(saved.steps)} signed ones")
        secrets = PeerSecrets.load(secret_path(save))
        start, me = saved.start, secrets.me
        key = Ed25519PrivateKey.from_private_bytes(secrets.sign_key)
        chain = HashChain(secrets.chain_length, secrets.chain_secret)
        if secrets.game_id != start.game_id or not 0 <= me < len(start.peers):
            raise ValueError("the secrets file belongs to another game")
        if start.peers[me].sign_key != secure.public_bytes(key) or start.peers[me].anchor != chain.anchor:
            raise ValueError("the secrets file's key or chain is not this peer's in the start record")
        if me in saved.replaced:
            raise ValueError("this peer was replaced by a bot in this game: it cannot take its seat again")
        return cls(save, saved, secrets, key, chain, interfaces)

    @property
    def start(self) -> StartRecord:
        return self.saved.start

    @property
    def me(self) -> int:
        return self.secrets.me

    @property
    def pin(self) -> bytes:
        return secure.normalize_pin(self.secrets.pin)

    def name(self, index: int) -> str:
        return f"peer {index} ({self.start.peers[index].name})"

    def address(self, index: int) -> tuple[str, int]:
        """Where to dial peer ``index``: its start record entry, or for the host where we reached it;
        on the port a SYNC said it listens on now, if one did (``learn``: its own was taken when it
        restarted; it listens on the same interfaces)."""
        if index == 0 and not self.start.peers[0].host:
            host, port = self.secrets.host_address
        else:
            host, port = self.start.peers[index].host, self.start.peers[index].port
        return host, self.ports.get(index, port)

    def learn(self, ports: Mapping[int, int], reached: Container[int]) -> None:
        """A SYNC says where peers listen now (``ports``): dial those not ``reached`` yet there.

        Nothing proves it (the peer named did not say so to us): a wrong port only makes us dial
        that peer's host at a port where it is not, and fail to reach it as if it were away. The
        host never changes, and the peer answering there must pass the PIN handshake and is then
        checked as any peer at its start record address. The last port a SYNC gave counts.
        """
        for peer, port in ports.items():
            if peer != self.me and peer not in reached:
                self.ports[peer] = port

    def moved_ports(self, reached: Container[int]) -> dict[int, int]:
        """The peers we know to listen on another port than their start record's, with that port:
        where we reached them, or for the others (not ``reached``) where a SYNC said. Our session
        dials them there when a link breaks (``Reconnects.ports``)."""
        moved: dict[int, int] = {}
        for peer, entry in enumerate(self.start.peers):
            port = self.dialed.get(peer) if peer in reached else self.ports.get(peer)
            if peer != self.me and port is not None and port != entry.port:
                moved[peer] = port
        return moved

    def rejoin_message(self, conn: FramedConnection) -> Rejoin:
        """Our REJOIN on ``conn``: who we are (proved on this channel), how many steps we saved, where we listen."""
        proof = self.key.sign(secure.rejoin_proof_data(conn.binding, self.start.game_id, self.me))
        peer_id = self.start.peers[self.me].peer_id
        return Rejoin(self.start.game_id, self.me, peer_id, proof, len(self.saved.steps), self.port)

    def proves(self, conn: FramedConnection, message: Rejoin) -> bool:
        """Whether ``message`` is a REJOIN of another peer of this game, proved with its key on ``conn``."""
        start, i = self.start, message.index
        if message.game_id != start.game_id or i == self.me or i >= len(start.peers):
            return False
        proof = secure.rejoin_proof_data(conn.binding, start.game_id, i)
        key = secure.load_public(start.peers[i].sign_key)
        return start.peers[i].peer_id == message.peer_id and secure.verify(key, message.proof, proof)

    async def listen(self, handler: Any) -> Listener:
        """Listen again on our port of the start record, or elsewhere if it is taken: we dial the others
        anyway, and our REJOIN tells them where we listen (they dial us there when a link breaks later)."""

        async def own_game_id() -> bytes:
            return self.start.game_id

        port = self.start.peers[self.me].port
        listener = Listener(handler, self.interfaces, port, 5.0, self.pin, own_game_id)
        try:
            await listener.start()
        except OSError as e:
            log.warning("cannot listen on port %d again (%s); listening elsewhere", port, e)
            listener = Listener(handler, self.interfaces, 0, 5.0, self.pin, own_game_id)
            await listener.start()
        self.port = listener.port
        return listener

    async def dial(self, index: int, timeout: float) -> FramedConnection:
        """Connect to peer ``index`` (PIN handshake), retrying until ``timeout``: it may be restarting
        too. Every attempt looks its address up again: a SYNC may say meanwhile that the peer
        listens on another port (``learn``)."""
        deadline = time.monotonic() + timeout
        while True:
            stop_if_cancelled()
            host, port = self.address(index)
            try:
                conn, _ = await dial(host, port, self.interfaces, min(timeout, 5.0), self.pin, self.start.game_id)
            except MeshError as e:
                if time.monotonic() > deadline:
                    raise MeshError(f"cannot reach {self.name(index)}: {e}") from None
                await asyncio.sleep(0.5)
                continue
            conn.label = self.name(index)
            self.dialed[index] = port
            return conn

    def session(
        self, links: dict[int, FramedConnection], listener: Listener, policies_for: Any, **options: Any
    ) -> LockstepSession:
        """A session on these links, with the game replayed up to our own saved step."""
        mesh = Mesh(
            self.me,
            self.start,
            start_hash(self.saved.start_payload),
            links,
            self.chain,
            listener,
            self.key,
            self.saved.start_sigs,
        )
        mesh.start_payload, mesh.pin, mesh.host_address = (
            self.saved.start_payload,
            self.secrets.pin,
            self.secrets.host_address,
        )
        session_cls = options.pop("session_cls", LockstepSession)
        session: LockstepSession = session_cls(mesh, policies_for(mesh), log_path=self.save, **options)
        return session


async def _sync_from(me: _Restart, index: int, timeout: float) -> tuple[FramedConnection, PeerState]:
    """Dial one peer, prove who we are, check it proves its key (``ACCEPT``) and read its SYNC;
    MeshError when it does not take us back within ``timeout``.

    A peer that refuses us (closes the connection) may be rejoining too and catching up: it takes
    us back once it plays, so we try again until ``timeout``.
    """
    deadline = time.monotonic() + timeout
    while True:
        conn = await me.dial(index, max(deadline - time.monotonic(), 1.0))
        try:
            stop_if_cancelled()
            await conn.send(me.rejoin_message(conn).to_wire())
            conn.max_frame = MAX_FRAME
            key = me.start.peers[index].sign_key
            return conn, await read_sync(conn, me.start.game_id, len(me.start.peers), timeout, proof_of=(index, key))
        except (ConnectionClosed, FrameError, ProtocolError, TimeoutError) as e:
            await conn.close()
            if time.monotonic() > deadline:
                raise MeshError(f"{me.name(index)} did not take us back: {reason(e)}") from None
        except BaseException:
            await conn.close()
            raise
        await asyncio.sleep(RECONNECT_INTERVAL)


async def _sync_from_players(
    me: _Restart, timeout: float
) -> tuple[dict[int, FramedConnection], dict[int, PeerState], list[int]]:
    """Dial every other peer at once and read their SYNCs; returns the links, the states and the peers away.

    We need not reach a peer that a peer which took us back is waiting for (its SYNC's ``away``):
    it dropped too, and may be rejoining and not able to take us back yet. We play on without it,
    as the others do; the higher index of the two dials the other once both play (``reconnect``).
    Nor a peer its SYNC's changes replace (checked when we replay them: a forged change fails the
    rejoin). A lying peer can only make us wait for someone (as before), or not wait for a peer
    that then links up with us from its session: the away set decides nothing else. Raises the
    first failure of a peer we had to reach (MeshError).
    """
    others = [i for i in range(len(me.start.peers)) if i != me.me and i not in me.saved.replaced]
    tasks = {asyncio.get_running_loop().create_task(_sync_from(me, i, timeout)): i for i in others}
    links: dict[int, FramedConnection] = {}
    states: dict[int, PeerState] = {}
    failed: dict[int, BaseException] = {}
    try:
        while True:
            gone = {p for state in states.values() for p in state.away | state.removed}
            away = {p for p in gone if p in others and p not in states}
            needed = [i for i in others if i not in states and i not in away]
            if states and not needed:
                return links, states, sorted(away)
            errors = [failed[i] for i in needed if i in failed]
            if errors:
                raise errors[0]
            if not tasks:
                raise MeshError("no peer plays this game any more")
            done, _ = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in done:
                i = tasks.pop(task)
                error = task.exception()
                if error is not None:
                    failed[i] = error
                else:
                    links[i], states[i] = task.result()
                    me.learn(states[i].ports, states)  # where to dial the peers we have not reached
    except BaseException:
        await asyncio.gather(*(link.close() for link in links.values()))
        raise
    finally:
        for task in tasks:
            task.cancel()
        for result in await asyncio.gather(*tasks, return_exceptions=True):
            if isinstance(result, tuple):
                await result[0].close()


async def rejoin(
    save: Path,
    policies_for: Any,
    *,
    interfaces: list[str] | None,
    timeout: float = 30.0,
    **session_options: Any,
) -> LockstepSession:
    """Take our seat again in the game saved at ``save`` while the others play on; returns the session to ``run``.

    ``policies_for(mesh)`` gives the policies of our seats. Raises ValueError for unusable files,
    MeshError when the others cannot be reached or do not take us back, VerifyError when the
    steps (ours or theirs) do not verify. Peers that dropped too (the others wait for them) are
    not waited for here: the session starts with them away and they link up with it later.
    """
    me = _Restart.open(save, interfaces)

    async def refuse(conn: FramedConnection, message: Message) -> bool:
        return False  # not playing yet: a peer rejoining us tries again, or links up with our session later

    listener = await me.listen(refuse)
    links: dict[int, FramedConnection] = {}
    try:
        links, states, away = await _sync_from_players(me, timeout)
        session = me.session(links, listener, policies_for, **session_options)
        _catch_up(session, me.saved, states)
        await _drop_replaced(session)
        session.reconnects.ports.update(me.moved_ports(links))  # where our session dials them later
        session.catch_up.mark_away([p for p in away if session.membership.is_active(p)])
    except BaseException:
        await asyncio.gather(*(link.close() for link in links.values()))
        await listener.close()
        raise
    session.plan_resume({p: s.applied for p, s in states.items()}, {p: s.held for p, s in states.items()})
    return session


async def resume(
    save: Path,
    policies_for: Any,
    *,
    interfaces: list[str] | None,
    timeout: float = 600.0,
    **session_options: Any,
) -> LockstepSession:
    """Restart a stopped game with every peer: each runs this with its own saved game; returns the session to ``run``.

    The mesh forms as at the start (peer j dials every peer i < j, after the PIN handshake both
    send ``REJOIN``); then on every link both send the signed steps the other has not saved, and the
    changes of membership (their votes) made after those steps. Every peer replays up to the longest
    saved history (every step and change checked) and the game goes on from there. ``timeout``
    bounds the wait for the others to start.
    """
    me = _Restart.open(save, interfaces)
    game_id = me.start.game_id
    links: dict[int, FramedConnection] = {}
    states: dict[int, PeerState] = {}
    everyone = asyncio.Event()
    expected = len(me.start.peers) - 1 - len(me.saved.replaced)

    async def exchange(conn: FramedConnection, theirs: Rejoin) -> PeerState:
        """Send the steps they lack (ours beyond their saved ones) while reading theirs."""
        steps = list(enumerate(me.saved.steps, 1))[theirs.have_step :]
        changes = [
            (step, [(v.body, v.signature) for v in votes])
            for step, (votes, _) in sorted(me.saved.changes.items())
            if step > theirs.have_step
        ]
        last = Sync(game_id, [], True, len(me.saved.steps), [], (), changes)  # nobody away
        frames = [*Sync.chunks(game_id, steps), last]

        async def send() -> None:
            for frame in frames:
                await conn.send(frame.to_wire())

        # Its REJOIN proved its key on this link already (``proves``): no ACCEPT.
        reading = read_sync(conn, game_id, len(me.start.peers), timeout, proof_of=None)
        _, state = await asyncio.gather(send(), reading)
        return state

    def linked(index: int, conn: FramedConnection, state: PeerState) -> None:
        links[index], states[index] = conn, state
        if len(links) == expected:
            everyone.set()

    async def accept(conn: FramedConnection, message: Message) -> bool:
        """Peers with a higher index dial us."""
        if not isinstance(message, Rejoin) or message.index < me.me or message.index in links:
            return False
        if not me.proves(conn, message):
            log.warning("dropping a REJOIN from %s that does not prove its key", conn.label)
            return False
        conn.max_frame = MAX_FRAME
        conn.label = me.name(message.index)
        try:
            await conn.send(me.rejoin_message(conn).to_wire())
            linked(message.index, conn, await exchange(conn, message))
        except (ConnectionClosed, FrameError, ProtocolError, TimeoutError, MeshError) as e:
            log.warning("%s could not resume with us: %s", conn.label, reason(e))
            return False
        return True

    async def call(index: int) -> None:
        """We dial every peer with a lower index."""
        conn = await me.dial(index, timeout)
        try:
            await conn.send(me.rejoin_message(conn).to_wire())
            conn.max_frame = MAX_FRAME
            _, raw = await conn.recv_within(timeout)
            theirs = parse(raw)
            if not isinstance(theirs, Rejoin) or theirs.index != index or not me.proves(conn, theirs):
                raise MeshError(f"{me.name(index)} answered {type(theirs).__name__}, not its own REJOIN")
            linked(index, conn, await exchange(conn, theirs))
        except (ConnectionClosed, FrameError, ProtocolError, TimeoutError) as e:
            await conn.close()
            raise MeshError(f"{me.name(index)} did not resume with us: {reason(e)}") from None

    listener = await me.listen(accept)
    try:
        await asyncio.gather(*(call(i) for i in range(me.me) if i not in me.saved.replaced))
        await asyncio.wait_for(everyone.wait(), timeout)
        session = me.session(links, listener, policies_for, **session_options)
        _catch_up(session, me.saved, states)
        await _drop_replaced(session)
    except BaseException:
        await asyncio.gather(*(link.close() for link in links.values()))
        await listener.close()
        raise
    top = session.game.step
    session.plan_resume(dict.fromkeys(states, top), {})
    return session


def _catch_up(session: LockstepSession, saved: SavedGame, states: Mapping[int, PeerState]) -> None:
    """Replay our saved steps, then the ones the others sent (every step checked); check our own hashes.

    Changes of membership are made again before the step they take effect at: ours as saved, and
    after our saved steps the ones we saved or the others sent (we may have missed them: we
    dropped before their votes reached us), one for the step to come included. Each is checked
    as ``verify`` does (``StepChecker.change``): only votes that prove a change make it.
    """
    checker = StepChecker(saved.start)
    for step, pairs in enumerate(saved.steps, 1):
        if step in saved.changes:
            session.replay_change(step, saved.changes[step][0], checker)
        session.replay(step, decode_signed(pairs, step), checker)
        if session.game.state_hash() != saved.log.hashes[step - 1]:
            raise VerifyError(step, "replaying our own saved log gives another state hash")
    offered: dict[int, list[list[Vote]]] = {}
    for step, (votes, _) in saved.changes.items():
        offered.setdefault(step, []).append(votes)
    for _, state in sorted(states.items()):
        for step, votes in state.changes.items():
            offered.setdefault(step, []).append(votes)
    top = max(s.applied for s in states.values())
    step = session.game.step
    while step < top:
        step += 1
        _replay_offered_change(session, step, offered.get(step, []), checker)
        source = next((p for p, s in states.items() if step in s.steps), None)
        if source is None:
            raise VerifyError(step, "no peer sent this step")
        session.replay(step, decode_signed(states[source].steps[step], step), checker)
    _replay_offered_change(session, step + 1, offered.get(step + 1, []), checker)  # decided for the step to come
    if not session.membership.is_active(session.me):
        raise VerifyError(step, "this peer was replaced in this game: it cannot take its seat again")
    log.warning("caught up to step %d (%d from our own log)", step, len(saved.steps))


def _replay_offered_change(
    session: LockstepSession, step: int, offered: list[list[Vote]], checker: StepChecker
) -> None:
    """Make the change that takes effect at ``step``, if any: the first of ``offered`` whose votes prove it.

    Peers may send different votes for one step (a voter signed a new vote after the change, or a
    peer lies): only a change the checker accepts is made; none valid is a VerifyError.
    """
    refused: VerifyError | None = None
    for votes in offered:
        try:
            session.replay_change(step, votes, checker)
        except VerifyError as e:
            refused = e
            continue
        return
    if refused is not None:
        raise refused


async def _drop_replaced(session: LockstepSession) -> None:
    """Close the links to peers that the changes we replayed replaced (they play no more)."""
    for peer in [p for p in session.mesh.links if not session.membership.is_active(p)]:
        await session.mesh.links.pop(peer).close()
