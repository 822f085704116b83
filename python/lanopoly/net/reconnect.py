"""Linking up again from a running session with a peer that dropped: the higher index of the two dials.

A rejoining peer (``net/rejoin.py``) dials every other peer; the live ones take it back. When two
peers rejoin at once, neither can take the other back while it is still catching up (until then a
rejoining peer refuses connections), so a rejoiner does not wait for the peers that the live ones
say they are waiting for (``SYNC``'s ``away``): it plays on with them marked away, like the live
peers do. Whoever ends up waiting for whom, the pair links up again the way the mesh formed at the
start: the peer with the higher index dials the lower one, here from its running session, every
``RECONNECT_INTERVAL`` seconds while the lower one is away (``REJOIN`` with its current step and
its listening port), at the lower one's start record address, on the port the lower one's last
``REJOIN`` said if it rejoined us (a restarted peer listens elsewhere when its old port is taken),
or the port the SYNCs that took us back said if we rejoined since (``net/rejoin.py``).
The lower one's session takes it back as it takes back any rejoining peer (``SYNC``), and the
dialer adopts the connection (``CatchUp.adopt``): each sends the other what it missed, and both
play on.

Nothing here is trusted more than a rejoin is: the dialer proves its key on the new channel, the
peer that answers proves its own (``ACCEPT``, before its SYNC: something else listening at its
address, knowing the PIN, is not taken for it), and the answer only says where the other peer is;
the steps and acks that follow are checked as usual.
A connection that completes is adopted even if the other peer dialed us meanwhile: both sides then
end on the newer connection (the accepting side replaces its link, the dialing side adopts).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lanopoly.net import reason, secure
from lanopoly.net.framing import MAX_FRAME, ConnectionClosed, FramedConnection, FrameError, unpack
from lanopoly.net.membership import targets
from lanopoly.net.mesh import KeyProofError, MeshError, dial, read_accept
from lanopoly.net.messages import Message, ProtocolError, Reject, Rejoin, Sync, Vote, parse
from lanopoly.net.verify import VerifyError, decode_votes

if TYPE_CHECKING:
    from lanopoly.net.lockstep import LockstepSession

log = logging.getLogger("lanopoly.net.lockstep")  # the session's logger: log lines keep their name

RECONNECT_INTERVAL = 0.5
"""Seconds between two attempts to reach a peer that is away (each costs both sides a PIN handshake)."""


@dataclass
class PeerState:
    """What a peer said in its SYNC: the signed steps we lacked, its last applied step, our messages it
    holds, the other peers it is waiting for (away, by its account), the changes of membership
    made after our steps (step -> the votes, decoded but not checked: ``StepChecker.change`` or
    ``Voting.take_change`` does that) and the ports other peers listen on now where they are not
    their start record's (peer -> port, by its account: a rejoiner dials them there)."""

    steps: dict[int, list[tuple[bytes, bytes]]]
    applied: int
    held: list[Message]
    away: set[int] = field(default_factory=set)
    changes: dict[int, list[Vote]] = field(default_factory=dict)
    ports: dict[int, int] = field(default_factory=dict)

    @property
    def removed(self) -> set[int]:
        """The peers its changes replace, by its account (whom a rejoiner need not reach; checked later)."""
        return {p for votes in self.changes.values() for vote in votes for p in targets(vote)}


async def read_sync(
    conn: FramedConnection, game_id: bytes, peers: int, timeout: float, *, proof_of: tuple[int, bytes] | None
) -> PeerState:
    """Read SYNC frames until the last one; MeshError on anything else, ProtocolError when it names
    a port for a peer not among the ``peers`` of the start record.

    ``proof_of`` is ``(index, start record key)`` of the peer we dialed: its ``ACCEPT`` must come
    first, proving that key on this channel (``mesh.read_accept``: KeyProofError, a ProtocolError,
    when it does not). None only where the other proved its key otherwise (``resume``: its own
    ``REJOIN``).
    """
    if proof_of is not None:
        await read_accept(conn, game_id, *proof_of, timeout)
    state = PeerState({}, 0, [])
    while True:
        _, raw = await conn.recv_within(timeout)
        message = parse(raw)
        if isinstance(message, Reject):
            raise MeshError(f"{conn.label} refused: {message.reason}")
        if not isinstance(message, Sync) or message.game_id != game_id:
            raise MeshError(f"{conn.label} answered {type(message).__name__} instead of SYNC")
        state.steps.update(dict(message.steps))
        if message.last:
            state.applied = message.applied
            state.held = [parse(unpack(frame)) for frame in message.held]
            state.away = set(message.away)
            for step, pairs in message.changes:
                if step in state.changes:
                    raise ProtocolError(f"sync: two changes for step {step}")
                try:
                    state.changes[step] = decode_votes(pairs, step)
                except VerifyError as e:
                    raise ProtocolError(f"sync: {e}") from None
            for peer, port in message.ports:
                if peer >= peers:
                    raise ProtocolError(f"sync: a port for peer {peer}, not in the start record")
                state.ports[peer] = port
            return state


def stop_if_cancelled() -> None:
    """Raise CancelledError if this task was asked to stop: a retry loop must not go on after that.

    Python 3.11's ``asyncio.wait_for`` loses a cancellation that comes as what it waits for ends
    (it returns that result or raises that error instead). A rejoiner's dial to a peer, cancelled
    once the other peers' SYNCs arrived, then dialed on until its deadline, refusing connections
    meanwhile, while a peer rejoining at the same time waited for it and gave up (seen once in
    about 300 runs of the two-of-four rejoin test). ``Task.cancelling()`` still counts the request.
    """
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


class Reconnects:
    """A session's attempts to reach the peers with a lower index that are away."""

    def __init__(self, session: LockstepSession) -> None:
        self.session = session
        self.tasks: dict[int, asyncio.Task[None]] = {}
        self.ports: dict[int, int] = {}
        """The peers that listen on another port than their start record's, and that port: by their
        own ``REJOIN`` or, if this peer rejoined, where it reached them or the SYNCs that took it
        back said (``moved``); passed on in our SYNCs."""

    def moved(self, peer: int, port: int) -> None:
        """``peer`` listens on ``port`` now: dial it there (kept only if not its start record's)."""
        if port == self.session.mesh.start.peers[peer].port:
            self.ports.pop(peer, None)
        else:
            self.ports[peer] = port

    def start(self, peer: int) -> None:
        """Keep dialing ``peer`` while it is away, if it is ours to dial (a lower index) and none is under way."""
        session = self.session
        running = self.tasks.get(peer)
        if peer >= session.me or session.rejoin_timeout <= 0 or (running is not None and not running.done()):
            return
        self.tasks[peer] = asyncio.get_running_loop().create_task(self._dial_until_back(peer))

    async def close(self) -> None:
        """Stop every attempt (the session is over)."""
        for task in self.tasks.values():
            task.cancel()
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)
        self.tasks.clear()

    def _wanted(self, peer: int) -> bool:
        session = self.session
        return (
            peer in session._dropped
            and session.membership.is_active(peer)
            and not session.game.is_over
            and session._remote_freeze is None
        )

    async def _dial_until_back(self, peer: int) -> None:
        while self._wanted(peer):
            await asyncio.sleep(RECONNECT_INTERVAL)
            stop_if_cancelled()  # ``close`` stops us even if an attempt lost its cancellation
            if not self._wanted(peer):
                return
            try:
                answer = await self._attempt(peer)
            except KeyProofError as e:  # something else answers at its address (knowing the PIN)
                log.warning("%s not reached: %s", self.session.peer_label(peer), e)
                continue
            except (MeshError, ConnectionClosed, FrameError, ProtocolError, TimeoutError) as e:
                log.debug("%s not reached yet: %s", self.session.peer_label(peer), reason(e))
                continue
            if answer is not None and not self.session.catch_up.adopt(peer, *answer):
                await answer[0].close()
            return

    def address(self, peer: int) -> tuple[str, int]:
        """Where ``peer`` listens: its start record entry (for the host, where we reached it), on
        the port its last ``REJOIN`` said if it rejoined us, or the one we learned rejoining (a
        restarted peer may not get its port back; it listens on the same interfaces)."""
        mesh = self.session.mesh
        entry = mesh.start.peers[peer]
        host, port = mesh.host_address if peer == 0 and not entry.host else (entry.host, entry.port)
        return host, self.ports.get(peer, port)

    async def _attempt(self, peer: int) -> tuple[FramedConnection, PeerState] | None:
        """One try: dial ``peer``, prove who we are (``REJOIN`` with our step), check it proves its
        key in turn (``ACCEPT``) and read its SYNC.

        None when ``peer`` came back meanwhile (it dialed us): nothing was sent.
        """
        session = self.session
        mesh = session.mesh
        host, port = self.address(peer)
        timeout = min(session.step_timeout, 5.0)
        pin = secure.normalize_pin(mesh.pin)
        conn, _ = await dial(host, port, mesh.listener.interfaces, timeout, pin, session.game_id)
        conn.label = session.peer_label(peer)
        if not self._wanted(peer):
            await conn.close()
            return None
        try:
            proof = mesh.key.sign(secure.rejoin_proof_data(conn.binding, session.game_id, session.me))
            me = mesh.start.peers[session.me]
            rejoin = Rejoin(session.game_id, session.me, me.peer_id, proof, session.game.step, mesh.listener.port)
            await conn.send(rejoin.to_wire())
            conn.max_frame = MAX_FRAME
            key = mesh.start.peers[peer].sign_key
            return conn, await read_sync(conn, session.game_id, len(mesh.start.peers), timeout, proof_of=(peer, key))
        except BaseException:
            await conn.close()
            raise
